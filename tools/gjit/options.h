/*
** options.h - gjit's command line, with iree-run-module's conventions:
**
**   gjit MODEL [--function=NAME] [--input=SPEC]... [--output=SPEC]...
**        [--expected-output=SPEC]... [--tolerance=RTOL,ATOL] [--interpret]
**        [--tolerance-l2=E] [--bitwise] [-p PIPELINE] [--print-ir-after-all]
**        [--fold-inputs] [--aot=OUT] [--cache-dir=DIR]
**        [--benchmark=N [--benchmark-format=text|json]] [--profile[=N]]
**        [--explain=CATEGORIES] [--decisions=FILE]
**        [--dump-llvm]
**        [--check [--bisect]]
**        [--device=cpu|cuda [--gpu-arch=sm_80|sm_90] [--dump-ptx=FILE]]
**        [--compile-only]
**
** A SPEC is `@file.npy`, `@file.pb` (an ONNX TensorProto) or inline text
** (`2x3xf32=1 2 3 4 5 6`); an output SPEC may also be `-` (print). This
** module records what was asked; main.c decides what it means.
*/
#ifndef GJIT_OPTIONS_H
#define GJIT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "gilt/pass.h"

typedef struct GjitSpecs {
  const char **specs;
  size_t len;
} GjitSpecs;

typedef struct GjitOptions {
  const char *model;    /* .onnx or .gilt */
  const char *function; /* NULL: @main, or the module's only function */
  const char *pipeline; /* NULL: the default pipeline of the back end */
  GjitSpecs inputs, outputs, expected;
  double rtol, atol;
  double l2; /* --tolerance-l2; < 0: elementwise rtol/atol instead */
  bool bitwise; /* --bitwise: outputs must have the expected bits */
  bool interpret;
  size_t threads; /* --threads; 0: all cores */
  size_t compile_threads; /* --compile-threads; 0: all cores */
  unsigned vector_bits;   /* --vector-bits; 0: the host's */
  bool print_ir_after_all;
  bool fold_inputs; /* bind the inputs as constants before the pipeline */
  const char *aot;       /* --aot: write OUT.o and OUT.h instead of running */
  const char *cache_dir; /* --cache-dir; NULL: GILT_CACHE_DIR, if set */
  size_t benchmark_runs; /* --benchmark=N; 0: run once, no report */
  bool benchmark_json;   /* --benchmark-format=json */
  size_t profile_runs;   /* --profile[=N]; 0: no profile */
  const char *explain;   /* --explain: remark categories (gilt/remarks.h) */
  const char *decisions; /* --decisions: where the remarks go as JSON */
  bool dump_llvm;        /* print the optimized LLVM IR (stderr) */
  bool timing;           /* report compile time (stderr) */
  bool check;            /* compiled against interpreted (check.c) */
  bool bisect;           /* with check: the first loop pass that differs */
  /* Hidden, for lit tests: bisect.c perturbs the results from this pass
  ** on, to exercise the report of a divergence. */
  const char *test_bisect_perturb;
  bool cuda;             /* --device=cuda */
  const char *gpu_arch;  /* --gpu-arch; NULL: sm_80 */
  const char *dump_ptx;  /* --dump-ptx: write the kernels' PTX there */
  bool compile_only;     /* compile, report, run nothing */
  bool dump_pipeline;    /* --dump-pass-pipeline: print it, run nothing */
} GjitOptions;

typedef enum GjitParseResult {
  GJIT_PARSE_RUN,  /* options are valid: go on */
  GJIT_PARSE_DONE, /* --help or --version was printed: exit 0 */
  GJIT_PARSE_ERROR /* a usage error was printed to stderr: exit 2 */
} GjitParseResult;

/* Fills `o` from argv (whose strings it borrows); free its lists with
** gjit_options_free. */
GjitParseResult gjit_options_parse(GjitOptions *o, int argc, char **argv);
void gjit_options_free(GjitOptions *o);

/* How --print-ir-after-all prints: after every pass, on stderr, large
** constants elided. */
GiltIRPrintingConfig gjit_print_ir_config(void);

#endif /* GJIT_OPTIONS_H */
