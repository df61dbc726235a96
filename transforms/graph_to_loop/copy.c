/*
** copy.c - how the contraction lowerings prepare an operand: a copy into
** a new buffer with another element type, a value subtracted (a zero
** point) or the last two dimensions swapped (Gemm's transA and transB),
** and the reading of a per-tensor, per-axis or broadcast parameter (a
** zero point, a scale) for one element of the operand it applies to.
** A copy costs O(elements) against the contraction's O(elements * K),
** and buys the kernels one element type and contiguous rows. A constant
** f32 matrix (a weight: Gemm's B with transB, as PyTorch's Linear
** exports it) is transposed at compile time instead, into a global: no
** copy at each call.
*/
#include "transforms/graph_to_loop/lowering.h"

#include <string.h>

typedef struct Copy {
  GiltValue *src, *dst;
  bool transpose; /* dst's last two dims are src's swapped */
  LowerMapFn map; /* NULL: the element itself */
  void *user;
} Copy;

static void copy_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Copy *c = user;
  size_t r = gilt_value_get_type(c->dst)->shaped.rank;
  GiltValue *is[GRAPH_MAX_RANK];
  for (size_t d = 0; d < r; d++)
    is[d] = ivs[d];
  if (c->transpose)
    is[r - 2] = ivs[r - 1], is[r - 1] = ivs[r - 2];
  GiltValue *x = lower_load(l, c->src, is);
  x = c->map ? c->map(l, x, is, c->user)
             : lower_convert(l, x, gilt_value_get_type(c->dst)->shaped.elem);
  lower_store(l, x, c->dst, ivs);
}

/* src transposed at compile time when it is a constant f32 matrix of
** static sizes, else NULL. */
static GiltValue *transposed_constant(Lower *l, GiltValue *src)
{
  const unsigned char *data = lower_constant_f32_matrix(l, src);
  if (!data)
    return NULL;
  GiltType *t = gilt_value_get_type(src);
  int64_t rows = t->shaped.shape[0], cols = t->shaped.shape[1];
  float *to = gilt_blob_alloc(l->ctx, (size_t)(rows * cols) * sizeof *to);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++)
      memcpy(&to[c * rows + r], data + (r * cols + c) * (int64_t)sizeof *to,
             sizeof *to);
  int64_t shape[2] = {cols, rows};
  return lower_packed_global(l, 2, shape, to);
}

GiltValue *lower_copy_map(Lower *l, GiltValue *src, GiltType *elem,
                          bool transpose, LowerMapFn map, void *user)
{
  bool same = elem == gilt_value_get_type(src)->shaped.elem;
  GiltValue *folded =
      transpose && !map && same ? transposed_constant(l, src) : NULL;
  if (folded)
    return folded;
  GiltType *t = gilt_value_get_type(src);
  size_t r = t->shaped.rank;
  int64_t shape[GRAPH_MAX_RANK];
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, src, dims);
  for (size_t d = 0; d < r; d++)
    shape[d] = t->shaped.shape[d];
  if (transpose) {
    GiltValue *dv = dims[r - 2];
    int64_t s = shape[r - 2];
    dims[r - 2] = dims[r - 1], dims[r - 1] = dv;
    shape[r - 2] = shape[r - 1], shape[r - 1] = s;
  }
  GiltType *dt = gilt_memref_type_get(l->ctx, r, shape, elem, NULL, NULL);
  Copy c = {src, lower_alloc(l, dt, dims), transpose, map, user};
  lower_parallel(l, r, dims, copy_body, &c);
  return c.dst;
}

GiltValue *lower_per_axis(Lower *l, GiltValue *q, size_t r, size_t axis,
                          GiltValue *const *ivs)
{
  if (!q)
    return NULL;
  GiltType *t = gilt_value_get_type(q);
  size_t rq = t->shaped.rank;
  GiltValue *idx[GRAPH_MAX_RANK];
  if (rq == r && r > 1) {
    lower_broadcast_indices(l, q, r, ivs, idx);
  } else {
    for (size_t d = 0; d < rq; d++)
      idx[d] = t->shaped.shape[d] == 1 ? lower_index(l, 0) : ivs[axis];
  }
  return lower_load(l, q, idx);
}

bool lower_per_axis_ok(GiltValue *q, size_t r)
{
  return !q || gilt_value_get_type(q)->shaped.rank <= 1 ||
         gilt_value_get_type(q)->shaped.rank == r;
}

GiltValue *lower_minus_zero_point(Lower *l, GiltValue *x,
                                  GiltValue *const *ivs, void *user)
{
  LowerZeroPoint *z = user;
  GiltType *i32 = gilt_integer_type_get(l->ctx, 32, GILT_SIGNLESS);
  GiltValue *zp = lower_per_axis(l, z->zp, z->rank, z->axis, ivs);
  x = lower_convert(l, x, i32);
  if (!zp)
    return x;
  return lower_binary(l, LOOP_OP_SUBI, x, lower_convert(l, zp, i32));
}
