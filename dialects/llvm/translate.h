/*
** translate.h - the llvm dialect to LLVM IR, and the target machine that
** optimizes and compiles it: the internal contract between translate.c,
** target.c, emit.c (gilt/llvm.h, the ahead-of-time path) and the JIT
** (jit/), which hands the translated module to ORC.
**
** Unlike gilt/llvm.h this header speaks LLVM's C types, so only library
** code includes it. Every function reports failure through the gilt
** context (each LLVMErrorRef and verifier message becomes a diagnostic)
** and never prints.
*/
#ifndef GILT_DIALECTS_LLVM_TRANSLATE_H
#define GILT_DIALECTS_LLVM_TRANSLATE_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "gilt/llvm.h"
#include "ir/support/alloc.h"

/* Translates `module`, a verified builtin.module of llvm.func and
** llvm.global ops, into a new LLVM module in `llctx` and verifies it.
** `tm` (may be NULL) sets the module's triple and data layout before any
** instruction is built, so that the default alignments of loads, stores
** and allocas are the target's; a JIT passes the machine it compiles for.
** Returns a module the caller owns (LLVMDisposeModule), or NULL after
** reporting: an op that has no translation (at its location), or what
** LLVM's verifier found (at the module's location). */
GILT_INTERNAL LLVMModuleRef llvm_translate_module(GiltOp *module,
                                                  LLVMContextRef llctx,
                                                  LLVMTargetMachineRef tm);

/* Initializes LLVM's native target (with its assembly printer and
** parser) and NVPTX, once per process; safe to call from several
** threads. llvm_target_machine_create calls it; a JIT that makes its own
** machine calls it first. */
GILT_INTERNAL void llvm_initialize_targets(void);

/* A target machine for `opts` (NULL fields: the host's triple, CPU and
** features; with another triple, its generic CPU), PIC, at
** opts->opt_level. The caller owns it
** (LLVMDisposeTargetMachine). NULL after reporting at `loc` (an unknown
** triple, an opt_level above 3). */
GILT_INTERNAL LLVMTargetMachineRef llvm_target_machine_create(
    GiltLocation *loc, const GiltLlvmTargetOptions *opts);

/* Sets `m`'s triple and data layout to `tm`'s, and marks each function
** defined in `m` with the machine's CPU and features (as clang does), so
** that the module says what it was optimized for wherever it goes. */
GILT_INTERNAL void llvm_module_set_target(LLVMModuleRef m,
                                          LLVMTargetMachineRef tm);

/* Runs LLVM's `default<O<opt_level>>` pipeline on `m` for `tm`; nothing
** at level 0. Reports at `loc` what the pass builder rejects. */
GILT_INTERNAL GiltStatus llvm_optimize_module(GiltLocation *loc,
                                              LLVMModuleRef m,
                                              LLVMTargetMachineRef tm,
                                              unsigned opt_level);

#endif /* GILT_DIALECTS_LLVM_TRANSLATE_H */
