/*
** softmax.c - lowering of the ops that normalize along one axis: Softmax,
** LogSoftmax, Hardmax and LpNormalization.
**
** The graph ops have opset 13's meaning, one axis (default -1): the
** importer spells out the older ops' flattening at `axis` (Flatten, the op
** on the last axis, Reshape back), so there is nothing of opset < 13 left
** to handle here. Each is a loop.parallel over the other dimensions, and
** inside it loop.for passes along the axis (lower_reduce_loops): Softmax
** takes the maximum, then the sum of exp(x - max), then writes
** exp(x - max) / sum (LogSoftmax x - max - log(sum)); floats narrower than
** f32 compute in f32. Hardmax writes 1 at the first maximum, 0 elsewhere.
** LpNormalization (p 1 or 2) divides by the norm along the axis, and
** writes 0 where the norm is 0, as ONNX Runtime does.
**
** Softmax and LogSoftmax of f32 on the last axis go by rows of 16 lanes
** (rows.c) instead: the maximum, by lower_keep_max (x86's maxps:
** loop.maximumf's ordering of NaN and -0 had made this pass more than a
** third of a [8, 128, 128] Softmax, and a NaN that the maximum passes
** over still turns the row's sum NaN); then the sum of exp(x - max)
** (Softmax storing exp(x - max) as it goes, so that the last pass
** multiplies by 1 / sum instead of computing exp again: one division a
** row, as ONNX Runtime's, where one an element had cost 6% of a [8, 128,
** 128] Softmax); then the writes.
*/
#include "transforms/graph_to_loop/lowering.h"

#include <string.h>

typedef struct AxisOp {
  GiltValue *in, *out;
  size_t rank, axis;
  GiltValue *dims[GRAPH_MAX_RANK];
  bool reduced[GRAPH_MAX_RANK];
  GiltType *ct; /* the type computed in */
  /* per position of the other dimensions (max by rows: in every lane) */
  GiltValue *max, *sum, *norm, *best;
  GiltValue *inv_sum; /* Softmax by rows: 1 / sum */
  bool log;
  int64_t p;
  int pass;
} AxisOp;

static void axis_op_init(Lower *l, AxisOp *a, GiltValue *in, size_t axis,
                         GiltValue *out)
{
  memset(a, 0, sizeof *a);
  a->in = in;
  a->out = out;
  a->rank = gilt_value_get_type(in)->shaped.rank;
  a->axis = axis;
  lower_dims(l, in, a->dims);
  a->reduced[axis] = true;
  a->ct = lower_acc_type(l, gilt_value_get_type(in)->shaped.elem);
}

static GiltValue *load(Lower *l, AxisOp *a, GiltValue *const *idx)
{
  return lower_convert(l, lower_load(l, a->in, idx), a->ct);
}

static void store(Lower *l, AxisOp *a, GiltValue *v, GiltValue *const *idx)
{
  GiltType *elem = gilt_value_get_type(a->out)->shaped.elem;
  lower_store(l, lower_convert(l, v, elem), a->out, idx);
}

/* The normalizing axis of the op: attribute 'axis', default -1. */
static GiltStatus op_axis(Lower *l, size_t rank, size_t *axis)
{
  int64_t a;
  if (!graph_normalize_axis(graph_attr_int(l->op, "axis", -1), rank, &a))
    return lower_error(l, "attribute 'axis' is out of range for rank %zu",
                       rank);
  *axis = (size_t)a;
  return GILT_SUCCESS;
}

/* ---- Softmax, LogSoftmax ---------------------------------------------------------- */

enum { PASS_MAX, PASS_SUM, PASS_WRITE };

static void softmax_step(Lower *l, GiltValue *const *idx,
                         GiltValue *const *acc, GiltValue **next, void *user)
{
  AxisOp *a = user;
  GiltValue *x = load(l, a, idx);
  if (a->pass == PASS_MAX) {
    next[0] = lower_binary(l, LOOP_OP_MAXIMUMF, acc[0], x);
    return;
  }
  GiltValue *shifted = lower_binary(l, LOOP_OP_SUBF, x, a->max);
  if (a->pass == PASS_SUM) {
    next[0] = lower_binary(l, LOOP_OP_ADDF, acc[0],
                           lower_unary(l, LOOP_OP_EXP, shifted));
    return;
  }
  GiltValue *y = a->log ? lower_binary(l, LOOP_OP_SUBF, shifted, a->sum)
                        : lower_binary(l, LOOP_OP_DIVF,
                                       lower_unary(l, LOOP_OP_EXP, shifted),
                                       a->sum);
  store(l, a, y, idx);
}

/* Two partial maxima or sums (split between a GPU block's threads). */
static void softmax_combine(Lower *l, GiltValue *const *acc,
                            GiltValue *const *other, GiltValue **next,
                            void *user)
{
  AxisOp *a = user;
  next[0] = lower_binary(l, a->pass == PASS_MAX ? LOOP_OP_MAXIMUMF
                                                : LOOP_OP_ADDF,
                         acc[0], other[0]);
}

