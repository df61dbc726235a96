/*
** pass_instrumentation.c - what the pass manager does around each pass
** besides running it: printing the IR before and after passes, and the
** timing and statistics reports at the end of a run.
**
** The formats are mlir-opt's, so that tools and habits carry over:
**
**     // -----// IR Dump After cse ('func.func' operation: @f) //----- //
**
** (the op is named only when it is not the root of the run), a timing table
** with Wall Time and Name columns and a Total row, and a statistics report
** listing `(S) value name - description` under each pass. Printing "after
** change" compares the op's text before and after the pass, unless the pass
** declared itself unchanged. The crash reproducer is pass_reproducer.c's;
** measuring time is pass_manager.c's (this file only reports it).
*/
#include "ir/pass/pass_manager.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/support/timing_table.h"

void gilt_instrumentation_init(GiltPassInstrumentation *in, GiltContext *ctx)
{
  memset(in, 0, sizeof *in);
  in->ctx = ctx;
  gilt_strbuf_init(&in->before_text, ctx);
  gilt_reproducer_init(&in->reproducer, ctx);
}

void gilt_instrumentation_free(GiltPassInstrumentation *in)
{
  gilt_free(in->ctx, in->print_before);
  gilt_free(in->ctx, in->print_after);
  gilt_strbuf_free(&in->before_text);
  gilt_reproducer_free(&in->reproducer);
}

static char *copy_list(GiltContext *ctx, const char *list)
{
  return gilt_strndup(ctx, list ? list : "", list ? strlen(list) : 0);
}

void gilt_pass_manager_enable_ir_printing(GiltPassManager *pm,
                                          const GiltIRPrintingConfig *config)
{
  GiltPassInstrumentation *in = &pm->instr;
  gilt_free(in->ctx, in->print_before);
  gilt_free(in->ctx, in->print_after);
  in->print = *config;
  in->print_before = copy_list(in->ctx, config->before);
  in->print_after = copy_list(in->ctx, config->after);
  in->print.before = in->print_before;
  in->print.after = in->print_after;
  in->print_ir = config->cb != NULL;
}

void gilt_pass_manager_enable_timing(GiltPassManager *pm,
                                     GiltStringCallback cb, void *user)
{
  pm->instr.timing_cb = cb;
  pm->instr.timing_user = user;
}

void gilt_pass_manager_enable_statistics(GiltPassManager *pm,
                                         GiltStringCallback cb, void *user)
{
  pm->instr.stats_cb = cb;
  pm->instr.stats_user = user;
}

/* ---- IR printing -------------------------------------------------------- */

/* Whether `name` is one of the comma-separated names of `list`. */
static bool list_has(const char *list, const char *name)
{
  size_t len = strlen(name);
  for (const char *p = list; *p;) {
    while (*p == ' ' || *p == ',')
      p++;
    size_t n = strcspn(p, ", ");
    if (n == len && memcmp(p, name, len) == 0)
      return true;
    p += n;
  }
  return false;
}

static bool wants_before(GiltPassInstrumentation *in, GiltPass *pass)
{
  return in->print_ir &&
         (in->print.before_all || list_has(in->print.before, pass->def->name));
}

/* After-change alone means "after every pass that changed the IR". */
static bool wants_after(GiltPassInstrumentation *in, GiltPass *pass)
{
  if (!in->print_ir)
    return false;
  if (in->print.after_all || list_has(in->print.after, pass->def->name))
    return true;
  return in->print.after_change && !*in->print.after;
}

static void print_op_text(GiltOp *op, const GiltPrintFlags *flags,
                          GiltStrBuf *sb)
{
  gilt_op_print(op, flags, gilt_strbuf_callback, sb);
}

/* `// -----// IR Dump After cse ('func.func' operation: @f) //----- //`,
** the op, and a blank line. `when` is "Before", "After" or "After" with
** `failed`, which reads "After cse Failed" as in MLIR. */
static void dump(GiltPassInstrumentation *in, const char *when, bool failed,
                 GiltPass *pass, GiltOp *op)
{
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, in->ctx);
  gilt_strbuf_printf(&sb, "// -----// IR Dump %s %s%s", when, pass->def->name,
                     failed ? " Failed" : "");
  if (op != in->root) {
    const char *sym = gilt_symbol_get_name(op);
    gilt_strbuf_printf(&sb, " ('%s' operation%s%s)", gilt_op_get_name(op),
                       sym ? ": @" : "", sym ? sym : "");
  }
  gilt_strbuf_printf(&sb, " //----- //\n");
  print_op_text(op, &in->print.flags, &sb);
  if (sb.len && sb.data[sb.len - 1] != '\n')
    gilt_strbuf_append(&sb, "\n", 1);
  gilt_strbuf_append(&sb, "\n", 1);
  in->print.cb(sb.data, sb.len, in->print.user);
  gilt_strbuf_free(&sb);
}

/* The full text (generic form, locations) tells any change apart. */
static void snapshot(GiltOp *op, GiltStrBuf *sb)
{
  GiltPrintFlags flags = {.generic = true, .debug_info = true};
  sb->len = 0;
  print_op_text(op, &flags, sb);
}

