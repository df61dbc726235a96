/*
** assembly.c - the custom textual forms of the loop dialect, MLIR's forms
** for the arith, memref and scf ops they mirror:
**
**   %s = loop.addf %a, %b : f32               (one type for all values)
**   %f = loop.sitofp %i : i32 to f32
**   %c = loop.constant 1.0 : f32
**   %p = loop.cmpf "olt", %a, %b : f32
**   %r = loop.select %p, %a, %b : f32
**   %m = loop.alloc(%n) : memref<?x4xf32>
**   %v = loop.load %m[%i, %j] : memref<?x4xf32>
**   loop.store %v, %m[%i, %j] : memref<?x4xf32>
**   %v = loop.vector_load %m[%i, %j] : memref<?x64xf32>, vector<16xf32>
**   %r = loop.for %i = %lb to %ub step %s iter_args(%acc = %init) -> (f32) {
**   loop.parallel (%i, %j) = (%a, %b) to (%c, %d) step (%e, %f) {
**   %r = loop.if %p -> (f32) { ... } else { ... }
**   loop.yield %x : f32
**
** The other ops print in the generic form. Every form here prints its
** attributes (those it does not spell itself) as a dictionary, so nothing
** is lost in a round trip.
*/
#include "dialects/loop/loop.h"

#include "ir/asm/asm.h"
#include "ir/core.h"

typedef GILT_VEC(GiltUnresolvedOperand) OperandVec;
typedef GILT_VEC(GiltType *) TypeVec;

/* ---- constants: the value, whose type is the result's ------------------------ */

void loop_print_constant(GiltOp *op, GiltAsmPrinter *p)
{
  static const char *const elided[] = {"value"};
  gilt_asm_print_attr_dict(p, op, elided, 1, false);
  gilt_asm_print(p, " ");
  /* The attribute prints its type, i64 and f64 included. */
  gilt_asm_print_attr(p, gilt_op_get_attr(op, "value"));
}

GiltStatus loop_parse_constant(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltAttr *value;
  if (gilt_asm_parse_optional_attr_dict(p, b, false) ||
      gilt_asm_parse_attr(p, &value))
    return GILT_FAILURE;
  /* An i1 constant prints as true or false, which parse as booleans. */
  if (value->kind == GILT_ATTR_BOOL)
    value = gilt_integer_attr_get(
        gilt_integer_type_get(value->ctx, 1, GILT_SIGNLESS), value->b);
  GiltType *t = gilt_attr_get_type(value);
  if (!t)
    return gilt_asm_emit_error(p, "expected a typed constant");
  gilt_op_build_add_attr(b, "value", value);
  gilt_op_build_add_result_type(b, t);
  return GILT_SUCCESS;
}

/* ---- comparisons: `"olt", %a, %b : f32` ------------------------------------------ */

void loop_print_compare(GiltOp *op, GiltAsmPrinter *p)
{
  static const char *const elided[] = {"predicate"};
  size_t len;
  const char *pred =
      gilt_string_attr_get_value(gilt_op_get_attr(op, "predicate"), &len);
  gilt_asm_print(p, " ");
  gilt_asm_print_string(p, pred, len);
  gilt_asm_print(p, ", ");
  gilt_asm_print_operands(p, op, 0, 2);
  gilt_asm_print_attr_dict(p, op, elided, 1, false);
  gilt_asm_print(p, " : ");
  gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_operand(op, 0)));
}

GiltStatus loop_parse_compare(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltAttr *pred;
  GiltUnresolvedOperand ops[2];
  GiltType *t;
  if (gilt_asm_parse_string(p, &pred) || gilt_asm_parse_punct(p, ",") ||
      gilt_asm_parse_operand(p, &ops[0]) || gilt_asm_parse_punct(p, ",") ||
      gilt_asm_parse_operand(p, &ops[1]) ||
      gilt_asm_parse_optional_attr_dict(p, b, false) ||
      gilt_asm_parse_colon_type(p, &t) || gilt_asm_resolve_into(p, b, ops, 2, t, NULL))
    return GILT_FAILURE;
  if (t->kind == GILT_TYPE_VECTOR && t->shaped.rank != 1)
    return gilt_asm_emit_error(p, "compares scalars or one-dimensional "
                                  "vectors");
  gilt_op_build_add_attr(b, "predicate", pred);
  gilt_op_build_add_result_type(b, loop_bool_like(t));
  return GILT_SUCCESS;
}

/* ---- select: `%c, %a, %b : T`, or `: vector<Nxi1>, T` for lane masks ------------- */

