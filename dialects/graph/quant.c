/*
** quant.c - type inference and checks of the quantization graph ops:
** QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, and the integer
** and quantized contractions MatMulInteger, ConvInteger, QLinearMatMul,
** QLinearConv.
**
** The contractions have MatMul's and Conv's shapes: their inference runs
** on a view of the op that holds just the data and weight operands (named
** by their position in the real op), then takes the result element type
** from the quantization rule: i32 accumulators for the *Integer ops,
** y_zero_point's type for the QLinear ops. QuantizeLinear and
** DequantizeLinear have version 21's form: a scale (and zero point) that
** is a scalar, a 1-D tensor along `axis`, or, with `block_size`, x's shape
** with ceil(D / block_size) along `axis`; QuantizeLinear's `output_dtype`
** names y's type when there is no zero point. Not here: how scales and
** zero points are applied (the lowering).
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
  return elem ? infer_on(v, graph_infer_matmul, map, 2, "qq", elem, types)
              : GILT_FAILURE;
}

GiltStatus graph_infer_q_linear_conv(const GraphOpView *v, GiltType **types)
{
  static const size_t map[] = {0, 3, 8};
  GiltType *elem = y_zero_point_elem(v);
  return elem ? infer_on(v, graph_infer_conv, map, 3, "iii", elem, types)
              : GILT_FAILURE;
}

/* Whether two shapes of one rank may be equal (unknown dims match). */
static bool dims_compatible(size_t rank, const int64_t *a, const int64_t *b)
{
  for (size_t d = 0; d < rank; d++)
    if (a[d] >= 0 && b[d] >= 0 && a[d] != b[d])
      return false;
  return true;
}

/* The scale's (and zero point's) shape against x's: ONNX 21's three
** granularities. Unknown ranks and dims pass. */
static GiltStatus check_scale_shape(const GraphOpView *v)
{
  GraphShape x, s;
  graph_operand_shape(v, 0, &x);
  graph_operand_shape(v, 1, &s);
  int64_t block = graph_dict_int(v->attrs, "block_size", 0);
  int64_t axis = graph_dict_int(v->attrs, "axis", 1);
  if (block < 0)
    return graph_error(v, "attribute 'block_size' (%lld) must not be "
                       "negative", (long long)block);
  if (graph_has_operand(v, 2)) {
    GraphShape z;
    graph_operand_shape(v, 2, &z);
    if (s.ranked && z.ranked &&
        (s.rank != z.rank || !dims_compatible(s.rank, s.dims, z.dims)))
      return graph_error(v, "operand '%s' must have the shape of '%s'",
                         graph_operand_name(v, 2), graph_operand_name(v, 1));
  }
  if (!x.ranked || !s.ranked || (s.rank == 0 && !block))
    return GILT_SUCCESS;
  int64_t ax;
  if (!graph_normalize_axis(axis, x.rank, &ax))
    return graph_error(v, "attribute 'axis' (%lld) is out of range for "
                       "rank %zu", (long long)axis, x.rank);
  if (!block) {
    if (s.rank != 1)
      return graph_error(v, "operand '%s' must be a scalar or 1-D without "
                         "'block_size'", graph_operand_name(v, 1));
    if (x.dims[ax] >= 0 && s.dims[0] >= 0 && x.dims[ax] != s.dims[0])
      return graph_error(v, "operand '%s' has %lld elements, axis %lld of "
                         "x has %lld", graph_operand_name(v, 1),
                         (long long)s.dims[0], (long long)ax,
                         (long long)x.dims[ax]);
    return GILT_SUCCESS;
  }
  if (s.rank != x.rank)
    return graph_error(v, "operand '%s' must have x's rank (%zu) with "
                       "'block_size'", graph_operand_name(v, 1), x.rank);
  for (size_t d = 0; d < x.rank; d++) {
    int64_t want = x.dims[d];
    if (want >= 0 && (int64_t)d == ax)
      want = want / block + (want % block != 0);
    if (want >= 0 && s.dims[d] >= 0 && s.dims[d] != want)
      return graph_error(v, "operand '%s' has %lld at dim %zu, expected "
                         "%lld", graph_operand_name(v, 1),
                         (long long)s.dims[d], d, (long long)want);
  }
  return GILT_SUCCESS;
}

/* QuantizeLinear: x's shape in y_zero_point's type, else output_dtype's,
** else ui8. */
GiltStatus graph_infer_quantize_linear(const GraphOpView *v,
                                       GiltType **types)
{
  if (graph_check_operands(v) || check_scale_shape(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  int64_t dtype = graph_dict_int(v->attrs, "output_dtype", 0);
  GiltType *elem = NULL;
  if (dtype) {
    elem = graph_onnx_elem_type(v->ctx, dtype);
    if (!elem || !(gilt_type_get_bit_width(elem) <= 16 &&
                   gilt_type_get_bit_width(elem) >= 4 &&
                   (elem->kind == GILT_TYPE_INTEGER ||
                    gilt_type_get_bit_width(elem) == 8)))
      return graph_error(v, "attribute 'output_dtype' (%lld) is not a "
                         "quantized ONNX data type", (long long)dtype);
  }
  if (graph_has_operand(v, 2)) {
    GiltType *z = graph_operand_elem(v, 2);
    if (elem && elem != z)
      return graph_error(v, "attribute 'output_dtype' (%lld) does not "
                         "match y_zero_point's element type",
                         (long long)dtype);
    elem = z;
  }
  if (!elem)
    elem = gilt_integer_type_get(v->ctx, 8, GILT_UNSIGNED);
  types[0] = graph_tensor_type(v->ctx, &x, elem);
  return GILT_SUCCESS;
}

/* DequantizeLinear: x's shape in x_scale's type. */
GiltStatus graph_infer_dequantize_linear(const GraphOpView *v,
                                         GiltType **types)
{
  if (graph_check_operands(v) || check_scale_shape(v))
    return GILT_FAILURE;
  if (graph_has_operand(v, 2) &&
      graph_operand_elem(v, 2) != graph_operand_elem(v, 0))
    return graph_error(v, "operand 'x_zero_point' must have x's element "
                       "type");
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
