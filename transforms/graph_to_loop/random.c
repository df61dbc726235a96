/*
** random.c - lowering of the random generators RandomNormal,
** RandomUniform, their *Like forms, Bernoulli and Multinomial, with
** gilt's own generator (ONNX leaves it unspecified).
**
** The generator is counter-based: element i of a result draws
** splitmix64(key + (i + 1) * gamma) (Steele, Lea and Flood, "Fast
** splittable pseudorandom number generators", OOPSLA 2014), computed in
** i64 loop ops, so any element is drawn without the others and the
** parallel nests need no state. The key is fixed at compile time: from
** the `seed` attribute's bits when present; otherwise from a default seed
** mixed with the ONNX node's name, so that distinct nodes draw distinct
** streams. There is no run-time entropy: a compiled model draws the same
** values on every run (docs/passes.md says so).
**
** From the 64 bits: a uniform in [0, 1) from the top bits, as many as the
** result type's significand holds (24 for f32, 53 for f64), so that the
** low = 0, high = 1 case never rounds up to 1; a normal by Box-Muller
** from the draws of counters 2i and 2i + 1; Bernoulli as u < p;
** Multinomial by inverse CDF over exp(x - max x) of its row. Not here: a
** state that advances between runs (the ops are not PURE, so no folding
** evaluates them at compile time, which is all that is needed).
*/
#include "transforms/graph_to_loop/indexing.h"

#include <math.h>
#include <string.h>

#define GAMMA 0x9E3779B97F4A7C15u
#define DEFAULT_SEED 0x67696C74u /* "gilt" */
#define TWO_PI 6.28318530717958647692

static uint64_t mix64(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

/* The key of the op's stream (see the paragraph above). */
static uint64_t stream_key(Lower *l)
{
  if (gilt_op_get_attr(l->op, "seed")) {
    double seed = graph_attr_float(l->op, "seed", 0);
    uint64_t bits;
    memcpy(&bits, &seed, sizeof bits);
    return mix64(bits);
  }
  uint64_t key = mix64(DEFAULT_SEED);
  const char *name = gilt_location_get_name(l->loc);
  for (; name && *name; name++)
    key = mix64(key ^ (unsigned char)*name);
  return key;
}

/* ---- the draws -------------------------------------------------------- */

typedef struct Draw {
  GiltType *i64, *f64;
  uint64_t key;
} Draw;

static void draw_init(Lower *l, Draw *d)
{
  d->i64 = gilt_integer_type_get(l->ctx, 64, GILT_SIGNLESS);
  d->f64 = gilt_float_type_get(l->ctx, GILT_F64);
  d->key = stream_key(l);
}

static GiltValue *i64c(Lower *l, Draw *d, uint64_t v)
{
  return lower_int_constant(l, d->i64, (int64_t)v);
}

/* z ^ (z >> s), then times m (m 0: no product). */
static GiltValue *xorshift_mul(Lower *l, Draw *d, GiltValue *z, int s,
                               uint64_t m)
{
  GiltValue *shift = i64c(l, d, (uint64_t)s);
  GiltValue *shifted = lower_binary(l, LOOP_OP_SHRUI, z, shift);
  z = lower_binary(l, LOOP_OP_XORI, z, shifted);
  if (!m)
    return z;
  GiltValue *factor = i64c(l, d, m);
  return lower_binary(l, LOOP_OP_MULI, z, factor);
}

/* The 64 random bits of counter c (an i64). */
static GiltValue *draw_bits(Lower *l, Draw *d, GiltValue *c)
{
  GiltValue *one = i64c(l, d, 1);
  GiltValue *next = lower_binary(l, LOOP_OP_ADDI, c, one);
  GiltValue *gamma = i64c(l, d, GAMMA);
  GiltValue *step = lower_binary(l, LOOP_OP_MULI, next, gamma);
  GiltValue *key = i64c(l, d, d->key);
  GiltValue *z = lower_binary(l, LOOP_OP_ADDI, key, step);
  z = xorshift_mul(l, d, z, 30, 0xBF58476D1CE4E5B9u);
  z = xorshift_mul(l, d, z, 27, 0x94D049BB133111EBu);
  return xorshift_mul(l, d, z, 31, 0);
}

/* The significand bits of a float type, the implicit one included. */
static int significand_bits(GiltType *t)
{
  switch (t->fkind) {
  case GILT_F16: return 11;
  case GILT_BF16: return 8;
  case GILT_F32: return 24;
  default: return 53;
  }
}

/* A uniform f64 in [0, 1) from counter c, of `bits` random bits; plus 1
** ulp of them when open_zero ((0, 1], for a logarithm). */
static GiltValue *draw_unit(Lower *l, Draw *d, GiltValue *c, int bits,
                            bool open_zero)
{
  GiltValue *z = draw_bits(l, d, c);
  GiltValue *shift = i64c(l, d, (uint64_t)(64 - bits));
  GiltValue *top = lower_binary(l, LOOP_OP_SHRUI, z, shift);
  if (open_zero) {
    GiltValue *one = i64c(l, d, 1);
    top = lower_binary(l, LOOP_OP_ADDI, top, one);
  }
  GiltValue *f = lower_emit(l, LOOP_OP_UITOFP, d->f64, 1, &top);
  GiltValue *scale = lower_constant(l, d->f64, 1.0 / (double)(1ull << bits));
  return lower_binary(l, LOOP_OP_MULF, f, scale);
}

/* The row-major position of ivs in dims, as an i64 counter. */
static GiltValue *flat_counter(Lower *l, Draw *d, size_t rank,
                               GiltValue *const *dims, GiltValue *const *ivs)
{
  GiltValue *flat = lower_index(l, 0);
  for (size_t i = 0; i < rank; i++) {
    flat = ix_mul(l, flat, dims[i]);
    flat = ix_add(l, flat, ivs[i]);
  }
  return lower_emit(l, LOOP_OP_INDEX_CAST, d->i64, 1, &flat);
}

/* ---- RandomUniform, RandomNormal and their *Like forms ----------------- */

typedef struct Dist {
  Draw d;
  bool normal;
  double a, b; /* low and high, or mean and scale */
  size_t rank;
  GiltValue *dims[GRAPH_MAX_RANK];
} Dist;

/* sqrt(-2 log u1) cos(2 pi u2), of counters 2c and 2c + 1. */
static GiltValue *box_muller(Lower *l, Draw *d, GiltValue *c)
{
  GiltValue *one = i64c(l, d, 1);
  GiltValue *c1 = lower_binary(l, LOOP_OP_SHLI, c, one);
  GiltValue *c2 = lower_binary(l, LOOP_OP_ADDI, c1, one);
  GiltValue *u1 = draw_unit(l, d, c1, 53, true);
  GiltValue *u2 = draw_unit(l, d, c2, 53, false);
  GiltValue *log = lower_unary(l, LOOP_OP_LOG, u1);
  GiltValue *minus_two = lower_constant(l, d->f64, -2.0);
  GiltValue *r2 = lower_binary(l, LOOP_OP_MULF, log, minus_two);
  GiltValue *r = lower_unary(l, LOOP_OP_SQRT, r2);
  GiltValue *two_pi = lower_constant(l, d->f64, TWO_PI);
  GiltValue *angle = lower_binary(l, LOOP_OP_MULF, u2, two_pi);
  GiltValue *cos = lower_unary(l, LOOP_OP_COS, angle);
  return lower_binary(l, LOOP_OP_MULF, r, cos);
}

/* low + (high - low) u, or mean + scale z, rounded to the result type. */
static GiltValue *dist_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Dist *s = user;
  GiltType *elem = lower_result_elem(l, 0);
  GiltValue *c = flat_counter(l, &s->d, s->rank, s->dims, ivs);
  GiltValue *x;
  if (s->normal)
    x = box_muller(l, &s->d, c);
  else
    x = draw_unit(l, &s->d, c, significand_bits(elem), false);
  double width = s->normal ? s->b : s->b - s->a;
  GiltValue *w = lower_constant(l, s->d.f64, width);
  GiltValue *offset = lower_constant(l, s->d.f64, s->a);
  GiltValue *v = lower_binary(l, LOOP_OP_MULF, x, w);
  v = lower_binary(l, LOOP_OP_ADDF, v, offset);
  return lower_convert(l, v, elem);
}

