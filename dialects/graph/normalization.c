/*
** normalization.c - type inference of the normalization ops:
** BatchNormalization and InstanceNormalization (per-channel parameters),
** LayerNormalization (statistics over the trailing axes),
** GroupNormalization (statistics per group of channels, parameters per
** channel).
**
** The result has the input's type; the per-channel operands must be 1-D
** with one entry per channel (dimension 1 of the input). LpNormalization,
** MeanVarianceNormalization and LRN keep the input's type and need no
** more than graph_infer_unary and graph_infer_axis_unary. Not here: the
** folding of BatchNormalization into a convolution (a graph pass).
*/
#include "dialects/graph/graph.h"

/* Operands [first, first+n) must be 1-D with c entries (c may be `?`). */
static GiltStatus check_per_channel(const GraphOpView *v, size_t first,
                                    size_t n, int64_t c)
{
  for (size_t i = first; i < first + n; i++) {
    if (!graph_has_operand(v, i))
      continue;
    GraphShape s;
    graph_operand_shape(v, i, &s);
    if (!s.ranked)
      continue;
    if (s.rank != 1)
      return graph_error(v, "operand '%s' must be 1-D, got rank %zu",
                         graph_operand_name(v, i), s.rank);
    if (c != GILT_DYNAMIC && s.dims[0] != GILT_DYNAMIC && s.dims[0] != c)
      return graph_error(v, "operand '%s' has %lld entries but the input "
                         "has %lld channels", graph_operand_name(v, i),
                         (long long)s.dims[0], (long long)c);
  }
  return GILT_SUCCESS;
}

/* BatchNormalization (Y, running_mean?, running_var?; in inference form
** also in a `layout` that blocks channels, graph-layout-nchwc's) and
** InstanceNormalization (Y). */
GiltStatus graph_infer_channel_norm(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape y, x;
  int64_t block;
  graph_operand_shape(v, 0, &y);
  x = y;
  if (graph_x_layout(v, &x, &block))
    return GILT_FAILURE;
  if (block > 1 && graph_dict_int(v->attrs, "training_mode", 0))
    return graph_error(v, "computes in training mode in layout NCHW only");
  if (x.ranked && x.rank < 2)
    return graph_error(v, "operand '%s' must have rank >= 2 (N x C x ...), "
                       "got rank %zu", graph_operand_name(v, 0), x.rank);
  int64_t c = x.ranked && x.dims[1] != GILT_DYNAMIC ? x.dims[1] * block
                                                    : GILT_DYNAMIC;
  if (check_per_channel(v, 1, v->num_operands - 1, c))
    return GILT_FAILURE;
  types[0] = graph_tensor_type(v->ctx, &y, graph_operand_elem(v, 0));
  GraphShape stat = {.ranked = true, .rank = 1, .dims = {c}};
  for (size_t i = 1; i < v->num_results && i < 3; i++) {
    GiltType *elem = graph_operand_elem(v, 3);
    types[i] = graph_tensor_type(v->ctx, &stat,
                                 elem ? elem : graph_operand_elem(v, 0));
  }
  return GILT_SUCCESS;
}

/* LayerNormalization: Y like X; Mean and InvStdDev keep X's leading dims
** up to `axis` and have 1 from there, in the `stash_type` element type. */
GiltStatus graph_infer_layer_norm(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  int64_t axis = graph_dict_int(v->attrs, "axis", -1), a = 0;
  if (x.ranked && !graph_normalize_axis(axis, x.rank, &a))
    return graph_error(v, "attribute 'axis' (%lld) is out of range for an "
                       "input of rank %zu", (long long)axis, x.rank);
  types[0] = graph_tensor_type(v->ctx, &x, graph_operand_elem(v, 0));
  if (v->num_results < 2)
    return GILT_SUCCESS;
  int64_t stash = graph_dict_int(v->attrs, "stash_type", 1);
  GiltType *elem = graph_onnx_elem_type(v->ctx, stash);
  if (!elem || elem->kind != GILT_TYPE_FLOAT)
    return graph_error(v, "attribute 'stash_type' (%lld) must name a float "
                       "type", (long long)stash);
  for (size_t d = (size_t)a; x.ranked && d < x.rank; d++)
    x.dims[d] = 1;
  for (size_t i = 1; i < v->num_results; i++)
    types[i] = graph_tensor_type(v->ctx, &x, elem);
  return GILT_SUCCESS;
}

/* GroupNormalization: Y like X, num_groups dividing the channels, scale
** and bias per channel, statistics in a float `stash_type`. */
GiltStatus graph_infer_group_norm(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  if (x.ranked && x.rank < 2)
    return graph_error(v, "operand '%s' must have rank >= 2 (N x C x ...), "
                       "got rank %zu", graph_operand_name(v, 0), x.rank);
  if (!gilt_dictionary_attr_lookup(v->attrs, "num_groups"))
    return graph_error(v, "requires attribute 'num_groups'");
  int64_t groups = graph_dict_int(v->attrs, "num_groups", 1);
  int64_t c = x.ranked ? x.dims[1] : GILT_DYNAMIC;
  if (groups <= 0)
    return graph_error(v, "attribute 'num_groups' (%lld) must be positive",
                       (long long)groups);
  if (c != GILT_DYNAMIC && c % groups)
    return graph_error(v, "attribute 'num_groups' (%lld) does not divide "
                       "the %lld channels", (long long)groups, (long long)c);
  int64_t stash = graph_dict_int(v->attrs, "stash_type", 1);
  if (stash != 1 && stash != 10 && stash != 11 && stash != 16)
    return graph_error(v, "attribute 'stash_type' (%lld) must be FLOAT (1), "
                       "FLOAT16 (10), DOUBLE (11) or BFLOAT16 (16)",
                       (long long)stash);
  if (check_per_channel(v, 1, 2, c))
    return GILT_FAILURE;
  types[0] = graph_tensor_type(v->ctx, &x, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}
