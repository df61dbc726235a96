/*
** test_dialect.c - the test dialect (see test_lib.h): its ops table and
** their hooks.
**
** test.constant is the dialect's constant op (CONSTANT_LIKE, `value`);
** materialize_constant builds one when a fold produces an attribute.
** test.add and test.mul fold integer constants and the identities x + 0,
** x * 1 and x * 0; test.cast folds a cast to its own type and a cast of a
** cast back to the original type (the pairs test-legalize can leave).
** Patterns: add(x, x) -> mul(x, 2), and test.flip -> test.flop ->
** test.flip, which never converges, for the greedy driver's limit.
** test.op_with_region, test.yield and test.br give CSE and DCE regions and
** blocks to work on; test.side_effect has effects; test.illegal and
** test.legal are what test-legalize converts. test.attr_sized_operands
** and test.attr_sized_results have groups sized by a segment attribute
** (lower and upper bounds as loop.parallel will have, and a hook that
** reads them by group); test.scalar_types, test.shaped_types,
** test.variadic_types and test.same_element_type exercise the type
** constraints of op tables. test.alloc, test.load, test.store and
** test.free state their memory effects declaratively (allocate the
** result, read operand 0, write operand 1, free operand 0), and test.for
** is a loop-like op for loop-invariant-code-motion. test.func, test.return
** and test.call are a function, its return and a call that are not func's:
** test.func takes every hook from the function-like interface (the shared
** signature form and checks), test.call is call-like, so the inliner and
** the call checks are seen to work by interface, not by op name. Only
** test.func has a custom form: tests spell the other ops in the generic
** form. The dialect's types and attributes are in test_types.c.
*/
#include "test/lib/test_defs.h"

#include "gilt/interfaces.h"
#include "ir/asm/function_asm.h"
#include "ir/rewrite/rewrite.h"

/* ---- folds ---------------------------------------------------------------- */

static bool int_value(GiltAttr *a, int64_t *v)
{
  if (!a || a->kind != GILT_ATTR_INTEGER)
    return false;
  *v = a->i;
  return true;
}

static bool is_integer_like(GiltType *t)
{
  return t->kind == GILT_TYPE_INTEGER || t->kind == GILT_TYPE_INDEX;
}

/* An integer attribute of op's result type holding v wrapped to the
** type's width (two's complement, stored sign-extended); NULL when the
** result is not an integer. */
static GiltAttr *int_result(GiltOp *op, uint64_t v)
{
  GiltType *t = gilt_op_result_array(op)[0].type;
  if (!is_integer_like(t))
    return NULL;
  unsigned width = t->kind == GILT_TYPE_INTEGER ? t->integer.width : 64;
  return gilt_integer_attr_get(t, gilt_int_extend(v, width, true));
}

static GiltStatus fold_to_attr(GiltOp *op, uint64_t v, GiltFoldResult *out)
{
  out[0].attr = int_result(op, v);
  return out[0].attr ? GILT_SUCCESS : GILT_FAILURE;
}

static GiltStatus fold_to_operand(GiltOp *op, size_t i, GiltFoldResult *out)
{
  out[0].value = op->operands[i].value;
  return GILT_SUCCESS;
}

static GiltStatus fold_add(GiltOp *op, GiltAttr *const *consts,
                           GiltFoldResult *out)
{
  int64_t a, b;
  bool ca = int_value(consts[0], &a), cb = int_value(consts[1], &b);
  if (ca && cb)
    return fold_to_attr(op, (uint64_t)a + (uint64_t)b, out);
  if (cb && b == 0)
    return fold_to_operand(op, 0, out);
  if (ca && a == 0)
    return fold_to_operand(op, 1, out);
  return GILT_FAILURE;
}

static GiltStatus fold_mul(GiltOp *op, GiltAttr *const *consts,
                           GiltFoldResult *out)
{
  int64_t a, b;
  bool ca = int_value(consts[0], &a), cb = int_value(consts[1], &b);
  if (ca && cb)
    return fold_to_attr(op, (uint64_t)a * (uint64_t)b, out);
  if ((ca && a == 0) || (cb && b == 0))
    return fold_to_attr(op, 0, out);
  if (cb && b == 1)
    return fold_to_operand(op, 0, out);
  if (ca && a == 1)
    return fold_to_operand(op, 1, out);
  return GILT_FAILURE;
}

static GiltStatus fold_cast(GiltOp *op, GiltAttr *const *consts,
                            GiltFoldResult *out)
{
  (void)consts;
  GiltValue *in = op->operands[0].value;
  if (in->type == gilt_op_result_array(op)[0].type)
    return fold_to_operand(op, 0, out);
  GiltOp *def = gilt_value_get_defining_op(in);
  if (def && def->info == op->info &&
      def->operands[0].value->type == gilt_op_result_array(op)[0].type) {
    out[0].value = def->operands[0].value;
    return GILT_SUCCESS;
  }
  return GILT_FAILURE;
}

/* ---- patterns --------------------------------------------------------------- */

