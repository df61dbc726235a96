/*
** conv_depthwise.c - f32 2-D depthwise convolutions (group == C == OC:
** MobileNet's, EfficientNet's and ShuffleNet's 3x3 and 5x5 layers) by a
** kernel of their own: one channel's filter is a handful of taps, so
** what pays is few instructions per multiply-add, not register tiles.
**
**   parallel (n, c):
**     w[k] = splat(W[c, 0, kh, kw]) for the KH * KW taps, b = splat(B[c])
**     for each output row oh:
**       columns [0, ow_lo), whose taps reach left of the input: scalars,
**         each tap loaded or 0
**       vectors of 16 columns from ow_lo:
**         acc = b; acc = fma(w[k], X[n, c, ih + kh*dh, iw + kw*dw ...], acc)
**           for the taps in order (unrolled), each a vector load
**         store acc, the epilogue applied
**
** The input is read where it lies: no padded copy. Rows and columns are
** split by whether their taps stay inside it: interior rows and the
** interior vectors of a row load without masks or conditions; the tail
** vectors of a row mask each load at the row's end (and the store at
** the output's); rows whose taps reach above or below the input (the
** first and last rows, for a padding of 1) mask every load, with no
** lane set for a tap row outside. Only the columns left of ow_lo (one,
** for a padding of 1) are scalar.
**
** At a column stride s > 1 the 16 outputs of a vector read every s-th
** input: s consecutive vectors are loaded and their lanes 0, s, 2s, ...
** picked out (extract and insert, which LLVM folds into one shuffle).
** Larger strides, and filters of more than MAX_TAPS taps, keep the
** generic kernel (conv.c).
**
** Each output sums bias and taps in (kh, kw) order with a fused multiply
** add per tap, skipping the taps in the padding, and gets the fused
** epilogue (epilogue.c) as it is stored.
**
** A 2-D f32 MaxPool (ResNet's 3x3 of stride 2 after its first layer,
** SqueezeNet's in ceil mode) has the same window, the same borders and
** the same strides, so it goes through the same nest (pool.c chooses
** it): the accumulator starts at -inf, each tap takes the input where it
** is greater (x > acc, so a NaN is never taken, as in pool.c's nest), and
** the lanes and scalars outside the input read -inf rather than 0.
*/
#include "transforms/graph_to_loop/tiles.h"

#include "transforms/graph_to_loop/indexing.h"

#include <math.h>

/* Taps unrolled at most: their splats live in registers. */
#define MAX_TAPS LOWER_DEPTHWISE_MAX_TAPS
/* Column strides whose lanes are gathered from that many loads. */
#define MAX_STRIDE 4
/* Interior rows computed together. */
#define MAX_ROWS 2

typedef struct Depthwise {
  LowerWindow *w;
  bool max;                      /* MaxPool: the taps' maximum, no weights */
  GiltValue *fill, *fill_splat;  /* what a tap outside reads: 0 or -inf */
  LowerLanes v;
  LowerEpilogue epilogue;
  GiltValue *x, *y;
  GiltValue *rows, *cols;        /* the input's H and W */
  /* Output rows [row_lo, row_hi) have every tap inside the input; output
  ** columns from col_lo do on the left, and col_inner vectors from there
  ** load and store inside the rows. */
  GiltValue *row_lo, *row_hi, *col_lo, *col_inner;
  GiltValue *scalar[MAX_TAPS];   /* the channel's taps */
  GiltValue *splat[MAX_TAPS];    /* ... in every lane */
  GiltValue *bias, *bias_splat;  /* B[c], or 0 */
  int64_t kh, kw;                /* the filter's size */
  GiltValue *n, *c;              /* the channel being computed */
  /* The rows being computed: oh[r], whose taps start at input row ih0[r]
  ** (two interior rows at once, each loaded input vector serving both
  ** where they overlap). */
  size_t num_rows;
  GiltValue *oh[MAX_ROWS], *ih0[MAX_ROWS];
  GiltValue *pairs;              /* the first row of the pairs */
  bool guarded;                  /* the row's taps may reach above or below */
} Depthwise;

