/*
** int_semantics.h - what the loop dialect's integer ops compute, said
** once: the interpreter's handlers (interpreter/scalar.c, cast.c,
** vector.c) and the folder (fold.c) call these functions, so that folding
** at compile time and running give the same value, or the same error. The
** lowering to LLVM (transforms/loop_to_llvm/arith.c, cast.c) emits
** instructions that agree with them; test/lit/loop/fold-semantics.gilt
** runs every op all three ways.
**
** A value of an integer type of width w is held in a "cell": its w bits
** sign-extended to 64, except i1, which is 0 or 1, whatever the type's
** signedness (ui8 200 is the cell -56). The ops say how the bits are read:
** slt and divsi as signed, ult and divui as unsigned; si and ui in a type
** change nothing, as in LLVM. Index is 64 bits. An integer attribute
** stores a ui value zero-extended instead: loop_int_cell turns any
** attribute value into its cell.
**
** Every function is static inline: the interpreter's handlers call them
** with the width a constant 64 for index and i64, so the wrapping folds
** away. Not here: floats, whose semantics are C's and LLVM's.
*/
#ifndef GILT_DIALECTS_LOOP_INT_SEMANTICS_H
#define GILT_DIALECTS_LOOP_INT_SEMANTICS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dialects/loop/loop.h"

/* ---- cells ------------------------------------------------------------- */

/* v kept to `w` bits: sign-extended, or 0/1 for i1. */
static inline int64_t loop_int_cell(uint64_t v, unsigned w)
{
  if (w >= 64)
    return (int64_t)v;
  if (w == 1)
    return (int64_t)(v & 1);
  return (int64_t)(v << (64 - w)) >> (64 - w);
}

/* The signed value of a cell of width w (i1's 1 is -1). */
static inline int64_t loop_int_sx(int64_t v, unsigned w)
{
  return w == 1 ? -(v & 1) : v;
}

/* The unsigned value of a cell of width w. */
static inline uint64_t loop_int_zx(int64_t v, unsigned w)
{
  return w >= 64 ? (uint64_t)v : (uint64_t)v & ((UINT64_C(1) << w) - 1);
}

/* The signed minimum of width w, as a signed value (-1 for i1). */
static inline int64_t loop_int_smin(unsigned w)
{
  return w >= 64 ? INT64_MIN : -(INT64_C(1) << (w - 1));
}

/* ---- binary ops -------------------------------------------------------- */

/* What an op gives: a value, or the run-time error it stops with. */
typedef enum LoopIntStatus {
  LOOP_INT_OK,
  LOOP_INT_DIV_ZERO,
  LOOP_INT_OVERFLOW
} LoopIntStatus;

/* The message of an error status, the same from the interpreter and from
** compiled code. */
static inline const char *loop_int_error(LoopIntStatus s)
{
  return s == LOOP_INT_DIV_ZERO
             ? "integer division by zero"
             : "integer division overflows (the minimum divided by -1)";
}

/* Truncating (round 0), floor (-1) or ceiling (1) division. */
static inline LoopIntStatus loop_int_div_signed(int64_t x, int64_t y,
                                                unsigned w, int64_t *r,
                                                int round)
{
  x = loop_int_sx(x, w), y = loop_int_sx(y, w);
  if (y == 0)
    return LOOP_INT_DIV_ZERO;
  if (y == -1 && x == loop_int_smin(w))
    return LOOP_INT_OVERFLOW;
  int64_t q = x / y;
  if (x % y != 0 && round != 0 && ((x < 0) != (y < 0)) == (round < 0))
    q += round;
  *r = loop_int_cell((uint64_t)q, w);
  return LOOP_INT_OK;
}

/* The remainder has the dividend's sign; MIN % -1 overflows as LLVM's
** srem says it may (a trap on x86). */
static inline LoopIntStatus loop_int_rem_signed(int64_t x, int64_t y,
                                                unsigned w, int64_t *r)
{
  x = loop_int_sx(x, w), y = loop_int_sx(y, w);
  if (y == 0)
    return LOOP_INT_DIV_ZERO;
  if (y == -1 && x == loop_int_smin(w))
    return LOOP_INT_OVERFLOW;
  *r = loop_int_cell((uint64_t)(x % y), w);
  return LOOP_INT_OK;
}

