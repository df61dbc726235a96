/*
** call.h - calling a compiled entry from host tensors, through libffi,
** in the convention of jit/abi.h. Internal to jit/; the one place that
** includes ffi.h.
*/
#ifndef GILT_JIT_CALL_H
#define GILT_JIT_CALL_H

#include "gilt/tensor.h"
#include "ir/support/alloc.h"

typedef struct JitCall JitCall;

/* The call frame of an entry whose loop-level type is fn_type (a
** function type of memrefs, indices, integers and floats), built once.
** NULL after reporting at loc when a type has no form in abi.h (a vector,
** a memref of rank above GILT_MAX_RANK, an integer wider than 64 bits). */
GILT_INTERNAL JitCall *jit_call_create(GiltType *fn_type, GiltLocation *loc);
/* NULL is ignored. */
GILT_INTERNAL void jit_call_destroy(JitCall *call);

/* Checks the inputs as the interpreter does (loop_check_inputs), calls
** `fn` with them and makes the results tensors, exactly as
** gilt_interpret_function's contract says: inputs borrowed (a memref
** argument's descriptor points at the tensor's elements), on success
** *outputs a new array (free()) of new tensors, on failure NULL and 0
** after reporting at loc, with the runtime's message when the compiled
** code failed. Results the callee allocated are freed either way. */
GILT_INTERNAL GiltStatus jit_call_run(JitCall *call, void *fn,
                                      GiltLocation *loc, size_t num_inputs,
                                      GiltTensor *const *inputs,
                                      size_t *num_outputs,
                                      GiltTensor ***outputs);

#endif /* GILT_JIT_CALL_H */
