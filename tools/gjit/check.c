/*
** check.c - gjit --check: the compiled code of a model judged against the
** reference interpreter on the same inputs.
**
** The model is lowered once to the loop level; the interpreter runs that
** module, and a clone of it goes on through loop-to-llvm (and
** llvm-merge-functions, as gjit's pipeline) to the JIT, so the two runs
** share every pass but the last lowering. The results are
** compared in order under the tolerance of --expected-output (the
** interpreter's result plays the expected one) and the first that
** differs is reported, element and error; a difference is exit status 1.
** With --bisect, bisect.c then looks for the loop-level pass that changed
** what the interpreter computes.
**
** This is a debugging aid, not a verifier: agreeing on one input proves
** nothing about another.
*/
#include "tools/gjit/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/interpreter.h"
#include "gilt/jit.h"
#include "gilt/llvm.h"
#include "gilt/model.h"
#include "jit/model.h"
#include "jit/tensor_io.h"

void gjit_free_tensors(size_t n, GiltTensor **tensors)
{
  for (size_t i = 0; i < n; i++)
    gilt_tensor_destroy(tensors[i]);
  free(tensors);
}

GiltStatus gjit_run_pipeline(GiltOp *module, const char *pipeline,
                             bool print_ir)
{
  GiltModelOptions mo = GILT_MODEL_OPTIONS_DEFAULT;
  GiltIRPrintingConfig config = gjit_print_ir_config();
  mo.pipeline = pipeline;
  mo.print_ir = print_ir ? &config : NULL;
  return gilt_model_lower(module, &mo);
}

/* A new tensor with t's type, shape and elements, or NULL. */
static GiltTensor *copy_tensor(GiltTensor *t)
{
  GiltTensor *copy = gilt_tensor_create(gilt_tensor_get_element_type(t),
                                        gilt_tensor_get_rank(t),
                                        gilt_tensor_get_shape(t));
  if (copy)
    memcpy(gilt_tensor_get_data(copy), gilt_tensor_get_data(t),
           gilt_tensor_get_num_bytes(t));
  return copy;
}

GiltStatus gjit_run_on_copies(const GjitOptions *o, GiltOp *module,
                              bool compiled, const char *name,
                              GiltTensor *const *inputs, size_t n,
                              size_t *num_outputs, GiltTensor ***outputs)
{
  *num_outputs = 0;
  *outputs = NULL;
  GiltTensor **copies = calloc(n + 1, sizeof *copies);
  size_t made = 0;
  while (copies && made < n && (copies[made] = copy_tensor(inputs[made])))
    made++;
  if (!copies || made < n) {
    fputs("gjit: out of memory copying the inputs\n", stderr);
    gjit_free_tensors(made, copies);
    return GILT_FAILURE;
  }
  GiltStatus status;
  if (compiled) {
    GiltJitOptions opts = GILT_JIT_OPTIONS_DEFAULT;
    opts.threads = o->threads;
    GiltJitModule *jm = gilt_jit_compile(module, &opts);
    status = jm ? gilt_jit_call(jm, name, n, copies, num_outputs, outputs)
                : GILT_FAILURE;
    gilt_jit_destroy(jm);
  } else {
    status = gilt_interpret_function(module, name, n, copies, num_outputs,
                                     outputs);
  }
  gjit_free_tensors(n, copies);
  return status;
}

GiltStatus gjit_compare(GiltContext *ctx, const GjitOptions *o,
                        const char *what, const GiltTensor *actual,
                        const GiltTensor *expected)
{
  GiltLocation *loc = gilt_location_name_get(ctx, what, NULL);
  if (o->bitwise)
    return gilt_tensor_compare_bits(ctx, loc, actual, expected);
  if (o->l2 >= 0)
    return gilt_tensor_compare_l2(ctx, loc, actual, expected, o->l2);
  return gilt_tensor_compare(ctx, loc, actual, expected, o->rtol, o->atol);
}

