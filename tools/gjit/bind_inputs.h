/*
** bind_inputs.h - gjit --fold-inputs (bind_inputs.c).
*/
#ifndef GJIT_BIND_INPUTS_H
#define GJIT_BIND_INPUTS_H

#include "gilt/tensor.h"

/* Replaces the arguments of the graph-level function `fn` by constants
** holding inputs[0..n) (borrowed; their types must be the arguments'
** exactly), leaving a function of no arguments. Prints why and fails
** otherwise. */
GiltStatus gjit_bind_inputs(GiltOp *fn, GiltTensor *const *inputs, size_t n);

#endif /* GJIT_BIND_INPUTS_H */
