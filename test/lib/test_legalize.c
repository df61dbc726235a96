/*
** test_legalize.c - `test-legalize`: a conversion of the test dialect, to
** test the dialect conversion driver (ir/rewrite/conversion.h) end to end.
**
** test.illegal ops become test.legal ones, and every i64 becomes i32: in
** function signatures, block arguments, results and operands, with
** test.cast as the materialization between the two. The type converter
** knows no conversion for i128, so an op that involves one stays illegal
** and is reported. With `full`, ops the target does not know (test.cast,
** test.side_effect...) must be converted too, which nothing does: that
** tests applyFullConversion's reporting. No use outside tests.
*/
#include "test/lib/test_defs.h"

#include "ir/rewrite/conversion.h"

static GiltType *keep_type(GiltType *type, void *user)
{
  (void)user;
  return gilt_type_is_integer(type, 128) ? NULL : type;
}

static GiltType *narrow_i64(GiltType *type, void *user)
{
  (void)user;
  if (type->kind != GILT_TYPE_INTEGER || type->integer.width != 64 ||
      type->integer.sign != GILT_SIGNLESS)
    return NULL;
  return gilt_integer_type_get(type->ctx, 32, GILT_SIGNLESS);
}

static GiltValue *build_cast(GiltBuilder *b, GiltType *type, GiltValue *input,
                             GiltLocation *loc, void *user)
{
  (void)user;
  GiltOpState st = gilt_op_state_get("test.cast", loc);
  st.num_operands = 1;
  st.operands = &input;
  st.num_results = 1;
  st.result_types = &type;
  GiltOp *cast = gilt_builder_create_op(b, &st);
  return cast ? gilt_op_get_result(cast, 0) : NULL;
}

static bool types_legal(GiltOp *op, void *user)
{
  return gilt_type_converter_is_op_legal(user, op);
}

static bool signature_legal(GiltOp *op, void *user)
{
  GiltType *type = gilt_func_get_type(op);
  if (gilt_type_converter_convert_function_type(user, type) != type)
    return false;
  GiltBlock *entry = gilt_func_get_entry_block(op);
  for (size_t i = 0; entry && i < gilt_block_get_num_arguments(entry); i++)
    if (!gilt_type_converter_is_legal(
            user, gilt_value_get_type(gilt_block_get_argument(entry, i))))
      return false;
  return true;
}

/* test.illegal -> test.legal, with converted operands and result types. */
static GiltStatus legalize(const GiltPattern *pat, GiltOp *op,
                           GiltRewriter *rw)
{
  (void)pat;
  const GiltTypeConverter *tc = gilt_conversion_get_type_converter(rw);
  GiltContext *ctx = gilt_rewriter_get_context(rw);
  size_t n = gilt_op_get_num_results(op);
  GiltType **types = gilt_calloc(ctx, n + 1, sizeof *types);
  GiltValue **results = gilt_calloc(ctx, n + 1, sizeof *results);
  GiltOp *legal = NULL;
  size_t i = 0;
  while (i < n &&
         (types[i] = gilt_type_converter_convert(
              tc, gilt_value_get_type(gilt_op_get_result(op, i)))))
    i++;
  if (i == n)
    legal = gilt_rewriter_create_op_like(
        rw, op, "test.legal", gilt_conversion_get_operands(rw), types);
  for (i = 0; legal && i < n; i++)
    results[i] = gilt_op_get_result(legal, i);
  if (legal)
    gilt_rewriter_replace_op(rw, op, results);
  gilt_free(ctx, types);
  gilt_free(ctx, results);
  return legal ? GILT_SUCCESS : GILT_FAILURE;
}

static GiltStatus run(GiltPass *pass, GiltOp *op)
{
  GiltContext *ctx = gilt_pass_get_context(pass);
  GiltTypeConverter tc;
  gilt_type_converter_init(&tc, ctx);
  gilt_type_converter_add_conversion(&tc, keep_type, NULL);
  gilt_type_converter_add_conversion(&tc, narrow_i64, NULL);
  gilt_type_converter_set_source_materialization(&tc, build_cast, NULL);
  gilt_type_converter_set_target_materialization(&tc, build_cast, NULL);

  GiltConversionTarget target;
  gilt_conversion_target_init(&target, ctx);
  gilt_conversion_target_add_illegal_op(&target, "test.illegal");
  gilt_conversion_target_add_legal_op(&target, "test.legal");
  gilt_conversion_target_add_legal_op(&target, "builtin.module");
  gilt_conversion_target_add_dynamic_op(&target, "func.func",
                                        signature_legal, &tc);
  gilt_conversion_target_add_dynamic_op(&target, "func.return", types_legal,
                                        &tc);
  gilt_conversion_target_add_dynamic_op(&target, "func.call", types_legal,
                                        &tc);

  GiltPatternSet patterns;
  gilt_pattern_set_init(&patterns, ctx);
  GiltPattern p = {"test-legalize", "test.illegal", 1, legalize, NULL};
  gilt_pattern_set_add(&patterns, p);
  gilt_conversion_add_signature_pattern(&patterns, "func.func");
  gilt_conversion_add_type_pattern(&patterns, "func.return");
  gilt_conversion_add_type_pattern(&patterns, "func.call");

  GiltStatus status =
      gilt_pass_get_option_bool(pass, "full")
          ? gilt_apply_full_conversion(op, &target, &patterns, &tc)
          : gilt_apply_partial_conversion(op, &target, &patterns, &tc);
  gilt_pattern_set_free(&patterns);
  gilt_conversion_target_free(&target);
  gilt_type_converter_free(&tc);
  return status;
}

static const GiltPassOptionDef options[] = {
    {"full", GILT_OPTION_BOOL, "false",
     "Full conversion: every op must end up legal"},
    {0}};

const GiltPassDef gilt_test_legalize_pass = {
    .name = "test-legalize",
    .description = "Test pass: convert test.illegal to test.legal and i64 "
                   "to i32 with the conversion driver",
    .anchor = NULL,
    .options = options,
    .run = run,
};
