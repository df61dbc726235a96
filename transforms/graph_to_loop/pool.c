/*
** pool.c - lowering of MaxPool (with its Indices output in either
** storage_order), AveragePool (count_include_pad) and LpPool over any
** number of spatial axes, with the window of window.c (auto_pad,
** ceil_mode, dilations).
**
** One scalar nest: parallel over the outputs, one loop.for per kernel
** axis carrying the accumulator and an i64 beside it (the running count
** of AveragePool, the argmax of MaxPool). A window position outside the
** input is read at a clamped index and then ignored, so no access is out
** of bounds and no loop.if is needed; it counts towards AveragePool's
** divisor with count_include_pad when it lies in the padding proper, not
** in ceil_mode's overhang. Each kernel axis's position and bounds test is
** computed at its own loop level: the innermost costs about 12 ops per
** window element. Not here: GlobalMaxPool and GlobalAveragePool
** (reductions), and the 2-D f32 MaxPool without Indices, which goes
** through the vectorized nest of depthwise convolutions
** (conv_depthwise.c): the same windows, borders and strides.
**
** MaxPool and AveragePool in a layout that blocks channels (`layout`
** "NCHW16c" from graph-layout-nchwc: X [N, C/16, H, W, 16]) go through
** conv_nchwc.c's blocked nest in f32, and through this one otherwise,
** the block's dimension one more parallel loop.
*/
#include "gilt/remarks.h"
#include "transforms/graph_to_loop/indexing.h"
#include "transforms/graph_to_loop/tiles.h"

#include <math.h>

typedef enum PoolKind { POOL_MAX, POOL_AVERAGE, POOL_LP } PoolKind;

typedef struct Pool {
  PoolKind kind;
  LowerWindow w;
  GiltValue *x, *y, *indices;  /* indices: MaxPool's second result */
  bool include_pad, col_major;
  bool blocked;                /* X [N, C/b, H, W, b] */
  int64_t p;                   /* LpPool's exponent */
  size_t depth;
  GiltValue *base[GRAPH_MAX_RANK];  /* o_i * s_i - begin_i */
  GiltValue *xi[GRAPH_MAX_RANK];    /* clamped input indices */
  GiltValue *pos[GRAPH_MAX_RANK];   /* unclamped positions */
  GiltValue *valid[GRAPH_MAX_RANK + 1], *counted[GRAPH_MAX_RANK + 1];
} Pool;

static GiltValue *to_i64(Lower *l, GiltValue *index)
{
  return lower_emit(l, LOOP_OP_INDEX_CAST, lower_i64_type(l), 1, &index);
}

/* The flat index of the clamped position within one channel's plane, in
** row-major or (storage_order 1) column-major order. */
static GiltValue *plane_index(Lower *l, Pool *p)
{
  size_t n = p->w.n;
  GiltValue *flat = lower_index(l, 0);
  for (size_t j = 0; j < n; j++) {
    size_t i = p->col_major ? n - 1 - j : j;
    flat = ix_add(l, ix_mul(l, flat, p->w.in[i]), p->xi[2 + i]);
  }
  return to_i64(l, flat);
}

/* The largest of the window's elements; a NaN is never taken. */
static void max_step(Lower *l, Pool *p, GiltValue *x, GiltValue *const *acc,
                     GiltValue **next)
{
  const char *gt = lower_is_float(gilt_value_get_type(x)) ? "ogt"
                   : lower_is_unsigned(gilt_value_get_type(x)) ? "ugt"
                                                                 : "sgt";
  GiltValue *take = lower_binary(l, LOOP_OP_ANDI, p->valid[p->w.n],
                                 lower_cmp(l, gt, x, acc[0]));
  next[0] = lower_select(l, take, x, acc[0]);
  next[1] = p->indices ? lower_select(l, take, plane_index(l, p), acc[1])
                       : acc[1];
}

