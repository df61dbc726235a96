/*
** call.c - calling a compiled entry through libffi, from the entry's
** loop-level function type, so that any entry can be called without glue
** generated for its signature.
**
** The frame follows jit/abi.h: a memref argument is a pointer to a
** GiltMemRefDesc that points at the input tensor's elements (offset 0,
** row-major strides), a scalar is passed by value in its C type, and each
** result is a pointer to a descriptor or a scalar the callee fills; the
** callee returns an int32_t status. The ffi_cif and the argument types
** are built once per entry (jit_call_create); the descriptors and value
** slots per call, on the heap, since a descriptor is 520 bytes and an
** entry may take hundreds of arguments.
**
** After a successful call every memref result is copied out into a new
** tensor, honouring its offset and strides, and its buffer (the callee's
** gilt_rt_alloc) freed. The inputs are checked first by the interpreter's
** own check (loop_check_inputs), so that both ways of running a function
** refuse the same inputs in the same words.
*/
#include "jit/call.h"

#include <ffi.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/loop/loop.h"
#include "jit/runtime.h"
#include "jit/tensor_adopt.h"

struct JitCall {
  GiltType *type;
  size_t num_inputs, num_results;
  ffi_cif cif;
  ffi_type **arg_types; /* num_inputs + num_results */
};

/* The C type of a scalar argument in abi.h, or NULL. */
static ffi_type *scalar_ffi_type(GiltType *t)
{
  switch (gilt_type_get_kind(t)) {
  case GILT_TYPE_INDEX:
    return &ffi_type_sint64;
  case GILT_TYPE_INTEGER: {
    unsigned w = gilt_integer_type_get_width(t);
    bool u = w == 1 ||
             gilt_integer_type_get_signedness(t) == GILT_UNSIGNED;
    if (w <= 8)
      return u ? &ffi_type_uint8 : &ffi_type_sint8;
    if (w <= 16)
      return u ? &ffi_type_uint16 : &ffi_type_sint16;
    if (w <= 32)
      return u ? &ffi_type_uint32 : &ffi_type_sint32;
    if (w <= 64)
      return u ? &ffi_type_uint64 : &ffi_type_sint64;
    return NULL;
  }
  case GILT_TYPE_FLOAT:
    switch (gilt_float_type_get_kind(t)) {
    case GILT_F16:
    case GILT_BF16:
      return &ffi_type_uint16;
    case GILT_F32:
      return &ffi_type_float;
    case GILT_F64:
      return &ffi_type_double;
    default: /* the 8-bit floats: abi.h gives them no scalar form */
      return NULL;
    }
  default:
    return NULL;
  }
}

/* Whether t, argument or result `i`, has a form in abi.h. */
static bool check_type(GiltType *t, const char *what, size_t i,
                       GiltLocation *loc)
{
  if (gilt_type_get_kind(t) == GILT_TYPE_MEMREF) {
    if (gilt_shaped_type_get_rank(t) <= GILT_MAX_RANK &&
        gilt_tensor_element_size(gilt_shaped_type_get_element_type(t)) != 0)
      return true;
  } else if (scalar_ffi_type(t)) {
    return true;
  }
  GiltContext *ctx = gilt_location_get_context(loc);
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, ctx);
  gilt_type_print(t, gilt_strbuf_callback, &sb);
  gilt_emit_error(loc, "%s %zu of a compiled entry cannot be %s: jit/abi.h "
                       "has no C form for it",
                  what, i, sb.data);
  gilt_strbuf_free(&sb);
  return false;
}

JitCall *jit_call_create(GiltType *fn_type, GiltLocation *loc)
{
  size_t n_in = gilt_function_type_get_num_inputs(fn_type);
  size_t n_out = gilt_function_type_get_num_results(fn_type);
  for (size_t i = 0; i < n_in; i++)
    if (!check_type(gilt_function_type_get_input(fn_type, i), "argument", i,
                    loc))
      return NULL;
  for (size_t i = 0; i < n_out; i++)
    if (!check_type(gilt_function_type_get_result(fn_type, i), "result", i,
                    loc))
      return NULL;
  JitCall *call = calloc(1, sizeof *call);
  ffi_type **types = calloc(n_in + n_out + 1, sizeof *types);
  if (!call || !types) {
    free(call);
    free(types);
    gilt_emit_error(loc, "out of memory preparing a call");
    return NULL;
  }
  call->type = fn_type;
  call->num_inputs = n_in;
  call->num_results = n_out;
  call->arg_types = types;
  for (size_t i = 0; i < n_in; i++) {
    GiltType *t = gilt_function_type_get_input(fn_type, i);
    types[i] = gilt_type_get_kind(t) == GILT_TYPE_MEMREF ? &ffi_type_pointer
                                                        : scalar_ffi_type(t);
  }
  for (size_t i = 0; i < n_out; i++)
    types[n_in + i] = &ffi_type_pointer;
  if (ffi_prep_cif(&call->cif, FFI_DEFAULT_ABI, (unsigned)(n_in + n_out),
                   &ffi_type_sint32, types) != FFI_OK) {
    gilt_emit_error(loc, "libffi cannot build a call of %zu arguments",
                    n_in + n_out);
    jit_call_destroy(call);
    return NULL;
  }
  return call;
}

