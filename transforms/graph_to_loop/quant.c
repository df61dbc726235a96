/*
** quant.c - lowering of QuantizeLinear, DequantizeLinear and
** DynamicQuantizeLinear, and the requantization of an integer
** accumulator that QLinearMatMul and QLinearConv end with.
**
** ONNX's reference semantics: quantizing divides in the input's float
** type, rounds half to even, adds the zero point and saturates to the
** output type's range; dequantizing subtracts the zero point and
** multiplies by the scale in f32. Scales and zero points apply per tensor
** (a scalar or one element), per axis (1-D along `axis`) or per block
** (x's rank, `block_size` elements of `axis` sharing one). The sums after
** rounding are done in f64, where every value of a 32-bit accumulator and
** of the saturation bounds is exact. Not here: float8 outputs and inputs
** (their saturation and NaN rules are another family), refused.
*/
#include "transforms/graph_to_loop/lowering.h"

#include <math.h>

/* v (f64, already rounded) clamped to the range of integer type `to` and
** converted to it. */
static GiltValue *saturate(Lower *l, GiltValue *v, GiltType *to)
{
  unsigned w = gilt_type_get_bit_width(to);
  bool u = lower_is_unsigned(to);
  double lo = u ? 0 : -ldexp(1, (int)w - 1);
  double hi = u ? ldexp(1, (int)w) - 1 : ldexp(1, (int)w - 1) - 1;
  GiltType *f64 = lower_f64_type(l);
  v = lower_binary(l, LOOP_OP_MAXIMUMF, v, lower_constant(l, f64, lo));
  v = lower_binary(l, LOOP_OP_MINIMUMF, v, lower_constant(l, f64, hi));
  return lower_convert(l, v, to);
}

/* rounded (a float, already rounded to an integer value) + zp, saturated
** into `to`. */
static GiltValue *add_zero_point(Lower *l, GiltValue *rounded, GiltValue *zp,
                                 GiltType *to)
{
  GiltValue *v = lower_convert(l, rounded, lower_f64_type(l));
  if (zp)
    v = lower_binary(l, LOOP_OP_ADDF, v,
                     lower_convert(l, zp, lower_f64_type(l)));
  return saturate(l, v, to);
}

GiltValue *lower_requantize(Lower *l, GiltValue *acc, GiltValue *scale,
                            GiltValue *zp, GiltType *to)
{
  GiltType *f64 = lower_f64_type(l);
  GiltValue *acc64 = lower_convert(l, acc, f64);
  GiltValue *scale64 = lower_convert(l, scale, f64);
  GiltValue *v = lower_binary(l, LOOP_OP_MULF, acc64, scale64);
  return add_zero_point(l, lower_unary(l, LOOP_OP_ROUNDEVEN, v), zp, to);
}

/* ---- scales and zero points --------------------------------------------------- */

typedef struct Quant {
  GiltValue *x, *scale, *zp, *out;
  size_t rank;
  int64_t axis, block; /* block 0: per tensor or per axis */
  bool scalar;         /* per tensor */
  GiltValue *(*fn)(Lower *l, GiltValue *x, GiltValue *scale, GiltValue *zp,
                   GiltType *to);
} Quant;

/* The element of a scale or zero point q for x's element at ivs. */
static GiltValue *param(Lower *l, const Quant *q, GiltValue *p,
                        GiltValue *const *ivs)
{
  if (!p)
    return NULL;
  GiltType *t = gilt_value_get_type(p);
  GiltValue *idx[GRAPH_MAX_RANK];
  if (q->block > 0) {
    for (size_t d = 0; d < q->rank; d++)
      idx[d] = ivs[d];
    idx[q->axis] = lower_binary(l, LOOP_OP_DIVSI, ivs[q->axis],
                                lower_index(l, q->block));
  } else if (!q->scalar) {
    idx[0] = ivs[q->axis];
  } else {
    for (size_t d = 0; d < t->shaped.rank; d++)
      idx[d] = lower_index(l, 0);
  }
  return lower_load(l, p, idx);
}

static void quant_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Quant *q = user;
  GiltValue *x = lower_load(l, q->x, ivs);
  GiltValue *scale = param(l, q, q->scale, ivs);
  GiltValue *zp = param(l, q, q->zp, ivs);
  GiltValue *y = q->fn(l, x, scale, zp, gilt_value_get_type(q->out)->shaped.elem);
  lower_store(l, y, q->out, ivs);
}

/* Checks the scale's shape against x's and the attributes, fills q and
** emits the nest. */
static GiltStatus quant_nest(Lower *l, Quant *q)
{
  GiltType *st = gilt_value_get_type(q->scale);
  q->rank = gilt_value_get_type(q->x)->shaped.rank;
  q->axis = graph_attr_int(l->op, "axis", 1);
  q->block = graph_attr_int(l->op, "block_size", 0);
  if (q->axis < 0)
    q->axis += (int64_t)q->rank;
  bool scalar = q->scalar = st->shaped.rank == 0 ||
                           (st->shaped.rank == 1 && st->shaped.shape[0] == 1);
  if (scalar)
    q->block = 0;
  if (!scalar && (q->axis < 0 || q->axis >= (int64_t)q->rank))
    return lower_error(l, "attribute 'axis' is out of range");
  if (!scalar && q->block > 0 && st->shaped.rank != q->rank)
    return lower_error(l, "a blocked scale must have the input's rank");
  if (!scalar && q->block <= 0 && st->shaped.rank != 1)
    return lower_error(l, "a per-axis scale must be 1-D");
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, q->x, dims);
  q->out = lower_alloc_result(l, 0, dims);
  lower_parallel(l, q->rank, dims, quant_body, q);
  return lower_replace(l, &q->out);
}

