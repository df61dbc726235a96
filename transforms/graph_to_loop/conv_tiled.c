/*
** conv_tiled.c - f32 2-D convolutions of stride 1 and one group (ResNet's
** and most CNNs' 3x3 and 1x1 layers) as a product through the tiles
** (tiles.c), with no im2col buffer:
**
**   C[oc, p] = sum over (c, kh, kw) of W[oc, c, kh, kw] * X'[c, p + kh*dh*Wp + kw*dw]
**
** X' is the zero-padded input with its rows laid end to end, Wp the
** padded row's length, and p = oh * Wp + ow a position of a "wide" output
** row that runs on past the OW real outputs into the padding. Because a
** step of p is a step along X', the 16 lanes of a vector are 16
** consecutive floats of X' whatever the row boundaries: every load of B
** is one contiguous vector load, and no lane is wasted on a layer with
** rows shorter than a vector (7x7 at ResNet's end) except the Wp - OW
** columns of padding per row. The weights, A = W as [OC, C*KH*KW], are
** packed by panels at compile time (pack.c).
**
** The wide output then goes to Y row by row, dropping the padding
** columns; the bias is added in that copy. The copy and the padded input
** cost O(input + output) against the O(OC * C * KH * KW * H * W) of the
** product.
*/
#include "transforms/graph_to_loop/tiles.h"

#include "transforms/graph_to_loop/indexing.h"

typedef struct TiledConv {
  LowerWindow *w;
  GiltValue *x, *xp, *panels, *wide, *y, *bias;
  GiltValue *n;                 /* the batch index of the nest */
  GiltValue *pitch;             /* Wp */
  GiltValue *kh_step, *kw_step; /* dh * Wp, dw */
  GiltValue *kernel_h, *kernel_w;
  LowerLanes v;
} TiledConv;

/* ---- the padded input, rows end to end ----------------------------------- */

static void pad_body(Lower *l, GiltValue *const *ivs, void *user)
{
  TiledConv *t = user;
  GiltValue *h = ix_add(l, ivs[2], t->w->begin[0]);
  GiltValue *w = ix_add(l, ivs[3], t->w->begin[1]);
  GiltValue *at[3] = {ivs[0], ivs[1], ix_add(l, ix_mul(l, h, t->pitch), w)};
  lower_store(l, lower_load(l, t->x, ivs), t->xp, at);
}

/* X' as [N, C, length]: zeros, the input at its padding offsets. */
static void pad_input(Lower *l, TiledConv *t, GiltValue *length)
{
  GiltValue *dims[3] = {lower_dim(l, t->x, 0), lower_dim(l, t->x, 1), length};
  int64_t shape[3] = {GILT_DYNAMIC, GILT_DYNAMIC, GILT_DYNAMIC};
  GiltType *type = gilt_memref_type_get(l->ctx, 3, shape, t->v.elem, NULL,
                                        NULL);
  t->xp = lower_alloc(l, type, dims);
  lower_fill(l, t->xp, lower_constant(l, t->v.elem, 0));
  GiltValue *xdims[4];
  lower_dims(l, t->x, xdims);
  lower_parallel(l, 4, xdims, pad_body, t);
}

/* ---- the tiles' callbacks ---------------------------------------------- */

/* The reduction's flat index c * KH * KW + kh * KW + kw. */
static GiltValue *flat_k(Lower *l, const TiledConv *t, GiltValue *const *red)
{
  GiltValue *k = ix_add(l, ix_mul(l, red[0], t->kernel_h), red[1]);
  return ix_add(l, ix_mul(l, k, t->kernel_w), red[2]);
}

static GiltValue *tile_load_a(Lower *l, const LowerTileAt *at, size_t i,
                              void *user)
{
  TiledConv *t = user;
  GiltValue *idx[3] = {at->mb, flat_k(l, t, at->red),
                       lower_index(l, (int64_t)i)};
  return lower_load(l, t->panels, idx);
}

static GiltValue *tile_load_b(Lower *l, const LowerTileAt *at, size_t v,
                              void *user)
{
  TiledConv *t = user;
  GiltValue *shift = ix_add(l, ix_mul(l, at->red[1], t->kh_step),
                            ix_mul(l, at->red[2], t->kw_step));
  GiltValue *idx[3] = {t->n, at->red[0], ix_add(l, at->cols[v], shift)};
  return lower_lanes_load(l, &t->v, NULL, t->xp, idx);
}

static void tile_store(Lower *l, const LowerTileAt *at, size_t i, size_t v,
                       GiltValue *sums, void *user)
{
  TiledConv *t = user;
  GiltValue *idx[3] = {t->n, at->rows[i], at->cols[v]};
  lower_lanes_store(l, &t->v, at->masks[v], sums, t->wide, idx);
}

/* ---- the wide rows into Y ------------------------------------------------- */

