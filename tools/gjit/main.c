/*
** gjit - runs a model: imports an .onnx file or parses a .gilt module,
** lowers it through the pass pipeline, runs one of its functions on the
** given inputs, and prints, writes or checks the outputs (iree-run-module's
** conventions; options.h lists the flags).
**
** Compiling a model is the library's (include/gilt/model.h): import, the
** default pipeline, the compile cache (--cache-dir), the JIT or, under
** --interpret, the reference interpreter, and the timings of --benchmark.
** gjit reads tensors from the command line, writes and compares outputs,
** and adds what only a command line does: --aot writes the compiled model
** out as an object file and a C header (aot.c), --check and --bisect judge
** compiled code against the interpreter (check.c, bisect.c), and
** --fold-inputs binds the inputs as constants (bind_inputs.c). With
** --device=cuda the library compiles the model for an NVIDIA GPU, which
** --compile-only and --dump-ptx=FILE need no GPU for. Every
** problem is a diagnostic printed clang-style on stderr and a non-zero
** exit: 1 for a failed run or a mismatch, 2 for a usage error.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/model.h"
#include "gilt/register.h"
#include "gilt/remarks.h"
#include "jit/model.h"
#include "jit/tensor_io.h"
#include "tools/gjit/aot.h"
#include "tools/gjit/benchmark.h"
#include "tools/gjit/bind_inputs.h"
#include "tools/gjit/check.h"
#include "tools/gjit/options.h"
#include "tools/gjit/pipeline.h"
#include "tools/gjit/profile.h"

static void print_diagnostic(const GiltDiagnostic *d, void *user)
{
  gilt_diagnostic_print(d, user);
}

/* ONNX's test data stores bfloat16 tensors as uint16 (NumPy had no
** bfloat16): a ui16 tensor given where bf16 is wanted is read as the
** bf16 bit patterns it holds. Any other mismatch is left for the call to
** report. */
static void accept_legacy_bf16(GiltTensor **t, GiltType *want)
{
  GiltType *have = gilt_tensor_get_element_type(*t);
  GiltType *elem = gilt_type_is_shaped(want)
                       ? gilt_shaped_type_get_element_type(want)
                       : want;
  if (elem != gilt_float_type_get(gilt_type_get_context(want), GILT_BF16) ||
      !gilt_type_is_integer(have, 16) ||
      gilt_integer_type_get_signedness(have) != GILT_UNSIGNED)
    return;
  GiltTensor *bf16 = gilt_tensor_create(elem, gilt_tensor_get_rank(*t),
                                        gilt_tensor_get_shape(*t));
  if (!bf16)
    return;
  memcpy(gilt_tensor_get_data(bf16), gilt_tensor_get_data(*t),
         gilt_tensor_get_num_bytes(*t));
  gilt_tensor_destroy(*t);
  *t = bf16;
}

typedef struct Tensors {
  GiltTensor **data;
  size_t len;
} Tensors;

