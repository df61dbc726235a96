/*
** grid_sample.c - lowering of GridSample (any number of spatial
** dimensions; modes nearest, linear, cubic, the bilinear and bicubic of
** GridSample-16 being linear and cubic) and AffineGrid (2-D and 3-D).
**
** GridSample follows PyTorch and ONNX Runtime: each output point
** denormalizes its grid coordinates (align_corners or not), rounds them
** half to even for nearest, brings those outside the border back (clamped
** for border padding, reflected for reflection padding; not for cubic,
** where the ONNX reference does but both implementations do not), then
** weighs the 1, 2 or 4 taps per dimension around them (the cubic ones
** with A = -0.75), fetching each tap with the padding mode: zeros
** outside for zeros, clamped for border, reflected for reflection. The
** taps of all dimensions are unrolled (4^3 for 3-D cubic). Coordinates
** are computed in the grid's element type, the weighted sum in X's.
** The grid's last dimension lists coordinates innermost first (x, y, z),
** the reverse of X's dimensions.
*/
#include "transforms/graph_to_loop/lowering.h"

#include <string.h>

enum { MAX_SPATIAL = 3, MAX_TAPS = 4 };
enum { PAD_ZEROS, PAD_BORDER, PAD_REFLECTION };

typedef struct Sampler {
  GiltValue *x, *grid, *out;
  size_t r;          /* spatial dimensions */
  int taps;          /* per dimension: 1 nearest, 2 linear, 4 cubic */
  int pad;
  bool align;
  GiltValue *len[MAX_SPATIAL];      /* X's spatial sizes, as index */
  GiltValue *lo[MAX_SPATIAL], *hi[MAX_SPATIAL]; /* borders, grid type */
  GiltValue *const *ivs;            /* n, c, then the output point */
} Sampler;

static GiltValue *clamp(Lower *l, GiltValue *v, GiltValue *lo, GiltValue *hi)
{
  GiltValue *below = lower_cmp(l, lower_is_float(gilt_value_get_type(v))
                                      ? "olt" : "slt", v, lo);
  GiltValue *above = lower_cmp(l, lower_is_float(gilt_value_get_type(v))
                                      ? "ogt" : "sgt", v, hi);
  return lower_select(l, below, lo, lower_select(l, above, hi, v));
}

/* Reflects v into [lo, hi] by the nearer border until it lies inside,
** in f64 as the reference's borders are; v's type back. */
static GiltValue *reflect(Lower *l, GiltValue *v, GiltValue *lo,
                          GiltValue *hi)
{
  GiltType *t = gilt_value_get_type(v), *f64 = lower_f64_type(l);
  GiltValue *x = lower_convert(l, v, f64);
  lo = lower_convert(l, lo, f64), hi = lower_convert(l, hi, f64);
  GiltValue *below = lower_cmp(l, "olt", x, lo);
  GiltValue *above = lower_cmp(l, "ogt", x, hi);
  GiltValue *under = lower_minus(l, lo, x), *over = lower_minus(l, x, hi);
  GiltValue *dx = lower_select(l, below, under, over);
  GiltValue *range = lower_minus(l, hi, lo);
  GiltValue *n = lower_unary(l, LOOP_OP_TRUNC,
                             lower_binary(l, LOOP_OP_DIVF, dx, range));
  GiltValue *rest = lower_minus(l, dx, lower_times(l, n, range));
  GiltValue *parity =
      lower_binary(l, LOOP_OP_REMF, n, lower_constant_like(l, n, 2));
  GiltValue *even = lower_cmp(l, "oeq", parity, lower_constant_like(l, n, 0));
  GiltValue *from_lo = lower_cmp(l, "eq", below, even);
  GiltValue *up = lower_plus(l, lo, rest), *down = lower_minus(l, hi, rest);
  GiltValue *r = lower_select(l, from_lo, up, down);
  r = lower_select(l, lower_binary(l, LOOP_OP_ORI, below, above), r, x);
  return lower_convert(l, r, t);
}

/* ---- taps ------------------------------------------------------------------ */

