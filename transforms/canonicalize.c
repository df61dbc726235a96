/*
** canonicalize.c - `canonicalize`: fold, erase dead ops and apply every
** registered op's canonicalization patterns until nothing changes.
**
** Requires nothing; preserves nothing in particular (any op nested in the
** one it runs on may be folded, replaced or erased); the op itself stays.
** It is MLIR's canonicalizer: the greedy driver of
** ir/rewrite/greedy_rewriter.c with the patterns that ops list in their
** `canonicalization_patterns` hook.
** Duplicate constants it materializes are left for `cse`, and unreachable
** blocks for `dce`.
*/
#include "transforms/passes.h"

#include <limits.h>

#include "ir/rewrite/rewrite.h"

static const GiltPassOptionDef options[] = {
    {"max-iterations", GILT_OPTION_INT, "10",
     "Sweeps of the worklist before giving up (an error)"},
    {0}};

static GiltStatus run(GiltPass *pass, GiltOp *op)
{
  GiltPatternSet set;
  gilt_pattern_set_init(&set, gilt_pass_get_context(pass));
  gilt_pattern_set_add_canonicalizations(&set);
  GiltGreedyConfig config = gilt_greedy_config_default();
  int64_t max = gilt_pass_get_option_int(pass, "max-iterations");
  config.max_iterations = max < 1 ? 1 : max > INT_MAX ? INT_MAX : (int)max;
  bool changed = false;
  GiltStatus status = gilt_apply_patterns_greedily(op, &set, &config,
                                                   &changed);
  gilt_pattern_set_free(&set);
  if (!changed)
    gilt_pass_mark_unchanged(pass);
  return status;
}

const GiltPassDef gilt_canonicalize_pass = {
    .name = "canonicalize",
    .description = "Fold ops, erase dead ones and apply every op's "
                   "canonicalization patterns to a fixed point",
    .anchor = NULL,
    .options = options,
    .run = run,
};