static void softmax_body(Lower *l, GiltValue *const *ivs, void *user)
{
  AxisOp *a = user;
  GiltValue *init = lower_lowest(l, a->ct);
  a->pass = PASS_MAX;
  lower_reduce_loops_split(l, a->rank, a->dims, a->reduced, ivs, 1, &init,
                           &a->max, softmax_step, softmax_combine, a);
  init = lower_constant(l, a->ct, 0);
  a->pass = PASS_SUM;
  lower_reduce_loops_split(l, a->rank, a->dims, a->reduced, ivs, 1, &init,
                           &a->sum, softmax_step, softmax_combine, a);
  if (a->log)
    a->sum = lower_unary(l, LOOP_OP_LOG, a->sum);
  a->pass = PASS_WRITE;
  lower_reduce_loops(l, a->rank, a->dims, a->reduced, ivs, 0, NULL, NULL,
                     softmax_step, a);
}

/* ---- Softmax, LogSoftmax by rows (rows.c) ------------------------------------------ */

static GiltValue *splat(Lower *l, LowerRow *r, GiltValue *x)
{
  return lower_lanes_splat(l, &r->v, x);
}

static void row_max(Lower *l, LowerRow *r, GiltValue *const *acc,
                    GiltValue **next, void *user)
{
  AxisOp *a = user;
  GiltValue *x = lower_row_load(l, r, a->in, NULL, acc[0]);
  next[0] = lower_keep_max(l, acc[0], x);
}

/* Sums exp(x - max); Softmax also stores it, for the last pass to scale. */
static void row_sum(Lower *l, LowerRow *r, GiltValue *const *acc,
                    GiltValue **next, void *user)
{
  AxisOp *a = user;
  GiltValue *x = lower_row_load(l, r, a->in, NULL, NULL);
  GiltValue *e = lower_unary(
      l, LOOP_OP_EXP, lower_binary(l, LOOP_OP_SUBF, x, a->max));
  if (!a->log)
    lower_row_store(l, r, e, a->out);
  if (r->mask)
    e = lower_select(l, r->mask, e, lower_lanes_zero(&r->v));
  next[0] = lower_binary(l, LOOP_OP_ADDF, acc[0], e);
}

static void row_write(Lower *l, LowerRow *r, GiltValue *const *acc,
                      GiltValue **next, void *user)
{
  (void)acc;
  (void)next;
  AxisOp *a = user;
  GiltValue *y;
  if (a->log) {
    GiltValue *x = lower_row_load(l, r, a->in, NULL, NULL);
    GiltValue *shifted = lower_binary(l, LOOP_OP_SUBF, x, a->max);
    y = lower_binary(l, LOOP_OP_SUBF, shifted, splat(l, r, a->sum));
  } else {
    GiltValue *e = lower_row_load(l, r, a->out, NULL, NULL);
    y = lower_binary(l, LOOP_OP_MULF, e, splat(l, r, a->inv_sum));
  }
  lower_row_store(l, r, y, a->out);
}

static void softmax_row_body(Lower *l, GiltValue *const *ivs, void *user)
{
  AxisOp *a = user;
  LowerRow r;
  lower_row_init(l, &r, a->rank, ivs, a->dims[a->rank - 1]);
  GiltValue *init = splat(l, &r, lower_lowest(l, a->ct)), *lanes;
  lower_row_loop(l, &r, 1, &init, &lanes, row_max, a);
  a->max = lower_row_max_in_every_lane(l, &r, lanes);
  init = lower_lanes_zero(&r.v);
  lower_row_loop(l, &r, 1, &init, &lanes, row_sum, a);
  a->sum = lower_row_combine(l, "add", lanes);
  if (a->log)
    a->sum = lower_unary(l, LOOP_OP_LOG, a->sum);
  else /* the row's writes multiply by 1 / sum: one division a row */
    a->inv_sum = lower_binary(l, LOOP_OP_DIVF,
                              lower_constant_like(l, a->sum, 1), a->sum);
  lower_row_loop(l, &r, 0, NULL, NULL, row_write, a);
}

void lower_softmax_into(Lower *l, GiltValue *in, size_t axis, bool log,
                        GiltValue *out)
{
  AxisOp a;
  axis_op_init(l, &a, in, axis, out);
  a.log = log;
  bool rows = lower_row_apply(l, a.rank, a.reduced,
                              gilt_value_get_type(in)->shaped.elem) &&
              gilt_value_get_type(out)->shaped.elem == a.ct;
  if (rows)
    lower_parallel_kept(l, a.rank, a.dims, a.reduced, softmax_row_body, &a);
  else
    lower_parallel_kept_shared(l, a.rank, a.dims, a.reduced, softmax_body,
                               &a);
}