static void sum_step(Lower *l, Pool *p, GiltValue *x, GiltValue *const *acc,
                     GiltValue **next)
{
  size_t n = p->w.n;
  if (p->kind == POOL_LP && p->p == 2) {
    x = lower_binary(l, LOOP_OP_MULF, x, x);
  } else if (p->kind == POOL_LP) {
    x = lower_unary(l, LOOP_OP_ABSF, x);
    if (p->p != 1)
      x = lower_binary(l, LOOP_OP_POWF, x,
                       lower_constant_like(l, x, (double)p->p));
  }
  GiltValue *zero = lower_constant(l, gilt_value_get_type(x), 0);
  next[0] = lower_binary(l, LOOP_OP_ADDF, acc[0],
                         lower_select(l, p->valid[n], x, zero));
  GiltValue *one = p->include_pad ? p->counted[n] : p->valid[n];
  next[1] = ix_add(l, acc[1], lower_convert(l, one, lower_i64_type(l)));
}

static void pool_level(Lower *l, GiltValue *iv, GiltValue *const *acc,
                       GiltValue **next, void *user);

static void pool_loop(Lower *l, Pool *p, GiltValue *const *acc,
                      GiltValue **out)
{
  if (p->depth < p->w.n) {
    GiltValue *kernel = lower_index(l, p->w.kernel[p->depth]);
    lower_for_upto(l, kernel, 2, acc, out, pool_level, p);
    return;
  }
  GiltValue *x = lower_load(l, p->x, p->xi);
  if (p->kind == POOL_MAX)
    max_step(l, p, x, acc, out);
  else
    sum_step(l, p, x, acc, out);
}

static void pool_level(Lower *l, GiltValue *iv, GiltValue *const *acc,
                       GiltValue **next, void *user)
{
  Pool *p = user;
  size_t i = p->depth;
  GiltValue *kd = p->w.dilations[i] == 1
                      ? iv
                      : ix_mul(l, iv, lower_index(l, p->w.dilations[i]));
  GiltValue *pos = ix_add(l, p->base[i], kd);
  GiltValue *in = p->w.in[i];
  GiltValue *inside = ix_in_range(l, pos, lower_index(l, 0), in);
  p->valid[i + 1] = lower_binary(l, LOOP_OP_ANDI, p->valid[i], inside);
  if (p->include_pad)
    p->counted[i + 1] =
        lower_binary(l, LOOP_OP_ANDI, p->counted[i],
                     lower_cmp(l, "slt", pos, ix_add(l, in, p->w.end[i])));
  GiltValue *first = ix_max(l, pos, lower_index(l, 0));
  GiltValue *last = ix_sub(l, in, lower_index(l, 1));
  p->xi[2 + i] = ix_min(l, first, last);
  p->depth++;
  pool_loop(l, p, acc, next);
  p->depth--;
}

/* The value of a window from its accumulators. */
static GiltValue *pool_result(Lower *l, Pool *p, GiltValue *const *acc)
{
  GiltType *t = gilt_value_get_type(acc[0]);
  if (p->kind == POOL_AVERAGE)
    return lower_binary(l, LOOP_OP_DIVF, acc[0], lower_convert(l, acc[1], t));
  if (p->kind == POOL_LP && p->p == 2)
    return lower_unary(l, LOOP_OP_SQRT, acc[0]);
  if (p->kind == POOL_LP && p->p != 1)
    return lower_binary(l, LOOP_OP_POWF, acc[0],
                        lower_constant(l, t, 1.0 / p->p));
  return acc[0];
}

static void pool_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Pool *p = user;
  size_t n = p->w.n;
  GiltType *elem = gilt_value_get_type(p->y)->shaped.elem;
  p->xi[0] = ivs[0], p->xi[1] = ivs[1];
  if (p->blocked) /* the channel in its block */
    p->xi[2 + n] = ivs[2 + n];
  for (size_t i = 0; i < n; i++)
    p->base[i] =
        ix_sub(l, ix_mul(l, ivs[2 + i], lower_index(l, p->w.strides[i])),
               p->w.begin[i]);
  p->valid[0] = p->counted[0] = lower_int_constant(l, lower_i1_type(l), 1);
  double lowest = -INFINITY;
  if (!lower_is_float(elem))
    lowest = lower_is_unsigned(elem)
                 ? 0
                 : -ldexp(1, (int)gilt_type_get_bit_width(elem) - 1);
  GiltValue *acc[2];
  acc[0] = lower_constant(l, elem, p->kind == POOL_MAX ? lowest : 0);
  acc[1] = lower_int_constant(l, lower_i64_type(l), 0);
  GiltValue *out[2];
  p->depth = 0;
  pool_loop(l, p, acc, out);
  lower_store(l, pool_result(l, p, out), p->y, ivs);
  if (!p->indices)
    return;
  /* The channel's offset: (n * C + c) * the plane's size. */
  GiltValue *plane = lower_index(l, 1);
  for (size_t i = 0; i < n; i++)
    plane = ix_mul(l, plane, p->w.in[i]);
  GiltValue *ch = ix_add(l, ix_mul(l, ivs[0], lower_dim(l, p->x, 1)), ivs[1]);
  GiltValue *off = to_i64(l, ix_mul(l, ch, plane));
  lower_store(l, ix_add(l, out[1], off), p->indices, ivs);
}

