/*
** expand_math.c - unit test of `loop-expand-math`: loop.exp, expm1, log,
** log1p, tanh, erf and sigmoid expanded into loop arithmetic, run by the
** interpreter and compiled, over a dense sweep of f32 inputs (every 509th
** bit pattern, about 8.4 million, and the special values: zeros,
** subnormals, the thresholds of overflow, underflow and saturation,
** infinities, NaNs).
**
** What it asserts, per op:
**   - the interpreted results are within a bound of the C library's
**     double-precision function (the exact value, near enough) rounded to
**     f32: exp 1.05 ulp, log 1 ulp, the others 1.5 ulp, sigmoid 2.5 ulp
**     and 0 where its exact result is below 2^-126 (the largest errors
**     over all 2^32 inputs are in dialects/loop/transforms/expand_math.c);
**   - exact results where f32 has them: exp(-inf) = 0, exp(+inf) = +inf,
**     overflow to +inf and underflow to 0, log(0) = -inf, log(1) = 0, ±0
**     kept where f(±0) = ±0, ±1 at the saturations, a NaN returned with
**     its own bits;
**   - the compiled code computes the same bits as the interpreter, for
**     vectors of 16 lanes and for scalars (whose expansion is the same);
**   - f16 and bf16 (computed in f32, rounded once), over every bit
**     pattern but the signaling NaNs: within one unit of the correctly
**     rounded result, and compiled equal to interpreted (but for
**     subnormal bf16 results: same_halves says why).
** Not here: speed (bench/math.sh).
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/interpreter.h"
#include "gilt/jit.h"
#include "gilt/pass.h"
#include "gilt/register.h"
#include "test/unit/check.h"

static GiltContext *ctx;

static void on_diag(const GiltDiagnostic *d, void *user)
{
  (void)user;
  fprintf(stderr, "diagnostic: %s\n", gilt_diagnostic_get_message(d));
}

/* @vec runs loop.$OP over a buffer of $T 16 lanes at a time, @scalar one
** element at a time (the length is a multiple of 16). */
static const char vector_src[] =
    "func.func @vec(%in: memref<?x$T>) -> memref<?x$T> {\n"
    "  %c0 = loop.constant 0 : index\n"
    "  %c16 = loop.constant 16 : index\n"
    "  %n = loop.dim %in, %c0 : (memref<?x$T>, index) -> index\n"
    "  %out = loop.alloc(%n) : memref<?x$T>\n"
    "  loop.for %i = %c0 to %n step %c16 {\n"
    "    %v = loop.vector_load %in[%i] : memref<?x$T>, vector<16x$T>\n"
    "    %r = loop.$OP %v : vector<16x$T>\n"
    "    loop.vector_store %r, %out[%i] : memref<?x$T>, vector<16x$T>\n"
    "    loop.yield\n"
    "  }\n"
    "  return %out : memref<?x$T>\n"
    "}\n"
    "func.func @scalar(%in: memref<?x$T>) -> memref<?x$T> {\n"
    "  %c0 = loop.constant 0 : index\n"
    "  %c1 = loop.constant 1 : index\n"
    "  %n = loop.dim %in, %c0 : (memref<?x$T>, index) -> index\n"
    "  %out = loop.alloc(%n) : memref<?x$T>\n"
    "  loop.for %i = %c0 to %n step %c1 {\n"
    "    %x = loop.load %in[%i] : memref<?x$T>\n"
    "    %r = loop.$OP %x : $T\n"
    "    loop.store %r, %out[%i] : memref<?x$T>\n"
    "    loop.yield\n"
    "  }\n"
    "  return %out : memref<?x$T>\n"
    "}\n";

/* The module for op on elem, expanded (NULL after a failed check). */
static GiltOp *expanded_module(const char *op, const char *elem)
{
  char src[2 * sizeof vector_src];
  size_t len = 0;
  for (const char *p = vector_src; *p && len + 8 < sizeof src; p++) {
    const char *with = !strncmp(p, "$T", 2) ? elem : !strncmp(p, "$OP", 3) ? op : NULL;
    if (!with) {
      src[len++] = *p;
      continue;
    }
    len += (size_t)snprintf(src + len, sizeof src - len, "%s", with);
    p += with == elem ? 1 : 2;
  }
  src[len] = '\0';
  GiltOp *m = gilt_parse_source(ctx, src, strlen(src), "expand-math.gilt");
  CHECK(m != NULL);
  if (!m)
    return NULL;
  GiltPassManager *pm = gilt_pass_manager_create(ctx);
  GiltStatus st =
      gilt_pass_manager_add_pipeline(pm, "loop-expand-math,canonicalize,cse");
  if (st == GILT_SUCCESS)
    st = gilt_pass_manager_run(pm, m);
  gilt_pass_manager_destroy(pm);
  CHECK(st == GILT_SUCCESS);
  return m;
}

