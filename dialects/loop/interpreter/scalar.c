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
  X(SIGMOID, sigmoid, 1 / (1 + exp(-x)))                                     \
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

/* What each op computes is dialects/loop/int_semantics.h's, which the
** folder shares; here only the handlers around it. */

static bool int_error(const Instr *in, LoopIntStatus s)
{
  gilt_op_emit_error(in->op, "%s", loop_int_error(s));
  return false;
}

/* Two handlers per op: index and i64 scalars (the width a constant 64),
** and any width, lane by lane. */
#define INT_HANDLERS(sym, name, body)                                        \
  static bool name##_64(Cell *f, const Instr *in, Interp *it)                \
  {                                                                          \
    (void)it;                                                                \
    LoopIntStatus s =                                                        \
        loop_int_##name(f[in->a].i, f[in->b].i, 64, &f[in->dst].i);          \
    return s == LOOP_INT_OK || int_error(in, s);                             \
  }                                                                          \
  static bool name##_w(Cell *f, const Instr *in, Interp *it)                 \
  {                                                                          \
    (void)it;                                                                \
    for (uint32_t i = 0; i < in->n; i++) {                                   \
      LoopIntStatus s = loop_int_##name(f[in->a + i].i, f[in->b + i].i,      \
                                        in->elem.width, &f[in->dst + i].i);  \
      if (s != LOOP_INT_OK)                                                  \
        return int_error(in, s);                                             \
    }                                                                        \
    return true;                                                             \
  }
LOOP_INT_OPS(INT_HANDLERS)

#define INT_ROW(sym, name, body) [LOOP_OP_##sym] = {name##_64, name##_w},
static const InterpHandler int_handlers[LOOP_NUM_OPS][2] = {
    LOOP_INT_OPS(INT_ROW)};

/* ---- comparisons and select ------------------------------------------------ */

/* The float predicates in loop.c's order. */
enum {
  F_OEQ, F_ONE, F_OLT, F_OLE, F_OGT, F_OGE, F_ORD,
  F_UEQ, F_UNE, F_ULT, F_ULE, F_UGT, F_UGE, F_UNO
};

static bool cmpi(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  for (uint32_t i = 0; i < in->n; i++)
    f[in->dst + i].i = loop_int_compare(in->imm, f[in->a + i].i,
                                        f[in->b + i].i, in->elem.width);
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
