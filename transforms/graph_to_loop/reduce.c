/*
** reduce.c - lowering of the reductions: ReduceSum and its siblings,
** ArgMax and ArgMin, and CumSum; and the reduction nest every family
** builds on (lowering.h's "reductions" section): a loop.parallel over the
** kept dimensions, and inside it loop.for nests over the reduced ones that
** carry the accumulators as loop-carried values.
**
** Semantics, those of ONNX Runtime: floats narrower than f32 accumulate
** in f32 and are rounded once at the end; integers accumulate in their own
** type (wrapping); ReduceMax and ReduceMin propagate NaN, and on bool they
** are `or` and `and`; a reduction over no element gives the identity
** (ReduceSum 0, ReduceProd 1, ReduceMax -inf or the type's lowest value,
** ReduceMin +inf or its highest, ReduceLogSum and ReduceLogSumExp -inf,
** ReduceMean NaN: 0 / 0, of integers 0). noop_with_empty_axes with no
** axes gives the input, for every op, as the spec says (ONNX's reference
** squares for ReduceSumSquare alone); a rank-0 input is reduced as a set
** of one element (ReduceL1 takes the absolute value). ReduceLogSumExp subtracts the maximum
** first (a finite one) so that exp cannot overflow. ReduceL2, ReduceLogSum
** and ReduceLogSumExp of integers compute the last step in f64 and
** truncate back. Axes that only the run knows (a non-constant operand)
** are handled under keepdims, where the result's rank does not depend on
** them (reduce_runtime_axes), and without keepdims too: the result's type
** gives its rank (graph-to-loop lowers ranked tensors only), and a view
** drops the reduced dimensions, checked at run time.
**
** ArgMax and ArgMin return the first index of the extreme (the last under
** select_last_index); NaN counts as beyond every number, as numpy's does.
** CumSum sums along its axis (a constant, or read at run time and
** checked); exclusive shifts the sums by one, reverse runs from the end.
*/
#include "transforms/graph_to_loop/lowering.h"

#include <math.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------- */

GiltType *lower_acc_type(Lower *l, GiltType *t)
{
  if (t->kind == GILT_TYPE_FLOAT && gilt_type_get_bit_width(t) < 32)
    return gilt_float_type_get(l->ctx, GILT_F32);
  return t;
}

GiltValue *lower_index_to(Lower *l, GiltValue *index, GiltType *t)
{
  GiltType *i64 = lower_i64_type(l);
  return lower_convert(l, lower_emit(l, LOOP_OP_INDEX_CAST, i64, 1, &index),
                       t);
}

GiltValue *lower_reduced_count(Lower *l, size_t rank, GiltValue *const *dims,
                               const bool *reduced)
{
  int64_t known = 1, d;
  GiltValue *count = NULL;
  for (size_t i = 0; i < rank; i++) {
    if (!reduced[i])
      continue;
    if (loop_constant_int(dims[i], &d))
      known *= d;
    else
      count = count ? lower_binary(l, LOOP_OP_MULI, count, dims[i]) : dims[i];
  }
  if (!count)
    return lower_index(l, known);
  return known == 1 ? count
                    : lower_binary(l, LOOP_OP_MULI, count,
                                   lower_index(l, known));
}

static GiltValue *bound(Lower *l, GiltType *t, bool high)
{
  if (lower_is_float(t))
    return lower_constant(l, t, high ? INFINITY : -INFINITY);
  unsigned w = gilt_type_get_bit_width(t);
  if (lower_is_unsigned(t))
    return lower_int_constant(l, t, high ? (int64_t)(UINT64_MAX >> (64 - w))
                                         : 0);
  int64_t max = (int64_t)(UINT64_MAX >> (65 - w));
  return lower_int_constant(l, t, high ? max : -max - 1);
}

GiltValue *lower_lowest(Lower *l, GiltType *t)
{
  return bound(l, t, false);
}

GiltValue *lower_highest(Lower *l, GiltType *t)
{
  return bound(l, t, true);
}

/* ---- the nest ------------------------------------------------------------------- */

typedef struct Kept {
  size_t rank;
  const bool *reduced;
  LowerBodyFn body;
  void *user;
} Kept;

static void kept_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Kept *k = user;
  GiltValue *idx[k->rank + 1], *zero = NULL;
  for (size_t d = 0, j = 0; d < k->rank; d++) {
    if (!k->reduced[d])
      idx[d] = ivs[j++];
    else
      idx[d] = zero ? zero : (zero = lower_index(l, 0));
  }
  k->body(l, idx, k->user);
}

void lower_parallel_kept(Lower *l, size_t rank, GiltValue *const *dims,
                         const bool *reduced, LowerBodyFn body, void *user)
{
  GiltValue *uppers[rank + 1];
  size_t n = 0;
  for (size_t d = 0; d < rank; d++)
    if (!reduced[d])
      uppers[n++] = dims[d];
  Kept k = {rank, reduced, body, user};
  lower_parallel(l, n, uppers, kept_body, &k);
}

