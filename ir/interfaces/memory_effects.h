/*
** memory_effects.h - the memory-effects interface seen from inside ir/:
** the collector get_effects fills, and an op's own effects apart from
** those of the ops nested in it, for the queries that weigh effect by
** effect (side_effects.c). Everything else uses gilt/interfaces.h.
*/
#ifndef GILT_IR_INTERFACES_MEMORY_EFFECTS_H
#define GILT_IR_INTERFACES_MEMORY_EFFECTS_H

#include "gilt/interfaces.h"
#include "ir/support/alloc.h"

/* A growing list of effects. Ops have a handful, so the first few live in
** the struct itself, on the caller's stack, and a query allocates only for
** an op with more. */
struct GiltEffects {
  GiltContext *ctx;
  GiltMemoryEffect *data; /* `inline_data` until it overflows */
  size_t len, cap;
  GiltMemoryEffect inline_data[8];
};

GILT_INTERNAL void gilt_effects_init(GiltEffects *e, GiltContext *ctx);
GILT_INTERNAL void gilt_effects_free(GiltEffects *e);

/* Appends op's own effects, not those of its nested ops, to `e`; false
** when they are unknown (op neither PURE nor implementing the interface). */
GILT_INTERNAL bool gilt_op_collect_own_effects(GiltOp *op, GiltEffects *e);
/* Whether the effects of the ops nested in op count as op's (PURE, or the
** interface's `recursive`). */
GILT_INTERNAL bool gilt_op_has_recursive_effects(GiltOp *op);
/* Whether `nested`, inside an op with recursive effects, counts as having
** none although it states nothing: a terminator without regions. */
GILT_INTERNAL bool gilt_op_is_passive_terminator(GiltOp *nested);

#endif /* GILT_IR_INTERFACES_MEMORY_EFFECTS_H */
