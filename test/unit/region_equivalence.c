/*
** region_equivalence.c - unit test of gilt_regions_equivalent and
** gilt_region_hash (ir/equivalence.c), by which loop-to-llvm shares one
** outlined body between layers of one shape.
**
** Functions of one module are compared body to body: one written with
** other value names and locations is equivalent; swapped operands, an
** attribute of another value, swapped successors or a use of another
** block's argument are not.
*/
#include <string.h>

#include "test/unit/check.h"
#include "gilt/register.h"
#include "ir/core.h"

static const char source[] =
    "llvm.func @base(%a: f32, %b: f32) -> f32 {\n"
    "  %c = llvm.constant {value = 2.0 : f32} : () -> f32\n"
    "  %d = llvm.fsub %a, %b : f32\n"
    "  %e = llvm.fmul %d, %c : f32\n"
    "  llvm.return %e : (f32) -> ()\n"
    "}\n"
    "llvm.func @renamed(%x: f32, %y: f32) -> f32 {\n"
    "  %two = llvm.constant {value = 2.0 : f32} : () -> f32 "
    "loc(\"elsewhere\":7:1)\n"
    "  %diff = llvm.fsub %x, %y : f32\n"
    "  %prod = llvm.fmul %diff, %two : f32\n"
    "  llvm.return %prod : (f32) -> ()\n"
    "}\n"
    "llvm.func @swapped(%a: f32, %b: f32) -> f32 {\n"
    "  %c = llvm.constant {value = 2.0 : f32} : () -> f32\n"
    "  %d = llvm.fsub %b, %a : f32\n"
    "  %e = llvm.fmul %d, %c : f32\n"
    "  llvm.return %e : (f32) -> ()\n"
    "}\n"
    "llvm.func @three(%a: f32, %b: f32) -> f32 {\n"
    "  %c = llvm.constant {value = 3.0 : f32} : () -> f32\n"
    "  %d = llvm.fsub %a, %b : f32\n"
    "  %e = llvm.fmul %d, %c : f32\n"
    "  llvm.return %e : (f32) -> ()\n"
    "}\n"
    "llvm.func @branch(%p: i1, %a: f32, %b: f32) -> f32 {\n"
    "  \"llvm.cond_br\"(%p, %a, %b)[^bb1, ^bb2] "
    "{operandSegmentSizes = array<i32: 1, 1, 1>} : (i1, f32, f32) -> ()\n"
    "^bb1(%x: f32):\n"
    "  llvm.return %x : (f32) -> ()\n"
    "^bb2(%y: f32):\n"
    "  llvm.return %a : (f32) -> ()\n"
    "}\n"
    "llvm.func @branch_swapped(%p: i1, %a: f32, %b: f32) -> f32 {\n"
    "  \"llvm.cond_br\"(%p, %a, %b)[^bb2, ^bb1] "
    "{operandSegmentSizes = array<i32: 1, 1, 1>} : (i1, f32, f32) -> ()\n"
    "^bb1(%x: f32):\n"
    "  llvm.return %x : (f32) -> ()\n"
    "^bb2(%y: f32):\n"
    "  llvm.return %a : (f32) -> ()\n"
    "}\n"
    "llvm.func @branch_other_arg(%p: i1, %a: f32, %b: f32) -> f32 {\n"
    "  \"llvm.cond_br\"(%p, %a, %b)[^bb1, ^bb2] "
    "{operandSegmentSizes = array<i32: 1, 1, 1>} : (i1, f32, f32) -> ()\n"
    "^bb1(%x: f32):\n"
    "  llvm.return %x : (f32) -> ()\n"
    "^bb2(%y: f32):\n"
    "  llvm.return %y : (f32) -> ()\n"
    "}\n";

static GiltRegion *body(GiltOp *module, const char *name)
{
  GiltOp *fn = gilt_symbol_table_lookup(module, name);
  CHECK(fn != NULL);
  return gilt_op_get_region(fn, 0);
}

static bool same(GiltOp *module, const char *a, const char *b)
{
  return gilt_regions_equivalent(body(module, a), body(module, b));
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  GiltOp *m = gilt_parse_source(ctx, source, strlen(source), "eq.gilt");
  CHECK(m != NULL);
  if (m) {
    CHECK(same(m, "base", "base"));
    CHECK(same(m, "base", "renamed"));
    CHECK(gilt_region_hash(body(m, "base")) ==
          gilt_region_hash(body(m, "renamed")));
    CHECK(!same(m, "base", "swapped"));
    CHECK(!same(m, "base", "three"));
    CHECK(gilt_region_hash(body(m, "base")) !=
          gilt_region_hash(body(m, "three")));
    CHECK(same(m, "branch", "branch"));
    CHECK(!same(m, "branch", "branch_swapped"));
    CHECK(!same(m, "branch", "branch_other_arg"));
    gilt_op_destroy(m);
  }
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
