/*
** conv_tiled.c - f32 2-D convolutions (ResNet's and most CNNs' layers,
** strided and grouped ones included) as a product through the tiles
** (tiles.c), with no im2col buffer. At stride 1:
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
** A layer of few outputs and many channels (ResNet's 7x7 with 512) would
** waste the padding columns and the last panel's lanes: there the product
** is computed transposed, rows the OH * OW outputs themselves (each
** reading its input element by a broadcast) and columns 32 output
** channels (16 where the target's registers hold one vector of columns
** a tile: lower_tile_vectors) of the weights packed the other way, the
** result then copied into Y element by element (choose_swapped decides).
** Its tiles' rows divide OW where one of lower_tile_rows's does (8, 7 or
** 6 with AVX-512: 7 at ResNet's 7x7, 14x14 and 28x28), so that a
** tile's outputs lie in one output row: its broadcasts read one
** address plus constant offsets, which LLVM folds into the loads, where
** outputs apart held a register each and spilled.
**
** Elsewhere a tile's rows are 6, 7 or 8, whichever computes the fewest
** rows past the product's (8 for 64 to 512 channels, 6 leaving 4 of 516
** idle at 512).
**
** A stride (sh, sw) keeps that shape by splitting X' into sh * sw phase
** planes, plane (py, px) holding the padded pixels (i * sh + py,
** j * sw + px) at [i, j]: the input of output (oh, ow) under kernel tap
** (a, b) = (kh * dh, kw * dw) is then pixel (oh + a / sh, ow + b / sw) of
** plane (a % sh, b % sw), so consecutive outputs read consecutive floats
** of one plane again, each plane's rows Wq = ceil(Wp / sw) long.
**
** The wide output then goes to Y row by row, dropping the padding
** columns; the bias is added in that copy. The copy and the padded input
** cost O(input + output) against the O(OC * C * KH * KW * H * W) of the
** product, which is little unless the reduction is short: a 1x1
** convolution without padding (MobileNet's expansions and projections,
** 16 to 96 channels deep) is therefore the product of W and X, [OC, C]
** by [C, H * W], the tiles writing Y in place (masked at the end) and
** adding the bias themselves. Where each panel of X then serves at
** least PACK_MIN_ROW_TILES tiles of rows, X is packed first by panels of
** a tile's columns (pack.c), an O(C * H * W) copy: read where it lies,
** each step of a tile's reduction is a row of X further, C rows in
** flight at once, more streams than the prefetchers follow. With a stride
** (ResNet's downsampling) it reads the pixels it needs, copied first into
** a buffer of that shape, a quarter of X at stride 2, instead of phase
** planes that zero and copy all of X and a wide result to copy again. On
** a small image of many channels in (MobileNetV2's 7x7 and 14x14
** projections) it takes the transposed product when the lanes it saves
** outweigh the copy into Y, X read where it lies if a tile's rows are
** one output row's, else packed as the product's rows first.
**
** Grouped (RegNet's and ResNeXt's 3x3 layers), each group is the product
** of its OC / group rows of W, [OC / group, C / group * KH * KW] as W
** holds them, and its own C / group channels of X'. A tile's rows divide
** the group's outputs (lower_tile_rows_dividing), so that every tile lies
** in one group: its B reads X' from the group's first channel, found
** from its first row once a tile. W is packed as it is, and all groups'
** tiles go in the one parallel loop (the product's M is OC).
*/
#include "transforms/graph_to_loop/tiles.h"

#include <inttypes.h>

#include "gilt/remarks.h"
#include "transforms/graph_to_loop/indexing.h"