/* X[n, c, at...] for tap indices that may lie outside X, per padding. */
static GiltValue *pixel(Lower *l, Sampler *s, GiltValue *const *at)
{
  GiltValue *where[2 + MAX_SPATIAL] = {s->ivs[0], s->ivs[1]};
  GiltValue *inside = lower_int_constant(l, lower_i1_type(l), 1);
  for (size_t i = 0; i < s->r; i++) {
    GiltValue *last = lower_minus(l, s->len[i], lower_index(l, 1)), *p = at[i];
    if (s->pad == PAD_ZEROS) {
      GiltValue *above = lower_cmp(l, "sge", p, lower_index(l, 0));
      GiltValue *below = lower_cmp(l, "sle", p, last);
      GiltValue *in_dim = lower_binary(l, LOOP_OP_ANDI, above, below);
      inside = lower_binary(l, LOOP_OP_ANDI, inside, in_dim);
    }
    if (s->pad == PAD_REFLECTION) {
      GiltType *t = gilt_value_get_type(s->lo[i]);
      p = lower_convert(l, reflect(l, lower_convert(l, p, t), s->lo[i],
                                   s->hi[i]),
                        lower_index_type(l));
    }
    where[2 + i] = clamp(l, p, lower_index(l, 0), last); /* loads stay inside */
  }
  GiltValue *v = lower_load(l, s->x, where);
  if (s->pad != PAD_ZEROS)
    return v;
  return lower_select(l, inside, v, lower_constant_like(l, v, 0));
}

/* The cubic convolution weights of the taps at -1, 0, 1, 2 for offset t
** (A = -0.75, as PyTorch). */
static void cubic_weights(Lower *l, GiltValue *t, GiltValue **w)
{
  const double a = -0.75;
  GiltValue *d[4] = {lower_plus(l, t, lower_constant_like(l, t, 1)), t};
  d[2] = lower_minus(l, lower_constant_like(l, t, 1), t);
  d[3] = lower_minus(l, lower_constant_like(l, t, 2), t);
  for (int k = 0; k < 4; k++) {
    GiltValue *x = d[k];
    if (k == 1 || k == 2) { /* ((A + 2) x - (A + 3)) x x + 1 */
      GiltValue *p = lower_times(l, lower_constant_like(l, x, a + 2), x);
      p = lower_minus(l, p, lower_constant_like(l, x, a + 3));
      p = lower_times(l, lower_times(l, p, x), x);
      w[k] = lower_plus(l, p, lower_constant_like(l, x, 1));
    } else { /* ((A x - 5A) x + 8A) x - 4A */
      GiltValue *p = lower_times(l, lower_constant_like(l, x, a), x);
      p = lower_minus(l, p, lower_constant_like(l, x, 5 * a));
      p = lower_times(l, p, x);
      p = lower_plus(l, p, lower_constant_like(l, x, 8 * a));
      p = lower_times(l, p, x);
      w[k] = lower_minus(l, p, lower_constant_like(l, x, 4 * a));
    }
  }
}

/* The denormalized coordinate along spatial dimension i, brought inside
** the border by the padding mode. */
static GiltValue *coordinate(Lower *l, Sampler *s, size_t i)
{
  size_t rank = s->r + 2;
  GiltValue *at[2 + MAX_SPATIAL];
  at[0] = s->ivs[0];
  for (size_t k = 0; k < s->r; k++)
    at[1 + k] = s->ivs[2 + k];
  at[rank - 1] = lower_index(l, (int64_t)(s->r - 1 - i));
  GiltValue *g = lower_load(l, s->grid, at);
  GiltValue *len = lower_convert(l, s->len[i], gilt_value_get_type(g));
  GiltValue *g1 = lower_plus(l, g, lower_constant_like(l, g, 1));
  GiltValue *x;
  if (s->align) { /* (g + 1) / 2 * (len - 1) */
    GiltValue *half =
        lower_binary(l, LOOP_OP_DIVF, g1, lower_constant_like(l, g, 2));
    x = lower_times(l, half, lower_minus(l, len, lower_constant_like(l, g, 1)));
  } else { /* ((g + 1) * len - 1) / 2 */
    GiltValue *scaled = lower_times(l, g1, len);
    GiltValue *less_one = lower_minus(l, scaled, lower_constant_like(l, g, 1));
    x = lower_binary(l, LOOP_OP_DIVF, less_one, lower_constant_like(l, g, 2));
  }
  if (s->taps == 1)
    x = lower_unary(l, LOOP_OP_ROUNDEVEN, x);
  if (s->taps == 4)
    return x; /* cubic pads each tap: clamping x would move them all */
  GiltValue *below = lower_cmp(l, "olt", x, s->lo[i]);
  GiltValue *above = lower_cmp(l, "ogt", x, s->hi[i]);
  GiltValue *out = lower_binary(l, LOOP_OP_ORI, below, above);
  if (s->pad == PAD_BORDER) {
    GiltValue *zero = lower_constant_like(l, x, 0);
    GiltValue *last = lower_minus(l, len, lower_constant_like(l, x, 1));
    x = lower_select(l, out, clamp(l, x, zero, last), x);
  }
  if (s->pad == PAD_REFLECTION)
    x = reflect(l, x, s->lo[i], s->hi[i]);
  return x;
}

