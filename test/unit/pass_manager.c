/*
** pass_manager.c - unit test of passes and the pass manager through the
** public API only: registering a pass with typed options, parsing and
** printing pipelines (auto-nesting included), pipeline errors with their
** columns, running op by op, statistics, timing, IR printing banners, a
** failing pass and the reproducer it leaves.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test/unit/check.h"
#include "test/unit/text.h"
#include "gilt/ir.h"
#include "gilt/register.h"
#include "test/lib/test_lib.h"
#include "gilt/pass.h"



/* The last error and its location, as `loc(...)` text. */
static Text last_error, last_error_loc;
static size_t errors_seen;

static void on_diagnostic(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  errors_seen++;
  last_error.len = last_error_loc.len = 0;
  const char *msg = gilt_diagnostic_get_message(d);
  text_append(msg, strlen(msg), &last_error);
  gilt_location_print(gilt_diagnostic_get_location(d), text_append,
                      &last_error_loc);
}

/* ---- a pass of our own -------------------------------------------------- */

static Text trace;

static const GiltPassOptionDef count_options[] = {
    {"limit", GILT_OPTION_INT, "7", "an integer"},
    {"ratio", GILT_OPTION_DOUBLE, "0.25", "a double"},
    {"label", GILT_OPTION_STRING, "x", "a string"},
    {"verbose", GILT_OPTION_BOOL, NULL, "a flag, false by default"},
    {0}};

