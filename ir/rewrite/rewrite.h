/*
** rewrite.h - rewrite patterns and the greedy pattern driver.
**
** A pattern matches one op (rooted at an op name, or any op) and rewrites
** it through a GiltRewriter, which keeps the driver's worklist informed of
** every op created, changed or erased. The greedy driver (greedy_rewriter.c)
** applies a pattern set to a fixed point, as MLIR's
** applyPatternsAndFoldGreedily: it folds ops through their fold hooks,
** removes trivially dead ops and tries patterns by decreasing benefit.
*/
#ifndef GILT_IR_REWRITE_H
#define GILT_IR_REWRITE_H

#include "ir/op_def.h"
#include "ir/support/ptr_map.h"

typedef struct GiltRewriter GiltRewriter;
typedef struct GiltPattern GiltPattern;

struct GiltPattern {
  const char *name;  /* shown in debug output and statistics */
  const char *root;  /* op name it matches; NULL matches any op */
  int benefit;       /* higher is tried first */
  /* Returns GILT_SUCCESS iff it rewrote the IR. On failure it must leave
  ** the IR untouched. */
  GiltStatus (*match_and_rewrite)(const GiltPattern *pat, GiltOp *op,
                                  GiltRewriter *rw);
  const void *data;  /* for patterns generated from tables */
};

struct GiltPatternSet {
  GiltContext *ctx;
  GILT_VEC(GiltPattern) patterns;
};

GILT_INTERNAL void gilt_pattern_set_init(GiltPatternSet *set,
                                         GiltContext *ctx);
GILT_INTERNAL void gilt_pattern_set_add(GiltPatternSet *set,
                                        GiltPattern pattern);
GILT_INTERNAL void gilt_pattern_set_free(GiltPatternSet *set);
/* Adds the canonicalization patterns of every registered op. */
GILT_INTERNAL void gilt_pattern_set_add_canonicalizations(
    GiltPatternSet *set);

/* A pattern set indexed for matching, built once per driver run: the
** patterns that may match an op, by decreasing benefit (ties keep the
** order they were added in, and rooted patterns come before those that
** match any op). The set must outlive the index. */
typedef struct GiltPatternIndex {
  GiltContext *ctx;
  const GiltPattern **sorted; /* root-less first, then grouped by root */
  GiltIdent **roots;          /* roots[i] is sorted[i]'s root or NULL */
  size_t num, num_any;
  GiltPtrMap by_root;         /* root ident -> index of its first one */
} GiltPatternIndex;

typedef struct GiltPatternCursor {
  const GiltPatternIndex *index;
  size_t any, any_end, rooted, rooted_end;
} GiltPatternCursor;

GILT_INTERNAL void gilt_pattern_index_init(GiltPatternIndex *index,
                                           const GiltPatternSet *set);
GILT_INTERNAL void gilt_pattern_index_free(GiltPatternIndex *index);
/* Starts a cursor over the patterns that may match `op`. */
GILT_INTERNAL void gilt_pattern_index_lookup(const GiltPatternIndex *index,
                                             GiltOp *op,
                                             GiltPatternCursor *cursor);
/* The next candidate, NULL when there is none left. */
GILT_INTERNAL const GiltPattern *gilt_pattern_cursor_next(
    GiltPatternCursor *cursor);

/* ---- the rewriter: every IR change a pattern makes goes through it ---- */

/* Who hears about the changes made through a rewriter: the greedy driver
** keeps its worklist with it, the conversion driver its bookkeeping. Every
** hook is optional; `user` is the pointer given to gilt_rewriter_create. */
typedef struct GiltRewriteListener {
  /* op, and everything nested in it, was inserted into a block (created
  ** or moved there). */
  void (*op_inserted)(void *user, GiltOp *op);
  /* op was changed in place. */
  void (*op_modified)(void *user, GiltOp *op);
  /* The uses of `from` are about to become uses of `to`. Returns the value
  ** they get instead: `to`, or a conversion of it. */
  GiltValue *(*value_replaced)(void *user, GiltValue *from, GiltValue *to);
  /* op, still in place with no result in use, is about to be erased.
  ** Returning true takes ownership of it: the rewriter then only unlinks
  ** it and drops the references it and its nested ops make, and the
  ** listener destroys it later. */
  bool (*op_erased)(void *user, GiltOp *op);
} GiltRewriteListener;

