/*
** select.c - type inference of the graph ops that pick, order or count
** elements: TopK, OneHot, EyeLike, NonZero, Unique, Compress, and the
** shape-keeping Trilu, CumSum and ReverseSequence (graph_infer_unary).
**
** Sizes that depend on the data (NonZero, Unique, Compress) are `?`; sizes
** that come from a scalar operand (TopK's K, OneHot's depth) are exact
** when a graph.constant defines it. Not here: ArgMax/ArgMin (reduce.c).
*/
#include "dialects/graph/graph.h"

#include "ir/support/checked_math.h"

static GiltType *i64_type(const GraphOpView *v)
{
  return gilt_integer_type_get(v->ctx, 64, GILT_SIGNLESS);
}

static GiltType *vector_type(const GraphOpView *v, int64_t n, GiltType *elem)
{
  GraphShape s = {.ranked = true, .rank = 1, .dims = {n}};
  return graph_tensor_type(v->ctx, &s, elem);
}

static GiltStatus axis_of(const GraphOpView *v, const GraphShape *s,
                          int64_t def, int64_t *a)
{
  int64_t axis = graph_dict_int(v->attrs, "axis", def);
  if (s->ranked && !graph_normalize_axis(axis, s->rank, a))
    return graph_error(v, "attribute 'axis' (%lld) is out of range for an "
                       "input of rank %zu", (long long)axis, s->rank);
  return GILT_SUCCESS;
}

/* TopK: Values and Indices, the input's shape with K along `axis`. */
GiltStatus graph_infer_top_k(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  int64_t a = 0, k;
  if (axis_of(v, &x, -1, &a))
    return GILT_FAILURE;
  if (x.ranked) {
    if (!graph_operand_scalar_int(v, 1, &k))
      k = GILT_DYNAMIC;
    else if (k < 0 || (x.dims[a] != GILT_DYNAMIC && k > x.dims[a]))
      return graph_error(v, "operand 'K' (%lld) exceeds dimension %lld "
                         "(%lld) of operand 'X'", (long long)k, (long long)a,
                         (long long)x.dims[a]);
    x.dims[a] = k;
  }
  types[0] = graph_tensor_type(v->ctx, &x, graph_operand_elem(v, 0));
  if (v->num_results > 1)
    types[1] = graph_tensor_type(v->ctx, &x, i64_type(v));
  return GILT_SUCCESS;
}

/* OneHot: indices' shape with `depth` inserted at `axis`, values' type. */
GiltStatus graph_infer_one_hot(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape idx, out = {.ranked = true};
  graph_operand_shape(v, 0, &idx);
  GiltType *elem = graph_operand_elem(v, 2);
  if (!idx.ranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  if (idx.rank + 1 > GRAPH_MAX_RANK)
    return graph_error(v, "operand 'indices' has rank %zu", idx.rank);
  int64_t a, depth;
  int64_t axis = graph_dict_int(v->attrs, "axis", -1);
  if (!graph_normalize_axis(axis, idx.rank + 1, &a))
    return graph_error(v, "attribute 'axis' (%lld) is out of range for a "
                       "result of rank %zu", (long long)axis, idx.rank + 1);
  if (!graph_operand_scalar_int(v, 1, &depth))
    depth = GILT_DYNAMIC;
  out.rank = idx.rank + 1;
  for (size_t d = 0, k = 0; d < out.rank; d++)
    out.dims[d] = (int64_t)d == a ? depth : idx.dims[k++];
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* EyeLike: the input's 2-D shape, in `dtype` or the input's type. */
GiltStatus graph_infer_eye_like(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  if (x.ranked && x.rank != 2)
    return graph_error(v, "operand 'input' must be 2-D, got rank %zu",
                       x.rank);
  GiltType *elem = graph_operand_elem(v, 0);
  if (gilt_dictionary_attr_lookup(v->attrs, "dtype")) {
    int64_t dt = graph_dict_int(v->attrs, "dtype", 0);
    elem = graph_onnx_elem_type(v->ctx, dt);
    if (!elem)
      return graph_error(v, "attribute 'dtype' (%lld) is not a supported "
                         "ONNX data type", (long long)dt);
  }
  types[0] = graph_tensor_type(v->ctx, &x, elem);
  return GILT_SUCCESS;
}

/* NonZero: i64 [rank x ?]. */
GiltStatus graph_infer_non_zero(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x, out = {.ranked = true, .rank = 2,
                       .dims = {GILT_DYNAMIC, GILT_DYNAMIC}};
  graph_operand_shape(v, 0, &x);
  if (x.ranked)
    out.dims[0] = (int64_t)x.rank;
  types[0] = graph_tensor_type(v->ctx, &out, i64_type(v));
  return GILT_SUCCESS;
}

/* Unique: Y (flattened, or `?` along axis), indices, inverse_indices,
** counts (1-D i64). */
GiltStatus graph_infer_unique(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  GiltType *elem = graph_operand_elem(v, 0);
  int64_t inverse = GILT_DYNAMIC;
  if (gilt_dictionary_attr_lookup(v->attrs, "axis")) {
    int64_t a = 0;
    if (axis_of(v, &x, 0, &a))
      return GILT_FAILURE;
    if (x.ranked) {
      inverse = x.dims[a];
      x.dims[a] = GILT_DYNAMIC;
    }
    types[0] = graph_tensor_type(v->ctx, &x, elem);
  } else {
    /* The operand's element count, which graph_check_operand_shapes
    ** has seen fit int64. */
    if (x.ranked)
      gilt_dims_product(x.rank, x.dims, &inverse);
    types[0] = vector_type(v, GILT_DYNAMIC, elem);
  }
  for (size_t i = 1; i < v->num_results; i++)
    types[i] = vector_type(v, i == 2 ? inverse : GILT_DYNAMIC, i64_type(v));
  return GILT_SUCCESS;
}

/* Compress: `?` along axis, or 1-D `?` without one. */
GiltStatus graph_infer_compress(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  GiltType *elem = graph_operand_elem(v, 0);
  if (!gilt_dictionary_attr_lookup(v->attrs, "axis")) {
    types[0] = vector_type(v, GILT_DYNAMIC, elem);
    return GILT_SUCCESS;
  }
  int64_t a = 0;
  if (axis_of(v, &x, 0, &a))
    return GILT_FAILURE;
  if (x.ranked)
    x.dims[a] = GILT_DYNAMIC;
  types[0] = graph_tensor_type(v->ctx, &x, elem);
  return GILT_SUCCESS;
}