typedef struct TiledConv {
  LowerWindow *w;
  bool direct; /* 1x1, no padding: X and Y are B and C themselves */
  /* The product transposed: rows the OH * OW outputs, columns the output
  ** channels (for layers of few outputs and many channels). */
  bool swapped;
  LowerEpilogue epilogue;
  GiltValue *x, *xp, *panels, *wide, *y, *bias;
  /* X packed (choose_pack_x): as B where direct and not swapped; as A,
  ** [ceil(OH * OW / rows), C, rows], where direct and swapped with a
  ** tile's rows not in one output row (whose broadcasts would each need
  ** an address of their own, C rows of X apart). */
  bool pack_x;
  bool copy_panels;    /* the tiles keep X's panels as they read it (choose_copy_panels) */
  GiltValue *x_panels; /* the packing, in batch_body */
  /* Grouped: each group's output channels (NULL for one group). A
  ** tile's rows lie in one group (its rows divide the group's outputs),
  ** whose `channels` input channels its B reads. */
  GiltValue *group_out;
  GiltValue *n;     /* the batch index of the nest */
  GiltValue *pitch; /* Wq, a plane's row */
  GiltValue *channels, *kernel_h, *kernel_w; /* the reduction's */
  size_t rows;    /* a tile's rows (lower_tile_rows) */
  size_t vectors; /* and its columns, in vectors (lower_tile_vectors) */
  /* Swapped, and the tile's rows divide OW: a tile's outputs lie in one
  ** output row. */
  bool row_aligned;
  LowerLanes v;
} TiledConv;

/* Splits padded coordinate `at` along an axis of stride s into its phase
** and its position in the phase's plane. */
static void split_by(Lower *l, int64_t s, GiltValue *at, GiltValue **phase,
                     GiltValue **pos)
{
  *phase = s == 1 ? lower_index(l, 0) : ix_rem(l, at, lower_index(l, s));
  *pos = s == 1 ? at : ix_div(l, at, lower_index(l, s));
}

static void split(Lower *l, const TiledConv *t, size_t d, GiltValue *at,
                  GiltValue **phase, GiltValue **pos)
{
  split_by(l, t->w->strides[d], at, phase, pos);
}

/* The plane of phases (py, px). */
static GiltValue *plane(Lower *l, const TiledConv *t, GiltValue *py,
                        GiltValue *px)
{
  return ix_add(l, ix_mul(l, py, lower_index(l, t->w->strides[1])), px);
}

/* ---- the padded input, rows end to end ----------------------------------- */

/* The product's result: wide rows of `wide_len` per channel, or,
** transposed, the channels of each output. */
static void alloc_wide(Lower *l, TiledConv *t, GiltValue *wide_len)
{
  GiltValue *batch = lower_dim(l, t->x, 0), *oc = lower_dim(l, t->y, 1);
  GiltValue *wide_dims[3] = {
      batch, t->swapped ? ix_mul(l, t->w->out[0], t->w->out[1]) : oc,
      t->swapped ? oc : wide_len};
  int64_t wide_shape[3] = {GILT_DYNAMIC, GILT_DYNAMIC, GILT_DYNAMIC};
  t->wide = lower_alloc(l, gilt_memref_type_get(l->ctx, 3, wide_shape,
                                                t->v.elem, NULL, NULL),
                        wide_dims);
}

/* X' as [N, planes, C, length]: zeros, the input at its padding offsets
** in its phase's plane; and the wide output it gives. The tiles read up
** to the last panel's end plus the kernel's reach (rows below, and a
** row's worth for the reach along it); a plane holds the whole padded
** input too. */
static void pad_input(Lower *l, TiledConv *t)
{
  LowerWindow *w = t->w;
  GiltValue *sh = lower_index(l, w->strides[0]);
  GiltValue *sw = lower_index(l, w->strides[1]);
  t->pitch = lower_binary(l, LOOP_OP_CEILDIVSI, w->extent[1], sw);
  GiltValue *plane_rows = lower_binary(l, LOOP_OP_CEILDIVSI, w->extent[0], sh);
  GiltValue *nr = lower_index(l, (int64_t)t->vectors * LOWER_F32_LANES);
  GiltValue *wide_len = ix_mul(
      l,
      lower_binary(l, LOOP_OP_CEILDIVSI, ix_mul(l, w->out[0], t->pitch), nr),
      nr);
  GiltValue *reach = ix_mul(
      l, lower_index(l, (w->ek[0] - 1) / w->strides[0] + 1), t->pitch);
  GiltValue *read = ix_add(l, wide_len, reach);
  GiltValue *length = ix_max(l, read, ix_mul(l, plane_rows, t->pitch));
  LowerPlanes planes = {t->x, NULL, {w->begin[0], w->begin[1]},
                        {w->strides[0], w->strides[1]}, t->pitch};
  lower_pad_planes(l, &planes, length);
  t->xp = planes.planes;
  alloc_wide(l, t, wide_len);
}

