/*
** model.c - compiled models (gilt/model.h): a model file imported or
** parsed, lowered by the default pipeline and compiled by the JIT, or kept
** at the loop level for the interpreter; and calling it. gjit and the
** Python package both go through here, so a model runs the same way from
** the command line and from Python.
**
** The order is fixed: the compile cache first (a hit skips everything
** else), then import and verification, the choice of the function, the
** pipeline, then the JIT (through the cache when there is one). Each
** phase is timed, for gilt_model_benchmark. Nothing here checks inputs:
** gilt_jit_call and gilt_interpret_function check them in the same words
** before anything runs.
**
** The names of a model's inputs and outputs are not types, so no pass
** keeps them: they are read before the pipeline (an argument's name
** location, an ONNX graph's output names) and stored in cache entries.
**
** A model for CUDA takes the GPU pipeline and is compiled by the same JIT
** (its host code calls the CUDA runtime, gpu/cuda.h); the driver and a
** device are checked before anything else, unless it is compiled only,
** so that a machine without them fails at once and clearly. It is never
** cached: the cache holds CPU code.
*/
#include "jit/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/llvm/translate.h"
#include "frontends/onnx/importer.h"
#include "gilt/interpreter.h"
#include "gilt/llvm.h"
#include "gilt/remarks.h"
#include "gpu/cuda.h"
#include "ir/core.h"
#include "ir/support/timing_table.h"
#include "jit/clock.h"
#include "jit/host_cpu.h"

/* From a model on tensors to loops: shapes first, constant subgraphs
** folded (through the interpreter), layer normalizations and GELUs
** written out op by op made one op each, activations fused into the
** products before them, the layout chosen (`layout`: the layout pass
** and its comma, or nothing), then lowered (a Concat's operands made
** the slabs of its result where they can be, the nests of elementwise
** chains fused into one, f32 transcendental math
** expanded into plain arithmetic, so that the interpreter and compiled
** code agree) and cleaned up; buffers
** are freed after their last use last, once no pass moves ops any more,
** and the globals no code reads any more (weights a lowering packed into
** new ones) dropped. Compiling goes on to the llvm dialect. `lowering`
** gives graph-to-loop its options. */
#define LOOP_PIPELINE(layout, lowering)                                   \
  "canonicalize,graph-infer-shapes,graph-fold-constants,"                 \
  "graph-fuse-layer-norm,graph-fuse-gelu,canonicalize,cse,"               \
  "graph-fuse-epilogues," layout "canonicalize,"                          \
  "graph-to-loop" lowering ",loop-elide-copies,loop-fuse-parallel,"       \
  "loop-expand-math,canonicalize,cse,loop-invariant-code-motion,"         \
  "loop-buffer-deallocation,symbol-dce"

/* For CUDA: the loop level shaped for threads without vector registers
** (no NCHWc layout, no CPU tiles: each op a nest over its outputs, so
** that a launch has a thread per output; f32 products in tiles of 64 x
** 64 that a block of threads stages through shared memory), its
** temporary buffers in one
** arena (one device allocation per call), then each parallel loop nest
** a grid of threads, outlined into a kernel of the function's
** gpu.module, the kernels lowered to the llvm dialect with NVVM
** intrinsics and compiled to PTX for `chip`, and the host code, launches
** included, lowered as on the CPU (docs/gpu.md). */
#define GPU_PIPELINE(chip)                                                \
  LOOP_PIPELINE("", "{vector-bits=0 block-tile=64}")                      \
  ",loop-plan-memory,gpu-map-parallel,gpu-outline-kernels,canonicalize,"  \
  "gpu-to-nvvm,gpu-module-to-binary{chip=" chip "},loop-to-llvm"

/* The architectures gilt compiles for. */
static const struct {
  const char *arch, *pipeline;
} gpu_pipelines[] = {
    {"sm_80", GPU_PIPELINE("sm_80")},
    {"sm_90", GPU_PIPELINE("sm_90")},
};

/* The pass that lowers the host code, last in the GPU pipeline: the PTX
** is dumped before it, from the gpu.binary ops it lowers. */
#define HOST_LOWERING "loop-to-llvm"

static const GiltModelOptions default_options = GILT_MODEL_OPTIONS_DEFAULT;