void loop_print_select(GiltOp *op, GiltAsmPrinter *p)
{
  GiltType *cond = gilt_value_get_type(gilt_op_get_operand(op, 0));
  gilt_asm_print(p, " ");
  gilt_asm_print_operands(p, op, 0, 3);
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  gilt_asm_print(p, " : ");
  if (cond->kind == GILT_TYPE_VECTOR) {
    gilt_asm_print_type(p, cond);
    gilt_asm_print(p, ", ");
  }
  gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_result(op, 0)));
}

GiltStatus loop_parse_select(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  GiltUnresolvedOperand ops[3];
  GiltType *cond = gilt_integer_type_get(ctx, 1, GILT_SIGNLESS), *t;
  for (size_t i = 0; i < 3; i++)
    if ((i && gilt_asm_parse_punct(p, ",")) ||
        gilt_asm_parse_operand(p, &ops[i]))
      return GILT_FAILURE;
  if (gilt_asm_parse_optional_attr_dict(p, b, false) ||
      gilt_asm_parse_colon_type(p, &t))
    return GILT_FAILURE;
  if (gilt_asm_parse_optional_punct(p, ",")) {
    cond = t;
    if (gilt_asm_parse_type(p, &t))
      return GILT_FAILURE;
  }
  GiltType *types[3] = {cond, t, t};
  if (gilt_asm_resolve_into(p, b, ops, 3, NULL, types))
    return GILT_FAILURE;
  gilt_op_build_add_result_type(b, t);
  return GILT_SUCCESS;
}

/* ---- buffers ------------------------------------------------------------------------ */

void loop_print_alloc(GiltOp *op, GiltAsmPrinter *p)
{
  gilt_asm_print(p, "(");
  gilt_asm_print_operands(p, op, 0, op->num_operands);
  gilt_asm_print(p, ")");
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  gilt_asm_print(p, " : ");
  gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_result(op, 0)));
}

GiltStatus loop_parse_alloc(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  OperandVec ops = {0};
  GiltType *t = NULL;
  GiltStatus st = gilt_asm_parse_punct(p, "(");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_operand_vec(p, &ops);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ")");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_optional_attr_dict(p, b, false);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_colon_type(p, &t);
  if (st == GILT_SUCCESS)
    st = gilt_asm_resolve_into(p, b, ops.data, ops.len, gilt_index_type_get(ctx), NULL);
  if (st == GILT_SUCCESS)
    gilt_op_build_add_result_type(b, t);
  gilt_vec_free(ctx, &ops);
  return st;
}

void loop_print_memref_only(GiltOp *op, GiltAsmPrinter *p)
{
  gilt_asm_print(p, " ");
  gilt_asm_print_operands(p, op, 0, 1);
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  gilt_asm_print(p, " : ");
  gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_operand(op, 0)));
}

GiltStatus loop_parse_memref_only(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltUnresolvedOperand m;
  GiltType *t;
  if (gilt_asm_parse_operand(p, &m) ||
      gilt_asm_parse_optional_attr_dict(p, b, false) ||
      gilt_asm_parse_colon_type(p, &t))
    return GILT_FAILURE;
  return gilt_asm_resolve_into(p, b, &m, 1, t, NULL);
}

/* `[value,] %m[%i, %j] : memref<...>` for loads, stores and prefetches
** (their attributes before the colon); the vector forms add
** `, vector<...>`, the type of the value loaded or stored. */
static bool stores(GiltOp *op)
{
  return loop_op_is(op, LOOP_OP_STORE) || loop_op_is(op, LOOP_OP_VECTOR_STORE);
}

void loop_print_access(GiltOp *op, GiltAsmPrinter *p)
{
  size_t m = stores(op) ? 1 : 0;
  gilt_asm_print(p, " ");
  gilt_asm_print_operands(p, op, 0, m + 1);
  gilt_asm_print(p, "[");
  gilt_asm_print_operands(p, op, m + 1, op->num_operands - m - 1);
  gilt_asm_print(p, "]");
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  gilt_asm_print(p, " : ");
  gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_operand(op, m)));
  if (loop_op_is(op, LOOP_OP_VECTOR_LOAD) || loop_op_is(op, LOOP_OP_VECTOR_STORE)) {
    GiltValue *v = m ? gilt_op_get_operand(op, 0) : gilt_op_get_result(op, 0);
    gilt_asm_print(p, ", ");
    gilt_asm_print_type(p, gilt_value_get_type(v));
  }
}

