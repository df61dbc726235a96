/*
** expand_math.c - `loop-expand-math`: rewrites loop.exp, loop.expm1,
** loop.log, loop.log1p, loop.tanh, loop.erf and loop.sigmoid on f32 (and
** on f16 and bf16, which compute in f32) scalars and vectors into plain loop
** arithmetic: range reduction, polynomials evaluated with loop.fma, bit
** manipulation of the exponent, selects.
**
** Why a loop-level pass. Lowered to LLVM, a math op on vector<16xf32> is
** sixteen calls of expf or erff, and on scalars a call that keeps LLVM's
** loop vectorizer out of the loop around it; as arithmetic it vectorizes
** like any other. And because the interpreter and the compiled code then
** run the same IEEE operations, they agree bit for bit: constant folding
** (which interprets), gjit --interpret and compiled runs compute the same
** values, which the ONNX conformance runner checks with --fold-inputs.
** There is one polynomial, here, and no second copy in C or in LLVM IR.
**
** Requires loop-level IR. Replaces each expanded op by the ops before it
** and erases it; preserves everything else. Constants are created next
** to each expansion: run canonicalize and cse after it, and
** loop-invariant-code-motion to hoist them out of loops. f64 and the
** 8-bit floats keep their ops (libm in both back ends), and so do the
** other math ops.
**
** The methods are the classic ones (Cody and Waite's range reduction and
** Cephes' splits for exp and log, musl's order of sums for expm1,
** Goldberg's correction for log1p, the two-interval erf of Arm's
** optimized-routines), with polynomials fitted for this file: Lawson's
** iteratively reweighted least squares (near-minimax) in 50-digit
** arithmetic, on the relative error each function's result makes,
** rounded to f32. Largest errors measured over all 2^32 f32 inputs
** against the double-precision C library (test/unit/expand_math.c checks
** bounds on a dense sweep and exact results at the special values):
**
**   exp    1.01 ulp; +inf from 88.72284 on, subnormal results below
**          -87.34 (rounded once), 0 below -103.97; -inf gives 0.
**   expm1  1.33 ulp; -1 from -17.33 down, +inf as exp.
**   log    0.85 ulp; subnormals included; -inf at ±0, NaN below 0.
**   log1p  1.44 ulp; -inf at -1, NaN below.
**   tanh   1.05 ulp; ±1 from |x| = 9.01 on.
**   erf    1.13 ulp; ±1 from |x| = 3.92 on.
**   sigmoid 2.40 ulp; 1 from 17.33 on, 0 from -87.68 down (where the
**          exact result is below 2^-126).
** A NaN operand is the result, its own bits in both back ends; so is ±0
** where f(±0) = ±0.
**
** Statistic: num-expanded.
*/
#include "dialects/loop/transforms/passes.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dialects/loop/loop.h"
#include "ir/core.h"

/* Where an expansion is built, and the types it computes in: f32, i32 and
** i1, scalars or vectors of the op's lanes. */
typedef struct Expand {
  GiltContext *ctx;
  GiltBuilder *b;
  GiltLocation *loc;
  int64_t lanes; /* 0 for a scalar */
  GiltType *f32, *i32, *i1;
} Expand;

static GiltType *shaped(Expand *e, GiltType *elem)
{
  return e->lanes ? gilt_vector_type_get(e->ctx, 1, &e->lanes, elem) : elem;
}

static GiltValue *emit_attr(Expand *e, const char *name, GiltType *result,
                            size_t n, GiltValue *const *operands,
                            const char *attr, GiltAttr *value)
{
  GiltNamedAttr named = {attr, value};
  GiltOpState st = gilt_op_state_get(name, e->loc);
  st.num_operands = n;
  st.operands = operands;
  st.num_results = 1;
  st.result_types = &result;
  st.num_attrs = attr ? 1 : 0;
  st.attrs = &named;
  return gilt_op_get_result(gilt_builder_create_op(e->b, &st), 0);
}

static GiltValue *emit(Expand *e, const char *name, GiltType *result,
                       size_t n, GiltValue *const *operands)
{
  return emit_attr(e, name, result, n, operands, NULL, NULL);
}