GiltStatus gjit_compare_all(GiltContext *ctx, const GjitOptions *o,
                            const char *label, GiltTensor *const *actual,
                            size_t n_actual, GiltTensor *const *expected,
                            size_t n_expected, size_t *first)
{
  *first = 0;
  if (n_actual != n_expected) {
    fprintf(stderr, "gjit: %s: %zu results where %zu were expected\n", label,
            n_actual, n_expected);
    return GILT_FAILURE;
  }
  for (size_t i = 0; i < n_actual; i++) {
    char what[128];
    snprintf(what, sizeof what, "result %zu (%s)", i, label);
    if (gjit_compare(ctx, o, what, actual[i], expected[i])) {
      *first = i;
      return GILT_FAILURE;
    }
  }
  return GILT_SUCCESS;
}

/* The tolerance results are compared under, as the flag that sets it. */
static void print_tolerance(const GjitOptions *o)
{
  if (o->bitwise)
    printf("--bitwise");
  else if (o->l2 >= 0)
    printf("--tolerance-l2=%g", o->l2);
  else
    printf("--tolerance=%g,%g", o->rtol, o->atol);
}

/* Interprets and compiles the loop-level `module` and compares; *differs
** tells a difference from a failure to run. */
static GiltStatus compare_backends(const GjitOptions *o, GiltOp *module,
                                   const char *name, GiltTensor *const *inputs,
                                   size_t n, bool *differs)
{
  GiltContext *ctx = gilt_op_get_context(module);
  size_t n_interp = 0, n_jit = 0, first;
  GiltTensor **interp = NULL, **jit = NULL;
  GiltOp *lowered = gilt_op_clone(module);
  GiltStatus status = gjit_run_on_copies(o, module, false, name, inputs, n,
                                         &n_interp, &interp);
  if (status == GILT_SUCCESS)
    status = gjit_run_pipeline(lowered, MODEL_CPU_LOWERING,
                               o->print_ir_after_all);
  if (status == GILT_SUCCESS && o->dump_llvm)
    status = gilt_llvm_emit(lowered, NULL, GILT_LLVM_OUTPUT_IR,
                            gilt_print_to_file, stderr);
  if (status == GILT_SUCCESS)
    status = gjit_run_on_copies(o, lowered, true, name, inputs, n, &n_jit,
                                &jit);
  if (status == GILT_SUCCESS) {
    if (gjit_compare_all(ctx, o, "compiled vs interpreted", jit, n_jit,
                         interp, n_interp, &first) == GILT_SUCCESS) {
      printf("check: compiled and interpreted agree on %zu result%s (",
             n_jit, n_jit == 1 ? "" : "s");
      print_tolerance(o);
      printf(")\n");
    } else {
      printf("check: result %zu differs between compiled and interpreted (",
             first);
      print_tolerance(o);
      printf(")\n");
      *differs = true;
      status = GILT_FAILURE;
    }
  }
  gjit_free_tensors(n_interp, interp);
  gjit_free_tensors(n_jit, jit);
  gilt_op_destroy(lowered);
  return status;
}

GiltStatus gjit_check(const GjitOptions *o, GiltOp *module, const char *name,
                      GiltTensor *const *inputs, size_t n,
                      const char *loop_pipeline)
{
  /* Either side of the comparison must be free to choose its last step. */
  if (strstr(loop_pipeline, "loop-to-llvm")) {
    fputs("gjit: --check: the pipeline must stop at the loop level; "
          "loop-to-llvm is added for the compiled run\n", stderr);
    return GILT_FAILURE;
  }
  /* The model as given, for the bisection to lower again pass by pass. */
  GiltOp *given = o->bisect ? gilt_op_clone(module) : NULL;
  GiltStatus status = gjit_run_pipeline(module, loop_pipeline,
                                        o->print_ir_after_all);
  bool lowered = status == GILT_SUCCESS, differs = false;
  if (lowered)
    status = compare_backends(o, module, name, inputs, n, &differs);
  fflush(stdout);
  if (given && lowered) {
    if (gjit_bisect(o, given, name, inputs, n, loop_pipeline))
      status = GILT_FAILURE;
    else if (differs)
      printf("check: the loop level agrees throughout: the difference "
             "arises in loop-to-llvm or after it\n");
  }
  if (given)
    gilt_op_destroy(given);
  return status;
}
