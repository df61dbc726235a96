/*
** tensor.c - host tensors (gilt/tensor.h): a shape, an element type and
** dense row-major elements in 64-byte aligned memory the tensor owns.
**
** A minimal implementation, enough for the loop interpreter and its
** tests; it is not the allocator-aware version gjit will use. Tensors
** live outside any context, so they are made with malloc.
*/
#include "gilt/tensor.h"

#include <stdlib.h>
#include <string.h>

#include "ir/core.h"
#include "ir/support/float16.h"

struct GiltTensor {
  GiltType *elem;
  size_t rank;
  int64_t *shape;
  int64_t count;
  size_t nbytes;
  void *data;
};

size_t gilt_tensor_element_size(GiltType *elem)
{
  if (!elem || (elem->kind != GILT_TYPE_INTEGER &&
                elem->kind != GILT_TYPE_INDEX && elem->kind != GILT_TYPE_FLOAT))
    return 0;
  return gilt_type_get_storage_size(elem);
}

GiltTensor *gilt_tensor_create(GiltType *elem, size_t rank,
                               const int64_t *shape)
{
  size_t size = gilt_tensor_element_size(elem);
  int64_t count = 1;
  if (size == 0)
    return NULL;
  for (size_t d = 0; d < rank; d++)
    if (shape[d] < 0 || __builtin_mul_overflow(count, shape[d], &count))
      return NULL;
  size_t nbytes;
  if (__builtin_mul_overflow((size_t)count, size, &nbytes) || nbytes > SIZE_MAX - 64)
    return NULL;
  GiltTensor *t = calloc(1, sizeof *t);
  int64_t *dims = malloc((rank + 1) * sizeof *dims);
  void *data = aligned_alloc(64, (nbytes + 63) / 64 * 64 + 64);
  if (!t || !dims || !data) {
    free(t), free(dims), free(data);
    return NULL;
  }
  memset(data, 0, nbytes);
  if (rank)
    memcpy(dims, shape, rank * sizeof *dims);
  *t = (GiltTensor){elem, rank, dims, count, nbytes, data};
  return t;
}

void gilt_tensor_destroy(GiltTensor *t)
{
  if (!t)
    return;
  free(t->data);
  free(t->shape);
  free(t);
}

GiltType *gilt_tensor_get_element_type(const GiltTensor *t) { return t->elem; }
size_t gilt_tensor_get_rank(const GiltTensor *t) { return t->rank; }
const int64_t *gilt_tensor_get_shape(const GiltTensor *t) { return t->shape; }
int64_t gilt_tensor_get_num_elements(const GiltTensor *t) { return t->count; }
size_t gilt_tensor_get_num_bytes(const GiltTensor *t) { return t->nbytes; }
void *gilt_tensor_get_data(GiltTensor *t) { return t->data; }

double gilt_tensor_get_double(const GiltTensor *t, int64_t i)
{
  GiltType *e = t->elem;
  size_t size = gilt_type_get_storage_size(e);
  uint64_t bits = 0;
  memcpy(&bits, (const char *)t->data + (size_t)i * size, size);
  if (e->kind == GILT_TYPE_FLOAT) {
    if (e->fkind == GILT_F32) {
      float f;
      memcpy(&f, &bits, 4);
      return f;
    }
    double d;
    if (e->fkind == GILT_F64)
      return memcpy(&d, &bits, 8), d;
    return gilt_float_bits_to_double(e->fkind, bits);
  }
  unsigned w = e->kind == GILT_TYPE_INDEX ? 64 : e->integer.width;
  bool sign = e->kind == GILT_TYPE_INDEX ||
              (e->integer.sign != GILT_UNSIGNED && w > 1);
  int64_t v = gilt_int_extend(bits, w, sign);
  return sign ? (double)v : (double)(uint64_t)v;
}

void gilt_tensor_set_double(GiltTensor *t, int64_t i, double v)
{
  GiltType *e = t->elem;
  size_t size = gilt_type_get_storage_size(e);
  uint64_t bits;
  if (e->kind == GILT_TYPE_FLOAT) {
    if (e->fkind == GILT_F32) {
      float f = (float)v;
      uint32_t b;
      memcpy(&b, &f, 4);
      bits = b;
    } else if (e->fkind == GILT_F64) {
      memcpy(&bits, &v, 8);
    } else {
      bits = gilt_float_bits_from_double(e->fkind, v, false);
    }
  } else {
    unsigned w = e->kind == GILT_TYPE_INDEX ? 64 : e->integer.width;
    double r = v != v ? 0 : v < -9.2e18 ? -9.2e18 : v > 1.8e19 ? 1.8e19 : v;
    uint64_t u = r < 0 ? (uint64_t)(int64_t)r : (uint64_t)r;
    bool sign = e->kind == GILT_TYPE_INDEX || e->integer.sign != GILT_UNSIGNED;
    bits = (uint64_t)gilt_int_extend(u, w, sign && w > 1);
  }
  memcpy((char *)t->data + (size_t)i * size, &bits, size);
}