typedef struct Loops {
  size_t rank, dim, n;
  GiltValue *const *dims;
  const bool *reduced;
  GiltValue **idx;
  LowerAccFn step;
  void *user;
} Loops;

static size_t next_reduced(const Loops *s, size_t from)
{
  while (from < s->rank && !s->reduced[from])
    from++;
  return from;
}

static void loops_level(Lower *l, GiltValue *iv, GiltValue *const *iter,
                        GiltValue **next, void *user)
{
  Loops *s = user;
  size_t d = s->dim;
  s->idx[d] = iv;
  size_t inner = next_reduced(s, d + 1);
  if (inner == s->rank) {
    s->step(l, s->idx, iter, next, s->user);
  } else {
    s->dim = inner;
    lower_for_upto(l, s->dims[inner], s->n, iter, next, loops_level, s);
    s->dim = d;
  }
}

void lower_reduce_loops(Lower *l, size_t rank, GiltValue *const *dims,
                        const bool *reduced, GiltValue *const *at, size_t n,
                        GiltValue *const *inits, GiltValue **results,
                        LowerAccFn step, void *user)
{
  if (l->shared_reduce) { /* a visit, split between a block's threads */
    lower_reduce_loops_split(l, rank, dims, reduced, at, n, inits, results,
                             step, NULL, user);
    return;
  }
  GiltValue *idx[rank + 1];
  for (size_t d = 0; d < rank; d++)
    idx[d] = at[d];
  Loops s = {rank, 0, n, dims, reduced, idx, step, user};
  s.dim = next_reduced(&s, 0);
  if (s.dim == rank) {
    step(l, idx, inits, results, user);
    return;
  }
  lower_for_upto(l, dims[s.dim], n, inits, results, loops_level, &s);
}

/* ---- Reduce* and the global pools --------------------------------------------- */

size_t lower_reduced_dims(Lower *l, GiltValue *in, const bool *reduced,
                          bool keepdims, GiltValue **out_dims)
{
  size_t rank = gilt_value_get_type(in)->shaped.rank, n = 0;
  for (size_t d = 0; d < rank; d++) {
    if (!reduced[d])
      out_dims[n++] = lower_dim(l, in, d);
    else if (keepdims)
      out_dims[n++] = lower_index(l, 1);
  }
  return n;
}

typedef struct Reduce {
  LowerReduceKind kind;
  double p;
  GiltValue *in, *out;
  const bool *reduced;
  bool keepdims;
  size_t rank;
  GiltValue **dims;
  GiltType *acc;     /* the accumulator's type */
  GiltValue *count;  /* ReduceMean: the number of elements, in acc */
  GiltValue *shift;  /* ReduceLogSumExp: the finite maximum subtracted */
  bool max_pass;     /* ReduceLogSumExp's first pass: the maximum */
  /* Axes known at run time: the element at index idx of the loops is at
  ** base + idx, base the parallel's index (see reduce_runtime_axes). */
  bool runtime;
  GiltValue *const *base;
  GiltValue *noop;   /* i1: the run's axes are empty under noop_with_... */
  GiltValue *result; /* the reduction's value, for noop_result */
} Reduce;

static bool is_float(GiltValue *v)
{
  return lower_is_float(gilt_value_get_type(v));
}

static GiltValue *max2(Lower *l, GiltValue *a, GiltValue *b)
{
  if (is_float(a))
    return lower_binary(l, LOOP_OP_MAXIMUMF, a, b);
  return lower_binary(l, lower_is_unsigned(gilt_value_get_type(a))
                             ? LOOP_OP_MAXUI
                             : LOOP_OP_MAXSI,
                      a, b);
}

static GiltValue *min2(Lower *l, GiltValue *a, GiltValue *b)
{
  if (is_float(a))
    return lower_binary(l, LOOP_OP_MINIMUMF, a, b);
  return lower_binary(l, lower_is_unsigned(gilt_value_get_type(a))
                             ? LOOP_OP_MINUI
                             : LOOP_OP_MINSI,
                      a, b);
}

static GiltValue *add2(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_binary(l, is_float(a) ? LOOP_OP_ADDF : LOOP_OP_ADDI, a, b);
}

static GiltValue *mul2(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_binary(l, is_float(a) ? LOOP_OP_MULF : LOOP_OP_MULI, a, b);
}

static GiltValue *abs1(Lower *l, GiltValue *x)
{
  if (is_float(x))
    return lower_unary(l, LOOP_OP_ABSF, x);
  if (lower_is_unsigned(gilt_value_get_type(x)))
    return x;
  return lower_unary(l, LOOP_OP_ABSI, x);
}

static GiltValue *identity(Lower *l, LowerReduceKind kind, GiltType *t)
{
  switch (kind) {
  case LOWER_REDUCE_PROD:
    return lower_constant(l, t, 1);
  case LOWER_REDUCE_MAX:
    return lower_lowest(l, t);
  case LOWER_REDUCE_MIN:
    return lower_highest(l, t);
  default:
    return lower_constant(l, t, 0);
  }
}

