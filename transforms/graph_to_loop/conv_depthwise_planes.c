/*
** conv_depthwise_planes.c - f32 2-D depthwise convolutions of filters
** larger than 3x3 (MnasNet's and EfficientNet's 5x5 layers) from each
** channel's padded phase planes:
**
**   parallel (n, c):
**     P = the channel's padded phase planes (pad_planes.c)
**     w[k] = splat(W[c, 0, kh, kw]) for the KH * KW taps, b = splat(B[c])
**     for each group of R output rows oh0 ... oh0 + R - 1:
**       for each vector of 16 columns from ow0:
**         acc[r] = b; acc[r] = fma(w[k], P[phase of k][(oh0 + r + row of k)
**           * pitch + ow0 + column of k ...], acc[r]) for the taps in order
**         store acc[r] into Y[n, c, oh0 + r, ow0 ...], the epilogue applied
**
** Each channel is first copied, zero-padded and split by the strides into
** phase planes (lower_pad_channel_planes), a few kilobytes that stay in
** the cache for the taps that read them right after; the buffer is the
** chunk's, not the channel's (loop_to_llvm allocates a parallel body's
** private buffers once a chunk). Every tap of every output vector is then
** one unmasked load at a constant offset: no scalar columns at the
** borders, no masks at the rows' ends and, at a stride of 2, no shuffles
** picking every other lane, which the kernel that reads the input where
** it lies (conv_depthwise.c) pays on every tap. With 25 taps that pays
** for the copy: MnasNet's 5x5 layers of 120 channels at 28x28 went from
** 0.19 to 0.11 ms, of 72 channels at 56x56 with a stride of 2 from 0.19
** to 0.13. With 9 it does not: 3x3 layers of 32 channels at 112x112 took
** 10% longer, those of stride 2 up to 40% (the copy's shuffles), so 3x3
** filters stay with conv_depthwise.c.
**
** R rows go together (4 with AVX2's 16 registers, 8 with AVX-512's 32),
** so that R chains of multiply-adds overlap; at a stride of 1 the rows
** share their input rows, each loaded once for all the rows that read it.
** The last group may reach past the output's rows: its extra rows read
** the planes' zeros and are not stored.
**
** Each output sums bias and taps in (kh, kw) order with a fused multiply
** add per tap, and gets the fused epilogue (epilogue.c) as it is stored.
*/
#include "transforms/graph_to_loop/tiles.h"

#include "gilt/remarks.h"
#include "transforms/graph_to_loop/indexing.h"

/* Taps unrolled at most: their splats live in registers. */
#define MAX_TAPS LOWER_DEPTHWISE_MAX_TAPS
/* Filters of more taps than this go through the planes (see above). */
#define MIN_TAPS 9
/* Strides the planes split by, at most. */
#define MAX_STRIDE 4
/* Output rows computed together, at most. */
#define MAX_ROWS 8

typedef struct Depthwise {
  LowerWindow *w;
  LowerLanes v;
  LowerEpilogue epilogue;
  GiltValue *x, *weights, *given_bias, *y; /* given_bias: B or NULL */
  LowerPlanes planes;           /* the channel's, once it is being computed */
  GiltValue *length;            /* of a plane */
  size_t rows;                  /* R, the output rows of a group */
  GiltValue *splat[MAX_TAPS];   /* the channel's taps in every lane */
  GiltValue *bias;              /* B[c] or 0 in every lane */
  int64_t kh, kw;               /* the filter's size */
  GiltValue *n, *c, *oh0;       /* the group of rows being computed */
  /* Whether the stores need masks: a vector reaches past a row's end, or
  ** the last group past the last row (both unknown when dynamic). */
  bool masked;
} Depthwise;

/* ---- one vector of outputs in each row of a group ------------------------- */

