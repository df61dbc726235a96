/*
** orc.c - the ORC LLJIT behind the JIT, through LLVM's C API only.
**
** The target machine is the host's: its triple, CPU name and features
** (so AVX-512 where the host has it), with the code generator at the
** caller's optimization level; modules are optimized with the new pass
** manager's default<On> pipeline for that same machine before ORC
** compiles them (llvm_run_pipeline, which gjit --aot's objects go through
** too). The same two steps also run outside ORC, on any thread, with a
** machine made like ORC's (jit_orc_compile_object): split.c compiles the
** parts of a module that way and adds their objects.
**
** The runtime symbols (runtime_symbols.h) are defined explicitly, as
** absolute addresses, rather than found by searching the process. A
** search of the process remains as a fallback for what the code
** generator itself may call (compiler-rt helpers).
**
** Every LLVMErrorRef becomes a diagnostic at the caller's location, its
** message taken and freed; none is dropped, even when tearing down.
*/
#include "jit/orc.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/llvm/translate.h"
#include "jit/clock.h"
#include "jit/runtime_symbols.h"

struct JitOrc {
  LLVMOrcLLJITRef jit;
  LLVMOrcThreadSafeContextRef tsc;
  LLVMTargetMachineRef tm; /* for the passes; ORC owns its own copy */
  unsigned opt_level;
  GiltLocation *loc; /* where errors with no caller go */
};

/* Reports err (consumed) at loc as "what: LLVM's message". */
static GiltStatus llvm_error(GiltLocation *loc, const char *what,
                             LLVMErrorRef err)
{
  char *msg = LLVMGetErrorMessage(err);
  gilt_emit_error(loc, "%s: %s", what, msg);
  LLVMDisposeErrorMessage(msg);
  return GILT_FAILURE;
}

/* ORC reports some errors, such as the symbols a module needs and nobody
** defines, to the session rather than to the lookup that failed (which
** only says that materializing failed); by default it prints them. */
static void report_session_error(void *orc, LLVMErrorRef err)
{
  llvm_error(((JitOrc *)orc)->loc, "JIT", err);
}

/* ---- the runtime's symbols ------------------------------------------------- */

static GiltStatus define_runtime(JitOrc *orc, GiltLocation *loc)
{
  size_t n = jit_runtime_symbol_count();
  const char *names[n];
  void *addresses[n];
  for (size_t i = 0; i < n; i++)
    names[i] = jit_runtime_symbol_at(i, &addresses[i]);
  if (jit_orc_define_symbols(orc, n, names, addresses, loc))
    return GILT_FAILURE;

  LLVMOrcDefinitionGeneratorRef gen;
  LLVMErrorRef err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &gen, LLVMOrcLLJITGetGlobalPrefix(orc->jit), NULL, NULL);
  if (err)
    return llvm_error(loc, "cannot search the process for symbols", err);
  LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(orc->jit), gen);
  return GILT_SUCCESS;
}

GiltStatus jit_orc_define_symbols(JitOrc *orc, size_t n,
                                  const char *const *names,
                                  void *const *addresses, GiltLocation *loc)
{
  if (n == 0)
    return GILT_SUCCESS;
  LLVMOrcCSymbolMapPairs pairs = calloc(n, sizeof *pairs);
  if (!pairs) {
    gilt_emit_error(loc, "out of memory defining %zu symbols", n);
    return GILT_FAILURE;
  }
  for (size_t i = 0; i < n; i++) {
    pairs[i].Name = LLVMOrcLLJITMangleAndIntern(orc->jit, names[i]);
    pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)addresses[i];
    pairs[i].Sym.Flags.GenericFlags =
        LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
    pairs[i].Sym.Flags.TargetFlags = 0;
  }
  /* Takes the names' references; the array stays ours. */
  LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, n);
  free(pairs);
  LLVMErrorRef err =
      LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(orc->jit), mu);
  if (err) {
    LLVMOrcDisposeMaterializationUnit(mu);
    return llvm_error(loc, "cannot define symbols", err);
  }
  return GILT_SUCCESS;
}

