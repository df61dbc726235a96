/*
** translate_constants.c - attributes to LLVM constants: the value of an
** llvm.constant, and the initializer of an llvm.global (a weight).
**
** Dense data is little-endian, as gilt stores it and as the hosts gilt
** compiles for are. A weight of up to BYTES_FROM elements becomes a typed
** array (`[4 x float] [float 1.0, ...]`), readable in printed IR; a
** larger one becomes an array of its bytes (`[N x i8] c"..."`), which
** LLVM copies once instead of making a constant per element, so that a
** 100 MB model translates in the time of a memcpy. Pointers being
** opaque, the code addressing a global never depends on which.
**
** The same large weights are the ones a JIT links rather than embeds
** (translate.h's LLVM_WEIGHTS_LINKED): they would be bytes anyway, and
** copying them into LLVM and then into an object is what linking avoids.
*/
#include "dialects/llvm/translator.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/llvm/llvm.h"
#include "ir/core.h"

/* Weights with more elements than this are written as bytes. */
enum { BYTES_FROM = 1024 };

/* Element `p` of dense data whose elements are `elem`, as a constant of
** `type` (elem's translation). */
static LLVMValueRef element(GiltType *elem, LLVMTypeRef type,
                            const unsigned char *p)
{
  size_t size = gilt_type_get_storage_size(elem);
  uint64_t bits = 0;
  for (size_t i = 0; i < size && i < 8; i++)
    bits |= (uint64_t)p[i] << (8 * i);
  if (gilt_type_get_kind(elem) == GILT_TYPE_INTEGER) {
    unsigned width = gilt_integer_type_get_width(elem);
    if (width < 64)
      bits &= (UINT64_C(1) << width) - 1;
    return LLVMConstInt(type, bits, 0);
  }
  /* A double holds every f16, bf16 and f32 exactly. */
  return LLVMConstReal(
      type, gilt_float_bits_to_double(gilt_float_type_get_kind(elem), bits));
}

/* Only what element() reads: integers up to 64 bits and LLVM's floats. */
static bool is_element_type(GiltType *elem)
{
  if (gilt_type_get_kind(elem) == GILT_TYPE_INTEGER)
    return gilt_integer_type_get_width(elem) <= 64;
  return gilt_type_get_kind(elem) == GILT_TYPE_FLOAT;
}

/* The data of a dense attribute, or NULL after reporting (an elided
** constant has none). */
static const unsigned char *dense_data(GiltAttr *value, GiltOp *at)
{
  size_t nbytes;
  const void *data = gilt_dense_attr_get_data(value, &nbytes);
  GiltType *elem = gilt_shaped_type_get_element_type(gilt_attr_get_type(value));
  if (!is_element_type(elem)) {
    gilt_op_emit_error(at, "dense elements of this type cannot be LLVM "
                           "constants (integers up to 64 bits and f16, "
                           "bf16, f32, f64 can)");
    return NULL;
  }
  if (!data || nbytes == 0)
    gilt_op_emit_error(at, "the dense value has no data (was it elided?)");
  return data;
}

/* The n elements of `value` as constants of `type`; a splat repeats its
** one element. The caller frees the array. NULL after reporting. */
static LLVMValueRef *elements(LlvmTranslator *t, GiltAttr *value,
                              LLVMTypeRef type, size_t n, GiltOp *at)
{
  const unsigned char *data = dense_data(value, at);
  if (!data)
    return NULL;
  GiltType *elem = gilt_shaped_type_get_element_type(gilt_attr_get_type(value));
  size_t size = gilt_type_get_storage_size(elem);
  bool splat = gilt_dense_attr_is_splat(value);
  LLVMValueRef *v = gilt_malloc(t->ctx, (n + 1) * sizeof *v);
  for (size_t i = 0; i < n; i++)
    v[i] = element(elem, type, data + (splat ? 0 : i * size));
  return v;
}

static LLVMValueRef dense_vector(LlvmTranslator *t, GiltAttr *value,
                                 GiltType *gilt_type, LLVMTypeRef type,
                                 GiltOp *at)
{
  if (gilt_attr_get_type(value) != gilt_type) {
    gilt_op_emit_error(at, "the dense value must have the constant's "
                           "vector type");
    return NULL;
  }
  size_t n = (size_t)gilt_shaped_type_get_num_elements(gilt_type);
  LLVMValueRef *v = elements(t, value, LLVMGetElementType(type), n, at);
  if (!v)
    return NULL;
  LLVMValueRef c = LLVMConstVector(v, (unsigned)n);
  gilt_free(t->ctx, v);
  return c;
}

LLVMValueRef llvm_translate_constant(LlvmTranslator *t, GiltAttr *value,
                                     GiltType *gilt_type, LLVMTypeRef type,
                                     GiltOp *at)
{
  LLVMTypeKind kind = LLVMGetTypeKind(type);
  switch (gilt_attr_get_kind(value)) {
  case GILT_ATTR_INTEGER:
    if (kind != LLVMIntegerTypeKind)
      break;
    /* Sign-extends past 64 bits, as gilt reads an iN attribute. */
    return LLVMConstInt(type, (uint64_t)gilt_integer_attr_get_value(value), 1);
  case GILT_ATTR_BOOL:
    if (kind != LLVMIntegerTypeKind)
      break;
    return LLVMConstInt(type, gilt_bool_attr_get_value(value), 0);
  case GILT_ATTR_FLOAT:
    if (kind == LLVMIntegerTypeKind || kind == LLVMVectorTypeKind ||
        kind == LLVMPointerTypeKind || kind == LLVMStructTypeKind)
      break;
    return LLVMConstReal(type, gilt_float_attr_get_value(value));
  case GILT_ATTR_DENSE_ELEMENTS:
  case GILT_ATTR_DENSE_RESOURCE:
    if (kind != LLVMVectorTypeKind)
      break;
    return dense_vector(t, value, gilt_type, type, at);
  default:
    break;
  }
  gilt_op_emit_error(at, "this value cannot be an LLVM constant of the "
                         "result type (an integer, float or bool of a "
                         "scalar type, or dense elements of a vector type "
                         "can)");
  return NULL;
}