/* What an element contributes (x already in the accumulator's type). */
static GiltValue *premap(Lower *l, Reduce *r, GiltValue *x)
{
  switch (r->kind) {
  case LOWER_REDUCE_L1:
    return abs1(l, x);
  case LOWER_REDUCE_L2:
  case LOWER_REDUCE_SUM_SQUARE:
    return mul2(l, x, x);
  case LOWER_REDUCE_LOG_SUM_EXP:
    return lower_unary(l, LOOP_OP_EXP,
                       lower_binary(l, LOOP_OP_SUBF, x, r->shift));
  case LOWER_REDUCE_LP: {
    GiltValue *a = abs1(l, x);
    return lower_binary(l, LOOP_OP_POWF, a, lower_constant(l, r->acc, r->p));
  }
  default:
    return x;
  }
}

static GiltValue *combine(Lower *l, LowerReduceKind kind, GiltValue *acc,
                          GiltValue *v)
{
  switch (kind) {
  case LOWER_REDUCE_MAX:
    return max2(l, acc, v);
  case LOWER_REDUCE_MIN:
    return min2(l, acc, v);
  case LOWER_REDUCE_PROD:
    return mul2(l, acc, v);
  default:
    return add2(l, acc, v);
  }
}

static void reduce_step(Lower *l, GiltValue *const *idx,
                        GiltValue *const *acc, GiltValue **next, void *user)
{
  Reduce *r = user;
  GiltValue *at[r->rank + 1];
  for (size_t d = 0; d < r->rank; d++)
    at[d] = r->runtime ? lower_binary(l, LOOP_OP_ADDI, r->base[d], idx[d])
                       : idx[d];
  GiltValue *x = lower_convert(l, lower_load(l, r->in, at), r->acc);
  if (r->max_pass)
    next[0] = combine(l, LOWER_REDUCE_MAX, acc[0], x);
  else
    next[0] = combine(l, r->kind, acc[0], premap(l, r, x));
}

/* fn(v) computed in f64 when v is an integer, truncated back. */
static GiltValue *float_unary(Lower *l, LoopOpId fn, GiltValue *v)
{
  if (is_float(v))
    return lower_unary(l, fn, v);
  GiltType *t = gilt_value_get_type(v);
  GiltType *f64 = lower_f64_type(l);
  return lower_convert(l, lower_unary(l, fn, lower_convert(l, v, f64)), t);
}

/* The result from the final accumulator. */
static GiltValue *finish(Lower *l, Reduce *r, GiltValue *acc)
{
  switch (r->kind) {
  case LOWER_REDUCE_MEAN:
    if (is_float(acc))
      return lower_binary(l, LOOP_OP_DIVF, acc, r->count);
    return lower_binary(l, lower_is_unsigned(r->acc) ? LOOP_OP_DIVUI
                                                     : LOOP_OP_DIVSI,
                        acc, r->count);
  case LOWER_REDUCE_L2:
    return float_unary(l, LOOP_OP_SQRT, acc);
  case LOWER_REDUCE_LOG_SUM:
    return float_unary(l, LOOP_OP_LOG, acc);
  case LOWER_REDUCE_LOG_SUM_EXP:
    return lower_binary(l, LOOP_OP_ADDF, lower_unary(l, LOOP_OP_LOG, acc),
                        r->shift);
  case LOWER_REDUCE_LP:
    return lower_binary(l, LOOP_OP_POWF, acc,
                        lower_constant(l, r->acc, 1 / r->p));
  default:
    return acc;
  }
}

/* Where the result of the kept position `ivs` (reduced dims at 0) goes. */
static void out_index(size_t rank, const bool *reduced, bool keepdims,
                      GiltValue *const *ivs, GiltValue **out)
{
  for (size_t d = 0, n = 0; d < rank; d++)
    if (!reduced[d] || keepdims)
      out[n++] = ivs[d];
}

/* The element at the parallel's index (when the run's axes are empty
** under noop_with_empty_axes), or the reduction's result. */
static GiltValue *noop_element(Lower *l, void *user)
{
  Reduce *r = user;
  GiltType *elem = gilt_value_get_type(r->out)->shaped.elem;
  return lower_convert(l, lower_load(l, r->in, r->base), elem);
}

static GiltValue *noop_result(Lower *l, void *user)
{
  (void)l;
  return ((Reduce *)user)->result;
}

/* Two partial accumulators (split between a GPU block's threads). */
static void reduce_combine(Lower *l, GiltValue *const *acc,
                           GiltValue *const *other, GiltValue **next,
                           void *user)
{
  Reduce *r = user;
  next[0] = combine(l, r->max_pass ? LOWER_REDUCE_MAX : r->kind, acc[0],
                    other[0]);
}

