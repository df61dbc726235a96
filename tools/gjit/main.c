/*
** gjit - runs a model: imports an .onnx file or parses a .gilt module,
** lowers it through the pass pipeline to the loop dialect, runs one of its
** functions on the given inputs, and prints, writes or checks the
** outputs (iree-run-module's conventions; options.h lists the flags).
**
** The back end is the loop dialect's reference interpreter (--interpret);
** the compiled back end comes with the llvm dialect. Every problem is a
** diagnostic printed clang-style on stderr and a non-zero exit: 1 for a
** failed run or a mismatch, 2 for a usage error.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/interpreter.h"
#include "gilt/onnx.h"
#include "gilt/pass.h"
#include "gilt/register.h"
#include "jit/tensor_io.h"
#include "tools/gjit/options.h"

/* From a model on tensors to loops: shapes first, constant subgraphs
** folded (through the interpreter), then lowered and cleaned up. */
static const char default_pipeline[] =
    "canonicalize,graph-infer-shapes,graph-fold-constants,canonicalize,cse,"
    "graph-to-loop,canonicalize,cse,loop-invariant-code-motion";

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
  GiltStatus status = gilt_pass_manager_add_pipeline(
      pm, o->pipeline ? o->pipeline : default_pipeline);
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
  GiltStatus status = GILT_SUCCESS;
  for (size_t i = 0; i < n && status == GILT_SUCCESS; i++)
    status = gilt_tensor_write_spec(ctx, outputs[i],
                                    o->outputs.len ? o->outputs.specs[i] : "-",
                                    gilt_print_to_file, stdout);
  return status;
}

/* Compares result i with --expected-output i, naming the result. */
static GiltStatus check_outputs(GiltContext *ctx, const GjitOptions *o,
                                GiltTensor *const *outputs, size_t n)
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
    char name[32];
    snprintf(name, sizeof name, "result %zu", i);
    GiltLocation *loc = gilt_location_name_get(ctx, name, NULL);
    if (gilt_tensor_compare(ctx, loc, outputs[i], expected.data[i], o->rtol,
                            o->atol))
      status = GILT_FAILURE;
  }
  tensors_free(&expected);
  return status;
}

static GiltStatus run(const GjitOptions *o, GiltContext *ctx, GiltOp *module)
{
  Tensors inputs;
  GiltTensor **outputs = NULL;
  size_t num_outputs = 0;
  GiltStatus status = read_specs(ctx, &o->inputs, "--input", &inputs);
  if (status == GILT_SUCCESS)
    status = gilt_interpret_function(module, pick_function(o, module),
                                     inputs.len, inputs.data, &num_outputs,
                                     &outputs);
  if (status == GILT_SUCCESS)
    status = write_outputs(ctx, o, outputs, num_outputs);
  if (status == GILT_SUCCESS)
    status = check_outputs(ctx, o, outputs, num_outputs);
  for (size_t i = 0; i < num_outputs; i++)
    gilt_tensor_destroy(outputs[i]);
  free(outputs);
  tensors_free(&inputs);
  return status;
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
  GiltOp *module = load_model(ctx, o.model, &text);
  GiltStatus status = module ? gilt_op_verify(module) : GILT_FAILURE;
  if (status == GILT_SUCCESS)
    status = lower(&o, module);
  if (status == GILT_SUCCESS)
    status = run(&o, ctx, module);
  if (module)
    gilt_op_destroy(module);
  gilt_context_destroy(ctx);
  free(text);
  gjit_options_free(&o);
  return status == GILT_SUCCESS ? 0 : 1;
}
