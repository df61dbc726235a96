/*
** conv_nchwc.c - graph.conv_nchwc, the Conv of graph-layout-nchwc: Y in
** NCHW16c, X in NCHW16c or NCHW; one group through the tiles (tiles.c),
** depthwise by a kernel of its own. Everything below holds for NCHW8c
** too (AVX2's blocks): the lanes are then Y's block of 8, X may be
** blocked by the other size, and a tile has twice the vectors.
**
**   C[p, oc] = sum over (c, kh, kw) of X(c, pixel p under tap (kh, kw)) * W[oc, c, kh, kw]
**
** Rows are the OH * OW outputs of an image, columns its output channels.
** In NCHW16c the 16 channels of a vector of C are 16 consecutive floats
** of Y, so every tile stores whole vectors where they belong, and the
** bias, the activation and the residual Z (NCHW16c too) are applied in
** that store: no copy into Y afterwards, unlike the NCHW kernels, whose
** channels-last product is copied into Y element by element
** (conv_tiled.c). Each element of A is one input float broadcast; in a
** blocked X, channel c of a pixel is at [c / b, ..., c % b], the b
** channels of a pixel one cache line at b = 16. A tile's rows divide OW
** where one of lower_tile_rows's does (8, 7 or 6 with AVX-512), so that
** they read one address plus constant offsets.
**
** The weights are B = W^T [C * KH * KW, OC], packed by a tile's columns
** (32 with AVX-512, 16 with AVX2: lower_tile_vectors) at compile time
** (pack.c), as conv_tiled.c's transposed product packs
** them. A padded window of the product reads a zero-padded copy of X in
** X's layout, O(input) against the product's O(OC * C * KH * KW * OH *
** OW), written a pixel's 16 channels at a time in NCHW16c.
**
** Depthwise (X in NCHW16c), each output pixel is one vector of its 16
** channels: per tap, a vector of X times the tap's vector of weights
** (packed at compile time as [C/16, taps, 16], loaded once for a few
** pixels of a row computed side by side), parallel over the rows of each
** block of channels. No lane
** idles whatever the image's width, where the NCHW kernel
** (conv_depthwise.c), vectorized along a row, leaves half of them idle
** on 7-wide images. X is read where it lies, not padded: the outputs
** whose windows stay inside X (most of a row, in most rows) load their
** taps unguarded; the others check each tap, load it from the position
** clamped into X and take the padding's value outside. A padded copy
** of X had cost as much as the layer: MobileNetV2's 144 channels at
** 56x56 of stride 2 took 0.121 ms with it, 0.051 without. On small
** images most outputs are near an edge (40 of 49 at 7x7 under a 5x5
** window), each checked tap costing several times an unguarded one,
** a pixel at a time: where they would check enough taps
** (PAD_BLOCK_RATIO), each block of channels is copied padded into a
** buffer of its own (11 x 11 x 16 floats at 7x7, 5x5; at most
** PAD_BLOCK_MAX_BYTES) just before its rows read it from the cache, all
** of them unguarded. EfficientNet-B0's 1152 channels at 7x7, 5x5, with
** their SiLU took 0.139 ms guarded, 0.095 padded.
**
** A 2-D MaxPool or AveragePool in NCHW16c (graph-layout-nchwc gives them
** `layout`) has the depthwise layer's windows without its weights, so it
** goes through the same nest: the taps' maximum (x > acc, so that a NaN
** is never taken, as in pool.c's nest; the padding is -inf), or
** their sum divided by the count of taps inside the input (or inside its
** padding, count_include_pad), which each output row and column give as
** a product.
*/
#include "transforms/graph_to_loop/tiles.h"

#include "gilt/remarks.h"
#include "transforms/graph_to_loop/indexing.h"

#include <inttypes.h>
#include <math.h>

typedef struct BlockedConv {
  LowerWindow *w;
  LowerEpilogue epilogue;
  LowerLanes v;    /* Y's block of channels: the tiles' columns */
  LowerLanes in_v; /* a blocked X's block (the same for depthwise) */
  GiltValue *given; /* X */
  GiltValue *x;     /* what the product reads: X, or its padded copy */
  /* X's channel block: 1 for NCHW, whose index has no block dimension. */
  int64_t in_block;
  GiltValue *panels, *y, *bias, *oc;
  GiltValue *n; /* the batch index of the nest */
  /* The reduction: W's input channels (a constant where static, which
  ** lets the tiles block a large panel of B) and taps. With X blocked
  ** and the channels whole blocks of it, the channels are two loops, X's
  ** blocks and the channels in one (`split`): see taps_at. */
  GiltValue *channels, *kernel_h, *kernel_w;
  bool split;
  size_t rows, vectors; /* a tile's (lower_output_rows, lower_tile_vectors) */
  bool row_aligned; /* a tile's rows lie in one output row */
  /* A 1x1 layer of stride 1 reading X as NCHW whose tiles' rows do not lie
  ** in one output row (pack_rows_of_x): X[n] packed as the product's
  ** rows, [ceil(H * W / rows), C, rows], in batch_body. */
  bool pack_a;
  GiltValue *a_panels;
  /* Depthwise: the row of outputs being emitted, its channel block, and
  ** the block's bias (or zeros), loaded once for the row. */
  GiltValue *cb, *oh, *row_bias;
  /* The pixels depthwise_pixels computes side by side: t->row_pixels
  ** where the row's taps are unguarded, else 1. */
  size_t pixels, row_pixels;
  /* Outputs [row_lo, row_hi) x [col_lo, col_hi) have every tap inside X;
  ** the others are `guarded`: each tap checks, and reads `pad` (t->fill,
  ** or 0, in every lane; made once a row) outside, as a padded copy
  ** would hold. */
  GiltValue *row_lo, *row_hi, *col_lo, *col_hi, *pad;
  bool guarded;
  /* Depthwise: whether each block of channels is padded (pad_blocks),
  ** and while one is built, its padded copy, [E0, E1, 16], which the taps
  ** read unguarded; NULL where they read X. */
  bool padded_blocks;
  GiltValue *block_pad;
  /* A pool: what its windows compute; the padding's value (-inf for the
  ** maximum, else NULL: zeros); an average's taps counted in the row. */
  LowerBlockedPool pool;
  GiltValue *fill;
  GiltValue *row_count;
} BlockedConv;