static void reduce_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Reduce *r = user;
  GiltValue *acc;
  r->base = ivs;
  if (r->kind == LOWER_REDUCE_LOG_SUM_EXP) {
    /* The maximum, replaced by 0 when infinite: all -inf (or none) then
    ** gives log(0) = -inf, a +inf gives +inf, instead of inf - inf. */
    GiltValue *init = lower_lowest(l, r->acc), *m;
    r->max_pass = true;
    lower_reduce_loops_split(l, r->rank, r->dims, r->reduced, ivs, 1, &init,
                             &m, reduce_step, reduce_combine, r);
    r->max_pass = false;
    GiltValue *abs = lower_unary(l, LOOP_OP_ABSF, m);
    GiltValue *inf = lower_cmp(l, "oeq", abs,
                               lower_constant(l, r->acc, INFINITY));
    r->shift = lower_select(l, inf, lower_constant(l, r->acc, 0), m);
  }
  GiltValue *init = identity(l, r->kind, r->acc);
  lower_reduce_loops_split(l, r->rank, r->dims, r->reduced, ivs, 1, &init,
                           &acc, reduce_step, reduce_combine, r);
  GiltValue *idx[r->rank + 1];
  out_index(r->rank, r->reduced, r->keepdims, ivs, idx);
  GiltType *elem = gilt_value_get_type(r->out)->shaped.elem;
  GiltValue *v = lower_convert(l, finish(l, r, acc), elem);
  if (r->noop) { /* a load guarded: a reduced dimension may be empty */
    r->result = v;
    v = lower_if_value(l, r->noop, elem, noop_element, noop_result, r);
  }
  lower_store(l, v, r->out, idx);
}

/* A Reduce over `rank` dimensions of sizes dims, those of reduced[]. */
static void reduce_init(Lower *l, Reduce *r, LowerReduceKind kind, double p,
                        GiltValue *in, GiltValue *out, size_t rank,
                        GiltValue **dims, const bool *reduced, bool keepdims)
{
  GiltType *elem = gilt_value_get_type(in)->shaped.elem;
  *r = (Reduce){kind, p, in, out, reduced, keepdims, rank, dims, NULL, NULL,
                NULL, false, false, NULL, NULL, NULL};
  r->acc = lower_acc_type(l, elem);
  if (!lower_is_float(elem) &&
      (kind == LOWER_REDUCE_LOG_SUM_EXP || kind == LOWER_REDUCE_LP))
    r->acc = lower_f64_type(l);
  if (kind == LOWER_REDUCE_MEAN) {
    GiltValue *count = lower_reduced_count(l, rank, dims, reduced);
    if (!lower_is_float(r->acc)) /* an integer mean of nothing is 0 */
      count = lower_binary(l, LOOP_OP_MAXSI, count, lower_index(l, 1));
    r->count = lower_index_to(l, count, r->acc);
  }
}

void lower_reduce(Lower *l, LowerReduceKind kind, double p, GiltValue *in,
                  const bool *reduced, bool keepdims, GiltValue *out)
{
  size_t rank = gilt_value_get_type(in)->shaped.rank;
  GiltValue *dims[rank + 1];
  lower_dims(l, in, dims);
  Reduce r;
  reduce_init(l, &r, kind, p, in, out, rank, dims, reduced, keepdims);
  lower_parallel_kept_shared(l, rank, dims, reduced, reduce_body, &r);
}

/* ---- axes known at run time ----------------------------------------------------- */

typedef struct Mask {
  GiltValue *axes;
  size_t rank;
} Mask;

/* An axis read at run time, made positive; the run stops with `msg`
** unless it is in [0, rank). */
static GiltValue *runtime_axis(Lower *l, GiltValue *a, size_t rank,
                               const char *msg)
{
  GiltType *t = gilt_value_get_type(a);
  GiltValue *r = lower_int_constant(l, t, (int64_t)rank);
  GiltValue *neg = lower_cmp(l, "slt", a, lower_int_constant(l, t, 0));
  a = lower_select(l, neg, lower_binary(l, LOOP_OP_ADDI, a, r), a);
  GiltValue *low = lower_cmp(l, "sge", a, lower_int_constant(l, t, 0));
  GiltValue *in = lower_binary(l, LOOP_OP_ANDI, low,
                               lower_cmp(l, "slt", a, r));
  lower_emit_attr(l, LOOP_OP_ASSERT, NULL, 1, &in, "message",
                  gilt_string_attr_get(l->ctx, msg, strlen(msg)));
  return a;
}

/* One entry of the axes: checked, made positive, or-ed into the flags. */
static void mask_step(Lower *l, GiltValue *k, GiltValue *const *acc,
                      GiltValue **next, void *user)
{
  Mask *m = user;
  GiltValue *a = runtime_axis(l, lower_load(l, m->axes, &k), m->rank,
                              "an entry of operand 'axes' is out of range");
  GiltType *t = gilt_value_get_type(a);
  for (size_t d = 0; d < m->rank; d++) {
    GiltValue *hit = lower_cmp(l, "eq", a, lower_int_constant(l, t, (int64_t)d));
    next[d] = lower_binary(l, LOOP_OP_ORI, acc[d], hit);
  }
}

