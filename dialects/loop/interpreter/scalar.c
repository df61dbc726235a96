/*
** scalar.c - the interpreter's arithmetic: integer and float ops,
** comparisons and select, on scalars and lane by lane on vectors.
**
** Each op gets handlers specialized by how its element type computes:
** integers of 64 bits (and index) without wrapping, narrower ones wrapped
** to their width; f32 in C float, f64 in double, and the small floats
** (f16, bf16, the 8-bit formats) in float, rounded to their type after
** the op. The math functions come from <tgmath.h>, so that an f32 op
** calls expf, erff, ..., never the double version. Not here: casts
** (cast.c), memory (memory.c), vector-only ops (vector.c).
*/
#include "dialects/loop/interpreter/interpreter.h"

#include <string.h>
#include <tgmath.h>

#include "ir/support/float16.h"

float interp_round_small(unsigned kind, double v)
{
  switch (kind) {
  case GILT_F16:
    return gilt_float_from_f16(gilt_f16_from_double(v));
  case GILT_BF16:
    return gilt_float_from_bf16(gilt_bf16_from_double(v));
  default:
    return (float)gilt_float_bits_to_double(
        kind, gilt_float_bits_from_double(kind, v, false));
  }
}

/* ---- floats ----------------------------------------------------------------- */

#define FLOAT_BINARY_OPS(X)                                                  \
  X(ADDF, addf, x + y)                                                       \
  X(SUBF, subf, x - y)                                                       \
  X(MULF, mulf, x * y)                                                       \
  X(DIVF, divf, x / y)                                                       \
  X(REMF, remf, fmod(x, y))                                                  \
  X(MINIMUMF, minimumf, MINIMUM(x, y))                                       \
  X(MAXIMUMF, maximumf, MAXIMUM(x, y))                                       \
  X(POWF, powf, pow(x, y))                                                   \
  X(ATAN2, atan2, atan2(x, y))

#define FLOAT_UNARY_OPS(X)                                                   \
  X(NEGF, negf, -x)                                                          \
  X(ABSF, absf, fabs(x))                                                     \
  X(FLOOR, floor, floor(x))                                                  \
  X(CEIL, ceil, ceil(x))                                                     \
  X(ROUND, round, round(x))                                                  \
  X(ROUNDEVEN, roundeven, nearbyint(x)) /* the default mode: to even */      \
  X(TRUNC, trunc, trunc(x))                                                  \
  X(SQRT, sqrt, sqrt(x))                                                     \
  X(RSQRT, rsqrt, 1 / sqrt(x))                                               \
  X(EXP, exp, exp(x))                                                        \
  X(EXPM1, expm1, expm1(x))                                                  \
  X(LOG, log, log(x))                                                        \
  X(LOG1P, log1p, log1p(x))                                                  \
  X(TANH, tanh, tanh(x))                                                     \
  X(ERF, erf, erf(x))                                                        \
  X(SIN, sin, sin(x))                                                        \
  X(COS, cos, cos(x))                                                        \
  X(TAN, tan, tan(x))                                                        \
  X(ASIN, asin, asin(x))                                                     \
  X(ACOS, acos, acos(x))                                                     \
  X(ATAN, atan, atan(x))                                                     \
  X(SINH, sinh, sinh(x))                                                     \
  X(COSH, cosh, cosh(x))                                                     \
  X(ASINH, asinh, asinh(x))                                                  \
  X(ACOSH, acosh, acosh(x))                                                  \
  X(ATANH, atanh, atanh(x))

#define FMA_OPS(X) X(FMA, fma, fma(x, y, z))

/* Six handlers per op: {f32, f64, small} x {scalar, vector}. `LANE`
** computes lane i of the result from x, y (and z) read as T from field
** F; `ROUND` finishes a small float. */
#define FLOAT_HANDLERS(name, T, F, suffix, ROUND, READ, expr)               \
  static bool name##_##suffix(Cell *f, const Instr *in, Interp *it)          \
  {                                                                          \
    (void)it;                                                                \
    const uint32_t i = 0;                                                    \
    READ(T, F);                                                              \
    PUT_##F(f[in->dst], ROUND(expr));                                        \
    return true;                                                             \
  }                                                                          \
  static bool name##_##suffix##v(Cell *f, const Instr *in, Interp *it)       \
  {                                                                          \
    (void)it;                                                                \
    for (uint32_t i = 0; i < in->n; i++) {                                   \
      READ(T, F);                                                            \
      PUT_##F(f[in->dst + i], ROUND(expr));                                  \
    }                                                                        \
    return true;                                                             \
  }