/* OH * OW when static, else GILT_DYNAMIC. */
static int64_t static_outputs(const TiledConv *t)
{
  GiltType *yt = gilt_value_get_type(t->y);
  int64_t oh = yt->shaped.shape[2], ow = yt->shaped.shape[3];
  return oh == GILT_DYNAMIC || ow == GILT_DYNAMIC ? GILT_DYNAMIC : oh * ow;
}

/* The transposed product's tile rows (lower_output_rows). */
static size_t swapped_rows(const Lower *l, const TiledConv *t,
                           bool *aligned)
{
  return lower_output_rows(l, gilt_value_get_type(t->y)->shaped.shape[3],
                           static_outputs(t), aligned);
}

/* Whether the transposed product wastes fewer lanes: rows of outputs
** (swapped_rows) and columns of a tile's channels, against columns of
** as many wide positions (whose rows run past OW into any padding; a
** 1x1 layer's do not). Needs static sizes; a clear gain, for the
** transposed result goes to Y element by element. */
static bool choose_swapped(const Lower *l, const TiledConv *t,
                           GiltType *wt)
{
  GiltType *yt = gilt_value_get_type(t->y);
  int64_t oh = yt->shaped.shape[2], ow = yt->shaped.shape[3];
  int64_t oc = wt->shaped.shape[0];
  if (oh == GILT_DYNAMIC || ow == GILT_DYNAMIC || oc == GILT_DYNAMIC ||
      oh * ow == 0 || oc == 0)
    return false;
  int64_t pitch =
      t->direct ? ow : ow + (t->w->ek[1] - 1) / t->w->strides[1];
  double outputs = (double)(oh * ow);
  int64_t cols = (int64_t)t->vectors * LOWER_F32_LANES;
  double wide = outputs / (double)((oh * pitch + cols - 1) / cols * cols);
  bool in_row; /* not needed: where false, choose_pack_x packs X */
  int64_t mr = (int64_t)swapped_rows(l, t, &in_row);
  double swapped = outputs / (double)((oh * ow + mr - 1) / mr * mr) *
                   (double)oc / (double)((oc + cols - 1) / cols * cols);
  if (!t->direct)
    return swapped > 1.05 * wide;
  /* A 1x1 layer gives up storing in place, with its epilogue, for a copy
  ** of about 2 cycles an element, 3 with a residual to read: the
  ** lane-multiply-adds it saves per output, C (1/wide - 1/swapped), must
  ** exceed what two FMA units do in that time, 64 or 96. So MobileNetV2's
  ** projections to 7x7 and 14x14 swap, ResNet's residual downsampling (C
  ** 256 at 7x7: 78) does not. Where its tiles' rows do not share an
  ** address (AVX2's 5 rows at 7x7), X is packed first (choose_pack_x):
  ** read where it lies, SqueezeNet's 13x13 lost 5%, and RegNetY's 440
  ** channels at 7x7 gained nothing over the unswapped product, each tile
  ** reading C lines of X for 5 floats of each. */
  int64_t c = wt->shaped.shape[1];
  double copy = t->epilogue.residual ? 96.0 : 64.0;
  return c != GILT_DYNAMIC && (double)c * (1.0 / wide - 1.0 / swapped) > copy;
}

