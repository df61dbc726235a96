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
#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>

#include "gilt/llvm.h"
#include "ir/support/alloc.h"
#include "ir/support/ptr_map.h"

/* Where the bytes of a module's large weights go. Embedded, they are the
** initializers of their globals and so part of the object file (what an
** ahead-of-time build wants: one self-contained .o). Linked, their globals
** are only declared, and whoever loads the code defines each symbol at
** the weight's bytes: a JIT points them at the model's own memory, so the
** weights are not copied into LLVM constants and again into the object. */
typedef enum LlvmWeights { LLVM_WEIGHTS_EMBEDDED, LLVM_WEIGHTS_LINKED } LlvmWeights;

/* The alignment a linked weight's address must have: what the generated
** code may assume of it (loop-to-llvm gives weights 64, a cache line and
** an AVX-512 register). */
#define LLVM_LINKED_WEIGHT_ALIGN 64

/* A weight that LLVM_WEIGHTS_LINKED leaves to the loader: its global's
** symbol and its bytes (borrowed from the module's attribute, so valid as
** long as the module's context; any alignment). */
typedef struct LlvmLinkedWeight {
  const char *symbol;
  const void *data;
  size_t nbytes;
} LlvmLinkedWeight;

/* Whether `global` (an llvm.global) is one LLVM_WEIGHTS_LINKED declares
** rather than defines: a dense, non-splat array of more than a few
** elements. Small weights stay constants that LLVM can fold. */
GILT_INTERNAL bool llvm_global_is_linked_weight(GiltOp *global);

/* The weights of `module` that LLVM_WEIGHTS_LINKED declares, in module
** order, as a new array (free()) of *n entries. Fails after reporting
** only when out of memory. */
GILT_INTERNAL GiltStatus llvm_collect_linked_weights(GiltOp *module,
                                                     size_t *n,
                                                     LlvmLinkedWeight **w);

/* Translates `module`, a verified builtin.module of llvm.func and
** llvm.global ops, into a new LLVM module in `llctx` and verifies it,
** with its weights placed as `weights` says.
** `tm` (may be NULL) sets the module's triple and data layout before any
** instruction is built, so that the default alignments of loads, stores
** and allocas are the target's; a JIT passes the machine it compiles for.
** Returns a module the caller owns (LLVMDisposeModule), or NULL after
** reporting: an op that has no translation (at its location), or what
** LLVM's verifier found (at the module's location). */
GILT_INTERNAL LLVMModuleRef llvm_translate_module(GiltOp *module,
                                                  LLVMContextRef llctx,
                                                  LLVMTargetMachineRef tm,
                                                  LlvmWeights weights);

/* One part of a module split to be compiled in parallel (jit/split.c):
** `part_of` maps each llvm.func that has a body to the number of its
** part; part `part` defines the bodies mapped to it and declares every
** other function. So that the parts link into one program, a split
** makes every function public, and a global that is not a private
** constant is defined by part 0 alone (public) and declared by the
** others; a private constant is defined, internal, in every part (LLVM
** drops the copies a part does not use), so that loads of it still fold
** to its values. */
typedef struct LlvmSplit {
  const GiltPtrMap *part_of;
  size_t part;
} LlvmSplit;

/* llvm_translate_module for one part of `split` (NULL: the whole module,
** as llvm_translate_module). */
GILT_INTERNAL LLVMModuleRef llvm_translate_module_part(
    GiltOp *module, LLVMContextRef llctx, LLVMTargetMachineRef tm,
    LlvmWeights weights, const LlvmSplit *split);

/* gilt_llvm_emit with the weights placed as `weights` says: an object
** whose weights are linked is loaded with their symbols defined (the
** compile cache's entries). */
GILT_INTERNAL GiltStatus llvm_emit(GiltOp *module,
                                   const GiltLlvmTargetOptions *opts,
                                   LlvmWeights weights, GiltLlvmOutput what,
                                   GiltStringCallback cb, void *user);

/* Starts LLVM, once per process, safe to call from several threads: runs
** its static constructors where gjit's link deferred them
** (tools/gjit/llvm_constructors.ld), then initializes the native target
** (with its assembly printer and parser) and NVPTX. Nothing may call
** LLVM before it: llvm_target_machine_create and the ORC JIT
** (jit_orc_create) call it, and everything else of LLVM, an LLVMContext
** included, is made only after one of them, so that a process that runs
** only cached code never starts LLVM. */
GILT_INTERNAL void llvm_initialize(void);
/* Whether this process started LLVM (llvm_initialize), and how long that
** took, in *seconds: what `--timing` shows. */
GILT_INTERNAL bool llvm_started(double *seconds);

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

/* Runs LLVM's `default<O<opt_level>>` pipeline (0 to 3) on `m` for `tm`,
** with the loop and SLP vectorizers from level 2, as clang; nothing at
** level 0. The JIT's threads and the object writer share it, so that
** both generate the same code. Returns NULL, or what the pass builder
** rejected (the caller's to consume: LLVMGetErrorMessage). */
GILT_INTERNAL LLVMErrorRef llvm_run_pipeline(LLVMModuleRef m,
                                             LLVMTargetMachineRef tm,
                                             unsigned opt_level);
/* llvm_run_pipeline, with a level above 3 and what the pass builder
** rejects reported at `loc`. */
GILT_INTERNAL GiltStatus llvm_optimize_module(GiltLocation *loc,
                                              LLVMModuleRef m,
                                              LLVMTargetMachineRef tm,
                                              unsigned opt_level);

#endif /* GILT_DIALECTS_LLVM_TRANSLATE_H */
