/*
** loop_invariant_code_motion.c - `loop-invariant-code-motion`: hoists the
** ops of a loop body that compute the same thing on every iteration.
**
** Requires nothing; moves ops, never creates or erases any, and preserves
** their order among themselves, so dominance holds. MLIR's
** moveLoopInvariantCode over the loop-like interface (gilt/interfaces.h):
** loops are visited innermost first (a post-order walk), so what leaves an
** inner loop may then leave the one around it. In each body region, a
** FIFO worklist starts with the region's top-level ops in order; an op is
** hoisted (moved before the loop, or where the loop says) when
**   - it is not a terminator,
**   - every value it and its nested ops use from outside itself is defined
**     outside the loop,
**   - and it has no memory effect, or (an extension of MLIR's rule, as
**     LLVM's LICM does for loads) its only effects are reads and nothing
**     in the loop may write: no write, no free, no unknown effect.
** The users of a hoisted op inside the region are then looked at again.
**
** Hoisting runs an op the loop might have run zero times: gilt has no
** speculatability interface yet and assumes that reads and effect-free
** ops cannot trap. Not here: alias analysis (any write in the loop keeps
** every read in), sinking, or hoisting stores.
**
** Statistic: num-hoisted.
*/
#include "transforms/passes.h"

#include <string.h>

#include "gilt/interfaces.h"
#include "ir/core.h"

typedef struct Licm {
  GiltContext *ctx;
  GILT_VEC(GiltOp *) loops;    /* innermost first */
  GILT_VEC(GiltOp *) worklist; /* FIFO from `head` */
  size_t head;
  int64_t num_hoisted;
} Licm;

typedef struct UseCheck {
  GiltOp *loop, *op;
} UseCheck;

/* Interrupts at a value used inside `op` but defined in the loop outside
** op itself. */
static GiltWalkResult check_uses(GiltOp *nested, void *user)
{
  UseCheck *u = user;
  for (size_t i = 0; i < nested->num_operands; i++) {
    GiltValue *v = nested->operands[i].value;
    GiltOp *scope = gilt_block_get_parent_op(gilt_value_get_parent_block(v));
    bool inside_op = scope && gilt_op_is_ancestor(u->op, scope);
    if (!inside_op && !gilt_loop_like_is_defined_outside(u->loop, v))
      return GILT_WALK_INTERRUPT;
  }
  return GILT_WALK_ADVANCE;
}

static bool is_invariant(GiltOp *loop, GiltOp *op)
{
  UseCheck u = {loop, op};
  return gilt_op_walk(op, GILT_WALK_PRE_ORDER, check_uses, &u) !=
         GILT_WALK_INTERRUPT;
}

/* Whether running the loop, its body included, may change memory. */
static bool loop_may_write(GiltOp *loop, GiltRegion **regions, size_t n)
{
  if (gilt_op_may_write(loop))
    return true;
  for (size_t r = 0; r < n; r++)
    for (GiltBlock *b = regions[r]->first; b; b = b->next)
      for (GiltOp *op = b->first; op; op = op->next)
        if (gilt_op_may_write(op))
          return true;
  return false;
}

static bool can_hoist(GiltOp *loop, GiltOp *op, bool loop_writes)
{
  if (gilt_op_has_trait(op, GILT_TRAIT_TERMINATOR) || !is_invariant(loop, op))
    return false;
  if (gilt_op_is_effect_free(op))
    return true;
  return !loop_writes && gilt_op_only_reads(op);
}

static void hoist_from_region(Licm *l, GiltOp *loop, GiltRegion *region,
                              bool loop_writes)
{
  l->worklist.len = l->head = 0;
  for (GiltBlock *b = region->first; b; b = b->next)
    for (GiltOp *op = b->first; op; op = op->next)
      gilt_vec_push(l->ctx, &l->worklist, op);
  while (l->head < l->worklist.len) {
    GiltOp *op = l->worklist.data[l->head++];
    /* Already hoisted by an earlier visit. */
    if (op->block->region != region || !can_hoist(loop, op, loop_writes))
      continue;
    gilt_loop_like_move_out(loop, op);
    l->num_hoisted++;
    for (size_t i = 0; i < op->num_results; i++)
      for (GiltOperand *use = gilt_op_result_array(op)[i].first_use; use;
           use = use->next_use)
        if (use->owner->block->region == region)
          gilt_vec_push(l->ctx, &l->worklist, use->owner);
  }
}

static void hoist_from_loop(Licm *l, GiltOp *loop)
{
  GiltRegion *inline_regions[4], **regions = inline_regions;
  size_t n = gilt_loop_like_get_regions(loop, regions, 4);
  if (n > 4) {
    regions = gilt_calloc(l->ctx, n, sizeof *regions);
    gilt_loop_like_get_regions(loop, regions, n);
  }
  bool loop_writes = loop_may_write(loop, regions, n);
  for (size_t r = 0; r < n; r++)
    hoist_from_region(l, loop, regions[r], loop_writes);
  if (regions != inline_regions)
    gilt_free(l->ctx, regions);
}

static GiltWalkResult collect_loop(GiltOp *op, void *user)
{
  Licm *l = user;
  if (gilt_op_is_loop_like(op))
    gilt_vec_push(l->ctx, &l->loops, op);
  return GILT_WALK_ADVANCE;
}

static GiltStatus run(GiltPass *pass, GiltOp *op)
{
  Licm l;
  memset(&l, 0, sizeof l);
  l.ctx = gilt_pass_get_context(pass);
  gilt_op_walk(op, GILT_WALK_POST_ORDER, collect_loop, &l);
  /* The op the pass runs on is not one of them: hoisting out of it would
  ** move ops outside what the pass may change. */
  if (l.loops.len && l.loops.data[l.loops.len - 1] == op)
    l.loops.len--;
  for (size_t i = 0; i < l.loops.len; i++)
    hoist_from_loop(&l, l.loops.data[i]);
  gilt_vec_free(l.ctx, &l.loops);
  gilt_vec_free(l.ctx, &l.worklist);
  gilt_pass_add_statistic(pass, "num-hoisted",
                          "Number of ops hoisted out of loops", l.num_hoisted);
  if (!l.num_hoisted)
    gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_loop_invariant_code_motion_pass = {
    .name = "loop-invariant-code-motion",
    .description = "Hoist loop-invariant effect-free ops, and reads out of "
                   "loops that do not write, innermost loops first",
    .anchor = NULL,
    .options = NULL,
    .run = run,
};
