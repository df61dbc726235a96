/*
** side_effects.c - which ops may be removed when nothing uses them.
**
** gilt's effect model is MLIR's coarsest one: an op either has no side
** effects at all (the PURE trait, and for an op with regions, nothing
** inside with effects either: MLIR's Pure plus RecursiveMemoryEffects) or
** is assumed to have any effect. There are no read/write effect sets on
** resources, so a load that could be CSE'd with another is not
** recognized; ops without the trait are kept, unregistered ops included.
*/
#include "ir/rewrite/rewrite.h"

/* Terminators inside a pure op only pass control and values back to it or
** to a sibling block; they touch no state, so they do not make the op
** effectful even when their own definition says nothing about purity. */
static bool nested_op_is_effect_free(GiltOp *op)
{
  if (op->num_regions == 0 && gilt_op_has_trait(op, GILT_TRAIT_TERMINATOR))
    return true;
  return gilt_op_is_side_effect_free(op);
}

bool gilt_op_is_side_effect_free(GiltOp *op)
{
  if (!gilt_op_has_trait(op, GILT_TRAIT_PURE))
    return false;
  for (size_t r = 0; r < op->num_regions; r++)
    for (GiltBlock *b = gilt_op_region_array(op)[r].first; b; b = b->next)
      for (GiltOp *o = b->first; o; o = o->next)
        if (!nested_op_is_effect_free(o))
          return false;
  return true;
}

/* As MLIR's isOpTriviallyDead: terminators and symbols are never dead on
** their own (a symbol is referenced by name, which use lists do not see;
** symbol-dce removes those). */
bool gilt_op_is_trivially_dead(GiltOp *op)
{
  for (size_t i = 0; i < op->num_results; i++)
    if (gilt_op_result_array(op)[i].first_use)
      return false;
  if (gilt_op_has_trait(op, GILT_TRAIT_TERMINATOR) ||
      gilt_op_has_trait(op, GILT_TRAIT_SYMBOL))
    return false;
  return gilt_op_is_side_effect_free(op);
}
