/*
** toy_dialect.c - the `toy` dialect: a type, !toy.pair<A, B>, and two
** ops: toy.double, with a verifier, traits and two interfaces, and
** toy.pair, which makes a pair and has a textual form of its own.
**
**   %y = "toy.double"(%x) : (tensor<4xf32>) -> tensor<4xf32>
**   %p = toy.pair %a, %b : f32, i32
**
** toy.double doubles every element of a tensor. Its row says it is pure
** (so CSE and DCE may act on it) and implements the fusion-kind interface
** gilt defines (elementwise) and toy-cost, an interface of this example's
** own.
** toy-cost is also attached to graph.add from here, outside the graph
** dialect: that is how a new level makes existing ops answer its
** questions. toy.pair's custom form writes the operands' types but not
** the result's, which its infer_result_types hook builds from them
** (`!toy.pair<f32, i32>`); its generic form,
** `"toy.pair"(%a, %b) : (f32, i32) -> !toy.pair<f32, i32>`, still parses.
** !toy.pair has no parse or print hook, so its parameters (two types) are
** written as attributes, `<f32, i32>`; its verify hook checks them. Not
** here: the lowering (toy_lower.c).
*/
#include "toy.h"

#include <gilt/asm.h>
#include <gilt/interfaces.h>

#include "toy_cost.h"

const GiltInterface toy_cost_interface = {"toy-cost"};

static GiltStatus verify_double(GiltOp *op)
{
  GiltType *in = gilt_value_get_type(gilt_op_get_operand(op, 0));
  GiltType *out = gilt_value_get_type(gilt_op_get_result(op, 0));
  if (in != out)
    return gilt_op_emit_error(op, "requires the result type to be the "
                                  "operand type");
  return GILT_SUCCESS;
}

static GiltFusionKind double_fusion_kind(GiltOp *op)
{
  (void)op;
  return GILT_FUSION_ELEMENTWISE;
}

static int double_cost(GiltOp *op)
{
  (void)op;
  return 1; /* one multiply per element */
}