/* The result under keepdims, every size `?`: the buffer a reduction over
** run-time axes without keepdims computes into before dropping them. */
static GiltType *kept_type(Lower *l, size_t rank)
{
  int64_t shape[GRAPH_MAX_RANK];
  for (size_t d = 0; d < rank; d++)
    shape[d] = GILT_DYNAMIC;
  return gilt_memref_type_get(l->ctx, rank, shape, lower_result_elem(l, 0),
                              NULL, NULL);
}

/* Without keepdims, the reduced dimensions (mask[d] set) leave the result,
** which the model's type gives a rank: the kept sizes in order, the j-th
** result dimension the j-th unmasked one. The keepdims buffer holds the
** same elements in the same order, so a loop.reshape views it so, after
** a run-time check that as many dimensions were kept as the type says. */
static GiltValue *drop_reduced(Lower *l, GiltValue *kept, GiltValue *const *mask,
                               GiltValue *const *dims, size_t rank)
{
  GiltType *t = lower_result_type(l, 0);
  GiltValue *zero = lower_index(l, 0), *one = lower_index(l, 1);
  GiltValue *sizes[GRAPH_MAX_RANK + 1], *count = zero;
  for (size_t j = 0; j < t->shaped.rank; j++)
    sizes[j] = zero;
  for (size_t d = 0; d < rank; d++) {
    GiltValue *yes = lower_int_constant(l, lower_i1_type(l), 1);
    GiltValue *is_kept = lower_binary(l, LOOP_OP_XORI, mask[d], yes);
    for (size_t j = 0; j < t->shaped.rank; j++) {
      GiltValue *here = lower_cmp(l, "eq", count, lower_index(l, (int64_t)j));
      GiltValue *take = lower_binary(l, LOOP_OP_ANDI, is_kept, here);
      sizes[j] = lower_select(l, take, dims[d], sizes[j]);
    }
    GiltValue *step = lower_select(l, is_kept, one, zero);
    count = lower_binary(l, LOOP_OP_ADDI, count, step);
  }
  GiltValue *rank_ok =
      lower_cmp(l, "eq", count, lower_index(l, (int64_t)t->shaped.rank));
  const char *msg = "the axes leave another rank than the result's type";
  lower_emit_attr(l, LOOP_OP_ASSERT, NULL, 1, &rank_ok, "message",
                  gilt_string_attr_get(l->ctx, msg, strlen(msg)));
  GiltValue *ops[GRAPH_MAX_RANK + 1];
  size_t n = 0;
  ops[n++] = kept;
  for (size_t j = 0; j < t->shaped.rank; j++)
    if (t->shaped.shape[j] == GILT_DYNAMIC)
      ops[n++] = sizes[j];
  return lower_emit(l, LOOP_OP_RESHAPE, t, n, ops);
}

/* Reduce* whose axes operand only the run knows, under keepdims (the
** result's rank does not depend on them then): whether dimension d is
** reduced is an i1 computed from the axes. The parallel runs over the
** kept sizes (1 where reduced), the loops over the reduced ones (1 where
** kept), and the element read is at the sum of the two indices, one of
** which is always 0. */
static GiltValue *reduce_runtime_axes(Lower *l, LowerReduceKind kind,
                                      GiltValue *in, GiltValue *axes,
                                      bool noop, bool keepdims)
{
  size_t rank = gilt_value_get_type(in)->shaped.rank;
  GiltValue *dims[rank + 1], *mask[rank + 1], *outer[rank + 1],
      *inner[rank + 1];
  lower_dims(l, in, dims);
  GiltValue *n = lower_dim(l, axes, 0);
  GiltValue *no = lower_int_constant(l, lower_i1_type(l), 0);
  for (size_t d = 0; d < rank; d++)
    mask[d] = no;
  Mask m = {axes, rank};
  lower_for_upto(l, n, rank, mask, mask, mask_step, &m);
  GiltValue *empty = lower_cmp(l, "eq", n, lower_index(l, 0));
  if (!noop) /* no axes: every one */
    for (size_t d = 0; d < rank; d++)
      mask[d] = lower_binary(l, LOOP_OP_ORI, mask[d], empty);
  GiltValue *one = lower_index(l, 1);
  bool all[rank + 1];
  for (size_t d = 0; d < rank; d++) {
    outer[d] = lower_select(l, mask[d], one, dims[d]);
    inner[d] = lower_select(l, mask[d], dims[d], one);
    all[d] = true;
  }
  GiltValue *out = keepdims ? lower_alloc_result(l, 0, outer)
                            : lower_alloc(l, kept_type(l, rank), outer);
  Reduce r;
  reduce_init(l, &r, kind, 0, in, out, rank, inner, all, true);
  r.runtime = true;
  r.noop = noop ? empty : NULL;
  lower_parallel(l, rank, outer, reduce_body, &r);
  return keepdims ? out : drop_reduced(l, out, mask, dims, rank);
}

