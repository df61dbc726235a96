/*
** signature.c - whether host tensors fit the arguments of a loop-level
** function: the check that every way of running a function (the
** interpreter, a compiled entry called through the JIT) makes before it
** touches an element, so that both report a wrong input in the same
** words.
**
** A memref argument takes a tensor of its element type and rank whose
** sizes match the static ones; the tensor is dense and row-major at offset
** zero, so the memref's layout must allow that. A scalar or index argument
** takes a tensor of rank 0, a vector argument one of rank 1 of its lanes.
** This file only checks; how a caller then passes the elements (cells of
** a frame, a GiltMemRefDesc) is its own business.
*/
#include "dialects/loop/loop.h"

#include "gilt/tensor.h"
#include "ir/support/alloc.h"

/* The messages name the function as gilt_op_emit_error does, so that a
** caller with only the function's location says the same thing. */
#define FUNC_PREFIX "'func.func' op "

static GiltStatus input_error(GiltLocation *loc, size_t i, const char *what)
{
  gilt_emit_error(loc, FUNC_PREFIX "input %zu %s", i, what);
  return GILT_FAILURE;
}

/* "input 1 is a tensor of 1x5xf32, where argument 1 is memref<1x4xf32>":
** what a user who passed the wrong tensor needs to see. */
static GiltStatus type_mismatch(GiltLocation *loc, size_t i, GiltType *t,
                                const GiltTensor *x)
{
  GiltContext *ctx = gilt_location_get_context(loc);
  GiltStrBuf got, want;
  gilt_strbuf_init(&got, ctx);
  gilt_strbuf_init(&want, ctx);
  for (size_t d = 0; d < gilt_tensor_get_rank(x); d++)
    gilt_strbuf_printf(&got, "%lldx", (long long)gilt_tensor_get_shape(x)[d]);
  gilt_type_print(gilt_tensor_get_element_type(x), gilt_strbuf_callback, &got);
  gilt_type_print(t, gilt_strbuf_callback, &want);
  gilt_emit_error(loc, FUNC_PREFIX "input %zu is a tensor of %s, where "
                                   "argument %zu is %s",
                  i, got.data, i, want.data);
  gilt_strbuf_free(&got);
  gilt_strbuf_free(&want);
  return GILT_FAILURE;
}

static GiltStatus check_memref(GiltLocation *loc, size_t i, GiltType *t,
                               const GiltTensor *x)
{
  size_t rank = t->shaped.rank;
  if (gilt_tensor_get_element_type(x) != t->shaped.elem ||
      gilt_tensor_get_rank(x) != rank)
    return type_mismatch(loc, i, t, x);
  const int64_t *shape = gilt_tensor_get_shape(x);
  int64_t want[rank + 1], offset, stride = 1;
  loop_memref_strides(t, want, &offset);
  if (offset != 0 && offset != GILT_DYNAMIC)
    return input_error(loc, i, "cannot have the offset its type says");
  for (size_t d = rank; d-- > 0;) {
    if (t->shaped.shape[d] != GILT_DYNAMIC && t->shaped.shape[d] != shape[d])
      return type_mismatch(loc, i, t, x);
    if (want[d] != GILT_DYNAMIC && want[d] != stride && shape[d] != 1)
      return input_error(loc, i, "is dense: its type's strides say "
                                 "otherwise");
    stride *= shape[d];
  }
  return GILT_SUCCESS;
}

static GiltStatus check_lanes(GiltLocation *loc, size_t i, GiltType *t,
                              const GiltTensor *x)
{
  bool vector = t->kind == GILT_TYPE_VECTOR;
  int64_t lanes = vector ? t->shaped.shape[0] : 1;
  if (gilt_tensor_get_element_type(x) != loop_element_type(t) ||
      gilt_tensor_get_rank(x) != (vector ? 1u : 0u) ||
      gilt_tensor_get_num_elements(x) != lanes)
    return type_mismatch(loc, i, t, x);
  return GILT_SUCCESS;
}

GiltStatus loop_check_inputs(GiltLocation *loc, GiltType *fn_type,
                             size_t num_inputs, GiltTensor *const *inputs)
{
  size_t n = gilt_function_type_get_num_inputs(fn_type);
  if (num_inputs != n) {
    gilt_emit_error(loc, FUNC_PREFIX "takes %zu inputs, got %zu", n,
                    num_inputs);
    return GILT_FAILURE;
  }
  for (size_t i = 0; i < n; i++) {
    GiltType *t = gilt_function_type_get_input(fn_type, i);
    if (!inputs[i])
      return input_error(loc, i, "is missing");
    GiltStatus s = t->kind == GILT_TYPE_MEMREF
                       ? check_memref(loc, i, t, inputs[i])
                       : check_lanes(loc, i, t, inputs[i]);
    if (s)
      return s;
  }
  return GILT_SUCCESS;
}