/* ---- one vector of outputs ------------------------------------------------- */

/* The 16 inputs of tap column `start` (the input column of lane 0) in
** input row ih, lane j reading column start + j * s. masked: each load
** stops at the row's end; ok (an i1, or NULL): no lane at all unless it
** holds. */
static GiltValue *tap_lanes(Lower *l, Depthwise *d, GiltValue *ih,
                            GiltValue *start, bool masked, GiltValue *ok)
{
  int64_t s = d->w->strides[1];
  GiltValue *loads[MAX_STRIDE];
  for (int64_t k = 0; k < s; k++) {
    GiltValue *at = ix_add(l, start, lower_index(l, k * LOWER_F32_LANES));
    GiltValue *mask = NULL;
    if (masked) {
      GiltValue *left = ix_sub(l, d->cols, at);
      if (ok)
        left = lower_select(l, ok, left, lower_index(l, 0));
      mask = lower_lanes_mask(l, &d->v, left);
      /* No lane may be set past the end, but the index must still be
      ** one of the row's (or 0, for an empty row). */
      at = ix_min(l, at, ix_sub(l, d->cols, lower_index(l, 1)));
      at = ix_max(l, at, lower_index(l, 0));
    }
    GiltValue *idx[4] = {d->n, d->c, ih, at};
    loads[k] = lower_lanes_load(l, &d->v, mask, d->x, idx);
    if (mask && d->max) /* masked lanes read 0 */
      loads[k] = lower_select(l, mask, loads[k], d->fill_splat);
  }
  if (s == 1)
    return loads[0];
  GiltValue *r = lower_lanes_zero(&d->v);
  for (int64_t j = 0; j < LOWER_F32_LANES; j++) {
    GiltValue *from[2] = {loads[j * s / LOWER_F32_LANES],
                          lower_index(l, j * s % LOWER_F32_LANES)};
    GiltValue *e = lower_emit(l, LOOP_OP_EXTRACT, d->v.elem, 2, from);
    GiltValue *into[3] = {e, r, lower_index(l, j)};
    r = lower_emit(l, LOOP_OP_INSERT, d->v.type, 3, into);
  }
  return r;
}

/* acc with tap k's input x: multiplied and added, or the larger. */
static GiltValue *combine(Lower *l, const Depthwise *d, int64_t k,
                          GiltValue *x, GiltValue *acc)
{
  if (d->max)
    return lower_select(l, lower_cmp(l, "ogt", x, acc), x, acc);
  bool lanes = gilt_value_get_type(x) == d->v.type;
  return lower_lanes_fma(l, lanes ? d->splat[k] : d->scalar[k], x, acc);
}

/* The outputs (n, c, oh, ow0 ... ow0 + 15) of the rows being computed,
** stored; masked: the vector may reach past the input's or the output's
** row. The rows' multiply-adds interleave, so that their chains overlap. */
static void vector_at(Lower *l, Depthwise *d, GiltValue *ow0, bool masked)
{
  const LowerWindow *w = d->w;
  GiltValue *acc[MAX_ROWS];
  for (size_t r = 0; r < d->num_rows; r++)
    acc[r] = d->bias_splat;
  GiltValue *first = ix_sub(l, ix_mul(l, ow0, lower_index(l, w->strides[1])),
                            w->begin[1]);
  for (int64_t a = 0; a < d->kh; a++) {
    GiltValue *ih[MAX_ROWS], *ok = NULL;
    for (size_t r = 0; r < d->num_rows; r++)
      ih[r] = ix_add(l, d->ih0[r], lower_index(l, a * w->dilations[0]));
    if (d->guarded) { /* a row outside reads nothing, at row 0 */
      GiltValue *zero = lower_index(l, 0);
      ok = ix_in_range(l, ih[0], zero, d->rows);
      ih[0] = lower_select(l, ok, ih[0], zero);
    }
    for (int64_t b = 0; b < d->kw; b++) {
      GiltValue *start =
          ix_add(l, first, lower_index(l, b * w->dilations[1]));
      for (size_t r = 0; r < d->num_rows; r++) {
        GiltValue *xv = tap_lanes(l, d, ih[r], start, masked, ok);
        acc[r] = combine(l, d, a * d->kw + b, xv, acc[r]);
      }
    }
  }
  GiltValue *mask =
      masked ? lower_lanes_mask(l, &d->v, ix_sub(l, w->out[1], ow0)) : NULL;
  for (size_t r = 0; r < d->num_rows; r++) {
    GiltValue *idx[4] = {d->n, d->c, d->oh[r], ow0};
    GiltValue *v =
        lower_epilogue_apply_at(l, &d->epilogue, &d->v, mask, acc[r], idx);
    lower_lanes_store(l, &d->v, mask, v, d->y, idx);
  }
}