double model_now_ms(void) { return jit_now_seconds() * 1e3; }

/* On the CPU the convolutions that gain by it compute in NCHW16c, or
** NCHW8c where the vectors are 256 bits and 16 does not divide their
** channels (and what follows them, converted back where it must be), and the
** temporary buffers then share one arena per function
** (loop-plan-memory). graph-to-loop shapes
** its register tiles for the CPU's vector registers: AVX-512's 32 of
** 512 bits are its default, AVX2's 16 of 256 bits hold a quarter as
** many floats (each pipeline interpreted, then compiled). */
#define CPU_LOOPS(layout, lowering)                                       \
  LOOP_PIPELINE("graph-layout-nchwc" layout ",", lowering)
#define CPU_PIPELINES(layout, lowering)                                   \
  CPU_LOOPS(layout, lowering) ",loop-plan-memory",                        \
      CPU_LOOPS(layout, lowering) ",loop-plan-memory," MODEL_CPU_LOWERING

static const struct {
  unsigned vector_bits;
  const char *pipelines[2];
} cpu_pipelines[] = {
    {512, {CPU_PIPELINES("", "")}},
    {256, {CPU_PIPELINES("{vector-bits=256}",
                         "{vector-bits=256 vector-registers=16}")}},
    {128, {CPU_PIPELINES("{vector-bits=128}",
                         "{vector-bits=128 vector-registers=16}")}},
};

static const char *cpu_pipeline(unsigned vector_bits, bool interpret)
{
  if (!vector_bits)
    vector_bits = host_cpu_vector_bits();
  for (size_t i = 0; i < sizeof cpu_pipelines / sizeof *cpu_pipelines; i++)
    if (cpu_pipelines[i].vector_bits == vector_bits)
      return cpu_pipelines[i].pipelines[!interpret];
  return NULL;
}

const char *gilt_model_default_pipeline(bool interpret)
{
  return cpu_pipeline(0, interpret);
}

const char *gilt_model_default_pipeline_for(const GiltModelOptions *o)
{
  if (o->device != GILT_DEVICE_CUDA)
    return cpu_pipeline(o->vector_bits, o->interpret);
  const char *arch = o->gpu_arch ? o->gpu_arch : "sm_80";
  for (size_t i = 0; i < sizeof gpu_pipelines / sizeof *gpu_pipelines; i++)
    if (!strcmp(gpu_pipelines[i].arch, arch))
      return gpu_pipelines[i].pipeline;
  return NULL;
}

/* The pipeline opts ask for: NULL only for a GPU architecture gilt does
** not know, which check_options reports. */
static const char *pipeline_of(const GiltModelOptions *o)
{
  return o->pipeline ? o->pipeline : gilt_model_default_pipeline_for(o);
}

/* Reports at loc an option that makes no sense, or one with no meaning
** together with another. */
static GiltStatus check_options(GiltLocation *loc, const GiltModelOptions *o)
{
  if (o->device != GILT_DEVICE_CPU && o->device != GILT_DEVICE_CUDA)
    gilt_emit_error(loc, "no device %d", (int)o->device);
  else if (o->device == GILT_DEVICE_CUDA && o->interpret)
    gilt_emit_error(loc, "the interpreter runs on the CPU: a model for "
                         "CUDA is compiled");
  else if (o->device == GILT_DEVICE_CPU && !pipeline_of(o))
    gilt_emit_error(loc, "no vector registers of %u bits: gilt shapes its "
                         "loops for 512, 256 or 128",
                    o->vector_bits);
  else if (!pipeline_of(o))
    gilt_emit_error(loc, "no GPU architecture '%s': gilt compiles for "
                         "sm_80 and sm_90",
                    o->gpu_arch);
  else
    return GILT_SUCCESS;
  return GILT_FAILURE;
}

static bool has_suffix(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The file's text, NUL-terminated (free()), or NULL after reporting. */
static char *read_text(GiltContext *ctx, const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long size = -1;
  if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
      fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size + 1)) &&
      fread(buf, 1, (size_t)size, f) == (size_t)size) {
    fclose(f);
    buf[size] = '\0';
    *len = (size_t)size;
    return buf;
  }
  gilt_emit_error(gilt_location_name_get(ctx, path, NULL), "cannot read '%s'",
                  path);
  if (f)
    fclose(f);
  free(buf);
  return NULL;
}

