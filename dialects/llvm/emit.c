/*
** emit.c - gilt/llvm.h: a module of the llvm dialect written out as LLVM
** IR, assembly or an object file, for a target (the host by default).
**
** The whole path in one call, each step reporting through the context:
** a target machine, translation (translate.c) into a private LLVM
** context, the bitcode library linked in, optimization (target.c), then
** the output, produced in memory
** and handed over only when every step succeeded. The JIT takes the same
** steps through translate.h, with its own context and machine; the
** compile cache takes them through llvm_emit, with its weights linked.
*/
#include "gilt/llvm.h"

#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>

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

/* LLVM's last complaint while reading or linking a library, which its
** default handler would print before exiting the process. */
typedef struct LinkDiagnostic {
  char *message; /* LLVMDisposeMessage's */
} LinkDiagnostic;

static void keep_diagnostic(LLVMDiagnosticInfoRef info, void *user)
{
  LinkDiagnostic *d = user;
  if (LLVMGetDiagInfoSeverity(info) != LLVMDSError)
    return;
  LLVMDisposeMessage(d->message);
  d->message = LLVMGetDiagInfoDescription(info);
}

/* Reads the bitcode file `path` into a module of `m`'s context. */
static LLVMModuleRef read_library(GiltLocation *loc, LLVMModuleRef m,
                                  const char *path, LinkDiagnostic *d)
{
  char *message = NULL;
  LLVMMemoryBufferRef buf;
  if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &message)) {
    gilt_emit_error(loc, "cannot read the bitcode library '%s': %s", path,
                    message);
    LLVMDisposeMessage(message);
    return NULL;
  }
  LLVMModuleRef lib;
  LLVMBool bad = LLVMParseBitcodeInContext2(LLVMGetModuleContext(m), buf, &lib);
  LLVMDisposeMemoryBuffer(buf);
  if (!bad)
    return lib;
  gilt_emit_error(loc, "'%s' is not an LLVM bitcode file: %s", path,
                  d->message ? d->message : "unknown error");
  return NULL;
}

/* Links into `m` the definitions of the bitcode file `path` that `m`
** uses. Its functions are made linkonce_odr first, which the linker
** copies only where referenced (llvm-link's --only-needed), then internal
** once linked, so that the optimizer inlines them and drops the rest. */
static GiltStatus link_library(GiltLocation *loc, LLVMModuleRef m,
                               const char *path)
{
  LLVMContextRef llctx = LLVMGetModuleContext(m);
  LinkDiagnostic d = {0};
  LLVMContextSetDiagnosticHandler(llctx, keep_diagnostic, &d);
  LLVMModuleRef lib = read_library(loc, m, path, &d);
  GiltStatus s = lib ? GILT_SUCCESS : GILT_FAILURE;
  if (lib) {
    for (LLVMValueRef f = LLVMGetFirstFunction(lib); f;
         f = LLVMGetNextFunction(f))
      if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
        LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
    /* The library's own target names (nvptx64-nvidia-gpulibs) differ from
    ** the module's in name only; the linker would warn. */
    LLVMSetTarget(lib, LLVMGetTarget(m));
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(m));
    if (LLVMLinkModules2(m, lib)) { /* lib is gone either way */
      gilt_emit_error(loc, "LLVM could not link the bitcode library '%s': %s",
                      path, d.message ? d.message : "unknown error");
      s = GILT_FAILURE;
    }
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (LLVMGetLinkage(f) == LLVMLinkOnceODRLinkage)
      LLVMSetLinkage(f, LLVMInternalLinkage);
  LLVMContextSetDiagnosticHandler(llctx, NULL, NULL);
  LLVMDisposeMessage(d.message);
  return s;
}

static GiltStatus compile(GiltOp *module, LLVMTargetMachineRef tm,
                          const GiltLlvmTargetOptions *opts,
                          LlvmWeights weights,
                          GiltLlvmOutput what, GiltStringCallback cb,
                          void *user)
{
  GiltLocation *loc = gilt_op_get_location(module);
  LLVMContextRef llctx = LLVMContextCreate();
  LLVMModuleRef m = llvm_translate_module(module, llctx, tm, weights);
  GiltStatus s = m ? GILT_SUCCESS : GILT_FAILURE;
  if (s == GILT_SUCCESS && opts->bitcode_library)
    s = link_library(loc, m, opts->bitcode_library);
  if (s == GILT_SUCCESS)
    s = llvm_optimize_module(loc, m, tm, opts->opt_level);
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
  if (!opts)
    opts = &defaults;
  LLVMTargetMachineRef tm =
      llvm_target_machine_create(gilt_op_get_location(module), opts);
  if (!tm)
    return GILT_FAILURE;
  GiltStatus s = compile(module, tm, opts, weights, what, cb, user);
  LLVMDisposeTargetMachine(tm);
  return s;
}

GiltStatus gilt_llvm_emit(GiltOp *module, const GiltLlvmTargetOptions *opts,
                          GiltLlvmOutput what, GiltStringCallback cb,
                          void *user)
{
  return llvm_emit(module, opts, LLVM_WEIGHTS_EMBEDDED, what, cb, user);
}