static void unpad_body(Lower *l, GiltValue *const *ivs, void *user)
{
  TiledConv *t = user;
  GiltValue *ow = ix_mul(l, ivs[3], lower_index(l, LOWER_F32_LANES));
  GiltValue *mask =
      lower_lanes_mask(l, &t->v, ix_sub(l, t->w->out[1], ow));
  GiltValue *from[3] = {ivs[0], ivs[1],
                        ix_add(l, ix_mul(l, ivs[2], t->pitch), ow)};
  GiltValue *sums = lower_lanes_load(l, &t->v, mask, t->wide, from);
  if (t->bias)
    sums = lower_lanes_add(
        l, sums, lower_lanes_splat(l, &t->v, lower_load(l, t->bias, &ivs[1])));
  GiltValue *to[4] = {ivs[0], ivs[1], ivs[2], ow};
  lower_lanes_store(l, &t->v, mask, sums, t->y, to);
}

/* ---- the convolution ------------------------------------------------------ */

static void batch_body(Lower *l, GiltValue *const *ivs, void *user)
{
  TiledConv *t = user;
  t->n = ivs[0];
  GiltValue *oc = lower_dim(l, t->y, 1);
  LowerTiles tiles = {
      .m = oc,
      .n = ix_mul(l, t->w->out[0], t->pitch),
      .rows = 6,
      .vectors = 2,
      .num_reductions = 3,
      .reductions = {lower_dim(l, t->x, 1), t->kernel_h, t->kernel_w},
      .load_a = tile_load_a,
      .load_b = tile_load_b,
      .store = tile_store,
      .user = t,
  };
  lower_tiles(l, &tiles);
}

bool lower_conv_tiles_apply(Lower *l, const LowerWindow *w, int64_t group)
{
  if (w->n != 2 || group != 1 || w->strides[0] != 1 || w->strides[1] != 1)
    return false;
  return lower_result_elem(l, 0) == gilt_float_type_get(l->ctx, GILT_F32);
}

GiltValue *lower_conv_tiles(Lower *l, LowerWindow *w, GiltValue *x,
                            GiltValue *weights, GiltValue *bias)
{
  TiledConv t = {.w = w, .x = x, .bias = bias};
  lower_lanes_init(l, &t.v, gilt_float_type_get(l->ctx, GILT_F32));
  GiltType *wt = gilt_value_get_type(weights);
  t.kernel_h = lower_index(l, wt->shaped.shape[2]);
  t.kernel_w = lower_index(l, wt->shaped.shape[3]);
  t.pitch = w->extent[1];
  t.kh_step = ix_mul(l, lower_index(l, w->dilations[0]), t.pitch);
  t.kw_step = lower_index(l, w->dilations[1]);

  /* The tiles read up to the last panel's end plus the kernel's reach. */
  size_t nr = 2 * LOWER_F32_LANES;
  GiltValue *wide_n = ix_mul(l, w->out[0], t.pitch);
  GiltValue *wide_len = ix_mul(
      l, lower_binary(l, LOOP_OP_CEILDIVSI, wide_n, lower_index(l, (int64_t)nr)),
      lower_index(l, (int64_t)nr));
  GiltValue *reach = ix_add(
      l, ix_mul(l, lower_index(l, w->ek[0] - 1), t.pitch),
      lower_index(l, w->ek[1] - 1));
  pad_input(l, &t, ix_add(l, wide_len, reach));

  GiltValue *oc = lower_dim(l, weights, 0);
  GiltValue *k = ix_mul(l, lower_dim(l, weights, 1),
                        lower_index(l, wt->shaped.shape[2] * wt->shaped.shape[3]));
  GiltValue *flat_shape[2] = {oc, k};
  int64_t flat_static[2] = {wt->shaped.shape[0],
                            wt->shaped.shape[1] == GILT_DYNAMIC
                                ? GILT_DYNAMIC
                                : wt->shaped.shape[1] * wt->shaped.shape[2] *
                                      wt->shaped.shape[3]};
  GiltValue *flat = lower_reshaped(l, weights, 2, flat_static, flat_shape);
  LowerMatrix a = {flat, NULL, false, oc, k};
  t.panels = lower_pack_rows(l, &a, 6);

  GiltValue *batch = lower_dim(l, x, 0);
  GiltValue *wide_dims[3] = {batch, oc, wide_len};
  int64_t wide_shape[3] = {GILT_DYNAMIC, GILT_DYNAMIC, GILT_DYNAMIC};
  t.wide = lower_alloc(l, gilt_memref_type_get(l->ctx, 3, wide_shape, t.v.elem,
                                               NULL, NULL),
                       wide_dims);
  GiltValue *ydims[4] = {batch, oc, w->out[0], w->out[1]};
  t.y = lower_alloc_result(l, 0, ydims);
  lower_nest(l, 1, &batch, batch_body, &t);

  GiltValue *rows[4] = {batch, oc, w->out[0],
                        lower_binary(l, LOOP_OP_CEILDIVSI, w->out[1],
                                     lower_index(l, LOWER_F32_LANES))};
  lower_parallel(l, 4, rows, unpad_body, &t);
  return t.y;
}