/* gilt_model_import, with an ONNX graph's output names into *names. */
static GiltOp *import(GiltContext *ctx, const char *path, GiltAttr **names)
{
  GiltOp *module;
  if (has_suffix(path, ".onnx")) {
    module = gilt_onnx_import_file_named(ctx, path, names);
  } else {
    size_t len;
    char *text = read_text(ctx, path, &len);
    /* The parser keeps a copy of the text for the diagnostics. */
    module = text ? gilt_parse_source(ctx, text, len, path) : NULL;
    free(text);
  }
  if (module && gilt_op_verify(module)) {
    gilt_op_destroy(module);
    module = NULL;
  }
  return module;
}

GiltOp *gilt_model_import(GiltContext *ctx, const char *path)
{
  return import(ctx, path, NULL);
}

GiltOp *gilt_model_find_function(GiltOp *module, const char *name)
{
  GiltOp *only = NULL;
  size_t count = 0;
  for (GiltOp *op = gilt_block_get_first_op(gilt_module_get_body(module)); op;
       op = gilt_op_get_next(op)) {
    if (strcmp(gilt_op_get_name(op), "func.func"))
      continue;
    const char *sym = gilt_symbol_get_name(op);
    if (!strcmp(sym, name ? name : "main"))
      return op;
    only = op;
    count++;
  }
  if (!name && count == 1)
    return only;
  gilt_op_emit_error(module, "has no func.func named '%s'",
                     name ? name : "main");
  return NULL;
}

static GiltStatus run_pipeline(GiltOp *module, const GiltModelOptions *opts,
                               const char *pipeline)
{
  GiltPassManager *pm = gilt_pass_manager_create(gilt_op_get_context(module));
  gilt_pass_manager_enable_verifier(pm, true);
  if (opts->timing)
    gilt_pass_manager_enable_timing(pm, opts->timing, opts->timing_user);
  if (opts->print_ir)
    gilt_pass_manager_enable_ir_printing(pm, opts->print_ir);
  GiltStatus status = gilt_pass_manager_add_pipeline(pm, pipeline);
  if (status == GILT_SUCCESS)
    status = gilt_pass_manager_run(pm, module);
  gilt_pass_manager_destroy(pm);
  return status;
}

/* Gives opts->dump_ptx the PTX of every gpu.binary of the module. */
static void dump_ptx(GiltOp *module, const GiltModelOptions *opts)
{
  for (GiltOp *op = gilt_block_get_first_op(gilt_module_get_body(module));
       op; op = gilt_op_get_next(op)) {
    GiltAttr *ptx = gilt_op_get_attr(op, "ptx");
    size_t len;
    if (!strcmp(gilt_op_get_name(op), "gpu.binary") && ptx &&
        gilt_attr_get_kind(ptx) == GILT_ATTR_STRING) {
      const char *text = gilt_string_attr_get_value(ptx, &len);
      opts->dump_ptx(text, len, opts->dump_ptx_user);
    }
  }
}

GiltStatus gilt_model_lower(GiltOp *module, const GiltModelOptions *opts)
{
  if (!opts)
    opts = &default_options;
  if (check_options(gilt_op_get_location(module), opts))
    return GILT_FAILURE;
  const char *pipeline = pipeline_of(opts);
  size_t n = strlen(pipeline), k = strlen(HOST_LOWERING) + 1;
  bool last = n > k && pipeline[n - k] == ',' &&
              !strcmp(pipeline + n - k + 1, HOST_LOWERING);
  if (!opts->dump_ptx || !last) {
    GiltStatus status = run_pipeline(module, opts, pipeline);
    if (status == GILT_SUCCESS && opts->dump_ptx)
      dump_ptx(module, opts);
    return status;
  }
  /* The PTX is gone once the host code is lowered: dump it before. */
  char *head = malloc(n - k + 1);
  if (!head)
    return gilt_op_emit_error(module, "out of memory");
  memcpy(head, pipeline, n - k);
  head[n - k] = '\0';
  GiltStatus status = run_pipeline(module, opts, head);
  free(head);
  if (status == GILT_SUCCESS) {
    dump_ptx(module, opts);
    status = run_pipeline(module, opts, HOST_LOWERING);
  }
  return status;
}

