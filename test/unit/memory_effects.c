/*
** memory_effects.c - unit test of the memory-effects and loop-like
** interfaces through the public API: a memory-effects model attached from
** here, outside every dialect, to func.call (whose effects are otherwise
** unknown) and to test.side_effect, and the queries on those, on the test
** dialect's declared effects (test.load, test.store, test.alloc), on a
** PURE op, on an unregistered op, and recursively on test.for. Then the
** loop-like queries on test.for, moving an op out of it included.
*/
#include <stdio.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/interfaces.h"
#include "gilt/register.h"
#include "test/lib/test_lib.h"

static int num_errors;

static void record(const GiltDiagnostic *d, void *user)
{
  (void)d;
  (void)user;
  num_errors++;
}

static const char source[] =
    "func.func private @g(memref<4xi32>) -> i32\n"
    "func.func @f(%m: memref<4xi32>, %i: index, %x: i32) -> i32 {\n"
    "  %0 = call @g(%m) : (memref<4xi32>) -> i32\n"
    "  %1 = \"test.load\"(%m, %i) : (memref<4xi32>, index) -> i32\n"
    "  \"test.store\"(%x, %m, %i) : (i32, memref<4xi32>, index) -> ()\n"
    "  %2 = \"test.alloc\"() : () -> memref<4xi32>\n"
    "  %3 = \"test.add\"(%x, %x) : (i32, i32) -> i32\n"
    "  \"test.side_effect\"(%m) : (memref<4xi32>) -> ()\n"
    "  %4 = \"toy.op\"(%m) : (memref<4xi32>) -> i32\n"
    "  %5 = \"test.for\"(%i, %i, %i, %x) ({\n"
    "  ^bb0(%iv: index, %acc: i32):\n"
    "    %c = \"test.constant\"() {value = 1 : i32} : () -> i32\n"
    "    %v = \"test.load\"(%m, %iv) : (memref<4xi32>, index) -> i32\n"
    "    \"test.yield\"(%v) : (i32) -> ()\n"
    "  }) : (index, index, index, i32) -> i32\n"
    "  \"test.flop\"(%x) : (i32) -> ()\n"
    "  return %5 : i32\n"
    "}\n";

/* func.call reads its first argument and may write anything. */
static void call_effects(GiltOp *op, GiltEffects *effects)
{
  gilt_effects_add(effects, GILT_EFFECT_READ, gilt_op_get_operand(op, 0));
  gilt_effects_add(effects, GILT_EFFECT_WRITE, NULL);
}

static const GiltMemoryEffectsMethods call_model = {
    .get_effects = call_effects};

/* test.side_effect, as far as this test says, only reads its operand. */
static const GiltMemoryEffectsMethods side_effect_model = {
    .effects = GILT_EFFECTS(GILT_EFFECT_ON_OPERAND(GILT_EFFECT_READ, 0))};

/* test.flop writes its operand #2, which the op below does not have: the
** write falls on unknown memory, it is not dropped. */
static const GiltMemoryEffectsMethods flop_model = {
    .effects = GILT_EFFECTS(GILT_EFFECT_ON_OPERAND(GILT_EFFECT_WRITE, 2))};

/* The n-th op of a block. */
static GiltOp *nth(GiltBlock *b, int n)
{
  GiltOp *op = gilt_block_get_first_op(b);
  while (n-- > 0)
    op = gilt_op_get_next(op);
  return op;
}