#define READ1(T, F)                                                          \
  T x = f[in->a + i].F;                                                      \
  (void)x
#define READ2(T, F)                                                          \
  T x = f[in->a + i].F, y = f[in->b + i].F;                                  \
  (void)x, (void)y
#define READ3(T, F)                                                          \
  T x = f[in->a + i].F, y = f[in->b + i].F, z = f[in->c + i].F;              \
  (void)x, (void)y, (void)z
#define PUT_f(cell, v) ((cell) = interp_cell_f(v))
#define PUT_d(cell, v) ((cell).d = (v))
#define EXACT(v) (v)
#define SMALL(v) interp_round_small(in->elem.fkind, (v))

#define FLOAT_ALL(name, READ, expr)                                          \
  FLOAT_HANDLERS(name, float, f, f32, EXACT, READ, expr)                     \
  FLOAT_HANDLERS(name, double, d, f64, EXACT, READ, expr)                    \
  FLOAT_HANDLERS(name, float, f, small, SMALL, READ, expr)

#define DEF_BINARY(sym, name, expr) FLOAT_ALL(name, READ2, expr)
#define DEF_UNARY(sym, name, expr) FLOAT_ALL(name, READ1, expr)
#define DEF_TERNARY(sym, name, expr) FLOAT_ALL(name, READ3, expr)
FLOAT_BINARY_OPS(DEF_BINARY)
FLOAT_UNARY_OPS(DEF_UNARY)
FMA_OPS(DEF_TERNARY)

