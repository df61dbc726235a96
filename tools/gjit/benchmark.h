/*
** benchmark.h - gjit --benchmark (benchmark.c): the compile time of a
** model, phase by phase, and the latency of calling it.
**
** main.c brackets each phase of compiling (import, pipeline, JIT) with
** gjit_phase_begin and gjit_phase_end, whether or not --benchmark was
** given (reading a clock costs nothing next to a phase), and hands the
** function to gjit_benchmark_run as a GjitCallee. Nothing here decides
** what to run or lowers anything.
*/
#ifndef GJIT_BENCHMARK_H
#define GJIT_BENCHMARK_H

#include "gilt/jit.h"
#include "tools/gjit/options.h"

/* What compile_ms adds up: reading the model (parse or ONNX import, and
** verification), the pass pipeline, and translation to LLVM IR with
** LLVM's optimization and code generation. */
typedef enum GjitPhase {
  GJIT_PHASE_IMPORT,
  GJIT_PHASE_PIPELINE,
  GJIT_PHASE_JIT,
  GJIT_NUM_PHASES
} GjitPhase;

typedef struct GjitTimes {
  double phase_ms[GJIT_NUM_PHASES];
  double begun_ms; /* when the phase under way began */
} GjitTimes;

/* Milliseconds on the monotonic clock. */
double gjit_now_ms(void);
void gjit_phase_begin(GjitTimes *t);
/* Adds the time since gjit_phase_begin to phase `p`. */
void gjit_phase_end(GjitTimes *t, GjitPhase p);

/* A function ready to call: compiled (`jm` non-NULL) or interpreted (the
** loop-level `module`). Everything is borrowed. */
typedef struct GjitCallee {
  GiltJitModule *jm;
  GiltOp *module;
  const char *name;
  size_t num_inputs;
  GiltTensor *const *inputs;
} GjitCallee;

/* One call, with gilt_jit_call's (or gilt_interpret_function's) contract. */
GiltStatus gjit_callee_call(const GjitCallee *c, size_t *num_outputs,
                            GiltTensor ***outputs);

/* Calls `c` once to warm up, then o->benchmark_runs times, timing each
** call, and prints the report (--benchmark-format) on stdout with the
** compile times of `t` and the peak RSS of the process. The outputs of
** the last call are returned as gjit_callee_call returns them, for
** --output and --expected-output; on a failed call, its diagnostic has
** been reported and nothing is printed. */
GiltStatus gjit_benchmark_run(const GjitOptions *o, const GjitTimes *t,
                              const GjitCallee *c, size_t *num_outputs,
                              GiltTensor ***outputs);

#endif /* GJIT_BENCHMARK_H */
