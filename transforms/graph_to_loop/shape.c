/*
** shape.c - lowering of the ops that make a tensor from shapes and
** positions rather than from another tensor's elements: Shape (with start
** and end), Size, ConstantOfShape, Range, EyeLike, OneHot and Trilu.
**
** Sizes that come from tensors (ConstantOfShape's shape, Range's bounds,
** OneHot's depth) are loaded at run time and become the result's dynamic
** sizes, so computed ones work.
*/
#include "transforms/graph_to_loop/indexing.h"

static GiltValue *index_to_i64(Lower *l, GiltValue *v)
{
  return lower_emit(l, LOOP_OP_INDEX_CAST, lower_i64_type(l), 1, &v);
}


/* ---- Shape and Size ---------------------------------------------------------- */

static GiltStatus lower_shape(Lower *l)
{
  GiltValue *in = lower_operand(l, 0);
  int64_t rank = (int64_t)gilt_value_get_type(in)->shaped.rank;
  int64_t start = graph_attr_int(l->op, "start", 0);
  start = start < 0 ? start + rank : start;
  start = start < 0 ? 0 : start > rank ? rank : start;
  GiltType *t = lower_result_type(l, 0);
  GiltValue *out = lower_alloc(l, t, NULL);
  for (int64_t k = 0; k < t->shaped.shape[0]; k++) {
    GiltValue *at = lower_index(l, k);
    lower_store(l, index_to_i64(l, lower_dim(l, in, (size_t)(start + k))), out,
                &at);
  }
  return lower_replace(l, &out);
}

static GiltStatus lower_size(Lower *l)
{
  GiltValue *in = lower_operand(l, 0), *dims[GRAPH_MAX_RANK];
  lower_dims(l, in, dims);
  GiltValue *n = ix_product(l, dims, 0, gilt_value_get_type(in)->shaped.rank);
  GiltValue *out = lower_alloc(l, lower_result_type(l, 0), NULL);
  lower_store(l, index_to_i64(l, n), out, NULL);
  return lower_replace(l, &out);
}

/* ---- ConstantOfShape --------------------------------------------------------- */

static GiltValue *given_value(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)l;
  (void)ivs;
  return user;
}

static GiltStatus lower_constant_of_shape(Lower *l)
{
  GiltValue *shape = lower_operand(l, 0), *dims[GRAPH_MAX_RANK];
  GiltType *t = lower_result_type(l, 0), *elem = t->shaped.elem;
  for (size_t d = 0; d < t->shaped.rank; d++)
    dims[d] = lower_load_index(l, shape, (int64_t)d);
  GiltAttr *value = gilt_op_get_attr(l->op, "value");
  GiltValue *v;
  if (!value)
    v = lower_constant(l, elem, 0);
  else if (lower_is_float(elem))
    v = lower_constant(l, elem, gilt_dense_attr_get_float(value, 0));
  else
    v = lower_int_constant(l, elem, gilt_dense_attr_get_int(value, 0));
  GiltValue *out = lower_generate(l, 0, dims, given_value, v);
  return lower_replace(l, &out);
}

/* ---- Range -------------------------------------------------------------------- */

typedef struct Range {
  GiltValue *start, *delta;
} Range;

/* start + i * delta in the element type. */
static GiltValue *range_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Range *r = user;
  GiltType *t = gilt_value_get_type(r->start);
  GiltValue *i = index_to_i64(l, ivs[0]);
  GiltValue *step = lower_binary(l, lower_is_float(t) ? LOOP_OP_MULF
                                                      : LOOP_OP_MULI,
                                 lower_convert(l, i, t), r->delta);
  return lower_binary(l, lower_is_float(t) ? LOOP_OP_ADDF : LOOP_OP_ADDI,
                      r->start, step);
}

