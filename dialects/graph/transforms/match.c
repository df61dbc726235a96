/*
** match.c - the helpers of match.h: what the fusing passes ask of a
** value (which op defines it, how many use it, which constant it is) and
** the replacement of a matched chain by one op.
*/
#include "dialects/graph/transforms/match.h"

#include <math.h>

#include "ir/core.h"

GiltOp *graph_match_def(GiltValue *v, GraphOpId id)
{
  GiltOp *def = v ? gilt_value_get_defining_op(v) : NULL;
  return def && graph_op_is(def, id) ? def : NULL;
}

GiltOp *graph_match_sole(GiltValue *v, GraphOpId id)
{
  GiltOp *def = graph_match_def(v, id);
  return def && gilt_value_get_num_uses(v) == 1 ? def : NULL;
}

bool graph_match_scalar(GiltValue *v, double *out)
{
  GiltAttr *c = graph_value_constant(v);
  if (!c || gilt_dense_attr_get_num_elements(c) != 1)
    return false;
  *out = gilt_dense_attr_get_float(c, 0);
  return true;
}

bool graph_match_near(GiltValue *v, double want)
{
  double x;
  return graph_match_scalar(v, &x) && fabs(x - want) <= 1e-6 * fabs(want);
}

GiltValue *graph_match_other(GiltOp *op, GiltValue *v)
{
  if (gilt_op_get_num_operands(op) != 2)
    return NULL;
  GiltValue *a = gilt_op_get_operand(op, 0), *b = gilt_op_get_operand(op, 1);
  return a == v ? b : b == v ? a : NULL;
}

GiltOp *graph_match_replace(GiltOp *const *ops, size_t n, const char *name,
                            size_t num_operands, GiltValue *const *operands,
                            size_t num_attrs, const GiltNamedAttr *attrs)
{
  GiltOp *last = ops[0];
  GiltContext *ctx = gilt_op_get_context(last);
  GiltLocation *locs[n];
  for (size_t i = 0; i < n; i++) /* first op first, as the graph reads */
    locs[i] = gilt_op_get_location(ops[n - 1 - i]);
  GiltOpState st = gilt_op_state_get(
      name, gilt_location_fused_get(ctx, n, locs, NULL));
  GiltValue *result = gilt_op_get_result(last, 0);
  GiltType *type = gilt_value_get_type(result);
  st.num_operands = num_operands;
  st.operands = operands;
  st.num_results = 1;
  st.result_types = &type;
  st.num_attrs = num_attrs;
  st.attrs = attrs;
  GiltOp *op = gilt_op_create(ctx, &st);
  if (!op)
    return NULL;
  gilt_block_insert_op_before(last, op);
  gilt_value_replace_all_uses_with(result, gilt_op_get_result(op, 0));
  for (size_t i = 0; i < n; i++)
    if (!gilt_value_has_uses(gilt_op_get_result(ops[i], 0)))
      gilt_op_destroy(ops[i]);
  return op;
}

typedef struct Candidates {
  GraphOpId last;
  GILT_VEC(GiltOp *) ops;
} Candidates;

static GiltWalkResult collect(GiltOp *op, void *user)
{
  Candidates *c = user;
  if (graph_op_is(op, c->last))
    gilt_vec_push(gilt_op_get_context(op), &c->ops, op);
  return GILT_WALK_ADVANCE;
}

GiltStatus graph_match_run(GiltPass *pass, GiltOp *root, GraphOpId last,
                           bool (*fuse)(GiltOp *op), const char *what)
{
  GiltContext *ctx = gilt_pass_get_context(pass);
  Candidates c = {.last = last};
  gilt_op_walk(root, GILT_WALK_PRE_ORDER, collect, &c);
  int64_t fused = 0;
  for (size_t i = 0; i < c.ops.len; i++)
    fused += fuse(c.ops.data[i]);
  gilt_vec_free(ctx, &c.ops);
  gilt_pass_add_statistic(pass, "num-fused", what, fused);
  if (!fused)
    gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}
