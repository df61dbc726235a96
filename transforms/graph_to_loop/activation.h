/*
** activation.h - the scalar activation functions of elementwise.c, with
** their parameters given rather than read from the op's attributes: the
** recurrent ops (rnn.c) apply them to gates, with the alphas and betas of
** their `activation_alpha` and `activation_beta` lists.
**
** Each builds, at the insertion point, the ops computing one element of
** a float type from x and returns it; ONNX's semantics as in the
** elementwise ops (Relu keeps NaN, Softplus does not overflow).
*/
#ifndef GILT_TRANSFORMS_GRAPH_TO_LOOP_ACTIVATION_H
#define GILT_TRANSFORMS_GRAPH_TO_LOOP_ACTIVATION_H

#include "transforms/graph_to_loop/lowering.h"

GILT_INTERNAL GiltValue *activation_relu(Lower *l, GiltValue *x);
GILT_INTERNAL GiltValue *activation_sigmoid(Lower *l, GiltValue *x);
GILT_INTERNAL GiltValue *activation_softplus(Lower *l, GiltValue *x);
GILT_INTERNAL GiltValue *activation_softsign(Lower *l, GiltValue *x);
GILT_INTERNAL GiltValue *activation_leaky_relu(Lower *l, GiltValue *x,
                                               double alpha);
GILT_INTERNAL GiltValue *activation_thresholded_relu(Lower *l, GiltValue *x,
                                                     double alpha);
GILT_INTERNAL GiltValue *activation_elu(Lower *l, GiltValue *x, double alpha);
/* min(max(x, lo), hi) as Clip computes it; an infinite bound is none. */
GILT_INTERNAL GiltValue *activation_clip(Lower *l, GiltValue *x, double lo,
                                         double hi);
/* max(0, min(1, alpha * x + beta)) */
GILT_INTERNAL GiltValue *activation_hard_sigmoid(Lower *l, GiltValue *x,
                                                 double alpha, double beta);
/* x * hard_sigmoid(x) with alpha 1/6 and beta 0.5, as HardSwish. */
GILT_INTERNAL GiltValue *activation_hard_swish(Lower *l, GiltValue *x);
/* x * sigmoid(x) (SiLU, or Swish), as a Mul of x and its Sigmoid. */
GILT_INTERNAL GiltValue *activation_silu(Lower *l, GiltValue *x);
/* Gelu: its exact form on erf, or (tanh_form) its approximation on tanh. */
GILT_INTERNAL GiltValue *activation_gelu(Lower *l, GiltValue *x,
                                         bool tanh_form);

#endif /* GILT_TRANSFORMS_GRAPH_TO_LOOP_ACTIVATION_H */
