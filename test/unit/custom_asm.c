/*
** custom_asm.c - unit test of custom textual forms written with the
** public API only (gilt/dialect.h, gilt/asm.h), as a dialect outside the
** tree writes them.
**
** The test defines a dialect of its own, `ut`:
**
**   !ut.array<4 of f32>        a type with parse and print hooks
**   %s = ut.sum %a, %b : i32   variadic operands read with the list call;
**                              the result type inferred from operand 0
**   %v = ut.splat %x {count = 4 : i64} : f32
**                              the result type, !ut.array<4 of f32>,
**                              inferred from an attribute and an operand
**   %r:2 = ut.scope -> (i32, f32) { ... }
**                              result types after an arrow, and a region
**
** A module using them parses with gilt_parse_source, verifies, prints in
** the custom forms and prints the same after a second parse; the inferred
** types are the uniqued ones; the builder (gilt_op_create) runs the same
** infer hook; and bad input fails with one error from the hook that saw
** it. Not here: the grammar of each call (the lit tests of gilt's own
** dialects cover it).
*/
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gilt/asm.h"
#include "gilt/dialect.h"
#include "gilt/ir.h"
#include "gilt/register.h"
#include "test/unit/check.h"
#include "test/unit/text.h"

static size_t errors_seen;
static char last_error[512];

static void on_diag(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  errors_seen++;
  snprintf(last_error, sizeof last_error, "%s",
           gilt_diagnostic_get_message(d));
}

/* Whether exactly one error was reported since the last call, with this
** message; resets. */
static bool one_error(const char *message)
{
  bool ok = errors_seen == 1 && strcmp(last_error, message) == 0;
  if (!ok)
    fprintf(stderr, "  %zu errors, last: %s\n", errors_seen, last_error);
  errors_seen = 0;
  last_error[0] = '\0';
  return ok;
}

/* ---- !ut.array<N of T> --------------------------------------------------- */

static GiltStatus parse_array(GiltAsmParser *p, GiltParamVec *params)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  int64_t n;
  GiltType *elem;
  if (gilt_asm_parse_punct(p, "<") || gilt_asm_parse_integer(p, &n) ||
      gilt_asm_parse_keyword(p, "of") || gilt_asm_parse_type(p, &elem) ||
      gilt_asm_parse_punct(p, ">"))
    return GILT_FAILURE;
  GiltType *i64 = gilt_integer_type_get(ctx, 64, GILT_SIGNLESS);
  gilt_param_vec_append(params, gilt_integer_attr_get(i64, n));
  gilt_param_vec_append(params, gilt_type_attr_get(elem));
  return GILT_SUCCESS;
}

static void print_array(GiltAsmPrinter *p, size_t n, GiltAttr *const *params)
{
  (void)n;
  gilt_asm_print(p, "<%" PRId64 " of ", gilt_integer_attr_get_value(params[0]));
  gilt_asm_print_type(p, gilt_type_attr_get_value(params[1]));
  gilt_asm_print(p, ">");
}

static GiltStatus verify_array(GiltLocation *loc, size_t n,
                               GiltAttr *const *params)
{
  if (n != 2 || gilt_attr_get_kind(params[0]) != GILT_ATTR_INTEGER ||
      gilt_attr_get_kind(params[1]) != GILT_ATTR_TYPE ||
      gilt_integer_attr_get_value(params[0]) < 1) {
    gilt_emit_error(loc, "!ut.array takes a positive size and a type");
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

static GiltType *array_type(GiltContext *ctx, int64_t n, GiltType *elem,
                            GiltLocation *loc)
{
  GiltAttr *params[2] = {
      gilt_integer_attr_get(gilt_integer_type_get(ctx, 64, GILT_SIGNLESS), n),
      gilt_type_attr_get(elem)};
  return gilt_dialect_type_get(ctx, "ut", "array", 2, params, loc);
}

/* ---- ut.sum -------------------------------------------------------------- */

/* What the operand list hands over: the operands, unresolved until their
** type is read. */
enum { MAX_SUM_OPERANDS = 8 };
typedef struct SumOperands {
  GiltUnresolvedOperand ops[MAX_SUM_OPERANDS];
  size_t n;
} SumOperands;

static GiltStatus collect_operand(GiltAsmParser *p,
                                  const GiltUnresolvedOperand *u, void *user)
{
  SumOperands *s = user;
  if (s->n == MAX_SUM_OPERANDS)
    return gilt_asm_emit_error(p, "takes at most %d operands",
                               MAX_SUM_OPERANDS);
  s->ops[s->n++] = *u;
  return GILT_SUCCESS;
}

/* `ut.sum %a, %b : i32`; the result type is inferred. */
static GiltStatus parse_sum(GiltAsmParser *p, GiltOpBuild *b)
{
  SumOperands s = {.n = 0};
  GiltType *t;
  if (gilt_asm_parse_operand_list(p, collect_operand, &s) ||
      gilt_asm_parse_optional_attr_dict(p, b, false) ||
      gilt_asm_parse_punct(p, ":") || gilt_asm_parse_type(p, &t))
    return GILT_FAILURE;
  for (size_t i = 0; i < s.n; i++) {
    GiltValue *v;
    if (gilt_asm_resolve_operand(p, &s.ops[i], t, &v))
      return GILT_FAILURE;
    gilt_op_build_add_operand(b, v);
  }
  CHECK(gilt_op_build_get_num_operands(b) == s.n);
  gilt_op_build_set_infer_result_types(b, true);
  return GILT_SUCCESS;
}

static void print_sum(GiltOp *op, GiltAsmPrinter *p)
{
  size_t n = gilt_op_get_num_operands(op);
  gilt_asm_print(p, " ");
  gilt_asm_print_operands(p, op, 0, n);
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  gilt_asm_print(p, " : ");
  gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_result(op, 0)));
}

