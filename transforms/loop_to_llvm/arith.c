/*
** arith.c - constants, integer and float arithmetic, comparisons and
** select, with the interpreter's semantics (dialects/loop/int_semantics.h
** for integers, dialects/loop/interpreter/scalar.c for floats), on
** scalars and lane by lane on vectors. LLVM's integers are signless, as
** the loop dialect's cells: si and ui types lower to iN, and the op (sdiv
** or udiv, icmp slt or ult, llvm.smin or llvm.umin) reads the bits.
**
** Where LLVM leaves room the interpreter does not, the lowering closes
** it: integer division by zero and the signed minimum divided by -1 fail
** the run with the interpreter's message (gilt_rt_fail, return 1) instead
** of being undefined; shifts of the width or more give 0 or the sign bits
** instead of poison. Floats: LLVM intrinsics that every LLVM since 12
** lowers well (llvm.exp, llvm.minimum, llvm.roundeven, ...), the C library
** otherwise (erff, tanhf, ...: the f suffix for f32), one call per lane on
** vectors.
** f16 and bf16 compute in f32 and round to their type after each op, as
** the interpreter does. Device code (gpu-to-nvvm) has no C library, and
** NVPTX selects none of the intrinsics LLVM turns into its calls
** (llvm.pow, llvm.sin, ...): there each C library function is CUDA's
** libdevice's of the same name with the prefix __nv_ (__nv_sinf), which
** gpu-module-to-binary links into the device module.
*/
#include "transforms/loop_to_llvm/lowering.h"

#include <stdio.h>
#include <string.h>

#include "dialects/loop/int_semantics.h"

/* ---- constants ----------------------------------------------------------------------- */

GiltStatus l2l_lower_constant(L2L *l, GiltOp *op)
{
  GiltAttr *value = gilt_op_get_attr(op, "value");
  GiltType *t = gilt_value_get_type(gilt_op_get_result(op, 0));
  GiltType *to = l2l_type(l, t);
  if (value->kind == GILT_ATTR_INTEGER) /* ui200 : ui8 is -56 : i8 */
    value = gilt_integer_attr_get(
        to, loop_int_cell((uint64_t)gilt_integer_attr_get_value(value),
                          gilt_type_get_bit_width(to)));
  else if (to != t) { /* a vector of index: the same 8-byte lanes */
    size_t nbytes;
    const void *data = gilt_dense_attr_get_data(value, &nbytes);
    value = gilt_dense_elements_attr_get(to, data, nbytes);
  }
  l2l_map(l, gilt_op_get_result(op, 0),
          l2l_emit_attr(l, LLVM_OP_CONSTANT, to, 0, NULL, "value", value));
  return GILT_SUCCESS;
}

/* ---- integers ------------------------------------------------------------------------ */

static unsigned width_of(GiltType *t)
{
  GiltType *e = t->kind == GILT_TYPE_VECTOR ? t->shaped.elem : t;
  return e->integer.width;
}

/* Whether v is a loop.constant other than 0 and -1 at its width (ui8
** 255 and i1's true are -1): no check needed. */
static bool safe_divisor(GiltValue *v)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  if (!loop_op_is(def, LOOP_OP_CONSTANT))
    return false;
  GiltAttr *value = gilt_op_get_attr(def, "value");
  if (value->kind != GILT_ATTR_INTEGER)
    return false;
  unsigned w = gilt_type_get_bit_width(gilt_value_get_type(v));
  int64_t c = loop_int_sx(
      loop_int_cell((uint64_t)gilt_integer_attr_get_value(value), w), w);
  return c != 0 && c != -1;
}