/* ---- the model ------------------------------------------------------------ */

static GiltModel *model_alloc(GiltContext *ctx, const char *path)
{
  GiltModel *m = calloc(1, sizeof *m);
  if (m && path && !(m->path = strdup(path))) {
    free(m);
    m = NULL;
  }
  if (!m)
    gilt_emit_error(gilt_location_unknown_get(ctx),
                    "out of memory creating a model");
  else
    m->ctx = ctx;
  double llvm_start;
  if (m)
    m->llvm_was_running = llvm_started(&llvm_start);
  return m;
}

static GiltJitOptions jit_options(const GiltModelOptions *o)
{
  GiltJitOptions j = GILT_JIT_OPTIONS_DEFAULT;
  j.threads = o->threads;
  j.opt_level = o->opt_level;
  j.compile_threads = o->compile_threads;
  j.timing = o->timing;
  j.timing_user = o->timing_user;
  return j;
}

/* Sets the function called and its names (n, borrowed); false when out of
** memory. */
static bool set_function(GiltModel *m, const char *name, size_t n,
                         const char *const *names)
{
  m->function = strdup(name);
  m->names = calloc(n ? n : 1, sizeof *m->names);
  if (!m->function || !m->names) {
    gilt_emit_error(m->loc, "out of memory creating a model");
    return false;
  }
  for (size_t i = 0; i < n; i++)
    m->names[i] = names[i] && *names[i] ? names[i] : NULL;
  m->num_names = n;
  return true;
}

/* The model from its cache entry, or false to compile it. */
static bool load_cached(GiltModel *m, const GiltModelOptions *o)
{
  GiltJitOptions jo = jit_options(o);
  const JitCacheFunction *fn;
  double start = model_now_ms();
  m->jm = model_cache_load(m->cache, &jo, o->function, &fn);
  m->phase_ms[MODEL_PHASE_JIT] = model_now_ms() - start;
  if (!m->jm)
    return false;
  m->type = fn->type;
  m->loc = gilt_location_name_get(m->ctx, m->path, NULL);
  return set_function(m, fn->name, fn->num_names, fn->names);
}

/* The names of fn's arguments (their name locations) and results (the
** strings of `results`, when it is an array of them), as NUL-terminated
** strings borrowed from the context ("" for none); *n gets their number. */
static const char **read_names(GiltOp *fn, GiltAttr *results, size_t *n)
{
  GiltType *type = gilt_func_get_type(fn);
  size_t ni = gilt_function_type_get_num_inputs(type);
  size_t nr = gilt_function_type_get_num_results(type);
  const char **names = calloc(ni + nr + 1, sizeof *names);
  if (!names)
    return NULL;
  GiltBlock *entry = gilt_func_get_entry_block(fn);
  for (size_t i = 0; i < ni; i++) {
    const char *name =
        entry ? gilt_location_get_name(*gilt_block_arg_loc(
                    gilt_block_get_argument(entry, i)))
              : NULL;
    names[i] = name ? name : "";
  }
  for (size_t i = 0; i < nr; i++) {
    names[ni + i] = "";
    if (results && gilt_attr_get_kind(results) == GILT_ATTR_ARRAY &&
        i < gilt_array_attr_get_size(results))
      names[ni + i] = gilt_string_attr_get_value(
          gilt_array_attr_get_element(results, i), NULL);
  }
  *n = ni + nr;
  return names;
}

/* The loop-level type of the compiled entry `name` of the llvm-level
** `module`, NULL after reporting that there is none. */
static GiltType *entry_type(GiltModel *m, GiltOp *module, const char *name)
{
  size_t n;
  JitCacheFunction *fns;
  GiltType *type = NULL;
  if (jit_cache_collect_functions(module, &n, &fns))
    return NULL;
  for (size_t i = 0; i < n && !type; i++)
    if (!strcmp(fns[i].name, name))
      type = fns[i].type;
  free(fns);
  if (!type)
    gilt_emit_error(m->loc, "no compiled entry is named '%s'", name);
  return type;
}