static GiltStatus infer_sum(GiltOpBuild *b)
{
  if (gilt_op_build_get_num_operands(b) == 0) {
    gilt_emit_error(gilt_op_build_get_location(b),
                    "'ut.sum' op needs an operand to take its type from");
    return GILT_FAILURE;
  }
  gilt_op_build_add_result_type(
      b, gilt_value_get_type(gilt_op_build_get_operand(b, 0)));
  return GILT_SUCCESS;
}

/* ---- ut.splat ------------------------------------------------------------ */

/* `ut.splat %x {count = 4 : i64} : f32`; the result type is inferred. */
static GiltStatus parse_splat(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltUnresolvedOperand u;
  GiltType *t;
  GiltValue *v;
  if (gilt_asm_parse_operand(p, &u) ||
      gilt_asm_parse_optional_attr_dict(p, b, false) ||
      gilt_asm_parse_punct(p, ":") || gilt_asm_parse_type(p, &t) ||
      gilt_asm_resolve_operand(p, &u, t, &v))
    return GILT_FAILURE;
  gilt_op_build_add_operands(b, 1, &v);
  gilt_op_build_set_infer_result_types(b, true);
  return GILT_SUCCESS;
}

static void print_splat(GiltOp *op, GiltAsmPrinter *p)
{
  GiltValue *x = gilt_op_get_operand(op, 0);
  gilt_asm_print(p, " ");
  gilt_asm_print_operand(p, x);
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  gilt_asm_print(p, " : ");
  gilt_asm_print_value_types(p, &x, 1);
}

static GiltStatus infer_splat(GiltOpBuild *b)
{
  GiltLocation *loc = gilt_op_build_get_location(b);
  GiltAttr *count = gilt_op_build_get_attr(b, "count");
  if (gilt_op_build_get_num_operands(b) != 1 || !count ||
      gilt_attr_get_kind(count) != GILT_ATTR_INTEGER) {
    gilt_emit_error(loc, "'ut.splat' op needs one operand and an integer "
                         "'count'");
    return GILT_FAILURE;
  }
  GiltType *t = array_type(gilt_op_build_get_context(b),
                           gilt_integer_attr_get_value(count),
                           gilt_value_get_type(gilt_op_build_get_operand(b, 0)),
                           loc);
  if (!t)
    return GILT_FAILURE; /* verify_array has reported */
  gilt_op_build_add_result_type(b, t);
  return GILT_SUCCESS;
}

/* ---- ut.scope ------------------------------------------------------------ */

static GiltStatus add_result_type(GiltAsmParser *p, GiltType *t, void *user)
{
  (void)p;
  gilt_op_build_add_result_type(user, t);
  return GILT_SUCCESS;
}

/* `ut.scope -> (i32, f32) { ... }`: result types, then the region. */
static GiltStatus parse_scope(GiltAsmParser *p, GiltOpBuild *b)
{
  if (gilt_asm_parse_optional_arrow_type_list(p, add_result_type, b))
    return GILT_FAILURE;
  GiltRegion *body = gilt_op_build_add_region(b);
  CHECK(gilt_op_build_get_num_regions(b) == 1);
  CHECK(gilt_op_build_get_region(b, 0) == body);
  return gilt_asm_parse_region(p, body, NULL, 0);
}