/* Records `@name:limit:label,` for every op it runs on. */
static GiltStatus count_run(GiltPass *pass, GiltOp *op)
{
  char line[256];
  const char *sym = gilt_symbol_get_name(op);
  snprintf(line, sizeof line, "@%s:%lld:%s:%s:%g,", sym ? sym : "?",
           (long long)gilt_pass_get_option_int(pass, "limit"),
           gilt_pass_get_option_string(pass, "label"),
           gilt_pass_get_option_bool(pass, "verbose") ? "v" : "q",
           gilt_pass_get_option_double(pass, "ratio"));
  text_append(line, strlen(line), &trace);
  gilt_pass_add_statistic(pass, "runs", "Number of runs", 1);
  CHECK(gilt_pass_get_context(pass) == gilt_op_get_context(op));
  gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

static const GiltPassDef count_pass = {
    .name = "unit-count",
    .description = "counts the functions it runs on",
    .anchor = "func.func",
    .options = count_options,
    .run = count_run,
};

static const char source[] = "func.func @a() {\n"
                             "  func.return\n"
                             "}\n"
                             "func.func @b() {\n"
                             "  func.return\n"
                             "}\n";

static GiltOp *parse_module(GiltContext *ctx)
{
  GiltOp *m = gilt_parse_source(ctx, source, sizeof source - 1, "unit.gilt");
  CHECK(m != NULL);
  return m;
}

/* ---- tests -------------------------------------------------------------- */

static void test_registry(GiltContext *ctx)
{
  CHECK(gilt_context_register_pass(ctx, &count_pass) == GILT_SUCCESS);
  size_t before = errors_seen;
  /* The same definition again is harmless; another one by that name is
  ** not. */
  CHECK(gilt_context_register_pass(ctx, &count_pass) == GILT_SUCCESS);
  CHECK(errors_seen == before);
  GiltPassDef impostor = count_pass;
  CHECK(gilt_context_register_pass(ctx, &impostor) == GILT_FAILURE);
  CHECK(errors_seen == before + 1);
  size_t n = gilt_context_get_num_passes(ctx);
  bool found = false;
  for (size_t i = 0; i < n; i++) {
    const GiltPassDef *def = gilt_context_get_pass(ctx, i);
    found |= def == &count_pass;
    if (i)
      CHECK(strcmp(gilt_context_get_pass(ctx, i - 1)->name, def->name) < 0);
  }
  CHECK(found);
}

/* Parses `in`, prints it, and checks the print reads back the same. */
static void check_print(GiltContext *ctx, const char *in, const char *want)
{
  Text got = {0}, again = {0};
  GiltPassManager *pm = gilt_pass_manager_create(ctx);
  CHECK(gilt_pass_manager_add_pipeline(pm, in) == GILT_SUCCESS);
  gilt_pass_manager_print_pipeline(pm, text_append, &got);
  gilt_pass_manager_destroy(pm);
  if (strcmp(got.data, want) != 0) {
    fprintf(stderr, "pipeline '%s' printed as '%s', want '%s'\n", in,
            got.data, want);
    check_failures++;
  }
  pm = gilt_pass_manager_create(ctx);
  CHECK(gilt_pass_manager_add_pipeline(pm, got.data) == GILT_SUCCESS);
  gilt_pass_manager_print_pipeline(pm, text_append, &again);
  gilt_pass_manager_destroy(pm);
  CHECK(strcmp(again.data, got.data) == 0);
}

static void test_pipeline_text(GiltContext *ctx)
{
  check_print(ctx, "", "");
  check_print(ctx, "unit-count",
              "func.func(unit-count{limit=7 ratio=0.25 label=x "
              "verbose=false})");
  check_print(ctx, " unit-count{ label=\"a b\" verbose limit=-3 } ",
              "func.func(unit-count{limit=-3 ratio=0.25 label=\"a b\" "
              "verbose=true})");
  check_print(ctx, "unit-count{label='say \"hi\"' ratio=1e-3}",
              "func.func(unit-count{limit=7 ratio=0.001 "
              "label='say \"hi\"' verbose=false})");
  check_print(ctx, "unit-count{label=\"\"},unit-count",
              "func.func(unit-count{limit=7 ratio=0.25 label=\"\" "
              "verbose=false},unit-count{limit=7 ratio=0.25 label=x "
              "verbose=false})");
  check_print(ctx, "builtin.module(unit-count{verbose=false}),func.func()",
              "builtin.module(func.func(unit-count{limit=7 ratio=0.25 "
              "label=x verbose=false})),func.func()");
  check_print(ctx, "test-options{int-opt=5 bool-opt}",
              "test-options{int-opt=5 bool-opt=true double-opt=0.5 "
              "string-opt=\"\"}");
}

static void check_error(GiltContext *ctx, const char *pipeline,
                        const char *message, unsigned col)
{
  char loc[64];
  snprintf(loc, sizeof loc, "loc(\"<pipeline>\":1:%u)", col);
  size_t before = errors_seen;
  GiltPassManager *pm = gilt_pass_manager_create(ctx);
  CHECK(gilt_pass_manager_add_pipeline(pm, pipeline) == GILT_FAILURE);
  Text printed = {0};
  gilt_pass_manager_print_pipeline(pm, text_append, &printed);
  CHECK(printed.len == 0); /* nothing of a bad pipeline is kept */
  gilt_pass_manager_destroy(pm);
  CHECK(errors_seen == before + 1);
  if (strcmp(last_error.data, message) != 0 ||
      strcmp(last_error_loc.data, loc) != 0) {
    fprintf(stderr, "pipeline '%s': got %s '%s', want %s '%s'\n", pipeline,
            last_error_loc.data, last_error.data, loc, message);
    check_failures++;
  }
}

static void test_pipeline_errors(GiltContext *ctx)
{
  check_error(ctx, "bogus", "'bogus' does not refer to a registered pass", 1);
  check_error(ctx, "unit-count,,", "expected a pass or op name", 12);
  check_error(ctx, "unit-count,", "expected a pass or op name", 12);
  check_error(ctx, "func.func(unit-count", "expected ')'", 21);
  check_error(ctx, "func.func(unit-count x)", "expected ')'", 22);
  check_error(ctx, "unit-count)", "expected ',' or end of pipeline", 11);
  check_error(ctx, "unit-count{nope=1}",
              "no option named 'nope' for pass 'unit-count'", 12);
  check_error(ctx, "unit-count{limit=abc}",
              "invalid value 'abc' for integer option 'limit' of pass "
              "'unit-count'",
              18);
  check_error(ctx, "unit-count{limit=99999999999999999999}",
              "invalid value '99999999999999999999' for integer option "
              "'limit' of pass 'unit-count'",
              18);
  check_error(ctx, "unit-count{ratio=x1}",
              "invalid value 'x1' for floating-point option 'ratio' of "
              "pass 'unit-count'",
              18);
  check_error(ctx, "unit-count{verbose=yes}",
              "invalid value 'yes' for boolean option 'verbose' of pass "
              "'unit-count'",
              20);
  check_error(ctx, "unit-count{limit}",
              "missing value for integer option 'limit' of pass "
              "'unit-count'",
              17);
  check_error(ctx, "unit-count{limit=1 limit=2}",
              "option 'limit' of pass 'unit-count' is given twice", 20);
  check_error(ctx, "unit-count{label=\"abc}",
              "unterminated value of option 'label' of pass 'unit-count'",
              18);
  check_error(ctx, "unit-count{limit=1", "expected '}'", 19);
  check_error(ctx, "unit-count{=1}", "expected an option name or '}'", 12);
}

static void test_run(GiltContext *ctx)
{
  GiltOp *m = parse_module(ctx);
  if (!m)
    return;
  Text stats = {0}, timing = {0};
  GiltPassManager *pm = gilt_pass_manager_create(ctx);
  gilt_pass_manager_enable_statistics(pm, text_append, &stats);
  gilt_pass_manager_enable_timing(pm, text_append, &timing);
  CHECK(gilt_pass_manager_add_pipeline(pm, "unit-count{limit=2},"
                                           "unit-count{label=y verbose}") ==
        GILT_SUCCESS);
  trace.len = 0;
  CHECK(gilt_pass_manager_run(pm, m) == GILT_SUCCESS);
  /* Auto-nested into one func.func(...) nest: op by op. */
  CHECK(strcmp(trace.data, "@a:2:x:q:0.25,@a:7:y:v:0.25,"
                           "@b:2:x:q:0.25,@b:7:y:v:0.25,") == 0);
  CHECK(strstr(stats.data, "... Pass statistics report ...") != NULL);
  CHECK(strstr(stats.data, "\n'func.func' Pipeline\n  unit-count\n"
                           "    (S) 2 runs - Number of runs\n") != NULL);
  CHECK(strstr(timing.data, "... Pass execution timing report ...") != NULL);
  CHECK(strstr(timing.data, "  ----Wall Time----  ----Name----\n") != NULL);
  CHECK(strstr(timing.data, "'func.func' Pipeline\n") != NULL);
  CHECK(strstr(timing.data, "    unit-count\n") != NULL);
  CHECK(strstr(timing.data, "(100.0%)  Total\n") != NULL);

  /* A second run reports that run alone. */
  stats.len = 0;
  CHECK(gilt_pass_manager_run(pm, m) == GILT_SUCCESS);
  CHECK(strstr(stats.data, "(S) 2 runs") != NULL);
  gilt_pass_manager_destroy(pm);

  /* Anchored on the root's own name, the nest runs on the root. */
  pm = gilt_pass_manager_create(ctx);
  CHECK(gilt_pass_manager_add_pipeline(pm, "func.func(unit-count)") ==
        GILT_SUCCESS);
  trace.len = 0;
  CHECK(gilt_pass_manager_run(pm, gilt_symbol_table_lookup(m, "b")) ==
        GILT_SUCCESS);
  CHECK(strcmp(trace.data, "@b:7:x:q:0.25,") == 0);
  gilt_pass_manager_destroy(pm);
  gilt_op_destroy(m);
}

static void test_ir_printing(GiltContext *ctx)
{
  GiltOp *m = parse_module(ctx);
  if (!m)
    return;
  Text out = {0};
  GiltIRPrintingConfig config = {.before = "unit-count",
                                 .after_all = true,
                                 .after_change = true,
                                 .cb = text_append,
                                 .user = &out};
  GiltPassManager *pm = gilt_pass_manager_create(ctx);
  gilt_pass_manager_enable_ir_printing(pm, &config);
  CHECK(gilt_pass_manager_add_pipeline(pm, "unit-count,test-options") ==
        GILT_SUCCESS);
  CHECK(gilt_pass_manager_run(pm, m) == GILT_SUCCESS);
  CHECK(strstr(out.data, "// -----// IR Dump Before unit-count "
                         "('func.func' operation: @a) //----- //\n") ==
        out.data);
  CHECK(strstr(out.data, "('func.func' operation: @b)") != NULL);
  /* Both passes declare the IR unchanged: nothing after. */
  CHECK(strstr(out.data, "IR Dump After") == NULL);
  CHECK(strstr(out.data, "test-options") == NULL);
  gilt_pass_manager_destroy(pm);
  gilt_op_destroy(m);
}

static void test_failure(GiltContext *ctx)
{
  GiltOp *m = parse_module(ctx);
  if (!m)
    return;
  char path[] = "/tmp/gilt-unit-repro.XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);

  Text out = {0};
  GiltIRPrintingConfig config = {.after_failure = true,
                                 .cb = text_append,
                                 .user = &out};
  GiltPassManager *pm = gilt_pass_manager_create(ctx);
  gilt_pass_manager_enable_ir_printing(pm, &config);
  gilt_pass_manager_enable_crash_reproducer(pm, path);
  CHECK(gilt_pass_manager_add_pipeline(
            pm, "unit-count,func.func(test-pass-failure),unit-count") ==
        GILT_SUCCESS);
  size_t before = errors_seen;
  trace.len = 0;
  CHECK(gilt_pass_manager_run(pm, m) == GILT_FAILURE);
  CHECK(errors_seen == before + 1);
  CHECK(strstr(last_error.data, "failing as asked") != NULL);
  /* The first nest ran fully; the failure on @a stopped the rest. */
  CHECK(strcmp(trace.data, "@a:7:x:q:0.25,@b:7:x:q:0.25,") == 0);
  CHECK(strstr(out.data, "// -----// IR Dump After test-pass-failure Failed "
                         "('func.func' operation: @a) //----- //\n") ==
        out.data);
  gilt_pass_manager_destroy(pm);

  char buf[4096] = {0};
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f)
    fclose(f);
  remove(path);
  const char *want = "// gilt-reproducer: -p 'builtin.module(func.func("
                     "test-pass-failure{crash=false}))'\n";
  CHECK(strncmp(buf, want, strlen(want)) == 0);
  CHECK(strstr(buf, "\"func.func\"()") != NULL); /* generic form */
  const char *pipeline;
  size_t n;
  CHECK(gilt_reproducer_get_pipeline(buf, len, &pipeline, &n) ==
        GILT_SUCCESS);
  CHECK(n == strlen(want) - 26 &&
        strncmp(pipeline, "builtin.module(func.func(", 25) == 0);
  gilt_op_destroy(m);
}

