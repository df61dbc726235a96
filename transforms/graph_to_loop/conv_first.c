/*
** conv_first.c - f32 2-D convolutions of few input channels (a network's
** first layer: 3 colour channels into 32 or 64, 3x3 or 7x7, often of
** stride 2) by a kernel of their own. Their reduction is only C * KH * KW
** = 27 to 147 long, so the tiles (tiles.c) would spend their time
** loading and storing accumulators and copying the wide result into Y;
** here each input vector serves 8 output channels and each broadcast
** weight 2 vectors of output columns (with AVX-512's registers; 4 and 1
** with AVX2's, which hold a quarter as many floats: block_shape), and
** the sums go to Y as they are.
**
**   X' = the padded input by phase planes (conv_tiled.c's
**        lower_pad_planes), so that the 16 outputs of a vector read 16
**        consecutive floats of one plane under any tap, whatever the
**        stride
**   parallel (n, oc block of 8 or 4 channels, oh):
**     blocks of 32 (or 16) output columns, then single vectors of 16 to
**     the end:
**       acc[r][v] = splat(B[oc + r]) or 0
**       for c < C:
**         for each filter row kh (a loop beyond 3x3), each tap kw unrolled:
**           x[v] = X'[n, plane(kh, kw), c, row(oh, kh) + ow0 + 16v + kw / sw]
**           acc[r][v] = fma(splat(W[oc + r, c, kh, kw]), x[v], acc[r][v])
**       Y[n, oc + r, oh, ow0 + 16v] = epilogue(acc[r][v]), masked past OW
**
** Every load is a whole vector: the planes have room past each row and
** after the last, and the lanes past OW are dropped by the store's mask.
** Each output sums bias, then channels and taps in order, one fused
** multiply-add each, and gets the fused epilogue (epilogue.c) as it is
** stored. Not here: channels not a multiple of the block's out or more
** than 4 in, filters beyond 7x7, rows shorter than a vector (the tiles
** take them).
*/
#include "transforms/graph_to_loop/tiles.h"

#include "gilt/remarks.h"
#include "transforms/graph_to_loop/indexing.h"

/* Input channels at most, and taps (7x7). */
#define MAX_CHANNELS 4
#define MAX_TAPS 49
/* Filters of up to this many taps (3x3) unroll their rows too. */
#define UNROLLED_TAPS 9
/* A block at most: output channels (each input vector serves them all)
** by vectors of output columns (each broadcast weight serves them all),
** 16 accumulators. */
#define BLOCK_CHANNELS 8
#define BLOCK_VECTORS 2
#define BLOCK_SUMS (BLOCK_CHANNELS * BLOCK_VECTORS)

typedef struct First {
  LowerWindow *w;
  LowerLanes v;
  LowerEpilogue epilogue;
  GiltValue *x, *planes, *pitch, *weights, *bias, *y;
  int64_t in_channels, kh, kw;
  /* The block being computed: batch n, channels from m0, output row oh,
  ** `vectors` vectors of columns from ow0 (masked at OW when `masked`);
  ** row0 is X' position oh * pitch + ow0 (in plane row oh). */
  GiltValue *n, *m0, *oh, *ow0, *row0;
  GiltValue *c; /* the input channel being summed */
  GiltValue *m[BLOCK_CHANNELS];
  /* The block's shape (block_shape): channels, and vectors of a full
  ** block; `vectors` is the one being emitted's. */
  size_t channels, wide;
  size_t vectors;
  bool masked;
  GiltValue *full; /* the blocks of `wide` vectors in a row */
} First;

/* ---- one block of outputs ------------------------------------------------- */

/* The vectors of the block's columns under tap (a, b) of channel c, a
** given by its plane row py and plane rows down `down`. */
static void tap_inputs(Lower *l, First *f, GiltValue *c, GiltValue *py,
                       GiltValue *down, int64_t b, GiltValue **x)
{
  const LowerWindow *w = f->w;
  int64_t tb = b * w->dilations[1], sw = w->strides[1];
  GiltValue *rows = ix_mul(l, down, f->pitch);
  GiltValue *shift = ix_add(l, rows, lower_index(l, tb / sw));
  GiltValue *at = ix_add(l, f->row0, shift);
  GiltValue *first = ix_mul(l, py, lower_index(l, sw));
  GiltValue *plane = ix_add(l, first, lower_index(l, tb % sw));
  for (size_t v = 0; v < f->vectors; v++) {
    GiltValue *col =
        ix_add(l, at, lower_index(l, (int64_t)v * LOWER_F32_LANES));
    GiltValue *idx[4] = {f->n, plane, c, col};
    x[v] = lower_lanes_load(l, &f->v, NULL, f->planes, idx);
  }
}

