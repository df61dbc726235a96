/*
** main.c - gopt, the textual-IR pass driver, after mlir-opt.
**
** Reads a file (or stdin), and for the whole of it or for each of its
** `// -----` chunks: parses it in a fresh context (or, for a file named
** `*.onnx`, imports the ONNX model), verifies it, runs the
** pass pipeline and prints the result (textual IR or Graphviz). Every
** diagnostic goes to stderr clang-style, or to the --verify-diagnostics
** checker. The output of all chunks is collected in memory and written at
** the end, so `-o FILE` is only written when everything succeeded.
** Exit status: 0 on success, 1 on any error, 2 on a usage error.
** The option table lives in options.c; this file only acts on it.
*/
#include "tools/gopt/options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/dot.h"
#include "gilt/llvm.h"
#include "gilt/register.h"
#include "test/lib/test_lib.h"
#include "gilt/onnx.h"
#include "gilt/pass.h"
#include "gilt/remarks.h"
#include "tools/gopt/split_input.h"
#include "tools/gopt/verify_diagnostics.h"

typedef struct Driver {
  const GoptOptions *opts;
  const char *filename; /* names the input in locations and messages */
  const char *pipeline; /* from -p or the reproducer; NULL for none */
  FILE *out;            /* collects the output of every chunk */
  FILE *decisions;      /* --decisions: each chunk's remarks as JSON */
  bool onnx;            /* the input is an ONNX model, not text */
} Driver;

static void print_diagnostic(const GiltDiagnostic *d, void *user)
{
  gilt_diagnostic_print(d, user);
}

/* ---- running one chunk ------------------------------------------------- */

static void configure_pass_manager(GiltPassManager *pm, const GoptOptions *o)
{
  gilt_pass_manager_enable_verifier(pm, o->verify_each);
  if (o->print_ir_before || o->print_ir_after || o->print_ir_before_all ||
      o->print_ir_after_all || o->print_ir_after_change ||
      o->print_ir_after_failure) {
    GiltIRPrintingConfig config = {
        .before = o->print_ir_before,
        .after = o->print_ir_after,
        .before_all = o->print_ir_before_all,
        .after_all = o->print_ir_after_all,
        .after_change = o->print_ir_after_change,
        .after_failure = o->print_ir_after_failure,
        .flags = o->print_flags,
        .cb = gilt_print_to_file,
        .user = stderr};
    gilt_pass_manager_enable_ir_printing(pm, &config);
  }
  if (o->timing)
    gilt_pass_manager_enable_timing(pm, gilt_print_to_file, stderr);
  if (o->statistics)
    gilt_pass_manager_enable_statistics(pm, gilt_print_to_file, stderr);
  if (o->reproducer)
    gilt_pass_manager_enable_crash_reproducer(pm, o->reproducer);
}

/* The pass manager runs even with no pipeline, as mlir-opt's does, so
** that --timing still reports. */
static GiltStatus run_passes(const Driver *d, GiltOp *module)
{
  GiltPassManager *pm = gilt_pass_manager_create(gilt_op_get_context(module));
  configure_pass_manager(pm, d->opts);
  GiltStatus status = GILT_SUCCESS;
  if (d->pipeline)
    status = gilt_pass_manager_add_pipeline(pm, d->pipeline);
  if (status == GILT_SUCCESS)
    status = gilt_pass_manager_run(pm, module);
  gilt_pass_manager_destroy(pm);
  return status;
}

/* The module verified after parsing and, unless --no-verify-each, after
** every pass: then the printer need not verify it again. */
static GiltStatus emit(const Driver *d, GiltOp *module)
{
  static const GiltLlvmOutput llvm_outputs[] = {
      [GOPT_EMIT_LLVM] = GILT_LLVM_OUTPUT_IR,
      [GOPT_EMIT_ASM] = GILT_LLVM_OUTPUT_ASSEMBLY,
      [GOPT_EMIT_OBJ] = GILT_LLVM_OUTPUT_OBJECT};
  GiltPrintFlags flags = d->opts->print_flags;
  flags.assume_verified = d->opts->verify_each;
  switch (d->opts->emit) {
  case GOPT_EMIT_GILT:
    gilt_op_print(module, &flags, gilt_print_to_file, d->out);
    return GILT_SUCCESS;
  case GOPT_EMIT_DOT:
    gilt_op_print_dot(module, gilt_print_to_file, d->out);
    return GILT_SUCCESS;
  default:
    return gilt_llvm_emit(module, &d->opts->target,
                          llvm_outputs[d->opts->emit], gilt_print_to_file,
                          d->out);
  }
}