GiltStatus loop_parse_access(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  const GiltOpDef *def = gilt_op_build_get_def(b);
  bool store = def == &loop_ops[LOOP_OP_STORE] ||
               def == &loop_ops[LOOP_OP_VECTOR_STORE];
  bool vector = def == &loop_ops[LOOP_OP_VECTOR_LOAD] ||
                def == &loop_ops[LOOP_OP_VECTOR_STORE];
  bool prefetch = def == &loop_ops[LOOP_OP_PREFETCH];
  GiltUnresolvedOperand value, m;
  OperandVec idx = {0};
  GiltType *t = NULL, *vt = NULL;
  GiltStatus st = GILT_SUCCESS;
  if (store && (gilt_asm_parse_operand(p, &value) ||
                gilt_asm_parse_punct(p, ",")))
    return GILT_FAILURE;
  st = gilt_asm_parse_operand(p, &m);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, "[");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_operand_vec(p, &idx);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, "]");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_optional_attr_dict(p, b, false);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_colon_type(p, &t);
  if (st == GILT_SUCCESS && t->kind != GILT_TYPE_MEMREF)
    st = gilt_asm_emit_error(p, "expected a memref type");
  if (st == GILT_SUCCESS && vector) {
    st = gilt_asm_parse_punct(p, ",");
    if (st == GILT_SUCCESS)
      st = gilt_asm_parse_type(p, &vt);
  }
  if (st == GILT_SUCCESS && store)
    st = gilt_asm_resolve_into(p, b, &value, 1, vector ? vt : t->shaped.elem, NULL);
  if (st == GILT_SUCCESS)
    st = gilt_asm_resolve_into(p, b, &m, 1, t, NULL);
  if (st == GILT_SUCCESS)
    st = gilt_asm_resolve_into(p, b, idx.data, idx.len, gilt_index_type_get(ctx), NULL);
  if (st == GILT_SUCCESS && !store && !prefetch)
    gilt_op_build_add_result_type(b, vector ? vt : t->shaped.elem);
  gilt_vec_free(ctx, &idx);
  return st;
}

/* ---- loops -------------------------------------------------------------------------- */

static GiltBlock *entry(GiltOp *op, size_t region)
{
  return gilt_region_get_first_block(gilt_op_get_region(op, region));
}

void loop_print_for(GiltOp *op, GiltAsmPrinter *p)
{
  GiltBlock *body = entry(op, 0);
  gilt_asm_print(p, " ");
  gilt_asm_print_operand(p, gilt_block_get_argument(body, 0));
  gilt_asm_print(p, " = ");
  gilt_asm_print_operands(p, op, 0, 1);
  gilt_asm_print(p, " to ");
  gilt_asm_print_operands(p, op, 1, 1);
  gilt_asm_print(p, " step ");
  gilt_asm_print_operands(p, op, 2, 1);
  if (op->num_results) {
    gilt_asm_print(p, " iter_args(");
    for (size_t i = 0; i < op->num_results; i++) {
      gilt_asm_print(p, i ? ", " : "");
      gilt_asm_print_operand(p, gilt_block_get_argument(body, 1 + i));
      gilt_asm_print(p, " = ");
      gilt_asm_print_operands(p, op, 3 + i, 1);
    }
    gilt_asm_print(p, ") -> (");
    for (size_t i = 0; i < op->num_results; i++) {
      gilt_asm_print(p, i ? ", " : "");
      gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_result(op, i)));
    }
    gilt_asm_print(p, ")");
  }
  gilt_asm_print_region(p, gilt_op_get_region(op, 0), false);
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
}

/* `name = ` then an operand, resolved as an index. */
static GiltStatus parse_index_operand(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltUnresolvedOperand u;
  if (gilt_asm_parse_operand(p, &u))
    return GILT_FAILURE;
  return gilt_asm_resolve_into(p, b, &u, 1,
                     gilt_index_type_get(gilt_asm_parser_get_context(p)),
                     NULL);
}

