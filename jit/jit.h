/*
** jit.h - the JIT's internal entry points, below gilt/jit.h: a JIT module
** built from LLVM modules directly, with its entries declared one by one.
** gilt_jit_compile is these steps applied to a translated builtin.module;
** the unit tests use them to run modules built with LLVM's C API.
*/
#ifndef GILT_JIT_JIT_H
#define GILT_JIT_JIT_H

#include <llvm-c/Core.h>

#include "dialects/llvm/translate.h"
#include "gilt/jit.h"
#include "ir/support/alloc.h"

/* An empty JIT module for this host with opts' threads, opt level and
** symbols (opts may be NULL), reporting at loc (its context must outlive
** the module). NULL after reporting. */
GILT_INTERNAL GiltJitModule *jit_module_create(GiltLocation *loc,
                                               const GiltJitOptions *opts);
/* The LLVMContext modules added to jm must be built in (borrowed); NULL
** after reporting when the JIT cannot be made. */
GILT_INTERNAL LLVMContextRef jit_module_get_llvm_context(GiltJitModule *jm);
/* Optimizes m and adds it to jm. Consumes m, also on failure. */
GILT_INTERNAL GiltStatus jit_module_add_llvm(GiltJitModule *jm,
                                             LLVMModuleRef m);
/* Adds an object file for this host (gilt_llvm_emit's, or a compile
** cache entry's) to jm, linked by gilt itself where it can
** (object_link.h), so without starting LLVM; data is copied. */
GILT_INTERNAL GiltStatus jit_module_add_object(GiltJitModule *jm,
                                               const void *data, size_t size);
/* Defines the symbols of n linked weights (translate.h) for the code of
** jm: at their own bytes where these are aligned, else at aligned copies
** jm owns. Bytes not copied are borrowed and must outlive jm. */
GILT_INTERNAL GiltStatus jit_module_define_weights(
    GiltJitModule *jm, size_t n, const LlvmLinkedWeight *weights);
/* Makes the function `name` of the added code an entry of loop-level
** type fn_type, reporting at loc when it is called wrongly. Compiles it
** now: reports when it does not compile or link, or its type has no form
** in jit/abi.h. */
GILT_INTERNAL GiltStatus jit_module_add_entry(GiltJitModule *jm,
                                              const char *name,
                                              GiltType *fn_type,
                                              GiltLocation *loc);

/* The CUDA session of jm (gpu/cuda.h), NULL until a call of a module
** compiled for CUDA created it. Borrowed. */
GILT_INTERNAL struct CudaSession *jit_module_get_cuda(GiltJitModule *jm);

#endif /* GILT_JIT_JIT_H */