/* A direct layer packs X (above) where every panel serves this many
** tiles of rows: on a Zen 3, SqueezeNet's classifier (512 channels into
** 1000 at 13x13, 200 tiles of rows) took 4.0 ms reading X where it lies
** and 2.1 packed, its expansions of 16 and 32 channels into 64 and 128
** (16 and 32 tiles) 20 to 30% less; MobileNetV2's projections of 96 and
** 144 channels into 24 (4 tiles of 6 rows) took 25 to 40% more packed,
** the copy as long as their product, and RegNetY's 32 channels into 48
** at 112x112 (8 tiles) 10% more: 0.65 ms against 0.58 in the model. */
#define PACK_MIN_ROW_TILES 9

/* Whether a direct product packs X: unswapped, with OC static and tiled
** into at least PACK_MIN_ROW_TILES tiles of t->rows; swapped, where a
** tile's rows do not lie in one output row. */
static bool choose_pack_x(const TiledConv *t, GiltType *wt)
{
  int64_t oc = wt->shaped.shape[0];
  if (!t->direct)
    return false;
  if (t->swapped)
    return !t->row_aligned;
  return oc != GILT_DYNAMIC &&
         (oc + (int64_t)t->rows - 1) / (int64_t)t->rows >= PACK_MIN_ROW_TILES;
}

/* An L1 data cache as Zen's and Intel's cores have it: 64 sets of 64-byte
** lines, 8 ways. */
#define L1_SETS 64
#define L1_WAYS 8