static void test_reproducer_line(void)
{
  const char *p;
  size_t n;
  const char *ok = "// gilt-reproducer: -p 'a{s='x y'}'\nrest";
  CHECK(gilt_reproducer_get_pipeline(ok, strlen(ok), &p, &n) == GILT_SUCCESS);
  CHECK(n == 10 && strncmp(p, "a{s='x y'}", n) == 0);
  const char *empty = "// gilt-reproducer: -p ''";
  CHECK(gilt_reproducer_get_pipeline(empty, strlen(empty), &p, &n) ==
        GILT_SUCCESS);
  CHECK(n == 0);
  const char *bad[] = {"", "// gilt-reproducer: -p '", "// other\n",
                       "// gilt-reproducer: -p 'x\n'"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK(gilt_reproducer_get_pipeline(bad[i], strlen(bad[i]), &p, &n) ==
          GILT_FAILURE);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_test_register_all(ctx);
  gilt_context_set_diagnostic_handler(ctx, on_diagnostic, NULL);
  test_registry(ctx);
  test_pipeline_text(ctx);
  test_pipeline_errors(ctx);
  test_run(ctx);
  test_ir_printing(ctx);
  test_failure(ctx);
  test_reproducer_line();
  gilt_context_destroy(ctx);
  if (check_failures)
    fprintf(stderr, "%d checks failed\n", check_failures);
  return check_failures ? 1 : 0;
}