static void print_scope(GiltOp *op, GiltAsmPrinter *p)
{
  size_t n = gilt_op_get_num_results(op);
  if (n)
    gilt_asm_print(p, n == 1 ? " -> " : " -> (");
  for (size_t i = 0; i < n; i++) {
    if (i)
      gilt_asm_print(p, ", ");
    gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_result(op, i)));
  }
  if (n > 1)
    gilt_asm_print(p, ")");
  gilt_asm_print_region(p, gilt_op_get_region(op, 0), true);
}

/* ---- the dialect --------------------------------------------------------- */

static const GiltOpDef ut_ops[] = {
    {.name = "ut.sum", .traits = GILT_TRAIT_PURE | GILT_TRAIT_SAME_TYPE,
     .operands = "inputs*", .results = "sum",
     .infer_result_types = infer_sum, .print = print_sum, .parse = parse_sum},
    {.name = "ut.splat", .traits = GILT_TRAIT_PURE,
     .operands = "input", .results = "output", .attributes = "count: integer",
     .infer_result_types = infer_splat, .print = print_splat,
     .parse = parse_splat},
    {.name = "ut.scope",
     .traits = GILT_TRAIT_NO_TERMINATOR | GILT_TRAIT_SINGLE_BLOCK,
     .operands = "", .results = "results*", .num_regions = 1,
     .print = print_scope, .parse = parse_scope},
};

static const GiltTypeDef ut_types[] = {
    {.mnemonic = "array", .parse = parse_array, .print = print_array,
     .verify = verify_array},
};

static const GiltDialectDef ut_dialect = {
    .name = "ut",
    .ops = ut_ops,
    .num_ops = sizeof ut_ops / sizeof *ut_ops,
    .types = ut_types,
    .num_types = sizeof ut_types / sizeof *ut_types,
};

/* ---- the tests ----------------------------------------------------------- */

static const char source[] =
    "func.func @f(%a: i32, %b: i32, %x: f32) -> !ut.array<4 of f32> {\n"
    "  %s = ut.sum %a, %b, %a : i32\n"
    "  %v = ut.splat %x {count = 4 : i64} : f32\n"
    "  %r:2 = ut.scope -> (i32, f32) {\n"
    "    %t = ut.sum %s {tag} : i32\n"
    "    %g = \"ut.sum\"(%t) : (i32) -> i32\n"
    "  }\n"
    "  return %v : !ut.array<4 of f32>\n"
    "}\n";

/* Generic ut.sum prints in the custom form; the names are the printer's. */
static const char printed[] =
    "module {\n"
    "  func.func @f(%arg0: i32, %arg1: i32, %arg2: f32) -> "
    "!ut.array<4 of f32> {\n"
    "    %0 = ut.sum %arg0, %arg1, %arg0 : i32\n"
    "    %1 = ut.splat %arg2 {count = 4 : i64} : f32\n"
    "    %2:2 = ut.scope -> (i32, f32) {\n"
    "      %3 = ut.sum %0 {tag} : i32\n"
    "      %4 = ut.sum %3 : i32\n"
    "    }\n"
    "    return %1 : !ut.array<4 of f32>\n"
    "  }\n"
    "}\n";

static GiltOp *parse(GiltContext *ctx, const char *text)
{
  return gilt_parse_source(ctx, text, strlen(text), "custom_asm.gilt");
}

static void print(GiltOp *op, Text *t)
{
  t->len = 0;
  t->data[0] = '\0';
  gilt_op_print(op, NULL, text_append, t);
}

