/*
** fold.c - the folders of the loop dialect: what canonicalize needs to
** clean up after lowering, which builds its index arithmetic from
** constants (sizes, strides, offsets) and leaves most of it constant.
**
** Scalar integer and index ops and the casts between them fold, computed
** by dialects/loop/int_semantics.h, the functions the interpreter runs:
** the constants become cells as the interpreter holds them, and the
** result goes back to an attribute in the canonical form the parser
** gives. A division that would stop the run (by zero, the minimum by -1)
** is not folded: the run reports it. Also the identities that do not
** depend on values (x + 0, x * 1, x * 0 for integers). Float arithmetic
** is left to the interpreter and LLVM: folding it here would be a second
** semantics to keep in step. A scalar load of a weight (a loop.global,
** which nothing writes) at constant indices folds to the element: the
** bits are copied, nothing is computed.
*/
#include "dialects/loop/loop.h"

#include <string.h>

#include "dialects/loop/int_semantics.h"
#include "ir/core.h"
#include "ir/symbol_table.h"

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

/* The cell of an integer constant of width w (ui values are stored
** zero-extended, cells sign-extended). */
static bool const_cell(GiltAttr *a, unsigned w, int64_t *cell)
{
  int64_t v;
  if (!const_int(a, &v))
    return false;
  *cell = loop_int_cell((uint64_t)v, w);
  return true;
}

/* The attribute of type t holding a cell: as the parser stores it, so
** that it uniques with the same constant written in the source. */
static GiltAttr *cell_attr(GiltType *t, int64_t cell)
{
  unsigned w = width_of(t);
  bool sign = t->kind == GILT_TYPE_INDEX ||
              (t->integer.sign != GILT_UNSIGNED && w > 1);
  return gilt_integer_attr_get(t, gilt_int_extend((uint64_t)cell, w, sign));
}

/* x + 0, x - 0, x * 1, x / 1, 0 + x, 1 * x: the other operand. "1" is
** the signed value for divsi, so that i1's true (-1) is not one. */
static GiltValue *identity_operand(GiltOp *op, LoopOpId id, unsigned w,
                                   bool lhs, int64_t x, bool rhs, int64_t y)
{
  bool right;
  switch (id) {
  case LOOP_OP_ADDI:
  case LOOP_OP_SUBI: right = rhs && y == 0; break;
  case LOOP_OP_MULI: right = rhs && y == 1; break;
  case LOOP_OP_DIVSI: right = rhs && loop_int_sx(y, w) == 1; break;
  case LOOP_OP_DIVUI: right = rhs && loop_int_zx(y, w) == 1; break;
  default: return NULL;
  }
  if (right)
    return gilt_op_get_operand(op, 0);
  if (lhs && ((id == LOOP_OP_ADDI && x == 0) || (id == LOOP_OP_MULI && x == 1)))
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
  unsigned w = width_of(t);
  int64_t x = 0, y = 0, r;
  bool lhs = const_cell(consts[0], w, &x);
  bool rhs = const_cell(consts[1], w, &y);
  if (id == LOOP_OP_CMPI) {
    if (!lhs || !rhs)
      return GILT_FAILURE;
    int pred = loop_int_predicate(
        gilt_string_attr_get_value(gilt_op_get_attr(op, "predicate"), NULL));
    GiltType *i1 = gilt_integer_type_get(gilt_op_get_context(op), 1,
                                         GILT_SIGNLESS);
    out[0].attr = cell_attr(i1, loop_int_compare(pred, x, y, w));
    return GILT_SUCCESS;
  }
  if (!loop_int_is_op(id))
    return GILT_FAILURE;
  if (lhs && rhs) {
    /* A division that fails is left for the run to report. */
    if (loop_int_apply(id, x, y, w, &r) != LOOP_INT_OK)
      return GILT_FAILURE;
    out[0].attr = cell_attr(t, r);
    return GILT_SUCCESS;
  }
  if ((id == LOOP_OP_MULI || id == LOOP_OP_ANDI) &&
      ((lhs && x == 0) || (rhs && y == 0))) {
    out[0].attr = cell_attr(t, 0);
    return GILT_SUCCESS;
  }
  GiltValue *same = identity_operand(op, id, w, lhs, x, rhs, y);
  if (!same)
    return GILT_FAILURE;
  out[0].value = same;
  return GILT_SUCCESS;
}

