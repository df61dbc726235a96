/*
** detection.c - type inference of the detection and sampling graph ops:
** NonMaxSuppression, RoiAlign, MaxRoiPool, GridSample, AffineGrid and
** MaxUnpool.
**
** Per-region outputs are [num_rois, C, height, width]; NonMaxSuppression
** gives [?, 3] i64 (batch, class, box) triples; MaxUnpool's size comes
** from its output_shape operand (when constant) or the inverse of the
** pooling formula. GridSample has version 20's form (N spatial
** dimensions, modes linear, nearest and cubic). Not here: the pools
** themselves (conv.c).
*/
#include "dialects/graph/graph.h"

#include <string.h>

#include "ir/support/checked_math.h"

GiltStatus graph_infer_non_max_suppression(const GraphOpView *v,
                                           GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape out = {.ranked = true, .rank = 2, .dims = {GILT_DYNAMIC, 3}};
  types[0] = graph_tensor_type(
      v->ctx, &out, gilt_integer_type_get(v->ctx, 64, GILT_SIGNLESS));
  return GILT_SUCCESS;
}

/* RoiAlign (output_height/width) and MaxRoiPool (pooled_shape). */
GiltStatus graph_infer_roi(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x, rois;
  graph_operand_shape(v, 0, &x);
  graph_operand_shape(v, 1, &rois);
  if (x.ranked && x.rank != 4)
    return graph_error(v, "operand 'X' must be N x C x H x W, got rank %zu",
                       x.rank);
  if (rois.ranked && (rois.rank != 2 || (rois.dims[1] != GILT_DYNAMIC &&
                                         rois.dims[1] != 4 &&
                                         rois.dims[1] != 5)))
    return graph_error(v, "operand 'rois' must be [num_rois, 4] (or 5 with "
                       "the batch index)");
  int64_t hw[2] = {graph_dict_int(v->attrs, "output_height", 1),
                   graph_dict_int(v->attrs, "output_width", 1)};
  size_t n;
  if (graph_dict_ints(v->attrs, "pooled_shape", hw, 2, &n) && n != 2)
    return graph_error(v, "attribute 'pooled_shape' has %zu entries, "
                       "expected 2", n);
  GraphShape out = {.ranked = true, .rank = 4,
                    .dims = {rois.ranked ? rois.dims[0] : GILT_DYNAMIC,
                             x.ranked ? x.dims[1] : GILT_DYNAMIC, hw[0],
                             hw[1]}};
  types[0] = graph_tensor_type(v->ctx, &out, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}

static bool is_bf16(GiltType *t)
{
  return t && gilt_type_is_float(t) && gilt_float_type_get_kind(t) == GILT_BF16;
}

/* GridSample-20's attributes and types: X any type but bf16, grid f16, f32
** or f64 (bf16 came with version 22). */
static GiltStatus check_grid_sample(const GraphOpView *v)
{
  static const char *const modes[] = {"linear", "nearest", "cubic", NULL};
  static const char *const pads[] = {"zeros", "border", "reflection", NULL};
  int64_t align = graph_dict_int(v->attrs, "align_corners", 0);
  if (align != 0 && align != 1)
    return graph_error(v, "attribute 'align_corners' is %lld, expected 0 "
                       "or 1", (long long)align);
  if (!graph_check_string_attr(v, "mode", "linear", modes, "linear, nearest or cubic") ||
      !graph_check_string_attr(v, "padding_mode", "zeros", pads,
                   "zeros, border or reflection"))
    return GILT_FAILURE;
  for (size_t i = 0; i < 2; i++)
    if (is_bf16(graph_operand_elem(v, i)))
      return graph_error(v, "operand '%s' must not be bf16 (GridSample-20)",
                         graph_operand_name(v, i));
  return GILT_SUCCESS;
}

/* GridSample-20: X [N, C, D1..Dr], grid [N, D1_out..Dr_out, r] ->
** [N, C, D1_out..Dr_out], for any r >= 1. */
GiltStatus graph_infer_grid_sample(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v) || check_grid_sample(v))
    return GILT_FAILURE;
  GraphShape x, grid;
  graph_operand_shape(v, 0, &x);
  graph_operand_shape(v, 1, &grid);
  GiltType *elem = graph_operand_elem(v, 0);
  if (x.ranked && x.rank < 3)
    return graph_error(v, "operand 'X' must be [N, C, D1, ...], got rank "
                       "%zu", x.rank);
  if (grid.ranked && grid.rank < 3)
    return graph_error(v, "operand 'grid' must be [N, D1_out, ..., r], got "
                       "rank %zu", grid.rank);
  if (x.ranked && grid.ranked && grid.rank != x.rank)
    return graph_error(v, "operand 'grid' must have the rank of operand 'X' "
                       "(%zu), got %zu", x.rank, grid.rank);
  if (!x.ranked && !grid.ranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  size_t rank = x.ranked ? x.rank : grid.rank;
  int64_t r = (int64_t)rank - 2;
  if (grid.ranked && grid.dims[rank - 1] != GILT_DYNAMIC &&
      grid.dims[rank - 1] != r)
    return graph_error(v, "operand 'grid' must end in a dimension of %lld "
                       "(one coordinate per spatial dimension), got %lld",
                       (long long)r, (long long)grid.dims[rank - 1]);
  int64_t nx = x.ranked ? x.dims[0] : GILT_DYNAMIC;
  int64_t ng = grid.ranked ? grid.dims[0] : GILT_DYNAMIC;
  if (nx != GILT_DYNAMIC && ng != GILT_DYNAMIC && nx != ng)
    return graph_error(v, "operands 'X' and 'grid' have batch sizes %lld "
                       "and %lld", (long long)nx, (long long)ng);
  GraphShape out = {.ranked = true, .rank = rank};
  out.dims[0] = nx != GILT_DYNAMIC ? nx : ng;
  out.dims[1] = x.ranked ? x.dims[1] : GILT_DYNAMIC;
  for (size_t d = 2; d < rank; d++)
    out.dims[d] = grid.ranked ? grid.dims[d - 1] : GILT_DYNAMIC;
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* AffineGrid-20: theta [N, 2, 3] (2-D) or [N, 3, 4] (3-D), size the
** target [N, C, H, W] or [N, C, D, H, W] (i64, 4 or 5 entries) -> grid
** [N, H, W, 2] or [N, D, H, W, 3] in theta's type. The spatial sizes come
** from a constant size. */
GiltStatus graph_infer_affine_grid(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  int64_t align = graph_dict_int(v->attrs, "align_corners", 0);
  if (align != 0 && align != 1)
    return graph_error(v, "attribute 'align_corners' is %lld, expected 0 "
                       "or 1", (long long)align);
  GiltType *elem = graph_operand_elem(v, 0), *size_elem = graph_operand_elem(v, 1);
  if (!gilt_type_is_integer(size_elem, 64) ||
      gilt_integer_type_get_signedness(size_elem) == GILT_UNSIGNED)
    return graph_error(v, "operand 'size' must be an i64 tensor");
  GraphShape theta, size;
  graph_operand_shape(v, 0, &theta);
  graph_operand_shape(v, 1, &size);
  if (theta.ranked && theta.rank != 3)
    return graph_error(v, "operand 'theta' must be [N, 2, 3] or [N, 3, 4], "
                       "got rank %zu", theta.rank);
  if (size.ranked && (size.rank != 1 || (size.dims[0] != GILT_DYNAMIC &&
                                         size.dims[0] != 4 &&
                                         size.dims[0] != 5)))
    return graph_error(v, "operand 'size' must be 1-D with 4 entries "
                       "(N, C, H, W) or 5 (N, C, D, H, W)");
  /* r, the spatial dimensions, from whichever operand tells. */
  int64_t r = GILT_DYNAMIC, vals[5];
  size_t nvals = 0;
  bool known = graph_operand_ints(v, 1, vals, 5, &nvals);
  if (size.ranked && size.dims[0] != GILT_DYNAMIC)
    r = size.dims[0] - 2;
  int64_t tr = GILT_DYNAMIC;
  if (theta.ranked) {
    int64_t rows = theta.dims[1], cols = theta.dims[2];
    if ((rows != GILT_DYNAMIC && rows != 2 && rows != 3) ||
        (rows != GILT_DYNAMIC && cols != GILT_DYNAMIC && cols != rows + 1) ||
        (cols != GILT_DYNAMIC && cols != 3 && cols != 4))
      return graph_error(v, "operand 'theta' must be [N, 2, 3] or "
                         "[N, 3, 4], got [%lld, %lld] matrices",
                         (long long)rows, (long long)cols);
    tr = rows != GILT_DYNAMIC ? rows : cols != GILT_DYNAMIC ? cols - 1 : tr;
  }
  if (r != GILT_DYNAMIC && tr != GILT_DYNAMIC && r != tr)
    return graph_error(v, "operand 'theta' holds %lld-D transforms but "
                       "operand 'size' has %lld entries", (long long)tr,
                       (long long)(r + 2));
  if (r == GILT_DYNAMIC)
    r = tr;
  if (r == GILT_DYNAMIC) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  int64_t n = theta.ranked ? theta.dims[0] : GILT_DYNAMIC;
  if (known) {
    for (size_t i = 0; i < nvals; i++)
      if (vals[i] < 0)
        return graph_error(v, "operand 'size' entry %zu (%lld) is negative",
                           i, (long long)vals[i]);
    if (n != GILT_DYNAMIC && vals[0] != n)
      return graph_error(v, "operand 'size' asks for a batch of %lld but "
                         "operand 'theta' has %lld", (long long)vals[0],
                         (long long)n);
    n = vals[0];
  }
  GraphShape out = {.ranked = true, .rank = (size_t)r + 2};
  out.dims[0] = n;
  for (int64_t d = 0; d < r; d++)
    out.dims[1 + d] = known ? vals[2 + d] : GILT_DYNAMIC;
  out.dims[r + 1] = r;
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* MaxUnpool: out = (in - 1) * stride + kernel - pad_begin - pad_end, or
** the output_shape operand. */
GiltStatus graph_infer_max_unpool(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  GiltType *elem = graph_operand_elem(v, 0);
  if (!x.ranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  if (x.rank < 3)
    return graph_error(v, "operand 'X' must have rank >= 3, got %zu",
                       x.rank);
  size_t n = x.rank - 2, nk, ns, np;
  int64_t shape[GRAPH_MAX_RANK];
  size_t len;
  if (graph_operand_ints(v, 2, shape, GRAPH_MAX_RANK, &len)) {
    if (len != x.rank)
      return graph_error(v, "operand 'output_shape' has %zu entries but "
                         "operand 'X' has rank %zu", len, x.rank);
    for (size_t d = 0; d < len; d++)
      x.dims[d] = shape[d];
  } else if (graph_has_operand(v, 2)) {
    for (size_t d = 2; d < x.rank; d++)
      x.dims[d] = GILT_DYNAMIC;
  } else {
    int64_t k[GRAPH_MAX_RANK], s[GRAPH_MAX_RANK], p[2 * GRAPH_MAX_RANK];
    graph_dict_ints(v->attrs, "kernel_shape", k, GRAPH_MAX_RANK, &nk);
    if (nk != n)
      return graph_error(v, "attribute 'kernel_shape' has %zu entries but "
                         "the input has %zu spatial dimensions", nk, n);
    if (!graph_dict_ints(v->attrs, "strides", s, GRAPH_MAX_RANK, &ns))
      for (ns = 0; ns < n; ns++)
        s[ns] = 1;
    if (!graph_dict_ints(v->attrs, "pads", p, 2 * GRAPH_MAX_RANK, &np))
      for (np = 0; np < 2 * n; np++)
        p[np] = 0;
    if (ns != n || np != 2 * n)
      return graph_error(v, "attributes 'strides' and 'pads' need %zu and "
                         "%zu entries", n, 2 * n);
    for (size_t d = 0; d < n; d++) {
      int64_t *o = &x.dims[2 + d];
      if (*o != GILT_DYNAMIC &&
          (gilt_mul_overflow(*o - 1, s[d], o) ||
           gilt_add_overflow(*o, k[d], o) || gilt_sub_overflow(*o, p[d], o) ||
           gilt_sub_overflow(*o, p[n + d], o)))
        return graph_error(v, "the output size of spatial dimension %zu of "
                           "operand 'X' overflows int64", d);
    }
  }
  types[0] = graph_tensor_type(v->ctx, &x, elem);
  return GILT_SUCCESS;
}