/* ---- the padded input ------------------------------------------------------ */

/* X's index, [n, channel block or channel, row, column, 0], of padded
** pixel (row, column) clamped into X, and whether the pixel lies inside
** X (the clamp keeps a load in bounds either way). */
static GiltValue *padded_pixel_at(Lower *l, const BlockedConv *t,
                                  GiltValue *n, GiltValue *channel,
                                  GiltValue *row, GiltValue *col,
                                  GiltValue **from)
{
  GiltValue *at[2] = {row, col}, *inside = NULL;
  from[0] = n, from[1] = channel, from[4] = lower_index(l, 0);
  for (size_t d = 0; d < 2; d++) {
    GiltValue *in;
    from[2 + d] =
        ix_clamp_into(l, ix_sub(l, at[d], t->w->begin[d]), t->w->in[d], &in);
    inside = inside ? lower_binary(l, LOOP_OP_ANDI, inside, in) : in;
  }
  return inside;
}

/* The channels of a blocked X's block at padded pixel (row, column),
** zero outside X: a load under a mask of all lanes or none. */
static GiltValue *padded_pixel_vector(Lower *l, BlockedConv *t, GiltValue *n,
                                      GiltValue *block, GiltValue *row,
                                      GiltValue *col)
{
  GiltValue *from[5];
  GiltValue *inside = padded_pixel_at(l, t, n, block, row, col, from);
  GiltValue *mask = lower_lanes_mask_all(l, &t->in_v, inside);
  return lower_lanes_load(l, &t->in_v, mask, t->given, from);
}

/* One pixel of the product's padded copy, ivs (n, channel block or
** channel, row, column): X's at the clamped position, zero outside X.
** Blocked, the pixel's block of channels is one vector; in NCHW it is
** one float. */
static void pad_body(Lower *l, GiltValue *const *ivs, void *user)
{
  BlockedConv *t = user;
  GiltValue *to[5] = {ivs[0], ivs[1], ivs[2], ivs[3], lower_index(l, 0)};
  if (t->in_block > 1) {
    GiltValue *xv = padded_pixel_vector(l, t, ivs[0], ivs[1], ivs[2], ivs[3]);
    lower_lanes_store(l, &t->in_v, NULL, xv, t->x, to);
    return;
  }
  GiltValue *from[5];
  GiltValue *inside =
      padded_pixel_at(l, t, ivs[0], ivs[1], ivs[2], ivs[3], from);
  GiltValue *xv = lower_load(l, t->given, from);
  GiltValue *fill = lower_constant_like(l, xv, 0);
  lower_store(l, lower_select(l, inside, xv, fill), t->x, to);
}

/* t->x for the product: X with the padding as zeros, [N, C/b, E0, E1, b]
** (E the extents that hold every window), when the window pads; X itself
** when not. */
static void pad_input(Lower *l, BlockedConv *t)
{
  GiltValue *x = t->given;
  LowerWindow *w = t->w;
  bool pads = w->same;
  for (size_t i = 0; i < 4; i++)
    pads = pads || w->pads[i];
  t->x = x;
  if (!pads)
    return;
  size_t rank = gilt_value_get_type(x)->shaped.rank;
  GiltValue *dims[5] = {lower_dim(l, x, 0), lower_dim(l, x, 1), w->extent[0],
                        w->extent[1], rank == 5 ? lower_dim(l, x, 4) : NULL};
  int64_t dyn[5] = {GILT_DYNAMIC, GILT_DYNAMIC, GILT_DYNAMIC, GILT_DYNAMIC,
                    GILT_DYNAMIC};
  t->x = lower_alloc(
      l, gilt_memref_type_get(l->ctx, rank, dyn, t->v.elem, NULL, NULL),
      dims);
  lower_parallel(l, 4, dims, pad_body, t);
}

/* ---- the tiles' callbacks ---------------------------------------------------- */

/* The output pixel (oh, ow) of product row p. */
static void pixel(Lower *l, const BlockedConv *t, GiltValue *p,
                  GiltValue **oh, GiltValue **ow)
{
  *oh = ix_div(l, p, t->w->out[1]);
  *ow = ix_rem(l, p, t->w->out[1]);
}