/* The outputs (n, c, oh0 + r, ow0 ... ow0 + 15) for r < R, stored. Tap
** (a, b) of row r reads plane row oh0 + r + a * dh / sh of phase row
** a * dh % sh, column ow0 + b * dw / sw of phase column b * dw % sw. The
** plane rows q go in order, each vector loaded once and taken by every
** row that reads it, so each row's taps still come in (a, b) order. */
static void vector_at(Lower *l, Depthwise *d, GiltValue *ow0)
{
  const LowerWindow *w = d->w;
  int64_t sh = w->strides[0], sw = w->strides[1];
  int64_t dh = w->dilations[0], dw = w->dilations[1];
  int64_t reach = (d->kh - 1) * dh / sh;
  GiltValue *acc[MAX_ROWS];
  for (size_t r = 0; r < d->rows; r++)
    acc[r] = d->bias;
  GiltValue *zero = lower_index(l, 0);
  for (int64_t q = 0; q < (int64_t)d->rows + reach; q++) {
    GiltValue *row = ix_add(l, d->oh0, lower_index(l, q));
    GiltValue *row_start = ix_add(l, ix_mul(l, row, d->planes.pitch), ow0);
    GiltValue *loaded[MAX_STRIDE][MAX_TAPS] = {{NULL}};
    for (int64_t a = 0; a < d->kh; a++) {
      int64_t r = q - a * dh / sh, py = a * dh % sh;
      if (r < 0 || r >= (int64_t)d->rows)
        continue;
      for (int64_t b = 0; b < d->kw; b++) {
        if (!loaded[py][b]) {
          int64_t px = b * dw % sw;
          /* One op built per statement: C leaves the order of an
          ** initializer's calls to the compiler. */
          GiltValue *col = lower_index(l, b * dw / sw);
          GiltValue *at = ix_add(l, row_start, col);
          GiltValue *plane = lower_index(l, py * sw + px);
          GiltValue *idx[4] = {zero, plane, zero, at};
          loaded[py][b] =
              lower_lanes_load(l, &d->v, NULL, d->planes.planes, idx);
        }
        acc[r] = lower_lanes_fma(l, d->splat[a * d->kw + b], loaded[py][b],
                                 acc[r]);
      }
    }
  }
  GiltValue *lanes_left = ix_sub(l, w->out[1], ow0);
  for (size_t r = 0; r < d->rows; r++) {
    GiltValue *oh = ix_add(l, d->oh0, lower_index(l, (int64_t)r));
    GiltValue *mask = NULL;
    if (d->masked) { /* no lane of a row past the output's */
      GiltValue *inside = lower_cmp(l, "slt", oh, w->out[0]);
      GiltValue *count = lower_select(l, inside, lanes_left, zero);
      mask = lower_lanes_mask(l, &d->v, count);
    }
    GiltValue *idx[4] = {d->n, d->c, oh, ow0};
    GiltValue *v =
        lower_epilogue_apply_at(l, &d->epilogue, &d->v, mask, acc[r], idx);
    lower_lanes_store(l, &d->v, mask, v, d->y, idx);
  }
}

static void vector_step(Lower *l, GiltValue *const *ivs, void *user)
{
  Depthwise *d = user;
  vector_at(l, d, ix_mul(l, ivs[0], lower_index(l, LOWER_F32_LANES)));
}

/* The vectors of the group of rows from R * ivs[0]. */
static void group_step(Lower *l, GiltValue *const *ivs, void *user)
{
  Depthwise *d = user;
  d->oh0 = ix_mul(l, ivs[0], lower_index(l, (int64_t)d->rows));
  GiltValue *vectors = lower_binary(l, LOOP_OP_CEILDIVSI, d->w->out[1],
                                    lower_index(l, LOWER_F32_LANES));
  lower_nest(l, 1, &vectors, vector_step, d);
}

/* ---- the channel ---------------------------------------------------------------- */

static void channel_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Depthwise *d = user;
  d->n = ivs[0];
  d->c = ivs[1];
  lower_pad_channel_planes(l, &d->planes, d->length, d->n, d->c);
  lower_depthwise_taps(l, &d->v, d->weights, d->c, NULL, d->splat);
  GiltValue *bias = d->given_bias ? lower_load(l, d->given_bias, &d->c)
                                  : lower_constant(l, d->v.elem, 0);
  d->bias = lower_lanes_splat(l, &d->v, bias);
  GiltValue *groups = lower_binary(l, LOOP_OP_CEILDIVSI, d->w->out[0],
                                   lower_index(l, (int64_t)d->rows));
  lower_nest(l, 1, &groups, group_step, d);
}

/* ---- the shape of the nest -------------------------------------------------- */

