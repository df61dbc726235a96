/*
** target.c - the target machine gilt compiles for, and LLVM's
** optimization pipeline run for it.
**
** By default the host: its triple, its CPU by name and that CPU's
** features (AVX-512 where it has them), as `-march=native` does, so that
** the vectorizers and the code generator use every register the machine
** has. NVPTX is there too, for GPU kernels (`nvptx64-nvidia-cuda`). The
** pipeline is the new pass manager's `default<On>` through LLVMRunPasses,
** with the loop and SLP vectorizers on from -O2, as clang sets them, one
** function (llvm_run_pipeline) for the JIT's threads and the object
** writer. Every LLVM error becomes a diagnostic.
**
** Not here: translation (translate.c) and writing the result (emit.c).
** LLVM itself warns on stderr about a CPU or feature it does not know;
** the C API offers no way to check them first.
*/
#include "dialects/llvm/translate.h"

#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

/* LLVM's static constructors where gjit's link set them apart from the
** process's (tools/gjit/llvm_constructors.ld): both null in every other
** program, whose LLVM started with the process. */
typedef void (*StaticConstructor)(void);
extern const StaticConstructor gilt_llvm_init_array_start[]
    __attribute__((weak, visibility("hidden")));
extern const StaticConstructor gilt_llvm_init_array_end[]
    __attribute__((weak, visibility("hidden")));

/* How long starting LLVM took, once it has. */
static double start_seconds;

static double now_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* LLVM's constructors, in the C library's order, then the two targets
** configure links: the host's, and NVPTX for GPUs. */
static void initialize(void)
{
  double start = now_seconds();
  if (gilt_llvm_init_array_start)
    for (const StaticConstructor *c = gilt_llvm_init_array_start;
         c < gilt_llvm_init_array_end; c++)
      (*c)();
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMInitializeNativeAsmParser();
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  start_seconds = now_seconds() - start;
}

void llvm_initialize(void)
{
  pthread_once(&llvm_once, initialize);
}

bool llvm_started(double *seconds)
{
  *seconds = start_seconds;
  return start_seconds > 0;
}

static LLVMCodeGenOptLevel codegen_level(unsigned opt_level)
{
  static const LLVMCodeGenOptLevel levels[] = {
      LLVMCodeGenLevelNone, LLVMCodeGenLevelLess, LLVMCodeGenLevelDefault,
      LLVMCodeGenLevelAggressive};
  return levels[opt_level];
}

/* The CPU and features to use: the options', else the host's when the
** target is the host, else the target's generic ones. The host's strings
** are LLVM's to dispose; *owned says which to. */
static void pick_cpu(const GiltLlvmTargetOptions *opts, const char **cpu,
                     const char **features, char *owned[2])
{
  owned[0] = owned[1] = NULL;
  bool host = !opts->triple;
  *cpu = opts->cpu;
  *features = opts->features;
  if (!*cpu)
    *cpu = host ? (owned[0] = LLVMGetHostCPUName()) : "";
  if (!*features)
    *features = host && !opts->cpu ? (owned[1] = LLVMGetHostCPUFeatures())
                                   : "";
}

LLVMTargetMachineRef llvm_target_machine_create(
    GiltLocation *loc, const GiltLlvmTargetOptions *opts)
{
  if (opts->opt_level > 3) {
    gilt_emit_error(loc, "optimization level %u is not one of 0, 1, 2, 3",
                    opts->opt_level);
    return NULL;
  }
  llvm_initialize();
  char *triple = opts->triple ? LLVMNormalizeTargetTriple(opts->triple)
                              : LLVMGetDefaultTargetTriple();
  LLVMTargetRef target;
  char *message = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &message)) {
    gilt_emit_error(loc, "no target for triple '%s': %s", triple,
                    message ? message : "unknown");
  } else {
    const char *cpu, *features;
    char *owned[2];
    pick_cpu(opts, &cpu, &features, owned);
    tm = LLVMCreateTargetMachine(target, triple, cpu, features,
                                 codegen_level(opts->opt_level),
                                 LLVMRelocPIC, LLVMCodeModelDefault);
    if (!tm)
      gilt_emit_error(loc, "LLVM could not make a target machine for '%s' "
                           "(cpu '%s')",
                      triple, cpu);
    LLVMDisposeMessage(owned[0]);
    LLVMDisposeMessage(owned[1]);
  }
  LLVMDisposeMessage(message);
  LLVMDisposeMessage(triple);
  return tm;
}

void llvm_module_set_target(LLVMModuleRef m, LLVMTargetMachineRef tm)
{
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(m, layout);
  LLVMDisposeTargetData(layout);
  char *triple = LLVMGetTargetMachineTriple(tm);
  LLVMSetTarget(m, triple);
  LLVMDisposeMessage(triple);
}

LLVMErrorRef llvm_run_pipeline(LLVMModuleRef m, LLVMTargetMachineRef tm,
                               unsigned opt_level)
{
  if (opt_level == 0)
    return NULL;
  char pipeline[32];
  snprintf(pipeline, sizeof pipeline, "default<O%u>", opt_level);
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(options, opt_level >= 2);
  LLVMPassBuilderOptionsSetSLPVectorization(options, opt_level >= 2);
  LLVMErrorRef err = LLVMRunPasses(m, pipeline, tm, options);
  LLVMDisposePassBuilderOptions(options);
  return err;
}

GiltStatus llvm_optimize_module(GiltLocation *loc, LLVMModuleRef m,
                                LLVMTargetMachineRef tm, unsigned opt_level)
{
  if (opt_level > 3) {
    gilt_emit_error(loc, "optimization level %u is not one of 0, 1, 2, 3",
                    opt_level);
    return GILT_FAILURE;
  }
  LLVMErrorRef err = llvm_run_pipeline(m, tm, opt_level);
  if (!err)
    return GILT_SUCCESS;
  char *message = LLVMGetErrorMessage(err);
  gilt_emit_error(loc, "LLVM's default<O%u> pipeline failed: %s", opt_level,
                  message);
  LLVMDisposeErrorMessage(message);
  return GILT_FAILURE;
}
