/*
** gilt/model.h - a model file compiled and ready to call: what gjit runs
** and what the Python package wraps, so that both import, lower, cache,
** compile, check inputs and time a model the same way.
**
**     GiltModelOptions opts = GILT_MODEL_OPTIONS_DEFAULT;
**     opts.threads = 2;
**     GiltModel *m = gilt_model_create(ctx, "model.onnx", &opts);
**     if (!m)
**       ...  // the reasons went to the context's diagnostic handler
**     size_t n;
**     GiltTensor **out;
**     if (gilt_model_call(m, 1, &input, &n, &out) == GILT_SUCCESS)
**       ...  // n new tensors, owned by the caller
**     gilt_model_destroy(m);
**
** A model is one function of a module: imported from an .onnx file or
** parsed from textual IR, lowered by the default pipeline (or another),
** then compiled by the JIT (gilt/jit.h) or kept at the loop level for the
** reference interpreter (gilt/interpreter.h). Compiled, it runs on this
** CPU or, with GILT_DEVICE_CUDA, on an NVIDIA GPU (docs/gpu.md). It is not a new back end:
** every step is one of those headers' calls, made in one agreed order.
** docs/c-api.md and docs/gjit.md describe the pipeline and the cache.
*/
#ifndef GILT_MODEL_H
#define GILT_MODEL_H

#include "gilt/pass.h"
#include "gilt/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GiltModel GiltModel;

/* Where compiled code runs. */
typedef enum GiltDevice {
  GILT_DEVICE_CPU,  /* this machine's CPU */
  GILT_DEVICE_CUDA  /* an NVIDIA GPU: kernels in PTX, run through the CUDA
                    ** driver, which is loaded when the model is created */
} GiltDevice;

typedef struct GiltModelOptions {
  /* The function to call: NULL for @main, or the module's only function
  ** when it has no @main. */
  const char *function;
  /* The pass pipeline (text, as gopt -p takes it); NULL for
  ** gilt_model_default_pipeline(interpret). It must end at the llvm level
  ** to compile and at the loop level to interpret. */
  const char *pipeline;
  /* Run the loop level on the reference interpreter instead of compiling. */
  bool interpret;
  /* Threads of the compiled code's parallel loops; 0: all cores. */
  size_t threads;
  /* LLVM's optimization level, 0 to 3. */
  unsigned opt_level;
  /* A folder for the compile cache (docs/gjit.md): a model file compiled
  ** once is loaded from it afterwards. NULL: no cache. Not used when
  ** interpreting, printing IR, dumping LLVM IR or when the context wants
  ** remarks (gilt_context_wants_remarks), nor by
  ** gilt_model_create_from_module. */
  const char *cache_dir;
  /* When not NULL, the pass manager prints the IR as it says (borrowed
  ** for the call). */
  const GiltIRPrintingConfig *print_ir;
  /* When not NULL, receives the optimized LLVM IR of the lowered module
  ** before it is compiled (gilt_llvm_emit for the host). */
  GiltStringCallback dump_llvm;
  void *dump_llvm_user;
  /* Where the compiled model runs. GILT_DEVICE_CUDA needs the CUDA
  ** driver and a GPU when the model is created, unless `compile_only`;
  ** it does not go with `interpret`, and is never cached. */
  GiltDevice device;
  /* With CUDA, the GPU architecture the PTX is for: "sm_80" (NULL) or
  ** "sm_90". */
  const char *gpu_arch;
  /* Compile and keep nothing to run: the pipeline and the JIT run (so
  ** every error of compiling is reported), but no device is needed and
  ** gilt_model_call fails. */
  bool compile_only;
  /* With CUDA, when not NULL, receives the PTX of all the model's kernels
  ** (every gpu.binary of the lowered module, in order) once the pipeline
  ** produced it, before the host code is lowered. */
  GiltStringCallback dump_ptx;
  void *dump_ptx_user;
  /* Threads LLVM compiles the model on (GiltJitOptions'
  ** compile_threads); 0: all cores. */
  size_t compile_threads;
  /* The CPU's vector registers the default pipeline shapes the loops
  ** for: 512 bits (AVX-512, 32 registers), 256 (AVX2, 16) or 128 (16);
  ** 0: the host's. Code shaped for other registers still runs, slower. */
  unsigned vector_bits;
  /* When not NULL, receives timing reports as text, as `gjit --timing`
  ** prints them: the pass manager's (each pass of the pipeline), the
  ** JIT's (GiltJitOptions' timing) and the whole compile's phases. */
  GiltStringCallback timing;
  void *timing_user;
} GiltModelOptions;

/* @main, the default pipeline, compiled on all cores at -O2 for the CPU,
** no cache, LLVM's work on all cores. */
#define GILT_MODEL_OPTIONS_DEFAULT \
  {NULL, NULL, false, 0, 2, NULL, NULL, NULL, NULL, \
   GILT_DEVICE_CPU, NULL, false, NULL, NULL, 0, 0, NULL, NULL}

/* The default pipeline: shapes refined, constants folded, lowered to
** loops shaped for the host's vector registers and cleaned up, then
** (unless `interpret`) on to the llvm level. A static string. */
GILT_API const char *gilt_model_default_pipeline(bool interpret);

/* The default pipeline for opts' back end and device: on the CPU,
** gilt_model_default_pipeline(opts->interpret) with the loops shaped for
** opts->vector_bits (NULL for a width other than 0, 512, 256 or 128);
** for CUDA, the loop level as on the CPU, then gpu-map-parallel,
** gpu-outline-kernels, canonicalize, gpu-to-nvvm,
** gpu-module-to-binary{chip=ARCH} and loop-to-llvm (docs/gpu.md), NULL
** when opts->gpu_arch is neither sm_80 nor sm_90. A static string. */
GILT_API const char *gilt_model_default_pipeline_for(
    const GiltModelOptions *opts);