/* A constant of e's shape: a scalar, or a splat of the lanes. */
static GiltValue *constant(Expand *e, GiltType *t, const void *bits,
                           GiltAttr *scalar)
{
  GiltAttr *value = e->lanes ? gilt_dense_elements_attr_get(t, bits, 4) : scalar;
  return emit_attr(e, "loop.constant", t, 0, NULL, "value", value);
}

static GiltValue *f32c(Expand *e, float v)
{
  GiltType *scalar = gilt_float_type_get(e->ctx, GILT_F32);
  return constant(e, e->f32, &v, gilt_float_attr_get(scalar, v));
}

static GiltValue *i32c(Expand *e, int32_t v)
{
  GiltType *scalar = gilt_integer_type_get(e->ctx, 32, GILT_SIGNLESS);
  return constant(e, e->i32, &v, gilt_integer_attr_get(scalar, v));
}

/* Zero of t: the type of the op, f16, bf16 or f32, scalar or vector. */
static GiltValue *zero_of(Expand *e, GiltType *t)
{
  GiltType *elem = loop_element_type(t);
  uint32_t zero = 0; /* all bits clear in every float type */
  GiltAttr *value =
      e->lanes ? gilt_dense_elements_attr_get(t, &zero,
                                              gilt_type_get_bit_width(elem) / 8)
               : gilt_float_attr_get(elem, 0.0);
  return emit_attr(e, "loop.constant", t, 0, NULL, "value", value);
}

/* x op y in the type of x. */
static GiltValue *binary(Expand *e, const char *name, GiltValue *x,
                         GiltValue *y)
{
  GiltValue *ops[2] = {x, y};
  return emit(e, name, gilt_value_get_type(x), 2, ops);
}

static GiltValue *unary(Expand *e, const char *name, GiltValue *x)
{
  return emit(e, name, gilt_value_get_type(x), 1, &x);
}

static GiltValue *fma3(Expand *e, GiltValue *a, GiltValue *b, GiltValue *c)
{
  GiltValue *ops[3] = {a, b, c};
  return emit(e, "loop.fma", e->f32, 3, ops);
}

static GiltValue *cmpf(Expand *e, const char *pred, GiltValue *x,
                       GiltValue *y)
{
  GiltValue *ops[2] = {x, y};
  return emit_attr(e, "loop.cmpf", e->i1, 2, ops, "predicate",
                   gilt_string_attr_get(e->ctx, pred, strlen(pred)));
}

static GiltValue *select3(Expand *e, GiltValue *c, GiltValue *x, GiltValue *y)
{
  GiltValue *ops[3] = {c, x, y};
  return emit(e, "loop.select", gilt_value_get_type(x), 3, ops);
}

static GiltValue *bitcast(Expand *e, GiltValue *x, GiltType *to)
{
  return emit(e, "loop.bitcast", to, 1, &x);
}

/* c[0] + x * (c[1] + x * (... + x * c[n - 1])), by Horner's rule with one
** rounding per step. */
static GiltValue *horner(Expand *e, GiltValue *x, const float *c, size_t n)
{
  GiltValue *p = f32c(e, c[n - 1]);
  for (size_t i = n - 1; i-- > 0;)
    p = fma3(e, p, x, f32c(e, c[i]));
  return p;
}

/* ---- exp and expm1 ---------------------------------------------------------- */

/* exp(r) = 1 + r + r^2 P(r) on |r| <= ln(2)/2 (with room for the
** rounding of n): 0.03 ulp before the f32 evaluation. */
static const float exp_poly[] = {0x1.fffffcp-2f, 0x1.555492p-3f,
                                 0x1.5558f2p-5f, 0x1.1239e4p-7f,
                                 0x1.6a2430p-10f};
/* expm1(r) = r + r^2 P(r) there, fitted to expm1's relative error (one
** degree more): 0.02 ulp. */
static const float expm1_poly[] = {0x1p-1f, 0x1.555554p-3f, 0x1.5554b2p-5f,
                                   0x1.11118ap-7f, 0x1.6d71fap-10f,
                                   0x1.a032d0p-13f};