/* A rewriter reporting to `listener` (may be NULL: plain IR edits, as for
** a pass that folds ops one at a time). The listener is borrowed. */
GILT_INTERNAL GiltRewriter *gilt_rewriter_create(
    GiltContext *ctx, const GiltRewriteListener *listener, void *user);
GILT_INTERNAL void gilt_rewriter_destroy(GiltRewriter *rw);
/* The `user` pointer the rewriter was created with if its listener is
** `listener`, else NULL: how a driver finds its state from inside the
** patterns it runs. */
GILT_INTERNAL void *gilt_rewriter_get_listener_data(
    GiltRewriter *rw, const GiltRewriteListener *listener);

GILT_INTERNAL GiltContext *gilt_rewriter_get_context(GiltRewriter *rw);
/* A builder whose insertion point is before the matched op. */
GILT_INTERNAL GiltBuilder *gilt_rewriter_get_builder(GiltRewriter *rw);
/* Creates and inserts an op at the builder's insertion point. */
GILT_INTERNAL GiltOp *gilt_rewriter_create_op(GiltRewriter *rw,
                                              const GiltOpState *state);
/* Notes that a detached op was inserted by other means. */
GILT_INTERNAL void gilt_rewriter_notify_op_inserted(GiltRewriter *rw,
                                                    GiltOp *op);
/* Creates, at the insertion point, an op with op's attributes and
** successors, named `name` (NULL: op's own), with `operands` and result
** types `types` (NULL: op's own), and moves op's regions into it: the
** usual first half of a rewrite that renames or retypes an op. op itself
** stays, with empty regions, for the caller to replace. NULL (reported)
** when the op cannot be created. */
GILT_INTERNAL GiltOp *gilt_rewriter_create_op_like(GiltRewriter *rw,
                                                   GiltOp *op,
                                                   const char *name,
                                                   GiltValue *const *operands,
                                                   GiltType *const *types);
/* Replaces all results of op by values and erases op. */
GILT_INTERNAL void gilt_rewriter_replace_op(GiltRewriter *rw, GiltOp *op,
                                            GiltValue *const *values);
GILT_INTERNAL void gilt_rewriter_erase_op(GiltRewriter *rw, GiltOp *op);
GILT_INTERNAL void gilt_rewriter_replace_all_uses_with(GiltRewriter *rw,
                                                       GiltValue *from,
                                                       GiltValue *to);
/* Call after changing an op in place (operands, attributes, types). */
GILT_INTERNAL void gilt_rewriter_notify_op_modified(GiltRewriter *rw,
                                                    GiltOp *op);
/* Moves all ops of `src` (a block with no arguments left in use) before
** `before`, then erases src. */
GILT_INTERNAL void gilt_rewriter_inline_block_before(GiltRewriter *rw,
                                                     GiltBlock *src,
                                                     GiltOp *before,
                                                     GiltValue *const *args);

/* ---- the greedy driver ---------------------------------------------------- */

typedef struct GiltGreedyConfig {
  int max_iterations;  /* sweeps over the worklist; <= 0 means 10 */
  bool fold;           /* use the ops' fold hooks (default true) */
  bool remove_dead;    /* erase trivially dead ops (default true) */
} GiltGreedyConfig;

GILT_INTERNAL GiltGreedyConfig gilt_greedy_config_default(void);
/* Applies the patterns to every op nested in `op` (not op itself) until
** nothing changes. Reports an error at op's location and fails when it did
** not converge within the iteration limit. *changed (may be NULL) tells
** whether anything changed. */
GILT_INTERNAL GiltStatus gilt_apply_patterns_greedily(
    GiltOp *op, const GiltPatternSet *set, const GiltGreedyConfig *config,
    bool *changed);

/* Folds one op through its fold hook; on success the results were replaced
** (constants materialized via the dialect, inserted before op) and the op
** erased, or it was updated in place. Used by the greedy driver. */
GILT_INTERNAL GiltStatus gilt_op_try_fold(GiltOp *op, GiltRewriter *rw);

/* Whether an op can be erased when unused: no result in use, neither a
** terminator nor a symbol, and no memory effect but reads and allocations
** of its own results, nested ops included (side_effects.c). Whether an op
** has effects at all: gilt_op_is_effect_free (gilt/interfaces.h). */
GILT_INTERNAL bool gilt_op_is_trivially_dead(GiltOp *op);

#endif /* GILT_IR_REWRITE_H */