static void check_divisor(L2L *l, GiltValue *x, GiltValue *y, bool sign)
{
  GiltType *t = gilt_value_get_type(y);
  GiltValue *zero = l2l_any(l, l2l_icmp(l, "eq", y, l2l_int(l, t, 0)));
  l2l_check(l, l2l_icmp(l, "eq", zero, l2l_int(l, l->i1, 0)),
            loop_int_error(LOOP_INT_DIV_ZERO));
  if (!sign)
    return;
  GiltValue *both =
      l2l_binary(l, LLVM_OP_AND,
                 l2l_icmp(l, "eq", x, l2l_int(l, t, loop_int_smin(width_of(t)))),
                 l2l_icmp(l, "eq", y, l2l_int(l, t, -1)));
  l2l_check(l, l2l_icmp(l, "eq", l2l_any(l, both), l2l_int(l, l->i1, 0)),
            loop_int_error(LOOP_INT_OVERFLOW));
}

/* Floor (round -1) or ceiling (round 1) division from sdiv and srem: the
** quotient moves by `round` when the division is inexact and the signs
** differ (floor) or agree (ceiling). */
static GiltValue *rounded_div(L2L *l, GiltValue *x, GiltValue *y, int round)
{
  GiltType *t = gilt_value_get_type(x);
  GiltValue *q = l2l_binary(l, LLVM_OP_SDIV, x, y);
  GiltValue *r = l2l_binary(l, LLVM_OP_SREM, x, y);
  GiltValue *zero = l2l_int(l, t, 0);
  GiltValue *inexact = l2l_icmp(l, "ne", r, zero);
  GiltValue *differ = l2l_binary(l, LLVM_OP_XOR, l2l_icmp(l, "slt", x, zero),
                                 l2l_icmp(l, "slt", y, zero));
  GiltValue *moves = round < 0 ? differ
                               : l2l_binary(l, LLVM_OP_XOR, differ,
                                            l2l_int(l, gilt_value_get_type(differ), 1));
  moves = l2l_binary(l, LLVM_OP_AND, inexact, moves);
  return l2l_select(l, moves,
                    l2l_binary(l, LLVM_OP_ADD, q, l2l_int(l, t, round)), q);
}

/* Shifts: an amount of the width or more gives 0 (shl, lshr) or shifts
** by width - 1 (ashr: the sign bits). */
static GiltValue *shift(L2L *l, LlvmOpId id, GiltValue *x, GiltValue *y)
{
  GiltType *t = gilt_value_get_type(x);
  GiltValue *width = l2l_int(l, t, width_of(t));
  GiltValue *past = l2l_icmp(l, "uge", y, width);
  if (id == LLVM_OP_ASHR)
    return l2l_binary(l, id, x,
                      l2l_select(l, past, l2l_int(l, t, width_of(t) - 1), y));
  return l2l_select(l, past, l2l_int(l, t, 0), l2l_binary(l, id, x, y));
}

static GiltValue *division(L2L *l, LoopOpId id, GiltValue *x, GiltValue *y,
                           bool checked)
{
  bool sign = id == LOOP_OP_DIVSI || id == LOOP_OP_REMSI ||
              id == LOOP_OP_FLOORDIVSI || id == LOOP_OP_CEILDIVSI;
  if (checked)
    check_divisor(l, x, y, sign);
  switch (id) {
  case LOOP_OP_DIVSI: return l2l_binary(l, LLVM_OP_SDIV, x, y);
  case LOOP_OP_REMSI: return l2l_binary(l, LLVM_OP_SREM, x, y);
  case LOOP_OP_DIVUI: return l2l_binary(l, LLVM_OP_UDIV, x, y);
  case LOOP_OP_REMUI: return l2l_binary(l, LLVM_OP_UREM, x, y);
  case LOOP_OP_FLOORDIVSI: return rounded_div(l, x, y, -1);
  default: return rounded_div(l, x, y, 1);
  }
}