static GiltStatus lower_softmax_op(Lower *l, bool log)
{
  GiltValue *in = lower_operand(l, 0);
  size_t rank = gilt_value_get_type(in)->shaped.rank, axis = 0;
  if (op_axis(l, rank, &axis))
    return GILT_FAILURE;
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, in, dims);
  GiltValue *out = lower_alloc_result(l, 0, dims);
  lower_softmax_into(l, in, axis, log, out);
  return lower_replace(l, &out);
}

static GiltStatus lower_softmax(Lower *l)
{
  return lower_softmax_op(l, false);
}

static GiltStatus lower_log_softmax(Lower *l)
{
  return lower_softmax_op(l, true);
}

/* ---- Hardmax ---------------------------------------------------------------------- */

static void hardmax_step(Lower *l, GiltValue *const *idx,
                         GiltValue *const *acc, GiltValue **next, void *user)
{
  (void)acc;
  (void)next;
  AxisOp *a = user;
  GiltValue *hit = lower_cmp(l, "eq", idx[a->axis], a->best);
  GiltType *elem = gilt_value_get_type(a->out)->shaped.elem;
  GiltValue *one = lower_constant(l, elem, 1);
  GiltValue *zero = lower_constant(l, elem, 0);
  lower_store(l, lower_select(l, hit, one, zero), a->out, idx);
}

static void hardmax_body(Lower *l, GiltValue *const *ivs, void *user)
{
  AxisOp *a = user;
  a->best = lower_arg_index(l, a->in, a->dims, a->axis, true, false, ivs);
  lower_reduce_loops(l, a->rank, a->dims, a->reduced, ivs, 0, NULL, NULL,
                     hardmax_step, a);
}

static GiltStatus lower_hardmax(Lower *l)
{
  GiltValue *in = lower_operand(l, 0);
  size_t rank = gilt_value_get_type(in)->shaped.rank, axis = 0;
  if (op_axis(l, rank, &axis))
    return GILT_FAILURE;
  AxisOp a;
  axis_op_init(l, &a, in, axis, NULL);
  a.out = lower_alloc_result(l, 0, a.dims);
  lower_parallel_kept(l, a.rank, a.dims, a.reduced, hardmax_body, &a);
  return lower_replace(l, &a.out);
}

/* ---- LpNormalization ------------------------------------------------------------- */

static void lp_step(Lower *l, GiltValue *const *idx, GiltValue *const *acc,
                    GiltValue **next, void *user)
{
  AxisOp *a = user;
  GiltValue *x = load(l, a, idx);
  if (a->pass == PASS_SUM) {
    GiltValue *v = a->p == 1 ? lower_unary(l, LOOP_OP_ABSF, x)
                             : lower_binary(l, LOOP_OP_MULF, x, x);
    next[0] = lower_binary(l, LOOP_OP_ADDF, acc[0], v);
    return;
  }
  GiltValue *zero = lower_constant(l, a->ct, 0);
  GiltValue *none = lower_cmp(l, "oeq", a->norm, zero);
  store(l, a,
        lower_select(l, none, zero, lower_binary(l, LOOP_OP_DIVF, x, a->norm)),
        idx);
}

static void lp_body(Lower *l, GiltValue *const *ivs, void *user)
{
  AxisOp *a = user;
  GiltValue *init = lower_constant(l, a->ct, 0);
  a->pass = PASS_SUM;
  lower_reduce_loops(l, a->rank, a->dims, a->reduced, ivs, 1, &init, &a->norm,
                     lp_step, a);
  if (a->p == 2)
    a->norm = lower_unary(l, LOOP_OP_SQRT, a->norm);
  a->pass = PASS_WRITE;
  lower_reduce_loops(l, a->rank, a->dims, a->reduced, ivs, 0, NULL, NULL,
                     lp_step, a);
}

static GiltStatus lower_lp_normalization(Lower *l)
{
  GiltValue *in = lower_operand(l, 0);
  size_t rank = gilt_value_get_type(in)->shaped.rank, axis = 0;
  if (op_axis(l, rank, &axis))
    return GILT_FAILURE;
  int64_t p = graph_attr_int(l->op, "p", 2);
  if (p != 1 && p != 2)
    return lower_error(l, "attribute 'p' is %lld, expected 1 or 2",
                       (long long)p);
  AxisOp a;
  axis_op_init(l, &a, in, axis, NULL);
  a.out = lower_alloc_result(l, 0, a.dims);
  a.p = p;
  lower_parallel_kept(l, a.rank, a.dims, a.reduced, lp_body, &a);
  return lower_replace(l, &a.out);
}

const GraphLoweringRow graph_lower_softmax[] = {
    {GRAPH_OP_SOFTMAX, {lower_softmax}},
    {GRAPH_OP_LOG_SOFTMAX, {lower_log_softmax}},
    {GRAPH_OP_HARDMAX, {lower_hardmax}},
    {GRAPH_OP_LP_NORMALIZATION, {lower_lp_normalization}},
    {0, {NULL}},
};