/* !toy.pair<A, B>: exactly two parameters, both types. */
static GiltStatus verify_pair_type(GiltLocation *loc, size_t n,
                                   GiltAttr *const *params)
{
  if (n != 2 || gilt_attr_get_kind(params[0]) != GILT_ATTR_TYPE ||
      gilt_attr_get_kind(params[1]) != GILT_ATTR_TYPE) {
    gilt_emit_error(loc, "!toy.pair takes two types");
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

static const GiltTypeDef toy_types[] = {
    {.mnemonic = "pair", .verify = verify_pair_type},
};

/* toy.pair(a, b) makes a !toy.pair of the operands' types. */
static GiltStatus verify_pair(GiltOp *op)
{
  GiltType *t = gilt_value_get_type(gilt_op_get_result(op, 0));
  if (!gilt_type_is_dialect_type(t, "toy", "pair"))
    return gilt_op_emit_error(op, "requires a !toy.pair result");
  for (size_t i = 0; i < 2; i++)
    if (gilt_type_attr_get_value(gilt_dialect_type_get_param(t, i)) !=
        gilt_value_get_type(gilt_op_get_operand(op, i)))
      return gilt_op_emit_error(op, "requires the pair's type %zu to be "
                                    "operand %zu's type", i, i);
  return GILT_SUCCESS;
}

/* The pair type of the two operands: the result type, so the custom form
** need not write it. It runs before the verifier, on whatever was parsed
** or built, so it checks the operand count itself. */
static GiltStatus infer_pair(GiltOpBuild *b)
{
  GiltLocation *loc = gilt_op_build_get_location(b);
  if (gilt_op_build_get_num_operands(b) != 2) {
    gilt_emit_error(loc, "'toy.pair' op requires 2 operands");
    return GILT_FAILURE;
  }
  GiltAttr *params[2];
  for (size_t i = 0; i < 2; i++)
    params[i] = gilt_type_attr_get(
        gilt_value_get_type(gilt_op_build_get_operand(b, i)));
  GiltType *pair = gilt_dialect_type_get(gilt_op_build_get_context(b), "toy",
                                         "pair", 2, params, loc);
  if (!pair)
    return GILT_FAILURE; /* reported by the type's verify hook */
  gilt_op_build_add_result_type(b, pair);
  return GILT_SUCCESS;
}

/* `%p = toy.pair %a, %b {attrs} : f32, i32`: MLIR's
** `$first, $second attr-dict : type($first), type($second)`. It prints
** every operand, so that an op the verifier would reject (IR printed
** after a failed pass) still prints. */
static void print_pair(GiltOp *op, GiltAsmPrinter *p)
{
  size_t n = gilt_op_get_num_operands(op);
  gilt_asm_print(p, " ");
  gilt_asm_print_operands(p, op, 0, n);
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  gilt_asm_print(p, " : ");
  for (size_t i = 0; i < n; i++) {
    if (i)
      gilt_asm_print(p, ", ");
    gilt_asm_print_type(p, gilt_value_get_type(gilt_op_get_operand(op, i)));
  }
}

/* Reads what print_pair writes: the operands, then their types, which
** resolve them; the result type is left to infer_pair. */
static GiltStatus parse_pair(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltUnresolvedOperand ops[2];
  GiltType *types[2];
  if (gilt_asm_parse_operand(p, &ops[0]) || gilt_asm_parse_punct(p, ",") ||
      gilt_asm_parse_operand(p, &ops[1]) ||
      gilt_asm_parse_optional_attr_dict(p, b, false) ||
      gilt_asm_parse_punct(p, ":") || gilt_asm_parse_type(p, &types[0]) ||
      gilt_asm_parse_punct(p, ",") || gilt_asm_parse_type(p, &types[1]))
    return GILT_FAILURE;
  for (size_t i = 0; i < 2; i++) {
    GiltValue *v;
    if (gilt_asm_resolve_operand(p, &ops[i], types[i], &v))
      return GILT_FAILURE;
    gilt_op_build_add_operand(b, v);
  }
  gilt_op_build_set_infer_result_types(b, true);
  return GILT_SUCCESS;
}

static const GiltFusionKindMethods double_fusion = {double_fusion_kind};
static const ToyCostMethods double_cost_methods = {double_cost};

static const GiltOpDef toy_ops[] = {
    {.name = "toy.double",
     .traits = GILT_TRAIT_PURE | GILT_TRAIT_SAME_TYPE,
     .operands = "input",
     .results = "output",
     .verify = verify_double,
     .interfaces = GILT_INTERFACES(
         {&gilt_fusion_kind_interface, &double_fusion},
         {&toy_cost_interface, &double_cost_methods})},
    {.name = "toy.pair",
     .traits = GILT_TRAIT_PURE,
     .operands = "first, second",
     .results = "pair",
     .verify = verify_pair,
     .infer_result_types = infer_pair,
     .print = print_pair,
     .parse = parse_pair},
};

static const GiltDialectDef toy_dialect = {
    .name = "toy",
    .ops = toy_ops,
    .num_ops = sizeof toy_ops / sizeof *toy_ops,
    .types = toy_types,
    .num_types = sizeof toy_types / sizeof *toy_types,
};

/* graph.add's cost, attached from outside the graph dialect. */
static int add_cost(GiltOp *op)
{
  (void)op;
  return 1;
}

static const ToyCostMethods add_cost_methods = {add_cost};

GiltStatus toy_register(GiltContext *ctx)
{
  if (gilt_context_register_dialect(ctx, &toy_dialect) ||
      gilt_context_register_pass(ctx, &toy_lower_pass))
    return GILT_FAILURE;
  if (gilt_context_op_implements(ctx, "graph.add", &toy_cost_interface))
    return GILT_SUCCESS;
  return gilt_context_attach_interface(ctx, "graph.add", &toy_cost_interface,
                                       &add_cost_methods);
}
