/*
** pooling_global.c - lowering of GlobalAveragePool, GlobalMaxPool and
** GlobalLpPool: reductions over every spatial dimension (2 and on) of an
** N x C x ... input, the result keeping them as 1s. They are lower_reduce
** (reduce.c) with the mean, the maximum (NaN propagates) and
** (sum |x|^p)^(1/p), p from the attribute (default 2).
**
** An f32 GlobalAveragePool or GlobalMaxPool of static spatial sizes
** (SqueezeNet's 1000x13x13 at its end) goes instead by rows (rows.c):
** each channel's plane seen as one row of H * W, summed (or maxed) 16
** lanes at a time and the lanes combined after the loop, in parallel over
** (n, c). The scalar nest carries a float accumulator that LLVM does not
** vectorize. The order of the additions differs from the nest's; the
** maximum propagates NaN as the nest does.
**
** In a layout that blocks channels (`layout` "NCHW16c", from
** graph-layout-nchwc) the reduction leaves the block's last dimension
** alone: [N, C/16, H, W, 16] to [N, C/16, 1, 1, 16]. An f32 mean or
** maximum of 16-channel blocks (or 8: NCHW8c) goes by blocks: each
** pixel's block is one vector, added (or maxed) into one accumulator of
** its lanes, in parallel over (n, block): the additions of each channel
** come in the nest's order, so the result is the nest's, a block at a
** time. EfficientNet
** computes one such pool per squeeze-and-excitation gate.
*/
#include "gilt/remarks.h"
#include "transforms/graph_to_loop/lowering.h"

/* ---- by rows ---------------------------------------------------------------- */

typedef struct Plane {
  LowerReduceKind kind;
  GiltValue *x, *y, *len; /* x viewed as [N, C, H * W], y as [N, C, 1] */
} Plane;

static void plane_step(Lower *l, LowerRow *r, GiltValue *const *acc,
                       GiltValue **next, void *user)
{
  Plane *p = user;
  bool max = p->kind == LOWER_REDUCE_MAX;
  /* Lanes past the row read what leaves the accumulator as it is. */
  GiltValue *x = lower_row_load(l, r, p->x, NULL, max ? acc[0] : NULL);
  next[0] = lower_binary(l, max ? LOOP_OP_MAXIMUMF : LOOP_OP_ADDF, acc[0], x);
}

static void plane_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Plane *p = user;
  bool max = p->kind == LOWER_REDUCE_MAX;
  LowerRow r;
  GiltValue *at[3] = {ivs[0], ivs[1], lower_index(l, 0)};
  lower_row_init(l, &r, 3, at, p->len);
  GiltValue *init =
      lower_lanes_splat(l, &r.v, max ? lower_lowest(l, r.v.elem)
                                     : lower_constant(l, r.v.elem, 0));
  GiltValue *lanes;
  lower_row_loop(l, &r, 1, &init, &lanes, plane_step, p);
  GiltValue *v = lower_row_combine(l, max ? "maximumf" : "add", lanes);
  if (!max)
    v = lower_binary(l, LOOP_OP_DIVF, v, lower_index_to(l, p->len, r.v.elem));
  lower_store(l, v, p->y, at);
}

/* Whether the pool goes by rows: f32, a mean or a maximum, 4-D, spatial
** sizes static (the view of a plane as a row needs them). */
static bool by_rows(Lower *l, LowerReduceKind kind, GiltValue *in)
{
  GiltType *t = gilt_value_get_type(in);
  bool reduced[4] = {false, false, false, true};
  return (kind == LOWER_REDUCE_MEAN || kind == LOWER_REDUCE_MAX) &&
         t->shaped.rank == 4 && t->shaped.shape[2] != GILT_DYNAMIC &&
         t->shaped.shape[3] != GILT_DYNAMIC &&
         lower_row_apply(l, 4, reduced, t->shaped.elem);
}

static void pool_by_rows(Lower *l, LowerReduceKind kind, GiltValue *in,
                         GiltValue *const *dims, GiltValue *out)
{
  GiltType *t = gilt_value_get_type(in);
  int64_t hw = t->shaped.shape[2] * t->shaped.shape[3];
  Plane p = {kind, NULL, NULL, lower_index(l, hw)};
  int64_t xs[3] = {t->shaped.shape[0], t->shaped.shape[1], hw};
  GiltValue *xd[3] = {dims[0], dims[1], p.len};
  p.x = lower_reshaped(l, in, 3, xs, xd);
  int64_t ys[3] = {t->shaped.shape[0], t->shaped.shape[1], 1};
  GiltValue *yd[3] = {dims[0], dims[1], lower_index(l, 1)};
  p.y = lower_reshaped(l, out, 3, ys, yd);
  lower_parallel(l, 2, dims, plane_body, &p);
}

/* ---- by blocks -------------------------------------------------------------- */

typedef struct Blocks {
  LowerReduceKind kind;
  LowerLanes v;
  GiltValue *x, *y;      /* viewed as [N, C/16, H * W, 16], [N, C/16, 1, 16] */
  GiltValue *len;        /* H * W */
  GiltValue *const *ivs; /* (n, c / 16) of the block being reduced */
} Blocks;