static int64_t gcd(int64_t a, int64_t b)
{
  while (b) {
    int64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/* Whether the direct product, X read where it lies, has the tiles copy
** each panel of X first (tiles.c): where X's rows, H * W floats apart,
** fall in so few sets of L1 (four at most) that a panel's C rows fill
** their ways, with Y's rows, as far apart, in the same sets. At 112x112
** (50176 bytes, 784 lines: every fourth row in the same sets)
** MobileNetV2's 32-into-16 projection took 0.30 ms in the model read in
** place and 0.22 copied. At 56x56 (196 lines: rows in 16 sets) its 96-
** and 144-channel projections, 6 and 9 rows a set, took 5 to 8% more
** copied: their longer reductions hide the reads from L2 that the
** copy's stores cost more than. SqueezeNet's 55x55 (rows not whole
** lines) gained nothing. */
static bool choose_copy_panels(const TiledConv *t, GiltType *wt)
{
  GiltType *yt = gilt_value_get_type(t->y);
  int64_t h = yt->shaped.shape[2], w = yt->shaped.shape[3];
  int64_t c = wt->shaped.shape[1];
  if (!t->direct || t->swapped || t->pack_x || h == GILT_DYNAMIC ||
      w == GILT_DYNAMIC || c == GILT_DYNAMIC || (h * w * 4) % 64)
    return false;
  int64_t hw = h * w;
  int64_t sets = L1_SETS / gcd(hw * 4 / 64, L1_SETS);
  return sets <= 4 && c / sets >= L1_WAYS;
}

/* ---- the tiles' callbacks ---------------------------------------------- */

/* The input channel of reduction step at->red[0] for the tile: the
** first of its group's plus the step, the step itself with one group. */
static GiltValue *input_channel(Lower *l, const TiledConv *t,
                                const LowerTileAt *at)
{
  if (!t->group_out)
    return at->red[0];
  GiltValue *group = ix_div(l, at->m0, t->group_out);
  return ix_add(l, ix_mul(l, group, t->channels), at->red[0]);
}

/* The reduction's flat index c * KH * KW + kh * KW + kw. */
static GiltValue *flat_k(Lower *l, const TiledConv *t, GiltValue *const *red)
{
  GiltValue *k = ix_add(l, ix_mul(l, red[0], t->kernel_h), red[1]);
  return ix_add(l, ix_mul(l, k, t->kernel_w), red[2]);
}

/* The index of input element (c, position + tap) in X', the tap that of
** the reduction's (kh, kw): in its phase plane, shifted by its rows and
** columns there. */
static void input_index(Lower *l, const TiledConv *t, const LowerTileAt *at,
                        GiltValue *position, GiltValue **idx)
{
  GiltValue *py, *i, *px, *j;
  split(l, t, 0, ix_mul(l, at->red[1], lower_index(l, t->w->dilations[0])),
        &py, &i);
  split(l, t, 1, ix_mul(l, at->red[2], lower_index(l, t->w->dilations[1])),
        &px, &j);
  GiltValue *shift = ix_add(l, ix_mul(l, i, t->pitch), j);
  idx[0] = t->n;
  idx[1] = plane(l, t, py, px);
  idx[2] = input_channel(l, t, at);
  idx[3] = ix_add(l, position, shift);
}

/* The weights' panel element or vector at the reduction's flat index. */
static GiltValue *weight(Lower *l, const TiledConv *t, GiltValue *block,
                         const LowerTileAt *at, int64_t lane, bool vector)
{
  GiltValue *idx[3] = {block, flat_k(l, t, at->red), lower_index(l, lane)};
  return vector ? lower_lanes_load(l, &t->v, NULL, t->panels, idx)
                : lower_load(l, t->panels, idx);
}

static GiltValue *tile_load_a(Lower *l, const LowerTileAt *at, size_t i,
                              void *user)
{
  TiledConv *t = user;
  if (!t->swapped)
    return weight(l, t, at->mb, at, (int64_t)i, false);
  if (t->x_panels) /* 1x1: the reduction's first loop is the channel */
    return lower_packed_row(l, t->x_panels, at, i);
  /* Output (oh, ow) of row p reads wide position oh * Wq + ow. */
  GiltValue *ow_count = t->w->out[1];
  GiltValue *p = t->row_aligned ? at->m0 : at->rows[i];
  GiltValue *row_start = ix_mul(l, ix_div(l, p, ow_count), t->pitch);
  GiltValue *wide = ix_add(l, row_start, ix_rem(l, p, ow_count));
  GiltValue *idx[4];
  input_index(l, t, at, wide, idx);
  /* A tile within one output row reads consecutive floats: one address
  ** and constant offsets (added last, so that LLVM folds them into the
  ** loads), where rows apart would hold a register each. */
  if (t->row_aligned)
    idx[3] = ix_add(l, idx[3], lower_index(l, (int64_t)i));
  return lower_load(l, t->xp, idx);
}

static GiltValue *tile_load_b(Lower *l, const LowerTileAt *at, size_t v,
                              void *user)
{
  TiledConv *t = user;
  if (t->swapped)
    return weight(l, t, at->nb, at, (int64_t)v * LOWER_F32_LANES, true);
  if (t->x_panels) { /* zeros past H * W: no mask */
    GiltValue *channel = input_channel(l, t, at);
    GiltValue *idx[3] = {at->nb, channel,
                         lower_index(l, (int64_t)v * LOWER_F32_LANES)};
    return lower_lanes_load(l, &t->v, NULL, t->x_panels, idx);
  }
  GiltValue *idx[4];
  input_index(l, t, at, at->cols[v], idx);
  /* The padded input has room past the last panel; X itself does not. */
  return lower_lanes_load(l, &t->v, t->direct ? at->masks[v] : NULL, t->xp,
                          idx);
}

static void tile_store(Lower *l, const LowerTileAt *at, size_t i, size_t v,
                       GiltValue *sums, void *user)
{
  TiledConv *t = user;
  GiltValue *idx[3] = {t->n, at->rows[i], at->cols[v]};
  bool in_place = t->direct && !t->swapped;
  if (in_place && t->bias)
    sums = lower_lanes_add(
        l, sums,
        lower_lanes_splat(l, &t->v, lower_load(l, t->bias, &at->rows[i])));
  if (in_place)
    sums = lower_epilogue_apply_at(l, &t->epilogue, &t->v, at->masks[v], sums,
                                   idx);
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
  sums = lower_epilogue_apply_at(l, &t->epilogue, &t->v, mask, sums, to);
  lower_lanes_store(l, &t->v, mask, sums, t->y, to);
}

/* The transposed product [N, OH * OW, OC] into Y, one element at a time. */
static void unswap_body(Lower *l, GiltValue *const *ivs, void *user)
{
  TiledConv *t = user;
  GiltValue *p = ix_add(l, ix_mul(l, ivs[2], t->w->out[1]), ivs[3]);
  GiltValue *from[3] = {ivs[0], p, ivs[1]};
  GiltValue *v = lower_load(l, t->wide, from);
  if (t->bias)
    v = lower_plus(l, v, lower_load(l, t->bias, &ivs[1]));
  v = lower_epilogue_apply_at(l, &t->epilogue, NULL, NULL, v, ivs);
  lower_store(l, v, t->y, ivs);
}

/* ---- 1x1 convolutions without padding -------------------------------------- */

static void subsample_body(Lower *l, GiltValue *const *ivs, void *user)
{
  TiledConv *t = user;
  /* One op per statement: the order of an initializer's elements is
  ** unspecified, and gcc and clang would emit them differently. */
  GiltValue *row = ix_mul(l, ivs[2], lower_index(l, t->w->strides[0]));
  GiltValue *col = ix_mul(l, ivs[3], lower_index(l, t->w->strides[1]));
  GiltValue *from[4] = {ivs[0], ivs[1], row, col};
  GiltValue *zero = lower_index(l, 0);
  GiltValue *at = ix_add(l, ix_mul(l, ivs[2], t->w->out[1]), ivs[3]);
  GiltValue *to[4] = {ivs[0], zero, ivs[1], at};
  lower_store(l, lower_load(l, t->x, from), t->xp, to);
}

/* B and C of a 1x1 convolution: X as [N, 1, C, H * W] and Y as [N, OC,
** OH * OW], in place; with a stride, the pixels it reads copied first
** into a buffer of that shape (a quarter of X at stride 2, where phase
** planes would copy and zero all of it). */
static void direct_operands(Lower *l, TiledConv *t, GiltValue *batch,
                            GiltValue *oc)
{
  LowerWindow *w = t->w;
  GiltValue *hw = ix_mul(l, w->out[0], w->out[1]);
  int64_t dyn[4] = {GILT_DYNAMIC, 1, GILT_DYNAMIC, GILT_DYNAMIC};
  GiltValue *xs[4] = {batch, NULL, lower_dim(l, t->x, 1), hw};
  t->pitch = w->out[1];
  if (w->strides[0] == 1 && w->strides[1] == 1) {
    t->xp = lower_reshaped(l, t->x, 4, dyn, xs);
  } else {
    t->xp = lower_alloc(
        l, gilt_memref_type_get(l->ctx, 4, dyn, t->v.elem, NULL, NULL), xs);
    GiltValue *outs[4] = {batch, xs[2], w->out[0], w->out[1]};
    lower_parallel(l, 4, outs, subsample_body, t);
  }
  if (t->swapped) {
    alloc_wide(l, t, NULL);
    return;
  }
  int64_t ydyn[3] = {GILT_DYNAMIC, GILT_DYNAMIC, GILT_DYNAMIC};
  GiltValue *ys[3] = {batch, oc, hw};
  t->wide = lower_reshaped(l, t->y, 3, ydyn, ys);
  /* The tiles store to Y seen as [N, OC, H * W]: Z is read so too. */
  if (t->epilogue.residual)
    t->epilogue.residual =
        lower_reshaped(l, t->epilogue.residual, 3, ydyn, ys);
}

/* ---- the convolution ------------------------------------------------------ */

/* The layout the product computes in, for --explain=layout (the packing
** and the padded planes remark for themselves). */
static void remark_layout(Lower *l, const TiledConv *t)
{
  bool strided = t->w->strides[0] != 1 || t->w->strides[1] != 1;
  if (t->swapped)
    gilt_remark(l->op, "layout", "channels-last", 0, NULL,
                "computes channels last: the product transposed, [N, OH * "
                "OW, OC], %d output channels a tile, where NCHW's rows of "
                "outputs would leave more lanes idle; then copied into Y's "
                "NCHW element by element",
                (int)t->vectors * LOWER_F32_LANES);
  else if (t->direct && strided)
    gilt_remark(l->op, "layout", "nchw-in-place", 0, NULL,
                "computes NCHW in place: W [OC, C] times X as [C, OH * OW] "
                "(the pixels the strides read, copied first%s), stored into "
                "Y as [OC, OH * OW]",
                t->pack_x ? ", then packed" : "");
  else if (t->direct)
    gilt_remark(l->op, "layout", "nchw-in-place", 0, NULL,
                "computes NCHW in place: W [OC, C] times X as [C, H * W] "
                "%s, stored into Y as [OC, OH * OW]",
                t->pack_x ? "packed" : "where it lies");
  else
    gilt_remark(l->op, "layout", "nchw-wide-rows", 0, NULL,
                "computes NCHW by wide rows: [N, OC, OH * pitch], each row "
                "running on into the padding, then copied into Y without "
                "its padding columns");
}

/* How a grouped layer's tiles keep to their groups, for --explain=tiling. */
static void remark_groups(Lower *l, int64_t group, int64_t outputs,
                          size_t rows)
{
  GiltRemarkArg args[3] = {{"groups", NULL, group},
                           {"group_outputs", NULL, outputs},
                           {"rows", NULL, (int64_t)rows}};
  gilt_remark(l->op, "tiling", "grouped", 3, args,
              "grouped: %" PRId64 " groups of %" PRId64 " output channels, "
              "tiles of %zu rows (a divisor of them), so that each tile "
              "lies in one group and reads only its input channels",
              group, outputs, rows);
}

static void batch_body(Lower *l, GiltValue *const *ivs, void *user)
{
  TiledConv *t = user;
  t->n = ivs[0];
  GiltValue *oc = lower_dim(l, t->y, 1);
  if (t->pack_x) { /* X[n] as [C, H * W], by panels of B or of A */
    GiltValue *prefix[2] = {t->n, lower_index(l, 0)};
    GiltValue *channels = lower_dim(l, t->xp, 2); /* one op at a time: */
    GiltValue *pixels = lower_dim(l, t->xp, 3);   /* a fixed order */
    if (t->swapped) {
      LowerMatrix a = {t->xp, prefix, true, pixels, channels};
      t->x_panels = lower_pack_rows(l, &a, t->rows);
    } else {
      LowerMatrix b = {t->xp, prefix, false, channels, pixels};
      t->x_panels = lower_pack_cols(l, &b, t->vectors * LOWER_F32_LANES);
    }
  }
  GiltValue *positions = t->swapped ? ix_mul(l, t->w->out[0], t->w->out[1])
                                    : ix_mul(l, t->w->out[0], t->pitch);
  LowerTiles tiles = {
      .algorithm = t->swapped  ? t->direct ? "conv-1x1-transposed"
                                            : "conv-transposed-product"
                   : t->direct ? "conv-1x1-direct"
                               : "conv-phase-planes",
      .m = t->swapped ? positions : oc,
      .n = t->swapped ? oc : positions,
      .rows = t->rows,
      .vectors = t->vectors,
      .copy_panels = t->copy_panels,
      .b_panels = t->swapped ? t->panels : t->x_panels,
      .num_reductions = 3,
      .reductions = {t->channels, t->kernel_h, t->kernel_w},
      .load_a = tile_load_a,
      .load_b = tile_load_b,
      .store = tile_store,
      .user = t,
  };
  lower_tiles(l, &tiles);
}

/* The outputs of each of `group` groups when static, else GILT_DYNAMIC. */
static int64_t group_outputs(GiltValue *weights, int64_t group)
{
  int64_t oc = gilt_value_get_type(weights)->shaped.shape[0];
  return oc == GILT_DYNAMIC || group < 1 ? GILT_DYNAMIC : oc / group;
}

bool lower_conv_tiles_apply(Lower *l, const LowerWindow *w, GiltValue *weights,
                            int64_t group)
{
  if (w->n != 2 || !lower_vectorizes(l, lower_result_elem(l, 0)))
    return false;
  if (group == 1)
    return true;
  /* Tiles of one row would be the generic nest's work with more steps;
  ** one output per group and one input is depthwise's. */
  int64_t outputs = group_outputs(weights, group);
  return outputs != GILT_DYNAMIC && lower_tile_rows_dividing(l, outputs) > 1;
}

GiltValue *lower_conv_tiles(Lower *l, LowerWindow *w, GiltValue *x,
                            GiltValue *weights, GiltValue *bias, int64_t group)
{
  TiledConv t = {.w = w, .x = x, .bias = bias};
  lower_epilogue_read(l, &t.epilogue);
  lower_lanes_init(l, &t.v, gilt_float_type_get(l->ctx, GILT_F32));
  GiltType *wt = gilt_value_get_type(weights);
  t.channels = lower_dim(l, weights, 1);
  t.kernel_h = lower_index(l, wt->shaped.shape[2]);
  t.kernel_w = lower_index(l, wt->shaped.shape[3]);
  GiltValue *batch = lower_dim(l, x, 0), *oc = lower_dim(l, weights, 0);
  GiltValue *ydims[4] = {batch, oc, w->out[0], w->out[1]};
  t.y = lower_alloc_result(l, 0, ydims);
  t.direct = wt->shaped.shape[2] == 1 && wt->shaped.shape[3] == 1 &&
             !w->same && !w->pads[0] && !w->pads[1] && !w->pads[2] &&
             !w->pads[3];
  t.vectors = lower_tile_vectors(l);
  if (group != 1) { /* rows of one group a tile, never swapped */
    int64_t outputs = group_outputs(weights, group);
    t.group_out = lower_index(l, outputs);
    t.rows = lower_tile_rows_dividing(l, outputs);
    remark_groups(l, group, outputs, t.rows);
  } else {
    t.swapped = choose_swapped(l, &t, wt);
    t.rows = t.swapped ? swapped_rows(l, &t, &t.row_aligned)
                        : lower_tile_rows(l, wt->shaped.shape[0]);
  }
  t.pack_x = choose_pack_x(&t, wt);
  t.copy_panels = choose_copy_panels(&t, wt);
  remark_layout(l, &t);
  if (t.direct)
    direct_operands(l, &t, batch, oc);
  else
    pad_input(l, &t);
  GiltValue *k =
      ix_mul(l, t.channels, lower_index(l, wt->shaped.shape[2] * wt->shaped.shape[3]));
  GiltValue *flat_shape[2] = {oc, k};
  int64_t flat_static[2] = {wt->shaped.shape[0],
                            wt->shaped.shape[1] == GILT_DYNAMIC
                                ? GILT_DYNAMIC
                                : wt->shaped.shape[1] * wt->shaped.shape[2] *
                                      wt->shaped.shape[3]};
  GiltValue *flat = lower_reshaped(l, weights, 2, flat_static, flat_shape);
  if (t.swapped) { /* B = W^T [K, OC], by panels of a tile's channels */
    LowerMatrix b = {flat, NULL, true, k, oc};
    t.panels = lower_pack_cols(l, &b, t.vectors * LOWER_F32_LANES);
  } else {
    LowerMatrix a = {flat, NULL, false, oc, k};
    t.panels = lower_pack_rows(l, &a, t.rows);
  }
  lower_nest(l, 1, &batch, batch_body, &t);
  if (t.swapped) {
    lower_parallel(l, 4, ydims, unswap_body, &t);
    return t.y;
  }
  if (t.direct)
    return t.y;
  GiltValue *rows[4] = {batch, oc, w->out[0],
                        lower_binary(l, LOOP_OP_CEILDIVSI, w->out[1],
                                     lower_index(l, LOWER_F32_LANES))};
  lower_parallel(l, 4, rows, unpad_body, &t);
  return t.y;
}