/* 2^k as f32 for k in [-126, 127]: k + 127 in the exponent field. */
static GiltValue *pow2(Expand *e, GiltValue *k)
{
  GiltValue *biased = binary(e, "loop.addi", k, i32c(e, 127));
  return bitcast(e, binary(e, "loop.shli", biased, i32c(e, 23)), e->f32);
}

/* y 2^n for n in [-150, 128], applied as 2^(n >> 1) then 2^(n - (n >> 1)),
** both normal: the first product is exact, the second rounds once, to a
** subnormal or to +inf where the result is one. */
static GiltValue *scale(Expand *e, GiltValue *y, GiltValue *n)
{
  GiltValue *half = binary(e, "loop.shrsi", n, i32c(e, 1));
  GiltValue *rest = binary(e, "loop.subi", n, half);
  y = binary(e, "loop.mulf", y, pow2(e, half));
  return binary(e, "loop.mulf", y, pow2(e, rest));
}

/* x clamped to [lo, 89] = n ln2 + r, |r| <= ln(2)/2 (Cody and Waite):
** n = round(x / ln2) by adding 1.5 * 2^23, which leaves n in the low bits
** of the sum; ln2 subtracted in two parts, the first of 17 bits so that
** x - n * 0x1.62e4p-1 is exact. Both parts are subtracted as negative
** products: r of -0 is -0. Returns r, and n in *n. */
static GiltValue *reduce_ln2(Expand *e, GiltValue *x, float lo, GiltValue **n)
{
  const float shifter = 0x1.8p23f;
  x = binary(e, "loop.maximumf", x, f32c(e, lo));
  x = binary(e, "loop.minimumf", x, f32c(e, 89.0f));
  GiltValue *log2e = f32c(e, 0x1.715476p+0f);
  GiltValue *k = fma3(e, x, log2e, f32c(e, shifter));
  GiltValue *kbits = bitcast(e, k, e->i32);
  *n = binary(e, "loop.subi", kbits, i32c(e, 0x4b400000)); /* shifter's bits */
  GiltValue *nf = binary(e, "loop.subf", k, f32c(e, shifter));
  GiltValue *r = fma3(e, nf, f32c(e, -0x1.62e4p-1f), x);
  return fma3(e, nf, f32c(e, -0x1.7f7d1cp-20f), r);
}

/* r + r^2 P(r) by Horner's rule. */
static GiltValue *r_plus_r2_poly(Expand *e, GiltValue *r, const float *c,
                                 size_t n)
{
  GiltValue *p = horner(e, r, c, n);
  return fma3(e, p, binary(e, "loop.mulf", r, r), r);
}

/* exp(x) = 2^n exp(r), NaN left to the caller. Clamping x to [-104, 89]
** keeps n in scale's range; the clamps are past where exp rounds to 0
** and overflows. */
static GiltValue *exp_core(Expand *e, GiltValue *x)
{
  GiltValue *n;
  GiltValue *r = reduce_ln2(e, x, -104.0f, &n);
  GiltValue *y = r_plus_r2_poly(e, r, exp_poly,
                                sizeof exp_poly / sizeof *exp_poly);
  return scale(e, binary(e, "loop.addf", y, f32c(e, 1.0f)), n);
}