void jit_call_destroy(JitCall *call)
{
  if (!call)
    return;
  free(call->arg_types);
  free(call);
}

/* ---- one call ------------------------------------------------------------------- */

/* What one argument or result occupies for the call: a descriptor, or a
** scalar's bytes; and the pointer libffi reads the argument from. */
typedef struct Slot {
  GiltMemRefDesc desc;
  uint64_t scalar;
  void *pointer; /* the value of a pointer argument */
} Slot;

static void fill_desc(GiltMemRefDesc *d, GiltTensor *x)
{
  size_t rank = gilt_tensor_get_rank(x);
  const int64_t *shape = gilt_tensor_get_shape(x);
  int64_t stride = 1;
  d->data = gilt_tensor_get_data(x);
  d->offset = 0;
  for (size_t k = rank; k-- > 0;) {
    d->sizes[k] = shape[k];
    d->strides[k] = stride;
    stride *= shape[k];
  }
}

/* The elements of d, row-major, into dst. */
static void copy_out(const GiltMemRefDesc *d, size_t rank, size_t elem,
                     char *dst, int64_t count)
{
  int64_t idx[GILT_MAX_RANK] = {0};
  const char *base = d->data;
  for (int64_t k = 0; k < count; k++) {
    int64_t off = d->offset;
    for (size_t r = 0; r < rank; r++)
      off += idx[r] * d->strides[r];
    memcpy(dst + k * (int64_t)elem, base + off * (int64_t)elem, elem);
    for (size_t r = rank; r-- > 0;)
      if (++idx[r] < d->sizes[r])
        break;
      else
        idx[r] = 0;
  }
}

/* Whether result i's buffer can become its tensor's as it is: dense,
** row-major, aligned as tensors are, and no other result's. */
static bool adoptable(const Slot *results, size_t n, size_t i, size_t rank)
{
  const GiltMemRefDesc *d = &results[i].desc;
  if (d->offset != 0 || (uintptr_t)d->data % 64 != 0)
    return false;
  int64_t stride = 1;
  for (size_t r = rank; r-- > 0;) {
    if (d->sizes[r] != 1 && d->strides[r] != stride)
      return false;
    stride *= d->sizes[r];
  }
  for (size_t j = 0; j < n; j++)
    if (j != i && results[j].desc.data == d->data)
      return false;
  return true;
}

/* Result i as a new tensor, which takes the result's buffer where it can
** (adoptable: then results[i]'s data becomes NULL, for free_results) and
** copies its elements otherwise; NULL after reporting. */
static GiltTensor *make_output(GiltType *t, Slot *results, size_t n, size_t i,
                               GiltLocation *loc)
{
  Slot *s = &results[i];
  if (gilt_type_get_kind(t) != GILT_TYPE_MEMREF) {
    GiltTensor *x = gilt_tensor_create(t, 0, NULL);
    if (x)
      memcpy(gilt_tensor_get_data(x), &s->scalar, gilt_tensor_get_num_bytes(x));
    else
      gilt_emit_error(loc, "cannot allocate result %zu", i);
    return x;
  }
  GiltType *elem = gilt_shaped_type_get_element_type(t);
  size_t rank = gilt_shaped_type_get_rank(t);
  for (size_t r = 0; r < rank; r++)
    if (s->desc.sizes[r] < 0) {
      gilt_emit_error(loc, "result %zu came back with size %lld in "
                           "dimension %zu",
                      i, (long long)s->desc.sizes[r], r);
      return NULL;
    }
  if (s->desc.data && adoptable(results, n, i, rank)) {
    GiltTensor *x = jit_tensor_adopt(elem, rank, s->desc.sizes, s->desc.data);
    if (x)
      s->desc.data = NULL;
    else
      gilt_emit_error(loc, "cannot allocate result %zu", i);
    return x;
  }
  GiltTensor *x = gilt_tensor_create(elem, rank, s->desc.sizes);
  if (!x) {
    gilt_emit_error(loc, "cannot allocate result %zu", i);
    return NULL;
  }
  int64_t count = gilt_tensor_get_num_elements(x);
  if (count > 0 && !s->desc.data) {
    gilt_emit_error(loc, "result %zu came back without a buffer", i);
    gilt_tensor_destroy(x);
    return NULL;
  }
  if (count > 0)
    copy_out(&s->desc, rank, gilt_tensor_element_size(elem),
             gilt_tensor_get_data(x), count);
  return x;
}