/* Whether the pass changed op; for after_change only, which took the
** snapshot before the pass. */
static bool changed(GiltPassInstrumentation *in, GiltPass *pass, GiltOp *op)
{
  if (pass->unchanged)
    return false;
  GiltStrBuf now;
  gilt_strbuf_init(&now, in->ctx);
  snapshot(op, &now);
  bool differs = now.len != in->before_text.len ||
                 (now.len && memcmp(now.data, in->before_text.data, now.len));
  gilt_strbuf_free(&now);
  return differs;
}

void gilt_instrumentation_before_pass(GiltPassInstrumentation *in,
                                      GiltPass *pass, GiltOp *op)
{
  if (wants_before(in, pass))
    dump(in, "Before", false, pass, op);
  if (in->print.after_change && wants_after(in, pass))
    snapshot(op, &in->before_text);
  if (in->reproducer.path)
    gilt_reproducer_prepare(&in->reproducer, pass, op, in->root);
}

void gilt_instrumentation_after_pass(GiltPassInstrumentation *in,
                                     GiltPass *pass, GiltOp *op,
                                     GiltStatus status)
{
  if (status != GILT_SUCCESS) {
    if (in->print_ir && (in->print.after_failure || wants_after(in, pass)))
      dump(in, "After", true, pass, op);
    if (in->reproducer.path)
      gilt_reproducer_write(&in->reproducer, op);
    return;
  }
  if (wants_after(in, pass) &&
      (!in->print.after_change || changed(in, pass, op)))
    dump(in, "After", false, pass, op);
}

/* ---- reports ------------------------------------------------------------ */

/* One row; a nested pipeline reads `'func.func' Pipeline`. */
static void timing_rows(GiltStrBuf *sb, GiltPipeline *pl, double total,
                        int indent)
{
  for (size_t i = 0; i < pl->entries.len; i++) {
    GiltPipelineEntry *e = &pl->entries.data[i];
    if (e->pass) {
      gilt_timing_table_row(sb, e->pass->seconds, total, indent,
                            e->pass->def->name);
      continue;
    }
    char name[160]; /* an op name: 'func.func' */
    snprintf(name, sizeof name, "'%s' Pipeline", e->nested->anchor);
    gilt_timing_table_row(sb, e->nested->seconds, total, indent, name);
    timing_rows(sb, e->nested, total, indent + 2);
  }
}

static void report_timing(GiltPassInstrumentation *in, GiltPipeline *pl)
{
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, in->ctx);
  gilt_timing_table_begin(&sb, "... Pass execution timing report ...",
                          in->total_seconds);
  timing_rows(&sb, pl, in->total_seconds, 0);
  gilt_timing_table_row(&sb, in->total_seconds, in->total_seconds, 0,
                        "Total");
  in->timing_cb(sb.data, sb.len, in->timing_user);
  gilt_strbuf_free(&sb);
}

static int compare_statistics(const void *a, const void *b)
{
  return strcmp(((const GiltPassStatistic *)a)->name,
                ((const GiltPassStatistic *)b)->name);
}

/* `(S) value name - description`, the values right-aligned per pass. */
static void statistics_rows(GiltStrBuf *sb, GiltPass *pass, int indent)
{
  int width = 1;
  for (size_t i = 0; i < pass->stats.len; i++) {
    int w = snprintf(NULL, 0, "%lld", (long long)pass->stats.data[i].value);
    width = w > width ? w : width;
  }
  if (pass->stats.len)
    qsort(pass->stats.data, pass->stats.len, sizeof *pass->stats.data,
          compare_statistics);
  for (size_t i = 0; i < pass->stats.len; i++) {
    GiltPassStatistic *st = &pass->stats.data[i];
    gilt_strbuf_printf(sb, "%*s(S) %*lld %s - %s\n", indent, "", width,
                       (long long)st->value, st->name, st->description);
  }
}

static void statistics_tree(GiltStrBuf *sb, GiltPipeline *pl, int indent)
{
  for (size_t i = 0; i < pl->entries.len; i++) {
    GiltPipelineEntry *e = &pl->entries.data[i];
    if (e->pass) {
      gilt_strbuf_printf(sb, "%*s%s\n", indent, "", e->pass->def->name);
      statistics_rows(sb, e->pass, indent + 2);
      continue;
    }
    gilt_strbuf_printf(sb, "%*s'%s' Pipeline\n", indent, "",
                       e->nested->anchor);
    statistics_tree(sb, e->nested, indent + 2);
  }
}

static void report_statistics(GiltPassInstrumentation *in, GiltPipeline *pl)
{
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, in->ctx);
  gilt_timing_table_title(&sb, "... Pass statistics report ...");
  statistics_tree(&sb, pl, 0);
  in->stats_cb(sb.data, sb.len, in->stats_user);
  gilt_strbuf_free(&sb);
}

void gilt_instrumentation_report(GiltPassInstrumentation *in,
                                 GiltPipeline *pl)
{
  if (in->timing_cb)
    report_timing(in, pl);
  if (in->stats_cb)
    report_statistics(in, pl);
}
