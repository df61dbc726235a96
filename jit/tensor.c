/*
** tensor.c - host tensors (gilt/tensor.h): a shape, an element type and
** dense row-major elements in 64-byte aligned memory the tensor owns.
**
** The memory comes from aligned_alloc, not from the context's allocator:
** the compiled code and the interpreter load whole vectors from it, so it
** needs an alignment the realloc-like hook does not promise, and a tensor
** handed between an embedder and a compiled function may outlive the
** context that compiled it. Sizes are checked for overflow before anything
** is allocated, and a failed allocation is a NULL return rather than an
** abort: the shapes come from users' files.
**
** A view (gilt_tensor_create_view) is the same container over elements
** the caller owns: the Python package hands NumPy arrays to compiled code
** through views, so that an input is not copied on every call. A
** compiled call's result is adopted (jit_tensor_adopt): its memory is the
** runtime's, given back through gilt_rt_free, whose cache of large
** blocks serves the next call's result.
**
** This file is the container and the per-element conversions to and from
** double only; reading and writing tensors in files and text is
** tensor_io.h's.
*/
#include "gilt/tensor.h"
#include "jit/abi.h"
#include "jit/tensor_adopt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TENSOR_ALIGN 64

struct GiltTensor {
  GiltType *elem;
  size_t rank;
  int64_t *shape; /* rank sizes; NULL for rank 0 */
  int64_t num_elements;
  size_t elem_size;
  size_t num_bytes;
  void *data; /* never NULL, even with no elements */
  bool borrowed; /* a view: the data is the caller's */
  bool adopted;  /* a compiled call's result: the runtime's memory */
};

size_t gilt_tensor_element_size(GiltType *elem)
{
  switch (gilt_type_get_kind(elem)) {
  case GILT_TYPE_INDEX:
    return 8;
  case GILT_TYPE_INTEGER: {
    unsigned w = gilt_integer_type_get_width(elem);
    return w <= 8 ? 1 : w <= 16 ? 2 : w <= 32 ? 4 : w <= 64 ? 8 : 0;
  }
  case GILT_TYPE_FLOAT:
    switch (gilt_float_type_get_kind(elem)) {
    case GILT_F16:
    case GILT_BF16:
      return 2;
    case GILT_F32:
      return 4;
    case GILT_F64:
      return 8;
    default: /* the 8-bit formats */
      return 1;
    }
  default:
    return 0;
  }
}

/* The container without its data: the shape copied, the sizes checked
** for overflow. NULL when `elem` has no storage size, a dimension is
** negative, the byte count overflows, or memory runs out. */
static GiltTensor *create_header(GiltType *elem, size_t rank,
                                 const int64_t *shape)
{
  size_t elem_size = elem ? gilt_tensor_element_size(elem) : 0;
  if (!elem_size)
    return NULL;
  int64_t n = 1;
  for (size_t i = 0; i < rank; i++) {
    if (shape[i] < 0)
      return NULL;
    if (shape[i] && n > INT64_MAX / shape[i])
      return NULL;
    n *= shape[i];
  }
  if ((uint64_t)n > (SIZE_MAX - TENSOR_ALIGN) / elem_size)
    return NULL;
  GiltTensor *t = calloc(1, sizeof *t);
  int64_t *dims = rank ? malloc(rank * sizeof *dims) : NULL;
  if (!t || (rank && !dims)) {
    free(t);
    free(dims);
    return NULL;
  }
  if (rank)
    memcpy(dims, shape, rank * sizeof *dims);
  t->elem = elem;
  t->rank = rank;
  t->shape = dims;
  t->num_elements = n;
  t->elem_size = elem_size;
  t->num_bytes = (size_t)n * elem_size;
  return t;
}

GiltTensor *gilt_tensor_create(GiltType *elem, size_t rank,
                               const int64_t *shape)
{
  GiltTensor *t = create_header(elem, rank, shape);
  if (!t)
    return NULL;
  /* aligned_alloc wants a multiple of the alignment, and a tensor with no
  ** elements still gets a pointer of its own. */
  size_t alloc =
      (t->num_bytes + TENSOR_ALIGN - 1) / TENSOR_ALIGN * TENSOR_ALIGN;
  if (!alloc)
    alloc = TENSOR_ALIGN;
  t->data = aligned_alloc(TENSOR_ALIGN, alloc);
  if (!t->data) {
    gilt_tensor_destroy(t);
    return NULL;
  }
  memset(t->data, 0, alloc);
  return t;
}

GiltTensor *jit_tensor_adopt(GiltType *elem, size_t rank,
                             const int64_t *shape, void *data)
{
  GiltTensor *t = create_header(elem, rank, shape);
  if (t) {
    t->data = data;
    t->adopted = true;
  }
  return t;
}

