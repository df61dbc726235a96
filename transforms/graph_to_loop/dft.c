/*
** dft.c - lowering of the spectral ops: DFT, STFT and MelWeightMatrix.
**
** DFT and STFT share one kernel: a direct transform, each output
** frequency a loop.for over the samples that accumulates in f64 (what
** the ONNX reference's numpy FFT computes in), its twiddle angle taken
** from (j * k) mod n so that it stays exact for long transforms. It is
** O(n^2) and deliberately not an FFT: the reference semantics first.
** Complex values are a trailing dimension of 2 (ONNX's convention); a
** length shorter than the signal truncates it, a longer one pads zeros.
** MelWeightMatrix follows the reference's arithmetic (f32 for the mel
** edges, f64 for the bins) so that its integer bins come out the same.
*/
#include "transforms/graph_to_loop/lowering.h"

/* C11 has no M_PI. */
static const double pi = 3.14159265358979323846;
static const double ln10 = 2.30258509299404568402;

typedef struct Complex {
  GiltValue *re, *im;
} Complex;

/* Sample j (an index below Transform.count) as an f64 complex. */
typedef Complex (*SampleFn)(Lower *l, GiltValue *j, void *user);

typedef struct Transform {
  GiltValue *count; /* samples read; those up to n are zero */
  GiltValue *n;     /* the transform's length */
  GiltValue *k;     /* the frequency computed */
  bool inverse;
  SampleFn sample;
  void *user;
} Transform;

static void transform_step(Lower *l, GiltValue *j, GiltValue *const *acc,
                           GiltValue **next, void *user)
{
  Transform *t = user;
  Complex x = t->sample(l, j, t->user);
  GiltValue *jk = lower_binary(l, LOOP_OP_REMSI, lower_times(l, j, t->k), t->n);
  GiltValue *turns = lower_convert(l, jk, lower_f64_type(l));
  GiltValue *angle =
      lower_times(l, turns, lower_f64(l, t->inverse ? 2 * pi : -2 * pi));
  GiltValue *n = lower_convert(l, t->n, lower_f64_type(l));
  GiltValue *theta = lower_binary(l, LOOP_OP_DIVF, angle, n);
  GiltValue *c = lower_unary(l, LOOP_OP_COS, theta);
  GiltValue *s = lower_unary(l, LOOP_OP_SIN, theta);
  GiltValue *re_c = lower_times(l, x.re, c), *im_s = lower_times(l, x.im, s);
  next[0] = lower_plus(l, acc[0], lower_minus(l, re_c, im_s));
  GiltValue *re_s = lower_times(l, x.re, s), *im_c = lower_times(l, x.im, c);
  next[1] = lower_plus(l, acc[1], lower_plus(l, re_s, im_c));
}

/* One frequency of the transform; the inverse is scaled by 1/n. */
static Complex transform(Lower *l, Transform *t)
{
  GiltValue *zero = lower_f64(l, 0);
  GiltValue *inits[2] = {zero, zero}, *sums[2];
  lower_for_upto(l, t->count, 2, inits, sums,
            transform_step, t);
  if (t->inverse) {
    GiltValue *n = lower_convert(l, t->n, lower_f64_type(l));
    sums[0] = lower_binary(l, LOOP_OP_DIVF, sums[0], n);
    sums[1] = lower_binary(l, LOOP_OP_DIVF, sums[1], n);
  }
  return (Complex){sums[0], sums[1]};
}

/* Element `ivs` of a complex buffer (last dimension 2) or a real one
** (last dimension 1, imaginary part 0), as f64. ivs has room for the
** last index. */
static Complex load_complex(Lower *l, GiltValue *in, GiltValue **ivs)
{
  GiltType *t = gilt_value_get_type(in);
  size_t last = t->shaped.rank - 1;
  ivs[last] = lower_index(l, 0);
  GiltValue *re = lower_convert(l, lower_load(l, in, ivs), lower_f64_type(l));
  Complex x = {re, lower_f64(l, 0)};
  if (t->shaped.shape[last] == 2) {
    ivs[last] = lower_index(l, 1);
    x.im = lower_convert(l, lower_load(l, in, ivs), lower_f64_type(l));
  }
  return x;
}

