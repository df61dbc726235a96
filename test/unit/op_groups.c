/*
** op_groups.c - unit test of an op's operand and result groups through the
** public API: gilt_op_get_operand_group and gilt_op_get_result_group on
** ops the builder makes, with groups sized by `operandSegmentSizes` /
** `resultSegmentSizes` and groups told apart by the count alone, and the
** answer for a group that cannot be found (a bad segment attribute, a
** group the op does not declare, an unregistered op).
*/
#include <stdio.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/ir.h"
#include "test/lib/test_lib.h"

static size_t errors_seen;
static char last_error[256];

static void on_diagnostic(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  errors_seen++;
  snprintf(last_error, sizeof last_error, "%s",
           gilt_diagnostic_get_message(d));
}

static GiltAttr *segments(GiltContext *ctx, size_t n, const int32_t *sizes)
{
  return gilt_dense_array_attr_get(gilt_integer_type_get(ctx, 32,
                                                         GILT_SIGNLESS),
                                   n, sizes);
}

/* Whether group g of op's operands (or results) starts at `start` and
** has `count` values. */
static int is_group(GiltOp *op, bool results, size_t g, size_t start,
                    size_t count)
{
  size_t n = 99;
  size_t at = results ? gilt_op_get_result_group(op, g, &n)
                      : gilt_op_get_operand_group(op, g, &n);
  return at == start && n == count;
}

/* "lbs*: index, ubs*: index, step?: ..., init: float", sized 2, 2, 0, 1. */
static void test_attr_sized_operands(GiltContext *ctx, GiltBlock *block)
{
  GiltLocation *loc = gilt_location_unknown_get(ctx);
  GiltValue *operands[5];
  for (size_t i = 0; i < 5; i++)
    operands[i] = gilt_block_get_argument(block, i);
  GiltNamedAttr attr = {"operandSegmentSizes",
                        segments(ctx, 4, (int32_t[]){2, 2, 0, 1})};
  GiltOpState st = gilt_op_state_get("test.attr_sized_operands", loc);
  st.num_operands = 5;
  st.operands = operands;
  st.num_attrs = 1;
  st.attrs = &attr;
  GiltOp *op = gilt_op_create(ctx, &st);
  CHECK(op);
  gilt_block_append_op(block, op);
  CHECK(gilt_op_verify(op) == GILT_SUCCESS);
  CHECK(is_group(op, false, 0, 0, 2));
  CHECK(is_group(op, false, 1, 2, 2));
  CHECK(is_group(op, false, 2, 4, 0)); /* the absent optional step */
  CHECK(is_group(op, false, 3, 4, 1));
  CHECK(is_group(op, false, 4, 5, 0)); /* no such group */
  CHECK(is_group(op, true, 0, 0, 0));  /* no results declared */

  /* Sizes that do not add up: the verifier says so, the accessor finds
  ** no group past the values. */
  gilt_op_set_attr(op, "operandSegmentSizes",
                   segments(ctx, 4, (int32_t[]){2, 2, 1, 1}));
  CHECK(is_group(op, false, 2, 4, 1));
  CHECK(is_group(op, false, 3, 5, 0));
  errors_seen = 0;
  CHECK(gilt_op_verify(op) == GILT_FAILURE);
  CHECK(errors_seen == 1);
  CHECK(strstr(last_error, "operand count (5) does not match with the total "
                           "size (6) specified in attribute "
                           "'operandSegmentSizes'") != NULL);
  gilt_op_remove_attr(op, "operandSegmentSizes");
  CHECK(is_group(op, false, 0, 5, 0));
  gilt_op_destroy(op);
}

/* "ints*: integer, flag?: signless-integer, value: any", sized 0, 1, 1. */
static void test_attr_sized_results(GiltContext *ctx, GiltBlock *block)
{
  GiltLocation *loc = gilt_location_unknown_get(ctx);
  GiltType *types[2] = {gilt_integer_type_get(ctx, 1, GILT_SIGNLESS),
                        gilt_float_type_get(ctx, GILT_F32)};
  GiltNamedAttr attr = {"resultSegmentSizes",
                        segments(ctx, 3, (int32_t[]){0, 1, 1})};
  GiltOpState st = gilt_op_state_get("test.attr_sized_results", loc);
  st.num_results = 2;
  st.result_types = types;
  st.num_attrs = 1;
  st.attrs = &attr;
  GiltOp *op = gilt_op_create(ctx, &st);
  CHECK(op);
  gilt_block_append_op(block, op);
  CHECK(gilt_op_verify(op) == GILT_SUCCESS);
  CHECK(is_group(op, true, 0, 0, 0));
  CHECK(is_group(op, true, 1, 0, 1));
  CHECK(is_group(op, true, 2, 1, 1));
  gilt_op_destroy(op);
}

/* "first: index, rest*: float": the count tells the groups apart. */
static void test_counted(GiltContext *ctx, GiltBlock *block)
{
  GiltLocation *loc = gilt_location_unknown_get(ctx);
  GiltValue *operands[3] = {gilt_block_get_argument(block, 0),
                            gilt_block_get_argument(block, 4),
                            gilt_block_get_argument(block, 4)};
  GiltOpState st = gilt_op_state_get("test.variadic_types", loc);
  st.num_operands = 3;
  st.operands = operands;
  GiltOp *op = gilt_op_create(ctx, &st);
  CHECK(op);
  gilt_block_append_op(block, op);
  CHECK(gilt_op_verify(op) == GILT_SUCCESS);
  CHECK(is_group(op, false, 0, 0, 1));
  CHECK(is_group(op, false, 1, 1, 2));
  CHECK(is_group(op, true, 0, 0, 0));
  gilt_op_destroy(op);

  /* Unregistered ops declare no groups. */
  gilt_context_set_allow_unregistered_dialects(ctx, true);
  st = gilt_op_state_get("unreg.op", loc);
  st.num_operands = 3;
  st.operands = operands;
  op = gilt_op_create(ctx, &st);
  CHECK(op);
  CHECK(is_group(op, false, 0, 3, 0));
  gilt_op_destroy(op);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_test_register_all(ctx);
  gilt_context_set_diagnostic_handler(ctx, on_diagnostic, NULL);
  GiltType *index = gilt_index_type_get(ctx);
  GiltType *arg_types[5] = {index, index, index, index,
                            gilt_float_type_get(ctx, GILT_F32)};
  GiltBlock *block = gilt_block_create(ctx, 5, arg_types, NULL);
  test_attr_sized_operands(ctx, block);
  test_attr_sized_results(ctx, block);
  test_counted(ctx, block);
  CHECK(errors_seen == 1);
  gilt_block_destroy(block);
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
