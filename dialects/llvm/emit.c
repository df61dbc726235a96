/*
** emit.c - gilt/llvm.h: a module of the llvm dialect written out as LLVM
** IR, assembly or an object file, for a target (the host by default).
**
** The whole path in one call, each step reporting through the context:
** a target machine, translation (translate.c) into a private LLVM
** context, optimization (target.c), then the output, produced in memory
** and handed over only when every step succeeded. The JIT takes the same
** steps through translate.h, with its own context and machine; the
** compile cache takes them through llvm_emit, with its weights linked.
*/
#include "gilt/llvm.h"

#include <string.h>

#include "dialects/llvm/translate.h"

GiltLlvmTargetOptions gilt_llvm_target_options_default(void)
{
  return (GiltLlvmTargetOptions){.opt_level = 2};
}

static GiltStatus write_ir(LLVMModuleRef m, GiltStringCallback cb,
                           void *user)
{
  char *text = LLVMPrintModuleToString(m);
  cb(text, strlen(text), user);
  LLVMDisposeMessage(text);
  return GILT_SUCCESS;
}

static GiltStatus write_code(GiltLocation *loc, LLVMModuleRef m,
                             LLVMTargetMachineRef tm, LLVMCodeGenFileType kind,
                             GiltStringCallback cb, void *user)
{
  char *message = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, kind, &message, &buf)) {
    gilt_emit_error(loc, "LLVM could not generate code: %s",
                    message ? message : "unknown error");
    LLVMDisposeMessage(message);
    return GILT_FAILURE;
  }
  cb(LLVMGetBufferStart(buf), LLVMGetBufferSize(buf), user);
  LLVMDisposeMemoryBuffer(buf);
  return GILT_SUCCESS;
}

static GiltStatus compile(GiltOp *module, LLVMTargetMachineRef tm,
                          unsigned opt_level, LlvmWeights weights,
                          GiltLlvmOutput what, GiltStringCallback cb,
                          void *user)
{
  GiltLocation *loc = gilt_op_get_location(module);
  LLVMContextRef llctx = LLVMContextCreate();
  LLVMModuleRef m = llvm_translate_module(module, llctx, tm, weights);
  GiltStatus s = m ? llvm_optimize_module(loc, m, tm, opt_level)
                   : GILT_FAILURE;
  if (s == GILT_SUCCESS) {
    if (what == GILT_LLVM_OUTPUT_IR)
      s = write_ir(m, cb, user);
    else
      s = write_code(loc, m, tm,
                     what == GILT_LLVM_OUTPUT_OBJECT ? LLVMObjectFile
                                                     : LLVMAssemblyFile,
                     cb, user);
  }
  if (m)
    LLVMDisposeModule(m);
  LLVMContextDispose(llctx);
  return s;
}

GiltStatus llvm_emit(GiltOp *module, const GiltLlvmTargetOptions *opts,
                     LlvmWeights weights, GiltLlvmOutput what,
                     GiltStringCallback cb, void *user)
{
  GiltLlvmTargetOptions defaults = gilt_llvm_target_options_default();
  LLVMTargetMachineRef tm =
      llvm_target_machine_create(gilt_op_get_location(module),
                                 opts ? opts : &defaults);
  if (!tm)
    return GILT_FAILURE;
  GiltStatus s = compile(module, tm, (opts ? opts : &defaults)->opt_level,
                         weights, what, cb, user);
  LLVMDisposeTargetMachine(tm);
  return s;
}

GiltStatus gilt_llvm_emit(GiltOp *module, const GiltLlvmTargetOptions *opts,
                          GiltLlvmOutput what, GiltStringCallback cb,
                          void *user)
{
  return llvm_emit(module, opts, LLVM_WEIGHTS_EMBEDDED, what, cb, user);
}