/* expm1(x) = 2^n (expm1(r) + 1 - 2^-n), the sum rounded once: below
** n = 23 adding 1 - 2^-n (exact), from there subtracting 2^-n first and
** adding 1 (musl's order). From x = -17.5 down expm1 rounds to -1, a
** clamp there keeps 2^-n normal; 2^-n stops at 2^-60, past where it
** counts. */
static GiltValue *expm1_of(Expand *e, GiltValue *x)
{
  GiltValue *n;
  GiltValue *r = reduce_ln2(e, x, -17.5f, &n);
  GiltValue *y = r_plus_r2_poly(e, r, expm1_poly,
                                sizeof expm1_poly / sizeof *expm1_poly);
  GiltValue *zero = i32c(e, 0);
  GiltValue *u = pow2(e, binary(e, "loop.subi", zero,
                                binary(e, "loop.minsi", n, i32c(e, 60))));
  GiltValue *low = binary(e, "loop.addf", y,
                          binary(e, "loop.subf", f32c(e, 1.0f), u));
  GiltValue *y_minus_u = binary(e, "loop.subf", y, u);
  GiltValue *high = binary(e, "loop.addf", y_minus_u, f32c(e, 1.0f));
  GiltValue *ops[2] = {n, i32c(e, 23)};
  GiltValue *below = emit_attr(e, "loop.cmpi", e->i1, 2, ops, "predicate",
                               gilt_string_attr_get(e->ctx, "slt", 3));
  return scale(e, select3(e, below, low, high), n);
}

/* ---- sigmoid ------------------------------------------------------------ */

/* 1 / (1 + exp(-x)) as e / (1 + e) with e = exp(-|x|) <= 1, and 1 minus
** that for x > 0, so that neither the exponential nor the division can
** overflow and the small results keep their relative precision. Cheaper
** than exp_core by its use: z = -|x| clamped to [-88, 0] leaves n = round
** (z / ln2) in [-127, 0], so that 2^n comes out of the rounding sum at
** once (its bias of 127 added in, then shifted into the exponent field)
** and is applied by one multiply-add, n = -127 giving 0. Where e^z is
** subnormal the result is that of one rounding, and from x = -87.68 down
** it is 0. The activation of LSTM gates, squeeze-and-excitation and
** SiLU / Swish networks. */
static GiltValue *sigmoid_of(Expand *e, GiltValue *x)
{
  GiltValue *z = unary(e, "loop.negf", unary(e, "loop.absf", x));
  z = binary(e, "loop.maximumf", z, f32c(e, -88.0f));
  GiltValue *shifter = f32c(e, 0x1.8000fep23f); /* 1.5 * 2^23 + 127 */
  GiltValue *k = fma3(e, z, f32c(e, 0x1.715476p+0f), shifter);
  GiltValue *kbits = bitcast(e, k, e->i32);
  GiltValue *pow2n =
      bitcast(e, binary(e, "loop.shli", kbits, i32c(e, 23)), e->f32);
  GiltValue *n = binary(e, "loop.subf", k, shifter);
  GiltValue *r = fma3(e, n, f32c(e, -0x1.62e4p-1f), z);
  r = fma3(e, n, f32c(e, -0x1.7f7d1cp-20f), r);
  GiltValue *q = r_plus_r2_poly(e, r, exp_poly,
                                sizeof exp_poly / sizeof *exp_poly);
  GiltValue *ez = fma3(e, q, pow2n, pow2n); /* 2^n (1 + expm1(r)) */
  GiltValue *one = f32c(e, 1.0f);
  GiltValue *f = binary(e, "loop.divf", ez, binary(e, "loop.addf", ez, one));
  GiltValue *above = binary(e, "loop.subf", one, f);
  return select3(e, cmpf(e, "ogt", x, f32c(e, 0.0f)), above, f);
}

/* ---- log and log1p --------------------------------------------------------- */

/* log(1 + f) = f - f^2 / 2 + f^3 P(f) on [sqrt(1/2) - 1, sqrt(2) - 1]:
** 0.05 ulp before the f32 evaluation. */
static const float log_poly[] = {0x1.555554p-2f,  -0x1.000228p-2f,
                                 0x1.99a006p-3f,  -0x1.5471eap-3f,
                                 0x1.22da0ep-3f,  -0x1.0d88e0p-3f,
                                 0x1.055daep-3f,  -0x1.38a716p-4f};