static size_t num_effects(GiltOp *op)
{
  size_t n = 99;
  return gilt_op_get_memory_effects(op, NULL, 0, &n) ? n : 99;
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_test_register_all(ctx);
  gilt_context_set_allow_unregistered_dialects(ctx, true);
  gilt_context_set_diagnostic_handler(ctx, record, NULL);

  GiltOp *module = gilt_parse_source(ctx, source, strlen(source), "t.gilt");
  CHECK(module != NULL);
  if (!module)
    return 1;
  GiltBlock *top = gilt_region_get_first_block(gilt_op_get_region(module, 0));
  GiltBlock *body =
      gilt_region_get_first_block(gilt_op_get_region(nth(top, 1), 0));
  GiltValue *m = gilt_block_get_argument(body, 0);
  GiltOp *call = nth(body, 0), *load = nth(body, 1), *store = nth(body, 2);
  GiltOp *alloc = nth(body, 3), *add = nth(body, 4), *side = nth(body, 5);
  GiltOp *toy = nth(body, 6), *loop = nth(body, 7), *flop = nth(body, 8);
  GiltMemoryEffect out[4];
  size_t n;

  /* Declared by the test dialect's rows. */
  CHECK(gilt_op_get_memory_effects(load, out, 4, &n) && n == 1 &&
        out[0].kind == GILT_EFFECT_READ && out[0].value == m);
  CHECK(gilt_op_only_reads(load) && !gilt_op_is_effect_free(load) &&
        !gilt_op_may_write(load));
  CHECK(gilt_op_get_memory_effects(store, out, 4, &n) && n == 1 &&
        out[0].kind == GILT_EFFECT_WRITE && out[0].value == m);
  CHECK(gilt_op_may_write(store) && !gilt_op_only_reads(store));
  CHECK(gilt_op_get_memory_effects(alloc, out, 4, &n) && n == 1 &&
        out[0].kind == GILT_EFFECT_ALLOCATE &&
        out[0].value == gilt_op_get_result(alloc, 0));
  CHECK(gilt_op_may_have_effect(alloc, GILT_EFFECT_ALLOCATE) &&
        !gilt_op_may_have_effect(alloc, GILT_EFFECT_READ) &&
        !gilt_op_may_write(alloc));

  /* PURE: known, none. Unregistered, or registered with nothing said:
  ** unknown, anything. */
  CHECK(num_effects(add) == 0 && gilt_op_is_effect_free(add));
  CHECK(!gilt_op_get_memory_effects(toy, out, 4, &n) && n == 0);
  CHECK(gilt_op_may_write(toy) && !gilt_op_only_reads(toy) &&
        gilt_op_may_have_effect(toy, GILT_EFFECT_FREE));
  CHECK(!gilt_op_get_memory_effects(call, out, 4, &n));
  CHECK(gilt_op_may_write(call) && !gilt_op_is_effect_free(call));

  /* Models attached from here: func.call by a function, test.side_effect
  ** by a declaration. Asking with too little room counts every effect
  ** and fills what fits, as snprintf. */
  CHECK(gilt_context_attach_interface(ctx, "func.call",
                                      &gilt_memory_effects_interface,
                                      &call_model) == GILT_SUCCESS);
  CHECK(gilt_context_attach_interface(ctx, "test.side_effect",
                                      &gilt_memory_effects_interface,
                                      &side_effect_model) == GILT_SUCCESS);
  memset(out, 0, sizeof out);
  CHECK(gilt_op_get_memory_effects(call, out, 1, &n) && n == 2 &&
        out[0].kind == GILT_EFFECT_READ && out[0].value == m &&
        out[1].kind == 0);
  CHECK(gilt_op_get_memory_effects(call, out, 4, &n) && n == 2 &&
        out[1].kind == GILT_EFFECT_WRITE && out[1].value == NULL);
  CHECK(gilt_op_may_write(call) && !gilt_op_only_reads(call) &&
        !gilt_op_may_have_effect(call, GILT_EFFECT_FREE));
  CHECK(gilt_op_get_memory_effects(side, out, 4, &n) && n == 1 &&
        out[0].kind == GILT_EFFECT_READ && out[0].value == m);
  CHECK(gilt_op_only_reads(side) && !gilt_op_may_write(side));
  CHECK(gilt_context_attach_interface(ctx, "test.flop",
                                      &gilt_memory_effects_interface,
                                      &flop_model) == GILT_SUCCESS);
  CHECK(gilt_op_get_memory_effects(flop, out, 4, &n) && n == 1 &&
        out[0].kind == GILT_EFFECT_WRITE && out[0].value == NULL);
  CHECK(gilt_op_may_write(flop));

  /* A second model for an op that has one: refused. */
  num_errors = 0;
  CHECK(gilt_context_attach_interface(ctx, "test.load",
                                      &gilt_memory_effects_interface,
                                      &call_model) == GILT_FAILURE);
  CHECK(num_errors == 1);

  /* test.for: no effects of its own, its body's as its own. */
  CHECK(gilt_op_get_memory_effects(loop, out, 4, &n) && n == 1 &&
        out[0].kind == GILT_EFFECT_READ && out[0].value == m);
  CHECK(gilt_op_only_reads(loop) && !gilt_op_may_write(loop));

  /* Loop-like: its one region is the body; the induction variable is
  ** inside, %m outside; moving the constant out puts it before the loop. */
  CHECK(gilt_op_is_loop_like(loop) && !gilt_op_is_loop_like(load));
  GiltRegion *regions[2];
  CHECK(gilt_loop_like_get_regions(loop, regions, 2) == 1 &&
        regions[0] == gilt_op_get_region(loop, 0));
  CHECK(gilt_loop_like_get_regions(loop, NULL, 0) == 1);
  GiltBlock *loop_body = gilt_region_get_first_block(regions[0]);
  GiltValue *iv = gilt_block_get_argument(loop_body, 0);
  GiltOp *c = nth(loop_body, 0), *inner_load = nth(loop_body, 1);
  CHECK(gilt_loop_like_is_defined_outside(loop, m));
  CHECK(!gilt_loop_like_is_defined_outside(loop, iv));
  CHECK(!gilt_loop_like_is_defined_outside(loop,
                                           gilt_op_get_result(c, 0)));
  gilt_loop_like_move_out(loop, c);
  CHECK(gilt_op_get_next(c) == loop && gilt_op_get_block(c) == body);
  CHECK(gilt_block_get_first_op(loop_body) == inner_load);
  CHECK(gilt_loop_like_is_defined_outside(loop, gilt_op_get_result(c, 0)));
  CHECK(gilt_op_verify(module) == GILT_SUCCESS);

  gilt_op_destroy(module);
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
