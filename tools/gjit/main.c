/*
** gjit - runs a model: imports an .onnx file or parses a .gilt module,
** lowers it through the pass pipeline to the loop dialect, runs one of its
** functions on the given inputs, and prints, writes or checks the
** outputs (iree-run-module's conventions; options.h lists the flags).
**
** The default back end compiles: the module is lowered on to the llvm
** dialect, translated to LLVM IR and JIT-compiled with ORC, and the
** function is called through libffi (include/gilt/jit.h). --interpret runs
** the loop level on the reference interpreter instead. --aot writes the
** compiled model out as an object file and a C header (aot.c) instead of
** running it; --cache-dir keeps compiled models and runs a stored one
** without importing or lowering anything (cache.c). Every problem is a
** diagnostic printed clang-style on stderr and a non-zero exit: 1 for a
** failed run or a mismatch, 2 for a usage error.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/dialect.h"
#include "gilt/interpreter.h"
#include "gilt/jit.h"
#include "gilt/llvm.h"
#include "gilt/onnx.h"
#include "gilt/pass.h"
#include "gilt/register.h"
#include "jit/tensor_io.h"
#include "tools/gjit/aot.h"
#include "tools/gjit/benchmark.h"
#include "tools/gjit/bind_inputs.h"
#include "tools/gjit/cache.h"
#include "tools/gjit/check.h"
#include "tools/gjit/options.h"

/* From a model on tensors to loops: shapes first, constant subgraphs
** folded (through the interpreter), then lowered and cleaned up; buffers
** are freed after their last use last, once no pass moves ops any more. */
static const char interpret_pipeline[] =
    "canonicalize,graph-infer-shapes,graph-fold-constants,canonicalize,cse,"
    "graph-to-loop,loop-expand-math,canonicalize,cse,"
    "loop-invariant-code-motion,loop-buffer-deallocation";
/* The same, then on to the llvm dialect. */
static const char compile_pipeline[] =
    "canonicalize,graph-infer-shapes,graph-fold-constants,canonicalize,cse,"
    "graph-to-loop,loop-expand-math,canonicalize,cse,"
    "loop-invariant-code-motion,loop-buffer-deallocation,loop-to-llvm";

static const GiltJitOptions jit_defaults = GILT_JIT_OPTIONS_DEFAULT;

static void print_diagnostic(const GiltDiagnostic *d, void *user)
{
  gilt_diagnostic_print(d, user);
}

static bool has_suffix(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The whole file, NUL-terminated, or NULL after printing why. */
static char *read_text(const char *path, size_t *len)
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
  fprintf(stderr, "gjit: cannot read '%s'\n", path);
  if (f)
    fclose(f);
  free(buf);
  return NULL;
}

static GiltOp *load_model(GiltContext *ctx, const char *path, char **text)
{
  if (has_suffix(path, ".onnx"))
    return gilt_onnx_import_file(ctx, path);
  size_t len;
  if (!(*text = read_text(path, &len)))
    return NULL;
  gilt_context_add_source_buffer_borrowed(ctx, path, *text, len);
  return gilt_parse_source(ctx, *text, len, path);
}

static const char *pipeline_of(const GjitOptions *o)
{
  return o->pipeline    ? o->pipeline
         : o->interpret ? interpret_pipeline
                        : compile_pipeline;
}

static GiltStatus lower(const GjitOptions *o, GiltOp *module)
{
  GiltPassManager *pm = gilt_pass_manager_create(gilt_op_get_context(module));
  gilt_pass_manager_enable_verifier(pm, true);
  if (o->print_ir_after_all) {
    GiltIRPrintingConfig config = {0};
    config.after_all = true;
    config.flags.elide_elements_larger_than = 16;
    config.cb = gilt_print_to_file;
    config.user = stderr;
    gilt_pass_manager_enable_ir_printing(pm, &config);
  }
  GiltStatus status = gilt_pass_manager_add_pipeline(pm, pipeline_of(o));
  if (status == GILT_SUCCESS)
    status = gilt_pass_manager_run(pm, module);
  gilt_pass_manager_destroy(pm);
  return status;
}