static bool is_onnx_path(const char *path)
{
  size_t n = strlen(path);
  return n > 5 && !strcmp(path + n - 5, ".onnx");
}

/* A model is imported from its file, which the importer maps: its weights
** are never read into memory here. */
static GiltStatus compile(const Driver *d, GiltContext *ctx, const char *text,
                          size_t len)
{
  GiltOp *module = d->onnx ? gilt_onnx_import_file(ctx, d->filename)
                           : gilt_parse_source(ctx, text, len, d->filename);
  if (!module)
    return GILT_FAILURE;
  GiltStatus status = gilt_op_verify(module);
  if (status == GILT_SUCCESS)
    status = run_passes(d, module);
  if (status == GILT_SUCCESS)
    status = emit(d, module);
  gilt_op_destroy(module);
  return status;
}

/* Each chunk gets a context of its own, so nothing one chunk defines or
** breaks can leak into the next. Under --verify-diagnostics the outcome is
** the verifier's, whatever compiling the chunk did. */
static GiltStatus process_chunk(const char *text, size_t len, size_t index,
                                void *user)
{
  Driver *d = user;
  if (index > 0)
    fputs(GOPT_SPLIT_MARKER "\n", d->out);
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_test_register_all(ctx);
  if (!ctx) {
    fputs("gopt: out of memory\n", stderr);
    return GILT_FAILURE;
  }
  gilt_context_set_allow_unregistered_dialects(ctx,
                                               d->opts->allow_unregistered);
  if (d->opts->explain)
    gilt_context_explain(ctx, d->opts->explain);
  gilt_context_record_decisions(ctx, d->decisions != NULL);
  /* A model's bytes are no source to quote in diagnostics. */
  if (!d->onnx)
    gilt_context_add_source_buffer_borrowed(ctx, d->filename, text, len);
  GiltStatus status;
  if (d->opts->verify_diagnostics) {
    GoptVerifier *v = gopt_verifier_create(ctx, d->filename, text, len);
    (void)compile(d, ctx, text, len);
    status = gopt_verifier_finish(v);
  } else {
    gilt_context_set_diagnostic_handler(ctx, print_diagnostic, stderr);
    status = compile(d, ctx, text, len);
  }
  if (d->decisions)
    gilt_context_write_decisions(ctx, gilt_print_to_file, d->decisions);
  gilt_context_destroy(ctx);
  return status;
}

/* ---- the whole run ------------------------------------------------------ */

/* A bad pipeline is reported once, up front, rather than once per chunk
** (and, under --verify-diagnostics, as an unexpected error). */
static GiltStatus check_pipeline(const char *pipeline)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_test_register_all(ctx);
  if (!ctx) {
    fputs("gopt: out of memory\n", stderr);
    return GILT_FAILURE;
  }
  gilt_context_set_diagnostic_handler(ctx, print_diagnostic, stderr);
  GiltPassManager *pm = gilt_pass_manager_create(ctx);
  GiltStatus status = gilt_pass_manager_add_pipeline(pm, pipeline);
  gilt_pass_manager_destroy(pm);
  gilt_context_destroy(ctx);
  return status;
}