/* like: the shape is operand 0's, else the result type's (static). */
static GiltStatus lower_dist(Lower *l, bool normal, bool like)
{
  Dist s = {.normal = normal};
  GiltType *elem = lower_result_elem(l, 0);
  if (!lower_is_float(elem))
    return lower_error(l, "the result must be float");
  draw_init(l, &s.d);
  s.a = graph_attr_float(l->op, normal ? "mean" : "low", 0);
  s.b = graph_attr_float(l->op, normal ? "scale" : "high", 1);
  s.rank = lower_result_type(l, 0)->shaped.rank;
  if (like)
    lower_dims(l, lower_operand(l, 0), s.dims);
  else
    lower_result_dims(l, 0, NULL, s.dims);
  GiltValue *out = lower_generate(l, 0, s.dims, dist_element, &s);
  return lower_replace(l, &out);
}

static GiltStatus lower_random_uniform(Lower *l)
{
  return lower_dist(l, false, false);
}

static GiltStatus lower_random_normal(Lower *l)
{
  return lower_dist(l, true, false);
}

static GiltStatus lower_random_uniform_like(Lower *l)
{
  return lower_dist(l, false, true);
}

static GiltStatus lower_random_normal_like(Lower *l)
{
  return lower_dist(l, true, true);
}

/* ---- Bernoulli ----------------------------------------------------------- */

static GiltValue *bernoulli_element(Lower *l, GiltValue *const *ivs,
                                    void *user)
{
  Dist *s = user;
  GiltValue *c = flat_counter(l, &s->d, s->rank, s->dims, ivs);
  GiltValue *u = draw_unit(l, &s->d, c, 53, false);
  GiltValue *p = lower_load(l, lower_operand(l, 0), ivs);
  p = lower_convert(l, p, s->d.f64);
  GiltValue *hit = lower_cmp(l, "olt", u, p);
  return lower_convert(l, hit, lower_result_elem(l, 0));
}