/* The reduction's loops are (c, kh, kw), or (X's channel block, channel
** in it, kh, kw) when split. Split, the innermost loop steps along a
** pixel's channels, one float further each step, so that each row's
** broadcast is its pixel's address plus that step: one register a row,
** set once a block. From one loop over c, LLVM rebuilt each row's
** address every step from c / 16 and c % 16 (three integer ops a row, 40
** a step for 20 FMAs: a Zen 3's front end, not its FMA units, set the
** pace of MobileNetV2's 7x7 layers). The order of the sums is the same.
** The step's taps (kh, kw) are the last two loops. */
static GiltValue *const *taps_at(const BlockedConv *t, const LowerTileAt *at)
{
  return &at->red[t->split ? 2 : 1];
}

/* The step's input channel. */
static GiltValue *channel_at(Lower *l, const BlockedConv *t,
                             const LowerTileAt *at)
{
  if (!t->split)
    return at->red[0];
  GiltValue *first = ix_mul(l, at->red[0], lower_index(l, t->in_block));
  return ix_add(l, first, at->red[1]);
}

static GiltValue *tile_load_a(Lower *l, const LowerTileAt *at, size_t i,
                              void *user)
{
  BlockedConv *t = user;
  if (t->a_panels) /* 1x1: the reduction's first loop is the channel */
    return lower_packed_row(l, t->a_panels, at, i);
  LowerWindow *w = t->w;
  GiltValue *const *tap = taps_at(t, at);
  GiltValue *oh, *ow;
  pixel(l, t, t->row_aligned ? at->m0 : at->rows[i], &oh, &ow);
  /* One op at a time, so that every compiler emits them in one order. */
  GiltValue *ih = ix_mul(l, oh, lower_index(l, w->strides[0]));
  ih = ix_add(l, ih, ix_mul(l, tap[0], lower_index(l, w->dilations[0])));
  GiltValue *iw = ix_mul(l, ow, lower_index(l, w->strides[1]));
  iw = ix_add(l, iw, ix_mul(l, tap[1], lower_index(l, w->dilations[1])));
  /* Rows of one output row: one address and constant offsets, added
  ** last so that LLVM folds them into the loads. */
  if (t->row_aligned)
    iw = ix_add(l, iw, lower_index(l, (int64_t)i * w->strides[1]));
  if (t->in_block == 1) {
    GiltValue *idx[4] = {t->n, at->red[0], ih, iw};
    return lower_load(l, t->x, idx);
  }
  /* Channel c of a blocked X is at [c / b, ..., c % b]. */
  GiltValue *block = at->red[0], *within = at->red[1];
  if (!t->split) {
    GiltValue *b = lower_index(l, t->in_block);
    block = ix_div(l, at->red[0], b);
    within = ix_rem(l, at->red[0], b);
  }
  GiltValue *idx[5] = {t->n, block, ih, iw, within};
  return lower_load(l, t->x, idx);
}

static GiltValue *tile_load_b(Lower *l, const LowerTileAt *at, size_t v,
                              void *user)
{
  BlockedConv *t = user;
  GiltValue *const *tap = taps_at(t, at);
  GiltValue *k = ix_add(l, ix_mul(l, channel_at(l, t, at), t->kernel_h),
                        tap[0]);
  k = ix_add(l, ix_mul(l, k, t->kernel_w), tap[1]);
  GiltValue *idx[3] = {at->nb, k, lower_index(l, (int64_t)v * t->v.width)};
  return lower_lanes_load(l, &t->v, NULL, t->panels, idx);
}

/* Sums of output pixel rows[i], channels cols[v] to cols[v] + b - 1 (b
** Y's block): one vector of Y at [n, cols[v] / b, oh, ow, 0]. */
static void tile_store(Lower *l, const LowerTileAt *at, size_t i, size_t v,
                       GiltValue *sums, void *user)
{
  BlockedConv *t = user;
  GiltValue *oh, *ow;
  pixel(l, t, at->rows[i], &oh, &ow);
  GiltValue *block = ix_div(l, at->cols[v], lower_index(l, t->v.width));
  GiltValue *idx[5] = {t->n, block, oh, ow, lower_index(l, 0)};
  if (t->bias)
    sums = lower_lanes_add(
        l, sums,
        lower_lanes_load(l, &t->v, at->masks[v], t->bias, &at->cols[v]));
  sums = lower_epilogue_apply_at(l, &t->epilogue, &t->v, at->masks[v], sums,
                                 idx);
  lower_lanes_store(l, &t->v, at->masks[v], sums, t->y, idx);
}

/* ---- depthwise ------------------------------------------------------------------ */

/* How many taps of output o's window along axis i an average counts:
** those inside the input, or inside its padding with count_include_pad
** (never those of ceil_mode's overhang past it). */
static GiltValue *taps_counted(Lower *l, const BlockedConv *t, size_t i,
                               GiltValue *o)
{
  const LowerWindow *w = t->w;
  bool include_pad = t->pool == LOWER_BLOCKED_AVERAGE_WITH_PAD;
  GiltValue *zero = lower_index(l, 0);
  GiltValue *lo = include_pad ? ix_sub(l, zero, w->begin[i]) : zero;
  GiltValue *hi = include_pad ? ix_add(l, w->in[i], w->end[i]) : w->in[i];
  GiltValue *start =
      ix_sub(l, ix_mul(l, o, lower_index(l, w->strides[i])), w->begin[i]);
  GiltValue *count = zero;
  for (int64_t k = 0; k < w->kernel[i]; k++) {
    GiltValue *at = ix_add(l, start, lower_index(l, k * w->dilations[i]));
    count = ix_add(l, count, ix_one_if(l, ix_in_range(l, at, lo, hi)));
  }
  return count;
}