/* The tap indices and weights (X's element type) along dimension i. */
static void taps_of(Lower *l, Sampler *s, size_t i, GiltValue **at,
                    GiltValue **w)
{
  GiltType *elem = lower_operand_elem(l, 0);
  GiltValue *x = coordinate(l, s, i);
  if (s->taps == 1) {
    at[0] = lower_convert(l, x, lower_index_type(l)); /* toward zero */
    w[0] = lower_constant(l, elem, 1);
    return;
  }
  GiltValue *x0 = lower_unary(l, LOOP_OP_FLOOR, x);
  GiltValue *t = lower_convert(l, lower_minus(l, x, x0), elem);
  GiltValue *i0 = lower_convert(l, x0, lower_index_type(l));
  int first = s->taps == 2 ? 0 : -1;
  for (int k = 0; k < s->taps; k++)
    at[k] = lower_plus(l, i0, lower_index(l, first + k));
  if (s->taps == 4) {
    cubic_weights(l, t, w);
    return;
  }
  w[0] = lower_minus(l, lower_constant_like(l, t, 1), t);
  w[1] = t;
}

static void sample_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Sampler *s = user;
  s->ivs = ivs;
  GiltValue *at[MAX_SPATIAL][MAX_TAPS], *w[MAX_SPATIAL][MAX_TAPS];
  for (size_t i = 0; i < s->r; i++)
    taps_of(l, s, i, at[i], w[i]);
  GiltValue *sum = NULL;
  int combos = 1;
  for (size_t i = 0; i < s->r; i++)
    combos *= s->taps;
  for (int c = 0; c < combos; c++) {
    GiltValue *tap[MAX_SPATIAL], *weight = NULL;
    for (size_t i = 0, rest = (size_t)c; i < s->r; i++, rest /= s->taps) {
      size_t k = rest % (size_t)s->taps;
      tap[i] = at[i][k];
      weight = weight ? lower_times(l, weight, w[i][k]) : w[i][k];
    }
    GiltValue *term = lower_times(l, weight, pixel(l, s, tap));
    sum = sum ? lower_plus(l, sum, term) : term;
  }
  lower_store(l, sum, s->out, ivs);
}

static int taps_for(const char *mode)
{
  if (strcmp(mode, "nearest") == 0)
    return 1;
  if (strcmp(mode, "cubic") == 0 || strcmp(mode, "bicubic") == 0)
    return 4;
  return 2; /* linear, bilinear */
}

static int pad_for(const char *pad)
{
  if (strcmp(pad, "border") == 0)
    return PAD_BORDER;
  if (strcmp(pad, "reflection") == 0)
    return PAD_REFLECTION;
  return PAD_ZEROS;
}

static GiltStatus lower_grid_sample(Lower *l)
{
  Sampler s = {.x = lower_operand(l, 0), .grid = lower_operand(l, 1)};
  size_t rank = gilt_value_get_type(s.x)->shaped.rank;
  s.r = rank - 2;
  if (s.r > MAX_SPATIAL)
    return lower_error(l, "%zu spatial dimensions; at most %d are supported",
                       s.r, MAX_SPATIAL);
  s.taps = taps_for(graph_attr_string(l->op, "mode", "linear"));
  s.pad = pad_for(graph_attr_string(l->op, "padding_mode", "zeros"));
  s.align = graph_attr_int(l->op, "align_corners", 0) != 0;
  GiltType *t = lower_operand_elem(l, 1);
  for (size_t i = 0; i < s.r; i++) {
    s.len[i] = lower_dim(l, s.x, 2 + i);
    GiltValue *len = lower_convert(l, s.len[i], t);
    s.lo[i] = lower_constant(l, t, s.align ? 0 : -0.5);
    s.hi[i] = lower_minus(l, len, lower_constant(l, t, s.align ? 1 : 0.5));
  }
  GiltValue *dims[2 + MAX_SPATIAL] = {lower_dim(l, s.x, 0)};
  dims[1] = lower_dim(l, s.x, 1);
  for (size_t i = 0; i < s.r; i++)
    dims[2 + i] = lower_dim(l, s.grid, 1 + i);
  s.out = lower_alloc_result(l, 0, dims);
  lower_parallel(l, rank, dims, sample_body, &s);
  return lower_replace(l, &s.out);
}