/* R: as many rows as give the target's registers R vectors of
** accumulators beside as many of loads and splats, at most MAX_ROWS; of
** those from half of that up, the one that computes the fewest rows past
** the output's (oh, static) on a tie the larger. */
static size_t group_rows(const Lower *l, int64_t oh)
{
  int64_t most = l->register_vectors / 2;
  most = most < 1 ? 1 : most > MAX_ROWS ? MAX_ROWS : most;
  if (oh == GILT_DYNAMIC)
    return (size_t)most;
  if (oh <= 0)
    return 1;
  size_t best =
      lower_rows_fewest_past(oh, (size_t)(most / 2 + 1), (size_t)most);
  return best < (size_t)oh ? best : (size_t)oh;
}

/* The planes' pitch (a row's plane columns: the output's columns and the
** columns the last tap reaches past them) and length (the rows of every
** group and those their last taps reach below, and the last vector's
** columns past the row). */
static void plane_shape(Lower *l, Depthwise *d)
{
  const LowerWindow *w = d->w;
  GiltValue *lanes = lower_index(l, LOWER_F32_LANES);
  d->planes.pitch =
      ix_add(l, w->out[1], lower_index(l, (w->ek[1] - 1) / w->strides[1]));
  GiltValue *r = lower_index(l, (int64_t)d->rows);
  GiltValue *groups = lower_binary(l, LOOP_OP_CEILDIVSI, w->out[0], r);
  GiltValue *reach = lower_index(l, (w->ek[0] - 1) / w->strides[0]);
  GiltValue *rows = ix_add(l, ix_mul(l, groups, r), reach);
  GiltValue *row_end =
      ix_mul(l, lower_binary(l, LOOP_OP_CEILDIVSI, w->out[1], lanes), lanes);
  d->length = ix_add(l, ix_mul(l, rows, d->planes.pitch), row_end);
}

/* What the kernel does, for --explain=tiling,vectorize,layout. */
static void remark(Lower *l, size_t rows)
{
  GiltRemarkArg args[2] = {{"rows", NULL, (int64_t)rows},
                           {"lanes", NULL, LOWER_F32_LANES}};
  gilt_remark(l->op, "tiling", "depthwise-planes", 1, args,
              "depthwise: each channel's taps over vectors of output "
              "columns in groups of %d rows, read from the channel's "
              "padded phase planes, parallel over channels", (int)rows);
  gilt_remark(l->op, "vectorize", "vectorized", 1, args + 1,
              "vectorized: %d f32 lanes of output columns", LOWER_F32_LANES);
  gilt_remark(l->op, "layout", "channel-planes", 0, NULL,
              "computes NCHW: each channel copied, zero-padded and split "
              "by the strides into a buffer of the chunk's, just before "
              "its taps read it; Y written directly");
}

bool lower_conv_depthwise_planes_apply(Lower *l, const LowerWindow *w,
                                       GiltValue *x, GiltValue *weights,
                                       int64_t group)
{
  GiltType *wt = gilt_value_get_type(weights);
  return lower_conv_depthwise_apply(l, w, x, weights, group) &&
         wt->shaped.shape[2] * wt->shaped.shape[3] > MIN_TAPS &&
         w->strides[0] <= MAX_STRIDE;
}

GiltValue *lower_conv_depthwise_planes(Lower *l, LowerWindow *w, GiltValue *x,
                                       GiltValue *weights, GiltValue *bias)
{
  Depthwise d = {.w = w, .x = x, .weights = weights, .given_bias = bias};
  lower_lanes_init(l, &d.v, gilt_float_type_get(l->ctx, GILT_F32));
  lower_epilogue_read(l, &d.epilogue);
  d.kh = w->kernel[0];
  d.kw = w->kernel[1];
  const int64_t *ys =
      gilt_value_get_type(gilt_op_get_result(l->op, 0))->shaped.shape;
  d.rows = group_rows(l, ys[2]);
  remark(l, d.rows);
  d.masked = ys[2] == GILT_DYNAMIC || ys[3] == GILT_DYNAMIC ||
             ys[2] % (int64_t)d.rows || ys[3] % LOWER_F32_LANES;
  d.planes = (LowerPlanes){.x = x,
                           .begin = {w->begin[0], w->begin[1]},
                           .strides = {w->strides[0], w->strides[1]}};
  plane_shape(l, &d);
  GiltValue *batch = lower_dim(l, x, 0), *c = lower_dim(l, x, 1);
  GiltValue *ydims[4] = {batch, c, w->out[0], w->out[1]};
  d.y = lower_alloc_result(l, 0, ydims);
  GiltValue *uppers[2] = {batch, c};
  lower_parallel(l, 2, uppers, channel_body, &d);
  return d.y;
}
