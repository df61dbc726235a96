/*
** loop_like.c - the loop-like interface (gilt/interfaces.h): an op whose
** body regions run repeatedly, and the three questions loop
** transformations (LICM, tiling) ask of it, with MLIR's defaults for an
** op that answers none of them itself.
**
** Not here: whether hoisting an op is allowed (its effects, the loop's
** writes): that is the pass's call, transforms/loop_invariant_code_motion.c.
*/
#include "gilt/interfaces.h"

#include "ir/core.h"

const GiltInterface gilt_loop_like_interface = {"loop-like"};

static const GiltLoopLikeMethods *methods(GiltOp *loop)
{
  const GiltLoopLikeMethods *m =
      gilt_op_get_interface(loop, &gilt_loop_like_interface);
  GILT_ASSERT(m && "the op is not loop-like");
  return m;
}

bool gilt_op_is_loop_like(GiltOp *op)
{
  return gilt_op_get_interface(op, &gilt_loop_like_interface) != NULL;
}

size_t gilt_loop_like_get_regions(GiltOp *loop, GiltRegion **out, size_t cap)
{
  const GiltLoopLikeMethods *m = methods(loop);
  if (m->get_loop_regions)
    return m->get_loop_regions(loop, out, cap);
  for (size_t i = 0; i < loop->num_regions && i < cap; i++)
    out[i] = &gilt_op_region_array(loop)[i];
  return loop->num_regions;
}

bool gilt_loop_like_is_defined_outside(GiltOp *loop, GiltValue *value)
{
  const GiltLoopLikeMethods *m = methods(loop);
  if (m->is_defined_outside)
    return m->is_defined_outside(loop, value);
  /* A block argument belongs to the op owning its block's region, a result
  ** to the op owning the block its definer sits in: either way, inside the
  ** loop exactly when that op is the loop or nested in it. */
  GiltOp *scope = gilt_block_get_parent_op(gilt_value_get_parent_block(value));
  return !scope || !gilt_op_is_ancestor(loop, scope);
}

void gilt_loop_like_move_out(GiltOp *loop, GiltOp *op)
{
  const GiltLoopLikeMethods *m = methods(loop);
  if (m->move_out_of_loop)
    m->move_out_of_loop(loop, op);
  else
    gilt_op_move_before(op, loop);
}
