/*
** options.h - gopt's command line.
**
** One table in options.c lists every option once: its spelling, whether it
** takes a value, and its help line; parsing and `--help` both read it.
** Options follow LLVM's conventions, as mlir-opt does: `--name` and `-name`
** are the same option, a value comes as `--name=value` or `--name value`,
** and a flag also accepts `--name=true|false`. This module only records
** what was asked; main.c decides what it means.
*/
#ifndef GOPT_OPTIONS_H
#define GOPT_OPTIONS_H

#include <stdbool.h>

#include "gilt/ir.h"
#include "gilt/llvm.h"

typedef enum GoptEmit {
  GOPT_EMIT_GILT,
  GOPT_EMIT_DOT,
  GOPT_EMIT_LLVM, /* LLVM IR, assembly or an object file (gilt/llvm.h) */
  GOPT_EMIT_ASM,
  GOPT_EMIT_OBJ
} GoptEmit;

typedef struct GoptOptions {
  const char *input;    /* a path, or "-" for stdin */
  const char *output;   /* NULL for stdout */
  const char *pipeline; /* NULL when no pass was asked for */
  bool allow_unregistered;
  bool split_input_file;
  bool verify_diagnostics;
  bool verify_each;
  bool list_passes;
  bool run_reproducer;  /* take the pipeline from the input's first line */
  GoptEmit emit;
  GiltLlvmTargetOptions target; /* for --emit=llvm, asm and obj */
  GiltPrintFlags print_flags;
  const char *print_ir_before, *print_ir_after; /* comma-separated names */
  bool print_ir_before_all, print_ir_after_all;
  bool print_ir_after_change, print_ir_after_failure;
  bool timing;
  bool statistics;
  const char *reproducer; /* where to write a crash reproducer, or NULL */
  const char *explain;    /* remark categories to print (gilt/remarks.h) */
  const char *decisions;  /* where to write the remarks as JSON, or NULL */
} GoptOptions;

typedef enum GoptParseResult {
  GOPT_PARSE_RUN,  /* options are valid: go on */
  GOPT_PARSE_DONE, /* --help or --version was printed: exit 0 */
  GOPT_PARSE_ERROR /* a usage error was printed to stderr: exit 2 */
} GoptParseResult;

/* Fills `o` from argv (whose strings it borrows). */
GoptParseResult gopt_options_parse(GoptOptions *o, int argc, char **argv);

#endif /* GOPT_OPTIONS_H */