/* Compiles (or keeps, to interpret) the lowered module. */
static GiltStatus finish_lowered(GiltModel *m, GiltOp *module,
                                 const GiltModelOptions *o)
{
  if (o->interpret) {
    GiltOp *fn = gilt_model_find_function(module, m->function);
    if (!fn)
      return GILT_FAILURE;
    m->type = gilt_func_get_type(fn);
    m->module = module;
    return GILT_SUCCESS;
  }
  GiltStatus status = GILT_SUCCESS;
  if (o->dump_llvm)
    status = gilt_llvm_emit(module, NULL, GILT_LLVM_OUTPUT_IR, o->dump_llvm,
                            o->dump_llvm_user);
  GiltJitOptions jo = jit_options(o);
  double start = model_now_ms();
  if (status == GILT_SUCCESS)
    m->jm = m->cache ? model_cache_compile(m->cache, module, &jo, m->function,
                                           m->num_names, m->names)
                     : gilt_jit_compile(module, &jo);
  m->phase_ms[MODEL_PHASE_JIT] += model_now_ms() - start;
  if (m->jm)
    m->type = entry_type(m, module, m->function);
  /* The JIT keeps nothing of the module: the weights it reads are the
  ** context's. */
  gilt_op_destroy(module);
  return m->type ? GILT_SUCCESS : GILT_FAILURE;
}

/* The rest of gilt_model_create after import: consumes `module`. The
** blobs the context made after the first `own_blobs` are the model's
** (its weights, the constants its passes folded or packed): once it is
** lowered, those it no longer reads are given back before LLVM compiles,
** so that a model's original weights and their repacked copies are not
** all resident at once. */
static GiltStatus finish(GiltModel *m, GiltOp *module, GiltAttr *output_names,
                         size_t own_blobs, const GiltModelOptions *o)
{
  GiltOp *fn = gilt_model_find_function(module, o->function);
  size_t n = 0;
  const char **names = fn ? read_names(fn, output_names, &n) : NULL;
  m->loc = gilt_op_get_location(module);
  bool ok = names && set_function(m, gilt_symbol_get_name(fn), n, names);
  free(names);
  if (!ok) {
    gilt_op_destroy(module);
    return GILT_FAILURE;
  }
  double start = model_now_ms();
  GiltStatus status = gilt_model_lower(module, o);
  m->phase_ms[MODEL_PHASE_PIPELINE] = model_now_ms() - start;
  if (status) {
    gilt_op_destroy(module);
    return GILT_FAILURE;
  }
  gilt_context_release_blobs(gilt_op_get_context(module), own_blobs, module);
  return finish_lowered(m, module, o);
}

/* Takes the device choice of `o` into m, after checking the options and,
** for a model that will run on CUDA, that the driver and a device are
** there; reports at loc. */
static GiltStatus choose_device(GiltModel *m, GiltLocation *loc,
                                const GiltModelOptions *o)
{
  m->device = o->device;
  m->compile_only = o->compile_only;
  if (check_options(loc, o))
    return GILT_FAILURE;
  if (o->device == GILT_DEVICE_CUDA && !o->compile_only)
    return cuda_check_available(loc);
  return GILT_SUCCESS;
}

/* The timing report of the whole compile (o->timing): the phases whose
** own reports came before, the pass manager's and the JIT's. */
static void report_phases(const GiltModel *m, const GiltModelOptions *o,
                          bool cached)
{
  if (!o->timing)
    return;
  const double *ms = m->phase_ms;
  double total = (ms[MODEL_PHASE_IMPORT] + ms[MODEL_PHASE_PIPELINE] +
                  ms[MODEL_PHASE_JIT]) / 1e3;
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, m->ctx);
  gilt_timing_table_begin(&sb, "... Compile phase timing report ...", total);
  if (cached) {
    gilt_timing_table_row(&sb, ms[MODEL_PHASE_JIT] / 1e3, total, 0,
                          "load from the compile cache");
  } else {
    gilt_timing_table_row(&sb, ms[MODEL_PHASE_IMPORT] / 1e3, total, 0,
                          "import");
    gilt_timing_table_row(&sb, ms[MODEL_PHASE_PIPELINE] / 1e3, total, 0,
                          "pass pipeline");
    if (!o->interpret)
      gilt_timing_table_row(&sb, ms[MODEL_PHASE_JIT] / 1e3, total, 0,
                            "JIT (LLVM)");
  }
  /* When this compile started LLVM, in whichever phase; a cached run
  ** does not. */
  double llvm_start;
  if (!m->llvm_was_running && llvm_started(&llvm_start))
    gilt_timing_table_row(&sb, llvm_start, total, 2, "start LLVM");
  gilt_timing_table_row(&sb, total, total, 0, "Total");
  o->timing(sb.data, sb.len, o->timing_user);
  gilt_strbuf_free(&sb);
}

