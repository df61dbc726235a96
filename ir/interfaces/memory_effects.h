/*
** memory_effects.h - the memory-effects interface seen from inside ir/:
** the collector get_effects fills, and a walk over the ops whose effects
** make up an op's, each with its own effects, for the queries that weigh
** effect by effect (side_effects.c). Everything else uses gilt/interfaces.h.
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

/* Receives the own effects of one op that makes up another's; returns
** false to stop the walk. */
typedef bool (*GiltEffectVisitor)(GiltOp *owner, const GiltEffects *own,
                                  void *user);
/* Calls fn with op and its own effects, then with each op nested in it
** whose effects count as op's (recursively, where effects are recursive),
** MLIR's getEffectsRecursively. Inside such an op, a terminator without
** regions that states nothing counts as having no effects: it only hands
** values back. Returns false when some effect is unknown or fn stopped
** the walk. */
GILT_INTERNAL bool gilt_op_visit_effects(GiltOp *op, GiltEffectVisitor fn,
                                         void *user);

#endif /* GILT_IR_INTERFACES_MEMORY_EFFECTS_H */