/* How a Reduce* op's axes say to reduce. */
typedef enum AxesKind {
  AXES_KNOWN,   /* reduced[] says which */
  AXES_NOOP,    /* none, under noop_with_empty_axes: the input is the result */
  AXES_RUNTIME, /* only the run knows them */
} AxesKind;

/* The reduced axes of a Reduce* op: its constant axes operand, every axis
** when there is none (or an empty one), none under noop_with_empty_axes. */
static GiltStatus reduce_axes(Lower *l, size_t rank, bool *reduced,
                              AxesKind *kind)
{
  int64_t axes[GRAPH_MAX_RANK];
  size_t n = 0;
  GiltValue *operand = lower_operand(l, 1);
  *kind = AXES_KNOWN;
  if (operand) {
    GiltType *t = gilt_value_get_type(operand);
    bool empty = t->shaped.rank == 1 && t->shaped.shape[0] == 0;
    if (!empty && !lower_constant_ints(l, 1, axes, GRAPH_MAX_RANK, &n)) {
      if (t->shaped.rank != 1)
        return lower_error(l, "operand 'axes' must be 1-D");
      *kind = AXES_RUNTIME;
      return GILT_SUCCESS;
    }
  }
  if (n == 0 && graph_attr_int(l->op, "noop_with_empty_axes", 0)) {
    *kind = AXES_NOOP;
    return GILT_SUCCESS;
  }
  for (size_t d = 0; d < rank; d++)
    reduced[d] = n == 0;
  for (size_t i = 0; i < n; i++) {
    int64_t a;
    if (!graph_normalize_axis(axes[i], rank, &a))
      return lower_error(l, "axis %lld is out of range for rank %zu",
                         (long long)axes[i], rank);
    reduced[a] = true;
  }
  return GILT_SUCCESS;
}

static GiltStatus lower_reduce_op(Lower *l, LowerReduceKind kind)
{
  GiltValue *in = lower_operand(l, 0);
  size_t rank = gilt_value_get_type(in)->shaped.rank;
  bool reduced[GRAPH_MAX_RANK] = {0};
  AxesKind axes;
  if (reduce_axes(l, rank, reduced, &axes))
    return GILT_FAILURE;
  bool keepdims = graph_attr_int(l->op, "keepdims", 1) != 0;
  if (axes == AXES_NOOP) {
    /* The input, shared (buffers are never written once made), or copied
    ** by a sum over nothing when the result's type says more. */
    if (lower_result_type(l, 0) == gilt_value_get_type(in))
      return lower_replace(l, &in);
    kind = LOWER_REDUCE_SUM;
  }
  if (axes == AXES_RUNTIME) {
    GiltValue *out = reduce_runtime_axes(
        l, kind, in, lower_operand(l, 1),
        graph_attr_int(l->op, "noop_with_empty_axes", 0) != 0, keepdims);
    return lower_replace(l, &out);
  }
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_reduced_dims(l, in, reduced, keepdims, dims);
  GiltValue *out = lower_alloc_result(l, 0, dims);
  lower_reduce(l, kind, 0, in, reduced, keepdims, out);
  return lower_replace(l, &out);
}

#define REDUCE_OP(name, kind)                                                \
  static GiltStatus lower_##name(Lower *l)                                   \
  {                                                                          \
    return lower_reduce_op(l, kind);                                         \
  }
REDUCE_OP(reduce_sum, LOWER_REDUCE_SUM)
REDUCE_OP(reduce_mean, LOWER_REDUCE_MEAN)
REDUCE_OP(reduce_max, LOWER_REDUCE_MAX)
REDUCE_OP(reduce_min, LOWER_REDUCE_MIN)
REDUCE_OP(reduce_prod, LOWER_REDUCE_PROD)
REDUCE_OP(reduce_l1, LOWER_REDUCE_L1)
REDUCE_OP(reduce_l2, LOWER_REDUCE_L2)
REDUCE_OP(reduce_log_sum, LOWER_REDUCE_LOG_SUM)
REDUCE_OP(reduce_log_sum_exp, LOWER_REDUCE_LOG_SUM_EXP)
REDUCE_OP(reduce_sum_square, LOWER_REDUCE_SUM_SQUARE)
#undef REDUCE_OP

/* ---- ArgMax, ArgMin ----------------------------------------------------------- */

typedef struct Arg {
  GiltValue *in;
  size_t axis;
  bool max, last;
  GiltType *acc;
} Arg;

/* Whether x replaces best: beyond it (or level with it, for the last
** index); a NaN is beyond any number, the first NaN (or the last) wins. */
static GiltValue *arg_better(Lower *l, Arg *a, GiltValue *x, GiltValue *best)
{
  GiltType *t = gilt_value_get_type(x);
  if (!lower_is_float(t)) {
    const char *pred;
    bool u = lower_is_unsigned(t);
    if (a->max)
      pred = a->last ? (u ? "uge" : "sge") : (u ? "ugt" : "sgt");
    else
      pred = a->last ? (u ? "ule" : "sle") : (u ? "ult" : "slt");
    return lower_cmp(l, pred, x, best);
  }
  const char *pred = a->max ? (a->last ? "oge" : "ogt")
                            : (a->last ? "ole" : "olt");
  GiltValue *beyond = lower_cmp(l, pred, x, best);
  GiltValue *nan = lower_cmp(l, "uno", x, x);
  if (!a->last) /* a NaN wins only over a number */
    nan = lower_binary(l, LOOP_OP_ANDI, nan, lower_cmp(l, "ord", best, best));
  return lower_binary(l, LOOP_OP_ORI, beyond, nan);
}

