/*
** data_types.c - ONNX's TensorProto.DataType values and the gilt element
** types they map to.
**
** One table, indexed by the ONNX value, says for each type its ONNX name,
** how gilt stores one element and which gilt type it becomes; the mapping
** and its reasons are stated in model_reader.h. Types gilt cannot compute
** with (string, complex, the 4-bit float and the E8M0 scale format) have a
** name and no gilt type, so the diagnostic can still say what the model
** wanted. The four float 8 formats become the f8 types of the same names;
** int4 and uint4 become i4 and ui4, stored a byte per element as
** every integer narrower than a byte is. This file does not decode payloads
** (tensor_data.c does, and unpacks the two 4-bit values ONNX puts in a
** byte).
*/
#include "frontends/onnx/model_reader.h"

#include <string.h>

typedef enum ElemKind { NONE, SINT, UINT, BOOL, FLOAT } ElemKind;

typedef struct DataTypeInfo {
  const char *name;
  ElemKind kind;
  unsigned bits;      /* of the gilt type */
  GiltFloatKind fkind; /* FLOAT only */
} DataTypeInfo;

/* ENTRY(NAME, kind, bits of the gilt type, float kind) */
#define ENTRY(name, kind, bits, fkind)                                       \
  [GILT__ONNX__TENSOR_PROTO__DATA_TYPE__##name] = {#name, kind, bits, fkind}

static const DataTypeInfo data_types[] = {
    ENTRY(UNDEFINED, NONE, 0, 0),
    ENTRY(FLOAT, FLOAT, 32, GILT_F32),
    ENTRY(UINT8, UINT, 8, 0),
    ENTRY(INT8, SINT, 8, 0),
    ENTRY(UINT16, UINT, 16, 0),
    ENTRY(INT16, SINT, 16, 0),
    ENTRY(INT32, SINT, 32, 0),
    ENTRY(INT64, SINT, 64, 0),
    ENTRY(STRING, NONE, 0, 0),
    ENTRY(BOOL, BOOL, 1, 0),
    ENTRY(FLOAT16, FLOAT, 16, GILT_F16),
    ENTRY(DOUBLE, FLOAT, 64, GILT_F64),
    ENTRY(UINT32, UINT, 32, 0),
    ENTRY(UINT64, UINT, 64, 0),
    ENTRY(COMPLEX64, NONE, 0, 0),
    ENTRY(COMPLEX128, NONE, 0, 0),
    ENTRY(BFLOAT16, FLOAT, 16, GILT_BF16),
    ENTRY(FLOAT8E4M3FN, FLOAT, 8, GILT_F8E4M3FN),
    ENTRY(FLOAT8E4M3FNUZ, FLOAT, 8, GILT_F8E4M3FNUZ),
    ENTRY(FLOAT8E5M2, FLOAT, 8, GILT_F8E5M2),
    ENTRY(FLOAT8E5M2FNUZ, FLOAT, 8, GILT_F8E5M2FNUZ),
    ENTRY(UINT4, UINT, 4, 0),
    ENTRY(INT4, SINT, 4, 0),
    ENTRY(FLOAT4E2M1, NONE, 0, 0),
    ENTRY(FLOAT8E8M0, NONE, 0, 0),
};

#undef ENTRY

#define NUM_DATA_TYPES (sizeof data_types / sizeof data_types[0])

static const DataTypeInfo *lookup(int32_t data_type)
{
  if (data_type < 0 || (size_t)data_type >= NUM_DATA_TYPES)
    return NULL;
  return &data_types[data_type];
}

GiltType *gilt_onnx_element_type_get(GiltContext *ctx, int32_t data_type)
{
  const DataTypeInfo *info = lookup(data_type);
  if (!info)
    return NULL;
  switch (info->kind) {
  case NONE:
    return NULL;
  case SINT:
  case BOOL:
    return gilt_integer_type_get(ctx, info->bits, GILT_SIGNLESS);
  case UINT:
    return gilt_integer_type_get(ctx, info->bits, GILT_UNSIGNED);
  case FLOAT:
    return gilt_float_type_get(ctx, info->fkind);
  }
  return NULL;
}

GiltType *gilt_onnx_element_type_get_or_report(GiltContext *ctx,
                                               int32_t data_type,
                                               const char *file,
                                               const char *what,
                                               GiltLocation *loc)
{
  GiltType *t = gilt_onnx_element_type_get(ctx, data_type);
  if (t)
    return t;
  if (!loc)
    loc = gilt_location_unknown_get(ctx);
  if (!lookup(data_type))
    gilt_emit_error(loc, "'%s': %s has unknown element type %d", file, what,
                    (int)data_type);
  else if (data_type == GILT__ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED)
    gilt_emit_error(loc, "'%s': %s has no element type", file, what);
  else
    gilt_emit_error(loc,
                    "'%s': %s has element type %s, which gilt does not "
                    "support",
                    file, what, data_types[data_type].name);
  return NULL;
}

/* Inverts gilt_onnx_element_type_get through the same table, comparing
** uniqued types, so the two directions cannot disagree. */
int32_t gilt_onnx_data_type_of(GiltType *elem)
{
  GiltContext *ctx = gilt_type_get_context(elem);
  for (int32_t dt = 0; (size_t)dt < NUM_DATA_TYPES; dt++)
    if (data_types[dt].kind != NONE &&
        gilt_onnx_element_type_get(ctx, dt) == elem)
      return dt;
  return GILT__ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED;
}

size_t gilt_onnx_element_size(int32_t data_type)
{
  const DataTypeInfo *info = lookup(data_type);
  if (!info || info->kind == NONE)
    return 0;
  return info->bits <= 8 ? 1 : info->bits / 8;
}

const char *gilt_onnx_data_type_name(int32_t data_type)
{
  const DataTypeInfo *info = lookup(data_type);
  return info ? info->name : "unknown";
}

bool gilt_onnx_is_default_domain(const char *domain)
{
  return !domain || !domain[0] || strcmp(domain, "ai.onnx") == 0;
}