/* ceil((limit - start) / delta) elements, none when the sign of delta
** points away from limit. Integers: the distance |limit - start| and
** |delta| are exact as unsigned values (both may reach 2^63 and more), so
** the count is (distance - 1) / |delta| + 1 in unsigned division, which
** must then fit an index. Floats: the count must be a number below 2^63.
** ONNX forbids a zero delta. */
static GiltValue *int_range_count(Lower *l)
{
  GiltValue *from = lower_load_index(l, lower_operand(l, 0), 0);
  GiltValue *to = lower_load_index(l, lower_operand(l, 1), 0);
  GiltValue *delta = lower_load_index(l, lower_operand(l, 2), 0);
  GiltValue *zero = lower_index(l, 0), *one = lower_index(l, 1);
  lower_assert_nonzero(l, delta, "delta must not be zero");
  GiltValue *up = lower_cmp(l, "sgt", delta, zero);
  GiltValue *ahead = lower_select(l, up, lower_cmp(l, "sgt", to, from),
                                  lower_cmp(l, "slt", to, from));
  GiltValue *distance = lower_select(l, up, ix_sub(l, to, from),
                                     ix_sub(l, from, to));
  GiltValue *step = lower_select(l, up, delta, ix_sub(l, zero, delta));
  step = lower_select(l, lower_cmp(l, "eq", step, zero), one, step);
  GiltValue *q = lower_binary(l, LOOP_OP_DIVUI, ix_sub(l, distance, one), step);
  GiltValue *n = lower_select(l, ahead, ix_add(l, q, one), zero);
  lower_assert(l, lower_cmp(l, "sge", n, zero), "the result's size overflows");
  return n;
}

static GiltValue *float_range_count(Lower *l, Range *r, GiltValue *limit)
{
  GiltValue *zero = lower_constant_like(l, r->delta, 0);
  lower_assert(l, lower_cmp(l, "une", r->delta, zero),
               "delta must not be zero");
  GiltValue *span = lower_binary(l, LOOP_OP_SUBF, limit, r->start);
  GiltValue *q = lower_unary(l, LOOP_OP_CEIL,
                             lower_binary(l, LOOP_OP_DIVF, span, r->delta));
  q = lower_convert(l, q, lower_f64_type(l));
  /* Ordered: a NaN count (from NaN or infinite operands) fails too. */
  lower_assert(l, lower_cmp(l, "olt", q, lower_f64(l, 0x1p63)),
               "the result's size overflows");
  q = lower_convert(l, q, lower_i64_type(l));
  GiltValue *n = lower_emit(l, LOOP_OP_INDEX_CAST, lower_index_type(l), 1, &q);
  return ix_max(l, n, lower_index(l, 0));
}

static GiltStatus lower_range(Lower *l)
{
  GiltValue *start = lower_load_first(l, lower_operand(l, 0));
  Range r = {start, lower_load_first(l, lower_operand(l, 2))};
  GiltValue *limit = lower_load_first(l, lower_operand(l, 1));
  GiltValue *n = lower_is_float(gilt_value_get_type(limit))
                     ? float_range_count(l, &r, limit)
                     : int_range_count(l);
  GiltValue *out = lower_generate(l, 0, &n, range_element, &r);
  return lower_replace(l, &out);
}

/* ---- EyeLike and Trilu: by the diagonal ------------------------------------------ */

typedef struct Diagonal {
  GiltValue *in, *k, *one, *zero;
  bool upper;
} Diagonal;

/* j - i for the last two indices of ivs (of `rank`). */
static GiltValue *offset_from_diagonal(Lower *l, GiltValue *const *ivs,
                                       size_t rank)
{
  return ix_sub(l, ivs[rank - 1], ivs[rank - 2]);
}

static GiltValue *eye_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Diagonal *e = user;
  GiltValue *on = lower_cmp(l, "eq", offset_from_diagonal(l, ivs, 2), e->k);
  return lower_select(l, on, e->one, e->zero);
}