/* ---- the columns of a row --------------------------------------------------- */

/* A column left of the vectors: each tap loaded when inside, else 0. */
static void scalar_column(Lower *l, GiltValue *ow, GiltValue *const *iter,
                          GiltValue **next, void *user)
{
  (void)iter, (void)next;
  Depthwise *d = user;
  const LowerWindow *w = d->w;
  GiltValue *first = ix_sub(l, ix_mul(l, ow, lower_index(l, w->strides[1])),
                            w->begin[1]);
  for (size_t r = 0; r < d->num_rows; r++) {
    GiltValue *acc = d->bias;
    for (int64_t a = 0; a < d->kh; a++)
      for (int64_t b = 0; b < d->kw; b++) {
        GiltValue *ih =
            ix_add(l, d->ih0[r], lower_index(l, a * w->dilations[0]));
        GiltValue *idx[4] = {
            d->n, d->c, ih,
            ix_add(l, first, lower_index(l, b * w->dilations[1]))};
        GiltValue *x = lower_load_or(l, d->x, idx, d->fill);
        acc = combine(l, d, a * d->kw + b, x, acc);
      }
    GiltValue *at[4] = {d->n, d->c, d->oh[r], ow};
    acc = lower_epilogue_apply_at(l, &d->epilogue, NULL, NULL, acc, at);
    lower_store(l, acc, d->y, at);
  }
}

typedef struct Vectors {
  Depthwise *d;
  GiltValue *from; /* the first vector's column */
  bool masked;
} Vectors;

static void vector_step(Lower *l, GiltValue *iv, GiltValue *const *iter,
                        GiltValue **next, void *user)
{
  (void)iter, (void)next;
  Vectors *s = user;
  GiltValue *ow0 =
      ix_add(l, s->from, ix_mul(l, iv, lower_index(l, LOWER_F32_LANES)));
  vector_at(l, s->d, ow0, s->masked);
}

/* Columns from `from` on, `count` vectors of them. */
static void vectors(Lower *l, Depthwise *d, GiltValue *from, GiltValue *count,
                    bool masked)
{
  Vectors s = {d, from, masked};
  lower_for_upto(l, count, 0, NULL, NULL, vector_step, &s);
}

/* Rows oh, ... oh + num_rows - 1 (iv: oh, or the pair's number from
** d->pairs when rows go by two). */
static void row_step(Lower *l, GiltValue *iv, GiltValue *const *iter,
                     GiltValue **next, void *user)
{
  (void)iter, (void)next;
  Depthwise *d = user;
  const LowerWindow *w = d->w;
  GiltValue *oh = iv;
  if (d->num_rows > 1)
    oh = ix_add(l, d->pairs, ix_mul(l, iv, lower_index(l, MAX_ROWS)));
  for (size_t r = 0; r < d->num_rows; r++) {
    d->oh[r] = ix_add(l, oh, lower_index(l, (int64_t)r));
    d->ih0[r] = ix_sub(l, ix_mul(l, d->oh[r], lower_index(l, w->strides[0])),
                       w->begin[0]);
  }
  lower_for_upto(l, d->col_lo, 0, NULL, NULL, scalar_column, d);
  GiltValue *lanes = lower_index(l, LOWER_F32_LANES);
  GiltValue *tail = d->col_lo;
  if (!d->guarded) {
    vectors(l, d, d->col_lo, d->col_inner, false);
    tail = ix_add(l, d->col_lo, ix_mul(l, d->col_inner, lanes));
  }
  GiltValue *rest = ix_sub(l, w->out[1], tail);
  vectors(l, d, tail, lower_binary(l, LOOP_OP_CEILDIVSI, rest, lanes), true);
}

