/*
** pass_manager.h - the pass manager's internals, shared by the ir/pass*.c
** files.
**
** A pipeline is a tree: each entry is either a pass (a GiltPass: its
** definition, parsed option values, statistics and timings) or a nested
** pipeline anchored on an op name, as MLIR's OpPassManager. pass.c owns the
** GiltPass object and its options, pass_pipeline.c parses and prints
** pipelines, pass_manager.c runs them, pass_instrumentation.c prints IR,
** timing and statistics around the run, and pass_reproducer.c writes the
** crash reproducer. Nothing here is public: embedders see include/gilt/pass.h.
*/
#ifndef GILT_IR_PASS_MANAGER_H
#define GILT_IR_PASS_MANAGER_H

#include <signal.h>

#include "ir/context.h"

/* ---- passes: one pass of a pipeline, with its options (pass.c) ---------- */

typedef union GiltPassOptionValue {
  bool b;
  int64_t i;
  double d;
  char *s; /* owned, NUL-terminated */
} GiltPassOptionValue;

typedef struct GiltPassStatistic {
  char *name;        /* owned */
  char *description; /* owned */
  int64_t value;
} GiltPassStatistic;

struct GiltPass {
  GiltContext *ctx;
  const GiltPassDef *def;
  GiltPassOptionValue *options; /* one per entry of def->options */
  GILT_VEC(GiltPassStatistic) stats;
  bool unchanged; /* set by gilt_pass_mark_unchanged during one run */
  double seconds; /* wall clock spent in def->run during the last run */
};

/* A pass with every option at its default. A default that does not parse
** is a bug in the pass definition and asserts. */
GILT_INTERNAL GiltPass *gilt_pass_create(GiltContext *ctx,
                                         const GiltPassDef *def);
GILT_INTERNAL void gilt_pass_destroy(GiltPass *pass);
GILT_INTERNAL size_t gilt_pass_def_num_options(const GiltPassDef *def);
/* Index of the option named text[0..len), or SIZE_MAX. */
GILT_INTERNAL size_t gilt_pass_def_find_option(const GiltPassDef *def,
                                               const char *text, size_t len);
/* Sets option i from its textual form; false (and nothing reported) when
** the text is not a value of the option's kind. */
GILT_INTERNAL bool gilt_pass_set_option(GiltPass *pass, size_t i,
                                        const char *text, size_t len);
/* "boolean", "integer", ... for messages. */
GILT_INTERNAL const char *gilt_pass_option_kind_name(GiltPassOptionKind k);
/* `name{opt=value ...}` with every option, in definition order. */
GILT_INTERNAL void gilt_pass_print(GiltPass *pass, GiltStrBuf *sb);
/* Zeroes statistics and timing (at the start of each pass manager run). */
GILT_INTERNAL void gilt_pass_reset_counters(GiltPass *pass);

/* The registered pass named text[0..len), or NULL (pass_registry.c). */
GILT_INTERNAL const GiltPassDef *gilt_context_lookup_pass(GiltContext *ctx,
                                                          const char *text,
                                                          size_t len);

/* ---- pipelines (pass_pipeline.c) ---------------------------------------- */

typedef struct GiltPipeline GiltPipeline;

typedef struct GiltPipelineEntry {
  GiltPass *pass;       /* a pass, or */
  GiltPipeline *nested; /* a pipeline run on ops named nested->anchor */
} GiltPipelineEntry;

struct GiltPipeline {
  GiltContext *ctx;
  char *anchor; /* owned op name; NULL for the top level */
  GILT_VEC(GiltPipelineEntry) entries;
  double seconds; /* wall clock spent in it during the last run */
};

/* An empty pipeline; anchor NULL makes a top-level one. */
GILT_INTERNAL GiltPipeline *gilt_pipeline_create(GiltContext *ctx,
                                                 const char *anchor,
                                                 size_t len);
