/*
** expand_math.c - `loop-expand-math`: rewrites loop.exp, loop.tanh and
** loop.erf on f32 (and on f16 and bf16, which compute in f32) scalars and
** vectors into plain loop arithmetic: range reduction, polynomials
** evaluated with loop.fma, bit manipulation of the exponent, selects.
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
** 8-bit floats keep their ops (libm in both back ends).
**
** The methods are the classic ones (Cody & Waite's range reduction, as in
** Cephes' expf; the two-interval erf of Arm's optimized-routines), with
** polynomials fitted for this file (Lawson's iteratively reweighted least
** squares in 50-digit arithmetic, rounded to f32). Largest errors
** measured over every f32 input against the double-precision C library
** (test/unit/expand_math.c checks them on a dense sweep):
**
**   exp   0.99 ulp; overflow to +inf above 88.72284, results subnormal
**         from -87.34 down to -103.97 (one rounding), then 0; -inf gives
**         0, +inf gives +inf.
**   tanh  1.02 ulp; odd, ±1 from |x| = 9.01 on, -0 kept.
**   erf   1.11 ulp; odd, ±1 from |x| = 3.92 on, -0 kept.
** A NaN input is returned as it is (its own bits, in both back ends).
**
** Statistic: num-expanded.
*/
#include "dialects/loop/transforms/passes.h"

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

/* ---- exp ---------------------------------------------------------------- */

/* exp(r) = 1 + r + r^2 P(r) on |r| <= ln(2)/2 (with room for the
** rounding of n): 0.03 ulp before the f32 evaluation. */
static const float exp_poly[] = {0x1.fffffcp-2f, 0x1.555492p-3f,
                                 0x1.5558f2p-5f, 0x1.1239e4p-7f,
                                 0x1.6a2430p-10f};

/* 2^k as f32 for k in [-126, 127]: k + 127 in the exponent field. */
static GiltValue *pow2(Expand *e, GiltValue *k)
{
  GiltValue *biased = binary(e, "loop.addi", k, i32c(e, 127));
  return bitcast(e, binary(e, "loop.shli", biased, i32c(e, 23)), e->f32);
}

/* exp(x), NaN left to the caller. x = n ln2 + r with n = round(x / ln2),
** by adding 1.5 * 2^23 (which leaves n in the low bits of the sum) and
** subtracting ln2 in two parts (Cody-Waite: n * 0x1.63p-1 is exact);
** exp(x) = 2^n exp(r), with 2^n applied as two factors 2^(n >> 1) and
** 2^(n - (n >> 1)) so that n from -150 to 128 needs no special case:
** the first product is exact, the second rounds once, to a subnormal or
** to +inf where the result is one. Clamping x to [-104, 89] keeps n in
** that range. */
static GiltValue *exp_core(Expand *e, GiltValue *x)
{
  const float shifter = 0x1.8p23f;
  x = binary(e, "loop.maximumf", x, f32c(e, -104.0f));
  x = binary(e, "loop.minimumf", x, f32c(e, 89.0f));
  GiltValue *k = fma3(e, x, f32c(e, 0x1.715476p+0f), f32c(e, shifter));
  GiltValue *n = binary(e, "loop.subi", bitcast(e, k, e->i32),
                        i32c(e, 0x4b400000)); /* shifter's bits */
  GiltValue *nf = binary(e, "loop.subf", k, f32c(e, shifter));
  GiltValue *r = fma3(e, nf, f32c(e, -0x1.63p-1f), x);
  r = fma3(e, nf, f32c(e, 0x1.bd0106p-13f), r);
  GiltValue *p = horner(e, r, exp_poly, sizeof exp_poly / sizeof *exp_poly);
  GiltValue *y = fma3(e, p, binary(e, "loop.mulf", r, r), r);
  y = binary(e, "loop.addf", y, f32c(e, 1.0f));
  GiltValue *half = binary(e, "loop.shrsi", n, i32c(e, 1));
  GiltValue *rest = binary(e, "loop.subi", n, half);
  y = binary(e, "loop.mulf", y, pow2(e, half));
  return binary(e, "loop.mulf", y, pow2(e, rest));
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
  GiltValue *sign = binary(e, "loop.andi", bitcast(e, x, e->i32),
                           i32c(e, INT32_MIN));
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
  GiltValue *q = binary(e, "loop.divf", f32c(e, 2.0f),
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

static ExpandFn expansion_of(GiltOp *op)
{
  switch (loop_op_id(op)) {
  case LOOP_OP_EXP: return exp_core;
  case LOOP_OP_TANH: return tanh_of;
  case LOOP_OP_ERF: return erf_of;
  default: return NULL;
  }
}

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
  ExpandFn fn = expansion_of(op);
  GiltValue *result = fn ? gilt_op_get_result(op, 0) : NULL;
  GiltType *t = result ? gilt_value_get_type(result) : NULL;
  GiltType *elem = t ? loop_element_type(t) : NULL;
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
  GiltValue *y = fn(&e, x32);
  if (t != e.f32)
    y = emit(&e, "loop.truncf", t, 1, &y);
  /* NaN in, the same NaN out: the NaN that the clamps, the arithmetic or
  ** a conversion make may differ in sign or payload between the
  ** interpreter and LLVM. */
  y = select3(&e, cmpf(&e, "uno", x, x), x, y);
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
    .description = "Expand exp, tanh and erf on f32 (f16, bf16) into loop "
                   "arithmetic that the interpreter and the compiled code "
                   "compute alike",
    .anchor = NULL,
    .run = run,
};