/* Filter row a of input channel f->c, its taps b unrolled: acc += W[m,
** c, a, b] * X'. Unrolled rows give a constant a, and every tap's plane
** and offsets are constants. */
static void row_taps(Lower *l, First *f, GiltValue *a, GiltValue **acc)
{
  const LowerWindow *w = f->w;
  GiltValue *ta = ix_mul(l, a, lower_index(l, w->dilations[0]));
  GiltValue *sh = lower_index(l, w->strides[0]);
  GiltValue *py = ix_rem(l, ta, sh), *down = ix_div(l, ta, sh);
  /* W's row c * KH + a */
  GiltValue *i = ix_add(l, ix_mul(l, f->c, lower_index(l, f->kh)), a);
  for (int64_t b = 0; b < f->kw; b++) {
    GiltValue *x[BLOCK_VECTORS];
    tap_inputs(l, f, f->c, py, down, b, x);
    for (size_t r = 0; r < f->channels; r++) {
      GiltValue *idx[3] = {f->m[r], i, lower_index(l, b)};
      GiltValue *wv =
          lower_lanes_splat(l, &f->v, lower_load(l, f->weights, idx));
      for (size_t v = 0; v < f->vectors; v++) {
        size_t k = r * f->vectors + v;
        acc[k] = lower_lanes_fma(l, wv, x[v], acc[k]);
      }
    }
  }
}

static void row_step(Lower *l, GiltValue *a, GiltValue *const *acc,
                     GiltValue **next, void *user)
{
  First *f = user;
  for (size_t k = 0; k < f->channels * f->vectors; k++)
    next[k] = acc[k];
  row_taps(l, f, a, next);
}

/* Input channel c: a loop over the channels, not unrolled further, so
** that the weights' broadcasts depend on it and stay inside, rather than
** all of them being hoisted out of the column loops into stack slots.
** The filter rows are unrolled up to 3x3, where a loop over them spent
** as many integer operations on dividing its index by the stride as on
** the multiply-adds; a 7x7 filter's rows loop, as its seven taps a row
** pay for that, and 49 taps unrolled were a fifth of ResNet-18's LLVM
** IR (compile time) for a layer of 2.9 ms. */
static void channel_step(Lower *l, GiltValue *c, GiltValue *const *acc,
                         GiltValue **next, void *user)
{
  First *f = user;
  size_t sums = f->channels * f->vectors;
  f->c = c;
  if (f->kh * f->kw > UNROLLED_TAPS) {
    lower_for_upto(l, lower_index(l, f->kh), sums, acc, next, row_step, f);
    return;
  }
  for (size_t k = 0; k < sums; k++)
    next[k] = acc[k];
  for (int64_t a = 0; a < f->kh; a++)
    row_taps(l, f, lower_index(l, a), next);
}

/* The block at f->ow0: its sums, then stored through the epilogue. */
static void block(Lower *l, First *f)
{
  size_t sums = f->channels * f->vectors;
  GiltValue *acc[BLOCK_SUMS];
  for (size_t r = 0; r < f->channels; r++) {
    GiltValue *b = f->bias ? lower_lanes_splat(
                                 l, &f->v, lower_load(l, f->bias, &f->m[r]))
                           : lower_lanes_zero(&f->v);
    for (size_t v = 0; v < f->vectors; v++)
      acc[r * f->vectors + v] = b;
  }
  f->row0 = ix_add(l, ix_mul(l, f->oh, f->pitch), f->ow0);
  lower_for_upto(l, lower_index(l, f->in_channels), sums, acc, acc,
                 channel_step, f);
  for (size_t v = 0; v < f->vectors; v++) {
    GiltValue *ow =
        ix_add(l, f->ow0, lower_index(l, (int64_t)v * LOWER_F32_LANES));
    GiltValue *mask =
        f->masked ? lower_lanes_mask(l, &f->v, ix_sub(l, f->w->out[1], ow))
                  : NULL;
    for (size_t r = 0; r < f->channels; r++) {
      GiltValue *idx[4] = {f->n, f->m[r], f->oh, ow};
      GiltValue *y = lower_epilogue_apply_at(l, &f->epilogue, &f->v, mask,
                                             acc[r * f->vectors + v], idx);
      lower_lanes_store(l, &f->v, mask, y, f->y, idx);
    }
  }
}

