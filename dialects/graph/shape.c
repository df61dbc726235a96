/*
** shape.c - type inference of the graph ops that rearrange a tensor
** without computing: Reshape, Transpose, Squeeze, Unsqueeze, Expand,
** Tile, DepthToSpace, SpaceToDepth, gilt's LayoutTransform (TVM's: one
** tensor from one layout.c layout into another), and the shape queries
** Shape, Size, ConstantOfShape and Range.
**
** Where ONNX passes the new shape as a tensor operand, the result is exact
** when a graph.constant defines it, and otherwise has the rank the
** operand's static length implies with `?` dimensions (unranked when even
** that is unknown). Not here: Concat, Split, Slice, Pad, Resize
** (slice.c) and the gathers and scatters (gather.c).
*/
#include "dialects/graph/graph.h"

#include <math.h>
#include <string.h>

#include "ir/support/checked_math.h"

/* The static length of 1-D operand i, or -1. */
static int64_t operand_length(const GraphOpView *v, size_t i)
{
  GraphShape s;
  graph_operand_shape(v, i, &s);
  return s.ranked && s.rank == 1 && s.dims[0] != GILT_DYNAMIC ? s.dims[0]
                                                                : -1;
}

/* A result of `rank` unknown dims (rank < 0: unranked). */
static GiltType *unknown_dims(const GraphOpView *v, int64_t rank,
                              GiltType *elem)
{
  /* A rank beyond GRAPH_MAX_RANK (a ConstantOfShape whose shape operand
  ** has a huge static size) is unranked, with no dims to fill. */
  bool ranked = rank >= 0 && rank <= GRAPH_MAX_RANK;
  GraphShape s = {.ranked = ranked, .rank = ranked ? (size_t)rank : 0};
  for (size_t d = 0; d < s.rank; d++)
    s.dims[d] = GILT_DYNAMIC;
  return graph_tensor_type(v->ctx, &s, elem);
}

/* The dimension product of a shape operand or of the shape it asks for,
** as *n (-1 when a dim is `?`). */
static GiltStatus dims_product(const GraphOpView *v, const GraphShape *s,
                               const char *operand, int64_t *n)
{
  if (gilt_dims_product(s->rank, s->dims, n))
    return graph_error(v, "the dimension product of operand '%s' overflows "
                       "int64", operand);
  if (*n == GILT_DYNAMIC)
    *n = -1;
  return GILT_SUCCESS;
}

GiltStatus graph_infer_reshape(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GiltType *elem = graph_operand_elem(v, 0);
  int64_t want[GRAPH_MAX_RANK];
  size_t n;
  if (!graph_operand_ints(v, 1, want, GRAPH_MAX_RANK, &n)) {
    types[0] = unknown_dims(v, operand_length(v, 1), elem);
    return GILT_SUCCESS;
  }
  GraphShape in, out = {.ranked = true, .rank = n};
  graph_operand_shape(v, 0, &in);
  bool allowzero = graph_dict_int(v->attrs, "allowzero", 0) != 0;
  size_t infer = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    int64_t d = want[i];
    if (d == 0 && !allowzero) {
      if (in.ranked && i >= in.rank)
        return graph_error(v, "operand 'shape' entry %zu is 0 (copy) but "
                           "operand 'data' has rank %zu", i, in.rank);
      d = in.ranked ? in.dims[i] : GILT_DYNAMIC;
    } else if (d == -1) {
      if (infer != SIZE_MAX)
        return graph_error(v, "operand 'shape' has more than one -1 entry");
      infer = i;
    } else if (d < 0) {
      return graph_error(v, "operand 'shape' entry %zu (%lld) is negative",
                         i, (long long)d);
    }
    out.dims[i] = d;
  }
  /* What the entries other than a -1 give: its place counts as 1. */
  int64_t known, total = -1;
  if (infer != SIZE_MAX)
    out.dims[infer] = 1;
  if (dims_product(v, &out, "shape", &known) ||
      (in.ranked && dims_product(v, &in, "data", &total)))
    return GILT_FAILURE;
  if (infer != SIZE_MAX) {
    out.dims[infer] = GILT_DYNAMIC;
    if (total >= 0 && known > 0) {
      if (total % known)
        return graph_error(v, "operand 'data' has %lld elements, not a "
                           "multiple of the %lld the other entries of "
                           "operand 'shape' give", (long long)total,
                           (long long)known);
      out.dims[infer] = total / known;
    }
  } else if (total >= 0 && known >= 0 && total != known) {
    return graph_error(v, "operand 'data' has %lld elements but operand "
                       "'shape' asks for %lld", (long long)total,
                       (long long)known);
  }
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

