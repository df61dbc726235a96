/*
** fold.c - the folders of the loop dialect: what canonicalize needs to
** clean up after lowering, which builds its index arithmetic from
** constants (sizes, strides, offsets) and leaves most of it constant.
**
** Only scalar integer and index arithmetic folds here, with the
** interpreter's semantics (wrapping at the width, truncating division), and
** the identities that do not depend on values (x + 0, x * 1, x * 0 for
** integers). Float arithmetic is left to the interpreter and LLVM: folding
** it here would be a second semantics to keep in step.
*/
#include "dialects/loop/loop.h"

#include <string.h>

#include "ir/core.h"

static bool is_int_scalar(GiltType *t)
{
  return t->kind == GILT_TYPE_INTEGER || t->kind == GILT_TYPE_INDEX;
}

static unsigned width_of(GiltType *t)
{
  return t->kind == GILT_TYPE_INDEX ? 64 : t->integer.width;
}

static bool const_int(GiltAttr *a, int64_t *v)
{
  if (!a || a->kind != GILT_ATTR_INTEGER)
    return false;
  *v = a->i;
  return true;
}

/* a OP b at `width` bits; false when it has no value (division by zero,
** INT_MIN / -1 overflows but wraps, as the interpreter does). */
static bool eval_int(LoopOpId id, int64_t a, int64_t b, unsigned width,
                     int64_t *out)
{
  uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;
  uint64_t ua = (uint64_t)a & mask, ub = (uint64_t)b & mask;
  uint64_t r;
  switch (id) {
  case LOOP_OP_ADDI: r = (uint64_t)a + (uint64_t)b; break;
  case LOOP_OP_SUBI: r = (uint64_t)a - (uint64_t)b; break;
  case LOOP_OP_MULI: r = (uint64_t)a * (uint64_t)b; break;
  case LOOP_OP_DIVSI:
  case LOOP_OP_REMSI:
  case LOOP_OP_FLOORDIVSI:
  case LOOP_OP_CEILDIVSI: {
    if (b == 0 || (b == -1 && a == INT64_MIN))
      return false;
    int64_t q = a / b, rem = a % b;
    if (id == LOOP_OP_REMSI)
      q = rem;
    else if (id == LOOP_OP_FLOORDIVSI && rem != 0 && ((rem < 0) != (b < 0)))
      q -= 1;
    else if (id == LOOP_OP_CEILDIVSI && rem != 0 && ((rem < 0) == (b < 0)))
      q += 1;
    r = (uint64_t)q;
    break;
  }
  case LOOP_OP_DIVUI:
  case LOOP_OP_REMUI:
    if (ub == 0)
      return false;
    r = id == LOOP_OP_DIVUI ? ua / ub : ua % ub;
    break;
  case LOOP_OP_MINSI: r = (uint64_t)(a < b ? a : b); break;
  case LOOP_OP_MAXSI: r = (uint64_t)(a > b ? a : b); break;
  case LOOP_OP_MINUI: r = ua < ub ? ua : ub; break;
  case LOOP_OP_MAXUI: r = ua > ub ? ua : ub; break;
  case LOOP_OP_ANDI: r = ua & ub; break;
  case LOOP_OP_ORI: r = ua | ub; break;
  case LOOP_OP_XORI: r = ua ^ ub; break;
  default:
    return false; /* shifts: left to the interpreter */
  }
  *out = gilt_int_extend(r, width, true);
  return true;
}

static bool eval_cmpi(const char *pred, int64_t a, int64_t b, unsigned width)
{
  uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;
  uint64_t ua = (uint64_t)a & mask, ub = (uint64_t)b & mask;
  if (!strcmp(pred, "eq")) return a == b;
  if (!strcmp(pred, "ne")) return a != b;
  if (!strcmp(pred, "slt")) return a < b;
  if (!strcmp(pred, "sle")) return a <= b;
  if (!strcmp(pred, "sgt")) return a > b;
  if (!strcmp(pred, "sge")) return a >= b;
  if (!strcmp(pred, "ult")) return ua < ub;
  if (!strcmp(pred, "ule")) return ua <= ub;
  if (!strcmp(pred, "ugt")) return ua > ub;
  return ua >= ub; /* uge */
}