/* ---- the columns of a row --------------------------------------------------- */

/* Whole blocks of f->wide vectors. */
static void full_step(Lower *l, GiltValue *iv, GiltValue *const *iter,
                      GiltValue **next, void *user)
{
  (void)iter, (void)next;
  First *f = user;
  f->ow0 = ix_mul(l, iv, lower_index(l, (int64_t)f->wide * LOWER_F32_LANES));
  f->vectors = f->wide;
  f->masked = false;
  block(l, f);
}

/* Single vectors after them, to the row's end. */
static void tail_step(Lower *l, GiltValue *iv, GiltValue *const *iter,
                      GiltValue **next, void *user)
{
  (void)iter, (void)next;
  First *f = user;
  GiltValue *from =
      ix_mul(l, f->full, lower_index(l, (int64_t)f->wide * LOWER_F32_LANES));
  f->ow0 = ix_add(l, from, ix_mul(l, iv, lower_index(l, LOWER_F32_LANES)));
  f->vectors = 1;
  f->masked = true;
  block(l, f);
}

static void row_body(Lower *l, GiltValue *const *ivs, void *user)
{
  First *f = user;
  f->n = ivs[0];
  f->m0 = ix_mul(l, ivs[1], lower_index(l, (int64_t)f->channels));
  for (size_t r = 0; r < f->channels; r++)
    f->m[r] = ix_add(l, f->m0, lower_index(l, (int64_t)r));
  f->oh = ivs[2];
  GiltValue *ow = f->w->out[1];
  GiltValue *width = lower_index(l, (int64_t)f->wide * LOWER_F32_LANES);
  f->full = ix_div(l, ow, width);
  lower_for_upto(l, f->full, 0, NULL, NULL, full_step, f);
  GiltValue *rest = ix_sub(l, ow, ix_mul(l, f->full, width));
  GiltValue *tail = lower_binary(l, LOOP_OP_CEILDIVSI, rest,
                                 lower_index(l, LOWER_F32_LANES));
  lower_for_upto(l, tail, 0, NULL, NULL, tail_step, f);
}

/* ---- the convolution ------------------------------------------------------ */

/* X' by phase planes, long enough for the last row's last vector under
** the last tap: (OH + (ek_h - 1) / sh) rows of pitch, plus a row's
** vectors and the reach along it; and at least the whole padded input. */
static void pad_input(Lower *l, First *f)
{
  const LowerWindow *w = f->w;
  GiltValue *sh = lower_index(l, w->strides[0]);
  GiltValue *sw = lower_index(l, w->strides[1]);
  GiltValue *lanes = lower_index(l, LOWER_F32_LANES);
  f->pitch = lower_binary(l, LOOP_OP_CEILDIVSI, w->extent[1], sw);
  GiltValue *rows = ix_add(
      l, w->out[0], lower_index(l, (w->ek[0] - 1) / w->strides[0]));
  GiltValue *row_end = ix_mul(
      l, lower_binary(l, LOOP_OP_CEILDIVSI, w->out[1], lanes), lanes);
  GiltValue *reach =
      ix_add(l, row_end, lower_index(l, (w->ek[1] - 1) / w->strides[1]));
  GiltValue *read = ix_add(l, ix_mul(l, rows, f->pitch), reach);
  GiltValue *plane_rows =
      lower_binary(l, LOOP_OP_CEILDIVSI, w->extent[0], sh);
  GiltValue *length = ix_max(l, read, ix_mul(l, plane_rows, f->pitch));
  LowerPlanes planes = {f->x, NULL, {w->begin[0], w->begin[1]},
                        {w->strides[0], w->strides[1]}, f->pitch};
  lower_pad_planes(l, &planes, length);
  f->planes = planes.planes;
}

