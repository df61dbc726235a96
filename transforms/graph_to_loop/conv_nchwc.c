/*
** conv_nchwc.c - graph.conv_nchwc, the Conv of graph-layout-nchwc, through
** the tiles (tiles.c): Y in NCHW16c, X in NCHW<b>c or NCHW.
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
** where 8, 7 or 6 does, so that they read one address plus constant
** offsets.
**
** The weights are B = W^T [C * KH * KW, OC], packed by 32 columns at
** compile time (pack.c), as conv_tiled.c's transposed product packs
** them. A padded window reads a zero-padded copy of X in X's layout,
** O(input) against the product's O(OC * C * KH * KW * OH * OW).
*/
#include "transforms/graph_to_loop/tiles.h"

#include "gilt/remarks.h"
#include "transforms/graph_to_loop/indexing.h"

typedef struct BlockedConv {
  LowerWindow *w;
  LowerEpilogue epilogue;
  LowerLanes v;
  GiltValue *given; /* X */
  GiltValue *x;     /* what the tiles read: X, or its zero-padded copy */
  /* X's channel block: 1 for NCHW, whose index has no block dimension. */
  int64_t in_block;
  GiltValue *panels, *y, *bias, *oc;
  GiltValue *n; /* the batch index of the nest */
  /* The reduction: W's input channels (a constant where static, which
  ** lets the tiles block a large panel of B) and taps. */
  GiltValue *channels, *kernel_h, *kernel_w;
  size_t rows;
  bool row_aligned; /* a tile's rows lie in one output row */
} BlockedConv;

/* ---- the padded input ------------------------------------------------------ */

/* One element of the padded copy: X's at the clamped position, zero
** outside X (the clamp keeps the load in bounds for both). */
static void pad_body(Lower *l, GiltValue *const *ivs, void *user)
{
  BlockedConv *t = user;
  GiltValue *from[5] = {ivs[0], ivs[1], NULL, NULL,
                        t->in_block > 1 ? ivs[4] : NULL};
  GiltValue *inside = NULL;
  for (size_t d = 0; d < 2; d++) {
    GiltValue *at = ix_sub(l, ivs[2 + d], t->w->begin[d]);
    GiltValue *in = ix_in_range(l, at, lower_index(l, 0), t->w->in[d]);
    inside = inside ? lower_binary(l, LOOP_OP_ANDI, inside, in) : in;
    GiltValue *last = ix_sub(l, t->w->in[d], lower_index(l, 1));
    from[2 + d] = ix_max(l, lower_index(l, 0), ix_min(l, at, last));
  }
  GiltValue *xv = lower_load(l, t->given, from);
  GiltValue *zero = lower_constant_like(l, xv, 0);
  lower_store(l, lower_select(l, inside, xv, zero), t->x, ivs);
}

/* t->x: X with the padding as zeros, [N, C/b, E0, E1, b] (E the extents
** that hold every window), when the window pads; X itself when not. */
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
  lower_parallel(l, rank, dims, pad_body, t);
}

/* ---- the tiles' callbacks ---------------------------------------------------- */

/* The output pixel (oh, ow) of product row p. */
static void pixel(Lower *l, const BlockedConv *t, GiltValue *p,
                  GiltValue **oh, GiltValue **ow)
{
  *oh = ix_div(l, p, t->w->out[1]);
  *ow = ix_rem(l, p, t->w->out[1]);
}

static GiltValue *tile_load_a(Lower *l, const LowerTileAt *at, size_t i,
                              void *user)
{
  BlockedConv *t = user;
  LowerWindow *w = t->w;
  GiltValue *oh, *ow;
  pixel(l, t, t->row_aligned ? at->m0 : at->rows[i], &oh, &ow);
  GiltValue *ih = ix_add(l, ix_mul(l, oh, lower_index(l, w->strides[0])),
                         ix_mul(l, at->red[1], lower_index(l, w->dilations[0])));
  GiltValue *iw = ix_add(l, ix_mul(l, ow, lower_index(l, w->strides[1])),
                         ix_mul(l, at->red[2], lower_index(l, w->dilations[1])));
  /* Rows of one output row: one address and constant offsets, added
  ** last so that LLVM folds them into the loads. */
  if (t->row_aligned)
    iw = ix_add(l, iw, lower_index(l, (int64_t)i * w->strides[1]));
  GiltValue *c = at->red[0];
  if (t->in_block == 1) {
    GiltValue *idx[4] = {t->n, c, ih, iw};
    return lower_load(l, t->x, idx);
  }
  GiltValue *b = lower_index(l, t->in_block);
  GiltValue *idx[5] = {t->n, ix_div(l, c, b), ih, iw, ix_rem(l, c, b)};
  return lower_load(l, t->x, idx);
}

static GiltValue *tile_load_b(Lower *l, const LowerTileAt *at, size_t v,
                              void *user)
{
  BlockedConv *t = user;
  GiltValue *k = ix_add(l, ix_mul(l, at->red[0], t->kernel_h), at->red[1]);
  k = ix_add(l, ix_mul(l, k, t->kernel_w), at->red[2]);
  GiltValue *idx[3] = {at->nb, k,
                       lower_index(l, (int64_t)v * LOWER_F32_LANES)};
  return lower_lanes_load(l, &t->v, NULL, t->panels, idx);
}

