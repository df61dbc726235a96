/*
** epilogue.c - what graph-fuse-epilogues fused into a Conv, Gemm or
** MatMul, applied where the lowering stores a result: a Conv's residual Z
** added (addf, as the Add lowers to), then the activation
** (graph.h's GRAPH_EPILOGUE_ATTR) with the same ops the Relu, Clip,
** Sigmoid, HardSwish or Sigmoid-and-Mul it replaced lowers to
** (activation.h), so fused and unfused agree bit for
** bit, on scalars and on vectors of lanes alike. The residual is read in
** the lowering's store loop, at the indices it stores to: no separate
** pass over the activation.
*/
#include "transforms/graph_to_loop/activation.h"

#include <string.h>

void lower_epilogue_read(Lower *l, LowerEpilogue *e)
{
  GiltAttr *kind = gilt_op_get_attr(l->op, GRAPH_EPILOGUE_ATTR);
  GiltAttr *bounds = gilt_op_get_attr(l->op, GRAPH_EPILOGUE_BOUNDS_ATTR);
  const char *k = kind && gilt_attr_get_kind(kind) == GILT_ATTR_STRING
                      ? gilt_string_attr_get_value(kind, NULL)
                      : "";
  *e = (LowerEpilogue){LOWER_EPILOGUE_NONE, 0, 0, NULL};
  if (graph_op_is(l->op, GRAPH_OP_CONV))
    e->residual = lower_operand(l, 3);
  if (!strcmp(k, "relu")) {
    e->kind = LOWER_EPILOGUE_RELU;
  } else if (!strcmp(k, "sigmoid")) {
    e->kind = LOWER_EPILOGUE_SIGMOID;
  } else if (!strcmp(k, "silu")) {
    e->kind = LOWER_EPILOGUE_SILU;
  } else if (!strcmp(k, "hard_swish")) {
    e->kind = LOWER_EPILOGUE_HARD_SWISH;
  } else if (!strcmp(k, "clip") && bounds &&
             gilt_attr_get_kind(bounds) == GILT_ATTR_ARRAY &&
             gilt_array_attr_get_size(bounds) == 2) {
    e->kind = LOWER_EPILOGUE_CLIP;
    e->lo = gilt_float_attr_get_value(gilt_array_attr_get_element(bounds, 0));
    e->hi = gilt_float_attr_get_value(gilt_array_attr_get_element(bounds, 1));
  }
}

GiltValue *lower_epilogue_apply(Lower *l, const LowerEpilogue *e,
                                GiltValue *v)
{
  switch (e->kind) {
  case LOWER_EPILOGUE_RELU:
    return activation_relu(l, v);
  case LOWER_EPILOGUE_CLIP:
    return activation_clip(l, v, e->lo, e->hi);
  case LOWER_EPILOGUE_SIGMOID:
    return activation_sigmoid(l, v);
  case LOWER_EPILOGUE_SILU:
    return activation_silu(l, v);
  case LOWER_EPILOGUE_HARD_SWISH:
    return activation_hard_swish(l, v);
  case LOWER_EPILOGUE_NONE:
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