GiltStatus loop_parse_for(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  GILT_VEC(GiltAsmArgument) args = {0};
  OperandVec inits = {0};
  TypeVec types = {0};
  GiltAsmArgument iv;
  GiltStatus st = gilt_asm_parse_argument(p, &iv, false, false);
  iv.type = gilt_index_type_get(ctx);
  gilt_vec_push(ctx, &args, iv);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, "=");
  if (st == GILT_SUCCESS)
    st = parse_index_operand(p, b);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_keyword(p, "to");
  if (st == GILT_SUCCESS)
    st = parse_index_operand(p, b);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_keyword(p, "step");
  if (st == GILT_SUCCESS)
    st = parse_index_operand(p, b);
  if (st == GILT_SUCCESS && gilt_asm_parse_optional_keyword(p, "iter_args")) {
    st = gilt_asm_parse_punct(p, "(");
    while (st == GILT_SUCCESS && !gilt_asm_parse_optional_punct(p, ")")) {
      GiltAsmArgument a;
      GiltUnresolvedOperand init;
      if (inits.len)
        st = gilt_asm_parse_punct(p, ",");
      if (st == GILT_SUCCESS)
        st = gilt_asm_parse_argument(p, &a, false, false);
      if (st == GILT_SUCCESS)
        st = gilt_asm_parse_punct(p, "=");
      if (st == GILT_SUCCESS)
        st = gilt_asm_parse_operand(p, &init);
      if (st == GILT_SUCCESS) {
        gilt_vec_push(ctx, &args, a);
        gilt_vec_push(ctx, &inits, init);
      }
    }
    if (st == GILT_SUCCESS)
      st = gilt_asm_parse_punct(p, "->");
    if (st == GILT_SUCCESS)
      st = gilt_asm_parse_punct(p, "(");
    if (st == GILT_SUCCESS)
      st = gilt_asm_parse_type_vec(p, &types);
    if (st == GILT_SUCCESS)
      st = gilt_asm_parse_punct(p, ")");
    if (st == GILT_SUCCESS && types.len != inits.len)
      st = gilt_asm_emit_error(p, "expected %zu types, one per iter_arg",
                               inits.len);
  }
  for (size_t i = 0; st == GILT_SUCCESS && i < types.len; i++) {
    args.data[1 + i].type = types.data[i];
    gilt_op_build_add_result_type(b, types.data[i]);
  }
  if (st == GILT_SUCCESS)
    st = gilt_asm_resolve_into(p, b, inits.data, inits.len, NULL, types.data);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_region(p, gilt_op_build_add_region(b), args.data,
                               args.len);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_optional_attr_dict(p, b, false);
  gilt_vec_free(ctx, &args);
  gilt_vec_free(ctx, &inits);
  gilt_vec_free(ctx, &types);
  return st;
}

/* `(%a, %b)` operands of group g. */
static void print_group(GiltOp *op, GiltAsmPrinter *p, size_t g)
{
  size_t n, first = gilt_op_get_operand_group(op, g, &n);
  gilt_asm_print(p, "(");
  gilt_asm_print_operands(p, op, first, n);
  gilt_asm_print(p, ")");
}

void loop_print_parallel(GiltOp *op, GiltAsmPrinter *p)
{
  static const char *const elided[] = {"operandSegmentSizes"};
  GiltBlock *body = entry(op, 0);
  gilt_asm_print(p, " (");
  for (size_t i = 0; i < gilt_block_get_num_arguments(body); i++) {
    gilt_asm_print(p, i ? ", " : "");
    gilt_asm_print_operand(p, gilt_block_get_argument(body, i));
  }
  gilt_asm_print(p, ") = ");
  print_group(op, p, 0);
  gilt_asm_print(p, " to ");
  print_group(op, p, 1);
  gilt_asm_print(p, " step ");
  print_group(op, p, 2);
  gilt_asm_print_region(p, gilt_op_get_region(op, 0), false);
  gilt_asm_print_attr_dict(p, op, elided, 1, false);
}

/* `(%a, %b)` as index operands; returns how many through *n. */
static GiltStatus parse_index_group(GiltAsmParser *p, GiltOpBuild *b,
                                    size_t *n)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  OperandVec ops = {0};
  GiltStatus st = gilt_asm_parse_punct(p, "(");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_operand_vec(p, &ops);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ")");
  if (st == GILT_SUCCESS)
    st = gilt_asm_resolve_into(p, b, ops.data, ops.len, gilt_index_type_get(ctx), NULL);
  *n = ops.len;
  gilt_vec_free(ctx, &ops);
  return st;
}

