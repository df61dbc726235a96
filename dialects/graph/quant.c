/*
** quant.c - type inference of the quantization graph ops:
** QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, and the integer
** and quantized contractions MatMulInteger, ConvInteger, QLinearMatMul,
** QLinearConv.
**
** The contractions have MatMul's and Conv's shapes: their inference runs
** on a view of the op that holds just the data and weight operands (named
** by their position in the real op), then takes the result element type
** from the quantization rule: i32 accumulators for the *Integer ops,
** y_zero_point's type for the QLinear ops. Not here: how scales and zero
** points are applied (the lowering).
*/
#include "dialects/graph/graph.h"

static GiltType *retype(GiltContext *ctx, GiltType *t, GiltType *elem)
{
  if (!t->shaped.ranked)
    return gilt_unranked_tensor_type_get(ctx, elem);
  return gilt_tensor_type_get(ctx, t->shaped.rank, t->shaped.shape, elem,
                              NULL);
}

/* Runs fn on operands map[0..n) of v (absent ones dropped from the end)
** checked against cats, and gives the result element type elem. */
static GiltStatus infer_on(const GraphOpView *v, GraphInferFn fn,
                           const size_t *map, size_t n, const char *cats,
                           GiltType *elem, GiltType **types)
{
  GiltValue *ops[4];
  size_t k = 0;
  while (k < n && k < 4 && graph_has_operand(v, map[k])) {
    ops[k] = v->operands[map[k]];
    k++;
  }
  if (k < 2)
    return graph_error(v, "operand '%s' is missing",
                       v->info->operand_specs[map[k]].name->str);
  GraphOpDesc desc = *v->desc;
  desc.cats = cats;
  GraphOpView sub = *v;
  sub.desc = &desc;
  sub.operands = ops;
  sub.num_operands = k;
  sub.num_results = 1;
  sub.map = map;
  if (fn(&sub, types))
    return GILT_FAILURE;
  types[0] = retype(v->ctx, types[0], elem);
  return GILT_SUCCESS;
}

static GiltType *i32(const GraphOpView *v)
{
  return gilt_integer_type_get(v->ctx, 32, GILT_SIGNLESS);
}

GiltStatus graph_infer_matmul_integer(const GraphOpView *v, GiltType **types)
{
  static const size_t map[] = {0, 1};
  return infer_on(v, graph_infer_matmul, map, 2, "ii", i32(v), types);
}

GiltStatus graph_infer_conv_integer(const GraphOpView *v, GiltType **types)
{
  static const size_t map[] = {0, 1};
  return infer_on(v, graph_infer_conv, map, 2, "ii", i32(v), types);
}

static GiltType *y_zero_point_elem(const GraphOpView *v)
{
  GiltType *t = graph_operand_elem(v, 7);
  if (!t)
    graph_error(v, "operand 'y_zero_point' must be a tensor");
  return t;
}

GiltStatus graph_infer_q_linear_mat_mul(const GraphOpView *v,
                                        GiltType **types)
{
  static const size_t map[] = {0, 3};
  GiltType *elem = y_zero_point_elem(v);
  return elem ? infer_on(v, graph_infer_matmul, map, 2, "ii", elem, types)
              : GILT_FAILURE;
}

GiltStatus graph_infer_q_linear_conv(const GraphOpView *v, GiltType **types)
{
  static const size_t map[] = {0, 3, 8};
  GiltType *elem = y_zero_point_elem(v);
  return elem ? infer_on(v, graph_infer_conv, map, 3, "iii", elem, types)
              : GILT_FAILURE;
}

/* QuantizeLinear: x's shape in y_zero_point's type (ui8 without one). */
GiltStatus graph_infer_quantize_linear(const GraphOpView *v,
                                       GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  GiltType *elem = graph_has_operand(v, 2)
                       ? graph_operand_elem(v, 2)
                       : gilt_integer_type_get(v->ctx, 8, GILT_UNSIGNED);
  types[0] = graph_tensor_type(v->ctx, &x, elem);
  return GILT_SUCCESS;
}

/* DequantizeLinear: x's shape in x_scale's type. */
GiltStatus graph_infer_dequantize_linear(const GraphOpView *v,
                                         GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  types[0] = graph_tensor_type(v->ctx, &x, graph_operand_elem(v, 1));
  return GILT_SUCCESS;
}

/* DynamicQuantizeLinear: y (ui8, x's shape), y_scale (f32 scalar),
** y_zero_point (ui8 scalar). */
GiltStatus graph_infer_dynamic_quantize_linear(const GraphOpView *v,
                                               GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x, scalar = {.ranked = true};
  graph_operand_shape(v, 0, &x);
  GiltType *u8 = gilt_integer_type_get(v->ctx, 8, GILT_UNSIGNED);
  types[0] = graph_tensor_type(v->ctx, &x, u8);
  if (v->num_results > 1)
    types[1] = graph_tensor_type(v->ctx, &scalar,
                                 gilt_float_type_get(v->ctx, GILT_F32));
  if (v->num_results > 2)
    types[2] = graph_tensor_type(v->ctx, &scalar, u8);
  return GILT_SUCCESS;
}