/* log(x) for positive finite x, specials left to the caller. x = 2^k m
** with m in [sqrt(1/2), sqrt(2)) from the bits (Cephes' split: subtract
** the bits of sqrt(1/2) so that the exponent field carries k), f = m - 1
** exact, log(x) = k ln2 + log(1 + f) with ln2 in two parts (k * 0x1.63p-1
** exact), the small terms summed first. Subnormal x (when `subnormal`)
** are scaled by 2^23 first. */
static GiltValue *log_core(Expand *e, GiltValue *x, bool subnormal)
{
  const int32_t sqrt_half = 0x3f3504f3;
  GiltValue *adjust = NULL;
  if (subnormal) {
    GiltValue *tiny = cmpf(e, "olt", x, f32c(e, 0x1p-126f));
    x = select3(e, tiny, binary(e, "loop.mulf", x, f32c(e, 0x1p23f)), x);
    GiltValue *scaled = i32c(e, 23);
    adjust = select3(e, tiny, scaled, i32c(e, 0));
  }
  GiltValue *xbits = bitcast(e, x, e->i32);
  GiltValue *bits = binary(e, "loop.subi", xbits, i32c(e, sqrt_half));
  GiltValue *k = binary(e, "loop.shrsi", bits, i32c(e, 23));
  if (adjust)
    k = binary(e, "loop.subi", k, adjust);
  GiltValue *mantissa = binary(e, "loop.andi", bits, i32c(e, 0x7fffff));
  GiltValue *m = binary(e, "loop.addi", mantissa, i32c(e, sqrt_half));
  GiltValue *mf = bitcast(e, m, e->f32);
  GiltValue *f = binary(e, "loop.subf", mf, f32c(e, 1.0f));
  GiltValue *kf = emit(e, "loop.sitofp", e->f32, 1, &k);
  GiltValue *f2 = binary(e, "loop.mulf", f, f);
  GiltValue *p = horner(e, f, log_poly, sizeof log_poly / sizeof *log_poly);
  GiltValue *y = binary(e, "loop.mulf", binary(e, "loop.mulf", f2, f), p);
  y = fma3(e, kf, f32c(e, -0x1.bd0106p-13f), y);
  y = fma3(e, f2, f32c(e, -0.5f), y);
  GiltValue *ln2_hi = f32c(e, 0x1.63p-1f);
  return fma3(e, kf, ln2_hi, binary(e, "loop.addf", f, y));
}

/* log's answers where log_core has none: -inf at 0, NaN below, +inf at
** +inf (NaN is the caller's). */
static GiltValue *log_specials(Expand *e, GiltValue *x, GiltValue *y)
{
  GiltValue *at_zero = cmpf(e, "oeq", x, f32c(e, 0.0f));
  y = select3(e, at_zero, f32c(e, -INFINITY), y);
  GiltValue *below = cmpf(e, "olt", x, f32c(e, 0.0f));
  y = select3(e, below, f32c(e, NAN), y);
  GiltValue *at_inf = cmpf(e, "oeq", x, f32c(e, INFINITY));
  return select3(e, at_inf, f32c(e, INFINITY), y);
}

static GiltValue *log_of(Expand *e, GiltValue *x)
{
  return log_specials(e, x, log_core(e, x, true));
}

/* log1p(x) = log(u) + (x - (u - 1)) / u with u = 1 + x rounded: the
** quotient puts back what the rounding of u lost (Goldberg's
** correction). u is never subnormal. */
static GiltValue *log1p_of(Expand *e, GiltValue *x)
{
  GiltValue *one = f32c(e, 1.0f);
  GiltValue *u = binary(e, "loop.addf", one, x);
  GiltValue *lost = binary(e, "loop.subf", x, binary(e, "loop.subf", u, one));
  GiltValue *log_u = log_core(e, u, false);
  GiltValue *y = binary(e, "loop.addf", log_u,
                        binary(e, "loop.divf", lost, u));
  return log_specials(e, u, y);
}

/* ---- tanh --------------------------------------------------------------- */

/* tanh(x) = x + x^3 P(x^2) for |x| < 0.875: 0.06 ulp before the f32
** evaluation. */
static const float tanh_poly[] = {-0x1.555550p-2f, 0x1.110faap-3f,
                                  -0x1.b9da70p-5f, 0x1.6377cap-6f,
                                  -0x1.11055ap-7f, 0x1.5b78fap-9f,
                                  -0x1.f9d99cp-12f};

