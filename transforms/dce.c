/*
** dce.c - `dce`: dead code elimination.
**
** Requires nothing; erases ops and blocks, creates nothing. Two parts:
**
**   - unreachable blocks: in a region of several blocks, the blocks the
**     entry cannot reach (ir/dominance.h) are erased, as MLIR's
**     eraseUnreachableBlocks. This runs top-down, before the ops inside a
**     region are looked at, so nothing is visited that is about to go.
**   - dead ops: every op that is trivially dead (unused, not a terminator
**     or a symbol, and doing nothing to memory but reads and allocations
**     of its own results: ir/side_effects.c) is erased, and the
**     producers of its operands are looked at again, so chains and trees of
**     unused pure ops disappear whatever their order. Ops are visited
**     users first (reverse program order, nested ops before their parent):
**     a worklist that is a stack of the ops in pre-order, as LLVM's DCE.
**
** Not here: dead block arguments and results (MLIR's remove-dead-values),
** cycles of ops that only use each other (in graph regions), or dead
** symbols (symbol-dce).
**
** Statistics: num-dce'd (ops), num-blocks-erased.
*/
#include "transforms/passes.h"

#include <string.h>

#include "ir/dominance.h"
#include "ir/rewrite/rewrite.h"

typedef struct Dce {
  GiltContext *ctx;
  GiltOp *root;
  GILT_VEC(GiltOp *) stack; /* NULL where an erased op was */
  GiltPtrMap slot;          /* op on the stack -> its index */
  GILT_VEC(GiltOp *) producers;
  int64_t num_ops, num_blocks;
} Dce;

/* ---- unreachable blocks ------------------------------------------------ */

static void erase_unreachable_blocks(Dce *d, GiltRegion *r)
{
  GiltDomTree *tree = gilt_dom_tree_create(r);
  GILT_VEC(GiltBlock *) dead = {0};
  for (GiltBlock *b = r->first; b; b = b->next)
    if (!gilt_dom_tree_is_reachable(tree, b))
      gilt_vec_push(d->ctx, &dead, b);
  gilt_dom_tree_destroy(tree);
  /* Dead blocks may use each other's values: drop every use first. */
  for (size_t i = 0; i < dead.len; i++)
    for (GiltOp *op = dead.data[i]->first; op; op = op->next)
      gilt_op_drop_all_references(op);
  for (size_t i = 0; i < dead.len; i++)
    gilt_block_destroy(dead.data[i]);
  d->num_blocks += (int64_t)dead.len;
  gilt_vec_free(d->ctx, &dead);
}

static GiltWalkResult simplify_regions(GiltOp *op, void *user)
{
  for (size_t i = 0; i < op->num_regions; i++)
    if (gilt_op_region_array(op)[i].first != gilt_op_region_array(op)[i].last)
      erase_unreachable_blocks(user, &gilt_op_region_array(op)[i]);
  return GILT_WALK_ADVANCE;
}

/* ---- dead ops ------------------------------------------------------------ */

static void push(Dce *d, GiltOp *op)
{
  if (op == d->root || gilt_ptr_map_get(&d->slot, op, NULL) ||
      !gilt_op_is_ancestor(d->root, op))
    return;
  gilt_ptr_map_put(&d->slot, op, d->stack.len);
  gilt_vec_push(d->ctx, &d->stack, op);
}

static GiltWalkResult push_walk(GiltOp *op, void *user)
{
  push(user, op);
  return GILT_WALK_ADVANCE;
}

static GiltWalkResult unstack_walk(GiltOp *op, void *user)
{
  Dce *d = user;
  size_t i;
  if (gilt_ptr_map_get(&d->slot, op, &i)) {
    d->stack.data[i] = NULL;
    gilt_ptr_map_remove(&d->slot, op);
  }
  return GILT_WALK_ADVANCE;
}

typedef struct ProducerWalk {
  Dce *d;
  GiltOp *erased;
} ProducerWalk;

/* Producers outside the op being erased may have lost their last use. */
static GiltWalkResult note_producers(GiltOp *op, void *user)
{
  ProducerWalk *w = user;
  for (size_t i = 0; i < op->num_operands; i++) {
    GiltValue *v = op->operands[i].value;
    if (v && !v->is_block_arg && !gilt_op_is_ancestor(w->erased, v->owner.op))
      gilt_vec_push(w->d->ctx, &w->d->producers, v->owner.op);
  }
  return GILT_WALK_ADVANCE;
}

static void erase(Dce *d, GiltOp *op)
{
  ProducerWalk w = {d, op};
  d->producers.len = 0;
  gilt_op_walk(op, GILT_WALK_PRE_ORDER, unstack_walk, d);
  gilt_op_walk(op, GILT_WALK_PRE_ORDER, note_producers, &w);
  gilt_op_destroy(op);
  d->num_ops++;
  for (size_t i = 0; i < d->producers.len; i++)
    push(d, d->producers.data[i]);
}

static void erase_dead_ops(Dce *d)
{
  gilt_op_walk(d->root, GILT_WALK_PRE_ORDER, push_walk, d);
  while (d->stack.len) {
    GiltOp *op = d->stack.data[--d->stack.len];
    if (!op)
      continue;
    gilt_ptr_map_remove(&d->slot, op);
    if (gilt_op_is_trivially_dead(op))
      erase(d, op);
  }
}

static GiltStatus run(GiltPass *pass, GiltOp *op)
{
  Dce d;
  memset(&d, 0, sizeof d);
  d.ctx = gilt_pass_get_context(pass);
  d.root = op;
  gilt_ptr_map_init(&d.slot, d.ctx);
  gilt_op_walk(op, GILT_WALK_PRE_ORDER, simplify_regions, &d);
  erase_dead_ops(&d);
  gilt_vec_free(d.ctx, &d.stack);
  gilt_vec_free(d.ctx, &d.producers);
  gilt_ptr_map_free(&d.slot);
  gilt_pass_add_statistic(pass, "num-dce'd", "Number of operations erased",
                          d.num_ops);
  gilt_pass_add_statistic(pass, "num-blocks-erased",
                          "Number of unreachable blocks erased",
                          d.num_blocks);
  if (!d.num_ops && !d.num_blocks)
    gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_dce_pass = {
    .name = "dce",
    .description = "Erase unused side-effect-free ops and unreachable "
                   "blocks",
    .anchor = NULL,
    .options = NULL,
    .run = run,
};
