/*
** conversion_patterns.c - generic conversion patterns that only change
** types (see conversion.h): a function-like op's signature, and an op
** rebuilt with converted operand and result types.
**
** Every lowering that changes types needs these for the ops it does not
** otherwise touch (func.func, func.return, func.call), as MLIR's
** populateFunctionOpInterfaceTypeConversionPattern and its
** structural type conversions. Not here: anything that changes what an op
** computes.
*/
#include "ir/rewrite/conversion.h"

static bool regions_convertible(const GiltTypeConverter *tc, GiltOp *op,
                                bool *changes)
{
  for (size_t r = 0; r < op->num_regions; r++) {
    for (GiltBlock *b = gilt_op_region_array(op)[r].first; b; b = b->next) {
      for (size_t i = 0; i < b->num_args; i++) {
        GiltType *t = gilt_type_converter_convert(tc, b->args[i]->type);
        if (!t)
          return false;
        *changes = *changes || t != b->args[i]->type;
      }
    }
  }
  return true;
}

static GiltStatus convert_signature(const GiltPattern *pat, GiltOp *op,
                                    GiltRewriter *rw)
{
  (void)pat;
  const GiltTypeConverter *tc = gilt_conversion_get_type_converter(rw);
  GiltAttr *attr = gilt_op_get_attr(op, "function_type");
  if (!tc || !attr || attr->kind != GILT_ATTR_TYPE ||
      attr->type->kind != GILT_TYPE_FUNCTION)
    return GILT_FAILURE;
  GiltType *type = gilt_type_converter_convert_function_type(tc, attr->type);
  bool changes = type != attr->type;
  if (!type || !regions_convertible(tc, op, &changes) || !changes)
    return GILT_FAILURE;
  for (size_t r = 0; r < op->num_regions; r++)
    gilt_conversion_convert_region_types(rw, &gilt_op_region_array(op)[r]);
  gilt_op_set_attr(op, "function_type", gilt_type_attr_get(type));
  gilt_rewriter_notify_op_modified(rw, op);
  return GILT_SUCCESS;
}

/* The parts of a rebuilt op, converted; false when a type does not
** convert or nothing would change. */
static bool converted_parts(const GiltTypeConverter *tc, GiltOp *op,
                            GiltValue *const *operands, GiltType **types)
{
  bool changes = false;
  for (size_t i = 0; i < op->num_operands; i++) {
    if (!gilt_type_converter_is_legal(tc, operands[i]->type))
      return false;
    changes = changes || operands[i] != op->operands[i].value;
  }
  for (size_t i = 0; i < op->num_results; i++) {
    if (!(types[i] = gilt_type_converter_convert(
              tc, gilt_op_result_array(op)[i].type)))
      return false;
    changes = changes || types[i] != gilt_op_result_array(op)[i].type;
  }
  return changes;
}

static GiltStatus convert_types(const GiltPattern *pat, GiltOp *op,
                                GiltRewriter *rw)
{
  (void)pat;
  const GiltTypeConverter *tc = gilt_conversion_get_type_converter(rw);
  if (!tc)
    return GILT_FAILURE;
  GiltContext *ctx = gilt_rewriter_get_context(rw);
  GiltValue *const *operands = gilt_conversion_get_operands(rw);
  GiltType **types = gilt_calloc(ctx, op->num_results + 1, sizeof *types);
  GiltValue **results =
      gilt_calloc(ctx, op->num_results + 1, sizeof *results);
  GiltOp *copy = NULL;
  if (converted_parts(tc, op, operands, types))
    copy = gilt_rewriter_create_op_like(rw, op, NULL, operands, types);
  if (copy) {
    for (size_t i = 0; i < op->num_results; i++)
      results[i] = &gilt_op_result_array(copy)[i];
    gilt_rewriter_replace_op(rw, op, results);
  }
  gilt_free(ctx, types);
  gilt_free(ctx, results);
  return copy ? GILT_SUCCESS : GILT_FAILURE;
}

void gilt_conversion_add_signature_pattern(GiltPatternSet *set,
                                           const char *op_name)
{
  GiltPattern p = {"signature-conversion", op_name, 1, convert_signature,
                   NULL};
  gilt_pattern_set_add(set, p);
}

void gilt_conversion_add_type_pattern(GiltPatternSet *set,
                                      const char *op_name)
{
  GiltPattern p = {"type-conversion", op_name, 1, convert_types, NULL};
  gilt_pattern_set_add(set, p);
}