/* Tap k's vector of weights for the row's channel block; NULL for a
** pool, which has none. */
static GiltValue *tap_weights(Lower *l, const BlockedConv *t, int64_t k)
{
  if (t->pool != LOWER_BLOCKED_CONV)
    return NULL;
  GiltValue *idx[3] = {t->cb, lower_index(l, k), lower_index(l, 0)};
  return lower_lanes_load(l, &t->v, NULL, t->panels, idx);
}

/* acc with a tap's input x: multiplied by the tap's weights and added,
** the larger of the two, or added. */
static GiltValue *combine(Lower *l, const BlockedConv *t, GiltValue *weights,
                          GiltValue *x, GiltValue *acc)
{
  switch (t->pool) {
  case LOWER_BLOCKED_CONV:
    return lower_lanes_fma(l, weights, x, acc);
  case LOWER_BLOCKED_MAX:
    return lower_select(l, lower_cmp(l, "ogt", x, acc), x, acc);
  case LOWER_BLOCKED_AVERAGE:
  case LOWER_BLOCKED_AVERAGE_WITH_PAD:
    break;
  }
  return lower_lanes_add(l, acc, x);
}

/* Tap (kh, kw)'s vector of X for the output pixel whose first tap is at
** (row, col): from the block's padded copy where there is one; else where
** it lies, or, guarded, loaded at the position clamped into X (always in
** bounds) and replaced by the fill outside it. */
static GiltValue *tap_input(Lower *l, const BlockedConv *t, GiltValue *row,
                            GiltValue *col, int64_t kh, int64_t kw)
{
  const LowerWindow *w = t->w;
  GiltValue *zero = lower_index(l, 0);
  GiltValue *at[2];
  at[0] = ix_add(l, row, lower_index(l, kh * w->dilations[0]));
  at[1] = ix_add(l, col, lower_index(l, kw * w->dilations[1]));
  if (t->block_pad) {
    GiltValue *idx[3] = {ix_add(l, at[0], w->begin[0]),
                         ix_add(l, at[1], w->begin[1]), zero};
    return lower_lanes_load(l, &t->v, NULL, t->block_pad, idx);
  }
  GiltValue *inside = NULL;
  if (t->guarded)
    for (size_t d = 0; d < 2; d++) {
      GiltValue *in;
      at[d] = ix_clamp_into(l, at[d], w->in[d], &in);
      inside = inside ? lower_binary(l, LOOP_OP_ANDI, inside, in) : in;
    }
  GiltValue *idx[5] = {t->n, t->cb, at[0], at[1], zero};
  GiltValue *xv = lower_lanes_load(l, &t->v, NULL, t->given, idx);
  return t->guarded ? lower_select(l, inside, xv, t->pad) : xv;
}

/* Output pixels (oh, ow + p), p < t->pixels, of the row's 16 channels:
** a vector of X per tap times the tap's vector of weights (or their
** maximum, or mean), the 16 lanes 16 channels, so that no lane idles
** whatever the image's width. The pixels go side by side, each tap's
** weights loaded once for all of them: a pixel at a time had loaded a
** vector of weights beside each vector of X, two loads a multiply-add
** (the 25 taps of a 5x5 layer fill more registers than a core has), its
** one chain of multiply-adds waiting on each one's latency. */
static void depthwise_pixels(Lower *l, GiltValue *ow, GiltValue *const *iter,
                             GiltValue **next, void *user)
{
  (void)iter, (void)next;
  BlockedConv *t = user;
  LowerWindow *w = t->w;
  GiltValue *zero = lower_index(l, 0);
  GiltValue *row =
      ix_sub(l, ix_mul(l, t->oh, lower_index(l, w->strides[0])), w->begin[0]);
  GiltValue *at_ow[LOWER_DEPTHWISE_PIXELS], *col[LOWER_DEPTHWISE_PIXELS];
  GiltValue *acc[LOWER_DEPTHWISE_PIXELS];
  for (size_t p = 0; p < t->pixels; p++) {
    at_ow[p] = ix_add(l, ow, lower_index(l, (int64_t)p));
    col[p] = ix_sub(l, ix_mul(l, at_ow[p], lower_index(l, w->strides[1])),
                    w->begin[1]);
    acc[p] = t->row_bias;
  }
  for (int64_t kh = 0; kh < w->kernel[0]; kh++)
    for (int64_t kw = 0; kw < w->kernel[1]; kw++) {
      GiltValue *weights = tap_weights(l, t, kh * w->kernel[1] + kw);
      for (size_t p = 0; p < t->pixels; p++)
        acc[p] = combine(l, t, weights, tap_input(l, t, row, col[p], kh, kw),
                         acc[p]);
    }
  for (size_t p = 0; p < t->pixels; p++) {
    if (t->row_count) { /* divided, as pool.c's nest does: the same bits */
      GiltValue *count =
          ix_mul(l, t->row_count, taps_counted(l, t, 1, at_ow[p]));
      acc[p] = lower_binary(
          l, LOOP_OP_DIVF, acc[p],
          lower_lanes_splat(l, &t->v, lower_index_to(l, count, t->v.elem)));
    }
    GiltValue *at[5] = {t->n, t->cb, t->oh, at_ow[p], zero};
    acc[p] = lower_epilogue_apply_at(l, &t->epilogue, &t->v, NULL, acc[p], at);
    lower_lanes_store(l, &t->v, NULL, acc[p], t->y, at);
  }
}