/* The whole input, NUL-terminated; NULL after printing why. */
static char *read_input(const char *path, size_t *len)
{
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) {
    fprintf(stderr, "gopt: cannot open '%s': %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0, got;
  char *buf = malloc(cap);
  do {
    if (buf && n + 1 == cap) {
      char *bigger = realloc(buf, cap *= 2);
      if (!bigger)
        free(buf);
      buf = bigger;
    }
    got = buf ? fread(buf + n, 1, cap - n - 1, f) : 0;
    n += got;
  } while (got > 0);
  int err = ferror(f) ? errno : buf ? 0 : ENOMEM;
  if (f != stdin)
    fclose(f);
  if (err) {
    fprintf(stderr, "gopt: cannot read '%s': %s\n", path, strerror(err));
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

static GiltStatus write_output(const char *path, const char *text,
                               size_t len)
{
  FILE *f = path ? fopen(path, "wb") : stdout;
  bool ok = f != NULL;
  if (f) {
    ok = fwrite(text, 1, len, f) == len;
    ok = (f == stdout ? fflush(f) : fclose(f)) == 0 && ok;
  }
  if (!ok)
    fprintf(stderr, "gopt: cannot write '%s': %s\n",
            path ? path : "<stdout>", strerror(errno));
  return ok ? GILT_SUCCESS : GILT_FAILURE;
}

static int run(Driver *d, const char *buf, size_t len)
{
  if (d->pipeline && check_pipeline(d->pipeline) != GILT_SUCCESS)
    return 1;
  char *text = NULL;
  size_t text_len = 0;
  d->out = open_memstream(&text, &text_len);
  if (!d->out) {
    fprintf(stderr, "gopt: %s\n", strerror(errno));
    return 1;
  }
  if (d->opts->decisions && !(d->decisions = fopen(d->opts->decisions, "w"))) {
    fprintf(stderr, "gopt: cannot write '%s': %s\n", d->opts->decisions,
            strerror(errno));
    fclose(d->out);
    free(text);
    return 1;
  }
  GiltStatus status = gopt_split_input(buf, len, d->opts->split_input_file,
                                       process_chunk, d);
  fclose(d->out);
  if (d->decisions && fclose(d->decisions)) {
    fprintf(stderr, "gopt: cannot write '%s': %s\n", d->opts->decisions,
            strerror(errno));
    status = GILT_FAILURE;
  }
  /* A failed run leaves -o FILE alone; stdout gets what succeeded. */
  if (status == GILT_SUCCESS || !d->opts->output)
    if (write_output(d->opts->output, text, text_len) != GILT_SUCCESS)
      status = GILT_FAILURE;
  free(text);
  return status == GILT_SUCCESS ? 0 : 1;
}

/* --run-reproducer: the pipeline named by the input's first line,
** malloc'd; NULL after printing why. */
static char *read_reproducer_pipeline(const char *buf, size_t len,
                                      const char *filename)
{
  const char *pipeline;
  size_t n;
  if (gilt_reproducer_get_pipeline(buf, len, &pipeline, &n) != GILT_SUCCESS) {
    fprintf(stderr,
            "%s:1:1: error: not a reproducer: the first line must be "
            "`// gilt-reproducer: -p 'PIPELINE'`\n",
            filename);
    return NULL;
  }
  char *copy = strndup(pipeline, n);
  if (!copy)
    fputs("gopt: out of memory\n", stderr);
  return copy;
}

/* ---- --list-passes ------------------------------------------------------ */

static const char *option_kind_name(GiltPassOptionKind kind)
{
  switch (kind) {
  case GILT_OPTION_BOOL:
    return "bool";
  case GILT_OPTION_INT:
    return "int";
  case GILT_OPTION_DOUBLE:
    return "double";
  case GILT_OPTION_STRING:
    return "string";
  }
  return "?";
}

static int list_passes(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_test_register_all(ctx);
  if (!ctx) {
    fputs("gopt: out of memory\n", stderr);
    return 1;
  }
  size_t n = gilt_context_get_num_passes(ctx), width = 0;
  for (size_t i = 0; i < n; i++)
    if (strlen(gilt_context_get_pass(ctx, i)->name) > width)
      width = strlen(gilt_context_get_pass(ctx, i)->name);
  printf("Available passes:\n");
  for (size_t i = 0; i < n; i++) {
    const GiltPassDef *p = gilt_context_get_pass(ctx, i);
    printf("  %-*s  %s", (int)width, p->name, p->description);
    if (p->anchor)
      printf(" (on %s)", p->anchor);
    putchar('\n');
    for (const GiltPassOptionDef *o = p->options; o && o->name; o++)
      printf("  %*s    %s=<%s> (default: %s): %s\n", (int)width, "",
             o->name, option_kind_name(o->kind),
             o->default_value ? o->default_value : "none", o->description);
  }
  gilt_context_destroy(ctx);
  return 0;
}

int main(int argc, char **argv)
{
  GoptOptions o;
  switch (gopt_options_parse(&o, argc, argv)) {
  case GOPT_PARSE_RUN:
    break;
  case GOPT_PARSE_DONE:
    return 0;
  case GOPT_PARSE_ERROR:
    return 2;
  }
  if (o.list_passes)
    return list_passes();
  if (o.run_reproducer && o.pipeline) {
    fputs("gopt: --run-reproducer takes the pipeline from the reproducer; "
          "do not give -p too\nTry 'gopt --help' for more information.\n",
          stderr);
    return 2;
  }
  Driver d = {.opts = &o,
              .filename = strcmp(o.input, "-") ? o.input : "<stdin>",
              .pipeline = o.pipeline,
              .onnx = is_onnx_path(o.input) && !o.run_reproducer};
  /* A model's bytes are the importer's to read; the text is empty. */
  size_t len = 0;
  char *buf = d.onnx ? strdup("") : read_input(o.input, &len);
  if (!buf)
    return 1;
  char *repro_pipeline = NULL;
  int rc = 1;
  if (o.run_reproducer)
    d.pipeline = repro_pipeline =
        read_reproducer_pipeline(buf, len, d.filename);
  if (!o.run_reproducer || repro_pipeline)
    rc = run(&d, buf, len);
  free(repro_pipeline);
  free(buf);
  return rc;
}
