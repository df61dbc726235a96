/*
** toy_dialect.c - the `toy` dialect: one op, toy.double, with a verifier,
** traits and two interfaces.
**
**   %y = "toy.double"(%x) : (tensor<4xf32>) -> tensor<4xf32>
**
** doubles every element of a tensor. Its row says it is pure (so CSE and
** DCE may act on it) and implements the fusion-kind interface gilt
** defines (elementwise) and toy-cost, an interface of this example's own.
** toy-cost is also attached to graph.add from here, outside the graph
** dialect: that is how a new level makes existing ops answer its
** questions. Not here: a custom textual form (toy.double prints in the
** generic form) and the lowering (toy_lower.c).
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
};

static const GiltDialectDef toy_dialect = {
    .name = "toy",
    .ops = toy_ops,
    .num_ops = sizeof toy_ops / sizeof *toy_ops,
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