static inline LoopIntStatus loop_int_div_unsigned(int64_t x, int64_t y,
                                                  unsigned w, int64_t *r,
                                                  bool rem)
{
  uint64_t a = loop_int_zx(x, w), b = loop_int_zx(y, w);
  if (b == 0)
    return LOOP_INT_DIV_ZERO;
  *r = loop_int_cell(rem ? a % b : a / b, w);
  return LOOP_INT_OK;
}

/* Shift amounts are unsigned; one of the width or more gives 0 (shli,
** shrui) or the sign bits (shrsi), never LLVM's poison. */
static inline uint64_t loop_int_shift_amount(int64_t y, unsigned w)
{
  return loop_int_zx(y, w);
}

/* Each op computes *r from the cells x and y of width w (absi ignores
** y). The bodies either assign *r or return a status. */
#define LOOP_INT_OPS(X)                                                      \
  X(ADDI, addi, *r = loop_int_cell((uint64_t)x + (uint64_t)y, w))            \
  X(SUBI, subi, *r = loop_int_cell((uint64_t)x - (uint64_t)y, w))            \
  X(MULI, muli, *r = loop_int_cell((uint64_t)x * (uint64_t)y, w))            \
  X(DIVSI, divsi, return loop_int_div_signed(x, y, w, r, 0))                 \
  X(FLOORDIVSI, floordivsi, return loop_int_div_signed(x, y, w, r, -1))      \
  X(CEILDIVSI, ceildivsi, return loop_int_div_signed(x, y, w, r, 1))         \
  X(REMSI, remsi, return loop_int_rem_signed(x, y, w, r))                    \
  X(DIVUI, divui, return loop_int_div_unsigned(x, y, w, r, false))           \
  X(REMUI, remui, return loop_int_div_unsigned(x, y, w, r, true))            \
  X(MINSI, minsi, *r = loop_int_sx(x, w) < loop_int_sx(y, w) ? x : y)        \
  X(MAXSI, maxsi, *r = loop_int_sx(x, w) > loop_int_sx(y, w) ? x : y)        \
  X(MINUI, minui, *r = loop_int_zx(x, w) < loop_int_zx(y, w) ? x : y)        \
  X(MAXUI, maxui, *r = loop_int_zx(x, w) > loop_int_zx(y, w) ? x : y)        \
  X(ANDI, andi, *r = x & y)                                                  \
  X(ORI, ori, *r = x | y)                                                    \
  X(XORI, xori, *r = x ^ y)                                                  \
  X(SHLI, shli,                                                              \
    *r = loop_int_shift_amount(y, w) >= w                                    \
             ? 0                                                             \
             : loop_int_cell((uint64_t)x << loop_int_shift_amount(y, w), w)) \
  X(SHRSI, shrsi,                                                            \
    *r = loop_int_cell(                                                      \
        (uint64_t)(loop_int_sx(x, w) >> (loop_int_shift_amount(y, w) >= w    \
                                             ? w - 1                         \
                                             : loop_int_shift_amount(y, w))), \
        w))                                                                  \
  X(SHRUI, shrui,                                                            \
    *r = loop_int_shift_amount(y, w) >= w                                    \
             ? 0                                                             \
             : loop_int_cell(loop_int_zx(x, w) >> loop_int_shift_amount(y, w), \
                             w))                                             \
  X(ABSI, absi,                                                              \
    *r = loop_int_cell(loop_int_sx(x, w) < 0 ? -(uint64_t)x : (uint64_t)x, w))

#define LOOP_INT_FN(sym, name, body)                                         \
  static inline LoopIntStatus loop_int_##name(int64_t x, int64_t y,          \
                                              unsigned w, int64_t *r)        \
  {                                                                          \
    (void)y, (void)w;                                                        \
    body;                                                                    \
    return LOOP_INT_OK;                                                      \
  }
LOOP_INT_OPS(LOOP_INT_FN)
#undef LOOP_INT_FN