/* y (whose sign bit is clear) with the sign of x: the odd functions
** are computed on |x|, so that -0 stays -0. */
static GiltValue *with_sign_of(Expand *e, GiltValue *x, GiltValue *y)
{
  GiltValue *xbits = bitcast(e, x, e->i32);
  GiltValue *sign = binary(e, "loop.andi", xbits, i32c(e, INT32_MIN));
  return bitcast(e, binary(e, "loop.ori", bitcast(e, y, e->i32), sign),
                 e->f32);
}

/* On a = |x|: near 0 the odd polynomial, from 0.875 on
** 1 - 2 / (exp(2a) + 1), which reaches 1 (and +inf gives 1) without a
** clamp. */
static GiltValue *tanh_of(Expand *e, GiltValue *x)
{
  GiltValue *a = unary(e, "loop.absf", x);
  GiltValue *z = binary(e, "loop.mulf", a, a);
  GiltValue *p = horner(e, z, tanh_poly, sizeof tanh_poly / sizeof *tanh_poly);
  GiltValue *small = fma3(e, binary(e, "loop.mulf", a, z), p, a);
  GiltValue *t = exp_core(e, binary(e, "loop.addf", a, a));
  GiltValue *two = f32c(e, 2.0f);
  GiltValue *q = binary(e, "loop.divf", two,
                        binary(e, "loop.addf", t, f32c(e, 1.0f)));
  GiltValue *large = binary(e, "loop.subf", f32c(e, 1.0f), q);
  return with_sign_of(
      e, x, select3(e, cmpf(e, "olt", a, f32c(e, 0.875f)), small, large));
}

/* ---- erf ---------------------------------------------------------------- */

/* erf(x) = x + x P(x^2) for |x| < 0.921875: 0.22 ulp before the f32
** evaluation. */
static const float erf_small_poly[] = {0x1.06eba6p-3f, -0x1.8126e6p-2f,
                                       0x1.ce1a6ap-4f, -0x1.b68b52p-6f,
                                       0x1.473ba6p-8f, -0x1.3a17d6p-11f};
/* erf(a) = 1 - exp(-(a + a Q(a))) for a in [0.921875, 4]: Q approximates
** (-log(erfc(a)) - a) / a, weighted by a erfc(a) (the error it makes in
** erf), 0.02 ulp before the f32 evaluation. */
static const float erf_large_poly[] = {0x1.077b56p-3f, 0x1.452ffap-1f,
                                       0x1.b3485ep-4f, -0x1.85cc50p-6f,
                                       0x1.df4768p-9f, -0x1.5633b8p-12f,
                                       0x1.84f336p-17f};

/* On a = |x|, two intervals, both computed and one selected. Above 4 erf
** rounds to 1: a is clamped there, which also keeps +inf out of the
** polynomial. */
static GiltValue *erf_of(Expand *e, GiltValue *x)
{
  GiltValue *a = unary(e, "loop.absf", x);
  GiltValue *p = horner(e, binary(e, "loop.mulf", a, a), erf_small_poly,
                        sizeof erf_small_poly / sizeof *erf_small_poly);
  GiltValue *small = fma3(e, a, p, a);
  GiltValue *ac = binary(e, "loop.minimumf", a, f32c(e, 4.0f));
  GiltValue *q = horner(e, ac, erf_large_poly,
                        sizeof erf_large_poly / sizeof *erf_large_poly);
  GiltValue *t = fma3(e, ac, q, ac);
  GiltValue *tail = exp_core(e, unary(e, "loop.negf", t));
  GiltValue *large = binary(e, "loop.subf", f32c(e, 1.0f), tail);
  return with_sign_of(
      e, x, select3(e, cmpf(e, "olt", a, f32c(e, 0.921875f)), small, large));
}

/* ---- the pass ------------------------------------------------------------ */

typedef GiltValue *(*ExpandFn)(Expand *e, GiltValue *x);

