/*
** func.c - the func dialect: func.func, func.return and func.call.
**
** The ops, textual forms and diagnostics are MLIR's:
**
**   func.func private @decl(i32) -> i32
**   func.func @f(%arg0: tensor<4xf32>, %arg1: i32) -> (tensor<4xf32>, i32)
**       attributes {inline} {
**     %0 = call @g(%arg1) : (i32) -> i32
**     return %arg0, %0 : tensor<4xf32>, i32
**   }
**
** Inside a func.func, `func.` is the default dialect, so the printer drops
** it (`return`, `call`) and the parser accepts both spellings. Argument and
** result attributes live in `arg_attrs`/`res_attrs` arrays of dictionaries
** and print inline in the signature. The verifier has already checked each
** op's signature (operand counts, attribute kinds) and the symbol rules
** (names, visibility values).
**
** func.func is function-like and callable, func.call is call-like
** (gilt/interfaces.h): their signature form, their checks and their
** diagnostics are the interfaces' shared ones (ir/asm/function_asm.c,
** ir/interfaces/function_like.c and call_like.c), so that every function
** and call op of every level reads and fails alike. What stays here is
** func's own: the forms of return and call, and that a func.return sits
** in a func.func.
**
** Not here: calls through values (there is no call_indirect), variadic
** functions, and the inliner (transforms/inline.c).
*/
#include "dialects/func/func.h"

#include <string.h>

#include "gilt/interfaces.h"
#include "gilt/register.h"
#include "ir/asm/function_asm.h"

/* ---- shared helpers --------------------------------------------------------- */

typedef GILT_VEC(GiltUnresolvedOperand) OperandVec;
typedef GILT_VEC(GiltType *) TypeVec;

/* Resolves the operands against their types, in order (MLIR's
** resolveOperands), into the build. */
static GiltStatus resolve_operands(GiltAsmParser *p, GiltOpBuild *b,
                                   const GiltUnresolvedOperand *ops,
                                   size_t n, GiltType *const *types,
                                   size_t num_types)
{
  if (n != num_types)
    return gilt_asm_emit_error(p, "%zu operands present, but expected %zu",
                               n, num_types);
  for (size_t i = 0; i < n; i++) {
    GiltValue *v;
    if (gilt_asm_resolve_operand(p, &ops[i], types[i], &v))
      return GILT_FAILURE;
    gilt_vec_push(b->ctx, &b->operands, v);
  }
  return GILT_SUCCESS;
}

/* ---- func.return ---------------------------------------------------------------- */

static void print_operand_types(GiltAsmPrinter *p, GiltOp *op)
{
  for (size_t i = 0; i < op->num_operands; i++) {
    if (i)
      gilt_asm_print(p, ", ");
    gilt_asm_print_type(p, op->operands[i].value->type);
  }
}

/* `return` or `return %0, %1 : i32, f32`, attributes first. */
static void print_return(GiltOp *op, GiltAsmPrinter *p)
{
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  if (!op->num_operands)
    return;
  gilt_asm_print(p, " ");
  gilt_asm_print_operands(p, op, 0, op->num_operands);
  gilt_asm_print(p, " : ");
  print_operand_types(p, op);
}

static GiltStatus parse_return(GiltAsmParser *p, GiltOpBuild *b)
{
  if (gilt_asm_parse_optional_attr_dict(p, b, false))
    return GILT_FAILURE;
  if (!gilt_asm_peek_operand(p))
    return GILT_SUCCESS;
  OperandVec ops = {0};
  TypeVec types = {0};
  GiltStatus st = gilt_asm_parse_operand_vec(p, &ops);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ":");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_type_vec(p, &types);
  if (st == GILT_SUCCESS)
    st = resolve_operands(p, b, ops.data, ops.len, types.data, types.len);
  gilt_vec_free(b->ctx, &ops);
  gilt_vec_free(b->ctx, &types);
  return st;
}

static GiltStatus verify_return(GiltOp *op)
{
  GiltOp *func = gilt_op_get_parent_op(op);
  if (!gilt_func_op_is(func, FUNC_OP_FUNC))
    return gilt_op_emit_error(op, "expects parent op 'func.func'");
  return gilt_function_like_verify_return(func, op);
}

