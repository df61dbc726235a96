/*
** linalg.c - type inference of the contraction ops MatMul and Gemm.
**
** MatMul follows numpy.matmul: 1-D operands are promoted (a row vector on
** the left, a column on the right) and the promoted dimension dropped from
** the result; batch dimensions broadcast. Its bias C and residual Z,
** when graph-fuse-epilogues has given it them, are [N] and the result's
** shape. Gemm is 2-D with optional transposes, a C that broadcasts one
** way to M x N, and the residual Z that graph-fuse-epilogues may give
** it. Not here: Conv (conv.c) and Einsum (not yet in the dialect).
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

/* The residual Z (operand 3) that graph-fuse-epilogues gives a MatMul or
** Gemm, when present: of the result's shape y. */
static GiltStatus check_residual(const GraphOpView *v, const GraphShape *y)
{
  if (!graph_has_operand(v, 3))
    return GILT_SUCCESS;
  GraphShape r;
  graph_operand_shape(v, 3, &r);
  bool same = !r.ranked || r.rank == y->rank;
  for (size_t d = 0; same && r.ranked && d < y->rank; d++)
    same = !dims_conflict(r.dims[d], y->dims[d]);
  return same ? GILT_SUCCESS
              : graph_error(v, "operand 'Z' must have the result's shape");
}

/* MatMul's fused bias C, [N], and residual Z, of the result's shape y,
** when present (graph-fuse-epilogues); both want A and B matrices (or
** batches of them), not vectors. */
static GiltStatus check_epilogue_operands(const GraphOpView *v,
                                          const GraphShape *y, bool vectors)
{
  bool c = graph_has_operand(v, 2), z = graph_has_operand(v, 3);
  if ((c || z) && vectors)
    return graph_error(v, "operands 'C' and 'Z' need operands 'A' and 'B' "
                       "of rank 2 or more");
  if (c) {
    GraphShape bias;
    graph_operand_shape(v, 2, &bias);
    if (bias.ranked && (bias.rank != 1 ||
                        dims_conflict(bias.dims[0], y->dims[y->rank - 1])))
      return graph_error(v, "operand 'C' must have one value per column "
                         "of the result ([N])");
  }
  return check_residual(v, y);
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
  if (check_epilogue_operands(v, &batch, a_vec || b_vec))
    return GILT_FAILURE;
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
  if (check_residual(v, &out))
    return GILT_FAILURE;
  types[0] = graph_tensor_type(v->ctx, &out, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}