static void arg_step(Lower *l, GiltValue *const *idx, GiltValue *const *acc,
                     GiltValue **next, void *user)
{
  Arg *a = user;
  GiltValue *x = lower_convert(l, lower_load(l, a->in, idx), a->acc);
  GiltValue *better = arg_better(l, a, x, acc[0]);
  next[0] = lower_select(l, better, x, acc[0]);
  next[1] = lower_select(l, better, idx[a->axis], acc[1]);
}

GiltValue *lower_arg_index(Lower *l, GiltValue *in, GiltValue *const *dims,
                           size_t axis, bool max, bool last,
                           GiltValue *const *at)
{
  size_t rank = gilt_value_get_type(in)->shaped.rank;
  bool reduced[rank + 1];
  for (size_t d = 0; d < rank; d++)
    reduced[d] = d == axis;
  Arg a = {in, axis, max, last,
           lower_acc_type(l, gilt_value_get_type(in)->shaped.elem)};
  GiltValue *inits[2];
  inits[0] = max ? lower_lowest(l, a.acc) : lower_highest(l, a.acc);
  inits[1] = lower_index(l, 0);
  GiltValue *results[2];
  lower_reduce_loops(l, rank, dims, reduced, at, 2, inits, results, arg_step,
                     &a);
  return results[1];
}

typedef struct ArgOp {
  GiltValue *in, *out;
  GiltValue **dims;
  size_t rank, axis;
  bool max, last, keepdims;
  const bool *reduced;
} ArgOp;

static void arg_body(Lower *l, GiltValue *const *ivs, void *user)
{
  ArgOp *a = user;
  GiltValue *best =
      lower_arg_index(l, a->in, a->dims, a->axis, a->max, a->last, ivs);
  GiltValue *idx[a->rank + 1];
  out_index(a->rank, a->reduced, a->keepdims, ivs, idx);
  lower_store(l, lower_index_to(l, best, lower_result_elem(l, 0)), a->out,
              idx);
}

static GiltStatus lower_arg(Lower *l, bool max)
{
  GiltValue *in = lower_operand(l, 0);
  size_t rank = gilt_value_get_type(in)->shaped.rank;
  int64_t axis;
  if (!graph_normalize_axis(graph_attr_int(l->op, "axis", 0), rank, &axis))
    return lower_error(l, "attribute 'axis' is out of range");
  bool reduced[GRAPH_MAX_RANK] = {0};
  reduced[axis] = true;
  bool keepdims = graph_attr_int(l->op, "keepdims", 1) != 0;
  GiltValue *dims[GRAPH_MAX_RANK], *out_dims[GRAPH_MAX_RANK];
  lower_dims(l, in, dims);
  lower_reduced_dims(l, in, reduced, keepdims, out_dims);
  ArgOp a = {in, lower_alloc_result(l, 0, out_dims), dims, rank,
             (size_t)axis, max,
             graph_attr_int(l->op, "select_last_index", 0) != 0, keepdims,
             reduced};
  lower_parallel_kept(l, rank, dims, reduced, arg_body, &a);
  return lower_replace(l, &a.out);
}

static GiltStatus lower_arg_max(Lower *l)
{
  return lower_arg(l, true);
}

static GiltStatus lower_arg_min(Lower *l)
{
  return lower_arg(l, false);
}

/* ---- CumSum --------------------------------------------------------------------- */

typedef struct CumSum {
  GiltValue *in, *out;
  GiltValue **dims; /* the loops' sizes (run-time axis: 1 but along it) */
  size_t rank, axis;
  bool exclusive, reverse;
  const bool *reduced;
  GiltType *acc;
  /* A run-time axis: every dimension is looped over (with size 1 but
  ** along the axis), from base, the parallel's index (0 along it). */
  bool runtime;
  GiltValue *const *base;
} CumSum;

/* The element the loops visit at idx: along the axis from the end under
** reverse (n - 1 - k, which is 0 where n is 1). */
static void cum_index(Lower *l, CumSum *c, GiltValue *const *idx,
                      GiltValue **at)
{
  for (size_t d = 0; d < c->rank; d++) {
    GiltValue *i = idx[d];
    if (c->reverse && (c->runtime || d == c->axis)) {
      GiltValue *last =
          lower_binary(l, LOOP_OP_SUBI, c->dims[d], lower_index(l, 1));
      i = lower_binary(l, LOOP_OP_SUBI, last, i);
    }
    at[d] = c->runtime ? lower_binary(l, LOOP_OP_ADDI, c->base[d], i) : i;
  }
}

