/*
** assembly.c - the custom textual form shared by every graph op.
**
**   %0 = graph.conv(%x, %w) {strides = [2, 2]} : (tensor<1x3x8x8xf32>,
**            tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
**   %1 = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
**
** The op name, its operands in parentheses, its regions (if any) in
** parentheses as in the generic form, the attribute dictionary, and the
** functional type. graph.constant instead prints its `value` attribute,
** whose type is the result type. One print and one parse function serve
** all ops, so every op reads the same and round-trips the same way. Not
** here: checking what was parsed (the verifier does that).
*/
#include "dialects/graph/graph.h"

#include "ir/asm/asm.h"

static bool is_constant(const GiltOpInfo *info)
{
  return (graph_op_desc(info->def)->flags & GRAPH_CONSTANT) != 0;
}

void graph_print(GiltOp *op, GiltAsmPrinter *p)
{
  if (is_constant(op->info)) {
    static const char *const elided[] = {"value"};
    gilt_asm_print_attr_dict(p, op, elided, 1, false);
    gilt_asm_print(p, " ");
    gilt_asm_print_attr(p, gilt_op_get_attr(op, "value"));
    return;
  }
  gilt_asm_print(p, "(");
  gilt_asm_print_operands(p, op, 0, op->num_operands);
  gilt_asm_print(p, ")");
  if (op->num_regions) {
    gilt_asm_print(p, " (");
    for (uint32_t i = 0; i < op->num_regions; i++) {
      if (i)
        gilt_asm_print(p, ", ");
      gilt_asm_print_region(p, &gilt_op_region_array(op)[i], true);
    }
    gilt_asm_print(p, ")");
  }
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  gilt_asm_print(p, " : ");
  gilt_asm_print_functional_type(p, op);
}

static GiltStatus parse_constant(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltAttr *value;
  if (gilt_asm_parse_optional_attr_dict(p, b, false) ||
      gilt_asm_parse_attr(p, &value))
    return GILT_FAILURE;
  if ((value->kind != GILT_ATTR_DENSE_ELEMENTS &&
       value->kind != GILT_ATTR_DENSE_RESOURCE) ||
      value->type->kind != GILT_TYPE_TENSOR)
    return gilt_asm_emit_error(p, "expected a dense tensor attribute");
  gilt_op_build_add_attr(b, "value", value);
  gilt_vec_push(b->ctx, &b->result_types, value->type);
  return GILT_SUCCESS;
}

/* `({...}, {...})` after the operands, when present. */
static GiltStatus parse_optional_regions(GiltAsmParser *p, GiltOpBuild *b)
{
  if (!gilt_asm_parse_optional_punct(p, "("))
    return GILT_SUCCESS;
  do {
    if (gilt_asm_parse_region(p, gilt_op_build_add_region(b), NULL, 0))
      return GILT_FAILURE;
  } while (gilt_asm_parse_optional_punct(p, ","));
  return gilt_asm_parse_punct(p, ")");
}

static GiltStatus resolve(GiltAsmParser *p, GiltOpBuild *b,
                          const GiltUnresolvedOperand *ops, size_t n,
                          GiltType *fnty)
{
  if (fnty->kind != GILT_TYPE_FUNCTION)
    return gilt_asm_emit_error(p, "expected a function type");
  if (n != fnty->func.num_inputs)
    return gilt_asm_emit_error(p, "%zu operands present, but expected %zu",
                               n, fnty->func.num_inputs);
  for (size_t i = 0; i < n; i++) {
    GiltValue *v;
    if (gilt_asm_resolve_operand(p, &ops[i], fnty->func.types[i], &v))
      return GILT_FAILURE;
    gilt_vec_push(b->ctx, &b->operands, v);
  }
  for (size_t i = 0; i < fnty->func.num_results; i++)
    gilt_vec_push(b->ctx, &b->result_types, fnty->func.types[n + i]);
  return GILT_SUCCESS;
}

GiltStatus graph_parse(GiltAsmParser *p, GiltOpBuild *b)
{
  if (is_constant(b->info))
    return parse_constant(p, b);
  GILT_VEC(GiltUnresolvedOperand) ops = {0};
  GiltType *fnty = NULL;
  GiltStatus st = gilt_asm_parse_punct(p, "(");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_operand_vec(p, &ops);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ")");
  if (st == GILT_SUCCESS)
    st = parse_optional_regions(p, b);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_optional_attr_dict(p, b, false);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ":");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_type(p, &fnty);
  if (st == GILT_SUCCESS)
    st = resolve(p, b, ops.data, ops.len, fnty);
  gilt_vec_free(b->ctx, &ops);
  return st;
}