GiltModel *gilt_model_create(GiltContext *ctx, const char *path,
                             const GiltModelOptions *opts)
{
  const GiltModelOptions *o = opts ? opts : &default_options;
  GiltModel *m = model_alloc(ctx, path);
  if (!m)
    return NULL;
  if (choose_device(m, gilt_location_name_get(ctx, path, NULL), o)) {
    gilt_model_destroy(m);
    return NULL;
  }
  /* A run that prints IR or remarks shows the passes, which a cached
  ** model skips. */
  if (o->cache_dir && *o->cache_dir && !o->interpret && !o->print_ir &&
      !o->dump_llvm && !gilt_context_wants_remarks(ctx) &&
      o->device == GILT_DEVICE_CPU)
    m->cache = model_cache_open(ctx, path, o->cache_dir, pipeline_of(o),
                                o->opt_level);
  if (m->cache && load_cached(m, o)) {
    report_phases(m, o, true);
    return m;
  }
  /* A miss, or an entry that failed a check: start again from the file. */
  gilt_jit_destroy(m->jm);
  m->jm = NULL;
  double start = model_now_ms();
  GiltAttr *output_names = NULL;
  size_t own_blobs = gilt_context_get_num_blobs(ctx);
  GiltOp *module = import(ctx, path, &output_names);
  m->phase_ms[MODEL_PHASE_IMPORT] = model_now_ms() - start;
  if (!module || finish(m, module, output_names, own_blobs, o)) {
    gilt_model_destroy(m);
    return NULL;
  }
  report_phases(m, o, false);
  return m;
}

GiltModel *gilt_model_create_from_module(GiltOp *module,
                                         const GiltModelOptions *opts)
{
  const GiltModelOptions *o = opts ? opts : &default_options;
  GiltModel *m = model_alloc(gilt_op_get_context(module), NULL);
  bool ready = m && !choose_device(m, gilt_op_get_location(module), o);
  size_t own_blobs = gilt_context_get_num_blobs(gilt_op_get_context(module));
  if (!ready || finish(m, module, NULL, own_blobs, o)) {
    if (!ready)
      gilt_op_destroy(module);
    gilt_model_destroy(m);
    return NULL;
  }
  report_phases(m, o, false);
  return m;
}

void gilt_model_destroy(GiltModel *m)
{
  if (!m)
    return;
  gilt_jit_destroy(m->jm);
  model_cache_close(m->cache); /* after the code that runs from it */
  if (m->module)
    gilt_op_destroy(m->module);
  free(m->names);
  free(m->function);
  free(m->path);
  free(m);
}

const char *gilt_model_get_function(GiltModel *m)
{
  return m->function;
}

GiltType *gilt_model_get_type(GiltModel *m)
{
  return m->type;
}

const char *gilt_model_get_input_name(GiltModel *m, size_t i)
{
  size_t ni = gilt_function_type_get_num_inputs(m->type);
  return i < ni && i < m->num_names ? m->names[i] : NULL;
}

const char *gilt_model_get_output_name(GiltModel *m, size_t i)
{
  size_t ni = gilt_function_type_get_num_inputs(m->type);
  return ni + i < m->num_names ? m->names[ni + i] : NULL;
}

GiltStatus gilt_model_call(GiltModel *m, size_t num_inputs,
                           GiltTensor *const *inputs, size_t *num_outputs,
                           GiltTensor ***outputs)
{
  if (m->compile_only) {
    *num_outputs = 0;
    *outputs = NULL;
    gilt_emit_error(m->loc, "the model was compiled only (compile_only): "
                            "nothing runs it");
    return GILT_FAILURE;
  }
  if (m->jm)
    return gilt_jit_call(m->jm, m->function, num_inputs, inputs, num_outputs,
                         outputs);
  return gilt_interpret_function(m->module, m->function, num_inputs, inputs,
                                 num_outputs, outputs);
}
