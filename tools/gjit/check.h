/*
** check.h - gjit --check (check.c) and --check --bisect (bisect.c):
** compiled code judged against the reference interpreter, and a
** difference traced to the loop-level pass that introduced it.
*/
#ifndef GJIT_CHECK_H
#define GJIT_CHECK_H

#include "gilt/tensor.h"
#include "tools/gjit/options.h"

/* Lowers `module` (modified) with `loop_pipeline`, which must stop at the
** loop level (a pipeline naming loop-to-llvm is refused), interprets @name on copies of
** inputs[0..n) (borrowed), then lowers a clone on with loop-to-llvm,
** compiles it and calls it on fresh copies; compares the results under
** o's tolerance and prints the verdict. Under o->bisect, a clone of the
** module as given goes through gjit_bisect too. Fails after reporting the
** first result that differs, or anything that failed. */
GiltStatus gjit_check(const GjitOptions *o, GiltOp *module, const char *name,
                      GiltTensor *const *inputs, size_t n,
                      const char *loop_pipeline);

/* Runs `pipeline` up to and including graph-to-loop on `module`
** (modified), interprets @name, then runs each later pass of the
** pipeline one at a time, interpreting after each and comparing with the
** first run; prints one line per pass and names the first pass after
** which the results differ (reported as a diagnostic too). Stops before
** loop-to-llvm: the interpreter runs the loop level only. Fails when a
** pass changes the results or when the pipeline cannot be run. */
GiltStatus gjit_bisect(const GjitOptions *o, GiltOp *module, const char *name,
                       GiltTensor *const *inputs, size_t n,
                       const char *pipeline);

/* ---- shared by check.c and bisect.c ------------------------------------- */

/* Runs `pipeline` on `module`, printing the IR after each pass when
** `print_ir` (--print-ir-after-all). */
GiltStatus gjit_run_pipeline(GiltOp *module, const char *pipeline,
                             bool print_ir);

/* Interprets (`module` at the loop level) or compiles and calls (`module`
** at the llvm level, with o->threads) @name on fresh copies of the
** inputs, so that a function that writes its arguments cannot change
** the next run's. Outputs as gilt_interpret_function's. */
GiltStatus gjit_run_on_copies(const GjitOptions *o, GiltOp *module,
                              bool compiled, const char *name,
                              GiltTensor *const *inputs, size_t n,
                              size_t *num_outputs, GiltTensor ***outputs);

/* Whether `actual` matches `expected` under o's tolerance (--bitwise,
** --tolerance-l2 or --tolerance); otherwise reports the first element
** that differs at a location named `what` and fails. */
GiltStatus gjit_compare(GiltContext *ctx, const GjitOptions *o,
                        const char *what, const GiltTensor *actual,
                        const GiltTensor *expected);

/* Compares two lists of results with gjit_compare, in order, naming
** each "result I (`label`)", and stops at the first that differs: fails
** after reporting it (or a different number of results), with its index
** in *first (0 for a different count). */
GiltStatus gjit_compare_all(GiltContext *ctx, const GjitOptions *o,
                            const char *label, GiltTensor *const *actual,
                            size_t n_actual, GiltTensor *const *expected,
                            size_t n_expected, size_t *first);

void gjit_free_tensors(size_t n, GiltTensor **tensors);

#endif /* GJIT_CHECK_H */