GiltStatus l2l_lower_int(L2L *l, GiltOp *op)
{
  LoopOpId id = loop_op_id(op);
  GiltValue *x = l2l_value(l, gilt_op_get_operand(op, 0)), *y = NULL, *r;
  GiltType *t = gilt_value_get_type(x);
  if (id != LOOP_OP_ABSI)
    y = l2l_value(l, gilt_op_get_operand(op, 1));
  GiltValue *xy[2] = {x, y};
  switch (id) {
  case LOOP_OP_ADDI: r = l2l_binary(l, LLVM_OP_ADD, x, y); break;
  case LOOP_OP_SUBI: r = l2l_binary(l, LLVM_OP_SUB, x, y); break;
  case LOOP_OP_MULI: r = l2l_binary(l, LLVM_OP_MUL, x, y); break;
  case LOOP_OP_ANDI: r = l2l_binary(l, LLVM_OP_AND, x, y); break;
  case LOOP_OP_ORI: r = l2l_binary(l, LLVM_OP_OR, x, y); break;
  case LOOP_OP_XORI: r = l2l_binary(l, LLVM_OP_XOR, x, y); break;
  case LOOP_OP_MINSI: r = l2l_intrinsic(l, "llvm.smin", t, 2, xy); break;
  case LOOP_OP_MAXSI: r = l2l_intrinsic(l, "llvm.smax", t, 2, xy); break;
  case LOOP_OP_MINUI: r = l2l_intrinsic(l, "llvm.umin", t, 2, xy); break;
  case LOOP_OP_MAXUI: r = l2l_intrinsic(l, "llvm.umax", t, 2, xy); break;
  case LOOP_OP_SHLI: r = shift(l, LLVM_OP_SHL, x, y); break;
  case LOOP_OP_SHRSI: r = shift(l, LLVM_OP_ASHR, x, y); break;
  case LOOP_OP_SHRUI: r = shift(l, LLVM_OP_LSHR, x, y); break;
  case LOOP_OP_ABSI: {
    GiltValue *zero = l2l_int(l, t, 0);
    r = l2l_select(l, l2l_icmp(l, "slt", x, zero),
                   l2l_binary(l, LLVM_OP_SUB, zero, x), x);
    break;
  }
  default:
    r = division(l, id, x, y, !safe_divisor(gilt_op_get_operand(op, 1)));
  }
  l2l_map(l, gilt_op_get_result(op, 0), r);
  return GILT_SUCCESS;
}

/* ---- floats --------------------------------------------------------------------------- */

typedef struct FloatRow {
  LlvmOpId llvm;         /* an instruction, or LLVM_NUM_OPS */
  const char *intrinsic; /* or an LLVM intrinsic */
  const char *libm;      /* or a C library function (the double name); on
                         ** the device, in place of the intrinsic too */
} FloatRow;