static void store_complex(Lower *l, Complex v, GiltValue *out,
                          GiltValue **ivs)
{
  GiltType *t = gilt_value_get_type(out);
  size_t last = t->shaped.rank - 1;
  ivs[last] = lower_index(l, 0);
  lower_store(l, lower_convert(l, v.re, t->shaped.elem), out, ivs);
  ivs[last] = lower_index(l, 1);
  lower_store(l, lower_convert(l, v.im, t->shaped.elem), out, ivs);
}

static GiltValue *half_plus_one(Lower *l, GiltValue *n)
{
  GiltValue *half = lower_binary(l, LOOP_OP_DIVSI, n, lower_index(l, 2));
  return lower_plus(l, half, lower_index(l, 1));
}

/* The last dimension of a signal must say whether it is complex. */
static bool known_complexity(GiltValue *signal)
{
  GiltType *t = gilt_value_get_type(signal);
  int64_t last = t->shaped.shape[t->shaped.rank - 1];
  return last == 1 || last == 2;
}

/* ---- DFT ------------------------------------------------------------------ */

typedef struct Dft {
  GiltValue *in, *out;
  size_t axis;
  Transform t;
  GiltValue *const *ivs; /* the output element being computed */
} Dft;

static Complex dft_sample(Lower *l, GiltValue *j, void *user)
{
  Dft *d = user;
  size_t rank = gilt_value_get_type(d->in)->shaped.rank;
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t i = 0; i + 1 < rank; i++)
    idx[i] = d->ivs[i];
  idx[d->axis] = j;
  return load_complex(l, d->in, idx);
}

static void dft_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Dft *d = user;
  d->ivs = ivs;
  d->t.k = ivs[d->axis];
  Complex v = transform(l, &d->t);
  size_t rank = gilt_value_get_type(d->out)->shaped.rank;
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t i = 0; i + 1 < rank; i++)
    idx[i] = ivs[i];
  store_complex(l, v, d->out, idx);
}

static GiltStatus lower_dft(Lower *l)
{
  GiltValue *in = lower_operand(l, 0);
  size_t rank = gilt_value_get_type(in)->shaped.rank;
  int64_t axis = -2;
  if (lower_operand(l, 2) && !lower_constant_operand_int(l, 2, &axis))
    return lower_error(l, "operand 'axis' must be a constant");
  if (!known_complexity(in))
    return lower_error(l, "the last dimension of operand 'input' must be "
                          "known (1 or 2)");
  size_t a = (size_t)(axis < 0 ? axis + (int64_t)rank : axis);
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, in, dims);
  GiltValue *n = lower_operand(l, 1)
                     ? lower_scalar_operand(l, 1, lower_index_type(l))
                     : dims[a];
  Dft d = {.in = in, .axis = a};
  d.t = (Transform){.count = lower_binary(l, LOOP_OP_MINSI, n, dims[a]),
                    .n = n,
                    .inverse = graph_attr_int(l->op, "inverse", 0) != 0,
                    .sample = dft_sample,
                    .user = &d};
  dims[a] = graph_attr_int(l->op, "onesided", 0) ? half_plus_one(l, n) : n;
  dims[rank - 1] = lower_index(l, 2);
  d.out = lower_alloc_result(l, 0, dims);
  lower_parallel(l, rank - 1, dims, dft_body, &d);
  return lower_replace(l, &d.out);
}

/* ---- STFT ----------------------------------------------------------------- */

typedef struct Stft {
  GiltValue *signal, *window, *step, *out;
  GiltValue *const *ivs; /* batch, frame, frequency */
  Transform t;
} Stft;

/* Sample j of the frame: signal[b, frame * step + j], windowed. */
static Complex stft_sample(Lower *l, GiltValue *j, void *user)
{
  Stft *s = user;
  GiltValue *idx[3] = {
      s->ivs[0], lower_plus(l, lower_times(l, s->ivs[1], s->step), j), NULL};
  Complex x = load_complex(l, s->signal, idx);
  if (!s->window)
    return x;
  GiltValue *w =
      lower_convert(l, lower_load(l, s->window, &j), lower_f64_type(l));
  GiltValue *re = lower_times(l, x.re, w);
  return (Complex){re, lower_times(l, x.im, w)};
}

