/*
** epilogue.c - what graph-fuse-epilogues fused into a Conv, Gemm or
** MatMul, applied where the lowering stores a result: a Conv's, Gemm's
** or MatMul's residual Z added (addf, as the Add lowers to; a MatMul's
** bias C before it, by matmul.c), then the activation (graph.h's
** GRAPH_EPILOGUE_ATTR) with the same ops the Relu, Clip, Sigmoid,
** HardSwish, Sigmoid-and-Mul or Gelu it replaced lowers to
** (activation.h), so fused and unfused agree bit for bit, on scalars and
** on vectors of lanes alike. The residual is read in
** the lowering's store loop, at the indices it stores to: no separate
** pass over the activation.
*/
#include "transforms/graph_to_loop/activation.h"


/* clip's bounds attribute when it is [lo, hi], else NULL. */
static GiltAttr *clip_bounds(GiltOp *op)
{
  GiltAttr *bounds = gilt_op_get_attr(op, GRAPH_EPILOGUE_BOUNDS_ATTR);
  return bounds && gilt_attr_get_kind(bounds) == GILT_ATTR_ARRAY &&
                 gilt_array_attr_get_size(bounds) == 2 &&
                 gilt_attr_get_kind(gilt_array_attr_get_element(bounds, 0)) ==
                     GILT_ATTR_FLOAT &&
                 gilt_attr_get_kind(gilt_array_attr_get_element(bounds, 1)) ==
                     GILT_ATTR_FLOAT
             ? bounds
             : NULL;
}

GiltStatus lower_epilogue_check(Lower *l)
{
  GraphEpilogue k = graph_epilogue_of(l->op);
  if (k == GRAPH_EPILOGUE_UNKNOWN)
    return lower_error(l, "has an epilogue ('%s') that is none of relu, "
                          "clip, sigmoid, hard_swish, silu, gelu and "
                          "gelu_tanh",
                       GRAPH_EPILOGUE_ATTR);
  if (k == GRAPH_EPILOGUE_CLIP && !clip_bounds(l->op))
    return lower_error(l, "has a clip epilogue without its bounds ('%s' = "
                          "[lo, hi] as floats)",
                       GRAPH_EPILOGUE_BOUNDS_ATTR);
  return GILT_SUCCESS;
}

void lower_epilogue_read(Lower *l, LowerEpilogue *e)
{
  *e = (LowerEpilogue){graph_epilogue_of(l->op), 0, 0, NULL};
  if (graph_op_is(l->op, GRAPH_OP_CONV) ||
      graph_op_is(l->op, GRAPH_OP_CONV_NCHWC) ||
      graph_op_is(l->op, GRAPH_OP_MAT_MUL) ||
      graph_op_is(l->op, GRAPH_OP_GEMM))
    e->residual = lower_operand(l, 3);
  if (e->kind == GRAPH_EPILOGUE_CLIP) {
    GiltAttr *bounds = clip_bounds(l->op);
    e->lo = gilt_float_attr_get_value(gilt_array_attr_get_element(bounds, 0));
    e->hi = gilt_float_attr_get_value(gilt_array_attr_get_element(bounds, 1));
  }
}

GiltValue *lower_epilogue_apply(Lower *l, const LowerEpilogue *e,
                                GiltValue *v)
{
  switch (e->kind) {
  case GRAPH_EPILOGUE_RELU:
    return activation_relu(l, v);
  case GRAPH_EPILOGUE_CLIP:
    return activation_clip(l, v, e->lo, e->hi);
  case GRAPH_EPILOGUE_SIGMOID:
    return activation_sigmoid(l, v);
  case GRAPH_EPILOGUE_SILU:
    return activation_silu(l, v);
  case GRAPH_EPILOGUE_HARD_SWISH:
    return activation_hard_swish(l, v);
  case GRAPH_EPILOGUE_GELU:
  case GRAPH_EPILOGUE_GELU_TANH:
    return activation_gelu(l, v, e->kind == GRAPH_EPILOGUE_GELU_TANH);
  case GRAPH_EPILOGUE_NONE:
  case GRAPH_EPILOGUE_UNKNOWN: /* refused by lower_epilogue_check */
    break;
  }
  return v;
}

GiltValue *lower_epilogue_apply_at(Lower *l, const LowerEpilogue *e,
                                   const LowerLanes *lanes, GiltValue *mask,
                                   GiltValue *v, GiltValue *const *idx)
{
  if (e->residual) {
    GiltValue *z = lanes ? lower_lanes_load(l, lanes, mask, e->residual, idx)
                         : lower_load(l, e->residual, idx);
    v = lower_lanes_add(l, v, z);
  }
  return lower_epilogue_apply(l, e, v);
}