/* Whether the op `id` is one of LOOP_INT_OPS. */
static inline bool loop_int_is_op(LoopOpId id)
{
  switch (id) {
#define LOOP_INT_CASE(sym, name, body) case LOOP_OP_##sym:
    LOOP_INT_OPS(LOOP_INT_CASE)
#undef LOOP_INT_CASE
    return true;
  default:
    return false;
  }
}

/* The op `id` (one of LOOP_INT_OPS) on x and y, by its id: for the
** folder, which meets the ops one at a time. */
static inline LoopIntStatus loop_int_apply(LoopOpId id, int64_t x, int64_t y,
                                           unsigned w, int64_t *r)
{
  switch (id) {
#define LOOP_INT_CASE(sym, name, body)                                       \
  case LOOP_OP_##sym:                                                        \
    return loop_int_##name(x, y, w, r);
    LOOP_INT_OPS(LOOP_INT_CASE)
#undef LOOP_INT_CASE
  default:
    return LOOP_INT_OK; /* not reached: callers ask loop_int_is_op */
  }
}

/* ---- comparisons ------------------------------------------------------- */

/* cmpi's predicates, in this order (the interpreter's immediates). */
typedef enum LoopIntPredicate {
  LOOP_CMPI_EQ, LOOP_CMPI_NE,
  LOOP_CMPI_SLT, LOOP_CMPI_SLE, LOOP_CMPI_SGT, LOOP_CMPI_SGE,
  LOOP_CMPI_ULT, LOOP_CMPI_ULE, LOOP_CMPI_UGT, LOOP_CMPI_UGE,
  LOOP_CMPI_NUM
} LoopIntPredicate;

/* The predicate called `name`, or -1. */
static inline int loop_int_predicate(const char *name)
{
  static const char *const names[LOOP_CMPI_NUM] = {
      "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
  for (int i = 0; i < LOOP_CMPI_NUM; i++)
    if (strcmp(name, names[i]) == 0)
      return i;
  return -1;
}

static inline bool loop_int_compare(int pred, int64_t x, int64_t y,
                                    unsigned w)
{
  int64_t sx = loop_int_sx(x, w), sy = loop_int_sx(y, w);
  uint64_t ux = loop_int_zx(x, w), uy = loop_int_zx(y, w);
  switch (pred) {
  case LOOP_CMPI_EQ: return x == y;
  case LOOP_CMPI_NE: return x != y;
  case LOOP_CMPI_SLT: return sx < sy;
  case LOOP_CMPI_SLE: return sx <= sy;
  case LOOP_CMPI_SGT: return sx > sy;
  case LOOP_CMPI_SGE: return sx >= sy;
  case LOOP_CMPI_ULT: return ux < uy;
  case LOOP_CMPI_ULE: return ux <= uy;
  case LOOP_CMPI_UGT: return ux > uy;
  default: return ux >= uy;
  }
}

/* ---- casts between integers -------------------------------------------- */

/* extsi, trunci and index_cast: the signed value kept to the new width
** (index_cast sign-extends from any integer, whatever its signedness). */
static inline int64_t loop_int_cast_signed(int64_t x, unsigned from,
                                           unsigned to)
{
  return loop_int_cell((uint64_t)loop_int_sx(x, from), to);
}

/* extui: the unsigned value kept to the new width. */
static inline int64_t loop_int_cast_unsigned(int64_t x, unsigned from,
                                             unsigned to)
{
  return loop_int_cell(loop_int_zx(x, from), to);
}

/* Whether the op `id` is a cast between integers (or index). */
static inline bool loop_int_is_cast(LoopOpId id)
{
  return id == LOOP_OP_EXTSI || id == LOOP_OP_EXTUI ||
         id == LOOP_OP_TRUNCI || id == LOOP_OP_INDEX_CAST;
}

static inline int64_t loop_int_cast(LoopOpId id, int64_t x, unsigned from,
                                    unsigned to)
{
  return id == LOOP_OP_EXTUI ? loop_int_cast_unsigned(x, from, to)
                             : loop_int_cast_signed(x, from, to);
}

#endif /* GILT_DIALECTS_LOOP_INT_SEMANTICS_H */