static void stft_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Stft *s = user;
  s->ivs = ivs;
  s->t.k = ivs[2];
  Complex v = transform(l, &s->t);
  GiltValue *idx[4] = {ivs[0], ivs[1], ivs[2], NULL};
  store_complex(l, v, s->out, idx);
}

static GiltStatus lower_stft(Lower *l)
{
  Stft s = {.signal = lower_operand(l, 0), .window = lower_operand(l, 2)};
  if (!known_complexity(s.signal))
    return lower_error(l, "the last dimension of operand 'signal' must be "
                          "known (1 or 2)");
  if (!s.window && !lower_operand(l, 3))
    return lower_error(l, "needs operand 'window' or 'frame_length'");
  GiltType *index = lower_index_type(l);
  s.step = lower_scalar_operand(l, 1, index);
  GiltValue *n = lower_operand(l, 3) ? lower_scalar_operand(l, 3, index)
                                     : lower_dim(l, s.window, 0);
  s.t = (Transform){.count = n, .n = n, .sample = stft_sample, .user = &s};
  GiltValue *room = lower_minus(l, lower_dim(l, s.signal, 1), n);
  GiltValue *steps = lower_binary(l, LOOP_OP_DIVSI, room, s.step);
  GiltValue *frames = lower_plus(l, steps, lower_index(l, 1));
  GiltValue *dims[4] = {lower_dim(l, s.signal, 0), frames};
  dims[2] = graph_attr_int(l->op, "onesided", 1) ? half_plus_one(l, n) : n;
  dims[3] = lower_index(l, 2);
  s.out = lower_alloc_result(l, 0, dims);
  lower_parallel(l, 3, dims, stft_body, &s);
  return lower_replace(l, &s.out);
}

/* ---- MelWeightMatrix -------------------------------------------------------- */

typedef struct Mel {
  GiltValue *out, *dft_length, *sample_rate; /* the last two f64 */
  GiltValue *low_mel, *mel_step;             /* f64 of f32 values */
} Mel;

/* 2595 * log10(1 + hz / 700) in the operand's float type, log10 rounded
** from f64 as numpy's f32 log10 is. */
static GiltValue *hz_to_mel(Lower *l, GiltValue *hz)
{
  GiltType *t = gilt_value_get_type(hz);
  GiltValue *one = lower_constant(l, t, 1);
  GiltValue *ratio =
      lower_binary(l, LOOP_OP_DIVF, hz, lower_constant(l, t, 700));
  GiltValue *x = lower_plus(l, one, ratio);
  GiltValue *ln =
      lower_unary(l, LOOP_OP_LOG, lower_convert(l, x, lower_f64_type(l)));
  GiltValue *lg = lower_binary(l, LOOP_OP_DIVF, ln, lower_f64(l, ln10));
  GiltValue *scale = lower_constant(l, t, 2595);
  return lower_times(l, scale, lower_convert(l, lg, t));
}

/* The spectrogram bin of mel point i (an index):
** floor((dft_length + 1) * 700 * (10^(mel / 2595) - 1) / sample_rate). */
static GiltValue *mel_bin(Lower *l, Mel *m, GiltValue *i)
{
  GiltValue *mel = lower_plus(
      l, lower_times(l, lower_convert(l, i, lower_f64_type(l)), m->mel_step),
      m->low_mel);
  GiltValue *ten = lower_f64(l, 10);
  GiltValue *exponent = lower_binary(l, LOOP_OP_DIVF, mel, lower_f64(l, 2595));
  GiltValue *p = lower_binary(l, LOOP_OP_POWF, ten, exponent);
  GiltValue *scale = lower_f64(l, 700);
  GiltValue *hz = lower_times(l, scale, lower_minus(l, p, lower_f64(l, 1)));
  GiltValue *bin = lower_unary(
      l, LOOP_OP_FLOOR,
      lower_binary(
          l, LOOP_OP_DIVF,
          lower_times(l, lower_plus(l, m->dft_length, lower_f64(l, 1)), hz),
          m->sample_rate));
  return lower_convert(l, bin, lower_index_type(l));
}

