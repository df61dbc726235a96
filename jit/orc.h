/*
** orc.h - one ORC LLJIT instance for the host CPU, with the runtime
** (jit/abi.h's functions, the libm functions compiled code calls) defined
** in it: the machine-code half of the JIT, below jit/jit.c. Internal to
** jit/; this is the one place that includes LLVM's ORC headers.
**
** Every function that can fail reports at `loc` (an LLVMErrorRef's
** message becomes the diagnostic's) and returns failure or NULL.
*/
#ifndef GILT_JIT_ORC_H
#define GILT_JIT_ORC_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "ir/support/alloc.h"

typedef struct JitOrc JitOrc;

/* An LLJIT for the host's triple, CPU name and features, generating code
** at opt_level (0 to 3), with the runtime symbols defined. */
GILT_INTERNAL JitOrc *jit_orc_create(GiltLocation *loc, unsigned opt_level);
/* Frees the JIT, its code and data; NULL is ignored. An error LLVM
** reports while tearing down is reported at loc. */
GILT_INTERNAL void jit_orc_destroy(JitOrc *orc, GiltLocation *loc);

/* The LLVMContext modules for this JIT must be created in (borrowed: it
** lives as long as the JIT). */
GILT_INTERNAL LLVMContextRef jit_orc_get_llvm_context(JitOrc *orc);
/* The target machine's triple, CPU and features, and its data layout
** (borrowed), for a caller that wants to print or cache what it runs. */
GILT_INTERNAL LLVMTargetMachineRef jit_orc_get_target_machine(JitOrc *orc);

/* Verifies m, sets its triple and data layout to the host's, runs LLVM's
** default<On> pipeline on it and adds it to the JIT, which compiles it
** when a symbol of it is first looked up. Consumes m, also on failure. */
GILT_INTERNAL GiltStatus jit_orc_add_module(JitOrc *orc, LLVMModuleRef m,
                                            GiltLocation *loc);
/* A new target machine like the one the JIT compiles with (the caller
** disposes of it), for jit_orc_compile_object on another thread. */
GILT_INTERNAL LLVMTargetMachineRef jit_orc_create_machine(JitOrc *orc,
                                                          GiltLocation *loc);
/* The calling thread's CPU seconds in each step of compiling a module. */
typedef struct JitCompileTimes {
  double optimize, codegen;
} JitCompileTimes;
/* Optimizes m as jit_orc_add_module does and compiles it with `tm` (one
** of jit_orc_create_machine's) into an object for jit_orc_add_object,
** the CPU time of each step into *times. Threads may call it at once,
** each with its own machine and a module in a context of its own: it
** reports nothing through gilt, but returns NULL with *error set to a
** message (free()) on failure. Consumes m. */
GILT_INTERNAL LLVMMemoryBufferRef jit_orc_compile_object(
    const JitOrc *orc, LLVMTargetMachineRef tm, LLVMModuleRef m,
    JitCompileTimes *times, char **error);
/* Adds a relocatable object file for this host (an ELF .o as
** gilt_llvm_emit writes it) to the JIT, which links it when a symbol of it
** is first looked up. data[0..size) is copied: the caller keeps it. */
GILT_INTERNAL GiltStatus jit_orc_add_object(JitOrc *orc, const void *data,
                                            size_t size, GiltLocation *loc);
/* Defines names[i] at addresses[i] for the code added to this JIT (the
** weights of a model, say). A name already defined is an error. */
GILT_INTERNAL GiltStatus jit_orc_define_symbols(JitOrc *orc, size_t n,
                                                const char *const *names,
                                                void *const *addresses,
                                                GiltLocation *loc);
/* The address of symbol `name`, compiling what it needs first; NULL after
** reporting when it is not defined or does not compile or link. */
GILT_INTERNAL void *jit_orc_lookup(JitOrc *orc, const char *name,
                                   GiltLocation *loc);

#endif /* GILT_JIT_ORC_H */