/* The result of fn of m (or of jm when not NULL) on `in`; NULL after a
** failed check. */
static GiltTensor *run(GiltOp *m, GiltJitModule *jm, const char *fn,
                       GiltTensor *in)
{
  size_t n = 0;
  GiltTensor **out = NULL;
  GiltStatus st = jm ? gilt_jit_call(jm, fn, 1, &in, &n, &out)
                     : gilt_interpret_function(m, fn, 1, &in, &n, &out);
  CHECK(st == GILT_SUCCESS && n == 1);
  GiltTensor *r = st == GILT_SUCCESS && n == 1 ? out[0] : NULL;
  free(out);
  return r;
}

/* The module lowered on and compiled (m is not changed). */
static GiltJitModule *compile(GiltOp *m)
{
  GiltOp *lowered = gilt_op_clone(m);
  GiltPassManager *pm = gilt_pass_manager_create(ctx);
  GiltStatus st = gilt_pass_manager_add_pipeline(pm, "loop-to-llvm");
  if (st == GILT_SUCCESS)
    st = gilt_pass_manager_run(pm, lowered);
  gilt_pass_manager_destroy(pm);
  GiltJitOptions opts = GILT_JIT_OPTIONS_DEFAULT;
  opts.threads = 1;
  GiltJitModule *jm = st == GILT_SUCCESS ? gilt_jit_compile(lowered, &opts) : NULL;
  CHECK(jm != NULL);
  gilt_op_destroy(lowered);
  return jm;
}

static bool same_bits(GiltTensor *a, GiltTensor *b)
{
  return a && b && gilt_tensor_get_num_bytes(a) == gilt_tensor_get_num_bytes(b) &&
         !memcmp(gilt_tensor_get_data(a), gilt_tensor_get_data(b),
                 gilt_tensor_get_num_bytes(a));
}

/* ---- f32 ------------------------------------------------------------------ */