typedef struct Expansion {
  ExpandFn fn;
  /* f(±0) is ±0: the operand is the result at zero as well as at NaN,
  ** which keeps the sign of a zero the arithmetic would lose. */
  bool zero_fixed;
} Expansion;

static const Expansion expansions[LOOP_NUM_OPS] = {
    [LOOP_OP_EXP] = {exp_core, false},  [LOOP_OP_EXPM1] = {expm1_of, true},
    [LOOP_OP_LOG] = {log_of, false},    [LOOP_OP_LOG1P] = {log1p_of, true},
    [LOOP_OP_TANH] = {tanh_of, true},   [LOOP_OP_ERF] = {erf_of, true},
    [LOOP_OP_SIGMOID] = {sigmoid_of, false},
};

/* f32 computes as it is; f16 and bf16 through f32, rounded once at the
** end (what their ops compute: in f32, rounded to the type). */
static bool expandable(GiltType *elem)
{
  GiltFloatKind k = gilt_float_type_get_kind(elem);
  return k == GILT_F32 || k == GILT_F16 || k == GILT_BF16;
}

typedef struct Walk {
  GiltBuilder *b;
  int64_t num_expanded;
} Walk;

static GiltWalkResult expand_op(GiltOp *op, void *user)
{
  Walk *w = user;
  LoopOpId id = loop_op_id(op);
  if (id == LOOP_NUM_OPS || !expansions[id].fn)
    return GILT_WALK_ADVANCE;
  const Expansion *how = &expansions[id];
  GiltType *t = gilt_value_get_type(gilt_op_get_result(op, 0));
  GiltType *elem = loop_element_type(t);
  if (!elem || elem->kind != GILT_TYPE_FLOAT || !expandable(elem))
    return GILT_WALK_ADVANCE;
  Expand e = {gilt_op_get_context(op), w->b, gilt_op_get_location(op),
              t->kind == GILT_TYPE_VECTOR ? t->shaped.shape[0] : 0,
              NULL, NULL, NULL};
  e.f32 = shaped(&e, gilt_float_type_get(e.ctx, GILT_F32));
  e.i32 = shaped(&e, gilt_integer_type_get(e.ctx, 32, GILT_SIGNLESS));
  e.i1 = shaped(&e, gilt_integer_type_get(e.ctx, 1, GILT_SIGNLESS));
  gilt_builder_set_insertion_point_before(w->b, op);
  GiltValue *x = gilt_op_get_operand(op, 0), *x32 = x;
  if (t != e.f32)
    x32 = emit(&e, "loop.extf", e.f32, 1, &x);
  GiltValue *y = how->fn(&e, x32);
  if (t != e.f32)
    y = emit(&e, "loop.truncf", t, 1, &y);
  /* NaN in, the same NaN out: the NaN that the clamps, the arithmetic or
  ** a conversion make may differ in sign or payload between the
  ** interpreter and LLVM. "ueq" with 0 is "uno" or ±0. */
  GiltValue *keep = how->zero_fixed
                        ? cmpf(&e, "ueq", x, zero_of(&e, t))
                        : cmpf(&e, "uno", x, x);
  y = select3(&e, keep, x, y);
  gilt_op_replace_all_uses_with(op, &y);
  gilt_op_destroy(op);
  w->num_expanded++;
  return GILT_WALK_ADVANCE;
}

static GiltStatus run(GiltPass *pass, GiltOp *op)
{
  Walk w = {gilt_builder_create(gilt_pass_get_context(pass)), 0};
  gilt_op_walk(op, GILT_WALK_POST_ORDER, expand_op, &w);
  gilt_builder_destroy(w.b);
  gilt_pass_add_statistic(pass, "num-expanded",
                          "Number of math ops expanded into arithmetic",
                          w.num_expanded);
  if (!w.num_expanded)
    gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_loop_expand_math_pass = {
    .name = "loop-expand-math",
    .description = "Expand exp, expm1, log, log1p, tanh and erf on f32 "
                   "(f16, bf16) into loop arithmetic that vectorizes and "
                   "that the interpreter and the compiled code compute "
                   "alike",
    .anchor = NULL,
    .run = run,
};
