/*
** elementwise.c - type inference of the elementwise and broadcasting graph
** ops (elementwise.def).
**
** Unary ops keep operand 0's shape; broadcasting ops combine all their
** operands' shapes (ONNX multidirectional broadcasting). Both check the
** operand categories of the row and take the result element type from the
** row's rule. Not here: their folding (fold_hook.c, eval.c).
*/
#include "dialects/graph/graph.h"

#include <string.h>

static GiltStatus infer_with_shape(const GraphOpView *v, const GraphShape *s,
                                   GiltType **types)
{
  GiltType *elem = graph_result_elem(v);
  if (!elem)
    return GILT_FAILURE;
  types[0] = graph_tensor_type(v->ctx, s, elem);
  return GILT_SUCCESS;
}

GiltStatus graph_infer_unary(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape s;
  graph_operand_shape(v, 0, &s);
  /* Clip's bounds are scalars. */
  for (size_t i = 1; i < v->num_operands; i++) {
    GraphShape b;
    graph_operand_shape(v, i, &b);
    if (v->desc->result >= 0 && (size_t)v->desc->result == i)
      continue; /* CastLike's target_type: any shape */
    if (graph_has_operand(v, i) && b.ranked && b.rank != 0)
      return graph_error(v, "operand '%s' must be a scalar (rank 0), got "
                         "rank %zu", graph_operand_name(v, i), b.rank);
  }
  return infer_with_shape(v, &s, types);
}

GiltStatus graph_infer_broadcast(const GraphOpView *v, GiltType **types)
{
  if (!v->num_operands)
    return graph_error(v, "needs at least one operand");
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape s;
  if (graph_broadcast_operands(v, 0, v->num_operands, &s))
    return GILT_FAILURE;
  return infer_with_shape(v, &s, types);
}

/* Dropout: output like data; the optional mask is i1 of the same shape. */
GiltStatus graph_infer_dropout(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  for (size_t i = 1; i < v->num_operands; i++) {
    GraphShape b;
    graph_operand_shape(v, i, &b);
    if (graph_has_operand(v, i) && b.ranked && b.rank != 0)
      return graph_error(v, "operand '%s' must be a scalar (rank 0), got "
                         "rank %zu", graph_operand_name(v, i), b.rank);
  }
  GraphShape s;
  graph_operand_shape(v, 0, &s);
  if (infer_with_shape(v, &s, types))
    return GILT_FAILURE;
  if (v->num_results > 1)
    types[1] = graph_tensor_type(
        v->ctx, &s, gilt_integer_type_get(v->ctx, 1, GILT_SIGNLESS));
  return GILT_SUCCESS;
}

/* Ops whose result is operand 0's type whatever their other operands
** hold (ReverseSequence's lengths). */
GiltStatus graph_infer_same(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape s;
  graph_operand_shape(v, 0, &s);
  return infer_with_shape(v, &s, types);
}

/* Gelu: a unary op whose `approximate` is "none" (erf) or "tanh". */
GiltStatus graph_infer_gelu(const GraphOpView *v, GiltType **types)
{
  const char *mode = graph_dict_string(v->attrs, "approximate", "none");
  if (strcmp(mode, "none") && strcmp(mode, "tanh"))
    return graph_error(v, "attribute 'approximate' must be \"none\" or "
                       "\"tanh\", got \"%s\"", mode);
  return graph_infer_unary(v, types);
}