static float from_bits(uint32_t u)
{
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint32_t bits_of(float f)
{
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* The error of y in units in the last place of the f32 nearest to the
** exact value ref (a double with 29 more bits is exact enough); an
** infinity or a NaN where the other is not counts as 1e9. */
static double ulp_error(float y, double ref)
{
  if (fabs(ref) >= 0x1.ffffffp127) /* rounds to infinity in f32 */
    ref = copysign(INFINITY, ref);
  if (isnan(ref) || isnan(y))
    return isnan(ref) && isnan(y) ? 0 : 1e9;
  if (isinf(ref) || isinf(y))
    return (double)y == ref ? 0 : 1e9;
  int e;
  frexp(ref, &e);
  double ulp = ldexp(1.0, (e < -125 ? -125 : e) - 24);
  return fabs((double)y - ref) / ulp;
}

/* An input and the exact result expected of it. */
typedef struct Exact {
  float x, y;
} Exact;

typedef struct MathOp {
  const char *name;
  double (*ref)(double);
  double max_ulp;
  bool flushes; /* a result below 2^-126 may be 0 */
  Exact exact[8]; /* ends at the first {0, 0} after the first */
} MathOp;

static double sigmoid(double x) { return 1 / (1 + exp(-x)); }

static const MathOp ops[] = {
    {"exp", exp, 1.05, false,
     {{-0.0f, 1}, {INFINITY, INFINITY}, {-INFINITY, 0}, {89, INFINITY},
      {-104, 0}, {0x1.62e430p6f, INFINITY}, {-0x1.9fe368p6f, 0x1p-149f}}},
    {"expm1", expm1, 1.5, false,
     {{0, 0}, {-0.0f, -0.0f}, {INFINITY, INFINITY}, {-INFINITY, -1},
      {89, INFINITY}, {-20, -1}, {0x1p-30f, 0x1p-30f}}},
    {"log", log, 1.0, false,
     {{0, -INFINITY}, {-0.0f, -INFINITY}, {1, 0}, {INFINITY, INFINITY},
      {2, 0x1.62e430p-1f}, {0x1p-149f, -0x1.9d1da0p6f}}},
    {"log1p", log1p, 1.5, false,
     {{0, 0}, {-0.0f, -0.0f}, {-1, -INFINITY}, {INFINITY, INFINITY},
      {0x1p-30f, 0x1p-30f}}},
    {"tanh", tanh, 1.5, false,
     {{0, 0}, {-0.0f, -0.0f}, {INFINITY, 1}, {-INFINITY, -1}, {20, 1},
      {-9.1f, -1}, {0x1p-140f, 0x1p-140f}}},
    {"erf", erf, 1.5, false,
     {{0, 0}, {-0.0f, -0.0f}, {INFINITY, 1}, {-INFINITY, -1}, {4, 1},
      {-5, -1}}},
    {"sigmoid", sigmoid, 2.5, true,
     {{0, 0.5f}, {-0.0f, 0.5f}, {INFINITY, 1}, {-INFINITY, 0}, {20, 1},
      {-100, 0}, {1e30f, 1}}},
};

/* Special inputs beside the sweep. */
static const float specials[] = {
    0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 0x1.fffffcp-127f, -1.0f,
    -2.0f, 0x1.fffffep-1f, 0x1.000002p+0f, -17.5f, 17.0f, 44.0f, 1e-8f,
    1.0f, -1.0f, 0.5f, -0.5f, 0.875f, -0.875f, 0.921875f, -0.921875f,
    0x1.62e42ep6f, 0x1.62e430p6f, 88.0f, 89.0f, 100.0f, -87.33f, -87.34f,
    -103.97f, -103.98f, -104.0f, -150.0f, 3.92f, 4.0f, 9.01f, 9.02f, 20.0f,
    -20.0f, 0x1p-20f, -0x1p-20f, 1e30f, -1e30f, 3.4e38f, -3.4e38f};

static GiltTensor *sweep_input(int64_t *count)
{
  const uint64_t stride = 509;
  size_t nspecial = sizeof specials / sizeof *specials + 4;
  int64_t n = (int64_t)(((1ull << 32) + stride - 1) / stride + nspecial);
  n = (n + 15) / 16 * 16;
  GiltTensor *t = gilt_tensor_create(gilt_type_parse(ctx, "f32"), 1, &n);
  float *x = gilt_tensor_get_data(t);
  int64_t k = 0;
  for (size_t i = 0; i < sizeof specials / sizeof *specials; i++)
    x[k++] = specials[i];
  x[k++] = INFINITY;
  x[k++] = -INFINITY;
  x[k++] = from_bits(0x7fc01234); /* quiet NaNs with payloads and signs */
  x[k++] = from_bits(0xffa00001); /* a signaling one */
  for (uint64_t u = 0; u < (1ull << 32) && k < n; u += stride)
    x[k++] = from_bits((uint32_t)u);
  while (k < n)
    x[k++] = 1.0f;
  *count = n;
  return t;
}

static void check_f32(const MathOp *op, GiltTensor *in)
{
  GiltOp *m = expanded_module(op->name, "f32");
  if (!m)
    return;
  GiltJitModule *jm = compile(m);
  GiltTensor *vi = run(m, NULL, "vec", in), *si = run(m, NULL, "scalar", in);
  GiltTensor *vc = jm ? run(m, jm, "vec", in) : NULL;
  GiltTensor *sc = jm ? run(m, jm, "scalar", in) : NULL;
  CHECK(same_bits(vi, si));
  CHECK(same_bits(vi, vc));
  CHECK(same_bits(vi, sc));
  if (vi) {
    const float *x = gilt_tensor_get_data(in), *y = gilt_tensor_get_data(vi);
    double worst = 0;
    float worst_x = 0;
    for (int64_t i = 0; i < gilt_tensor_get_num_elements(in); i++) {
      double ref = op->ref(x[i]);
      double e = op->flushes && fabs(ref) < 0x1p-126 && y[i] == 0
                     ? 0
                     : ulp_error(y[i], ref);
      if (isnan(x[i]))
        e = bits_of(y[i]) == bits_of(x[i]) ? 0 : 1e9;
      if (e > worst) {
        worst = e;
        worst_x = x[i];
      }
    }
    printf("%-5s max error %.3f ulp at %a over %lld inputs\n", op->name,
           worst, worst_x, (long long)gilt_tensor_get_num_elements(in));
    CHECK(worst <= op->max_ulp);
    /* Where f32 has the exact answer: the result's bits. */
    for (size_t i = 0; i < sizeof op->exact / sizeof *op->exact; i++) {
      const Exact *c = &op->exact[i];
      if (i && c->x == 0 && c->y == 0 && !signbit(c->x))
        break;
      GiltTensor *one = gilt_tensor_create(gilt_type_parse(ctx, "f32"), 1,
                                           &(int64_t){16});
      for (int k = 0; k < 16; k++)
        ((float *)gilt_tensor_get_data(one))[k] = c->x;
      GiltTensor *got = run(m, NULL, "vec", one);
      float v = got ? *(float *)gilt_tensor_get_data(got) : NAN;
      if (bits_of(v) != bits_of(c->y))
        fprintf(stderr, "%s(%a) is %a, expected %a\n", op->name, c->x, v,
                c->y);
      CHECK(bits_of(v) == bits_of(c->y));
      gilt_tensor_destroy(one);
      gilt_tensor_destroy(got);
    }
  }
  gilt_tensor_destroy(vi);
  gilt_tensor_destroy(si);
  gilt_tensor_destroy(vc);
  gilt_tensor_destroy(sc);
  if (jm)
    gilt_jit_destroy(jm);
  gilt_op_destroy(m);
}

/* ---- f16 and bf16 ------------------------------------------------------ */

/* Units between two 16-bit floats of the same sign (0 for equal bits). */
static int units_apart(uint16_t a, uint16_t b)
{
  if ((a ^ b) & 0x8000)
    return (a & 0x7fff) == 0 && (b & 0x7fff) == 0 ? 0 : 1 << 16;
  return abs((int)(a & 0x7fff) - (int)(b & 0x7fff));
}

/* Whether two results of 16-bit floats have the same bits, but for bf16
** ones from subnormal f32 values: the compiled code's f32 to bf16
** conversion (LLVM's fptrunc, an AVX512-BF16 vcvtneps2bf16 on hosts that
** have it) flushes those to zero, where the interpreter rounds them (to a
** subnormal or the smallest normal). That is loop.truncf's own
** difference, there before this pass, not the expansion's. */
static bool same_halves(GiltTensor *a, GiltTensor *b, const char *elem)
{
  if (!a || !b)
    return false;
  const uint16_t *x = gilt_tensor_get_data(a), *y = gilt_tensor_get_data(b);
  bool bf16 = !strcmp(elem, "bf16");
  for (int64_t i = 0; i < gilt_tensor_get_num_elements(a); i++)
    if (x[i] != y[i] &&
        !(bf16 && (x[i] & 0x7fff) <= 0x0080 && !(y[i] & 0x7fff)))
      return false;
  return true;
}

static void check_half(const MathOp *op, const char *elem)
{
  GiltOp *m = expanded_module(op->name, elem);
  if (!m)
    return;
  GiltJitModule *jm = compile(m);
  int64_t n = 1 << 16;
  GiltType *t = gilt_type_parse(ctx, elem);
  GiltTensor *in = gilt_tensor_create(t, 1, &n), *ref = gilt_tensor_create(t, 1, &n);
  uint16_t *x = gilt_tensor_get_data(in);
  /* The quiet bit, the top one of the significand: the interpreter holds
  ** a 16-bit float in a C float, which quiets a signaling NaN as it loads
  ** it (compiled code keeps it), so those are left out. */
  uint16_t quiet = !strcmp(elem, "f16") ? 0x0200 : 0x0040;
  for (int64_t i = 0; i < n; i++) {
    x[i] = (uint16_t)i;
    if (isnan(gilt_tensor_get_double(in, i)))
      x[i] |= quiet;
    gilt_tensor_set_double(ref, i, op->ref(gilt_tensor_get_double(in, i)));
  }
  GiltTensor *vi = run(m, NULL, "vec", in);
  GiltTensor *vc = jm ? run(m, jm, "vec", in) : NULL;
  GiltTensor *sc = jm ? run(m, jm, "scalar", in) : NULL;
  CHECK(same_halves(vi, vc, elem));
  CHECK(same_halves(vi, sc, elem));
  int worst = 0;
  for (int64_t i = 0; vi && i < n; i++) {
    uint16_t y = ((uint16_t *)gilt_tensor_get_data(vi))[i];
    uint16_t r = ((uint16_t *)gilt_tensor_get_data(ref))[i];
    bool nan = isnan(gilt_tensor_get_double(in, i));
    bool domain = !nan && isnan(gilt_tensor_get_double(ref, i)); /* log(-1) */
    bool flushed = op->flushes && !(y & 0x7fff) &&
                   fabs(op->ref(gilt_tensor_get_double(in, i))) < 0x1p-126;
    int d = nan      ? (y == x[i] ? 0 : 1 << 16)
            : domain ? (isnan(gilt_tensor_get_double(vi, i)) ? 0 : 1 << 16)
            : flushed ? 0
                      : units_apart(y, r);
    worst = d > worst ? d : worst;
  }
  printf("%-5s %-4s max error %d unit(s) over every value\n", op->name, elem,
         worst);
  CHECK(worst <= 1);
  gilt_tensor_destroy(in);
  gilt_tensor_destroy(ref);
  gilt_tensor_destroy(vi);
  gilt_tensor_destroy(vc);
  gilt_tensor_destroy(sc);
  if (jm)
    gilt_jit_destroy(jm);
  gilt_op_destroy(m);
}

int main(void)
{
  ctx = gilt_context_create();
  gilt_context_set_diagnostic_handler(ctx, on_diag, NULL);
  gilt_register_all_dialects(ctx);
  gilt_register_all_passes(ctx);
  int64_t n;
  GiltTensor *in = sweep_input(&n);
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    check_f32(&ops[i], in);
    check_half(&ops[i], "f16");
    check_half(&ops[i], "bf16");
  }
  gilt_tensor_destroy(in);
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