/* The row's pixels from lo to hi, guarded or not, `pixels` side by side
** and the rest one at a time. */
static void row_pixels(Lower *l, BlockedConv *t, GiltValue *lo, GiltValue *hi,
                       bool guarded, size_t pixels)
{
  t->guarded = guarded;
  GiltValue *rest = lo;
  if (pixels > 1) {
    GiltValue *step = lower_index(l, (int64_t)pixels);
    rest = ix_add(l, lo, ix_mul(l, ix_div(l, ix_sub(l, hi, lo), step), step));
    t->pixels = pixels;
    lower_for(l, lo, rest, step, 0, NULL, NULL, depthwise_pixels, t);
  }
  t->pixels = 1;
  lower_for(l, rest, hi, lower_index(l, 1), 0, NULL, NULL, depthwise_pixels,
            t);
}

/* What every pixel of row t->oh of block t->cb starts from: the
** padding's vector, the bias (or a pool's start) and an average's count
** of the row's taps. */
static void row_start(Lower *l, BlockedConv *t)
{
  t->pad = t->fill ? lower_lanes_splat(l, &t->v, t->fill)
                   : lower_lanes_zero(&t->v);
  if (t->pool != LOWER_BLOCKED_CONV) {
    t->row_bias = t->pad;
    if (t->pool != LOWER_BLOCKED_MAX)
      t->row_count = taps_counted(l, t, 0, t->oh);
  } else {
    GiltValue *c0 = ix_mul(l, t->cb, lower_index(l, t->v.width));
    t->row_bias = t->bias ? lower_lanes_load(l, &t->v, NULL, t->bias, &c0)
                          : lower_lanes_zero(&t->v);
  }
}

/* One row of outputs of one channel block, ivs (n, cb, oh): the columns
** whose taps stay inside X read it unguarded, when the row's do too. */
static void depthwise_row(Lower *l, GiltValue *const *ivs, void *user)
{
  BlockedConv *t = user;
  t->n = ivs[0], t->cb = ivs[1], t->oh = ivs[2];
  row_start(l, t);
  GiltValue *ow = t->w->out[1];
  GiltValue *rows_in = ix_in_range(l, t->oh, t->row_lo, t->row_hi);
  GiltValue *cols_in = lower_cmp(l, "slt", t->col_lo, t->col_hi);
  GiltValue *inside = lower_binary(l, LOOP_OP_ANDI, rows_in, cols_in);
  GiltValue *lo = lower_select(l, inside, t->col_lo, ow);
  GiltValue *hi = lower_select(l, inside, t->col_hi, ow);
  row_pixels(l, t, lower_index(l, 0), lo, true, 1);
  row_pixels(l, t, lo, hi, false, t->row_pixels);
  row_pixels(l, t, hi, ow, true, 1);
}

/* The pixels of a row computed side by side: half the vector registers
** that a tap's weights and an input vector leave, the other half for an
** activation's temporaries (SiLU's sigmoid), which with as many pixels
** as registers spilled the accumulators. On a Zen 3 (AVX2: 3 pixels)
** EfficientNet's 144 channels at 56x56 with SiLU took 0.40 ms, against
** 0.68 a pixel at a time and 0.65 four at a time. Counted in vectors of
** the block: AVX2's registers hold 8 blocks of 16 or 16 of 8. */
static size_t side_by_side_pixels(const Lower *l, int64_t block)
{
  int64_t vectors = l->register_vectors * lower_vectors_in_16(l, block);
  int64_t pixels = (vectors - 2) / 2;
  return pixels < 1                        ? 1
         : pixels > LOWER_DEPTHWISE_PIXELS ? LOWER_DEPTHWISE_PIXELS
                                           : (size_t)pixels;
}

/* A depthwise layer pads each block of channels (above) where the taps
** that its outputs near an edge would check, all of theirs, are at least
** PAD_BLOCK_RATIO times the pixels of the padded copy. On a Zen 3, with
** SiLU or ReLU6 after it and 1 or 2 threads: 5x5 windows at 7x7 (1,000
** checked taps for a copy of 121 pixels) took 32% less time padded, at
** 14x14 (2,400 for 324) 22% less, at 28x28 (5,300 for 1,024) 12% less;
** 3x3 windows at 7x7 (216 for 81) about the same, at 14x14 (468 for 256)
** 17% more. */
#define PAD_BLOCK_RATIO 4
/* The largest padded block: 28x28 under 5x5 windows, 32 x 32 pixels of
** 16 floats, the largest measured (a core's L2 holds several). */
#define PAD_BLOCK_MAX_BYTES 65536

/* Outputs along axis d whose taps all lie inside X: from ceil(begin / s)
** to (size + begin - reach) / s + 1, within [0, out). */
static int64_t outputs_inside(const LowerWindow *w, size_t d, int64_t size,
                              int64_t out)
{
  int64_t s = w->strides[d], begin = w->pads[d];
  int64_t lo = (begin + s - 1) / s;
  int64_t hi = size + begin - w->ek[d] < 0
                   ? 0
                   : (size + begin - w->ek[d]) / s + 1;
  hi = hi < out ? hi : out;
  return hi > lo ? hi - lo : 0;
}