static GiltValue *in_range(Lower *l, GiltValue *lo, const char *lo_pred,
                           GiltValue *x, const char *hi_pred, GiltValue *hi)
{
  GiltValue *above = lower_cmp(l, lo_pred, lo, x);
  GiltValue *below = lower_cmp(l, hi_pred, x, hi);
  return lower_binary(l, LOOP_OP_ANDI, above, below);
}

/* out[j, i]: rising from the left bin to the center (1 at the center),
** falling to the right bin, 0 elsewhere. */
static void mel_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Mel *m = user;
  GiltValue *j = ivs[0], *i = ivs[1];
  GiltValue *left = mel_bin(l, m, i);
  GiltValue *center = mel_bin(l, m, lower_plus(l, i, lower_index(l, 1)));
  GiltValue *right = mel_bin(l, m, lower_plus(l, i, lower_index(l, 2)));
  GiltValue *zero = lower_f64(l, 0);
  GiltValue *fj = lower_convert(l, j, lower_f64_type(l));
  GiltValue *fl = lower_convert(l, left, lower_f64_type(l));
  GiltValue *fc = lower_convert(l, center, lower_f64_type(l));
  GiltValue *fr = lower_convert(l, right, lower_f64_type(l));
  GiltValue *from_left = lower_minus(l, fj, fl);
  GiltValue *rise =
      lower_binary(l, LOOP_OP_DIVF, from_left, lower_minus(l, fc, fl));
  GiltValue *to_right = lower_minus(l, fr, fj);
  GiltValue *fall =
      lower_binary(l, LOOP_OP_DIVF, to_right, lower_minus(l, fr, fc));
  GiltValue *v = lower_select(l, in_range(l, left, "sle", j, "sle", center),
                              rise, zero);
  v = lower_select(l, in_range(l, center, "sle", j, "slt", right), fall, v);
  GiltValue *at_center = lower_cmp(l, "eq", j, center);
  v = lower_select(l, at_center, lower_f64(l, 1), v);
  lower_store(l, lower_convert(l, v, lower_result_elem(l, 0)), m->out, ivs);
}

static GiltStatus lower_mel_weight_matrix(Lower *l)
{
  GiltType *index = lower_index_type(l), *edge = lower_operand_elem(l, 3);
  GiltValue *bins = lower_scalar_operand(l, 0, index);
  GiltValue *length = lower_scalar_operand(l, 1, index);
  Mel m = {.dft_length = lower_convert(l, length, lower_f64_type(l))};
  m.sample_rate = lower_scalar_operand(l, 2, lower_f64_type(l));
  GiltValue *low = hz_to_mel(l, lower_scalar_operand(l, 3, edge));
  GiltValue *high = hz_to_mel(l, lower_scalar_operand(l, 4, edge));
  GiltValue *points = lower_convert(
      l, lower_plus(l, bins, lower_index(l, 2)), edge);
  GiltValue *step = lower_binary(l, LOOP_OP_DIVF, lower_minus(l, high, low),
                                 points);
  m.low_mel = lower_convert(l, low, lower_f64_type(l));
  m.mel_step = lower_convert(l, step, lower_f64_type(l));
  GiltValue *dims[2] = {half_plus_one(l, length), bins};
  m.out = lower_alloc_result(l, 0, dims);
  lower_parallel(l, 2, dims, mel_body, &m);
  return lower_replace(l, &m.out);
}

const GraphLoweringRow graph_lower_spectral[] = {
    {GRAPH_OP_DFT, {lower_dft}},
    {GRAPH_OP_STFT, {lower_stft}},
    {GRAPH_OP_MEL_WEIGHT_MATRIX, {lower_mel_weight_matrix}},
    {0, {NULL}},
};
