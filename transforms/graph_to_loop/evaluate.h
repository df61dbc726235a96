/*
** evaluate.h - constant evaluation of graph ops through their lowering
** and the loop interpreter (evaluate.c): what graph-fold-constants folds
** with, so that compile-time and run-time results agree bit for bit.
*/
#ifndef GILT_TRANSFORMS_GRAPH_TO_LOOP_EVALUATE_H
#define GILT_TRANSFORMS_GRAPH_TO_LOOP_EVALUATE_H

#include "ir/core.h"

/* Computes the results of graph op `op` from its operands' constants
** (consts[i]; NULL only for a `none` operand) into results[0..num
** results) as dense elements of the result types, which must be static.
** Reports nothing and changes no IR; fails when the op has no lowering,
** has regions or effects (is not pure), its lowering refuses the case,
** or the run fails. */
GILT_INTERNAL GiltStatus graph_to_loop_evaluate(GiltOp *op,
                                                GiltAttr *const *consts,
                                                GiltAttr **results);

#endif /* GILT_TRANSFORMS_GRAPH_TO_LOOP_EVALUATE_H */