static void tensors_free(Tensors *t)
{
  gjit_free_tensors(t->len, t->data);
  *t = (Tensors){NULL, 0};
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

/* The --input tensors for a function of type `type`. */
static GiltStatus read_inputs(GiltContext *ctx, const GjitOptions *o,
                              GiltType *type, Tensors *inputs)
{
  GiltStatus status = read_specs(ctx, &o->inputs, "--input", inputs);
  for (size_t i = 0; status == GILT_SUCCESS && i < inputs->len &&
                     i < gilt_function_type_get_num_inputs(type);
       i++)
    accept_legacy_bf16(&inputs->data[i], gilt_function_type_get_input(type, i));
  return status;
}

/* Writes each output where --output says, or prints them all. */
/* As many --output as results, checked before the model runs. */
static GiltStatus check_output_count(const GjitOptions *o, GiltType *type)
{
  size_t n = gilt_function_type_get_num_results(type);
  if (o->outputs.len && o->outputs.len != n) {
    fprintf(stderr, "gjit: %zu --output given for %zu results\n",
            o->outputs.len, n);
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

static GiltStatus write_outputs(GiltContext *ctx, const GjitOptions *o,
                                GiltTensor *const *outputs, size_t n)
{
  if ((o->benchmark_runs || o->profile_runs) && !o->outputs.len)
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
    if (gjit_compare(ctx, o, name, outputs[i], expected.data[i]))
      status = GILT_FAILURE;
  }
  tensors_free(&expected);
  return status;
}

/* The model options the flags ask for; `print_ir` holds the IR printing
** configuration they point at, `ptx` the --dump-ptx file. */
static GiltModelOptions model_options(const GjitOptions *o,
                                      GiltIRPrintingConfig *print_ir,
                                      FILE *ptx)
{
  GiltModelOptions mo = GILT_MODEL_OPTIONS_DEFAULT;
  mo.function = o->function;
  mo.pipeline = o->pipeline;
  mo.interpret = o->interpret;
  mo.threads = o->threads;
  mo.compile_threads = o->compile_threads;
  mo.vector_bits = o->vector_bits;
  mo.device = o->cuda ? GILT_DEVICE_CUDA : GILT_DEVICE_CPU;
  mo.gpu_arch = o->gpu_arch;
  mo.compile_only = o->compile_only;
  if (ptx) {
    mo.dump_ptx = gilt_print_to_file;
    mo.dump_ptx_user = ptx;
  }
  /* A timed run compiles: it measures that. */
  if (!o->benchmark_runs)
    mo.cache_dir = o->cache_dir ? o->cache_dir : getenv("GILT_CACHE_DIR");
  if (o->print_ir_after_all) {
    *print_ir = gjit_print_ir_config();
    mo.print_ir = print_ir;
  }
  if (o->dump_llvm) {
    mo.dump_llvm = gilt_print_to_file;
    mo.dump_llvm_user = stderr;
  }
  if (o->timing) {
    mo.timing = gilt_print_to_file;
    mo.timing_user = stderr;
  }
  return mo;
}

/* Runs the model on the inputs (consumed), once or, under --benchmark,
** timed; then writes and checks its outputs. `import_ms` is compile time
** the model did not see (an import before gilt_model_create_from_module). */
static GiltStatus run_model(const GjitOptions *o, GiltContext *ctx,
                            GiltModel *m, Tensors *inputs, double import_ms)
{
  GiltTensor **outputs = NULL;
  size_t num_outputs = 0;
  GiltStatus status = check_output_count(o, gilt_model_get_type(m));
  if (status != GILT_SUCCESS) {
    tensors_free(inputs);
    return status;
  }
  if (o->benchmark_runs) {
    GiltModelBenchmark report;
    status = gilt_model_benchmark(m, inputs->len, inputs->data,
                                  o->benchmark_runs, &report, &num_outputs,
                                  &outputs);
    if (status == GILT_SUCCESS) {
      report.model = o->model;
      report.import_ms += import_ms;
      report.compile_ms += import_ms;
      gjit_benchmark_print(o, &report);
    }
  } else if (o->profile_runs) {
    status = gjit_profile_run(o, m, inputs->len, inputs->data, &num_outputs,
                              &outputs);
  } else {
    status = gilt_model_call(m, inputs->len, inputs->data, &num_outputs,
                             &outputs);
  }
  if (status == GILT_SUCCESS)
    status = write_outputs(ctx, o, outputs, num_outputs);
  if (status == GILT_SUCCESS)
    status = check_outputs(ctx, o, gilt_model_get_type(m), outputs,
                           num_outputs);
  gjit_free_tensors(num_outputs, outputs);
  tensors_free(inputs);
  return status;
}

/* What needs the module itself rather than a model: --aot writes it
** lowered, --check runs it both ways, --fold-inputs binds the inputs
** into it before it becomes a model. */
static GiltStatus run_module(const GjitOptions *o, GiltContext *ctx,
                             const GiltModelOptions *mo)
{
  double start = model_now_ms();
  GiltOp *module = gilt_model_import(ctx, o->model);
  double import_ms = model_now_ms() - start;
  GiltOp *fn = module ? gilt_model_find_function(module, o->function) : NULL;
  Tensors inputs = {NULL, 0};
  GiltStatus status = fn ? GILT_SUCCESS : GILT_FAILURE;
  if (status == GILT_SUCCESS && o->aot) {
    status = gilt_model_lower(module, mo);
    if (status == GILT_SUCCESS)
      status = gjit_aot_write(module, o->aot, o->model, mo->opt_level);
  } else if (status == GILT_SUCCESS) {
    status = read_inputs(ctx, o, gilt_func_get_type(fn), &inputs);
  }
  if (status == GILT_SUCCESS && o->check) {
    GiltModelOptions interpreted = *mo;
    interpreted.interpret = true;
    status = gjit_check(o, module, gilt_symbol_get_name(fn), inputs.data,
                        inputs.len,
                        o->pipeline
                            ? o->pipeline
                            : gilt_model_default_pipeline_for(&interpreted));
  } else if (status == GILT_SUCCESS && o->fold_inputs) {
    status = gjit_bind_inputs(fn, inputs.data, inputs.len);
    tensors_free(&inputs);
    GiltModel *m = NULL;
    if (status == GILT_SUCCESS) {
      m = gilt_model_create_from_module(module, mo);
      module = NULL;
    }
    status = m ? run_model(o, ctx, m, &inputs, import_ms) : GILT_FAILURE;
    gilt_model_destroy(m);
  }
  tensors_free(&inputs);
  if (module)
    gilt_op_destroy(module);
  return status;
}

/* --decisions: what the passes remarked, as JSON (gilt/remarks.h). */
static GiltStatus write_decisions(GiltContext *ctx, const char *path)
{
  FILE *f = fopen(path, "w");
  if (f)
    gilt_context_write_decisions(ctx, gilt_print_to_file, f);
  if (!f || fclose(f)) {
    fprintf(stderr, "gjit: cannot write '%s': %s\n", path, strerror(errno));
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

/* --compile-only: compiles the model and says so on stdout. */
static GiltStatus compile_only(const GjitOptions *o, GiltContext *ctx,
                               const GiltModelOptions *mo)
{
  GiltModel *m = gilt_model_create(ctx, o->model, mo);
  if (!m)
    return GILT_FAILURE;
  const char *fn = gilt_model_get_function(m);
  if (o->cuda)
    printf("compiled: %s @%s for cuda %s\n", o->model, fn,
           o->gpu_arch ? o->gpu_arch : "sm_80");
  else
    printf("compiled: %s @%s for the cpu\n", o->model, fn);
  gilt_model_destroy(m);
  return GILT_SUCCESS;
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
  if (o.dump_pipeline) {
    char *pipeline = gjit_pipeline(&o);
    if (pipeline)
      puts(pipeline);
    free(pipeline);
    gjit_options_free(&o);
    return pipeline ? 0 : 1;
  }
  GiltContext *ctx = gilt_context_create();
  if (!ctx) {
    fputs("gjit: out of memory\n", stderr);
    return 1;
  }
  gilt_register_everything(ctx);
  gilt_context_set_diagnostic_handler(ctx, print_diagnostic, stderr);
  if (o.explain)
    gilt_context_explain(ctx, o.explain);
  gilt_context_record_decisions(ctx, o.decisions != NULL);
  GiltIRPrintingConfig print_ir;
  FILE *ptx = o.dump_ptx ? fopen(o.dump_ptx, "w") : NULL;
  GiltModelOptions mo = model_options(&o, &print_ir, ptx);
  char *pipeline = gjit_pipeline(&o);
  mo.pipeline = pipeline;
  GiltStatus status;
  if (o.dump_ptx && !ptx) {
    fprintf(stderr, "gjit: cannot write '%s'\n", o.dump_ptx);
    status = GILT_FAILURE;
  } else if (!pipeline) {
    status = GILT_FAILURE;
  } else if (o.compile_only) {
    status = compile_only(&o, ctx, &mo);
  } else if (o.aot || o.check || o.fold_inputs) {
    mo.cache_dir = NULL;
    status = run_module(&o, ctx, &mo);
  } else {
    GiltModel *m = gilt_model_create(ctx, o.model, &mo);
    Tensors inputs = {NULL, 0};
    status = m ? read_inputs(ctx, &o, gilt_model_get_type(m), &inputs)
               : GILT_FAILURE;
    if (status == GILT_SUCCESS)
      status = run_model(&o, ctx, m, &inputs, 0);
    tensors_free(&inputs);
    gilt_model_destroy(m);
  }
  if (o.decisions && write_decisions(ctx, o.decisions))
    status = GILT_FAILURE;
  gilt_context_destroy(ctx);
  if (ptx && fclose(ptx)) {
    fprintf(stderr, "gjit: cannot write '%s'\n", o.dump_ptx);
    status = GILT_FAILURE;
  }
  free(pipeline);
  gjit_options_free(&o);
  return status == GILT_SUCCESS ? 0 : 1;
}