GiltTensor *gilt_tensor_create_view(GiltType *elem, size_t rank,
                                    const int64_t *shape, void *data)
{
  GiltTensor *t = create_header(elem, rank, shape);
  if (t && (!data || (uintptr_t)data % t->elem_size)) {
    gilt_tensor_destroy(t);
    return NULL;
  }
  if (t) {
    t->data = data;
    t->borrowed = true;
  }
  return t;
}

void gilt_tensor_destroy(GiltTensor *t)
{
  if (!t)
    return;
  /* A result goes back to the runtime, whose cache of large blocks
  ** hands it to the next call's result instead of new pages. */
  if (t->adopted)
    gilt_rt_free(t->data);
  else if (!t->borrowed)
    free(t->data);
  free(t->shape);
  free(t);
}

GiltType *gilt_tensor_get_element_type(const GiltTensor *t)
{
  return t->elem;
}

size_t gilt_tensor_get_rank(const GiltTensor *t)
{
  return t->rank;
}

const int64_t *gilt_tensor_get_shape(const GiltTensor *t)
{
  return t->shape;
}

int64_t gilt_tensor_get_num_elements(const GiltTensor *t)
{
  return t->num_elements;
}

size_t gilt_tensor_get_num_bytes(const GiltTensor *t)
{
  return t->num_bytes;
}

void *gilt_tensor_get_data(GiltTensor *t)
{
  return t->data;
}

/* The storage unit of element i, zero-extended (little-endian bytes). */
static uint64_t load_bits(const GiltTensor *t, int64_t i)
{
  const uint8_t *p = (const uint8_t *)t->data + (size_t)i * t->elem_size;
  uint64_t bits = 0;
  for (size_t b = 0; b < t->elem_size; b++)
    bits |= (uint64_t)p[b] << (8 * b);
  return bits;
}

static void store_bits(GiltTensor *t, int64_t i, uint64_t bits)
{
  uint8_t *p = (uint8_t *)t->data + (size_t)i * t->elem_size;
  for (size_t b = 0; b < t->elem_size; b++)
    p[b] = (uint8_t)(bits >> (8 * b));
}

/* Whether the integer element type reads as signed: signless and si are
** stored sign-extended, ui zero-extended; i1 is a byte 0 or 1. */
static bool is_signed_int(GiltType *elem)
{
  if (gilt_type_get_kind(elem) == GILT_TYPE_INDEX)
    return true;
  return gilt_integer_type_get_width(elem) > 1 &&
         gilt_integer_type_get_signedness(elem) != GILT_UNSIGNED;
}

double gilt_tensor_get_double(const GiltTensor *t, int64_t i)
{
  uint64_t bits = load_bits(t, i);
  if (gilt_type_get_kind(t->elem) == GILT_TYPE_FLOAT)
    return gilt_float_bits_to_double(gilt_float_type_get_kind(t->elem), bits);
  if (!is_signed_int(t->elem))
    return (double)bits;
  /* Sign-extend the storage unit without relying on the implementation's
  ** conversion of out-of-range unsigned values. */
  uint64_t sign = (uint64_t)1 << (8 * t->elem_size - 1);
  int64_t v = bits & sign ? -(int64_t)(~bits & (sign - 1)) - 1
                          : (int64_t)(bits & (sign - 1));
  return (double)v;
}

/* v truncated toward zero and reduced modulo 2^64 (NaN and the infinities
** give 0): the bits of any integer type's wrapped value. The magnitude is
** reduced, not v itself: -1 + 2^64 is not a double. */
static uint64_t wrap_to_u64(double v)
{
  if (!isfinite(v))
    return 0;
  double t = trunc(v);
  uint64_t m = (uint64_t)fmod(fabs(t), 18446744073709551616.0);
  return t < 0 ? 0 - m : m;
}

void gilt_tensor_set_double(GiltTensor *t, int64_t i, double v)
{
  if (gilt_type_get_kind(t->elem) == GILT_TYPE_FLOAT) {
    store_bits(t, i,
               gilt_float_bits_from_double(gilt_float_type_get_kind(t->elem),
                                           v, false));
    return;
  }
  uint64_t bits = wrap_to_u64(v);
  unsigned width = gilt_type_get_kind(t->elem) == GILT_TYPE_INDEX
                       ? 64
                       : gilt_integer_type_get_width(t->elem);
  if (width < 64) {
    uint64_t mask = ((uint64_t)1 << width) - 1;
    bits &= mask;
    if (is_signed_int(t->elem) && (bits >> (width - 1)) & 1)
      bits |= ~mask;
  }
  store_bits(t, i, bits);
}