/* ---- func.call ---------------------------------------------------------------------- */

/* `call @f(%0, %1) {attrs} : (i32, i32) -> i32` */
static void print_call(GiltOp *op, GiltAsmPrinter *p)
{
  static const char *const elided[] = {"callee"};
  gilt_asm_print(p, " ");
  gilt_asm_print_attr(p, gilt_op_get_attr(op, "callee"));
  gilt_asm_print(p, "(");
  gilt_asm_print_operands(p, op, 0, op->num_operands);
  gilt_asm_print(p, ")");
  gilt_asm_print_attr_dict(p, op, elided, 1, false);
  gilt_asm_print(p, " : ");
  gilt_asm_print_functional_type(p, op);
}

/* The callee, a flat `@name`, as the `callee` attribute. */
static GiltStatus parse_callee(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltAttr *callee;
  if (gilt_asm_parse_attr(p, &callee))
    return GILT_FAILURE;
  if (callee->kind != GILT_ATTR_SYMBOL_REF || callee->symref.n != 1)
    return gilt_asm_emit_error(p, "invalid kind of attribute specified");
  gilt_op_build_add_attr(b, "callee", callee);
  return GILT_SUCCESS;
}

static GiltStatus parse_call(GiltAsmParser *p, GiltOpBuild *b)
{
  OperandVec ops = {0};
  GiltType *fnty = NULL;
  GiltStatus st = parse_callee(p, b);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, "(");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_operand_vec(p, &ops);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ")");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_optional_attr_dict(p, b, false);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ":");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_type(p, &fnty);
  if (st == GILT_SUCCESS && fnty->kind != GILT_TYPE_FUNCTION)
    st = gilt_asm_emit_error(p, "invalid kind of type specified");
  if (st == GILT_SUCCESS)
    st = resolve_operands(p, b, ops.data, ops.len, fnty->func.types,
                          fnty->func.num_inputs);
  for (size_t i = 0; st == GILT_SUCCESS && i < fnty->func.num_results; i++)
    gilt_vec_push(b->ctx, &b->result_types,
                  fnty->func.types[fnty->func.num_inputs + i]);
  gilt_vec_free(b->ctx, &ops);
  return st;
}

/* ---- the dialect --------------------------------------------------------------------- */

const GiltOpDef gilt_func_ops[FUNC_NUM_OPS] = {
#define GILT_OP GILT_OP_AS_ROW
#include "dialects/func/func.def"
#undef GILT_OP
};

const GiltDialectDef gilt_func_dialect = {
    .name = "func",
    GILT_DIALECT_OPS(gilt_func_ops),
};

/* ---- public API ---------------------------------------------------------------------- */

GiltOp *gilt_func_create(GiltContext *ctx, GiltLocation *loc,
                         const char *name, GiltType *function_type)
{
  if (function_type->kind != GILT_TYPE_FUNCTION) {
    gilt_emit_error(loc, "func.func needs a function type");
    return NULL;
  }
  GiltNamedAttr attrs[2] = {
      {"function_type", gilt_type_attr_get(function_type)},
      {"sym_name", gilt_string_attr_get(ctx, name, strlen(name))},
  };
  GiltOpState st = gilt_op_state_get("func.func", loc);
  st.num_attrs = 2;
  st.attrs = attrs;
  st.num_regions = 1;
  GiltOp *func = gilt_op_create(ctx, &st);
  if (!func)
    return NULL;
  /* As MLIR's FuncOp::addEntryBlock, the arguments take the func's
  ** location. */
  GiltBlock *entry = gilt_block_create(ctx, 0, NULL, NULL);
  for (size_t i = 0; i < function_type->func.num_inputs; i++)
    gilt_block_add_argument(entry, function_type->func.types[i], loc);
  gilt_region_append_block(&gilt_op_region_array(func)[0], entry);
  return func;
}

GiltBlock *gilt_func_get_entry_block(GiltOp *func)
{
  return func->num_regions ? gilt_op_region_array(func)[0].first : NULL;
}

GiltType *gilt_func_get_type(GiltOp *func)
{
  return gilt_function_like_get_type(func);
}

void gilt_register_func_dialect(GiltContext *ctx)
{
  gilt_context_register_dialect(ctx, &gilt_func_dialect);
}