/* x + 0, x - 0, x * 1, 0 + x, 1 * x: the other operand. */
static GiltValue *identity_operand(GiltOp *op, LoopOpId id,
                                   GiltAttr *const *consts)
{
  int64_t lc = 0, c = 0;
  bool lhs = const_int(consts[0], &lc);
  bool rhs = const_int(consts[1], &c);
  int64_t neutral = id == LOOP_OP_MULI ? 1 : 0;
  if (id != LOOP_OP_ADDI && id != LOOP_OP_SUBI && id != LOOP_OP_MULI &&
      id != LOOP_OP_DIVSI && id != LOOP_OP_DIVUI)
    return NULL;
  if (id == LOOP_OP_DIVSI || id == LOOP_OP_DIVUI)
    neutral = 1;
  if (rhs && c == neutral)
    return gilt_op_get_operand(op, 0);
  if (lhs && lc == neutral && (id == LOOP_OP_ADDI || id == LOOP_OP_MULI))
    return gilt_op_get_operand(op, 1);
  return NULL;
}

GiltStatus loop_fold_arith(GiltOp *op, GiltAttr *const *consts,
                           GiltFoldResult *out)
{
  GiltType *t = gilt_value_get_type(gilt_op_get_operand(op, 0));
  LoopOpId id = loop_op_id(op);
  if (!is_int_scalar(t))
    return GILT_FAILURE;
  int64_t a, b, r;
  bool both = const_int(consts[0], &a) && const_int(consts[1], &b);
  if (id == LOOP_OP_CMPI) {
    if (!both)
      return GILT_FAILURE;
    const char *pred =
        gilt_string_attr_get_value(gilt_op_get_attr(op, "predicate"), NULL);
    GiltType *i1 = gilt_integer_type_get(gilt_op_get_context(op), 1,
                                         GILT_SIGNLESS);
    out[0].attr = gilt_integer_attr_get(i1, eval_cmpi(pred, a, b, width_of(t)));
    return GILT_SUCCESS;
  }
  if (both && eval_int(id, a, b, width_of(t), &r)) {
    out[0].attr = gilt_integer_attr_get(t, r);
    return GILT_SUCCESS;
  }
  if ((id == LOOP_OP_MULI || id == LOOP_OP_ANDI) &&
      ((const_int(consts[0], &a) && a == 0) ||
       (const_int(consts[1], &b) && b == 0))) {
    out[0].attr = gilt_integer_attr_get(t, 0);
    return GILT_SUCCESS;
  }
  GiltValue *same = identity_operand(op, id, consts);
  if (!same)
    return GILT_FAILURE;
  out[0].value = same;
  return GILT_SUCCESS;
}

/* index_cast of a constant, and of an index_cast back (i64 -> index ->
** i64 is the value itself when no bits were lost on the way). */
GiltStatus loop_fold_cast(GiltOp *op, GiltAttr *const *consts,
                          GiltFoldResult *out)
{
  GiltType *to = gilt_value_get_type(gilt_op_get_result(op, 0));
  int64_t v;
  if (!loop_op_is(op, LOOP_OP_INDEX_CAST) || !const_int(consts[0], &v))
    return GILT_FAILURE;
  out[0].attr = gilt_integer_attr_get(to, gilt_int_extend((uint64_t)v,
                                                          width_of(to), true));
  return GILT_SUCCESS;
}

GiltStatus loop_fold_constant(GiltOp *op, GiltAttr *const *consts,
                              GiltFoldResult *out)
{
  (void)consts;
  out[0].attr = gilt_op_get_attr(op, "value");
  return GILT_SUCCESS;
}

GiltStatus loop_fold_select(GiltOp *op, GiltAttr *const *consts,
                            GiltFoldResult *out)
{
  int64_t c;
  if (gilt_op_get_operand(op, 1) == gilt_op_get_operand(op, 2)) {
    out[0].value = gilt_op_get_operand(op, 1);
    return GILT_SUCCESS;
  }
  if (!const_int(consts[0], &c))
    return GILT_FAILURE;
  out[0].value = gilt_op_get_operand(op, c ? 1 : 2);
  return GILT_SUCCESS;
}

GiltStatus loop_fold_dim(GiltOp *op, GiltAttr *const *consts,
                         GiltFoldResult *out)
{
  GiltType *m = gilt_value_get_type(gilt_op_get_operand(op, 0));
  int64_t i;
  if (!const_int(consts[1], &i) || i < 0 || (size_t)i >= m->shaped.rank ||
      m->shaped.shape[i] == GILT_DYNAMIC)
    return GILT_FAILURE;
  out[0].attr = gilt_integer_attr_get(gilt_index_type_get(gilt_op_get_context(op)),
                                      m->shaped.shape[i]);
  return GILT_SUCCESS;
}
