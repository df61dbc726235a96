/*
** gilt/llvm.h - compiling a module of the llvm dialect to LLVM IR,
** assembly or an object file.
**
** The last step of the descent: a builtin.module holding only llvm.func
** and llvm.global ops (what loop-to-llvm produces) is translated to LLVM
** IR, optimized by LLVM's pass pipeline for a target machine (the host by
** default, with its CPU's features) and written out:
**
**     GiltLlvmTargetOptions opts = gilt_llvm_target_options_default();
**     FILE *f = fopen("model.o", "wb");
**     if (gilt_llvm_emit(module, &opts, GILT_LLVM_OUTPUT_OBJECT,
**                        gilt_print_to_file, f) != GILT_SUCCESS)
**       ...  // the reasons went to the context's diagnostic handler
**
** This is the ahead-of-time path (`gopt --emit=obj`, `gjit --aot`). Running
** compiled code in-process is the JIT's business, not this header's. No
** LLVM type appears here: embedders need no LLVM headers.
*/
#ifndef GILT_LLVM_H
#define GILT_LLVM_H

#include "gilt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What gilt_llvm_emit writes. */
typedef enum GiltLlvmOutput {
  GILT_LLVM_OUTPUT_IR,       /* textual LLVM IR (a .ll file) */
  GILT_LLVM_OUTPUT_ASSEMBLY, /* the target's assembly (a .s file) */
  GILT_LLVM_OUTPUT_OBJECT    /* a relocatable object file (ELF on Linux) */
} GiltLlvmOutput;

/* The machine code is for, and how hard LLVM optimizes. */
typedef struct GiltLlvmTargetOptions {
  /* 0 to 3, as clang's -O: 0 emits the translation as it is, 2 and 3
  ** run LLVM's `default<O2>` and `default<O3>` pipelines (vectorizers
  ** included); the code generator uses the same level. */
  unsigned opt_level;
  /* An LLVM target triple ("x86_64-pc-linux-gnu"); NULL: the host's. */
  const char *triple;
  /* A CPU name ("znver4", "x86-64"); NULL: the host's. */
  const char *cpu;
  /* LLVM feature string ("+avx512f,-avx512vl"); NULL: the host CPU's
  ** features when `cpu` is NULL too, else none beyond the CPU's. */
  const char *features;
  /* NULL, or an LLVM bitcode file of functions the module declares and
  ** calls (CUDA's libdevice for NVPTX): the definitions it uses are
  ** linked in before optimization, internal to the module. */
  const char *bitcode_library;
} GiltLlvmTargetOptions;

/* The host, at -O2. */
GILT_API GiltLlvmTargetOptions gilt_llvm_target_options_default(void);

/* Translates `module` (a builtin.module of llvm.func and llvm.global ops,
** verified) to LLVM IR for the target of `opts` (NULL: the default above),
** verifies it with LLVM's verifier, optimizes it and passes the output of
** kind `what` to `cb` (binary data for an object file). `module` is not
** modified. On failure returns GILT_FAILURE after reporting through the
** module's context: an op that has no translation (at its location), an
** unknown target or CPU, or a complaint of LLVM's verifier or pass
** pipeline; `cb` is then never called. */
GILT_API GiltStatus gilt_llvm_emit(GiltOp *module,
                                   const GiltLlvmTargetOptions *opts,
                                   GiltLlvmOutput what, GiltStringCallback cb,
                                   void *user);

#ifdef __cplusplus
}
#endif

#endif /* GILT_LLVM_H */