static const FloatRow float_rows[LOOP_NUM_OPS] = {
    [LOOP_OP_ADDF] = {LLVM_OP_FADD, 0, 0},
    [LOOP_OP_SUBF] = {LLVM_OP_FSUB, 0, 0},
    [LOOP_OP_MULF] = {LLVM_OP_FMUL, 0, 0},
    [LOOP_OP_DIVF] = {LLVM_OP_FDIV, 0, 0},
    [LOOP_OP_REMF] = {LLVM_OP_FREM, 0, 0},
    [LOOP_OP_NEGF] = {LLVM_OP_FNEG, 0, 0},
#define INTRINSIC(sym, name) [LOOP_OP_##sym] = {LLVM_NUM_OPS, name, 0},
    INTRINSIC(MINIMUMF, "llvm.minimum") INTRINSIC(MAXIMUMF, "llvm.maximum")
    INTRINSIC(FMA, "llvm.fma")
    INTRINSIC(ABSF, "llvm.fabs") INTRINSIC(FLOOR, "llvm.floor")
    INTRINSIC(CEIL, "llvm.ceil") INTRINSIC(ROUND, "llvm.round")
    INTRINSIC(ROUNDEVEN, "llvm.roundeven") INTRINSIC(TRUNC, "llvm.trunc")
    INTRINSIC(SQRT, "llvm.sqrt") INTRINSIC(RSQRT, "llvm.sqrt")
#undef INTRINSIC
#define INTRINSIC_OR_LIBM(sym, name, libm) [LOOP_OP_##sym] = {LLVM_NUM_OPS, name, libm},
    INTRINSIC_OR_LIBM(POWF, "llvm.pow", "pow")
    INTRINSIC_OR_LIBM(EXP, "llvm.exp", "exp")
    INTRINSIC_OR_LIBM(LOG, "llvm.log", "log")
    INTRINSIC_OR_LIBM(SIN, "llvm.sin", "sin")
    INTRINSIC_OR_LIBM(COS, "llvm.cos", "cos")
#undef INTRINSIC_OR_LIBM
#define LIBM(sym, name) [LOOP_OP_##sym] = {LLVM_NUM_OPS, 0, name},
    LIBM(ATAN2, "atan2") LIBM(EXPM1, "expm1") LIBM(LOG1P, "log1p")
    LIBM(TANH, "tanh") LIBM(ERF, "erf") LIBM(TAN, "tan") LIBM(ASIN, "asin")
    LIBM(ACOS, "acos") LIBM(ATAN, "atan") LIBM(SINH, "sinh")
    LIBM(COSH, "cosh") LIBM(ASINH, "asinh") LIBM(ACOSH, "acosh")
    LIBM(ATANH, "atanh")
#undef LIBM
};

/* t with its (lane) element type replaced by elem. */
static GiltType *with_elem(L2L *l, GiltType *t, GiltType *elem)
{
  if (t->kind != GILT_TYPE_VECTOR)
    return elem;
  return gilt_vector_type_get(l->ctx, 1, t->shaped.shape, elem);
}

/* One call of the C library function `name` (libdevice's on the device). */
static GiltValue *call_libm(L2L *l, const char *name, GiltType *t, size_t n,
                            GiltValue *const *args)
{
  return l->device ? l2l_call(l, name, t, n, args)
                   : l2l_call_extern(l, name, t, n, args);
}

/* The C library function `name` lane by lane. */
static GiltValue *libm(L2L *l, const char *name, size_t n,
                       GiltValue *const *args)
{
  GiltType *t = gilt_value_get_type(args[0]);
  GiltType *elem = t->kind == GILT_TYPE_VECTOR ? t->shaped.elem : t;
  char fname[32];
  snprintf(fname, sizeof fname, "%s%s%s", l->device ? "__nv_" : "", name,
           elem->fkind == GILT_F32 ? "f" : "");
  if (t->kind != GILT_TYPE_VECTOR)
    return call_libm(l, fname, t, n, args);
  GiltValue *r = l2l_poison(l, t);
  for (int64_t i = 0; i < t->shaped.shape[0]; i++) {
    GiltValue *lanes[3];
    for (size_t k = 0; k < n; k++) {
      GiltValue *ops[2] = {args[k], l2l_i64(l, i)};
      lanes[k] = l2l_emit(l, LLVM_OP_EXTRACTELEMENT, elem, 2, ops);
    }
    GiltValue *ops[3] = {r, call_libm(l, fname, elem, n, lanes),
                         l2l_i64(l, i)};
    r = l2l_emit(l, LLVM_OP_INSERTELEMENT, t, 3, ops);
  }
  return r;
}