static void cum_step(Lower *l, GiltValue *const *idx, GiltValue *const *acc,
                     GiltValue **next, void *user)
{
  CumSum *c = user;
  GiltValue *at[c->rank + 1];
  cum_index(l, c, idx, at);
  GiltValue *x = lower_convert(l, lower_load(l, c->in, at), c->acc);
  next[0] = add2(l, acc[0], x);
  GiltType *elem = gilt_value_get_type(c->out)->shaped.elem;
  lower_store(l, lower_convert(l, c->exclusive ? acc[0] : next[0], elem),
              c->out, at);
}

static void cum_body(Lower *l, GiltValue *const *ivs, void *user)
{
  CumSum *c = user;
  GiltValue *init = lower_constant(l, c->acc, 0), *sum;
  c->base = ivs;
  lower_reduce_loops(l, c->rank, c->dims, c->reduced, ivs, 1, &init, &sum,
                     cum_step, c);
}

/* CumSum along an axis only the run knows: flags as for Reduce* with
** run-time axes (reduce_runtime_axes), from the one axis. */
static void cum_sum_runtime_axis(Lower *l, CumSum *c, GiltValue *axis)
{
  size_t rank = c->rank;
  GiltValue *at[1] = {lower_index(l, 0)};
  GiltValue *a = lower_load(l, axis, at); /* 0-D, or 1-D of one entry */
  a = runtime_axis(l, a, rank, "operand 'axis' is out of range");
  GiltType *t = gilt_value_get_type(a);
  GiltValue *one = lower_index(l, 1), *outer[rank + 1];
  for (size_t d = 0; d < rank; d++) {
    GiltValue *along =
        lower_cmp(l, "eq", a, lower_int_constant(l, t, (int64_t)d));
    outer[d] = lower_select(l, along, one, c->dims[d]);
    c->dims[d] = lower_select(l, along, c->dims[d], one);
  }
  bool all[rank + 1];
  for (size_t d = 0; d < rank; d++)
    all[d] = true;
  c->reduced = all;
  c->runtime = true;
  lower_parallel(l, rank, outer, cum_body, c);
}

static GiltStatus lower_cum_sum(Lower *l)
{
  GiltValue *in = lower_operand(l, 0);
  size_t rank = gilt_value_get_type(in)->shaped.rank, n;
  int64_t axis = 0;
  if (rank == 0)
    return lower_error(l, "operand 'x' must have rank >= 1");
  bool runtime = false;
  if (!lower_constant_ints(l, 1, &axis, 1, &n) || n != 1) {
    GiltType *t = gilt_value_get_type(lower_operand(l, 1));
    if (t->shaped.rank > 1 ||
        (t->shaped.rank == 1 && t->shaped.shape[0] != 1))
      return lower_error(l, "operand 'axis' must have one element");
    runtime = rank > 1; /* else 0, the only axis */
    axis = 0;
  }
  if (!graph_normalize_axis(axis, rank, &axis))
    return lower_error(l, "axis %lld is out of range for rank %zu",
                       (long long)axis, rank);
  bool reduced[GRAPH_MAX_RANK] = {0};
  reduced[axis] = true;
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, in, dims);
  CumSum c = {in, lower_alloc_result(l, 0, dims), dims, rank, (size_t)axis,
              graph_attr_int(l->op, "exclusive", 0) != 0,
              graph_attr_int(l->op, "reverse", 0) != 0, reduced,
              lower_acc_type(l, gilt_value_get_type(in)->shaped.elem), false,
              NULL};
  if (runtime)
    cum_sum_runtime_axis(l, &c, lower_operand(l, 1));
  else
    lower_parallel_kept(l, rank, dims, reduced, cum_body, &c);
  return lower_replace(l, &c.out);
}

const GraphLoweringRow graph_lower_reduce[] = {
    {GRAPH_OP_REDUCE_SUM, {lower_reduce_sum}},
    {GRAPH_OP_REDUCE_MEAN, {lower_reduce_mean}},
    {GRAPH_OP_REDUCE_MAX, {lower_reduce_max}},
    {GRAPH_OP_REDUCE_MIN, {lower_reduce_min}},
    {GRAPH_OP_REDUCE_PROD, {lower_reduce_prod}},
    {GRAPH_OP_REDUCE_L1, {lower_reduce_l1}},
    {GRAPH_OP_REDUCE_L2, {lower_reduce_l2}},
    {GRAPH_OP_REDUCE_LOG_SUM, {lower_reduce_log_sum}},
    {GRAPH_OP_REDUCE_LOG_SUM_EXP, {lower_reduce_log_sum_exp}},
    {GRAPH_OP_REDUCE_SUM_SQUARE, {lower_reduce_sum_square}},
    {GRAPH_OP_ARG_MAX, {lower_arg_max}},
    {GRAPH_OP_ARG_MIN, {lower_arg_min}},
    {GRAPH_OP_CUM_SUM, {lower_cum_sum}},
    {0, {NULL}},
};