static void rows(Lower *l, Depthwise *d, GiltValue *from, GiltValue *to,
                 bool guarded)
{
  d->guarded = guarded;
  d->num_rows = 1;
  lower_for(l, from, to, lower_index(l, 1), 0, NULL, NULL, row_step, d);
}

/* The interior rows, by pairs while two are left. */
static void interior_rows(Lower *l, Depthwise *d)
{
  GiltValue *two = lower_index(l, MAX_ROWS);
  GiltValue *pairs = ix_div(l, ix_sub(l, d->row_hi, d->row_lo), two);
  d->guarded = false;
  d->num_rows = MAX_ROWS;
  d->pairs = d->row_lo;
  lower_for_upto(l, pairs, 0, NULL, NULL, row_step, d);
  rows(l, d, ix_add(l, d->row_lo, ix_mul(l, pairs, two)), d->row_hi, false);
}

/* ---- the channel ---------------------------------------------------------------- */

void lower_depthwise_taps(Lower *l, const LowerLanes *v, GiltValue *weights,
                          GiltValue *c, GiltValue **scalars,
                          GiltValue **splats)
{
  GiltType *wt = gilt_value_get_type(weights);
  int64_t kh = wt->shaped.shape[2], kw = wt->shaped.shape[3];
  for (int64_t a = 0; a < kh; a++)
    for (int64_t b = 0; b < kw; b++) {
      GiltValue *idx[4] = {c, NULL, NULL, NULL};
      idx[1] = lower_index(l, 0);
      idx[2] = lower_index(l, a);
      idx[3] = lower_index(l, b);
      GiltValue *t = lower_load(l, weights, idx);
      if (scalars)
        scalars[a * kw + b] = t;
      splats[a * kw + b] = lower_lanes_splat(l, v, t);
    }
}

typedef struct Channel {
  Depthwise *d;
  GiltValue *weights, *bias;
} Channel;

static void channel_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Channel *ch = user;
  Depthwise *d = ch->d;
  const LowerWindow *w = d->w;
  d->n = ivs[0];
  d->c = ivs[1];
  if (!d->max)
    lower_depthwise_taps(l, &d->v, ch->weights, d->c, d->scalar, d->splat);
  d->bias = ch->bias  ? lower_load(l, ch->bias, &d->c)
            : d->max ? lower_constant(l, d->v.elem, -INFINITY)
                     : lower_constant(l, d->v.elem, 0);
  d->bias_splat = lower_lanes_splat(l, &d->v, d->bias);
  rows(l, d, lower_index(l, 0), d->row_lo, true);
  if (w->strides[0] == 1)
    interior_rows(l, d);
  else
    rows(l, d, d->row_lo, d->row_hi, false);
  rows(l, d, d->row_hi, w->out[0], true);
}

