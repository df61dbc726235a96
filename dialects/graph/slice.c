/*
** slice.c - type inference of the graph ops that cut or join tensors
** along axes: Concat, Split, Slice, Pad and Resize.
**
** Sizes that come from tensor operands (split, starts/ends, pads, scales,
** sizes) are exact when graph.constant ops define them and `?` otherwise;
** the rank is always the input's. Slice clamps its bounds as ONNX says.
** Not here: the reshaping ops (shape.c).
*/
#include "dialects/graph/graph.h"

#include <math.h>
#include <string.h>

#include "ir/support/checked_math.h"

static GiltType *all_dynamic(const GraphOpView *v, GraphShape s,
                             GiltType *elem)
{
  for (size_t d = 0; d < s.rank; d++)
    s.dims[d] = GILT_DYNAMIC;
  return graph_tensor_type(v->ctx, &s, elem);
}

GiltStatus graph_infer_concat(const GraphOpView *v, GiltType **types)
{
  if (!v->num_operands)
    return graph_error(v, "needs at least one operand");
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GiltType *elem = graph_operand_elem(v, 0);
  GraphShape out, s;
  size_t first = SIZE_MAX;
  int64_t axis = graph_dict_int(v->attrs, "axis", 0), a = 0;
  for (size_t i = 0; i < v->num_operands; i++) {
    graph_operand_shape(v, i, &s);
    if (!s.ranked)
      continue;
    if (first == SIZE_MAX) {
      if (!graph_normalize_axis(axis, s.rank, &a))
        return graph_error(v, "attribute 'axis' (%lld) is out of range for "
                           "inputs of rank %zu", (long long)axis, s.rank);
      out = s;
      first = i;
      continue;
    }
    if (s.rank != out.rank)
      return graph_error(v, "operand %zu has rank %zu but operand %zu has "
                         "rank %zu", i, s.rank, first, out.rank);
    for (size_t d = 0; d < s.rank; d++) {
      int64_t *o = &out.dims[d], x = s.dims[d];
      if ((int64_t)d == a) {
        if (*o == GILT_DYNAMIC || x == GILT_DYNAMIC)
          *o = GILT_DYNAMIC;
        else if (gilt_add_overflow(*o, x, o))
          return graph_error(v, "the sizes of the operands along axis %lld "
                             "overflow int64", (long long)a);
      } else if (*o == GILT_DYNAMIC) {
        *o = x;
      } else if (x != GILT_DYNAMIC && x != *o) {
        return graph_error(v, "operand %zu has size %lld in dimension %zu "
                           "but operand %zu has %lld", i, (long long)x, d,
                           first, (long long)*o);
      }
    }
  }
  if (first == SIZE_MAX) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  /* An unranked operand leaves the concatenated size unknown. */
  for (size_t i = 0; i < v->num_operands; i++) {
    graph_operand_shape(v, i, &s);
    if (!s.ranked)
      out.dims[a] = GILT_DYNAMIC;
  }
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* Split: one result per part; sizes from the `split` operand, else equal. */
GiltStatus graph_infer_split(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape in;
  graph_operand_shape(v, 0, &in);
  GiltType *elem = graph_operand_elem(v, 0);
  size_t r = v->num_results;
  if (!r)
    return graph_error(v, "needs at least one result (a builder that "
                       "infers types says how many in 'num_outputs')");
  int64_t num = graph_dict_int(v->attrs, "num_outputs", (int64_t)r);
  if (num != (int64_t)r)
    return graph_error(v, "attribute 'num_outputs' (%lld) differs from the "
                       "%zu results", (long long)num, r);
  if (!in.ranked) {
    for (size_t i = 0; i < r; i++)
      types[i] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  int64_t axis = graph_dict_int(v->attrs, "axis", 0), a;
  if (!graph_normalize_axis(axis, in.rank, &a))
    return graph_error(v, "attribute 'axis' (%lld) is out of range for an "
                       "input of rank %zu", (long long)axis, in.rank);
  int64_t dim = in.dims[a];
  int64_t *sizes = gilt_calloc(v->ctx, r + 1, sizeof *sizes);
  size_t n = 0;
  GiltStatus st = GILT_SUCCESS;
  GiltAttr *c = graph_operand_constant(v, 1);
  if (c) {
    int64_t count = gilt_dense_attr_get_num_elements(c), sum = 0;
    if (count != (int64_t)r)
      st = graph_error(v, "operand 'split' has %lld entries but the op has "
                       "%zu results", (long long)count, r);
    for (size_t i = 0; !st && i < r; i++) {
      sizes[i] = gilt_dense_attr_get_int(c, (int64_t)i);
      if (sizes[i] < 0)
        st = graph_error(v, "operand 'split' entry %zu (%lld) is negative",
                         i, (long long)sizes[i]);
      else if (gilt_add_overflow(sum, sizes[i], &sum))
        st = graph_error(v, "the sum of operand 'split' overflows int64");
    }
    if (!st && dim != GILT_DYNAMIC && sum != dim)
      st = graph_error(v, "operand 'split' sums to %lld but dimension %lld "
                       "of the input has %lld", (long long)sum,
                       (long long)a, (long long)dim);
    n = r;
  } else if (!graph_has_operand(v, 1) && dim != GILT_DYNAMIC) {
    /* Equal parts, the last one smaller when it does not divide (as
    ** opset 18 allows and ONNX Runtime does): ceil(dim / r) each, while
    ** what is left lasts. */
    int64_t part = dim / (int64_t)r + (dim % (int64_t)r != 0), left = dim;
    for (size_t i = 0; i < r; i++) {
      sizes[i] = left < part ? left : part;
      left -= sizes[i];
    }
    n = r;
  }
  for (size_t i = 0; !st && i < r; i++) {
    GraphShape o = in;
    o.dims[a] = n ? sizes[i] : GILT_DYNAMIC;
    types[i] = graph_tensor_type(v->ctx, &o, elem);
  }
  gilt_free(v->ctx, sizes);
  return st;
}

/* Reads up to max ints of operand i into out; -1 when absent, 0 when not
** constant, else the count. */
static int64_t const_ints(const GraphOpView *v, size_t i, int64_t *out,
                          size_t max)
{
  size_t n;
  if (!graph_has_operand(v, i))
    return -1;
  return graph_operand_ints(v, i, out, max, &n) ? (int64_t)n : 0;
}

static int64_t clamp(int64_t x, int64_t lo, int64_t hi)
{
  return x < lo ? lo : x > hi ? hi : x;
}

/* The size of one sliced axis of size dim (ONNX Slice-13 semantics). The
** clamped bounds lie in [-1, dim], so their distance fits; the division
** rounds up without adding the step to it, which could overflow. */
static int64_t slice_size(int64_t dim, int64_t start, int64_t end,
                          int64_t step)
{
  if (dim == GILT_DYNAMIC || dim == 0)
    return dim; /* nothing to take from an empty axis, whatever the step */
  start = start < 0 ? start + dim : start;
  end = end < 0 ? end + dim : end;
  int64_t span;
  uint64_t stride;
  if (step > 0) {
    start = clamp(start, 0, dim);
    end = clamp(end, 0, dim);
    span = end - start;
    stride = (uint64_t)step;
  } else {
    start = clamp(start, 0, dim - 1);
    end = clamp(end, -1, dim - 1);
    span = start - end;
    stride = 0 - (uint64_t)step; /* -step, INT64_MIN included */
  }
  if (span <= 0)
    return 0;
  return (int64_t)(((uint64_t)span - 1) / stride + 1);
}

GiltStatus graph_infer_slice(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape in;
  graph_operand_shape(v, 0, &in);
  GiltType *elem = graph_operand_elem(v, 0);
  if (!in.ranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  int64_t starts[GRAPH_MAX_RANK], ends[GRAPH_MAX_RANK];
  int64_t axes[GRAPH_MAX_RANK], steps[GRAPH_MAX_RANK];
  int64_t ns = const_ints(v, 1, starts, GRAPH_MAX_RANK);
  int64_t ne = const_ints(v, 2, ends, GRAPH_MAX_RANK);
  int64_t na = const_ints(v, 3, axes, GRAPH_MAX_RANK);
  int64_t nt = const_ints(v, 4, steps, GRAPH_MAX_RANK);
  if (ns <= 0 || ne <= 0 || na == 0 || nt == 0) {
    types[0] = all_dynamic(v, in, elem);
    return GILT_SUCCESS;
  }
  if (ns != ne || (na > 0 && na != ns) || (nt > 0 && nt != ns))
    return graph_error(v, "operands 'starts', 'ends', 'axes' and 'steps' "
                       "must have the same length");
  bool seen[GRAPH_MAX_RANK] = {0};
  GraphShape out = in;
  for (int64_t i = 0; i < ns; i++) {
    int64_t a = na > 0 ? axes[i] : i, step = nt > 0 ? steps[i] : 1;
    if (!graph_normalize_axis(a, in.rank, &a))
      return graph_error(v, "operand 'axes' entry %lld is out of range for "
                         "rank %zu", (long long)(na > 0 ? axes[i] : i),
                         in.rank);
    if (seen[a])
      return graph_error(v, "operand 'axes' names axis %lld more than once",
                         (long long)a);
    seen[a] = true;
    if (step == 0)
      return graph_error(v, "operand 'steps' entry %lld is zero",
                         (long long)i);
    out.dims[a] = slice_size(in.dims[a], starts[i], ends[i], step);
  }
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* Pad (opset 19): data, pads, constant_value?, axes?. `pads` holds the
** begins then the ends for each of `axes` (default all); negative pads
** remove. */
GiltStatus graph_infer_pad(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape in;
  graph_operand_shape(v, 0, &in);
  GiltType *elem = graph_operand_elem(v, 0);
  const char *mode = graph_dict_string(v->attrs, "mode", "constant");
  if (strcmp(mode, "constant") && strcmp(mode, "reflect") &&
      strcmp(mode, "edge") && strcmp(mode, "wrap"))
    return graph_error(v, "attribute 'mode' is '%s', expected constant, "
                       "reflect, edge or wrap", mode);
  if (!in.ranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  int64_t pads[2 * GRAPH_MAX_RANK], axes[GRAPH_MAX_RANK];
  int64_t np = const_ints(v, 1, pads, 2 * GRAPH_MAX_RANK);
  int64_t na = const_ints(v, 3, axes, GRAPH_MAX_RANK);
  if (np <= 0 || na == 0) {
    types[0] = all_dynamic(v, in, elem);
    return GILT_SUCCESS;
  }
  int64_t n = na > 0 ? na : (int64_t)in.rank;
  if (np != 2 * n)
    return graph_error(v, "operand 'pads' has %lld entries, expected %lld",
                       (long long)np, (long long)(2 * n));
  bool seen[GRAPH_MAX_RANK] = {0};
  for (int64_t i = 0; i < n; i++) {
    int64_t a = na > 0 ? axes[i] : i;
    if (!graph_normalize_axis(a, in.rank, &a))
      return graph_error(v, "operand 'axes' entry %lld is out of range for "
                         "rank %zu", (long long)axes[i], in.rank);
    /* ONNX leaves a repeated axis undefined. */
    if (seen[a])
      return graph_error(v, "operand 'axes' names axis %lld more than once",
                         (long long)a);
    seen[a] = true;
    if (in.dims[a] == GILT_DYNAMIC)
      continue;
    int64_t grown;
    if (gilt_add_overflow(in.dims[a], pads[i], &grown) ||
        gilt_add_overflow(grown, pads[n + i], &grown))
      return graph_error(v, "dimension %lld of operand 'data' with operand "
                         "'pads' overflows int64", (long long)a);
    if (grown < 0)
      return graph_error(v, "operand 'pads' removes more than dimension "
                         "%lld holds", (long long)a);
    in.dims[a] = grown;
  }
  types[0] = graph_tensor_type(v->ctx, &in, elem);
  return GILT_SUCCESS;
}

/* Resize's string attributes (opset 19, plus the opset 11-17 mode
** tf_half_pixel_for_nn, which older models keep) and antialias. */
static bool resize_attrs_valid(const GraphOpView *v)
{
  static const char *const modes[] = {"nearest", "linear", "cubic", NULL};
  static const char *const coords[] = {
      "half_pixel",         "half_pixel_symmetric", "pytorch_half_pixel",
      "align_corners",      "asymmetric",           "tf_crop_and_resize",
      "tf_half_pixel_for_nn", NULL};
  static const char *const nearest[] = {"round_prefer_floor",
                                        "round_prefer_ceil", "floor", "ceil",
                                        NULL};
  static const char *const policies[] = {"stretch", "not_larger",
                                         "not_smaller", NULL};
  int64_t antialias = graph_dict_int(v->attrs, "antialias", 0);
  if (antialias != 0 && antialias != 1) {
    graph_error(v, "attribute 'antialias' is %lld, expected 0 or 1",
                (long long)antialias);
    return false;
  }
  return graph_check_string_attr(v, "mode", "nearest", modes,
                                 "nearest, linear or cubic") &&
         graph_check_string_attr(
             v, "coordinate_transformation_mode", "half_pixel", coords,
             "half_pixel, half_pixel_symmetric, pytorch_half_pixel, "
             "align_corners, asymmetric, tf_crop_and_resize or "
             "tf_half_pixel_for_nn") &&
         graph_check_string_attr(
             v, "nearest_mode", "round_prefer_floor", nearest,
             "round_prefer_floor, round_prefer_ceil, floor or ceil") &&
         graph_check_string_attr(v, "keep_aspect_ratio_policy", "stretch",
                                 policies,
                                 "stretch, not_larger or not_smaller");
}

/* The axes that roi, scales and sizes refer to, normalized into axes[];
** their count, or -1 after reporting. Without `axes`, all of them. */
static int64_t resize_axes(const GraphOpView *v, size_t rank, int64_t *axes)
{
  size_t n;
  if (!graph_dict_ints(v->attrs, "axes", axes, GRAPH_MAX_RANK, &n)) {
    for (size_t d = 0; d < rank; d++)
      axes[d] = (int64_t)d;
    return (int64_t)rank;
  }
  if (n > rank) {
    graph_error(v, "attribute 'axes' has %zu entries but operand 'X' has "
                "rank %zu", n, rank);
    return -1;
  }
  bool seen[GRAPH_MAX_RANK] = {0};
  for (size_t i = 0; i < n; i++) {
    int64_t a;
    if (!graph_normalize_axis(axes[i], rank, &a)) {
      graph_error(v, "attribute 'axes' entry %lld is out of range for rank "
                  "%zu", (long long)axes[i], rank);
      return -1;
    }
    if (seen[a]) {
      graph_error(v, "attribute 'axes' names axis %lld more than once",
                  (long long)a);
      return -1;
    }
    seen[a] = true;
    axes[i] = a;
  }
  return (int64_t)n;
}

/* The output size for `sizes` under keep_aspect_ratio_policy not_larger or
** not_smaller: one scale for every resized axis, the smallest or largest
** sizes[i] / in[axes[i]], and each size round(scale * in) with halves
** rounded up. Dynamic when an input dim is. */
static GiltStatus resize_keep_aspect(const GraphOpView *v, GraphShape *out,
                                     const int64_t *axes, int64_t n,
                                     const int64_t *sizes, bool larger)
{
  double scale = larger ? 0 : INFINITY;
  for (int64_t i = 0; i < n; i++) {
    int64_t in = out->dims[axes[i]];
    if (in == GILT_DYNAMIC) {
      for (int64_t j = 0; j < n; j++)
        out->dims[axes[j]] = GILT_DYNAMIC;
      return GILT_SUCCESS;
    }
    if (in == 0)
      return graph_error(v, "keep_aspect_ratio_policy needs a non-empty "
                         "dimension %lld of operand 'X'", (long long)axes[i]);
    double s = (double)sizes[i] / (double)in;
    scale = larger ? fmax(scale, s) : fmin(scale, s);
  }
  for (int64_t i = 0; i < n; i++) {
    double size = floor(scale * (double)out->dims[axes[i]] + 0.5);
    if (!(size >= 0 && size < 0x1p63))
      return graph_error(v, "operand 'sizes' gives dimension %lld a size "
                         "of %g", (long long)axes[i], size);
    out->dims[axes[i]] = (int64_t)size;
  }
  return GILT_SUCCESS;
}

/* Resize (opset 19): X, roi?, scales?, sizes?. The output has X's shape
** but on the resized axes (`axes`, default all): from `sizes` as
** keep_aspect_ratio_policy says, else floor(in * scale). */
GiltStatus graph_infer_resize(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v) || !resize_attrs_valid(v))
    return GILT_FAILURE;
  GraphShape in;
  graph_operand_shape(v, 0, &in);
  GiltType *elem = graph_operand_elem(v, 0);
  if (!in.ranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  int64_t axes[GRAPH_MAX_RANK];
  int64_t n = resize_axes(v, in.rank, axes);
  if (n < 0)
    return GILT_FAILURE;
  /* Opset 11 models pass an empty `scales` next to `sizes`. */
  bool has_scales = graph_has_operand(v, 2) &&
                    gilt_shaped_type_get_num_elements(v->operands[2]->type) != 0;
  if (has_scales && graph_has_operand(v, 3))
    return graph_error(v, "takes operand 'scales' or operand 'sizes', not "
                       "both");
  int64_t sizes[GRAPH_MAX_RANK];
  int64_t nz = const_ints(v, 3, sizes, GRAPH_MAX_RANK);
  GiltAttr *scales = graph_operand_constant(v, 2);
  if (nz > 0) {
    if (nz != n)
      return graph_error(v, "operand 'sizes' has %lld entries, expected "
                         "%lld", (long long)nz, (long long)n);
    for (int64_t i = 0; i < n; i++)
      if (sizes[i] < 0)
        return graph_error(v, "operand 'sizes' entry %lld (%lld) is "
                           "negative", (long long)i, (long long)sizes[i]);
    const char *policy =
        graph_dict_string(v->attrs, "keep_aspect_ratio_policy", "stretch");
    if (strcmp(policy, "stretch")) {
      if (resize_keep_aspect(v, &in, axes, n, sizes,
                             !strcmp(policy, "not_smaller")))
        return GILT_FAILURE;
    } else {
      for (int64_t i = 0; i < n; i++)
        in.dims[axes[i]] = sizes[i];
    }
  } else if (scales && gilt_dense_attr_get_num_elements(scales) > 0) {
    if (gilt_dense_attr_get_num_elements(scales) != n)
      return graph_error(v, "operand 'scales' has %lld entries, expected "
                         "%lld",
                         (long long)gilt_dense_attr_get_num_elements(scales),
                         (long long)n);
    for (int64_t i = 0; i < n; i++) {
      int64_t d = axes[i];
      if (in.dims[d] == GILT_DYNAMIC)
        continue;
      double scale = gilt_dense_attr_get_float(scales, i);
      double size = floor((double)in.dims[d] * scale);
      /* NaN fails both tests; 2^63 has no int64 conversion. */
      if (!(size >= 0 && size < 0x1p63))
        return graph_error(v, "operand 'scales' entry %lld (%g) gives "
                           "dimension %lld a size of %g", (long long)i, scale,
                           (long long)d, size);
      in.dims[d] = (int64_t)size;
    }
  } else {
    for (int64_t i = 0; i < n; i++)
      in.dims[axes[i]] = GILT_DYNAMIC;
  }
  types[0] = graph_tensor_type(v->ctx, &in, elem);
  return GILT_SUCCESS;
}