GiltStatus loop_parse_parallel(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  GILT_VEC(GiltAsmArgument) ivs = {0};
  int32_t sizes[3] = {0, 0, 0};
  GiltStatus st = gilt_asm_parse_punct(p, "(");
  while (st == GILT_SUCCESS && !gilt_asm_parse_optional_punct(p, ")")) {
    GiltAsmArgument a;
    if (ivs.len)
      st = gilt_asm_parse_punct(p, ",");
    if (st == GILT_SUCCESS)
      st = gilt_asm_parse_argument(p, &a, false, false);
    a.type = gilt_index_type_get(ctx);
    if (st == GILT_SUCCESS)
      gilt_vec_push(ctx, &ivs, a);
  }
  static const char *const keywords[3] = {"=", "to", "step"};
  for (size_t g = 0; st == GILT_SUCCESS && g < 3; g++) {
    size_t n = 0;
    st = g == 0 ? gilt_asm_parse_punct(p, keywords[g])
                : gilt_asm_parse_keyword(p, keywords[g]);
    if (st == GILT_SUCCESS)
      st = parse_index_group(p, b, &n);
    sizes[g] = (int32_t)n;
  }
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_region(p, gilt_op_build_add_region(b), ivs.data,
                               ivs.len);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_optional_attr_dict(p, b, false);
  if (st == GILT_SUCCESS)
    gilt_op_build_add_attr(
        b, "operandSegmentSizes",
        gilt_dense_array_attr_get(gilt_integer_type_get(ctx, 32, GILT_SIGNLESS),
                                  3, sizes));
  gilt_vec_free(ctx, &ivs);
  return st;
}

/* ---- if and yield ---------------------------------------------------------------- */

void loop_print_if(GiltOp *op, GiltAsmPrinter *p)
{
  gilt_asm_print(p, " ");
  gilt_asm_print_operands(p, op, 0, 1);
  if (op->num_results) {
    gilt_asm_print(p, " -> (");
    for (size_t i = 0; i < op->num_results; i++) {
      gilt_asm_print(p, i ? ", " : "");
      gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_result(op, i)));
    }
    gilt_asm_print(p, ")");
  }
  gilt_asm_print_region(p, gilt_op_get_region(op, 0), false);
  if (entry(op, 1)) {
    gilt_asm_print(p, " else");
    gilt_asm_print_region(p, gilt_op_get_region(op, 1), false);
  }
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
}

GiltStatus loop_parse_if(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  GiltUnresolvedOperand cond;
  TypeVec types = {0};
  GiltStatus st = gilt_asm_parse_operand(p, &cond);
  if (st == GILT_SUCCESS)
    st = gilt_asm_resolve_into(p, b, &cond, 1,
                     gilt_integer_type_get(ctx, 1, GILT_SIGNLESS), NULL);
  if (st == GILT_SUCCESS && gilt_asm_parse_optional_punct(p, "->")) {
    st = gilt_asm_parse_punct(p, "(");
    if (st == GILT_SUCCESS)
      st = gilt_asm_parse_type_vec(p, &types);
    if (st == GILT_SUCCESS)
      st = gilt_asm_parse_punct(p, ")");
  }
  for (size_t i = 0; st == GILT_SUCCESS && i < types.len; i++)
    gilt_op_build_add_result_type(b, types.data[i]);
  GiltRegion *then_region = gilt_op_build_add_region(b);
  GiltRegion *else_region = gilt_op_build_add_region(b);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_region(p, then_region, NULL, 0);
  if (st == GILT_SUCCESS && gilt_asm_parse_optional_keyword(p, "else"))
    st = gilt_asm_parse_region(p, else_region, NULL, 0);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_optional_attr_dict(p, b, false);
  gilt_vec_free(ctx, &types);
  return st;
}

void loop_print_yield(GiltOp *op, GiltAsmPrinter *p)
{
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  if (!op->num_operands)
    return;
  gilt_asm_print(p, " ");
  gilt_asm_print_operands(p, op, 0, op->num_operands);
  gilt_asm_print(p, " : ");
  for (size_t i = 0; i < op->num_operands; i++) {
    gilt_asm_print(p, i ? ", " : "");
    gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_operand(op, i)));
  }
}

GiltStatus loop_parse_yield(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  OperandVec ops = {0};
  TypeVec types = {0};
  GiltStatus st = gilt_asm_parse_optional_attr_dict(p, b, false);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_operand_vec(p, &ops);
  if (st == GILT_SUCCESS && ops.len) {
    st = gilt_asm_parse_punct(p, ":");
    if (st == GILT_SUCCESS)
      st = gilt_asm_parse_type_vec(p, &types);
    if (st == GILT_SUCCESS && types.len != ops.len)
      st = gilt_asm_emit_error(p, "expected %zu types", ops.len);
  }
  if (st == GILT_SUCCESS)
    st = gilt_asm_resolve_into(p, b, ops.data, ops.len, NULL, types.data);
  gilt_vec_free(ctx, &ops);
  gilt_vec_free(ctx, &types);
  return st;
}