/* ---- the JIT ------------------------------------------------------------------ */

static pthread_once_t native_once = PTHREAD_ONCE_INIT;
static bool native_ok;

/* After starting LLVM (llvm_initialize), which initializes the native
** target too but cannot say whether there is one. */
static void init_native(void)
{
  llvm_initialize();
  native_ok = !LLVMInitializeNativeTarget() &&
              !LLVMInitializeNativeAsmPrinter();
}

static LLVMCodeGenOptLevel codegen_level(unsigned opt_level)
{
  switch (opt_level) {
  case 0:
    return LLVMCodeGenLevelNone;
  case 1:
    return LLVMCodeGenLevelLess;
  case 2:
    return LLVMCodeGenLevelDefault;
  default:
    return LLVMCodeGenLevelAggressive;
  }
}

/* A target machine for the host, or NULL after reporting. */
static LLVMTargetMachineRef host_machine(GiltLocation *loc, unsigned opt_level)
{
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  LLVMTargetRef target;
  char *msg = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
    gilt_emit_error(loc, "no LLVM target for the host (%s): %s", triple, msg);
    LLVMDisposeMessage(msg);
  } else {
    tm = LLVMCreateTargetMachine(target, triple, cpu, features,
                                 codegen_level(opt_level), LLVMRelocDefault,
                                 LLVMCodeModelJITDefault);
    if (!tm)
      gilt_emit_error(loc, "cannot create a target machine for %s (%s)",
                      triple, cpu);
  }
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  return tm;
}

JitOrc *jit_orc_create(GiltLocation *loc, unsigned opt_level)
{
  pthread_once(&native_once, init_native);
  if (!native_ok) {
    gilt_emit_error(loc, "LLVM has no native target for this host");
    return NULL;
  }
  JitOrc *orc = calloc(1, sizeof *orc);
  if (!orc) {
    gilt_emit_error(loc, "out of memory creating the JIT");
    return NULL;
  }
  orc->opt_level = opt_level > 3 ? 3 : opt_level;
  orc->loc = loc;
  orc->tm = host_machine(loc, orc->opt_level);
  LLVMTargetMachineRef jit_tm = orc->tm ? host_machine(loc, orc->opt_level)
                                        : NULL;
  if (!jit_tm) {
    jit_orc_destroy(orc, loc);
    return NULL;
  }
  LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
      builder, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(jit_tm));
  LLVMErrorRef err = LLVMOrcCreateLLJIT(&orc->jit, builder);
  if (err) {
    orc->jit = NULL;
    llvm_error(loc, "cannot create the JIT", err);
    jit_orc_destroy(orc, loc);
    return NULL;
  }
  LLVMOrcExecutionSessionSetErrorReporter(
      LLVMOrcLLJITGetExecutionSession(orc->jit), report_session_error, orc);
  orc->tsc = LLVMOrcCreateNewThreadSafeContext();
  if (define_runtime(orc, loc)) {
    jit_orc_destroy(orc, loc);
    return NULL;
  }
  return orc;
}

void jit_orc_destroy(JitOrc *orc, GiltLocation *loc)
{
  if (!orc)
    return;
  if (orc->jit) {
    LLVMErrorRef err = LLVMOrcDisposeLLJIT(orc->jit);
    if (err)
      llvm_error(loc, "cannot tear down the JIT", err);
  }
  /* After the JIT: modules it still holds refer to this context. */
  if (orc->tsc)
    LLVMOrcDisposeThreadSafeContext(orc->tsc);
  if (orc->tm)
    LLVMDisposeTargetMachine(orc->tm);
  free(orc);
}

LLVMContextRef jit_orc_get_llvm_context(JitOrc *orc)
{
  return LLVMOrcThreadSafeContextGetContext(orc->tsc);
}

LLVMTargetMachineRef jit_orc_get_target_machine(JitOrc *orc)
{
  return orc->tm;
}

/* ---- modules and symbols ------------------------------------------------------- */

