/*
** fuse_epilogues.c - `graph-fuse-epilogues`: a Relu or a Clip (constant
** bounds) of the result of a Conv, Gemm or MatMul becomes that op's
** epilogue: the producer computes max(y, 0) or min(max(y, lo), hi) as it
** stores y, and the activation is gone, with its separate pass over the
** tensor (what ONNX Runtime's FusedConv and TVM's fused kernels do).
**
** The epilogue is two discardable attributes of the producer (graph.h:
** GRAPH_EPILOGUE_ATTR, "relu" or "clip", and GRAPH_EPILOGUE_BOUNDS_ATTR,
** [lo, hi] as f64, for clip), which every lowering of the three ops
** applies (transforms/graph_to_loop/epilogue.c), so the fused op computes
** what the pair did, bit for bit. The producer's location becomes the
** fusion of both ops' locations: diagnostics and gjit --profile name both
** nodes.
**
** Fused only when the producer's result has this one use (no other
** consumer may see the activated values), has no epilogue yet, and is
** f32 (the element type the tiled kernels apply epilogues in). A remark
** of category "fusion" at each activation says what was decided and why
** (gilt/remarks.h: gopt and gjit --explain=fusion, --decisions).
*/
#include "dialects/graph/graph.h"

#include <math.h>
#include <string.h>

#include "dialects/graph/transforms/passes.h"
#include "gilt/remarks.h"
#include "ir/core.h"

typedef GILT_VEC(GiltOp *) OpList;

static GiltWalkResult collect(GiltOp *op, void *user)
{
  if (graph_op_is(op, GRAPH_OP_RELU) || graph_op_is(op, GRAPH_OP_CLIP))
    gilt_vec_push(gilt_op_get_context(op), (OpList *)user, op);
  return GILT_WALK_ADVANCE;
}

static bool is_producer(GiltOp *op)
{
  return graph_op_is(op, GRAPH_OP_CONV) || graph_op_is(op, GRAPH_OP_GEMM) ||
         graph_op_is(op, GRAPH_OP_MAT_MUL);
}

/* Clip's bound operand i (1 min, 2 max) into *out: absent is +-inf. False
** when it is present but not a constant scalar. */
static bool clip_bound(GiltOp *clip, size_t i, double none, double *out)
{
  *out = none;
  if (gilt_op_get_num_operands(clip) <= i)
    return true;
  GiltValue *v = gilt_op_get_operand(clip, i);
  if (gilt_type_get_kind(gilt_value_get_type(v)) == GILT_TYPE_NONE)
    return true;
  GiltAttr *c = graph_value_constant(v);
  if (!c || gilt_dense_attr_get_num_elements(c) != 1)
    return false;
  *out = gilt_dense_attr_get_float(c, 0);
  return true;
}

/* Why act cannot be fused into the op before it, or NULL when it can;
** *producer gets that op when there is one. */
static const char *why_not(GiltOp *act, GiltOp **producer, double *bounds)
{
  GiltValue *in = gilt_op_get_operand(act, 0);
  *producer = gilt_value_get_defining_op(in);
  if (!*producer || !is_producer(*producer))
    return "its input is not the result of a Conv, Gemm or MatMul";
  if (gilt_value_get_num_uses(in) != 1)
    return "the producer's result has other users, which must see it "
           "unactivated";
  if (gilt_op_get_attr(*producer, GRAPH_EPILOGUE_ATTR))
    return "the producer has an epilogue already";
  GiltType *t = gilt_value_get_type(in);
  if (gilt_type_get_kind(t) != GILT_TYPE_TENSOR ||
      gilt_shaped_type_get_element_type(t) !=
          gilt_float_type_get(gilt_op_get_context(act), GILT_F32))
    return "the producer's result is not f32";
  if (graph_op_is(act, GRAPH_OP_CLIP) &&
      (!clip_bound(act, 1, -INFINITY, &bounds[0]) ||
       !clip_bound(act, 2, INFINITY, &bounds[1])))
    return "its bounds are not constants";
  return NULL;
}

static bool fuse(GiltOp *act)
{
  GiltContext *ctx = gilt_op_get_context(act);
  GiltOp *producer;
  double bounds[2] = {0, 0};
  const char *why = why_not(act, &producer, bounds);
  const char *what = graph_op_is(act, GRAPH_OP_RELU) ? "relu" : "clip";
  if (why) {
    gilt_remark(act, "fusion", "not-fused", 0, NULL, "not fused: %s", why);
    return false;
  }
  gilt_op_set_attr(producer, GRAPH_EPILOGUE_ATTR,
                   gilt_string_attr_get(ctx, what, strlen(what)));
  if (!strcmp(what, "clip")) {
    GiltType *f64 = gilt_float_type_get(ctx, GILT_F64);
    GiltAttr *b[2] = {gilt_float_attr_get(f64, bounds[0]),
                      gilt_float_attr_get(f64, bounds[1])};
    gilt_op_set_attr(producer, GRAPH_EPILOGUE_BOUNDS_ATTR,
                     gilt_array_attr_get(ctx, 2, b));
  }
  GiltRemarkArg args[2] = {{"into", gilt_op_get_name(producer), 0},
                           {"epilogue", what, 0}};
  gilt_remark(act, "fusion", "fused", 2, args,
              "fused into the %s before it as its epilogue",
              gilt_op_get_name(producer));
  GiltLocation *locs[2] = {gilt_op_get_location(producer),
                           gilt_op_get_location(act)};
  gilt_op_set_location(producer, gilt_location_fused_get(ctx, 2, locs, NULL));
  gilt_value_replace_all_uses_with(gilt_op_get_result(act, 0),
                                   gilt_op_get_result(producer, 0));
  gilt_op_destroy(act);
  return true;
}

static GiltStatus run(GiltPass *pass, GiltOp *root)
{
  GiltContext *ctx = gilt_pass_get_context(pass);
  OpList acts = {0};
  gilt_op_walk(root, GILT_WALK_PRE_ORDER, collect, &acts);
  int64_t fused = 0;
  for (size_t i = 0; i < acts.len; i++)
    fused += fuse(acts.data[i]);
  gilt_vec_free(ctx, &acts);
  gilt_pass_add_statistic(pass, "num-fused",
                          "Number of activations fused into their producer",
                          fused);
  if (!fused)
    gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_graph_fuse_epilogues_pass = {
    .name = "graph-fuse-epilogues",
    .description = "Fuse a Relu or constant Clip into the Conv, Gemm or "
                   "MatMul before it as its epilogue",
    .anchor = NULL,
    .run = run,
};
