/*
** gather.c - type inference of the indexing graph ops: Gather,
** GatherElements, GatherND, ScatterElements and ScatterND.
**
** Gathers take their shape from the indices (and, for Gather and GatherND,
** from the data dimensions the indices do not address); scatters keep the
** data's type. Index values are not checked: they are data. Not here: the
** ops that compute indices (ArgMax in reduce.c, TopK and NonZero, not yet
** in the dialect).
*/
#include "dialects/graph/graph.h"

#include <string.h>

static GiltStatus check_axis(const GraphOpView *v, const GraphShape *s,
                             int64_t *a)
{
  int64_t axis = graph_dict_int(v->attrs, "axis", 0);
  if (!graph_normalize_axis(axis, s->rank, a))
    return graph_error(v, "attribute 'axis' (%lld) is out of range for an "
                       "input of rank %zu", (long long)axis, s->rank);
  return GILT_SUCCESS;
}

GiltStatus graph_infer_gather(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape data, idx, out = {.ranked = true};
  graph_operand_shape(v, 0, &data);
  graph_operand_shape(v, 1, &idx);
  GiltType *elem = graph_operand_elem(v, 0);
  int64_t a;
  if (!data.ranked || !idx.ranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  if (check_axis(v, &data, &a))
    return GILT_FAILURE;
  out.rank = data.rank - 1 + idx.rank;
  if (out.rank > GRAPH_MAX_RANK)
    return graph_error(v, "the result would have rank %zu, more than %d",
                       out.rank, GRAPH_MAX_RANK);
  size_t k = 0;
  for (int64_t d = 0; d < a; d++)
    out.dims[k++] = data.dims[d];
  for (size_t d = 0; d < idx.rank; d++)
    out.dims[k++] = idx.dims[d];
  for (size_t d = (size_t)a + 1; d < data.rank; d++)
    out.dims[k++] = data.dims[d];
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* GatherElements: the indices' shape; same rank as data. */
GiltStatus graph_infer_gather_elements(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape data, idx;
  graph_operand_shape(v, 0, &data);
  graph_operand_shape(v, 1, &idx);
  int64_t a;
  if (data.ranked && idx.ranked) {
    if (data.rank != idx.rank)
      return graph_error(v, "operand 'indices' has rank %zu but operand "
                         "'data' has rank %zu", idx.rank, data.rank);
    if (check_axis(v, &data, &a))
      return GILT_FAILURE;
  }
  types[0] = graph_tensor_type(v->ctx, &idx, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}

/* GatherND: indices[:-1] + data[batch_dims + k:], k = indices[-1]. */
GiltStatus graph_infer_gather_nd(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape data, idx, out = {.ranked = true};
  graph_operand_shape(v, 0, &data);
  graph_operand_shape(v, 1, &idx);
  GiltType *elem = graph_operand_elem(v, 0);
  int64_t b = graph_dict_int(v->attrs, "batch_dims", 0);
  if (!data.ranked || !idx.ranked || !idx.rank ||
      idx.dims[idx.rank - 1] == GILT_DYNAMIC) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  int64_t k = idx.dims[idx.rank - 1];
  if (b < 0 || (size_t)b >= idx.rank || (size_t)b >= data.rank)
    return graph_error(v, "attribute 'batch_dims' (%lld) must be less than "
                       "the ranks of both operands", (long long)b);
  if (k < 1 || k > (int64_t)data.rank - b)
    return graph_error(v, "operand 'indices' addresses %lld dimensions but "
                       "operand 'data' has %zu after %lld batch dimensions",
                       (long long)k, data.rank - (size_t)b, (long long)b);
  for (size_t d = 0; d + 1 < idx.rank; d++)
    out.dims[out.rank++] = idx.dims[d];
  for (size_t d = (size_t)(b + k); d < data.rank; d++)
    out.dims[out.rank++] = data.dims[d];
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* ScatterElements, ScatterND: the data's type. */
GiltStatus graph_infer_scatter(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape data;
  graph_operand_shape(v, 0, &data);
  const char *red = graph_dict_string(v->attrs, "reduction", "none");
  static const char *const ok[] = {"none", "add", "mul", "max", "min"};
  bool found = false;
  for (size_t i = 0; i < 5; i++)
    found |= !strcmp(red, ok[i]);
  if (!found)
    return graph_error(v, "attribute 'reduction' is '%s', expected none, "
                       "add, mul, max or min", red);
  types[0] = graph_tensor_type(v->ctx, &data, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}