/* A weight of `n` elements of `size` bytes as [n * size x i8]. */
static LLVMValueRef byte_array(LlvmTranslator *t, GiltAttr *value, size_t n,
                               size_t size, GiltOp *at)
{
  const unsigned char *data = dense_data(value, at);
  if (!data)
    return NULL;
  size_t nbytes = n * size;
  if (!gilt_dense_attr_is_splat(value))
    return LLVMConstStringInContext2(t->llctx, (const char *)data, nbytes, 1);
  char *bytes = gilt_malloc(t->ctx, nbytes);
  for (size_t i = 0; i < n; i++)
    memcpy(bytes + i * size, data, size);
  LLVMValueRef c = LLVMConstStringInContext2(t->llctx, bytes, nbytes, 1);
  gilt_free(t->ctx, bytes);
  return c;
}

static bool is_zero_splat(GiltAttr *value)
{
  size_t nbytes;
  const unsigned char *data = gilt_dense_attr_get_data(value, &nbytes);
  if (!gilt_dense_attr_is_splat(value) || !data)
    return false;
  for (size_t i = 0; i < nbytes; i++)
    if (data[i])
      return false;
  return true;
}

LLVMValueRef llvm_translate_global_initializer(LlvmTranslator *t,
                                               GiltAttr *value,
                                               GiltType *type, GiltOp *global,
                                               LLVMTypeRef *llvm_type)
{
  GiltType *vt = gilt_attr_get_type(value);
  GiltType *elem = gilt_shaped_type_get_element_type(vt);
  if (vt == type) {
    *llvm_type = llvm_translate_type(t, type, global);
    return *llvm_type ? llvm_translate_constant(t, value, type, *llvm_type,
                                                global)
                      : NULL;
  }
  if (elem != type) {
    gilt_op_emit_error(global, "'type' must be the element type of "
                               "'value' (the global is an array of its "
                               "elements) or the value's own vector type");
    return NULL;
  }
  LLVMTypeRef elem_type = llvm_translate_type(t, elem, global);
  if (!elem_type)
    return NULL;
  size_t n = (size_t)gilt_shaped_type_get_num_elements(vt);
  if (is_zero_splat(value)) {
    *llvm_type = LLVMArrayType2(elem_type, n);
    return LLVMConstNull(*llvm_type);
  }
  LLVMValueRef c;
  if (n > BYTES_FROM) {
    c = byte_array(t, value, n, gilt_type_get_storage_size(elem), global);
  } else {
    LLVMValueRef *v = elements(t, value, elem_type, n, global);
    c = v ? LLVMConstArray2(elem_type, v, n) : NULL;
    gilt_free(t->ctx, v);
  }
  if (c)
    *llvm_type = LLVMTypeOf(c);
  return c;
}

/* ---- linked weights --------------------------------------------------------- */

bool llvm_global_is_linked_weight(GiltOp *global)
{
  GiltAttr *value = gilt_op_get_attr(global, "value");
  if (!value || (gilt_attr_get_kind(value) != GILT_ATTR_DENSE_ELEMENTS &&
                 gilt_attr_get_kind(value) != GILT_ATTR_DENSE_RESOURCE) ||
      gilt_dense_attr_is_splat(value))
    return false;
  GiltType *vt = gilt_attr_get_type(value);
  GiltType *type = gilt_type_attr_get_value(gilt_op_get_attr(global, "type"));
  return type == gilt_shaped_type_get_element_type(vt) &&
         gilt_shaped_type_get_num_elements(vt) > BYTES_FROM;
}

LLVMTypeRef llvm_translate_linked_weight_type(LlvmTranslator *t,
                                              GiltOp *global)
{
  GiltAttr *value = gilt_op_get_attr(global, "value");
  if (!dense_data(value, global)) /* the checks an initializer gets */
    return NULL;
  size_t nbytes;
  gilt_dense_attr_get_data(value, &nbytes);
  return LLVMArrayType2(LLVMInt8TypeInContext(t->llctx), nbytes);
}

GiltStatus llvm_collect_linked_weights(GiltOp *module, size_t *n,
                                       LlvmLinkedWeight **w)
{
  *n = 0;
  *w = NULL;
  size_t cap = 0;
  for (GiltOp *op = gilt_block_get_first_op(gilt_module_get_body(module)); op;
       op = gilt_op_get_next(op)) {
    if (!llvm_op_is(op, LLVM_OP_GLOBAL) || !llvm_global_is_linked_weight(op))
      continue;
    if (*n == cap) {
      cap = cap ? 2 * cap : 16;
      LlvmLinkedWeight *grown = realloc(*w, cap * sizeof *grown);
      if (!grown) {
        free(*w);
        *w = NULL;
        *n = 0;
        return gilt_op_emit_error(module, "out of memory listing weights");
      }
      *w = grown;
    }
    LlvmLinkedWeight *lw = &(*w)[(*n)++];
    lw->symbol = gilt_symbol_get_name(op);
    lw->data = gilt_dense_attr_get_data(gilt_op_get_attr(op, "value"),
                                        &lw->nbytes);
  }
  return GILT_SUCCESS;
}
