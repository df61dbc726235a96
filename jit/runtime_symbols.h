/*
** runtime_symbols.h - what compiled code may call besides its own
** functions: the runtime (abi.h), the CUDA runtime (gpu/cuda.h), libm's
** functions, the conversion to bf16 LLVM calls where the CPU has no
** instruction for it, and the memory functions. Both linkers of compiled
** code define them from this one table.
*/
#ifndef GILT_JIT_RUNTIME_SYMBOLS_H
#define GILT_JIT_RUNTIME_SYMBOLS_H

#include <stddef.h>

#include "ir/support/alloc.h"

/* How many there are. */
GILT_INTERNAL size_t jit_runtime_symbol_count(void);
/* The name of the i-th (below jit_runtime_symbol_count()), and its
** address in *address. */
GILT_INTERNAL const char *jit_runtime_symbol_at(size_t i, void **address);
/* The address of the one named `name`, NULL when there is none. */
GILT_INTERNAL void *jit_runtime_symbol(const char *name);

#endif /* GILT_JIT_RUNTIME_SYMBOLS_H */
