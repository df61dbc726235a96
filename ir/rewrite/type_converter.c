/*
** type_converter.c - the type converter of the conversion driver (see
** conversion.h): type mapping callbacks and the materialization hooks.
**
** Conversions are 1:1 and recomputed on every query; lowerings convert a
** few distinct types, and the callbacks are cheap. Not here: building the
** casts (the driver calls the hooks where it needs them).
*/
#include "ir/rewrite/conversion.h"

void gilt_type_converter_init(GiltTypeConverter *tc, GiltContext *ctx)
{
  tc->ctx = ctx;
  tc->conversions.data = NULL;
  tc->conversions.len = tc->conversions.cap = 0;
  tc->source_materialization = tc->target_materialization = NULL;
  tc->source_user = tc->target_user = NULL;
}

void gilt_type_converter_free(GiltTypeConverter *tc)
{
  gilt_vec_free(tc->ctx, &tc->conversions);
}

void gilt_type_converter_add_conversion(GiltTypeConverter *tc,
                                        GiltTypeConversionFn fn, void *user)
{
  GiltTypeConversion c = {fn, user};
  gilt_vec_push(tc->ctx, &tc->conversions, c);
}

void gilt_type_converter_set_source_materialization(GiltTypeConverter *tc,
                                                    GiltMaterializationFn fn,
                                                    void *user)
{
  tc->source_materialization = fn;
  tc->source_user = user;
}

void gilt_type_converter_set_target_materialization(GiltTypeConverter *tc,
                                                    GiltMaterializationFn fn,
                                                    void *user)
{
  tc->target_materialization = fn;
  tc->target_user = user;
}

GiltType *gilt_type_converter_convert(const GiltTypeConverter *tc,
                                      GiltType *type)
{
  for (size_t i = tc->conversions.len; i-- > 0;) {
    const GiltTypeConversion *c = &tc->conversions.data[i];
    GiltType *converted = c->fn(type, c->user);
    if (converted)
      return converted;
  }
  return NULL;
}

bool gilt_type_converter_is_legal(const GiltTypeConverter *tc,
                                  GiltType *type)
{
  return gilt_type_converter_convert(tc, type) == type;
}

bool gilt_type_converter_is_op_legal(const GiltTypeConverter *tc, GiltOp *op)
{
  for (size_t i = 0; i < op->num_operands; i++)
    if (!gilt_type_converter_is_legal(tc, op->operands[i].value->type))
      return false;
  for (size_t i = 0; i < op->num_results; i++)
    if (!gilt_type_converter_is_legal(tc, gilt_op_result_array(op)[i].type))
      return false;
  return true;
}

/* Converts n types into out[]; false when one does not convert. */
static bool convert_all(const GiltTypeConverter *tc, size_t n,
                        GiltType *const *types, GiltType **out)
{
  for (size_t i = 0; i < n; i++)
    if (!(out[i] = gilt_type_converter_convert(tc, types[i])))
      return false;
  return true;
}

GiltType *gilt_type_converter_convert_function_type(
    const GiltTypeConverter *tc, GiltType *fn_type)
{
  GILT_ASSERT(fn_type->kind == GILT_TYPE_FUNCTION);
  size_t ni = fn_type->func.num_inputs, nr = fn_type->func.num_results;
  GiltType **types = gilt_calloc(tc->ctx, ni + nr + 1, sizeof *types);
  GiltType *result = NULL;
  if (convert_all(tc, ni + nr, fn_type->func.types, types))
    result = gilt_function_type_get(tc->ctx, ni, types, nr, types + ni);
  gilt_free(tc->ctx, types);
  return result;
}