/* --function, else @main, else the module's only function. */
static const char *pick_function(const GjitOptions *o, GiltOp *module)
{
  if (o->function)
    return o->function;
  const char *only = NULL;
  size_t count = 0;
  for (GiltOp *op = gilt_block_get_first_op(gilt_module_get_body(module)); op;
       op = gilt_op_get_next(op)) {
    if (strcmp(gilt_op_get_name(op), "func.func"))
      continue;
    const char *name = gilt_symbol_get_name(op);
    if (!strcmp(name, "main"))
      return name;
    only = name;
    count++;
  }
  return count == 1 ? only : "main";
}

/* ONNX's test data stores bfloat16 tensors as uint16 (NumPy had no
** bfloat16): a ui16 tensor given where bf16 is wanted is read as the
** bf16 bit patterns it holds. Any other mismatch is left for the
** interpreter to report. */
static void accept_legacy_bf16(GiltTensor **t, GiltType *want)
{
  GiltType *have = gilt_tensor_get_element_type(*t);
  if (!gilt_type_is_shaped(want) ||
      gilt_shaped_type_get_element_type(want) !=
          gilt_float_type_get(gilt_type_get_context(want), GILT_BF16) ||
      !gilt_type_is_integer(have, 16) ||
      gilt_integer_type_get_signedness(have) != GILT_UNSIGNED)
    return;
  GiltTensor *bf16 = gilt_tensor_create(gilt_shaped_type_get_element_type(want),
                                        gilt_tensor_get_rank(*t),
                                        gilt_tensor_get_shape(*t));
  if (!bf16)
    return;
  memcpy(gilt_tensor_get_data(bf16), gilt_tensor_get_data(*t),
         gilt_tensor_get_num_bytes(*t));
  gilt_tensor_destroy(*t);
  *t = bf16;
}

/* The function @name of the module, NULL when there is none. */
static GiltOp *find_function(GiltOp *module, const char *name)
{
  for (GiltOp *op = gilt_block_get_first_op(gilt_module_get_body(module)); op;
       op = gilt_op_get_next(op))
    if (!strcmp(gilt_op_get_name(op), "func.func") &&
        !strcmp(gilt_symbol_get_name(op), name))
      return op;
  return NULL;
}

typedef struct Tensors {
  GiltTensor **data;
  size_t len;
} Tensors;

static void tensors_free(Tensors *t)
{
  for (size_t i = 0; i < t->len; i++)
    gilt_tensor_destroy(t->data[i]);
  free(t->data);
}

static GiltStatus read_specs(GiltContext *ctx, const GjitSpecs *specs,
                             const char *what, Tensors *out)
{
  out->data = calloc(specs->len + 1, sizeof *out->data);
  out->len = 0;
  for (size_t i = 0; i < specs->len; i++) {
    GiltTensor *t = gilt_tensor_read_spec(ctx, specs->specs[i], what);
    if (!t)
      return GILT_FAILURE;
    out->data[out->len++] = t;
  }
  return GILT_SUCCESS;
}

/* Writes each output where --output says, or prints them all. */
static GiltStatus write_outputs(GiltContext *ctx, const GjitOptions *o,
                                GiltTensor *const *outputs, size_t n)
{
  if (o->outputs.len && o->outputs.len != n) {
    fprintf(stderr, "gjit: %zu --output given for %zu results\n",
            o->outputs.len, n);
    return GILT_FAILURE;
  }
  if (o->benchmark_runs && !o->outputs.len)
    return GILT_SUCCESS;
  GiltStatus status = GILT_SUCCESS;
  for (size_t i = 0; i < n && status == GILT_SUCCESS; i++)
    status = gilt_tensor_write_spec(ctx, outputs[i],
                                    o->outputs.len ? o->outputs.specs[i] : "-",
                                    gilt_print_to_file, stdout);
  return status;
}

