/*
** loss.c - type inference of the loss graph ops NegativeLogLikelihoodLoss
** and SoftmaxCrossEntropyLoss.
**
** With reduction 'none' the loss has the target's shape (N x d1 x ...);
** with 'mean' (the default) or 'sum' it is a scalar. SoftmaxCrossEntropy's
** optional log_prob has the scores' type. Not here: the training-domain
** ops (ai.onnx.preview.training), which gilt does not support.
*/
#include "dialects/graph/graph.h"

#include <string.h>

GiltStatus graph_infer_loss(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  const char *red = graph_dict_string(v->attrs, "reduction", "mean");
  if (strcmp(red, "none") && strcmp(red, "sum") && strcmp(red, "mean"))
    return graph_error(v, "attribute 'reduction' is '%s', expected none, "
                       "sum or mean", red);
  GraphShape in, target, out = {.ranked = true};
  graph_operand_shape(v, 0, &in);
  graph_operand_shape(v, 1, &target);
  if (in.ranked && target.ranked && in.rank != target.rank + 1)
    return graph_error(v, "operand '%s' has rank %zu but operand '%s' has "
                       "rank %zu (expected one less)",
                       graph_operand_name(v, 1), target.rank,
                       graph_operand_name(v, 0), in.rank);
  GiltType *elem = graph_operand_elem(v, 0);
  types[0] = graph_tensor_type(v->ctx, strcmp(red, "none") ? &out : &target,
                               elem);
  if (v->num_results > 1)
    types[1] = graph_tensor_type(v->ctx, &in, elem);
  return GILT_SUCCESS;
}