/* ---- AffineGrid ---------------------------------------------------------------- */

typedef struct Affine {
  GiltValue *theta, *out;
  size_t r;
  GiltValue *len[MAX_SPATIAL]; /* D, H, W (or H, W), as index */
  bool align;
} Affine;

/* The normalized base coordinate of position i along a size: evenly in
** [-1, 1] through the corners, or through the centers of the cells. */
static GiltValue *base_coordinate(Lower *l, Affine *a, GiltValue *i,
                                  GiltValue *len)
{
  GiltType *f64 = lower_f64_type(l);
  GiltValue *fi = lower_convert(l, i, f64), *fl = lower_convert(l, len, f64);
  GiltValue *one = lower_constant(l, f64, 1), *two = lower_constant(l, f64, 2);
  if (a->align) { /* -1 + i * 2 / (len - 1) */
    GiltValue *minus_one = lower_constant(l, f64, -1);
    GiltValue *step =
        lower_binary(l, LOOP_OP_DIVF, two, lower_minus(l, fl, one));
    return lower_plus(l, minus_one, lower_times(l, fi, step));
  }
  GiltValue *step = lower_binary(l, LOOP_OP_DIVF, two, fl);
  GiltValue *minus_one = lower_constant(l, f64, -1);
  GiltValue *start =
      lower_plus(l, minus_one, lower_binary(l, LOOP_OP_DIVF, step, two));
  return lower_plus(l, start, lower_times(l, fi, step));
}

/* grid[n, (d,) h, w, j] = sum_k theta[n, j, k] * (x, y, (z,) 1)[k]. */
static void affine_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Affine *a = user;
  GiltType *f64 = lower_f64_type(l);
  GiltValue *j = ivs[a->r + 1];
  GiltValue *sum = NULL;
  for (size_t k = 0; k <= a->r; k++) {
    GiltValue *base = lower_constant(l, f64, 1);
    if (k < a->r) /* x is the last spatial dimension */
      base = base_coordinate(l, a, ivs[a->r - k], a->len[a->r - 1 - k]);
    GiltValue *at[3] = {ivs[0], j, lower_index(l, (int64_t)k)};
    GiltValue *th = lower_convert(l, lower_load(l, a->theta, at), f64);
    GiltValue *term = lower_times(l, th, base);
    sum = sum ? lower_plus(l, sum, term) : term;
  }
  lower_store(l, lower_convert(l, sum, lower_result_elem(l, 0)), a->out, ivs);
}

static GiltStatus lower_affine_grid(Lower *l)
{
  Affine a = {.theta = lower_operand(l, 0)};
  GiltValue *size = lower_operand(l, 1);
  int64_t entries = gilt_value_get_type(size)->shaped.shape[0];
  if (entries != 4 && entries != 5)
    return lower_error(l, "operand 'size' must have a static length of 4 "
                          "or 5");
  a.r = (size_t)entries - 2;
  a.align = graph_attr_int(l->op, "align_corners", 0) != 0;
  GiltValue *dims[2 + MAX_SPATIAL];
  for (int64_t i = 0; i < entries; i++) {
    GiltValue *at = lower_index(l, i);
    GiltValue *v = lower_convert(l, lower_load(l, size, &at),
                                 lower_index_type(l));
    if (i >= 2)
      a.len[i - 2] = v;
    if (i != 1)
      dims[i == 0 ? 0 : i - 1] = v;
  }
  dims[a.r + 1] = lower_index(l, (int64_t)a.r);
  a.out = lower_alloc_result(l, 0, dims);
  lower_parallel(l, a.r + 2, dims, affine_body, &a);
  return lower_replace(l, &a.out);
}

const GraphLoweringRow graph_lower_sampling[] = {
    {GRAPH_OP_GRID_SAMPLE, {lower_grid_sample}},
    {GRAPH_OP_AFFINE_GRID, {lower_affine_grid}},
    {0, {NULL}},
};