GiltStatus graph_infer_transpose(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape in, out;
  graph_operand_shape(v, 0, &in);
  GiltType *elem = graph_operand_elem(v, 0);
  int64_t perm[GRAPH_MAX_RANK];
  size_t n;
  bool given = graph_dict_ints(v->attrs, "perm", perm, GRAPH_MAX_RANK, &n);
  if (!in.ranked) {
    types[0] = unknown_dims(v, given ? (int64_t)n : -1, elem);
    return GILT_SUCCESS;
  }
  if (!given)
    for (n = 0; n < in.rank; n++)
      perm[n] = (int64_t)(in.rank - 1 - n);
  if (n != in.rank)
    return graph_error(v, "attribute 'perm' has %zu entries but the input "
                       "has rank %zu", n, in.rank);
  bool seen[GRAPH_MAX_RANK] = {0};
  out = in;
  for (size_t i = 0; i < n; i++) {
    if (perm[i] < 0 || perm[i] >= (int64_t)n || seen[perm[i]])
      return graph_error(v, "attribute 'perm' is not a permutation of "
                         "0..%zu", n - 1);
    seen[perm[i]] = true;
    out.dims[i] = in.dims[perm[i]];
  }
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* String attribute `name` as a layout into *out, its text into *text. */
static GiltStatus read_layout(const GraphOpView *v, const char *name,
                              GraphLayout *out, const char **text)
{
  GiltAttr *a = gilt_dictionary_attr_lookup(v->attrs, name);
  if (!a || a->kind != GILT_ATTR_STRING)
    return graph_error(v, "attribute '%s' must be a layout string such as "
                       "\"NCHW16c\"", name);
  size_t n;
  *text = gilt_string_attr_get_value(a, &n);
  char why[96];
  if (!graph_layout_parse(*text, n, out, why, sizeof why))
    return graph_error(v, "attribute '%s' is not a layout: it %s", name, why);
  return GILT_SUCCESS;
}

/* The first logical dimension (upper-case letter) of a that b lacks, or
** 0 when there is none. */
static char missing_dim(const GraphLayout *a, const GraphLayout *b)
{
  for (size_t i = 0; i < a->rank; i++)
    if (!a->factors[i] && graph_layout_find(b, a->dims[i]) < 0)
      return a->dims[i];
  return 0;
}

/* The size of logical dimension d (upper case) of `in` laid out by src:
** the outer size times the block where src blocks d, GILT_DYNAMIC when
** unknown. */
static GiltStatus logical_size(const GraphOpView *v, const GraphShape *in,
                               const GraphLayout *src, char d, int64_t *size)
{
  *size = in->ranked ? in->dims[graph_layout_find(src, d)] : GILT_DYNAMIC;
  int64_t f = graph_layout_block(src, d);
  if (*size != GILT_DYNAMIC && f && gilt_mul_overflow(*size, f, size))
    return graph_error(v, "dimension '%c' of operand 'data' overflows int64",
                       d);
  return GILT_SUCCESS;
}

/* LayoutTransform: the same logical dimensions (upper-case letters) in
** both layouts; one of size S is S / g and an inner g where dst_layout
** blocks it by g, S otherwise. Only static sizes are checked: a dynamic
** one is the lowering's to check at run time. */
GiltStatus graph_infer_layout_transform(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphLayout src, dst;
  const char *s, *d;
  if (read_layout(v, "src_layout", &src, &s) ||
      read_layout(v, "dst_layout", &dst, &d))
    return GILT_FAILURE;
  char only_src = missing_dim(&src, &dst), only_dst = missing_dim(&dst, &src);
  if (only_src || only_dst)
    return graph_error(v, "src_layout \"%s\" and dst_layout \"%s\" have "
                       "different dimensions: '%c' is only in %s", s, d,
                       only_src ? only_src : only_dst,
                       only_src ? "src_layout" : "dst_layout");
  GraphShape in, out = {.ranked = true, .rank = dst.rank};
  graph_operand_shape(v, 0, &in);
  if (in.ranked && in.rank != src.rank)
    return graph_error(v, "operand 'data' has rank %zu, but src_layout "
                       "\"%s\" has %zu dimensions", in.rank, s, src.rank);
  for (size_t i = 0; in.ranked && i < in.rank; i++)
    if (src.factors[i] && in.dims[i] != GILT_DYNAMIC &&
        in.dims[i] != src.factors[i])
      return graph_error(v, "dimension %zu of operand 'data' is %lld, but "
                         "src_layout \"%s\" blocks '%c' by %lld", i,
                         (long long)in.dims[i], s, src.dims[i],
                         (long long)src.factors[i]);
  for (size_t i = 0; i < dst.rank; i++) {
    out.dims[i] = dst.factors[i];
    if (dst.factors[i])
      continue;
    int64_t size, g = graph_layout_block(&dst, dst.dims[i]);
    if (logical_size(v, &in, &src, dst.dims[i], &size))
      return GILT_FAILURE;
    if (size != GILT_DYNAMIC && g && size % g)
      return graph_error(v, "dimension '%c' of operand 'data' has size "
                         "%lld, not a multiple of %lld, the block of "
                         "dst_layout \"%s\"", dst.dims[i], (long long)size,
                         (long long)g, d);
    out.dims[i] = size == GILT_DYNAMIC || !g ? size : size / g;
  }
  types[0] = graph_tensor_type(v->ctx, &out, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}

/* Reads the axes operand (operand 1) of Squeeze/Unsqueeze normalized to
** rank; marks them in `mark`. False with *err set on a bad entry. */
static GiltStatus mark_axes(const GraphOpView *v, const int64_t *axes,
                            size_t n, size_t rank, bool *mark)
{
  for (size_t i = 0; i < n; i++) {
    int64_t a;
    if (!graph_normalize_axis(axes[i], rank, &a))
      return graph_error(v, "operand 'axes' entry %lld is out of range for "
                         "rank %zu", (long long)axes[i], rank);
    if (mark[a])
      return graph_error(v, "operand 'axes' names axis %lld more than once",
                         (long long)a);
    mark[a] = true;
  }
  return GILT_SUCCESS;
}

GiltStatus graph_infer_squeeze(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape in, out = {.ranked = true};
  graph_operand_shape(v, 0, &in);
  GiltType *elem = graph_operand_elem(v, 0);
  int64_t axes[GRAPH_MAX_RANK];
  size_t n = 0;
  bool known = graph_operand_ints(v, 1, axes, GRAPH_MAX_RANK, &n);
  if (!in.ranked || (graph_has_operand(v, 1) && !known)) {
    int64_t len = operand_length(v, 1);
    types[0] = unknown_dims(v, in.ranked && len >= 0 ?
                                   (int64_t)in.rank - len : -1, elem);
    return GILT_SUCCESS;
  }
  bool mark[GRAPH_MAX_RANK] = {0};
  if (known && mark_axes(v, axes, n, in.rank, mark))
    return GILT_FAILURE;
  for (size_t d = 0; d < in.rank; d++) {
    if (!known && in.dims[d] == GILT_DYNAMIC) {
      types[0] = unknown_dims(v, -1, elem); /* may or may not be 1 */
      return GILT_SUCCESS;
    }
    bool drop = known ? mark[d] : in.dims[d] == 1;
    if (drop && in.dims[d] != 1 && in.dims[d] != GILT_DYNAMIC)
      return graph_error(v, "operand 'axes' names dimension %zu of size "
                         "%lld, which is not 1", d, (long long)in.dims[d]);
    if (!drop)
      out.dims[out.rank++] = in.dims[d];
  }
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

GiltStatus graph_infer_unsqueeze(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape in, out = {.ranked = true};
  graph_operand_shape(v, 0, &in);
  GiltType *elem = graph_operand_elem(v, 0);
  int64_t axes[GRAPH_MAX_RANK];
  size_t n = 0;
  int64_t len = operand_length(v, 1);
  if (!in.ranked || !graph_operand_ints(v, 1, axes, GRAPH_MAX_RANK, &n)) {
    types[0] = unknown_dims(v, in.ranked && len >= 0 ?
                                   (int64_t)in.rank + len : -1, elem);
    return GILT_SUCCESS;
  }
  out.rank = in.rank + n;
  if (out.rank > GRAPH_MAX_RANK)
    return graph_error(v, "the result would have rank %zu, more than %d",
                       out.rank, GRAPH_MAX_RANK);
  bool mark[GRAPH_MAX_RANK] = {0};
  if (mark_axes(v, axes, n, out.rank, mark))
    return GILT_FAILURE;
  for (size_t d = 0, k = 0; d < out.rank; d++)
    out.dims[d] = mark[d] ? 1 : in.dims[k++];
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* Expand: bidirectional broadcast of the input with the shape operand. */
GiltStatus graph_infer_expand(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape in, shape = {.ranked = true};
  graph_operand_shape(v, 0, &in);
  GiltType *elem = graph_operand_elem(v, 0);
  if (!graph_operand_ints(v, 1, shape.dims, GRAPH_MAX_RANK, &shape.rank)) {
    int64_t len = operand_length(v, 1);
    types[0] = unknown_dims(
        v, in.ranked && len >= 0 ? (int64_t)in.rank > len ? (int64_t)in.rank
                                                            : len
                                 : -1,
        elem);
    return GILT_SUCCESS;
  }
  if (!graph_broadcast_shapes(&in, &shape))
    return graph_error(v, "operand 'input' does not broadcast to the shape "
                       "operand 'shape' gives");
  types[0] = graph_tensor_type(v->ctx, &in, elem);
  return GILT_SUCCESS;
}

GiltStatus graph_infer_tile(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape in;
  graph_operand_shape(v, 0, &in);
  GiltType *elem = graph_operand_elem(v, 0);
  int64_t reps[GRAPH_MAX_RANK];
  size_t n;
  int64_t len = operand_length(v, 1);
  if (in.ranked && len >= 0 && len != (int64_t)in.rank)
    return graph_error(v, "operand 'repeats' has %lld entries but operand "
                       "'input' has rank %zu", (long long)len, in.rank);
  if (!in.ranked || !graph_operand_ints(v, 1, reps, GRAPH_MAX_RANK, &n)) {
    types[0] = unknown_dims(v, in.ranked ? (int64_t)in.rank : len, elem);
    return GILT_SUCCESS;
  }
  for (size_t d = 0; d < in.rank; d++) {
    if (reps[d] < 0)
      return graph_error(v, "operand 'repeats' entry %zu is negative", d);
    if (in.dims[d] != GILT_DYNAMIC &&
        gilt_mul_overflow(in.dims[d], reps[d], &in.dims[d]))
      return graph_error(v, "dimension %zu of operand 'input' times operand "
                         "'repeats' entry %zu (%lld) overflows int64", d, d,
                         (long long)reps[d]);
  }
  types[0] = graph_tensor_type(v->ctx, &in, elem);
  return GILT_SUCCESS;
}

/* DepthToSpace (flags 0) and SpaceToDepth: N x C x H x W with blocksize. */
static GiltStatus infer_block(const GraphOpView *v, GiltType **types,
                              bool to_space)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape in;
  graph_operand_shape(v, 0, &in);
  GiltType *elem = graph_operand_elem(v, 0);
  int64_t b = graph_dict_int(v->attrs, "blocksize", 1);
  if (b < 1)
    return graph_error(v, "attribute 'blocksize' (%lld) must be positive",
                       (long long)b);
  if (in.ranked && in.rank != 4)
    return graph_error(v, "operand 'input' must have rank 4, got %zu",
                       in.rank);
  const char *mode = graph_dict_string(v->attrs, "mode", "DCR");
  if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
    return graph_error(v, "attribute 'mode' is '%s', expected DCR or CRD",
                       mode);
  int64_t bb;
  if (gilt_mul_overflow(b, b, &bb))
    return graph_error(v, "attribute 'blocksize' (%lld) squared overflows "
                       "int64", (long long)b);
  /* Divided dims: C by b*b going to space, H and W going to depth. */
  for (size_t d = 1; in.ranked && d < 4; d++) {
    int64_t *p = &in.dims[d];
    bool divide = to_space == (d == 1);
    int64_t f = d == 1 ? bb : b;
    if (*p == GILT_DYNAMIC)
      continue;
    if (divide && *p % f)
      return graph_error(v, "dimension %zu (%lld) of operand 'input' is not "
                         "a multiple of %lld", d, (long long)*p,
                         (long long)f);
    if (divide)
      *p /= f;
    else if (gilt_mul_overflow(*p, f, p))
      return graph_error(v, "dimension %zu of operand 'input' times %lld "
                         "overflows int64", d, (long long)f);
  }
  types[0] = graph_tensor_type(v->ctx, &in, elem);
  return GILT_SUCCESS;
}

GiltStatus graph_infer_depth_to_space(const GraphOpView *v, GiltType **types)
{
  return infer_block(v, types, true);
}

GiltStatus graph_infer_space_to_depth(const GraphOpView *v, GiltType **types)
{
  return infer_block(v, types, false);
}

/* Shape: 1-D i64 of the dims in [start, end) (clamped, negatives from
** the end). Size: scalar i64. */
GiltStatus graph_infer_shape(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape in, out = {.ranked = true, .rank = 1, .dims = {GILT_DYNAMIC}};
  graph_operand_shape(v, 0, &in);
  GiltType *i64 = gilt_integer_type_get(v->ctx, 64, GILT_SIGNLESS);
  if (in.ranked) {
    int64_t r = (int64_t)in.rank;
    int64_t start = graph_dict_int(v->attrs, "start", 0);
    int64_t end = graph_dict_int(v->attrs, "end", r);
    start = start < 0 ? start + r : start;
    end = end < 0 ? end + r : end;
    start = start < 0 ? 0 : start > r ? r : start;
    end = end < 0 ? 0 : end > r ? r : end;
    out.dims[0] = end > start ? end - start : 0;
  }
  types[0] = graph_tensor_type(v->ctx, &out, i64);
  return GILT_SUCCESS;
}

GiltStatus graph_infer_size(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape out = {.ranked = true, .rank = 0};
  types[0] = graph_tensor_type(
      v->ctx, &out, gilt_integer_type_get(v->ctx, 64, GILT_SIGNLESS));
  return GILT_SUCCESS;
}

/* ConstantOfShape: the shape is the operand's value; the element type is
** that of attribute `value` (a one-element tensor), f32 without one. */
GiltStatus graph_infer_constant_of_shape(const GraphOpView *v,
                                         GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GiltAttr *value = gilt_dictionary_attr_lookup(v->attrs, "value");
  GiltType *elem = gilt_float_type_get(v->ctx, GILT_F32);
  if (value) {
    if (!value->type || value->type->kind != GILT_TYPE_TENSOR ||
        gilt_shaped_type_get_num_elements(value->type) != 1)
      return graph_error(v, "attribute 'value' must hold one element");
    elem = value->type->shaped.elem;
  }
  GraphShape out = {.ranked = true};
  if (!graph_operand_ints(v, 0, out.dims, GRAPH_MAX_RANK, &out.rank)) {
    types[0] = unknown_dims(v, operand_length(v, 0), elem);
    return GILT_SUCCESS;
  }
  for (size_t d = 0; d < out.rank; d++)
    if (out.dims[d] < 0)
      return graph_error(v, "operand 'input' entry %zu is negative", d);
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* Range: 1-D of max(ceil((limit - start) / delta), 0) elements. */
GiltStatus graph_infer_range(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  for (size_t i = 0; i < 3; i++) {
    GraphShape s;
    graph_operand_shape(v, i, &s);
    if (s.ranked && s.rank != 0)
      return graph_error(v, "operand '%s' must be a scalar (rank 0), got "
                         "rank %zu", graph_operand_name(v, i), s.rank);
  }
  GraphShape out = {.ranked = true, .rank = 1, .dims = {GILT_DYNAMIC}};
  GiltAttr *c[3];
  for (size_t i = 0; i < 3; i++)
    c[i] = graph_operand_constant(v, i);
  if (c[0] && c[1] && c[2]) {
    double start = gilt_dense_attr_get_float(c[0], 0);
    double limit = gilt_dense_attr_get_float(c[1], 0);
    double delta = gilt_dense_attr_get_float(c[2], 0);
    if (delta == 0)
      return graph_error(v, "operand 'delta' is zero");
    double n = ceil((limit - start) / delta);
    /* 2^63 and beyond (infinities too) has no int64 conversion. */
    if (n >= 0x1p63)
      return graph_error(v, "operands 'start', 'limit' and 'delta' give %g "
                         "elements, more than int64 counts", n);
    out.dims[0] = n > 0 ? (int64_t)n : 0;
  }
  types[0] = graph_tensor_type(v->ctx, &out, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}

/* CenterCropPad: the input with the dims at `axes` (all of them by
** default) set to the entries of `shape`. */
GiltStatus graph_infer_center_crop_pad(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x, s;
  graph_operand_shape(v, 0, &x);
  graph_operand_shape(v, 1, &s);
  if (s.ranked && s.rank != 1)
    return graph_error(v, "operand 'shape' must be 1-D, got rank %zu",
                       s.rank);
  GiltType *elem = graph_operand_elem(v, 0);
  if (!x.ranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  int64_t axes[GRAPH_MAX_RANK];
  size_t n;
  if (!graph_dict_ints(v->attrs, "axes", axes, GRAPH_MAX_RANK, &n)) {
    n = x.rank;
    for (size_t i = 0; i < n; i++)
      axes[i] = (int64_t)i;
  } else if (n > x.rank) {
    return graph_error(v, "attribute 'axes' has %zu entries for an input of "
                       "rank %zu", n, x.rank);
  }
  bool seen[GRAPH_MAX_RANK] = {false};
  for (size_t i = 0; i < n; i++) {
    int64_t a;
    if (!graph_normalize_axis(axes[i], x.rank, &a))
      return graph_error(v, "attribute 'axes' entry %zu (%lld) is out of "
                         "range for an input of rank %zu", i,
                         (long long)axes[i], x.rank);
    if (seen[a])
      return graph_error(v, "attribute 'axes' names axis %lld twice",
                         (long long)a);
    seen[a] = true;
    axes[i] = a;
  }
  int64_t len = operand_length(v, 1);
  if (len >= 0 && (size_t)len != n)
    return graph_error(v, "operand 'shape' has %lld entries for %zu axes",
                       (long long)len, n);
  int64_t dims[GRAPH_MAX_RANK];
  size_t k;
  bool known = graph_operand_ints(v, 1, dims, GRAPH_MAX_RANK, &k) && k == n;
  for (size_t i = 0; i < n; i++) {
    if (known && dims[i] < 0)
      return graph_error(v, "operand 'shape' entry %zu is negative", i);
    x.dims[axes[i]] = known ? dims[i] : GILT_DYNAMIC;
  }
  types[0] = graph_tensor_type(v->ctx, &x, elem);
  return GILT_SUCCESS;
}