static void block_step(Lower *l, GiltValue *iv, GiltValue *const *acc,
                       GiltValue **next, void *user)
{
  Blocks *b = user;
  GiltValue *at[4] = {b->ivs[0], b->ivs[1], iv, lower_index(l, 0)};
  GiltValue *x = lower_lanes_load(l, &b->v, NULL, b->x, at);
  next[0] = lower_binary(
      l, b->kind == LOWER_REDUCE_MAX ? LOOP_OP_MAXIMUMF : LOOP_OP_ADDF, acc[0],
      x);
}

static void block_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Blocks *b = user;
  bool max = b->kind == LOWER_REDUCE_MAX;
  b->ivs = ivs;
  GiltValue *init =
      max ? lower_lanes_splat(l, &b->v, lower_lowest(l, b->v.elem)) : b->v.zero;
  GiltValue *v;
  lower_for_upto(l, b->len, 1, &init, &v, block_step, b);
  if (!max)
    v = lower_binary(
        l, LOOP_OP_DIVF, v,
        lower_lanes_splat(l, &b->v, lower_index_to(l, b->len, b->v.elem)));
  GiltValue *zero = lower_index(l, 0);
  GiltValue *at[4] = {ivs[0], ivs[1], zero, zero};
  lower_lanes_store(l, &b->v, NULL, v, b->y, at);
}

/* Whether the pool goes by blocks: f32 in blocks of 16 or 8 channels (a
** vector's lanes), a mean or a maximum, spatial sizes static. */
static bool by_blocks(Lower *l, LowerReduceKind kind, GiltValue *in)
{
  GiltType *t = gilt_value_get_type(in);
  int64_t block = graph_attr_channel_block(l->op, "layout");
  return (kind == LOWER_REDUCE_MEAN || kind == LOWER_REDUCE_MAX) &&
         lower_block_vectorizes(l, t->shaped.elem, block) &&
         t->shaped.rank == 5 && t->shaped.shape[4] == block &&
         t->shaped.shape[2] != GILT_DYNAMIC &&
         t->shaped.shape[3] != GILT_DYNAMIC;
}

static void pool_by_blocks(Lower *l, LowerReduceKind kind, GiltValue *in,
                           GiltValue *const *dims, GiltValue *out)
{
  GiltType *t = gilt_value_get_type(in);
  int64_t hw = t->shaped.shape[2] * t->shaped.shape[3];
  Blocks b = {.kind = kind, .len = lower_index(l, hw)};
  lower_lanes_init_width(l, &b.v, t->shaped.elem, t->shaped.shape[4]);
  b.x = lower_block_pixels(l, in, dims, hw);
  b.y = lower_block_pixels(l, out, dims, 1);
  lower_parallel(l, 2, dims, block_body, &b);
}

/* ---- the ops ------------------------------------------------------------------ */

static GiltStatus lower_global_pool(Lower *l, LowerReduceKind kind, double p)
{
  GiltValue *in = lower_operand(l, 0);
  size_t rank = gilt_value_get_type(in)->shaped.rank;
  if (rank < 2)
    return lower_error(l, "operand 'X' must have rank >= 2 (N x C x ...)");
  /* NCHW<b>c ([N, C/b, H, W, b]): the block's dimension is not reduced. */
  bool blocked = graph_attr_channel_block(l->op, "layout") > 1;
  bool reduced[GRAPH_MAX_RANK] = {0};
  for (size_t d = 2; d < rank - blocked; d++)
    reduced[d] = true;
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_reduced_dims(l, in, reduced, true, dims);
  GiltValue *out = lower_alloc_result(l, 0, dims);
  if (by_blocks(l, kind, in)) {
    gilt_remark(l->op, "vectorize", "vectorized", 0, NULL,
                "vectorized: the %d channels of a block in f32 lanes, one "
                "accumulator per block",
                (int)gilt_value_get_type(in)->shaped.shape[4]);
    pool_by_blocks(l, kind, in, dims, out);
  } else if (by_rows(l, kind, in))
    pool_by_rows(l, kind, in, dims, out);
  else
    lower_reduce(l, kind, p, in, reduced, true, out);
  return lower_replace(l, &out);
}

static GiltStatus lower_global_average_pool(Lower *l)
{
  return lower_global_pool(l, LOWER_REDUCE_MEAN, 0);
}

static GiltStatus lower_global_max_pool(Lower *l)
{
  return lower_global_pool(l, LOWER_REDUCE_MAX, 0);
}

static GiltStatus lower_global_lp_pool(Lower *l)
{
  int64_t p = graph_attr_int(l->op, "p", 2);
  if (p <= 0)
    return lower_error(l, "attribute 'p' (%lld) must be positive",
                       (long long)p);
  return lower_global_pool(l, LOWER_REDUCE_LP, (double)p);
}

const GraphLoweringRow graph_lower_global_pool[] = {
    {GRAPH_OP_GLOBAL_AVERAGE_POOL, {lower_global_average_pool}},
    {GRAPH_OP_GLOBAL_MAX_POOL, {lower_global_max_pool}},
    {GRAPH_OP_GLOBAL_LP_POOL, {lower_global_lp_pool}},
    {0, {NULL}},
};