static GiltValue *compute(L2L *l, LoopOpId id, size_t n,
                          GiltValue *const *args)
{
  const FloatRow *row = &float_rows[id];
  GiltType *t = gilt_value_get_type(args[0]);
  if (id == LOOP_OP_SIGMOID) { /* 1 / (1 + exp(-x)), exp as loop.exp's */
    GiltValue *minus_x = l2l_emit(l, LLVM_OP_FNEG, t, 1, args);
    GiltValue *one = l2l_float(l, t, 1.0);
    GiltValue *e = compute(l, LOOP_OP_EXP, 1, &minus_x);
    return l2l_binary(l, LLVM_OP_FDIV, one, l2l_binary(l, LLVM_OP_FADD, one, e));
  }
  if (row->llvm != LLVM_NUM_OPS)
    return l2l_emit(l, row->llvm, t, n, args);
  if (row->libm && (!row->intrinsic || l->device))
    return libm(l, row->libm, n, args);
  GiltValue *r = l2l_intrinsic(l, row->intrinsic, t, n, args);
  if (id == LOOP_OP_RSQRT)
    r = l2l_binary(l, LLVM_OP_FDIV, l2l_float(l, t, 1.0), r);
  return r;
}

/* The value of a scalar float loop.constant v, into *c. */
static bool float_constant(GiltValue *v, double *c)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  GiltAttr *value = loop_op_is(def, LOOP_OP_CONSTANT)
                        ? gilt_op_get_attr(def, "value")
                        : NULL;
  if (!value || value->kind != GILT_ATTR_FLOAT)
    return false;
  *c = gilt_float_attr_get_value(value);
  return true;
}

/* pow by the constant 1 or 2, exactly x or x * x: what LLVM makes of
** llvm.pow on the host, and cannot see through libdevice's __nv_powf. */
static bool lower_small_power(L2L *l, GiltOp *op, GiltValue *const *args)
{
  double e;
  if (!loop_op_is(op, LOOP_OP_POWF) ||
      !float_constant(gilt_op_get_operand(op, 1), &e) || (e != 1 && e != 2))
    return false;
  l2l_map(l, gilt_op_get_result(op, 0),
          e == 1 ? args[0] : l2l_binary(l, LLVM_OP_FMUL, args[0], args[0]));
  return true;
}

GiltStatus l2l_lower_float(L2L *l, GiltOp *op)
{
  LoopOpId id = loop_op_id(op);
  size_t n = gilt_op_get_num_operands(op);
  GiltValue *args[3];
  for (size_t i = 0; i < n; i++)
    args[i] = l2l_value(l, gilt_op_get_operand(op, i));
  if (l->device && lower_small_power(l, op, args))
    return GILT_SUCCESS;
  GiltType *t = gilt_value_get_type(args[0]);
  GiltType *elem = t->kind == GILT_TYPE_VECTOR ? t->shaped.elem : t;
  bool small = elem->fkind == GILT_F16 || elem->fkind == GILT_BF16;
  if (small)
    for (size_t i = 0; i < n; i++)
      args[i] = l2l_cast(l, LLVM_OP_FPEXT, args[i], with_elem(l, t, l->f32));
  GiltValue *r = compute(l, id, n, args);
  if (small)
    r = l2l_cast(l, LLVM_OP_FPTRUNC, r, t);
  l2l_map(l, gilt_op_get_result(op, 0), r);
  return GILT_SUCCESS;
}

/* ---- comparisons and select ------------------------------------------------------------ */

GiltStatus l2l_lower_compare(L2L *l, GiltOp *op)
{
  GiltValue *ops[3];
  for (size_t i = 0; i < gilt_op_get_num_operands(op); i++)
    ops[i] = l2l_value(l, gilt_op_get_operand(op, i));
  GiltType *t = l2l_type(l, gilt_value_get_type(gilt_op_get_result(op, 0)));
  GiltValue *r;
  if (loop_op_is(op, LOOP_OP_SELECT))
    r = l2l_emit(l, LLVM_OP_SELECT, t, 3, ops);
  else
    r = l2l_emit_attr(l,
                      loop_op_is(op, LOOP_OP_CMPI) ? LLVM_OP_ICMP : LLVM_OP_FCMP,
                      t, 2, ops, "predicate",
                      gilt_op_get_attr(op, "predicate"));
  l2l_map(l, gilt_op_get_result(op, 0), r);
  return GILT_SUCCESS;
}