/* Compares result i with --expected-output i, naming the result. */
static GiltStatus check_outputs(GiltContext *ctx, const GjitOptions *o,
                                GiltType *type, GiltTensor *const *outputs,
                                size_t n)
{
  if (!o->expected.len)
    return GILT_SUCCESS;
  if (o->expected.len != n) {
    fprintf(stderr, "gjit: %zu --expected-output given for %zu results\n",
            o->expected.len, n);
    return GILT_FAILURE;
  }
  Tensors expected;
  GiltStatus status = read_specs(ctx, &o->expected, "--expected-output",
                                 &expected);
  for (size_t i = 0; status == GILT_SUCCESS && i < n; i++) {
    accept_legacy_bf16(&expected.data[i],
                       gilt_function_type_get_result(type, i));
    char name[32];
    snprintf(name, sizeof name, "result %zu", i);
    GiltLocation *loc = gilt_location_name_get(ctx, name, NULL);
    GiltStatus same =
        o->bitwise ? gilt_tensor_compare_bits(ctx, loc, outputs[i],
                                              expected.data[i])
        : o->l2 >= 0 ? gilt_tensor_compare_l2(ctx, loc, outputs[i],
                                              expected.data[i], o->l2)
                     : gilt_tensor_compare(ctx, loc, outputs[i],
                                           expected.data[i], o->rtol,
                                           o->atol);
    if (same)
      status = GILT_FAILURE;
  }
  tensors_free(&expected);
  return status;
}

/* Runs @name of the lowered module on the back end the options pick,
** compiled through the cache when there is one; once or, under
** --benchmark, timed (benchmark.c). */
static GiltStatus execute(const GjitOptions *o, GjitCache *cache,
                          GjitTimes *times,
                          GiltOp *module, const char *name,
                          const Tensors *inputs, size_t *num_outputs,
                          GiltTensor ***outputs)
{
  GjitCallee callee = {NULL, module, name, inputs->len, inputs->data};
  if (!o->interpret) {
    if (o->dump_llvm && gilt_llvm_emit(module, NULL, GILT_LLVM_OUTPUT_IR,
                                       gilt_print_to_file, stderr))
      return GILT_FAILURE;
    GiltJitOptions opts = jit_defaults;
    opts.threads = o->threads;
    gjit_phase_begin(times);
    callee.jm = cache ? gjit_cache_compile(cache, module, &opts)
                      : gilt_jit_compile(module, &opts);
    gjit_phase_end(times, GJIT_PHASE_JIT);
    if (!callee.jm)
      return GILT_FAILURE;
  }
  GiltStatus status =
      o->benchmark_runs
          ? gjit_benchmark_run(o, times, &callee, num_outputs, outputs)
          : gjit_callee_call(&callee, num_outputs, outputs);
  gilt_jit_destroy(callee.jm);
  return status;
}

/* Reads the inputs, lowers the module (with the inputs bound as constants
** under --fold-inputs), runs the function and handles its outputs. The
** function's type is read before lowering: its results' tensor types are
** what the outputs are checked against. */
static GiltStatus run(const GjitOptions *o, GjitCache *cache,
                      GiltContext *ctx, GiltOp *module, GjitTimes *times)
{
  Tensors inputs;
  GiltTensor **outputs = NULL;
  size_t num_outputs = 0;
  const char *name = pick_function(o, module);
  GiltOp *fn = find_function(module, name);
  if (!fn)
    return gilt_op_emit_error(module, "has no func.func named '%s'", name);
  GiltType *type = gilt_func_get_type(fn);
  GiltStatus status = read_specs(ctx, &o->inputs, "--input", &inputs);
  for (size_t i = 0; status == GILT_SUCCESS && i < inputs.len &&
                     i < gilt_function_type_get_num_inputs(type);
       i++)
    accept_legacy_bf16(&inputs.data[i], gilt_function_type_get_input(type, i));
  if (status == GILT_SUCCESS && o->fold_inputs) {
    status = gjit_bind_inputs(fn, inputs.data, inputs.len);
    tensors_free(&inputs);
    inputs = (Tensors){NULL, 0};
  }
  if (status == GILT_SUCCESS && o->check) {
    status = gjit_check(o, module, name, inputs.data, inputs.len,
                        o->pipeline ? o->pipeline : interpret_pipeline);
    tensors_free(&inputs);
    return status;
  }
  gjit_phase_begin(times);
  if (status == GILT_SUCCESS)
    status = lower(o, module);
  gjit_phase_end(times, GJIT_PHASE_PIPELINE);
  if (status == GILT_SUCCESS && o->aot) {
    tensors_free(&inputs);
    return gjit_aot_write(module, o->aot, o->model, jit_defaults.opt_level);
  }
  if (status == GILT_SUCCESS)
    status = execute(o, cache, times, module, name, &inputs, &num_outputs,
                     &outputs);
  if (status == GILT_SUCCESS)
    status = write_outputs(ctx, o, outputs, num_outputs);
  if (status == GILT_SUCCESS)
    status = check_outputs(ctx, o, type, outputs, num_outputs);
  for (size_t i = 0; i < num_outputs; i++)
    gilt_tensor_destroy(outputs[i]);
  free(outputs);
  tensors_free(&inputs);
  return status;
}