static GiltStatus lower_bernoulli(Lower *l)
{
  Dist s = {0};
  draw_init(l, &s.d);
  s.rank = lower_result_type(l, 0)->shaped.rank;
  lower_dims(l, lower_operand(l, 0), s.dims);
  GiltValue *out = lower_generate(l, 0, s.dims, bernoulli_element, &s);
  return lower_replace(l, &out);
}

/* ---- Multinomial ----------------------------------------------------------- */

/* One draw of row `row`: loops over the classes find the largest
** log-probability, the total of exp(x - max), then count the classes
** whose cumulative weight stays at or below u * total: the drawn class,
** capped at the last (rounding). */
typedef struct Row {
  Dist *s;
  GiltValue *x, *row, *max, *target;
} Row;

static GiltValue *class_weight(Lower *l, Row *r, GiltValue *k)
{
  GiltValue *at[2] = {r->row, k};
  GiltValue *x = lower_load(l, r->x, at);
  x = lower_convert(l, x, r->s->d.f64);
  GiltValue *centered = lower_binary(l, LOOP_OP_SUBF, x, r->max);
  return lower_unary(l, LOOP_OP_EXP, centered);
}

static void max_step(Lower *l, GiltValue *k, GiltValue *const *iter,
                     GiltValue **next, void *user)
{
  Row *r = user;
  GiltValue *at[2] = {r->row, k};
  GiltValue *x = lower_load(l, r->x, at);
  x = lower_convert(l, x, r->s->d.f64);
  next[0] = lower_binary(l, LOOP_OP_MAXIMUMF, iter[0], x);
}

static void total_step(Lower *l, GiltValue *k, GiltValue *const *iter,
                       GiltValue **next, void *user)
{
  GiltValue *w = class_weight(l, user, k);
  next[0] = lower_binary(l, LOOP_OP_ADDF, iter[0], w);
}

/* iter: the cumulative weight and the count of classes at or below. */
static void count_step(Lower *l, GiltValue *k, GiltValue *const *iter,
                       GiltValue **next, void *user)
{
  Row *r = user;
  GiltValue *w = class_weight(l, r, k);
  next[0] = lower_binary(l, LOOP_OP_ADDF, iter[0], w);
  GiltValue *below = lower_cmp(l, "ole", next[0], r->target);
  GiltValue *one = lower_index(l, 1);
  GiltValue *more = ix_add(l, iter[1], one);
  next[1] = lower_select(l, below, more, iter[1]);
}

static GiltValue *multinomial_element(Lower *l, GiltValue *const *ivs,
                                      void *user)
{
  Row r = {.s = user, .x = lower_operand(l, 0), .row = ivs[0]};
  GiltValue *classes = lower_dim(l, r.x, 1);
  GiltValue *init = lower_constant(l, r.s->d.f64, -HUGE_VAL);
  lower_for_upto(l, classes, 1, &init, &r.max, max_step, &r);
  GiltValue *zero = lower_constant(l, r.s->d.f64, 0);
  GiltValue *total;
  lower_for_upto(l, classes, 1, &zero, &total, total_step, &r);
  GiltValue *c = flat_counter(l, &r.s->d, 2, r.s->dims, ivs);
  GiltValue *u = draw_unit(l, &r.s->d, c, 53, false);
  r.target = lower_binary(l, LOOP_OP_MULF, u, total);
  GiltValue *inits[2] = {zero, lower_index(l, 0)}, *found[2];
  lower_for_upto(l, classes, 2, inits, found, count_step, &r);
  GiltValue *one = lower_index(l, 1);
  GiltValue *last = ix_sub(l, classes, one);
  GiltValue *k = ix_min(l, found[1], last);
  return lower_convert(l, k, lower_result_elem(l, 0));
}

static GiltStatus lower_multinomial(Lower *l)
{
  Dist s = {0};
  if (lower_result_type(l, 0)->shaped.rank != 2 ||
      gilt_value_get_type(lower_operand(l, 0))->shaped.rank != 2)
    return lower_error(l, "input and output must be [batch, n]");
  draw_init(l, &s.d);
  s.rank = 2;
  s.dims[0] = lower_dim(l, lower_operand(l, 0), 0);
  s.dims[1] = lower_index(l, graph_attr_int(l->op, "sample_size", 1));
  GiltValue *out = lower_generate(l, 0, s.dims, multinomial_element, &s);
  return lower_replace(l, &out);
}

const GraphLoweringRow graph_lower_random[] = {
    {GRAPH_OP_RANDOM_UNIFORM, {lower_random_uniform}},
    {GRAPH_OP_RANDOM_NORMAL, {lower_random_normal}},
    {GRAPH_OP_RANDOM_UNIFORM_LIKE, {lower_random_uniform_like}},
    {GRAPH_OP_RANDOM_NORMAL_LIKE, {lower_random_normal_like}},
    {GRAPH_OP_BERNOULLI, {lower_bernoulli}},
    {GRAPH_OP_MULTINOMIAL, {lower_multinomial}},
    {0, {NULL}},
};
