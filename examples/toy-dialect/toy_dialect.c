/*
** toy_dialect.c - the `toy` dialect: a type, !toy.pair<A, B>, and two
** ops: toy.double, with a verifier, traits and two interfaces, and
** toy.pair, which makes a pair.
**
**   %y = "toy.double"(%x) : (tensor<4xf32>) -> tensor<4xf32>
**   %p = "toy.pair"(%a, %b) : (f32, i32) -> !toy.pair<f32, i32>
**
** toy.double doubles every element of a tensor. Its row says it is pure
** (so CSE and DCE may act on it) and implements the fusion-kind interface
** gilt defines (elementwise) and toy-cost, an interface of this example's
** own.
** toy-cost is also attached to graph.add from here, outside the graph
** dialect: that is how a new level makes existing ops answer its
** questions. !toy.pair has no parse or print hook, so its parameters (two
** types) are written as attributes, `<f32, i32>`; its verify hook checks
** them. Not here: custom textual forms (the ops print in the generic form)
** and the lowering (toy_lower.c).
*/
#include "toy.h"

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
     .verify = verify_pair},
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