/* run() from a compile cache entry, with no module: true when the entry
** was there and valid and *status is the run's; false to compile. */
static bool run_cached(const GjitOptions *o, GjitCache *cache,
                       GiltContext *ctx, GiltStatus *status)
{
  GiltJitOptions opts = jit_defaults;
  opts.threads = o->threads;
  const char *name;
  GiltType *type;
  GiltJitModule *jm = gjit_cache_load(cache, &opts, o->function, &name, &type);
  if (!jm)
    return false;
  Tensors inputs;
  GiltTensor **outputs = NULL;
  size_t num_outputs = 0;
  *status = read_specs(ctx, &o->inputs, "--input", &inputs);
  for (size_t i = 0; *status == GILT_SUCCESS && i < inputs.len &&
                     i < gilt_function_type_get_num_inputs(type);
       i++)
    accept_legacy_bf16(&inputs.data[i], gilt_function_type_get_input(type, i));
  if (*status == GILT_SUCCESS)
    *status = gilt_jit_call(jm, name, inputs.len, inputs.data, &num_outputs,
                            &outputs);
  if (*status == GILT_SUCCESS)
    *status = write_outputs(ctx, o, outputs, num_outputs);
  if (*status == GILT_SUCCESS)
    *status = check_outputs(ctx, o, type, outputs, num_outputs);
  for (size_t i = 0; i < num_outputs; i++)
    gilt_tensor_destroy(outputs[i]);
  free(outputs);
  tensors_free(&inputs);
  gilt_jit_destroy(jm);
  return true;
}

int main(int argc, char **argv)
{
  GjitOptions o;
  switch (gjit_options_parse(&o, argc, argv)) {
  case GJIT_PARSE_DONE:
    return 0;
  case GJIT_PARSE_ERROR:
    gjit_options_free(&o);
    return 2;
  case GJIT_PARSE_RUN:
    break;
  }
  GiltContext *ctx = gilt_context_create();
  if (!ctx) {
    fputs("gjit: out of memory\n", stderr);
    return 1;
  }
  gilt_register_everything(ctx);
  gilt_context_set_diagnostic_handler(ctx, print_diagnostic, stderr);
  char *text = NULL;
  GiltOp *module = NULL;
  GiltStatus status = GILT_FAILURE;
  GjitTimes times = {0};
  /* A timed, checked or dumped run compiles: it measures or shows that. */
  GjitCache *cache =
      o.benchmark_runs || o.check || o.dump_llvm
          ? NULL
          : gjit_cache_open(&o, ctx, pipeline_of(&o), jit_defaults.opt_level);
  if (!cache || !run_cached(&o, cache, ctx, &status)) {
    gjit_phase_begin(&times);
    module = load_model(ctx, o.model, &text);
    status = module ? gilt_op_verify(module) : GILT_FAILURE;
    gjit_phase_end(&times, GJIT_PHASE_IMPORT);
    if (status == GILT_SUCCESS)
      status = run(&o, cache, ctx, module, &times);
  }
  gjit_cache_close(cache);
  if (module)
    gilt_op_destroy(module);
  gilt_context_destroy(ctx);
  free(text);
  gjit_options_free(&o);
  return status == GILT_SUCCESS ? 0 : 1;
}