/* Sums of output pixel rows[i], channels cols[v] to cols[v] + 15: one
** vector of Y at [n, cols[v] / 16, oh, ow, 0]. */
static void tile_store(Lower *l, const LowerTileAt *at, size_t i, size_t v,
                       GiltValue *sums, void *user)
{
  BlockedConv *t = user;
  GiltValue *oh, *ow;
  pixel(l, t, at->rows[i], &oh, &ow);
  GiltValue *block = ix_div(l, at->cols[v], lower_index(l, LOWER_F32_LANES));
  GiltValue *idx[5] = {t->n, block, oh, ow, lower_index(l, 0)};
  if (t->bias)
    sums = lower_lanes_add(
        l, sums,
        lower_lanes_load(l, &t->v, at->masks[v], t->bias, &at->cols[v]));
  sums = lower_epilogue_apply_at(l, &t->epilogue, &t->v, at->masks[v], sums,
                                 idx);
  lower_lanes_store(l, &t->v, at->masks[v], sums, t->y, idx);
}

/* ---- the convolution ----------------------------------------------------------- */

static void batch_body(Lower *l, GiltValue *const *ivs, void *user)
{
  BlockedConv *t = user;
  t->n = ivs[0];
  LowerTiles tiles = {
      .algorithm = "conv-nchwc",
      .m = ix_mul(l, t->w->out[0], t->w->out[1]),
      .n = t->oc,
      .rows = t->rows,
      .vectors = 2,
      .num_reductions = 3,
      .reductions = {t->channels, t->kernel_h, t->kernel_w},
      .load_a = tile_load_a,
      .load_b = tile_load_b,
      .store = tile_store,
      .user = t,
  };
  lower_tiles(l, &tiles);
}

static void remark_layout(Lower *l, const BlockedConv *t)
{
  GiltRemarkArg args[2] = {{"in_block", NULL, t->in_block},
                           {"out_block", NULL, LOWER_F32_LANES}};
  gilt_remark(l->op, "layout", "nchwc", 2, args,
              "computes NCHW16c: rows the OH * OW outputs, columns 32 "
              "output channels (two blocks of 16, each one vector of Y), "
              "X read in its own layout (channel block %d)",
              (int)t->in_block);
}

static GiltStatus lower_conv_nchwc(Lower *l)
{
  GiltValue *x = lower_operand(l, 0), *weights = lower_operand(l, 1);
  GiltType *wt = gilt_value_get_type(weights);
  int64_t in_block =
      graph_channel_block(graph_attr_string(l->op, "data_layout", ""));
  int64_t out_block =
      graph_channel_block(graph_attr_string(l->op, "out_layout", ""));
  if (lower_epilogue_check(l))
    return GILT_FAILURE;
  if (lower_result_elem(l, 0) != gilt_float_type_get(l->ctx, GILT_F32) ||
      out_block != LOWER_F32_LANES || in_block < 1)
    return lower_error(l, "only f32, with out_layout NCHW%dc, is supported",
                       LOWER_F32_LANES);
  if (wt->shaped.shape[2] == GILT_DYNAMIC ||
      wt->shaped.shape[3] == GILT_DYNAMIC)
    return lower_error(l, "the kernel's spatial sizes must be static");
  LowerWindow w;
  lower_window_read(l, x, 2, wt->shaped.shape + 2, &w);
  BlockedConv t = {.w = &w, .in_block = in_block, .given = x,
                   .bias = lower_operand(l, 2)};
  lower_epilogue_read(l, &t.epilogue);
  lower_lanes_init(l, &t.v, gilt_float_type_get(l->ctx, GILT_F32));
  t.channels = lower_dim(l, weights, 1);
  t.kernel_h = lower_index(l, wt->shaped.shape[2]);
  t.kernel_w = lower_index(l, wt->shaped.shape[3]);
  GiltValue *oc = t.oc = lower_dim(l, weights, 0);
  GiltValue *ydims[5] = {lower_dim(l, x, 0),
                         ix_div(l, oc, lower_index(l, LOWER_F32_LANES)),
                         w.out[0], w.out[1], lower_index(l, LOWER_F32_LANES)};
  t.y = lower_alloc_result(l, 0, ydims);
  remark_layout(l, &t);
  pad_input(l, &t);
  GiltType *yt = lower_result_type(l, 0);
  int64_t ow = yt->shaped.shape[3], oh = yt->shaped.shape[2];
  t.rows = lower_output_rows(
      ow, oh == GILT_DYNAMIC || ow == GILT_DYNAMIC ? GILT_DYNAMIC : oh * ow,
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
  t.panels = lower_pack_cols(l, &b, 2 * LOWER_F32_LANES);
  GiltValue *batch = ydims[0];
  lower_nest(l, 1, &batch, batch_body, &t);
  return lower_replace(l, &t.y);
}

const GraphLoweringRow graph_lower_conv_nchwc[] = {
    {GRAPH_OP_CONV_NCHWC, {lower_conv_nchwc}},
    {0, {NULL}},
};