/* Where the rows and columns stop reaching outside the input. A vector
** at column ow0 loads 16 * s columns from ow0 * s - begin + kw * dw. */
static void split(Lower *l, Depthwise *d)
{
  const LowerWindow *w = d->w;
  d->row_lo = lower_window_first_inside(l, w, 0);
  d->row_hi = lower_window_end_inside(l, w, 0, d->rows, w->ek[0], d->row_lo);
  d->col_lo = lower_window_first_inside(l, w, 1);
  int64_t reach = (d->kw - 1) * w->dilations[1] +
                  LOWER_F32_LANES * w->strides[1];
  /* The last column a vector may start at (col_lo - 1 when none). */
  GiltValue *end =
      lower_window_end_inside(l, w, 1, d->cols, reach, d->col_lo);
  GiltValue *last = ix_sub(l, end, lower_index(l, 1));
  GiltValue *lanes = lower_index(l, LOWER_F32_LANES);
  GiltValue *more = lower_binary(l, LOOP_OP_FLOORDIVSI,
                                 ix_sub(l, last, d->col_lo), lanes);
  GiltValue *fit = ix_add(l, more, lower_index(l, 1));
  GiltValue *whole = ix_div(l, ix_sub(l, w->out[1], d->col_lo), lanes);
  GiltValue *inner = ix_min(l, fit, whole);
  d->col_inner = ix_max(l, inner, lower_index(l, 0));
}

bool lower_conv_depthwise_apply(Lower *l, const LowerWindow *w,
                                GiltValue *x, GiltValue *weights,
                                int64_t group)
{
  GiltType *wt = gilt_value_get_type(weights);
  GiltType *xt = gilt_value_get_type(x);
  int64_t c = xt->shaped.shape[1];
  return w->n == 2 && c != GILT_DYNAMIC && group == c &&
         wt->shaped.shape[0] == c && wt->shaped.shape[1] == 1 &&
         lower_taps_fit(wt->shaped.shape[2], wt->shaped.shape[3], MAX_TAPS) &&
         w->strides[1] <= MAX_STRIDE &&
         lower_vectorizes(l, lower_result_elem(l, 0));
}

/* Y = the window's taps of x combined per channel (weights, bias: NULL
** for MaxPool): the new result buffer. */
static GiltValue *depthwise(Lower *l, Depthwise *d, GiltValue *weights,
                            GiltValue *bias)
{
  LowerWindow *w = d->w;
  lower_lanes_init(l, &d->v, gilt_float_type_get(l->ctx, GILT_F32));
  lower_epilogue_read(l, &d->epilogue);
  d->fill = lower_constant(l, d->v.elem, d->max ? -INFINITY : 0);
  d->fill_splat = lower_lanes_splat(l, &d->v, d->fill);
  d->kh = w->kernel[0];
  d->kw = w->kernel[1];
  d->rows = lower_dim(l, d->x, 2);
  d->cols = lower_dim(l, d->x, 3);
  GiltValue *batch = lower_dim(l, d->x, 0), *c = lower_dim(l, d->x, 1);
  GiltValue *ydims[4] = {batch, c, w->out[0], w->out[1]};
  d->y = lower_alloc_result(l, 0, ydims);
  split(l, d);
  Channel ch = {d, weights, bias};
  GiltValue *uppers[2] = {batch, c};
  lower_parallel(l, 2, uppers, channel_body, &ch);
  return d->y;
}

GiltValue *lower_conv_depthwise(Lower *l, LowerWindow *w, GiltValue *x,
                                GiltValue *weights, GiltValue *bias)
{
  Depthwise d = {.w = w, .x = x};
  return depthwise(l, &d, weights, bias);
}

bool lower_max_pool_vector_apply(Lower *l, const LowerWindow *w,
                                 GiltValue *x)
{
  return w->n == 2 && lower_taps_fit(w->kernel[0], w->kernel[1], MAX_TAPS) &&
         w->strides[1] <= MAX_STRIDE && gilt_op_get_num_results(l->op) == 1 &&
         lower_vectorizes(l, lower_result_elem(l, 0)) &&
         gilt_value_get_type(x)->shaped.elem == lower_result_elem(l, 0);
}

GiltValue *lower_max_pool_vector(Lower *l, LowerWindow *w, GiltValue *x)
{
  Depthwise d = {.w = w, .x = x, .max = true};
  return depthwise(l, &d, NULL, NULL);
}
