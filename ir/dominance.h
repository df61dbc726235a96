/*
** dominance.h - the dominator tree of one region's control-flow graph.
**
** The CFG's nodes are the region's blocks, its entry is the first block and
** its edges are the successors of each block's last op (as MLIR's
** Block::getSuccessors). Built with Cooper, Harvey and Kennedy's iterative
** algorithm ("A Simple, Fast Dominance Algorithm", 2001), then numbered by
** a depth-first walk of the tree so that a dominance query is O(1).
**
** This is block dominance only. Whether an op dominates another in the same
** block is a question of order (gilt_op_is_before_in_block); whether the
** region respects dominance at all (graph regions do not) is the caller's.
** The tree is a snapshot: changing the CFG afterwards makes it stale.
*/
#ifndef GILT_IR_DOMINANCE_H
#define GILT_IR_DOMINANCE_H

#include "ir/core.h"

typedef struct GiltDomTree GiltDomTree;

/* Builds the tree of `region` (which may be empty). The caller owns it. */
GILT_INTERNAL GiltDomTree *gilt_dom_tree_create(GiltRegion *region);
GILT_INTERNAL void gilt_dom_tree_destroy(GiltDomTree *dt);
/* Whether `block`, a block of the region, is reachable from its entry. */
GILT_INTERNAL bool gilt_dom_tree_is_reachable(GiltDomTree *dt,
                                              GiltBlock *block);
/* Whether every path from the entry to `b` goes through `a` (reflexive).
** Both are blocks of the region. As in LLVM and MLIR, any block dominates
** an unreachable one, and an unreachable block dominates only those. */
GILT_INTERNAL bool gilt_dom_tree_dominates(GiltDomTree *dt, GiltBlock *a,
                                           GiltBlock *b);

#endif /* GILT_IR_DOMINANCE_H */
