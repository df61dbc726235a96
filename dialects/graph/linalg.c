/*
** linalg.c - type inference of the contraction ops MatMul and Gemm.
**
** MatMul follows numpy.matmul: 1-D operands are promoted (a row vector on
** the left, a column on the right) and the promoted dimension dropped from
** the result; batch dimensions broadcast. Gemm is 2-D with optional
** transposes and a C that broadcasts one way to M x N. Not here: Conv
** (conv.c) and Einsum (not yet in the dialect).
*/
#include "dialects/graph/graph.h"

/* Names both operands and their contracting sizes. */
static GiltStatus report_contraction(const GraphOpView *v, size_t a,
                                     int64_t ka, size_t b, int64_t kb)
{
  return graph_error(v, "operands '%s' and '%s' have different contracting "
                     "dimensions (%lld and %lld)",
                     graph_operand_name(v, a), graph_operand_name(v, b),
                     (long long)ka, (long long)kb);
}

static bool dims_conflict(int64_t a, int64_t b)
{
  return a != GILT_DYNAMIC && b != GILT_DYNAMIC && a != b;
}

GiltStatus graph_infer_matmul(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape a, b;
  graph_operand_shape(v, 0, &a);
  graph_operand_shape(v, 1, &b);
  GiltType *elem = graph_operand_elem(v, 0);
  if (!a.ranked || !b.ranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  for (size_t i = 0; i < 2; i++)
    if ((i ? b : a).rank == 0)
      return graph_error(v, "operand '%s' must have rank >= 1",
                         graph_operand_name(v, i));
  bool a_vec = a.rank == 1, b_vec = b.rank == 1;
  if (a_vec) {
    a.dims[1] = a.dims[0];
    a.dims[0] = 1;
    a.rank = 2;
  }
  if (b_vec) {
    b.dims[1] = 1;
    b.rank = 2;
  }
  int64_t ka = a.dims[a.rank - 1], kb = b.dims[b.rank - 2];
  if (dims_conflict(ka, kb))
    return report_contraction(v, 0, ka, 1, kb);
  GraphShape batch = a, bb = b;
  batch.rank -= 2;
  bb.rank -= 2;
  if (!graph_broadcast_shapes(&batch, &bb))
    return graph_error(v, "operands 'A' and 'B' have batch dimensions "
                       "that do not broadcast");
  if (!a_vec)
    batch.dims[batch.rank++] = a.dims[a.rank - 2];
  if (!b_vec)
    batch.dims[batch.rank++] = b.dims[b.rank - 1];
  types[0] = graph_tensor_type(v->ctx, &batch, elem);
  return GILT_SUCCESS;
}

GiltStatus graph_infer_gemm(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape a, b;
  graph_operand_shape(v, 0, &a);
  graph_operand_shape(v, 1, &b);
  for (size_t i = 0; i < 2; i++) {
    const GraphShape *s = i ? &b : &a;
    if (s->ranked && s->rank != 2)
      return graph_error(v, "operand '%s' must be 2-D, got rank %zu",
                         graph_operand_name(v, i), s->rank);
  }
  bool ta = graph_dict_int(v->attrs, "transA", 0) != 0;
  bool tb = graph_dict_int(v->attrs, "transB", 0) != 0;
  int64_t m = a.ranked ? a.dims[ta] : GILT_DYNAMIC;
  int64_t ka = a.ranked ? a.dims[!ta] : GILT_DYNAMIC;
  int64_t kb = b.ranked ? b.dims[tb] : GILT_DYNAMIC;
  int64_t n = b.ranked ? b.dims[!tb] : GILT_DYNAMIC;
  if (dims_conflict(ka, kb))
    return report_contraction(v, 0, ka, 1, kb);
  GraphShape out = {.ranked = true, .rank = 2, .dims = {m, n}};
  if (graph_has_operand(v, 2)) {
    GraphShape c, grown = out;
    graph_operand_shape(v, 2, &c);
    if (c.ranked && (c.rank > 2 || !graph_broadcast_shapes(&grown, &c) ||
                     dims_conflict(grown.dims[0], m) ||
                     dims_conflict(grown.dims[1], n)))
      return graph_error(v, "operand 'C' does not broadcast to the %lld x "
                         "%lld result", (long long)m, (long long)n);
  }
  types[0] = graph_tensor_type(v->ctx, &out, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}