static GiltStatus lower_pool(Lower *l, PoolKind kind)
{
  Pool p = {.kind = kind, .x = lower_operand(l, 0)};
  size_t rank = gilt_value_get_type(p.x)->shaped.rank;
  /* NCHW<b>c (inference allows it on MaxPool and AveragePool of rank 5):
  ** the window runs over H and W, not the block. */
  bool blocked = p.blocked = graph_attr_channel_block(l->op, "layout") > 1;
  if (rank < 3)
    return lower_error(l, "the input needs a spatial dimension");
  if (kind != POOL_MAX && !lower_is_float(lower_result_elem(l, 0)))
    return lower_error(l, "an integer average is not supported");
  p.include_pad = graph_attr_int(l->op, "count_include_pad", 0) != 0;
  p.col_major = graph_attr_int(l->op, "storage_order", 0) != 0;
  p.p = graph_attr_int(l->op, "p", 2);
  lower_window_read(l, p.x, rank - 2 - blocked, NULL, &p.w);
  if (blocked && lower_pool_nchwc_apply(l, &p.w, p.x)) {
    gilt_remark(l->op, "vectorize", "vectorized", 0, NULL,
                "vectorized: the %d channels of a block in f32 lanes by the "
                "blocked depthwise kernel's nest (conv_nchwc.c)",
                (int)gilt_value_get_type(p.x)->shaped.shape[rank - 1]);
    GiltValue *y = lower_pool_nchwc(
        l, &p.w, p.x,
        kind == POOL_MAX  ? LOWER_BLOCKED_MAX
        : p.include_pad ? LOWER_BLOCKED_AVERAGE_WITH_PAD
                        : LOWER_BLOCKED_AVERAGE);
    return lower_replace(l, &y);
  }
  if (!blocked && kind == POOL_MAX &&
      lower_max_pool_vector_apply(l, &p.w, p.x)) {
    gilt_remark(l->op, "vectorize", "vectorized", 0, NULL,
                "vectorized: %d f32 lanes of output columns by the depthwise "
                "kernel's nest (conv_depthwise.c), parallel over channels",
                LOWER_F32_LANES);
    GiltValue *y = lower_max_pool_vector(l, &p.w, p.x);
    return lower_replace(l, &y);
  }
  GiltValue *dims[GRAPH_MAX_RANK];
  dims[0] = lower_dim(l, p.x, 0), dims[1] = lower_dim(l, p.x, 1);
  for (size_t i = 0; i < p.w.n; i++)
    dims[2 + i] = p.w.out[i];
  if (blocked)
    dims[4] = lower_dim(l, p.x, 4);
  p.y = lower_alloc_result(l, 0, dims);
  GiltValue *results[2] = {p.y, NULL};
  if (gilt_op_get_num_results(l->op) > 1)
    results[1] = p.indices = lower_alloc_result(l, 1, dims);
  lower_parallel(l, rank, dims, pool_body, &p);
  return lower_replace(l, results);
}

static GiltStatus lower_max_pool(Lower *l)
{
  return lower_pool(l, POOL_MAX);
}

static GiltStatus lower_average_pool(Lower *l)
{
  return lower_pool(l, POOL_AVERAGE);
}

static GiltStatus lower_lp_pool(Lower *l)
{
  return lower_pool(l, POOL_LP);
}

const GraphLoweringRow graph_lower_pool[] = {
    {GRAPH_OP_MAX_POOL, {lower_max_pool}},
    {GRAPH_OP_AVERAGE_POOL, {lower_average_pool}},
    {GRAPH_OP_LP_POOL, {lower_lp_pool}},
    {0, {NULL}},
};