/* How many of a depthwise convolution's *outputs outputs would check
** their taps (some tap outside X); -1 for a pool, automatic pads or sizes
** known only at run time. */
static int64_t outputs_near_edge(const BlockedConv *t, int64_t *outputs)
{
  const LowerWindow *w = t->w;
  GiltType *xt = gilt_value_get_type(t->given);
  GiltType *yt = gilt_value_get_type(t->y);
  if (t->pool != LOWER_BLOCKED_CONV || w->same)
    return -1;
  int64_t inside = 1;
  *outputs = 1;
  for (size_t d = 0; d < 2; d++) {
    int64_t size = xt->shaped.shape[2 + d], out = yt->shaped.shape[2 + d];
    if (size == GILT_DYNAMIC || out == GILT_DYNAMIC)
      return -1;
    *outputs *= out;
    inside *= outputs_inside(w, d, size, out);
  }
  return *outputs - inside;
}

/* Whether a depthwise convolution pads each block of channels
** (PAD_BLOCK_RATIO). */
static bool pad_blocks(const BlockedConv *t)
{
  int64_t outputs, edge = outputs_near_edge(t, &outputs);
  if (edge <= 0)
    return false;
  const LowerWindow *w = t->w;
  GiltType *xt = gilt_value_get_type(t->given);
  int64_t taps = w->kernel[0] * w->kernel[1];
  int64_t copied = (xt->shaped.shape[2] + w->pads[0] + w->pads[2]) *
                   (xt->shaped.shape[3] + w->pads[1] + w->pads[3]);
  int64_t bytes = copied * t->v.width * (int64_t)sizeof(float);
  return edge * taps >= PAD_BLOCK_RATIO * copied &&
         bytes <= PAD_BLOCK_MAX_BYTES;
}

/* Pixel ivs (i, j) of the block's padded copy (pad_body's, in one
** block). */
static void block_pad_body(Lower *l, GiltValue *const *ivs, void *user)
{
  BlockedConv *t = user;
  GiltValue *xv = padded_pixel_vector(l, t, t->n, t->cb, ivs[0], ivs[1]);
  GiltValue *to[3] = {ivs[0], ivs[1], lower_index(l, 0)};
  lower_lanes_store(l, &t->v, NULL, xv, t->block_pad, to);
}

/* Row ivs (oh) of a padded block: every pixel unguarded, side by side. */
static void padded_row(Lower *l, GiltValue *const *ivs, void *user)
{
  BlockedConv *t = user;
  t->oh = ivs[0];
  row_start(l, t);
  row_pixels(l, t, lower_index(l, 0), t->w->out[1], false, t->row_pixels);
}

/* One block of channels, ivs (n, cb): its padded copy, then its rows. */
static void padded_block(Lower *l, GiltValue *const *ivs, void *user)
{
  BlockedConv *t = user;
  t->n = ivs[0], t->cb = ivs[1];
  int64_t dyn[3] = {GILT_DYNAMIC, GILT_DYNAMIC, t->v.width};
  GiltValue *extent[3] = {t->w->extent[0], t->w->extent[1], NULL};
  t->block_pad = lower_alloc(
      l, gilt_memref_type_get(l->ctx, 3, dyn, t->v.elem, NULL, NULL), extent);
  lower_nest(l, 2, extent, block_pad_body, t);
  lower_nest(l, 1, &t->w->out[0], padded_row, t);
}

/* Y [N, C/16, OH, OW, 16] (t->y) of t's windows, parallel over the rows
** of each block of channels, or over the blocks where they are padded
** (pad_blocks). */
static GiltValue *blocked_windows(Lower *l, BlockedConv *t,
                                  GiltValue *const *ydims)
{
  const LowerWindow *w = t->w;
  t->row_pixels = side_by_side_pixels(l, t->v.width);
  if (t->padded_blocks) {
    lower_parallel(l, 2, ydims, padded_block, t);
    t->block_pad = NULL;
    return t->y;
  }
  t->row_lo = lower_window_first_inside(l, w, 0);
  t->row_hi = lower_window_end_inside(l, w, 0, w->in[0], w->ek[0], t->row_lo);
  t->col_lo = lower_window_first_inside(l, w, 1);
  t->col_hi = lower_window_end_inside(l, w, 1, w->in[1], w->ek[1], t->col_lo);
  GiltValue *rows[3] = {ydims[0], ydims[1], t->w->out[0]};
  lower_parallel(l, 3, rows, depthwise_row, t);
  return t->y;
}

/* ---- the convolution ----------------------------------------------------------- */

/* Whether a layer packs X as the product's rows (BlockedConv.pack_a): X
** read as NCHW by a 1x1 window of stride 1 without padding, and tiles
** whose rows do not lie in one output row, so that each row's broadcast
** has an address of its own, C rows of X apart: ShuffleNetV2's 464
** channels into 1024 at 7x7 (AVX2's 5 rows a tile) read C lines of X
** for 5 floats of each, per tile, 0.76 ms against 0.56 packed. And at
** least two tiles of columns, so that each panel serves more than one:
** EfficientNet-B0's 32 channels into 16 at 112x112 took 0.26 ms reading
** X where it lies, 0.35 packed. */
static bool pack_rows_of_x(const BlockedConv *t, GiltType *wt)
{
  const LowerWindow *w = t->w;
  int64_t oc = wt->shaped.shape[0];
  int64_t cols = (int64_t)t->vectors * t->v.width;
  return t->in_block == 1 && !t->row_aligned && t->x == t->given &&
         oc != GILT_DYNAMIC && oc > cols &&
         wt->shaped.shape[2] == 1 && wt->shaped.shape[3] == 1 &&
         w->strides[0] == 1 && w->strides[1] == 1;
}

