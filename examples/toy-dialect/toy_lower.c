/*
** toy_lower.c - `toy-lower`: lowers toy.double(x) to graph.add(x, x).
**
** Requires nothing; leaves no toy op behind. A lowering into a level gilt
** ships, through the public API only: walk, build the replacement before
** the op, redirect the uses, erase. (In-tree lowerings use gilt's
** conversion driver instead, which also reports ops it could not lower.)
*/
#include "toy.h"

#include <string.h>

static GiltWalkResult lower_double(GiltOp *op, void *user)
{
  GiltBuilder *b = user;
  if (strcmp(gilt_op_get_name(op), "toy.double") != 0)
    return GILT_WALK_ADVANCE;
  GiltValue *x = gilt_op_get_operand(op, 0);
  GiltType *type = gilt_value_get_type(gilt_op_get_result(op, 0));
  GiltOpState st = gilt_op_state_get("graph.add", gilt_op_get_location(op));
  GiltValue *operands[2] = {x, x};
  st.num_operands = 2;
  st.operands = operands;
  st.num_results = 1;
  st.result_types = &type;
  gilt_builder_set_insertion_point_before(b, op);
  GiltOp *add = gilt_builder_create_op(b, &st);
  if (!add)
    return GILT_WALK_INTERRUPT;
  gilt_value_replace_all_uses_with(gilt_op_get_result(op, 0),
                                   gilt_op_get_result(add, 0));
  gilt_op_destroy(op);
  return GILT_WALK_ADVANCE;
}

static GiltStatus run_toy_lower(GiltPass *pass, GiltOp *op)
{
  GiltBuilder *b = gilt_builder_create(gilt_pass_get_context(pass));
  GiltWalkResult r = gilt_op_walk(op, GILT_WALK_POST_ORDER, lower_double, b);
  gilt_builder_destroy(b);
  return r == GILT_WALK_INTERRUPT ? GILT_FAILURE : GILT_SUCCESS;
}

const GiltPassDef toy_lower_pass = {
    .name = "toy-lower",
    .description = "Lower toy.double to graph.add",
    .run = run_toy_lower,
};