GILT_INTERNAL void gilt_pipeline_destroy(GiltPipeline *pl);
/* Parses `text` and appends its entries to `pl`. On error reports it
** through the context (at `<pipeline>:line:col`) and appends nothing. */
GILT_INTERNAL GiltStatus gilt_pipeline_parse(GiltPipeline *pl,
                                             const char *text);
/* Appends a pass (taking it); a pass anchored on another op than pl's is
** nested under its anchor first (auto-nesting, as MLIR's). */
GILT_INTERNAL void gilt_pipeline_add_pass(GiltPipeline *pl, GiltPass *pass);
/* The canonical text: `a{opt=1},op.name(b,c)`. */
GILT_INTERNAL void gilt_pipeline_print(GiltPipeline *pl, GiltStrBuf *sb);
/* Zeroes every timing and statistic of the tree. */
GILT_INTERNAL void gilt_pipeline_reset_counters(GiltPipeline *pl);

/* ---- the crash reproducer (pass_reproducer.c) --------------------------- */

/* SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT. */
#define GILT_NUM_CRASH_SIGNALS 5

typedef struct GiltReproducer {
  GiltContext *ctx;
  char *path; /* owned; NULL when disabled */
  /* The file to write if the running pass fails or crashes: the header
  ** line, then the root op as it was before the pass. */
  GiltStrBuf text;
  struct sigaction saved[GILT_NUM_CRASH_SIGNALS]; /* replaced while armed */
  struct GiltReproducer *outer; /* the one armed before, if nested */
} GiltReproducer;

GILT_INTERNAL void gilt_reproducer_init(GiltReproducer *r, GiltContext *ctx);
GILT_INTERNAL void gilt_reproducer_free(GiltReproducer *r);
/* Snapshots `root` and the pipeline that runs `pass` on `op` (nested in
** root) into r->text. */
GILT_INTERNAL void gilt_reproducer_prepare(GiltReproducer *r, GiltPass *pass,
                                           GiltOp *op, GiltOp *root);
/* While armed, a crash writes r->text to r->path and re-raises. */
GILT_INTERNAL void gilt_reproducer_arm(GiltReproducer *r);
GILT_INTERNAL void gilt_reproducer_disarm(GiltReproducer *r);
/* Writes r->text after a pass failed; a note at `op` names the file. */
GILT_INTERNAL void gilt_reproducer_write(GiltReproducer *r, GiltOp *op);

/* ---- instrumentation (pass_instrumentation.c) --------------------------- */

typedef struct GiltPassInstrumentation {
  GiltContext *ctx;
  GiltOp *root; /* the op the current run started on */
  bool print_ir;
  GiltIRPrintingConfig print;     /* before/after point at the copies */
  char *print_before, *print_after; /* owned copies of the name lists */
  GiltStrBuf before_text; /* the op before the pass, for after_change */
  GiltStringCallback timing_cb, stats_cb; /* NULL when disabled */
  void *timing_user, *stats_user;
  double total_seconds;
  GiltReproducer reproducer;
} GiltPassInstrumentation;

GILT_INTERNAL void gilt_instrumentation_init(GiltPassInstrumentation *in,
                                             GiltContext *ctx);
GILT_INTERNAL void gilt_instrumentation_free(GiltPassInstrumentation *in);
GILT_INTERNAL void gilt_instrumentation_before_pass(
    GiltPassInstrumentation *in, GiltPass *pass, GiltOp *op);
GILT_INTERNAL void gilt_instrumentation_after_pass(
    GiltPassInstrumentation *in, GiltPass *pass, GiltOp *op,
    GiltStatus status);
/* The timing and statistics reports of the run just finished. */
GILT_INTERNAL void gilt_instrumentation_report(GiltPassInstrumentation *in,
                                               GiltPipeline *pl);

/* ---- the pass manager (pass_manager.c) ---------------------------------- */

struct GiltPassManager {
  GiltContext *ctx;
  GiltPipeline *pipeline; /* top level */
  bool verify;
  bool running;
  GiltPassInstrumentation instr;
};

#endif /* GILT_IR_PASS_MANAGER_H */
