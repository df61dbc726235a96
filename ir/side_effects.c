/*
** side_effects.c - which ops may be removed when nothing uses them.
**
** MLIR's wouldOpBeTriviallyDead over the memory effects of
** ir/interfaces/memory_effects.c: an unused op may go when all it does is
** read, or allocate its own results (and touch them: memory nobody else
** can see), and the same holds of every op nested in it where its effects
** are recursive. A write, a free, an allocation of anything else, or
** unknown effects keep it. Not here: the effect queries themselves
** (gilt/interfaces.h), and whether a whole cycle of unused ops is dead.
*/
#include "ir/rewrite/rewrite.h"

#include "ir/interfaces/memory_effects.h"

/* Whether an effect only matters to whoever uses the op's results: a read,
** or any effect on a result the op allocates itself. */
static bool effect_is_droppable(GiltOp *op, const GiltEffects *e,
                                const GiltMemoryEffect *effect)
{
  if (effect->kind == GILT_EFFECT_READ)
    return true;
  if (!effect->value || effect->value->is_block_arg ||
      effect->value->owner.op != op)
    return false;
  for (size_t i = 0; i < e->len; i++)
    if (e->data[i].kind == GILT_EFFECT_ALLOCATE &&
        e->data[i].value == effect->value)
      return true;
  return false;
}

static bool own_effects_are_droppable(GiltOp *owner, const GiltEffects *own,
                                      void *user)
{
  (void)user;
  for (size_t i = 0; i < own->len; i++)
    if (!effect_is_droppable(owner, own, &own->data[i]))
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
  return gilt_op_visit_effects(op, own_effects_are_droppable, NULL);
}
