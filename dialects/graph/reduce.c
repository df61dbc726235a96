/*
** reduce.c - type inference of the graph ops that reduce along axes:
** ReduceSum and its siblings, ArgMax/ArgMin, the global pools, and the
** ops that only name an axis (Softmax, LogSoftmax, Hardmax, Flatten).
**
** The reductions take their axes as an operand (ONNX opset 18, ReduceSum
** 13), read when a graph.constant defines it; with a non-constant axes
** operand the result keeps the rank only under keepdims, with every
** dimension unknown. Not here: the reductions' lowering, and the
** normalization ops (normalization.c).
**
** One canonicalization: ReduceMean of an f32 or f64 image, [N, C, H, W],
** over exactly its spatial axes (2 and 3) is GlobalAveragePool, followed,
** without keepdims, by a Flatten from axis 1 ([N, C, 1, 1] to [N, C]).
** PyTorch exports x.mean((2, 3)), MnasNet's head, as a ReduceMean; as a
** global pool it computes in NCHW16c (graph-layout-nchwc), and so does
** the convolution before it. Rank 4 only: a rank-3 [N, L, D] reduced
** over its last axis is a transformer's layer norm, whose ReduceMeans
** graph-fuse-layer-norm (after canonicalize) must still find.
*/
#include "dialects/graph/graph.h"

#include <string.h>

#include "ir/rewrite/rewrite.h"
#include "ir/support/checked_math.h"