/* ---- the ops ---------------------------------------------------------------------- */

static GiltValue *quantize(Lower *l, GiltValue *x, GiltValue *scale,
                           GiltValue *zp, GiltType *to)
{
  GiltValue *v = lower_binary(l, LOOP_OP_DIVF, x,
                              lower_convert(l, scale, gilt_value_get_type(x)));
  return add_zero_point(l, lower_unary(l, LOOP_OP_ROUNDEVEN, v), zp, to);
}

static GiltValue *dequantize(Lower *l, GiltValue *x, GiltValue *scale,
                             GiltValue *zp, GiltType *to)
{
  GiltType *f32 = gilt_float_type_get(l->ctx, GILT_F32);
  GiltValue *v = lower_convert(l, x, f32);
  if (zp)
    v = lower_binary(l, LOOP_OP_SUBF, v, lower_convert(l, zp, f32));
  v = lower_binary(l, LOOP_OP_MULF, v, lower_convert(l, scale, f32));
  return lower_convert(l, v, to);
}

static GiltStatus lower_quantize_linear(Lower *l)
{
  if (lower_is_float(lower_result_elem(l, 0)))
    return lower_error(l, "float8 outputs are not supported");
  Quant q = {.x = lower_operand(l, 0), .scale = lower_operand(l, 1),
             .zp = lower_operand(l, 2), .fn = quantize};
  return quant_nest(l, &q);
}

static GiltStatus lower_dequantize_linear(Lower *l)
{
  if (lower_is_float(lower_operand_elem(l, 0)))
    return lower_error(l, "float8 inputs are not supported");
  Quant q = {.x = lower_operand(l, 0), .scale = lower_operand(l, 1),
             .zp = lower_operand(l, 2), .fn = dequantize};
  return quant_nest(l, &q);
}

/* ---- DynamicQuantizeLinear ----------------------------------------------------- */

typedef struct Range {
  GiltValue *x; /* flattened */
} Range;

static void range_step(Lower *l, GiltValue *i, GiltValue *const *iter,
                       GiltValue **next, void *user)
{
  Range *r = user;
  GiltValue *x = lower_load(l, r->x, &i);
  next[0] = lower_binary(l, LOOP_OP_MINIMUMF, iter[0], x);
  next[1] = lower_binary(l, LOOP_OP_MAXIMUMF, iter[1], x);
}

typedef struct Dynamic {
  GiltValue *x, *y, *scale, *zp;
} Dynamic;

static void dynamic_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Dynamic *d = user;
  GiltValue *y = quantize(l, lower_load(l, d->x, ivs), d->scale, d->zp,
                          gilt_value_get_type(d->y)->shaped.elem);
  lower_store(l, y, d->y, ivs);
}

/* y_scale = (max(0, max x) - min(0, min x)) / 255, y_zero_point =
** saturate(round(-min / y_scale)), y = QuantizeLinear(x) with them. */
static GiltStatus lower_dynamic_quantize_linear(Lower *l)
{
  GiltValue *x = lower_operand(l, 0);
  GiltType *t = gilt_value_get_type(x);
  GiltType *f32 = t->shaped.elem, *u8 = lower_result_elem(l, 2);
  GiltValue *dims[GRAPH_MAX_RANK], *n = lower_index(l, 1);
  lower_dims(l, x, dims);
  for (size_t d = 0; d < t->shaped.rank; d++)
    n = lower_binary(l, LOOP_OP_MULI, n, dims[d]);
  int64_t dyn = GILT_DYNAMIC;
  GiltValue *ops[2] = {x, n};
  Range r = {lower_emit(l, LOOP_OP_RESHAPE,
                        gilt_memref_type_get(l->ctx, 1, &dyn, f32, NULL, NULL),
                        2, ops)};
  GiltValue *zero = lower_constant(l, f32, 0), *inits[2] = {zero, zero}, *mm[2];
  lower_for_upto(l, n, 2, inits, mm,
            range_step, &r);
  GiltValue *range = lower_binary(l, LOOP_OP_SUBF, mm[1], mm[0]);
  GiltValue *scale =
      lower_binary(l, LOOP_OP_DIVF, range, lower_constant(l, f32, 255));
  GiltValue *zp = quantize(l, lower_unary(l, LOOP_OP_NEGF, mm[0]), scale, NULL,
                           u8);
  Dynamic dq = {x, lower_alloc_result(l, 0, dims), scale, zp};
  lower_parallel(l, t->shaped.rank, dims, dynamic_body, &dq);
  GiltValue *results[3] = {dq.y};
  results[1] = lower_alloc_result(l, 1, NULL);
  results[2] = lower_alloc_result(l, 2, NULL);
  lower_store(l, scale, results[1], NULL);
  lower_store(l, zp, results[2], NULL);
  return lower_replace(l, results);
}

const GraphLoweringRow graph_lower_quant[] = {
    {GRAPH_OP_QUANTIZE_LINEAR, {lower_quantize_linear}},
    {GRAPH_OP_DEQUANTIZE_LINEAR, {lower_dequantize_linear}},
    {GRAPH_OP_DYNAMIC_QUANTIZE_LINEAR, {lower_dynamic_quantize_linear}},
    {0, {NULL}},
};
