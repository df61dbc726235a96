/*
** control.c - type inference of the control-flow graph ops If, Loop and
** Scan, whose ONNX subgraphs are regions of one block ending in
** graph.yield (the block arguments are the subgraph's inputs).
**
**   If    results: the branches' yields, merged (`?` where they differ)
**   Loop  results: the loop-carried values (v_initial's types, `?` where
**         the body's yield differs), then the scan outputs: each body
**         yield after the carried ones, stacked along a new leading
**         dimension of unknown size
**   Scan  results: the final states (likewise), then the scan outputs
**         stacked along scan_output_axes (default 0), as long as the
**         scanned axis of the first scan input
**
** Not here: checking the body's arguments against the operands beyond
** their count (the lowering does), and sequence-typed loop values.
*/
#include "dialects/graph/graph.h"

/* The graph.yield ending region r, or NULL after reporting. */
static GiltOp *yield_of(const GraphOpView *v, size_t r, const char *what)
{
  GiltBlock *b = r < v->num_regions ? v->regions[r]->first : NULL;
  GiltOp *y = b ? b->last : NULL;
  if (!graph_op_is(y, GRAPH_OP_YIELD)) {
    graph_error(v, "region '%s' must end with graph.yield", what);
    return NULL;
  }
  return y;
}

/* The type both a and b can describe (`?` where dims differ). */
static GiltType *merge_types(GiltContext *ctx, GiltType *a, GiltType *b)
{
  if (a == b)
    return a;
  if (a->kind != GILT_TYPE_TENSOR || b->kind != GILT_TYPE_TENSOR ||
      a->shaped.elem != b->shaped.elem)
    return NULL;
  if (!a->shaped.ranked || !b->shaped.ranked ||
      a->shaped.rank != b->shaped.rank || a->shaped.rank > GRAPH_MAX_RANK)
    return gilt_unranked_tensor_type_get(ctx, a->shaped.elem);
  GraphShape s = {.ranked = true, .rank = a->shaped.rank};
  for (size_t d = 0; d < s.rank; d++)
    s.dims[d] = a->shaped.shape[d] == b->shaped.shape[d] ? a->shaped.shape[d]
                                                         : GILT_DYNAMIC;
  return graph_tensor_type(ctx, &s, a->shaped.elem);
}

GiltStatus graph_infer_if(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GiltOp *t = yield_of(v, 0, "then_branch");
  GiltOp *e = t ? yield_of(v, 1, "else_branch") : NULL;
  if (!e)
    return GILT_FAILURE;
  if (t->num_operands != e->num_operands)
    return graph_error(v, "region 'then_branch' yields %u values but region "
                       "'else_branch' yields %u", t->num_operands,
                       e->num_operands);
  if (v->num_results > t->num_operands)
    return graph_error(v, "has %zu results but its branches yield %u",
                       v->num_results, t->num_operands);
  for (size_t i = 0; i < v->num_results; i++) {
    types[i] = merge_types(v->ctx, t->operands[i].value->type,
                           e->operands[i].value->type);
    if (!types[i])
      return graph_error(v, "the branches yield values of different element "
                         "types at position %zu", i);
  }
  return GILT_SUCCESS;
}

/* Stacks `t` along a new dimension of size n at `axis`. */
static GiltType *stacked(const GraphOpView *v, GiltType *t, int64_t n,
                         int64_t axis)
{
  if (t->kind != GILT_TYPE_TENSOR)
    return t;
  if (!t->shaped.ranked || t->shaped.rank + 1 > GRAPH_MAX_RANK)
    return gilt_unranked_tensor_type_get(v->ctx, t->shaped.elem);
  GraphShape s = {.ranked = true, .rank = t->shaped.rank + 1};
  int64_t a;
  if (!graph_normalize_axis(axis, s.rank, &a))
    a = 0;
  for (size_t d = 0, k = 0; d < s.rank; d++)
    s.dims[d] = (int64_t)d == a ? n : t->shaped.shape[k++];
  return graph_tensor_type(v->ctx, &s, t->shaped.elem);
}

/* A loop-carried value or a Scan state may change shape from one
** iteration to the next (ONNX's Loop allows it, and its shape inference
** keeps only the dims the initial value and the body's yield agree on).
** A yield of another element type is left to the lowering, as the body's
** arguments are. */
static GiltType *carried(const GraphOpView *v, GiltType *initial,
                         GiltType *yielded)
{
  GiltType *t = merge_types(v->ctx, initial, yielded);
  return t ? t : initial;
}

/* Loop(M, cond, v_initial...): body (iter, cond, v...) yields
** (cond, v..., scan...). */
GiltStatus graph_infer_loop(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  if (v->num_operands < 2)
    return graph_error(v, "needs operands 'M' and 'cond' (graph.none when "
                       "absent)");
  GiltOp *y = yield_of(v, 0, "body");
  if (!y)
    return GILT_FAILURE;
  size_t num_carried = v->num_operands - 2;
  if (y->num_operands < num_carried + 1)
    return graph_error(v, "region 'body' yields %u values, fewer than the "
                       "condition and %zu loop-carried values",
                       y->num_operands, num_carried);
  size_t scans = y->num_operands - 1 - num_carried;
  if (v->num_results > num_carried + scans)
    return graph_error(v, "has %zu results but only %zu loop-carried and "
                       "scan values", v->num_results, num_carried + scans);
  for (size_t i = 0; i < v->num_results; i++)
    types[i] = i < num_carried
                   ? carried(v, v->operands[2 + i]->type,
                             y->operands[1 + i].value->type)
                   : stacked(v, y->operands[1 + i].value->type, GILT_DYNAMIC,
                             0);
  return GILT_SUCCESS;
}

/* Scan(states..., scan inputs...): body (states..., slices...) yields
** (states..., scan output slices...). */
GiltStatus graph_infer_scan(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  int64_t m = graph_dict_int(v->attrs, "num_scan_inputs", 0);
  if (m < 1 || (size_t)m > v->num_operands)
    return graph_error(v, "attribute 'num_scan_inputs' (%lld) must be in "
                       "[1, %zu]", (long long)m, v->num_operands);
  GiltOp *y = yield_of(v, 0, "body");
  if (!y)
    return GILT_FAILURE;
  size_t states = v->num_operands - (size_t)m;
  if (y->num_operands < states)
    return graph_error(v, "region 'body' yields %u values, fewer than the "
                       "%zu states", y->num_operands, states);
  int64_t in_axes[GRAPH_MAX_RANK] = {0}, out_axes[GRAPH_MAX_RANK] = {0};
  size_t n;
  graph_dict_ints(v->attrs, "scan_input_axes", in_axes, GRAPH_MAX_RANK, &n);
  graph_dict_ints(v->attrs, "scan_output_axes", out_axes, GRAPH_MAX_RANK,
                  &n);
  GraphShape first;
  graph_operand_shape(v, states, &first);
  int64_t len = GILT_DYNAMIC, a;
  if (first.ranked && graph_normalize_axis(in_axes[0], first.rank, &a))
    len = first.dims[a];
  for (size_t i = 0; i < v->num_results && i < y->num_operands; i++) {
    size_t k = i - states;
    types[i] = i < states ? carried(v, v->operands[i]->type,
                                    y->operands[i].value->type)
                          : stacked(v, y->operands[i].value->type, len,
                                    k < GRAPH_MAX_RANK ? out_axes[k] : 0);
  }
  if (v->num_results > y->num_operands)
    return graph_error(v, "has %zu results but region 'body' yields %u",
                       v->num_results, y->num_operands);
  return GILT_SUCCESS;
}