#define FLOAT_ROW(sym, name, expr)                                           \
  [LOOP_OP_##sym] = {name##_f32, name##_f32v, name##_f64, name##_f64v,       \
                     name##_small, name##_smallv},
static const InterpHandler float_handlers[LOOP_NUM_OPS][6] = {
    FLOAT_BINARY_OPS(FLOAT_ROW) FLOAT_UNARY_OPS(FLOAT_ROW) FMA_OPS(FLOAT_ROW)};

/* ---- integers --------------------------------------------------------------- */

enum { INT_OK, INT_DIV_ZERO, INT_OVERFLOW };

/* The signed minimum of width w, as a sign-extended cell. */
static inline int64_t smin(unsigned w)
{
  return w >= 64 ? INT64_MIN : -(INT64_C(1) << (w - 1));
}

/* Each op computes *r from the cells x and y of width w (a constant 64
** in the handlers for index and i64, so the wrapping folds away). */
#define INT_OPS(X)                                                           \
  X(ADDI, addi, *r = interp_norm((uint64_t)x + (uint64_t)y, w))              \
  X(SUBI, subi, *r = interp_norm((uint64_t)x - (uint64_t)y, w))              \
  X(MULI, muli, *r = interp_norm((uint64_t)x * (uint64_t)y, w))              \
  X(DIVSI, divsi, return div_signed(x, y, w, r, 0))                          \
  X(FLOORDIVSI, floordivsi, return div_signed(x, y, w, r, -1))               \
  X(CEILDIVSI, ceildivsi, return div_signed(x, y, w, r, 1))                  \
  X(REMSI, remsi, return rem_signed(x, y, w, r))                             \
  X(DIVUI, divui, return div_unsigned(x, y, w, r, false))                    \
  X(REMUI, remui, return div_unsigned(x, y, w, r, true))                     \
  X(MINSI, minsi, *r = interp_sx(x, w) < interp_sx(y, w) ? x : y)            \
  X(MAXSI, maxsi, *r = interp_sx(x, w) > interp_sx(y, w) ? x : y)            \
  X(MINUI, minui, *r = interp_zx(x, w) < interp_zx(y, w) ? x : y)            \
  X(MAXUI, maxui, *r = interp_zx(x, w) > interp_zx(y, w) ? x : y)            \
  X(ANDI, andi, *r = x & y)                                                  \
  X(ORI, ori, *r = x | y)                                                    \
  X(XORI, xori, *r = x ^ y)                                                  \
  X(SHLI, shli,                                                              \
    *r = interp_zx(y, w) >= w ? 0 : interp_norm((uint64_t)x << interp_zx(y, w), w)) \
  X(SHRSI, shrsi,                                                            \
    *r = interp_norm((uint64_t)(interp_sx(x, w) >>                           \
                                (interp_zx(y, w) >= w ? w - 1                \
                                                      : interp_zx(y, w))),   \
                     w))                                                     \
  X(SHRUI, shrui,                                                            \
    *r = interp_zx(y, w) >= w ? 0 : interp_norm(interp_zx(x, w) >> interp_zx(y, w), w)) \
  X(ABSI, absi,                                                              \
    *r = interp_norm(interp_sx(x, w) < 0 ? -(uint64_t)x : (uint64_t)x, w))

/* Truncating (round 0), floor (-1) or ceiling (1) division. */
static inline int div_signed(int64_t x, int64_t y, unsigned w, int64_t *r,
                             int round)
{
  x = interp_sx(x, w), y = interp_sx(y, w);
  if (y == 0)
    return INT_DIV_ZERO;
  if (y == -1 && x == smin(w))
    return INT_OVERFLOW;
  int64_t q = x / y;
  if (x % y != 0 && round != 0 && ((x < 0) != (y < 0)) == (round < 0))
    q += round;
  *r = interp_norm((uint64_t)q, w);
  return INT_OK;
}

/* The remainder has the dividend's sign; MIN % -1 overflows as LLVM's
** srem says it may (a trap on x86). */
static inline int rem_signed(int64_t x, int64_t y, unsigned w, int64_t *r)
{
  x = interp_sx(x, w), y = interp_sx(y, w);
  if (y == 0)
    return INT_DIV_ZERO;
  if (y == -1 && x == smin(w))
    return INT_OVERFLOW;
  *r = interp_norm((uint64_t)(x % y), w);
  return INT_OK;
}

static inline int div_unsigned(int64_t x, int64_t y, unsigned w, int64_t *r,
                               bool rem)
{
  uint64_t a = interp_zx(x, w), b = interp_zx(y, w);
  if (b == 0)
    return INT_DIV_ZERO;
  *r = interp_norm(rem ? a % b : a / b, w);
  return INT_OK;
}

static bool int_error(const Instr *in, int code)
{
  gilt_op_emit_error(in->op, code == INT_DIV_ZERO
                                 ? "integer division by zero"
                                 : "integer division overflows (the "
                                   "minimum divided by -1)");
  return false;
}

#define INT_FN(sym, name, body)                                              \
  static inline int name##_fn(int64_t x, int64_t y, unsigned w, int64_t *r)  \
  {                                                                          \
    (void)y, (void)w;                                                        \
    body;                                                                    \
    return INT_OK;                                                           \
  }
INT_OPS(INT_FN)

#define INT_HANDLERS(sym, name, body)                                        \
  static bool name##_64(Cell *f, const Instr *in, Interp *it)                \
  {                                                                          \
    (void)it;                                                                \
    int code = name##_fn(f[in->a].i, f[in->b].i, 64, &f[in->dst].i);        \
    return code == INT_OK || int_error(in, code);                            \
  }                                                                          \
  static bool name##_w(Cell *f, const Instr *in, Interp *it)                 \
  {                                                                          \
    (void)it;                                                                \
    for (uint32_t i = 0; i < in->n; i++) {                                   \
      int code = name##_fn(f[in->a + i].i, f[in->b + i].i, in->elem.width,  \
                           &f[in->dst + i].i);                               \
      if (code != INT_OK)                                                    \
        return int_error(in, code);                                          \
    }                                                                        \
    return true;                                                             \
  }
INT_OPS(INT_HANDLERS)

#define INT_ROW(sym, name, body) [LOOP_OP_##sym] = {name##_64, name##_w},
static const InterpHandler int_handlers[LOOP_NUM_OPS][2] = {INT_OPS(INT_ROW)};

