/*
** evaluate.c - constant evaluation of a graph op through its lowering and
** the loop interpreter, so that a folded constant holds exactly what the
** compiled code would compute at run time (DESIGN.md, "Reference
** semantics"): f32 arithmetic in f32, f16 rounded as stored, one
** semantics for every op that lowers.
**
** The op is copied into a scratch module, `func.func @evaluate` with the
** constant operands as graph.constant ops, lowered by graph-to-loop and
** loop-expand-math (which gjit's pipelines run too: exp, log, tanh, erf,
** ... are its polynomials, not the C library's) and run by
** gilt_interpret_function; its outputs become dense elements. The
** caller's IR is never touched, and nothing is reported: an op that does
** not lower, a case its lowering refuses, or a run that fails (an integer
** division by zero) simply does not fold. The scratch module costs one
** lowering per folded op, which graph-fold-constants pays once per
** constant subgraph of a model.
*/
#include "transforms/graph_to_loop/evaluate.h"

#include <stdlib.h>
#include <string.h>

#include "gilt/interpreter.h"
#include "gilt/pass.h"
#include "ir/context.h"
#include "transforms/graph_to_loop/lowering.h"

static GiltOp *constant_op(GiltBuilder *b, GiltAttr *value, GiltType *type,
                           GiltLocation *loc)
{
  GiltNamedAttr attr = {"value", value};
  GiltOpState st = gilt_op_state_get(value ? "graph.constant" : "graph.none",
                                     loc);
  st.num_results = 1;
  st.result_types = &type;
  st.num_attrs = value ? 1 : 0;
  st.attrs = &attr;
  return gilt_builder_create_op(b, &st);
}

/* The scratch module: @evaluate returns op's results computed from the
** constants. NULL when an operand is neither a constant nor `none`. */
static GiltOp *scratch_module(GiltOp *op, GiltAttr *const *consts)
{
  GiltContext *ctx = gilt_op_get_context(op);
  GiltLocation *loc = gilt_op_get_location(op);
  size_t n = op->num_results;
  GiltType *types[n + 1];
  for (size_t i = 0; i < n; i++)
    types[i] = gilt_value_get_type(gilt_op_get_result(op, i));
  GiltOp *module = gilt_module_create(ctx, loc);
  GiltOp *fn = gilt_func_create(ctx, loc, "evaluate",
                                gilt_function_type_get(ctx, 0, NULL, n, types));
  gilt_block_append_op(gilt_module_get_body(module), fn);
  GiltBuilder *b = gilt_builder_create(ctx);
  gilt_builder_set_insertion_point_to_end(b, gilt_func_get_entry_block(fn));
  GiltOp *copy = gilt_op_clone(op);
  bool ok = true;
  for (size_t i = 0; ok && i < op->num_operands; i++) {
    GiltType *t = gilt_value_get_type(gilt_op_get_operand(op, i));
    ok = consts[i] || t->kind == GILT_TYPE_NONE;
    GiltOp *c = ok ? constant_op(b, consts[i], t, loc) : NULL;
    ok = c != NULL;
    if (ok)
      gilt_op_set_operand(copy, i, gilt_op_get_result(c, 0));
  }
  gilt_builder_insert(b, copy);
  GiltValue *results[n + 1];
  for (size_t i = 0; i < n; i++)
    results[i] = gilt_op_get_result(copy, i);
  GiltOpState st = gilt_op_state_get("func.return", loc);
  st.num_operands = n;
  st.operands = results;
  ok = ok && gilt_builder_create_op(b, &st);
  gilt_builder_destroy(b);
  if (!ok) {
    gilt_op_destroy(module);
    return NULL;
  }
  return module;
}

static GiltStatus lower_and_run(GiltOp *module, size_t *num, GiltTensor ***out)
{
  GiltPassManager *pm = gilt_pass_manager_create(gilt_op_get_context(module));
  gilt_pass_manager_enable_verifier(pm, false);
  GiltStatus status = gilt_pass_manager_add_pipeline(pm, "graph-to-loop,loop-expand-math");
  if (status == GILT_SUCCESS)
    status = gilt_pass_manager_run(pm, module);
  gilt_pass_manager_destroy(pm);
  if (status == GILT_SUCCESS)
    status = gilt_interpret_function(module, "evaluate", 0, NULL, num, out);
  return status;
}

static void ignore(const GiltDiagnostic *d, void *user)
{
  (void)d;
  (void)user;
}

GiltStatus graph_to_loop_evaluate(GiltOp *op, GiltAttr *const *consts,
                                  GiltAttr **results)
{
  GiltContext *ctx = gilt_op_get_context(op);
  /* An op with effects (a random generator) is no function of its
  ** operands: its value at compile time would not be its value at run
  ** time. */
  if (!gilt_op_get_interface(op, &graph_to_loop_interface) ||
      op->num_regions || !gilt_op_has_trait(op, GILT_TRAIT_PURE))
    return GILT_FAILURE;
  for (size_t i = 0; i < op->num_results; i++)
    if (!gilt_shaped_type_has_static_shape(
            gilt_value_get_type(gilt_op_get_result(op, i))))
      return GILT_FAILURE;
  GiltOp *module = scratch_module(op, consts);
  if (!module)
    return GILT_FAILURE;
  /* Failing to fold is no error: keep the caller's handler and count. */
  GiltDiagnosticHandler handler = ctx->diag_handler;
  void *user = ctx->diag_user;
  size_t errors = ctx->num_errors;
  ctx->diag_handler = ignore;
  GiltTensor **out = NULL;
  size_t num = 0;
  GiltStatus status = lower_and_run(module, &num, &out);
  ctx->diag_handler = handler;
  ctx->diag_user = user;
  ctx->num_errors = errors;
  for (size_t i = 0; status == GILT_SUCCESS && i < num; i++) {
    GiltType *t = gilt_value_get_type(gilt_op_get_result(op, i));
    results[i] = gilt_dense_elements_attr_get(
        t, gilt_tensor_get_data(out[i]), gilt_tensor_get_num_bytes(out[i]));
    if (!results[i])
      status = GILT_FAILURE;
  }
  for (size_t i = 0; i < num; i++)
    gilt_tensor_destroy(out[i]);
  free(out);
  gilt_op_destroy(module);
  return status;
}