/* The module of the model file at `path`: an .onnx file imported
** (gilt/onnx.h), anything else parsed as textual IR (its text registered
** with the context, so that diagnostics quote it), then verified. Returns
** a module owned by the caller, or NULL after reporting. */
GILT_API GiltOp *gilt_model_import(GiltContext *ctx, const char *path);

/* The func.func of `module` a model calls: `name`, or with NULL @main,
** or the module's only function. NULL after reporting at the module that
** there is none. Borrowed from the module. */
GILT_API GiltOp *gilt_model_find_function(GiltOp *module, const char *name);

/* Runs opts' pipeline (or the default one) on `module`, with opts'
** IR printing and PTX dump; what gilt_model_create does between import
** and compiling, for callers that want the lowered module itself (gjit
** --aot). */
GILT_API GiltStatus gilt_model_lower(GiltOp *module,
                                     const GiltModelOptions *opts);

/* The model in the file at `path`, ready to call: loaded from the compile
** cache when opts->cache_dir holds it, else imported, lowered and compiled
** (and stored in the cache). `opts` may be NULL for the defaults. Returns
** a model owned by the caller, or NULL after reporting through ctx (a
** file that does not import, no such function, a pass that fails, code
** that does not compile); a cache entry that fails a check, or cannot be
** written, is a remark and the model is compiled all the same. ctx must
** outlive the model. Once lowered, the resource blobs the call made (the
** file's weights, constants its passes folded or packed) that the
** lowered module no longer reads are given back
** (gilt_context_release_blobs): their attributes keep no data. */
GILT_API GiltModel *gilt_model_create(GiltContext *ctx, const char *path,
                                      const GiltModelOptions *opts);

/* The same from a verified module, which the call consumes (also when it
** fails): lowered and compiled, never cached; the blobs its pipeline made
** and no longer reads are given back, the module's own are left. */
GILT_API GiltModel *gilt_model_create_from_module(
    GiltOp *module, const GiltModelOptions *opts);

/* Frees the model; NULL is ignored. No call may be in flight. */
GILT_API void gilt_model_destroy(GiltModel *m);

/* The function called, without `@` (borrowed). */
GILT_API const char *gilt_model_get_function(GiltModel *m);
/* Its loop-level function type: memref arguments and results (a dynamic
** dimension is `?`), scalars for rank-0 values of a .gilt function. */
GILT_API GiltType *gilt_model_get_type(GiltModel *m);
/* The name of argument or result i, NULL when it has none: an ONNX
** model's input and output names, a .gilt function's argument names from
** their locations (`%x: tensor<4xf32> loc("x")`). Borrowed. */
GILT_API const char *gilt_model_get_input_name(GiltModel *m, size_t i);
GILT_API const char *gilt_model_get_output_name(GiltModel *m, size_t i);

/* Calls the function with gilt_jit_call's contract (or, interpreted,
** gilt_interpret_function's): inputs borrowed and checked before
** anything runs (count, shape, element type, in the interpreter's words);
** on success *outputs is a new array (free()) of new tensors owned by the
** caller; on failure NULL and 0, after reporting. */
GILT_API GiltStatus gilt_model_call(GiltModel *m, size_t num_inputs,
                                    GiltTensor *const *inputs,
                                    size_t *num_outputs,
                                    GiltTensor ***outputs);

/* What gjit --benchmark reports; times in milliseconds on the monotonic
** clock. */
typedef struct GiltModelBenchmark {
  const char *model;    /* the path (borrowed); NULL from a module */
  const char *function; /* without `@` (borrowed) */
  const char *backend;  /* "compiled" or "interpreted" (static) */
  size_t threads;       /* the compiled code's; 1 interpreted */
  /* Compile time, cold, and its phases: import (parse or ONNX import,
  ** and verification), pipeline, jit (translation, LLVM, code
  ** generation; or loading a cache entry). */
  double compile_ms, import_ms, pipeline_ms, jit_ms;
  size_t warmup_runs, runs;
  /* Of the `runs` timed calls: their wall time on the CPU; on CUDA the
  ** device time between CUDA events recorded on the model's stream
  ** around each call, copies in and out included. */
  double median_ms, min_ms, max_ms;
  double peak_rss_mb;               /* the process's, in MiB */
  const char *device;               /* "cpu" or "cuda" (static) */
} GiltModelBenchmark;

/* Calls the model once to warm up, then `runs` times (at least 1),
** timing each call, inputs in and outputs out, and fills *report with
** them, the model's compile times and the process's peak RSS. The
** outputs of the last call are returned as gilt_model_call returns them.
** On a failed call, its diagnostic has been reported, *report is not
** filled and the outputs are NULL and 0. */
GILT_API GiltStatus gilt_model_benchmark(GiltModel *m, size_t num_inputs,
                                         GiltTensor *const *inputs,
                                         size_t runs,
                                         GiltModelBenchmark *report,
                                         size_t *num_outputs,
                                         GiltTensor ***outputs);

/* The report as one JSON object on one line, ending in a newline, as
** `gjit --benchmark-format=json` prints it: the keys compile_ms,
** median_ms, min_ms, runs, threads, peak_rss_mb, model, function,
** backend, import_ms, pipeline_ms, jit_ms, warmup_runs, max_ms and
** device are stable (keys may be added, never renamed or dropped). */
GILT_API void gilt_model_benchmark_format_json(const GiltModelBenchmark *r,
                                              GiltStringCallback cb,
                                              void *user);

#ifdef __cplusplus
}
#endif

#endif /* GILT_MODEL_H */
