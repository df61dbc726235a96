/*
** broadcast.c - numpy multidirectional broadcasting of tensor shapes, as
** ONNX defines it for Add, Where, Expand and their kin.
**
** Shapes align at the right; a dimension of 1 stretches to the other;
** `?` stretches to a known size other than 1 (a `?` that turns out to be 1
** is the only case inference cannot decide, and it assumes the known size,
** as ONNX's own shape inference does); two `?` give `?`. An unranked
** operand makes the result unranked. Not here: unidirectional broadcasting
** of a single operand (callers check that with graph_broadcast_shapes and
** a comparison).
*/
#include "dialects/graph/graph.h"

#include <string.h>

bool graph_broadcast_shapes(GraphShape *a, const GraphShape *b)
{
  if (!a->ranked || !b->ranked) {
    a->ranked = false;
    a->rank = 0;
    return true;
  }
  size_t rank = a->rank > b->rank ? a->rank : b->rank;
  int64_t out[GRAPH_MAX_RANK];
  for (size_t i = 0; i < rank; i++) {
    /* i counts from the right. */
    int64_t x = i < a->rank ? a->dims[a->rank - 1 - i] : 1;
    int64_t y = i < b->rank ? b->dims[b->rank - 1 - i] : 1;
    int64_t r;
    if (x == 1)
      r = y;
    else if (y == 1)
      r = x;
    else if (x == GILT_DYNAMIC)
      r = y;
    else if (y == GILT_DYNAMIC || x == y)
      r = x;
    else
      return false;
    out[rank - 1 - i] = r;
  }
  a->rank = rank;
  memcpy(a->dims, out, rank * sizeof *out);
  return true;
}

GiltStatus graph_broadcast_operands(const GraphOpView *v, size_t first,
                                    size_t n, GraphShape *out)
{
  out->ranked = true;
  out->rank = 0;
  size_t seen = SIZE_MAX; /* the first operand taking part */
  for (size_t i = first; i < first + n && i < v->num_operands; i++) {
    if (!graph_has_operand(v, i))
      continue;
    GiltType *t = v->operands[i]->type;
    if (t->kind == GILT_TYPE_TENSOR && t->shaped.ranked &&
        t->shaped.rank > GRAPH_MAX_RANK)
      return graph_error(v, "operand '%s' has rank %zu, more than %d",
                         graph_operand_name(v, i), t->shaped.rank,
                         GRAPH_MAX_RANK);
    GraphShape s;
    graph_operand_shape(v, i, &s);
    if (graph_broadcast_shapes(out, &s)) {
      if (seen == SIZE_MAX)
        seen = i;
      continue;
    }
    /* Name the earlier operand that fixed the conflicting dimension. */
    size_t culprit = seen;
    for (size_t k = seen; k < i; k++) {
      GraphShape one;
      graph_operand_shape(v, k, &one);
      if (graph_has_operand(v, k) && !graph_broadcast_shapes(&one, &s)) {
        culprit = k;
        break;
      }
    }
    GiltStrBuf a, b;
    gilt_strbuf_init(&a, v->ctx);
    gilt_strbuf_init(&b, v->ctx);
    gilt_type_print(v->operands[culprit]->type, gilt_strbuf_callback, &a);
    gilt_type_print(t, gilt_strbuf_callback, &b);
    graph_error(v, "operands '%s' (%s) and '%s' (%s) are not "
                "broadcast-compatible",
                graph_operand_name(v, culprit), a.data,
                graph_operand_name(v, i), b.data);
    gilt_strbuf_free(&a);
    gilt_strbuf_free(&b);
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}