/* ---- comparisons and select ------------------------------------------------ */

/* The predicates in loop.c's order. */
enum {
  EQ, NE, SLT, SLE, SGT, SGE, ULT, ULE, UGT, UGE
};
enum {
  F_OEQ, F_ONE, F_OLT, F_OLE, F_OGT, F_OGE, F_ORD,
  F_UEQ, F_UNE, F_ULT, F_ULE, F_UGT, F_UGE, F_UNO
};

static bool cmpi(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  unsigned w = in->elem.width;
  for (uint32_t i = 0; i < in->n; i++) {
    int64_t x = f[in->a + i].i, y = f[in->b + i].i;
    int64_t sx = interp_sx(x, w), sy = interp_sx(y, w);
    uint64_t ux = interp_zx(x, w), uy = interp_zx(y, w);
    bool r;
    switch (in->imm) {
    case EQ: r = x == y; break;
    case NE: r = x != y; break;
    case SLT: r = sx < sy; break;
    case SLE: r = sx <= sy; break;
    case SGT: r = sx > sy; break;
    case SGE: r = sx >= sy; break;
    case ULT: r = ux < uy; break;
    case ULE: r = ux <= uy; break;
    case UGT: r = ux > uy; break;
    default: r = ux >= uy; break;
    }
    f[in->dst + i].i = r;
  }
  return true;
}

/* LLVM's fcmp: the ordered predicates are false on NaN, the unordered
** true. */
static inline bool fcmp(int pred, double x, double y)
{
  bool uno = isnan(x) || isnan(y);
  switch (pred) {
  case F_OEQ: return !uno && x == y;
  case F_ONE: return !uno && x != y;
  case F_OLT: return !uno && x < y;
  case F_OLE: return !uno && x <= y;
  case F_OGT: return !uno && x > y;
  case F_OGE: return !uno && x >= y;
  case F_ORD: return !uno;
  case F_UEQ: return uno || x == y;
  case F_UNE: return uno || x != y;
  case F_ULT: return uno || x < y;
  case F_ULE: return uno || x <= y;
  case F_UGT: return uno || x > y;
  case F_UGE: return uno || x >= y;
  default: return uno;
  }
}

/* Float lanes widen to double exactly, so one comparison serves all. */
static bool cmpf_float(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  for (uint32_t i = 0; i < in->n; i++)
    f[in->dst + i].i = fcmp(in->imm, f[in->a + i].f, f[in->b + i].f);
  return true;
}

static bool cmpf_double(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  for (uint32_t i = 0; i < in->n; i++)
    f[in->dst + i].i = fcmp(in->imm, f[in->a + i].d, f[in->b + i].d);
  return true;
}

/* A scalar condition picks all n cells (a vector, a memref descriptor);
** a vector condition picks lane by lane. */
static bool select_all(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  uint32_t from = f[in->a].i ? in->b : in->c;
  memmove(&f[in->dst], &f[from], in->n * sizeof(Cell));
  return true;
}

static bool select_lanes(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  for (uint32_t i = 0; i < in->n; i++)
    f[in->dst + i] = f[in->a + i].i ? f[in->b + i] : f[in->c + i];
  return true;
}

/* ---- selection ----------------------------------------------------------------- */

bool interp_select_scalar(LoopOpId id, Instr *in)
{
  if (id == LOOP_OP_CMPI) {
    in->fn = cmpi;
    return true;
  }
  if (id == LOOP_OP_CMPF) {
    in->fn = in->elem.cls == ELEM_F64 ? cmpf_double : cmpf_float;
    return true;
  }
  if (id == LOOP_OP_SELECT) {
    in->fn = in->imm ? select_lanes : select_all;
    return true;
  }
  if (int_handlers[id][0]) {
    in->fn = int_handlers[id][in->elem.width == 64 && in->n == 1 ? 0 : 1];
    return true;
  }
  if (float_handlers[id][0]) {
    int column = in->elem.cls == ELEM_F32 ? 0 : in->elem.cls == ELEM_F64 ? 2 : 4;
    in->fn = float_handlers[id][column + (in->n > 1)];
    return true;
  }
  return false;
}
