/*
** gilt/pass.h - passes, textual pipelines and the pass manager.
**
** Passes are registered by name in a context, each with typed options.
** A pipeline is text in MLIR's syntax:
**
**     canonicalize,cse,func.func(some-pass{size=64 verbose=true})
**
** A pass nested under an op name runs on every op of that name directly in
** the current op's regions; a pass anchored on an op kind (say func.func)
** listed at top level is nested automatically.
**
**     GiltPassManager *pm = gilt_pass_manager_create(ctx);
**     if (gilt_pass_manager_add_pipeline(pm, "canonicalize,cse") ||
**         gilt_pass_manager_run(pm, module))
**       ... diagnostics were reported through the context ...
**     gilt_pass_manager_destroy(pm);
*/
#ifndef GILT_PASS_H
#define GILT_PASS_H

#include "gilt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GiltPass GiltPass;
typedef struct GiltPassManager GiltPassManager;

typedef enum GiltPassOptionKind {
  GILT_OPTION_BOOL,
  GILT_OPTION_INT,
  GILT_OPTION_DOUBLE,
  GILT_OPTION_STRING
} GiltPassOptionKind;

typedef struct GiltPassOptionDef {
  const char *name;
  GiltPassOptionKind kind;
  const char *default_value; /* in the textual form, e.g. "64", "true" */
  const char *description;
} GiltPassOptionDef;

/* A pass: name, what it runs on and how. `run` reports its own errors and
** returns GILT_FAILURE on failure. */
typedef struct GiltPassDef {
  const char *name;
  const char *description;
  /* The op the pass runs on, e.g. "func.func"; NULL for any op. */
  const char *anchor;
  const GiltPassOptionDef *options; /* terminated by a zeroed entry, or NULL */
  GiltStatus (*run)(GiltPass *pass, GiltOp *op);
} GiltPassDef;

/* Registers a pass in the context; the definition is borrowed and must
** outlive the context. A name registered twice by two definitions is an
** error; the same definition registered again succeeds. */
GILT_API GiltStatus gilt_context_register_pass(GiltContext *ctx,
                                               const GiltPassDef *def);
/* Registers a level's list of passes, shipped together: a name clash among
** them is a programming error and asserts. Registering the same
** definition again succeeds and changes nothing. */
GILT_API void gilt_context_register_passes(GiltContext *ctx,
                                           const GiltPassDef *const *defs,
                                           size_t n);
GILT_API size_t gilt_context_get_num_passes(GiltContext *ctx);
/* Registered passes sorted by name. */
GILT_API const GiltPassDef *gilt_context_get_pass(GiltContext *ctx, size_t i);

/* What a running pass may ask of the pass manager. */
GILT_API GiltContext *gilt_pass_get_context(GiltPass *pass);
GILT_API bool gilt_pass_get_option_bool(GiltPass *pass, const char *name);
GILT_API int64_t gilt_pass_get_option_int(GiltPass *pass, const char *name);
GILT_API double gilt_pass_get_option_double(GiltPass *pass, const char *name);
GILT_API const char *gilt_pass_get_option_string(GiltPass *pass,
                                                 const char *name);
/* Adds `delta` to the named statistic (created on first use). */
GILT_API void gilt_pass_add_statistic(GiltPass *pass, const char *name,
                                      const char *description, int64_t delta);
/* Tells the pass manager that the pass left the IR unchanged: the verifier
** and --print-ir-after-change skip it (a debug build checks the claim). */
GILT_API void gilt_pass_mark_unchanged(GiltPass *pass);

GILT_API GiltPassManager *gilt_pass_manager_create(GiltContext *ctx);
GILT_API void gilt_pass_manager_destroy(GiltPassManager *pm);
/* Parses a textual pipeline and appends it; reports errors with the column
** in the pipeline text. */
GILT_API GiltStatus gilt_pass_manager_add_pipeline(GiltPassManager *pm,
                                                   const char *pipeline);
/* Prints the pipeline in its canonical textual form (options included). */
GILT_API void gilt_pass_manager_print_pipeline(GiltPassManager *pm,
                                               GiltStringCallback cb,
                                               void *user);
/* Runs the pipeline on `op` (usually a builtin.module). */
GILT_API GiltStatus gilt_pass_manager_run(GiltPassManager *pm, GiltOp *op);

/* Instrumentation, all off by default except the verifier, which checks
** the op after every pass that did not mark the IR unchanged (in a debug
** build, GILT_DEBUG, after every pass, and a false "unchanged" fails). */
GILT_API void gilt_pass_manager_enable_verifier(GiltPassManager *pm, bool on);

typedef struct GiltIRPrintingConfig {
  const char *before;     /* comma-separated pass names, "" or NULL: none */
  const char *after;      /* likewise */
  bool before_all;
  bool after_all;
  bool after_change;      /* only print after passes that changed the IR */
  bool after_failure;     /* print the IR after a pass that failed */
  GiltPrintFlags flags;
  GiltStringCallback cb;  /* receives the banners and IR */
  void *user;
} GiltIRPrintingConfig;
GILT_API void gilt_pass_manager_enable_ir_printing(
    GiltPassManager *pm, const GiltIRPrintingConfig *config);
/* After the run, a per-pass wall-clock report is printed through cb. */
GILT_API void gilt_pass_manager_enable_timing(GiltPassManager *pm,
                                              GiltStringCallback cb,
                                              void *user);
/* After the run, per-pass statistics are printed through cb. */
GILT_API void gilt_pass_manager_enable_statistics(GiltPassManager *pm,
                                                  GiltStringCallback cb,
                                                  void *user);
/* When a pass fails (or crashes: SIGSEGV, SIGABRT...), writes the IR as it
** was before that pass and the pipeline that reproduces it to `path`. */
GILT_API void gilt_pass_manager_enable_crash_reproducer(GiltPassManager *pm,
                                                        const char *path);
/* A reproducer's first line is `// gilt-reproducer: -p 'PIPELINE'`; the
** textual IR follows. Finds PIPELINE in the text of such a file: on success
** *pipeline points into buf (not NUL-terminated) and *pipeline_len is its
** length. GILT_FAILURE (nothing reported) when the first line is not a
** reproducer line. */
GILT_API GiltStatus gilt_reproducer_get_pipeline(const char *buf, size_t len,
                                                 const char **pipeline,
                                                 size_t *pipeline_len);

#ifdef __cplusplus
}
#endif

#endif /* GILT_PASS_H */