/* Applies the reduction of `axes` (already read, n of them, named by
** `what`) to operand 0's shape. */
static GiltStatus reduce_axes(const GraphOpView *v, const int64_t *axes,
                              size_t n, const char *what, bool keepdims,
                              GiltType **types)
{
  GraphShape in, out = {.ranked = true};
  graph_operand_shape(v, 0, &in);
  GiltType *elem = graph_result_elem(v);
  if (!elem)
    return GILT_FAILURE;
  if (!in.ranked) {
    types[0] = graph_tensor_type(v->ctx, &in, elem);
    return GILT_SUCCESS;
  }
  bool reduced[GRAPH_MAX_RANK] = {0};
  for (size_t i = 0; i < n; i++) {
    int64_t a;
    if (!graph_normalize_axis(axes[i], in.rank, &a))
      return graph_error(v, "%s entry %lld is out of range for an input of "
                         "rank %zu", what, (long long)axes[i], in.rank);
    if (reduced[a])
      return graph_error(v, "%s names axis %lld more than once", what,
                         (long long)a);
    reduced[a] = true;
  }
  for (size_t d = 0; d < in.rank; d++) {
    if (!n || reduced[d]) {
      if (keepdims)
        out.dims[out.rank++] = 1;
    } else {
      out.dims[out.rank++] = in.dims[d];
    }
  }
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* ReduceSum, ReduceMean, ...: the axes operand (opset 18; ReduceSum 13).
** An `axes` attribute is the older form, which the importer turns into
** the operand: here it would be silently ignored, so it is an error. */
GiltStatus graph_infer_reduce(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  if (gilt_dictionary_attr_lookup(v->attrs, "axes"))
    return graph_error(v, "takes its axes as operand 'axes' (ONNX opset "
                       "18), not as an attribute");
  int64_t axes[GRAPH_MAX_RANK];
  size_t n = 0;
  bool keepdims = graph_dict_int(v->attrs, "keepdims", 1) != 0;
  bool noop = graph_dict_int(v->attrs, "noop_with_empty_axes", 0) != 0;
  GraphShape in;
  graph_operand_shape(v, 0, &in);
  if (graph_has_operand(v, 1)) {
    GraphShape s;
    graph_operand_shape(v, 1, &s);
    if (s.ranked && s.rank != 1)
      return graph_error(v, "operand 'axes' must be 1-D, got rank %zu",
                         s.rank);
    bool empty = s.ranked && s.dims[0] == 0;
    if (!empty && !graph_operand_ints(v, 1, axes, GRAPH_MAX_RANK, &n)) {
      /* Which axes go is unknown: only the rank may be, under keepdims
      ** (or when no axes would leave the input as it is). */
      GiltType *elem = graph_result_elem(v);
      if (!elem)
        return GILT_FAILURE;
      if (!keepdims)
        in.ranked = false;
      for (size_t d = 0; d < in.rank; d++)
        in.dims[d] = GILT_DYNAMIC;
      types[0] = graph_tensor_type(v->ctx, &in, elem);
      return GILT_SUCCESS;
    }
  }
  if (!n && noop) {
    types[0] = graph_tensor_type(v->ctx, &in, graph_operand_elem(v, 0));
    return GILT_SUCCESS;
  }
  return reduce_axes(v, axes, n, "operand 'axes'", keepdims, types);
}

/* ArgMax, ArgMin: one axis (default 0), i64 indices. */
GiltStatus graph_infer_arg_reduce(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  int64_t axis = graph_dict_int(v->attrs, "axis", 0);
  bool keepdims = graph_dict_int(v->attrs, "keepdims", 1) != 0;
  return reduce_axes(v, &axis, 1, "attribute 'axis'", keepdims, types);
}

/* GlobalAveragePool, GlobalMaxPool, GlobalLpPool: N x C x 1 x ... x 1;
** in a `layout` that blocks channels, [N, C/b, H, W, b] to
** [N, C/b, 1, 1, b]. */
GiltStatus graph_infer_global_pool(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape s;
  int64_t block;
  graph_operand_shape(v, 0, &s);
  if (graph_x_layout(v, &s, &block))
    return GILT_FAILURE;
  if (s.ranked && s.rank < 2)
    return graph_error(v, "operand 'X' must have rank >= 2 (N x C x ...), "
                       "got rank %zu", s.rank);
  for (size_t d = 2; d < s.rank; d++)
    s.dims[d] = 1;
  if (block > 1)
    s.dims[s.rank++] = block;
  types[0] = graph_tensor_type(v->ctx, &s, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}

/* Softmax, LogSoftmax, Hardmax, LpNormalization: same type; `axis`
** (default -1) must name a dimension. */
GiltStatus graph_infer_axis_unary(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape s;
  graph_operand_shape(v, 0, &s);
  int64_t axis = graph_dict_int(v->attrs, "axis", -1), a;
  if (s.ranked && !graph_normalize_axis(axis, s.rank, &a))
    return graph_error(v, "attribute 'axis' (%lld) is out of range for an "
                       "input of rank %zu", (long long)axis, s.rank);
  types[0] = graph_tensor_type(v->ctx, &s, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}

/* Flatten: 2-D, the dims before `axis` (default 1, in [-r, r]) times
** those from it on. */
GiltStatus graph_infer_flatten(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape s, out = {.ranked = true, .rank = 2};
  graph_operand_shape(v, 0, &s);
  GiltType *elem = graph_operand_elem(v, 0);
  if (!s.ranked) {
    types[0] = gilt_tensor_type_get(v->ctx, 2,
                                    (int64_t[]){GILT_DYNAMIC, GILT_DYNAMIC},
                                    elem, NULL);
    return GILT_SUCCESS;
  }
  int64_t r = (int64_t)s.rank, axis = graph_dict_int(v->attrs, "axis", 1);
  if (axis < -r || axis > r)
    return graph_error(v, "attribute 'axis' (%lld) is out of range for an "
                       "input of rank %zu", (long long)axis, s.rank);
  if (axis < 0)
    axis += r;
  if (gilt_dims_product((size_t)axis, s.dims, &out.dims[0]) ||
      gilt_dims_product(s.rank - (size_t)axis, s.dims + axis, &out.dims[1]))
    return graph_error(v, "the dimension product of operand '%s' overflows "
                       "int64", graph_operand_name(v, 0));
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* ---- canonicalization: spatial reductions are global pools ------------------ */

/* Whether op reduces an f32 or f64 tensor of rank 4 over exactly axes 2
** and 3 (a constant axes operand, in any order and sign), its result of
** the type the global pool (and, without keepdims, a Flatten) would
** give: [N, C, 1, 1], or [N, C]. */
static bool reduces_spatial_axes(GiltOp *op, bool keepdims)
{
  GiltValue *x = op->operands[0].value;
  GiltType *t = x->type, *rt = gilt_op_result_array(op)[0].type;
  if (t->kind != GILT_TYPE_TENSOR || !t->shaped.ranked ||
      t->shaped.rank != 4 ||
      !gilt_type_is_float(t->shaped.elem) ||
      gilt_type_get_bit_width(t->shaped.elem) < 32 || op->num_operands < 2 ||
      rt->kind != GILT_TYPE_TENSOR || !rt->shaped.ranked ||
      rt->shaped.elem != t->shaped.elem)
    return false;
  GiltAttr *c = graph_value_constant(op->operands[1].value);
  size_t r = t->shaped.rank;
  if (!c || c->type->shaped.elem->kind != GILT_TYPE_INTEGER ||
      gilt_dense_attr_get_num_elements(c) != (int64_t)r - 2)
    return false;
  bool named[GRAPH_MAX_RANK] = {false};
  for (int64_t k = 0; k < (int64_t)r - 2; k++) {
    int64_t a;
    if (!graph_normalize_axis(gilt_dense_attr_get_int(c, k), r, &a) ||
        a < 2 || named[a])
      return false;
    named[a] = true;
  }
  size_t out_rank = keepdims ? r : 2;
  if (rt->shaped.rank != out_rank)
    return false;
  for (size_t d = 0; d < out_rank; d++)
    if (rt->shaped.shape[d] != (d < 2 ? t->shaped.shape[d] : 1))
      return false;
  return true;
}

/* One new graph op at the rewriter's insertion point, its type inferred;
** NULL (reported) when it cannot be created. */
static GiltOp *create(GiltRewriter *rw, GiltOp *at, const char *name,
                      GiltValue *operand, size_t num_attrs,
                      const GiltNamedAttr *attrs)
{
  GiltOpState st = gilt_op_state_get(name, gilt_op_get_location(at));
  st.num_operands = 1;
  st.operands = &operand;
  st.num_results = 1;
  st.num_attrs = num_attrs;
  st.attrs = attrs;
  st.infer_result_types = true;
  return gilt_rewriter_create_op(rw, &st);
}

static GiltStatus mean_to_global_pool(const GiltPattern *pat, GiltOp *op,
                                      GiltRewriter *rw)
{
  (void)pat;
  bool keepdims = graph_attr_int(op, "keepdims", 1) != 0;
  if (!reduces_spatial_axes(op, keepdims))
    return GILT_FAILURE;
  GiltOp *pool = create(rw, op, "graph.global_average_pool",
                        op->operands[0].value, 0, NULL);
  if (!pool)
    return GILT_FAILURE;
  GiltValue *y = gilt_op_get_result(pool, 0);
  if (!keepdims) {
    GiltContext *ctx = gilt_rewriter_get_context(rw);
    GiltNamedAttr axis = {
        "axis",
        gilt_integer_attr_get(gilt_integer_type_get(ctx, 64, GILT_SIGNLESS),
                              1)};
    GiltOp *flatten = create(rw, op, "graph.flatten", y, 1, &axis);
    if (!flatten) { /* a failed pattern leaves the IR as it was */
      gilt_rewriter_erase_op(rw, pool);
      return GILT_FAILURE;
    }
    y = gilt_op_get_result(flatten, 0);
  }
  gilt_rewriter_replace_op(rw, op, &y);
  return GILT_SUCCESS;
}

void graph_reduce_mean_patterns(GiltPatternSet *set)
{
  GiltPattern p = {"graph-reduce-mean-spatial", "graph.reduce_mean", 1,
                   mean_to_global_pool, NULL};
  gilt_pattern_set_add(set, p);
}