/* extsi, extui, trunci and index_cast of a constant. */
GiltStatus loop_fold_cast(GiltOp *op, GiltAttr *const *consts,
                          GiltFoldResult *out)
{
  GiltType *from = gilt_value_get_type(gilt_op_get_operand(op, 0));
  GiltType *to = gilt_value_get_type(gilt_op_get_result(op, 0));
  LoopOpId id = loop_op_id(op);
  int64_t x;
  if (!loop_int_is_cast(id) || !is_int_scalar(from) || !is_int_scalar(to) ||
      !const_cell(consts[0], width_of(from), &x))
    return GILT_FAILURE;
  out[0].attr = cell_attr(to, loop_int_cast(id, x, width_of(from),
                                            width_of(to)));
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

/* The loop.global a loop.get_global reads, or NULL. */
static GiltOp *global_of(GiltOp *get)
{
  GiltOp *module = get;
  while (gilt_op_get_parent_op(module))
    module = gilt_op_get_parent_op(module);
  GiltOp *global = gilt_symbol_table_lookup(
      module, gilt_symbol_ref_attr_get_root(gilt_op_get_attr(get, "name")));
  return loop_op_is(global, LOOP_OP_GLOBAL) ? global : NULL;
}

/* The element `bytes` hold as an attribute of type elem: f32, f64 and
** integers of whole bytes (not i1, a byte per element); NULL otherwise. */
static GiltAttr *element_attr(GiltType *elem, const unsigned char *bytes)
{
  if (elem->kind == GILT_TYPE_FLOAT && elem->fkind == GILT_F32) {
    float f;
    memcpy(&f, bytes, 4);
    return gilt_float_attr_get(elem, f);
  }
  if (elem->kind == GILT_TYPE_FLOAT && elem->fkind == GILT_F64) {
    double d;
    memcpy(&d, bytes, 8);
    return gilt_float_attr_get(elem, d);
  }
  unsigned w = is_int_scalar(elem) ? width_of(elem) : 0;
  if (w < 8 || w > 64 || w % 8)
    return NULL;
  uint64_t cell = 0;
  for (unsigned i = 0; i < w / 8; i++) /* little-endian */
    cell |= (uint64_t)bytes[i] << (8 * i);
  return cell_attr(elem, loop_int_cell(cell, w));
}

GiltStatus loop_fold_load(GiltOp *op, GiltAttr *const *consts,
                          GiltFoldResult *out)
{
  GiltOp *get = gilt_value_get_defining_op(gilt_op_get_operand(op, 0));
  GiltOp *global = loop_op_is(get, LOOP_OP_GET_GLOBAL) ? global_of(get) : NULL;
  if (!global)
    return GILT_FAILURE;
  GiltType *t = gilt_type_attr_get_value(gilt_op_get_attr(global, "type"));
  GiltAttr *value = gilt_op_get_attr(global, "value");
  int64_t linear = 0;
  for (size_t i = 0; i < t->shaped.rank; i++) {
    int64_t index;
    if (!const_int(consts[1 + i], &index) || index < 0 ||
        index >= t->shaped.shape[i])
      return GILT_FAILURE;
    linear = linear * t->shaped.shape[i] + index;
  }
  size_t nbytes, size = gilt_type_get_storage_size(t->shaped.elem);
  const unsigned char *data = gilt_dense_attr_get_data(value, &nbytes);
  if (gilt_dense_attr_is_splat(value))
    linear = 0;
  if (!data || (size_t)(linear + 1) * size > nbytes)
    return GILT_FAILURE;
  out[0].attr = element_attr(t->shaped.elem, data + (size_t)linear * size);
  return out[0].attr ? GILT_SUCCESS : GILT_FAILURE;
}
