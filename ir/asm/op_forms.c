/*
** op_forms.c - three custom textual forms that many dialects' ops share, as
** MLIR's arith and LLVM dialects write them:
**
**   %s = loop.addf %a, %b : f32         one type for every operand and the
**                                       result (arithmetic)
**   %f = llvm.sitofp %i : i32 to f32    one operand, one result, both typed
**                                       (conversions)
**
**   %v = loop.broadcast %x : (f32) -> vector<16xf32>
**                                       any op: its functional type
**
** A row names them as its print and parse hooks. Both print the op's
** attributes as a dictionary after the operands, so nothing is lost in a
** round trip.
*/
#include "ir/asm/asm.h"

#include "ir/core.h"

typedef GILT_VEC(GiltUnresolvedOperand) OperandVec;
typedef GILT_VEC(GiltType *) TypeVec;

GiltStatus gilt_asm_parse_colon_type(GiltAsmParser *p, GiltType **out)
{
  if (gilt_asm_parse_punct(p, ":"))
    return GILT_FAILURE;
  return gilt_asm_parse_type(p, out);
}

GiltStatus gilt_asm_resolve_into(GiltAsmParser *p, GiltOpBuild *b,
                                 const GiltUnresolvedOperand *ops, size_t n,
                                 GiltType *type, GiltType *const *types)
{
  for (size_t i = 0; i < n; i++) {
    GiltValue *v;
    if (gilt_asm_resolve_operand(p, &ops[i], types ? types[i] : type, &v))
      return GILT_FAILURE;
    gilt_op_build_add_operand(b, v);
  }
  return GILT_SUCCESS;
}

/* ---- one type for every operand and the result ---------------------------- */

void gilt_same_type_asm_print(GiltOp *op, GiltAsmPrinter *p)
{
  gilt_asm_print(p, " ");
  gilt_asm_print_operands(p, op, 0, op->num_operands);
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  gilt_asm_print(p, " : ");
  gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_result(op, 0)));
}

GiltStatus gilt_same_type_asm_parse(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  OperandVec ops = {0};
  GiltType *t = NULL;
  GiltStatus st = gilt_asm_parse_operand_vec(p, &ops);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_optional_attr_dict(p, b, false);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_colon_type(p, &t);
  if (st == GILT_SUCCESS)
    st = gilt_asm_resolve_into(p, b, ops.data, ops.len, t, NULL);
  if (st == GILT_SUCCESS)
    gilt_op_build_add_result_type(b, t);
  gilt_vec_free(ctx, &ops);
  return st;
}

/* ---- casts: `%a : i32 to f32` ------------------------------------------------ */

void gilt_cast_asm_print(GiltOp *op, GiltAsmPrinter *p)
{
  gilt_asm_print(p, " ");
  gilt_asm_print_operands(p, op, 0, 1);
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  gilt_asm_print(p, " : ");
  gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_operand(op, 0)));
  gilt_asm_print(p, " to ");
  gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_result(op, 0)));
}

GiltStatus gilt_cast_asm_parse(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltUnresolvedOperand in;
  GiltType *from, *to;
  GiltValue *v;
  if (gilt_asm_parse_operand(p, &in) ||
      gilt_asm_parse_optional_attr_dict(p, b, false) ||
      gilt_asm_parse_colon_type(p, &from) || gilt_asm_parse_keyword(p, "to") ||
      gilt_asm_parse_type(p, &to) ||
      gilt_asm_resolve_operand(p, &in, from, &v))
    return GILT_FAILURE;
  gilt_op_build_add_operand(b, v);
  gilt_op_build_add_result_type(b, to);
  return GILT_SUCCESS;
}

/* ---- any op: `%a, %b {attrs} : (types) -> types` ---------------------------- */

void gilt_functional_asm_print(GiltOp *op, GiltAsmPrinter *p)
{
  if (op->num_operands)
    gilt_asm_print(p, " ");
  gilt_asm_print_operands(p, op, 0, op->num_operands);
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  gilt_asm_print(p, " : ");
  gilt_asm_print_functional_type(p, op);
}

static GiltStatus push_type(GiltAsmParser *p, GiltType *t, void *user)
{
  (void)p;
  gilt_op_build_add_result_type(user, t);
  return GILT_SUCCESS;
}

GiltStatus gilt_functional_asm_parse(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  OperandVec ops = {0};
  TypeVec types = {0};
  GiltStatus st = gilt_asm_parse_operand_vec(p, &ops);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_optional_attr_dict(p, b, false);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ":");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, "(");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_type_vec(p, &types);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ")");
  if (st == GILT_SUCCESS && types.len != ops.len)
    st = gilt_asm_emit_error(p, "expected %zu operand types, got %zu",
                             ops.len, types.len);
  if (st == GILT_SUCCESS)
    st = gilt_asm_resolve_into(p, b, ops.data, ops.len, NULL, types.data);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_optional_arrow_type_list(p, push_type, b);
  gilt_vec_free(ctx, &ops);
  gilt_vec_free(ctx, &types);
  return st;
}
