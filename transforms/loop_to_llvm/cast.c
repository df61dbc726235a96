/*
** cast.c - conversions between element types (loop.extsi ... bitcast) to
** LLVM casts, with the interpreter's semantics (interpreter/cast.c):
** float to integer truncates and saturates (llvm.fptosi.sat and
** llvm.fptoui.sat: NaN gives 0, out-of-range values the nearest bound);
** float narrowing rounds once to nearest even (fptrunc from the source
** type); index is i64 here, so index_cast sign-extends or truncates.
** f16 and bf16, which have the same width, convert through f32, exactly.
*/
#include "transforms/loop_to_llvm/lowering.h"

static GiltType *elem_of(GiltType *t)
{
  return t->kind == GILT_TYPE_VECTOR ? t->shaped.elem : t;
}

static GiltType *f32_like(L2L *l, GiltType *t)
{
  if (t->kind != GILT_TYPE_VECTOR)
    return l->f32;
  return gilt_vector_type_get(l->ctx, 1, t->shaped.shape, l->f32);
}

/* Between integers of any widths: sign-extend, or keep the low bits. */
static GiltValue *resize_int(L2L *l, GiltValue *v, GiltType *to, LlvmOpId ext)
{
  unsigned from_w = elem_of(gilt_value_get_type(v))->integer.width;
  unsigned to_w = elem_of(to)->integer.width;
  if (from_w == to_w)
    return l2l_cast(l, LLVM_OP_BITCAST, v, to);
  return l2l_cast(l, from_w < to_w ? ext : LLVM_OP_TRUNC, v, to);
}

static GiltValue *resize_float(L2L *l, GiltValue *v, GiltType *to)
{
  GiltType *from = gilt_value_get_type(v);
  unsigned from_w = gilt_type_get_bit_width(elem_of(from));
  unsigned to_w = gilt_type_get_bit_width(elem_of(to));
  if (from == to)
    return v;
  if (from_w == to_w) /* f16 <-> bf16 */
    return l2l_cast(l, LLVM_OP_FPTRUNC,
                    l2l_cast(l, LLVM_OP_FPEXT, v, f32_like(l, from)), to);
  return l2l_cast(l, from_w < to_w ? LLVM_OP_FPEXT : LLVM_OP_FPTRUNC, v, to);
}

static GiltValue *saturating(L2L *l, const char *name, GiltValue *v,
                             GiltType *to)
{
  GiltType *from = gilt_value_get_type(v);
  if (gilt_type_get_bit_width(elem_of(from)) == 16)
    v = l2l_cast(l, LLVM_OP_FPEXT, v, f32_like(l, from));
  return l2l_intrinsic(l, name, to, 1, &v);
}

GiltStatus l2l_lower_cast(L2L *l, GiltOp *op)
{
  GiltValue *v = l2l_value(l, gilt_op_get_operand(op, 0));
  GiltType *to = l2l_type(l, gilt_value_get_type(gilt_op_get_result(op, 0)));
  GiltValue *r;
  switch (loop_op_id(op)) {
  case LOOP_OP_EXTSI: r = l2l_cast(l, LLVM_OP_SEXT, v, to); break;
  case LOOP_OP_EXTUI: r = l2l_cast(l, LLVM_OP_ZEXT, v, to); break;
  case LOOP_OP_TRUNCI: r = l2l_cast(l, LLVM_OP_TRUNC, v, to); break;
  case LOOP_OP_INDEX_CAST: r = resize_int(l, v, to, LLVM_OP_SEXT); break;
  case LOOP_OP_SITOFP: r = l2l_cast(l, LLVM_OP_SITOFP, v, to); break;
  case LOOP_OP_UITOFP: r = l2l_cast(l, LLVM_OP_UITOFP, v, to); break;
  case LOOP_OP_FPTOSI: r = saturating(l, "llvm.fptosi.sat", v, to); break;
  case LOOP_OP_FPTOUI: r = saturating(l, "llvm.fptoui.sat", v, to); break;
  case LOOP_OP_EXTF:
  case LOOP_OP_TRUNCF: r = resize_float(l, v, to); break;
  default: r = l2l_cast(l, LLVM_OP_BITCAST, v, to); break;
  }
  l2l_map(l, gilt_op_get_result(op, 0), r);
  return GILT_SUCCESS;
}
