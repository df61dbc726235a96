/*
** loss.c - lowering of NegativeLogLikelihoodLoss and
** SoftmaxCrossEntropyLoss.
**
** Both pick, at every position (n, d1, ...) of the target, the input's
** entry of the target's class: input[n, target, d1, ...]. Its loss is
** -input * weight[target] (weight 1 without the operand), 0 where the
** target is ignore_index (when the attribute is there; such a target is
** never used as an index). reduction 'none' stores the losses (the
** target's shape); 'sum' adds them; 'mean', the default, divides the sum
** by the sum of the weights of the targets not ignored (their count
** without weights), which is NaN when every target is ignored. The sums
** are one reduction nest over the whole target (lowering.h), carrying the
** loss and the weight; floats narrower than f32 accumulate in f32.
** SoftmaxCrossEntropyLoss computes LogSoftmax of the scores along the
** classes (axis 1) first, into its second result when it has one.
*/
#include "transforms/graph_to_loop/lowering.h"

#include <string.h>

typedef struct Nll {
  GiltValue *input, *target, *weight, *out;
  size_t rank; /* the target's */
  GiltValue *dims[GRAPH_MAX_RANK];
  bool reduced[GRAPH_MAX_RANK];
  GiltType *ct;
  bool has_ignore;
  int64_t ignore;
} Nll;

/* The loss and the weight at target position idx. */
static void nll_term(Lower *l, Nll *s, GiltValue *const *idx,
                     GiltValue **loss, GiltValue **weight)
{
  GiltValue *t = lower_load(l, s->target, idx);
  GiltValue *ignored = NULL;
  if (s->has_ignore)
    ignored = lower_cmp(l, "eq", t,
                        lower_int_constant(l, gilt_value_get_type(t),
                                           s->ignore));
  GiltValue *c =
      lower_emit(l, LOOP_OP_INDEX_CAST, lower_index_type(l), 1, &t);
  GiltValue *zero = lower_constant(l, s->ct, 0);
  if (ignored)
    c = lower_select(l, ignored, lower_index(l, 0), c);
  GiltValue *in_idx[GRAPH_MAX_RANK + 1];
  in_idx[0] = idx[0];
  in_idx[1] = c;
  for (size_t d = 1; d < s->rank; d++)
    in_idx[d + 1] = idx[d];
  GiltValue *x = lower_convert(l, lower_load(l, s->input, in_idx), s->ct);
  GiltValue *w = lower_constant(l, s->ct, 1);
  if (s->weight) {
    w = lower_convert(l, lower_load(l, s->weight, &c), s->ct);
    x = lower_binary(l, LOOP_OP_MULF, x, w);
  }
  GiltValue *v = lower_unary(l, LOOP_OP_NEGF, x);
  if (ignored) {
    v = lower_select(l, ignored, zero, v);
    w = lower_select(l, ignored, zero, w);
  }
  *loss = v;
  *weight = w;
}

static void nll_none_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Nll *s = user;
  GiltValue *loss, *w;
  nll_term(l, s, ivs, &loss, &w);
  lower_store(l, lower_convert(l, loss, lower_result_elem(l, 0)), s->out, ivs);
}

static void nll_step(Lower *l, GiltValue *const *idx, GiltValue *const *acc,
                     GiltValue **next, void *user)
{
  Nll *s = user;
  GiltValue *loss, *w;
  nll_term(l, s, idx, &loss, &w);
  next[0] = lower_binary(l, LOOP_OP_ADDF, acc[0], loss);
  next[1] = lower_binary(l, LOOP_OP_ADDF, acc[1], w);
}

/* Checks what nll needs, before anything is built. */
static GiltStatus nll_check(Lower *l)
{
  const char *reduction = graph_attr_string(l->op, "reduction", "mean");
  if (strcmp(reduction, "none") && strcmp(reduction, "mean") &&
      strcmp(reduction, "sum"))
    return lower_error(l, "attribute 'reduction' is '%s'", reduction);
  size_t rank = gilt_value_get_type(lower_operand(l, 1))->shaped.rank;
  if (rank < 1 ||
      gilt_value_get_type(lower_operand(l, 0))->shaped.rank != rank + 1)
    return lower_error(l, "the target must have rank >= 1, one less than "
                          "the input");
  return GILT_SUCCESS;
}

/* The loss of `input` (N x C x d1 ...: log-probabilities) into a new
** buffer for result 0. */
static GiltValue *nll(Lower *l, GiltValue *input)
{
  const char *reduction = graph_attr_string(l->op, "reduction", "mean");
  Nll s;
  memset(&s, 0, sizeof s);
  s.input = input;
  s.target = lower_operand(l, 1);
  s.weight = lower_operand(l, 2);
  s.rank = gilt_value_get_type(s.target)->shaped.rank;
  lower_dims(l, s.target, s.dims);
  s.ct = lower_acc_type(l, gilt_value_get_type(input)->shaped.elem);
  s.has_ignore = gilt_op_get_attr(l->op, "ignore_index") != NULL;
  s.ignore = graph_attr_int(l->op, "ignore_index", 0);
  if (strcmp(reduction, "none") == 0) {
    s.out = lower_alloc_result(l, 0, s.dims);
    lower_parallel(l, s.rank, s.dims, nll_none_body, &s);
    return s.out;
  }
  s.out = lower_alloc_result(l, 0, NULL);
  for (size_t d = 0; d < s.rank; d++)
    s.reduced[d] = true;
  GiltValue *zero = lower_constant(l, s.ct, 0);
  GiltValue *inits[2] = {zero, zero}, *sums[2], *at[GRAPH_MAX_RANK] = {0};
  lower_reduce_loops(l, s.rank, s.dims, s.reduced, at, 2, inits, sums,
                     nll_step, &s);
  GiltValue *loss = sums[0];
  if (strcmp(reduction, "mean") == 0)
    loss = lower_binary(l, LOOP_OP_DIVF, loss, sums[1]);
  lower_store(l, lower_convert(l, loss, lower_result_elem(l, 0)), s.out,
              NULL);
  return s.out;
}

static GiltStatus lower_negative_log_likelihood_loss(Lower *l)
{
  if (nll_check(l))
    return GILT_FAILURE;
  GiltValue *out = nll(l, lower_operand(l, 0));
  return lower_replace(l, &out);
}

static GiltStatus lower_softmax_cross_entropy_loss(Lower *l)
{
  if (nll_check(l))
    return GILT_FAILURE;
  GiltValue *scores = lower_operand(l, 0);
  GiltType *t = gilt_value_get_type(scores);
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, scores, dims);
  GiltValue *log_prob = gilt_op_get_num_results(l->op) > 1
                            ? lower_alloc_result(l, 1, dims)
                            : lower_alloc(l, t, dims);
  lower_softmax_into(l, scores, 1, true, log_prob);
  GiltValue *results[2] = {nll(l, log_prob), log_prob};
  return lower_replace(l, results);
}

const GraphLoweringRow graph_lower_loss[] = {
    {GRAPH_OP_NEGATIVE_LOG_LIKELIHOOD_LOSS,
     {lower_negative_log_likelihood_loss}},
    {GRAPH_OP_SOFTMAX_CROSS_ENTROPY_LOSS, {lower_softmax_cross_entropy_loss}},
    {0, {NULL}},
};