static GiltOp *materialize_constant(GiltBuilder *b, GiltAttr *value,
                                    GiltType *type, GiltLocation *loc)
{
  GiltNamedAttr attr = {"value", value};
  GiltOpState st = gilt_op_state_get("test.constant", loc);
  st.num_results = 1;
  st.result_types = &type;
  st.num_attrs = 1;
  st.attrs = &attr;
  return gilt_builder_create_op(b, &st);
}

/* add(x, x) -> mul(x, 2) */
static GiltStatus add_to_mul(const GiltPattern *pat, GiltOp *op,
                             GiltRewriter *rw)
{
  (void)pat;
  GiltValue *x = op->operands[0].value;
  GiltType *t = gilt_op_result_array(op)[0].type;
  if (x != op->operands[1].value || !is_integer_like(t))
    return GILT_FAILURE;
  GiltOp *two = materialize_constant(gilt_rewriter_get_builder(rw),
                                     gilt_integer_attr_get(t, 2), t, op->loc);
  gilt_rewriter_notify_op_inserted(rw, two);
  GiltValue *operands[2] = {x, &gilt_op_result_array(two)[0]};
  GiltOp *mul = gilt_rewriter_create_op_like(rw, op, "test.mul", operands,
                                             NULL);
  gilt_rewriter_replace_op(rw, op,
                           (GiltValue *[]){&gilt_op_result_array(mul)[0]});
  return GILT_SUCCESS;
}

/* Replaces op by the same op named pat->data. */
static GiltStatus rename_op(const GiltPattern *pat, GiltOp *op,
                            GiltRewriter *rw)
{
  GiltOp *copy = gilt_rewriter_create_op_like(rw, op, pat->data, NULL, NULL);
  if (!copy)
    return GILT_FAILURE;
  GiltContext *ctx = gilt_rewriter_get_context(rw);
  GiltValue **results = gilt_calloc(ctx, op->num_results + 1,
                                    sizeof *results);
  for (size_t i = 0; i < op->num_results; i++)
    results[i] = &gilt_op_result_array(copy)[i];
  gilt_rewriter_replace_op(rw, op, results);
  gilt_free(ctx, results);
  return GILT_SUCCESS;
}

static void add_patterns(GiltPatternSet *set)
{
  GiltPattern p = {"test-add-to-mul", "test.add", 1, add_to_mul, NULL};
  gilt_pattern_set_add(set, p);
}

static void flip_patterns(GiltPatternSet *set)
{
  GiltPattern p = {"test-flip-to-flop", "test.flip", 1, rename_op,
                   "test.flop"};
  gilt_pattern_set_add(set, p);
}

static void flop_patterns(GiltPatternSet *set)
{
  GiltPattern p = {"test-flop-to-flip", "test.flop", 1, rename_op,
                   "test.flip"};
  gilt_pattern_set_add(set, p);
}

/* ---- verifiers --------------------------------------------------------------- */

/* What the table cannot say: the bound groups pair up. */
static GiltStatus verify_bounds(GiltOp *op)
{
  size_t lbs, ubs;
  gilt_op_get_operand_group(op, 0, &lbs);
  gilt_op_get_operand_group(op, 1, &ubs);
  if (lbs != ubs)
    return gilt_op_emit_error(op,
                              "expects as many upper bounds (%zu) as "
                              "lower bounds (%zu)",
                              ubs, lbs);
  return GILT_SUCCESS;
}

/* ---- memory and loops -------------------------------------------------------- */

/* test.for runs its body, `^bb0(%iv, %iter_args...)` ended by test.yield,
** from lower to upper by step, as scf.for. Like scf.for, it has no effects
** of its own, only its body's (MLIR's RecursiveMemoryEffects), and is not
** PURE: a loop is not something to speculate. Its body is its loop
** region, with the interface's defaults. */
static const GiltMemoryEffectsMethods for_effects = {.recursive = true};
static const GiltLoopLikeMethods for_loop = {0};

/* ---- functions and calls ------------------------------------------------------ */

/* Any function-like parent will do, so the shared return check runs
** against whatever function the test puts it in. */
static GiltStatus verify_return(GiltOp *op)
{
  GiltOp *func = gilt_op_get_parent_op(op);
  if (!func || !gilt_op_is_function_like(func))
    return gilt_op_emit_error(op, "expects a function-like parent op");
  return gilt_function_like_verify_return(func, op);
}

/* ---- the dialect -------------------------------------------------------------- */

static const GiltOpDef test_ops[] = {
#define GILT_OP GILT_OP_AS_ROW
#include "test/lib/test_dialect.def"
#undef GILT_OP
};

const GiltDialectDef gilt_test_dialect = {
    .name = "test",
    GILT_DIALECT_OPS(test_ops),
    .materialize_constant = materialize_constant,
    .types = gilt_test_types,
    .num_types = GILT_TEST_NUM_TYPES,
    .attrs = gilt_test_attrs,
    .num_attrs = GILT_TEST_NUM_ATTRS,
};