/* The block for the target's registers: 8 output channels by 2 vectors
** where its accumulators fit with the inputs and a broadcast (AVX-512),
** else one vector, and channels halved until they fit (4 with AVX2). */
static void block_shape(const Lower *l, size_t *channels, size_t *vectors)
{
  *channels = BLOCK_CHANNELS;
  *vectors = BLOCK_VECTORS;
  if (!lower_tile_fits(l, *channels, *vectors))
    *vectors = 1;
  while (*channels > 1 && !lower_tile_fits(l, *channels, *vectors))
    *channels /= 2;
}

/* The remarks `--explain=tiling,vectorize` print at the op. */
static void remark(Lower *l, const First *f)
{
  int64_t cols = (int64_t)f->wide * LOWER_F32_LANES;
  GiltRemarkArg tile[3] = {{"algorithm", "conv-few-channels", 0},
                           {"tile_rows", NULL, (int64_t)f->channels},
                           {"tile_cols", NULL, cols}};
  gilt_remark(l->op, "tiling", "conv-few-channels", 3, tile,
              "conv-few-channels: blocks of %d output channels x %d "
              "columns, every tap unrolled, stored to Y in place, parallel "
              "over channel blocks and rows",
              (int)f->channels, (int)cols);
  GiltRemarkArg lanes[1] = {{"lanes", NULL, LOWER_F32_LANES}};
  gilt_remark(l->op, "vectorize", "vectorized", 1, lanes,
              "vectorized: %d f32 lanes of output columns, a broadcast "
              "weight per fused multiply-add", LOWER_F32_LANES);
  gilt_remark(l->op, "layout", "nchw-in-place", 0, NULL,
              "computes NCHW: Y's rows written in place from the padded "
              "input's phase planes; the weights read as they are");
}

bool lower_conv_first_apply(Lower *l, const LowerWindow *w,
                            GiltValue *weights, int64_t group)
{
  GiltType *wt = gilt_value_get_type(weights);
  GiltType *yt = lower_result_type(l, 0);
  const int64_t *k = wt->shaped.shape;
  size_t channels, vectors;
  block_shape(l, &channels, &vectors);
  return w->n == 2 && group == 1 &&
         lower_vectorizes(l, lower_result_elem(l, 0)) &&
         k[0] != GILT_DYNAMIC && k[0] % (int64_t)channels == 0 &&
         k[1] != GILT_DYNAMIC && k[1] <= MAX_CHANNELS &&
         lower_taps_fit(k[2], k[3], MAX_TAPS) &&
         yt->shaped.shape[3] != GILT_DYNAMIC &&
         yt->shaped.shape[3] >= LOWER_F32_LANES;
}

GiltValue *lower_conv_first(Lower *l, LowerWindow *w, GiltValue *x,
                            GiltValue *weights, GiltValue *bias)
{
  First f = {.w = w, .x = x, .bias = bias};
  block_shape(l, &f.channels, &f.wide);
  remark(l, &f);
  lower_lanes_init(l, &f.v, gilt_float_type_get(l->ctx, GILT_F32));
  lower_epilogue_read(l, &f.epilogue);
  GiltType *wt = gilt_value_get_type(weights);
  const int64_t *k = wt->shaped.shape;
  f.in_channels = k[1];
  f.kh = k[2];
  f.kw = k[3];
  /* W as [M, C * KH, KW]: filter row i = c * KH + a. */
  int64_t rows_shape[3] = {k[0], k[1] * k[2], k[3]};
  GiltValue *rows_dims[3];
  rows_dims[0] = lower_dim(l, weights, 0);
  rows_dims[1] = lower_index(l, k[1] * k[2]);
  rows_dims[2] = lower_index(l, k[3]);
  f.weights = lower_reshaped(l, weights, 3, rows_shape, rows_dims);
  GiltValue *batch = lower_dim(l, x, 0), *oc = lower_dim(l, weights, 0);
  GiltValue *ydims[4] = {batch, oc, w->out[0], w->out[1]};
  f.y = lower_alloc_result(l, 0, ydims);
  pad_input(l, &f);
  GiltValue *uppers[3] = {batch,
                          ix_div(l, oc, lower_index(l, (int64_t)f.channels)),
                          w->out[0]};
  lower_parallel(l, 3, uppers, row_body, &f);
  return f.y;
}