static void batch_body(Lower *l, GiltValue *const *ivs, void *user)
{
  BlockedConv *t = user;
  t->n = ivs[0];
  if (t->pack_a) { /* X[n] as [C, H * W], transposed: A [H * W, C] */
    int64_t dyn[3] = {GILT_DYNAMIC, GILT_DYNAMIC, GILT_DYNAMIC};
    GiltValue *pixels = ix_mul(l, t->w->in[0], t->w->in[1]);
    GiltValue *xs[3] = {lower_dim(l, t->x, 0), t->channels, pixels};
    GiltValue *flat = lower_reshaped(l, t->x, 3, dyn, xs);
    LowerMatrix a = {flat, &t->n, true, pixels, t->channels};
    t->a_panels = lower_pack_rows(l, &a, t->rows);
  }
  LowerTiles tiles = {
      .algorithm = "conv-nchwc",
      .m = ix_mul(l, t->w->out[0], t->w->out[1]),
      .n = t->oc,
      .rows = t->rows,
      .vectors = t->vectors,
      .lanes = t->v.width,
      .b_panels = t->panels,
      .load_a = tile_load_a,
      .load_b = tile_load_b,
      .store = tile_store,
      .user = t,
  };
  size_t d = 0; /* the loops taps_at and channel_at read */
  if (t->split) {
    GiltValue *block = lower_index(l, t->in_block);
    tiles.reductions[d++] = ix_div(l, t->channels, block);
    tiles.reductions[d++] = block;
  } else {
    tiles.reductions[d++] = t->channels;
  }
  tiles.reductions[d++] = t->kernel_h;
  tiles.reductions[d++] = t->kernel_w;
  tiles.num_reductions = d;
  lower_tiles(l, &tiles);
}

static void remark_layout(Lower *l, const BlockedConv *t, bool depthwise)
{
  int b = (int)t->v.width;
  GiltRemarkArg args[2] = {{"in_block", NULL, t->in_block},
                           {"out_block", NULL, b}};
  if (depthwise) {
    gilt_remark(l->op, "layout", "nchwc", 2, args,
                "computes NCHW%dc depthwise: each output pixel one vector "
                "of its %d channels, a vector of the input and of the "
                "weights a tap",
                b, b);
    GiltRemarkArg tiling[2] = {{"pixels", NULL,
                                (int64_t)side_by_side_pixels(l, t->v.width)},
                               {"padded_blocks", NULL, t->padded_blocks}};
    if (!t->padded_blocks) {
      gilt_remark(l->op, "tiling", "depthwise-nchwc", 2, tiling,
                  "depthwise-nchwc: parallel over rows of outputs of each "
                  "block of %d channels, %d pixels of a row side by side, "
                  "each tap's weights loaded once for them",
                  b, (int)tiling[0].number);
      return;
    }
    int64_t outputs, edge = outputs_near_edge(t, &outputs);
    gilt_remark(l->op, "tiling", "depthwise-nchwc", 2, tiling,
                "depthwise-nchwc: parallel over blocks of %d channels, "
                "each copied with its padding into a buffer of its own, "
                "as %" PRId64 " of its %" PRId64 " outputs would check "
                "their taps; then its rows, unguarded, %d pixels side by "
                "side, each tap's weights loaded once for them",
                b, edge, outputs, (int)tiling[0].number);
    return;
  }
  gilt_remark(l->op, "layout", "nchwc", 2, args,
              "computes NCHW%dc: rows the OH * OW outputs, columns %d "
              "output channels (blocks of %d, each one vector of Y), X "
              "read in its own layout (channel block %d)",
              b, (int)t->vectors * b, b, (int)t->in_block);
}

