/*
** gilt/interpreter.h - the reference interpreter of the loop dialect: it
** runs a function of a module lowered to the loop level (arguments and
** results are memrefs, indices and scalars) on host tensors. It is the
** single reference for what compiled code must compute: gjit --interpret
** runs models with it and graph-fold-constants folds through it.
**
** Every op computes in its own element type: f32 arithmetic is done in
** f32, f16 and bf16 results are rounded to their type as stored, integers
** wrap at their width. An access outside a buffer, a division by zero of
** integers or a malformed op is reported at the op's location, and the
** call fails.
*/
#ifndef GILT_INTERPRETER_H
#define GILT_INTERPRETER_H

#include "gilt/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the func.func named `function` of `module` (a builtin.module at
** the loop level). inputs[i] (borrowed) is argument i: a memref argument
** takes a tensor of its element type and shape (a dynamic dimension takes
** any size), a scalar or index argument a tensor of rank 0, a vector
** argument a tensor of rank 1 of its lanes. The elements of a memref
** argument are the input's own: a function that stores into it writes
** the caller's tensor. On success *outputs gets a new array (free()) of
** `*num_outputs` new tensors, one per result, owned by the caller: a
** memref result is copied out whatever buffer it is (an allocation, a
** view, an argument, a global), so no output aliases an input. Every
** buffer the call allocated is freed before it returns.
**
** The module is verified first (gilt_op_verify), so any IR it accepts is
** run without crashing. On failure reports through the module's context
** at the op at fault, and leaves the outputs NULL and 0: the IR does not
** verify, an op outside the loop dialect and func.call/func.return, a
** wrong number of inputs, a shape or element type that does not match,
** or an error while running (an access outside a buffer, an integer
** division by zero or overflow, a false loop.assert, a step that is not
** positive, a reshape whose counts differ, calls nested deeper than
** 1000, a use of a buffer after its loop.dealloc). The run stops at the
** first error. A buffer loop.dealloc frees keeps its memory until the
** call returns, so that no later buffer takes its address. */
GILT_API GiltStatus gilt_interpret_function(GiltOp *module,
                                            const char *function,
                                            size_t num_inputs,
                                            GiltTensor *const *inputs,
                                            size_t *num_outputs,
                                            GiltTensor ***outputs);

#ifdef __cplusplus
}
#endif

#endif /* GILT_INTERPRETER_H */