static GiltStatus optimize(JitOrc *orc, LLVMModuleRef m, GiltLocation *loc)
{
  LLVMErrorRef err = llvm_run_pipeline(m, orc->tm, orc->opt_level);
  return err ? llvm_error(loc, "cannot optimize the module", err)
             : GILT_SUCCESS;
}

LLVMTargetMachineRef jit_orc_create_machine(JitOrc *orc, GiltLocation *loc)
{
  return host_machine(loc, orc->opt_level);
}

/* "what: message" as a new string (free()), or NULL when out of memory. */
static char *error_text(const char *what, const char *message)
{
  size_t n = strlen(what) + strlen(message) + 3;
  char *text = malloc(n);
  if (text)
    snprintf(text, n, "%s: %s", what, message);
  return text;
}

LLVMMemoryBufferRef jit_orc_compile_object(const JitOrc *orc,
                                           LLVMTargetMachineRef tm,
                                           LLVMModuleRef m,
                                           JitCompileTimes *times,
                                           char **error)
{
  *error = NULL;
  *times = (JitCompileTimes){0, 0};
  LLVMMemoryBufferRef object = NULL;
  double start = jit_thread_cpu_seconds();
  LLVMErrorRef err = llvm_run_pipeline(m, tm, orc->opt_level);
  double optimized = jit_thread_cpu_seconds();
  times->optimize = optimized - start;
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    *error = error_text("cannot optimize the module", msg);
    LLVMDisposeErrorMessage(msg);
  } else {
    char *msg = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg,
                                            &object)) {
      *error = error_text("cannot generate code", msg ? msg : "unknown");
      object = NULL;
    }
    LLVMDisposeMessage(msg);
    times->codegen = jit_thread_cpu_seconds() - optimized;
  }
  LLVMDisposeModule(m);
  /* Out of memory for the message: say that much. */
  if (!object && !*error)
    *error = error_text("cannot compile", "out of memory");
  return object;
}

GiltStatus jit_orc_add_module(JitOrc *orc, LLVMModuleRef m, GiltLocation *loc)
{
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    gilt_emit_error(loc, "the LLVM module does not verify: %s", msg);
    LLVMDisposeMessage(msg);
    LLVMDisposeModule(m);
    return GILT_FAILURE;
  }
  LLVMDisposeMessage(msg);
  char *triple = LLVMGetTargetMachineTriple(orc->tm);
  LLVMSetTarget(m, triple);
  LLVMDisposeMessage(triple);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(orc->tm);
  LLVMSetModuleDataLayout(m, layout);
  LLVMDisposeTargetData(layout);
  if (optimize(orc, m, loc)) {
    LLVMDisposeModule(m);
    return GILT_FAILURE;
  }
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, orc->tsc);
  LLVMErrorRef err = LLVMOrcLLJITAddLLVMIRModule(
      orc->jit, LLVMOrcLLJITGetMainJITDylib(orc->jit), tsm);
  return err ? llvm_error(loc, "cannot add the module to the JIT", err)
             : GILT_SUCCESS;
}

GiltStatus jit_orc_add_object(JitOrc *orc, const void *data, size_t size,
                              GiltLocation *loc)
{
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      data, size, "gilt-object");
  /* Takes the buffer, also on failure. */
  LLVMErrorRef err = LLVMOrcLLJITAddObjectFile(
      orc->jit, LLVMOrcLLJITGetMainJITDylib(orc->jit), buf);
  return err ? llvm_error(loc, "cannot add the object file to the JIT", err)
             : GILT_SUCCESS;
}

void *jit_orc_lookup(JitOrc *orc, const char *name, GiltLocation *loc)
{
  LLVMOrcExecutorAddress address = 0;
  LLVMErrorRef err = LLVMOrcLLJITLookup(orc->jit, &address, name);
  if (err) {
    char what[256];
    snprintf(what, sizeof what, "cannot compile '%s'", name);
    llvm_error(loc, what, err);
    return NULL;
  }
  return (void *)(uintptr_t)address;
}