static GiltStatus lower_conv_nchwc(Lower *l)
{
  GiltValue *x = lower_operand(l, 0), *weights = lower_operand(l, 1);
  GiltType *wt = gilt_value_get_type(weights);
  /* Both attributes are required: the verifier has seen them. */
  int64_t in_block = graph_attr_channel_block(l->op, "data_layout");
  int64_t out_block = graph_attr_channel_block(l->op, "out_layout");
  if (lower_epilogue_check(l))
    return GILT_FAILURE;
  GiltType *f32 = lower_result_elem(l, 0);
  if (!lower_block_vectorizes(l, f32, out_block) ||
      (in_block != 1 && !lower_block_vectorizes(l, f32, in_block)))
    return lower_error(l, "only f32, with data_layout NCHW, NCHW%dc or "
                          "NCHW%dc and out_layout one of the last two, on a "
                          "target with vector registers, is supported",
                       LOWER_F32_LANES / 2, LOWER_F32_LANES);
  if (wt->shaped.shape[2] == GILT_DYNAMIC ||
      wt->shaped.shape[3] == GILT_DYNAMIC)
    return lower_error(l, "the kernel's spatial sizes must be static");
  bool depthwise = graph_attr_int(l->op, "group", 1) != 1;
  if (depthwise &&
      (in_block != out_block ||
       !lower_taps_fit(wt->shaped.shape[2], wt->shaped.shape[3],
                       LOWER_DEPTHWISE_MAX_TAPS)))
    return lower_error(l, "a depthwise graph.conv_nchwc needs X in its "
                          "out_layout and at most %d taps",
                       LOWER_DEPTHWISE_MAX_TAPS);
  LowerWindow w;
  lower_window_read(l, x, 2, wt->shaped.shape + 2, &w);
  BlockedConv t = {.w = &w, .in_block = in_block, .given = x,
                   .bias = lower_operand(l, 2),
                   .vectors = lower_tile_vectors(l) *
                              (size_t)lower_vectors_in_16(l, out_block)};
  lower_epilogue_read(l, &t.epilogue);
  lower_lanes_init_width(l, &t.v, f32, out_block);
  if (in_block > 1)
    lower_lanes_init_width(l, &t.in_v, f32, in_block);
  t.channels = lower_dim(l, weights, 1);
  t.split = in_block > 1 && wt->shaped.shape[1] != GILT_DYNAMIC &&
            wt->shaped.shape[1] % in_block == 0;
  t.kernel_h = lower_index(l, wt->shaped.shape[2]);
  t.kernel_w = lower_index(l, wt->shaped.shape[3]);
  GiltValue *oc = t.oc = lower_dim(l, weights, 0);
  GiltValue *ydims[5] = {lower_dim(l, x, 0),
                         ix_div(l, oc, lower_index(l, out_block)), w.out[0],
                         w.out[1], lower_index(l, out_block)};
  bool blocks_of_16 = out_block == LOWER_F32_LANES;
  int winograd = depthwise || !blocks_of_16 ? 0
                 : lower_conv_winograd_nchwc_apply(l, &w, weights, in_block);
  if (winograd) {
    GiltValue *y =
        lower_conv_winograd_nchwc(l, &w, x, weights, t.bias, ydims, winograd);
    return lower_replace(l, &y);
  }
  t.y = lower_alloc_result(l, 0, ydims);
  t.padded_blocks = depthwise && pad_blocks(&t);
  remark_layout(l, &t, depthwise);
  GiltType *yt = lower_result_type(l, 0);
  int64_t ow = yt->shaped.shape[3], oh = yt->shaped.shape[2];
  t.rows = lower_output_rows(
      l, ow, oh == GILT_DYNAMIC || ow == GILT_DYNAMIC ? GILT_DYNAMIC : oh * ow,
      &t.row_aligned);
  GiltValue *k = ix_mul(
      l, t.channels, lower_index(l, wt->shaped.shape[2] * wt->shaped.shape[3]));
  int64_t flat_static[2] = {wt->shaped.shape[0],
                            wt->shaped.shape[1] == GILT_DYNAMIC
                                ? GILT_DYNAMIC
                                : wt->shaped.shape[1] * wt->shaped.shape[2] *
                                      wt->shaped.shape[3]};
  GiltValue *flat_shape[2] = {oc, k};
  GiltValue *flat = lower_reshaped(l, weights, 2, flat_static, flat_shape);
  LowerMatrix b = {flat, NULL, true, k, oc};
  if (depthwise) { /* the taps of each block of b channels: [C/b, K, b] */
    t.panels = lower_pack_cols(l, &b, out_block);
    GiltValue *y = blocked_windows(l, &t, ydims);
    return lower_replace(l, &y);
  }
  pad_input(l, &t);
  t.pack_a = pack_rows_of_x(&t, wt);
  t.panels = lower_pack_cols(l, &b, (int64_t)t.vectors * out_block);
  GiltValue *batch = ydims[0];
  lower_nest(l, 1, &batch, batch_body, &t);
  return lower_replace(l, &t.y);
}

/* ---- pooling ------------------------------------------------------------------- */

bool lower_pool_nchwc_apply(Lower *l, const LowerWindow *w, GiltValue *x)
{
  GiltType *t = gilt_value_get_type(x);
  return w->n == 2 && t->shaped.rank == 5 &&
         lower_block_vectorizes(l, t->shaped.elem, t->shaped.shape[4]) &&
         lower_taps_fit(w->kernel[0], w->kernel[1], LOWER_DEPTHWISE_MAX_TAPS);
}

GiltValue *lower_pool_nchwc(Lower *l, LowerWindow *w, GiltValue *x,
                            LowerBlockedPool pool)
{
  int64_t block = gilt_value_get_type(x)->shaped.shape[4];
  BlockedConv t = {.w = w, .in_block = block, .given = x, .pool = pool};
  lower_lanes_init_width(l, &t.v, gilt_float_type_get(l->ctx, GILT_F32),
                         block);
  t.in_v = t.v;
  if (pool == LOWER_BLOCKED_MAX)
    t.fill = lower_constant(l, t.v.elem, -INFINITY);
  GiltValue *ydims[5] = {lower_dim(l, x, 0), lower_dim(l, x, 1), w->out[0],
                         w->out[1], lower_index(l, block)};
  t.y = lower_alloc_result(l, 0, ydims);
  return blocked_windows(l, &t, ydims);
}

const GraphLoweringRow graph_lower_conv_nchwc[] = {
    {GRAPH_OP_CONV_NCHWC, {lower_conv_nchwc}},
    {0, {NULL}},
};