static GiltStatus lower_eye_like(Lower *l)
{
  GiltValue *in = lower_operand(l, 0), *dims[2];
  GiltType *elem = lower_result_elem(l, 0);
  if (gilt_value_get_type(in)->shaped.rank != 2)
    return lower_error(l, "the input is not a matrix");
  lower_dims(l, in, dims);
  Diagonal e = {in, .upper = false};
  e.k = lower_index(l, graph_attr_int(l->op, "k", 0));
  e.one = lower_constant(l, elem, 1);
  e.zero = lower_constant(l, elem, 0);
  GiltValue *out = lower_generate(l, 0, dims, eye_element, &e);
  return lower_replace(l, &out);
}

static GiltValue *trilu_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Diagonal *t = user;
  size_t rank = gilt_value_get_type(t->in)->shaped.rank;
  GiltValue *off = offset_from_diagonal(l, ivs, rank);
  GiltValue *keep = lower_cmp(l, t->upper ? "sge" : "sle", off, t->k);
  return lower_select(l, keep, lower_load(l, t->in, ivs), t->zero);
}

static GiltStatus lower_trilu(Lower *l)
{
  GiltValue *in = lower_operand(l, 0), *dims[GRAPH_MAX_RANK];
  if (gilt_value_get_type(in)->shaped.rank < 2)
    return lower_error(l, "the input has fewer than two dimensions");
  GiltValue *k = lower_operand(l, 1);
  Diagonal t = {in, .upper = graph_attr_int(l->op, "upper", 1) != 0};
  t.k = k ? lower_load_index(l, k, 0) : lower_index(l, 0);
  t.zero = lower_constant(l, lower_operand_elem(l, 0), 0);
  lower_dims(l, in, dims);
  GiltValue *out = lower_generate(l, 0, dims, trilu_element, &t);
  return lower_replace(l, &out);
}

/* ---- OneHot ---------------------------------------------------------------------- */

typedef struct OneHot {
  GiltValue *indices, *depth, *off, *on;
  size_t axis, rank; /* the result's */
} OneHot;

static GiltValue *one_hot_element(Lower *l, GiltValue *const *ivs, void *user)
{
  OneHot *o = user;
  GiltValue *at[GRAPH_MAX_RANK];
  size_t n = 0;
  for (size_t d = 0; d < o->rank; d++)
    if (d != o->axis)
      at[n++] = ivs[d];
  GiltValue *hot = lower_load_index_at(l, o->indices, at);
  hot = ix_wrap_negative(l, hot, o->depth);
  GiltValue *is = lower_cmp(l, "eq", ivs[o->axis], hot);
  return lower_select(l, is, o->on, o->off);
}

static GiltStatus lower_one_hot(Lower *l)
{
  OneHot o = {.indices = lower_operand(l, 0)};
  o.rank = gilt_value_get_type(o.indices)->shaped.rank + 1;
  if (!lower_axis(l, graph_attr_int(l->op, "axis", -1), o.rank, &o.axis))
    return GILT_FAILURE;
  GiltValue *values = lower_operand(l, 2), *dims[GRAPH_MAX_RANK];
  o.depth = lower_load_index(l, lower_operand(l, 1), 0);
  o.off = lower_load(l, values, (GiltValue *[]){lower_index(l, 0)});
  o.on = lower_load(l, values, (GiltValue *[]){lower_index(l, 1)});
  for (size_t d = 0, n = 0; d < o.rank; d++)
    dims[d] = d == o.axis ? o.depth : lower_dim(l, o.indices, n++);
  GiltValue *out = lower_generate(l, 0, dims, one_hot_element, &o);
  return lower_replace(l, &out);
}

const GraphLoweringRow graph_lower_shape[] = {
    {GRAPH_OP_SHAPE, {lower_shape}},
    {GRAPH_OP_SIZE, {lower_size}},
    {GRAPH_OP_CONSTANT_OF_SHAPE, {lower_constant_of_shape}},
    {GRAPH_OP_RANGE, {lower_range}},
    {GRAPH_OP_EYE_LIKE, {lower_eye_like}},
    {GRAPH_OP_TRILU, {lower_trilu}},
    {GRAPH_OP_ONE_HOT, {lower_one_hot}},
    {0, {NULL}},
};