static void test_round_trip(GiltContext *ctx)
{
  GiltOp *module = parse(ctx, source);
  CHECK(module);
  if (!module)
    return;
  CHECK(gilt_op_verify(module) == GILT_SUCCESS);
  static Text first, second;
  print(module, &first);
  if (strcmp(first.data, printed))
    fprintf(stderr, "  printed:\n%s", first.data);
  CHECK(strcmp(first.data, printed) == 0);

  GiltOp *again = parse(ctx, first.data);
  CHECK(again);
  if (again) {
    print(again, &second);
    CHECK(strcmp(first.data, second.data) == 0);
    gilt_op_destroy(again);
  }

  /* The inferred types are the uniqued ones. */
  GiltOp *fn = gilt_block_get_first_op(
      gilt_region_get_first_block(gilt_op_get_region(module, 0)));
  GiltOp *sum = gilt_block_get_first_op(
      gilt_region_get_first_block(gilt_op_get_region(fn, 0)));
  GiltOp *splat = gilt_op_get_next(sum);
  GiltType *i32 = gilt_integer_type_get(ctx, 32, GILT_SIGNLESS);
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  CHECK(gilt_value_get_type(gilt_op_get_result(sum, 0)) == i32);
  CHECK(gilt_value_get_type(gilt_op_get_result(splat, 0)) ==
        array_type(ctx, 4, f32, NULL));
  gilt_op_destroy(module);
  CHECK(errors_seen == 0);
}

/* gilt_op_create with infer_result_types runs the same hook. */
static void test_builder_infers(GiltContext *ctx)
{
  GiltLocation *loc = gilt_location_unknown_get(ctx);
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  GiltOp *module = parse(ctx, "func.func @g(%x: f32) {\n  return\n}\n");
  CHECK(module);
  if (!module)
    return;
  GiltOp *fn = gilt_block_get_first_op(
      gilt_region_get_first_block(gilt_op_get_region(module, 0)));
  GiltValue *x = gilt_block_get_argument(
      gilt_region_get_first_block(gilt_op_get_region(fn, 0)), 0);
  GiltNamedAttr count = {
      "count",
      gilt_integer_attr_get(gilt_integer_type_get(ctx, 64, GILT_SIGNLESS), 3)};
  GiltOpState st = gilt_op_state_get("ut.splat", loc);
  st.num_operands = 1;
  st.operands = &x;
  st.num_attrs = 1;
  st.attrs = &count;
  st.infer_result_types = true;
  GiltOp *op = gilt_op_create(ctx, &st);
  CHECK(op);
  if (op) {
    CHECK(gilt_value_get_type(gilt_op_get_result(op, 0)) ==
          array_type(ctx, 3, f32, NULL));
    gilt_op_destroy(op);
  }
  gilt_op_destroy(module);
}

static void expect_parse_error(GiltContext *ctx, const char *body,
                               const char *message)
{
  char text[512];
  snprintf(text, sizeof text,
           "func.func @h(%%a: i32, %%x: f32) {\n  %s\n  return\n}\n", body);
  GiltOp *module = parse(ctx, text);
  CHECK(!module);
  if (module)
    gilt_op_destroy(module);
  if (!one_error(message)) {
    fprintf(stderr, "  for: %s\n", body);
    CHECK(!"one error with the expected message");
  }
}

static void test_errors(GiltContext *ctx)
{
  /* From the infer hooks, after the parse hook succeeded. */
  expect_parse_error(ctx, "%s = ut.sum : i32",
                     "'ut.sum' op needs an operand to take its type from");
  expect_parse_error(ctx, "%v = ut.splat %x : f32",
                     "'ut.splat' op needs one operand and an integer 'count'");
  expect_parse_error(ctx, "%v = ut.splat %x {count = 0 : i64} : f32",
                     "!ut.array takes a positive size and a type");
  /* From the operand list's callback, prefixed as hooks' errors are. */
  expect_parse_error(ctx,
                     "%s = ut.sum %a, %a, %a, %a, %a, %a, %a, %a, %a : i32",
                     "custom op 'ut.sum' takes at most 8 operands");
  /* From the calls of gilt/asm.h. */
  expect_parse_error(ctx, "%s = ut.sum %a, %x : i32",
                     "use of value '%x' expects different type than prior "
                     "uses: 'i32' vs 'f32'");
  expect_parse_error(ctx, "%s = ut.splat %x {count = 2 : i64} f32",
                     "expected ':'");
  /* From the type's hooks. */
  expect_parse_error(ctx, "%s = \"ut.sum\"(%a) : (i32) -> !ut.array<2 by i32>",
                     "expected 'of'");
  expect_parse_error(ctx, "%s = \"ut.sum\"(%a) : (i32) -> !ut.array<0 of i32>",
                     "!ut.array takes a positive size and a type");
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_context_set_diagnostic_handler(ctx, on_diag, NULL);
  gilt_register_func_dialect(ctx);
  CHECK(gilt_context_register_dialect(ctx, &ut_dialect) == GILT_SUCCESS);
  test_round_trip(ctx);
  test_builder_infers(ctx);
  test_errors(ctx);
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