/* Frees the buffers of memref results, each once even if the callee
** returned one buffer twice. */
static void free_results(const JitCall *call, Slot *results)
{
  for (size_t i = 0; i < call->num_results; i++) {
    GiltType *t = gilt_function_type_get_result(call->type, i);
    if (gilt_type_get_kind(t) != GILT_TYPE_MEMREF || !results[i].desc.data)
      continue;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++)
      seen = results[j].desc.data == results[i].desc.data;
    if (!seen)
      gilt_rt_free(results[i].desc.data);
  }
}

static GiltStatus make_outputs(const JitCall *call, Slot *results,
                               GiltLocation *loc, size_t *num_outputs,
                               GiltTensor ***outputs)
{
  size_t n = call->num_results;
  GiltTensor **out = calloc(n + 1, sizeof *out);
  if (!out) {
    gilt_emit_error(loc, "cannot allocate %zu results", n);
    return GILT_FAILURE;
  }
  for (size_t i = 0; i < n; i++) {
    out[i] = make_output(gilt_function_type_get_result(call->type, i),
                         results, n, i, loc);
    if (!out[i]) {
      while (i-- > 0)
        gilt_tensor_destroy(out[i]);
      free(out);
      return GILT_FAILURE;
    }
  }
  *outputs = out;
  *num_outputs = n;
  return GILT_SUCCESS;
}

/* The run's failure as a diagnostic at the failing op's location (the
** ONNX node's, for a model), as the interpreter reports it: the compiled
** code gives that location as text, which is parsed back. At the entry's
** location `loc` when there is none (out of memory). */
static void report_failure(GiltLocation *loc)
{
  const char *message, *where;
  if (!jit_runtime_last_failure(&message, &where)) {
    gilt_emit_error(loc, "the compiled function failed without saying why");
    return;
  }
  GiltLocation *at =
      where ? gilt_location_parse(gilt_location_get_context(loc), where)
            : NULL;
  if (at || !where)
    gilt_emit_error(at ? at : loc, "%s", message);
  else
    gilt_emit_error(loc, "%s: %s", where, message);
}

GiltStatus jit_call_run(JitCall *call, void *fn, GiltLocation *loc,
                        size_t num_inputs, GiltTensor *const *inputs,
                        size_t *num_outputs, GiltTensor ***outputs)
{
  *num_outputs = 0;
  *outputs = NULL;
  if (loop_check_inputs(loc, call->type, num_inputs, inputs))
    return GILT_FAILURE;
  size_t n = call->num_inputs + call->num_results;
  Slot *slots = calloc(n + 1, sizeof *slots);
  void **values = calloc(n + 1, sizeof *values);
  if (!slots || !values) {
    free(slots);
    free(values);
    gilt_emit_error(loc, "out of memory calling a compiled entry");
    return GILT_FAILURE;
  }
  for (size_t i = 0; i < call->num_inputs; i++) {
    GiltType *t = gilt_function_type_get_input(call->type, i);
    if (gilt_type_get_kind(t) == GILT_TYPE_MEMREF) {
      fill_desc(&slots[i].desc, inputs[i]);
      slots[i].pointer = &slots[i].desc;
      values[i] = &slots[i].pointer;
    } else {
      /* Tensor storage is abi.h's C type, little-endian: the bytes are
      ** the value. */
      memcpy(&slots[i].scalar, gilt_tensor_get_data(inputs[i]),
             gilt_tensor_get_num_bytes(inputs[i]));
      values[i] = &slots[i].scalar;
    }
  }
  Slot *results = slots + call->num_inputs;
  for (size_t i = 0; i < call->num_results; i++) {
    GiltType *t = gilt_function_type_get_result(call->type, i);
    results[i].pointer = gilt_type_get_kind(t) == GILT_TYPE_MEMREF
                             ? (void *)&results[i].desc
                             : (void *)&results[i].scalar;
    values[call->num_inputs + i] = &results[i].pointer;
  }

  jit_runtime_clear_error();
  ffi_arg status = 0;
  ffi_call(&call->cif, FFI_FN(fn), &status, values);
  GiltStatus ok;
  if ((int32_t)status != 0) {
    report_failure(loc);
    ok = GILT_FAILURE;
  } else {
    ok = make_outputs(call, results, loc, num_outputs, outputs);
    free_results(call, results);
  }
  free(slots);
  free(values);
  return ok;
}
