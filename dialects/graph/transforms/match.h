/*
** match.h - helpers of the passes that recognize a subgraph exporters
** write for one op (graph-fuse-layer-norm, graph-fuse-gelu) and replace
** it by that op: reading the chain backwards from its last op, then
** building the op and erasing the chain.
*/
#ifndef GILT_DIALECTS_GRAPH_TRANSFORMS_MATCH_H
#define GILT_DIALECTS_GRAPH_TRANSFORMS_MATCH_H

#include "dialects/graph/graph.h"
#include "gilt/pass.h"

/* The op of kind id defining v, NULL when another (or none) does. */
GILT_INTERNAL GiltOp *graph_match_def(GiltValue *v, GraphOpId id);
/* The same, and v has no other use than the one being matched. */
GILT_INTERNAL GiltOp *graph_match_sole(GiltValue *v, GraphOpId id);
/* Whether a graph.constant of one element defines v; its value in *out. */
GILT_INTERNAL bool graph_match_scalar(GiltValue *v, double *out);
/* Whether v is a constant of one element within a relative 1e-6 of want. */
GILT_INTERNAL bool graph_match_near(GiltValue *v, double want);
/* The operand of binary op other than v, NULL when v is neither. */
GILT_INTERNAL GiltValue *graph_match_other(GiltOp *op, GiltValue *v);
/* Creates op `name` before `at` with these operands, attributes and the
** one result type of `at`, at the fusion of the chain's locations; `at`'s
** result is then replaced by it and the chain (ops[0..n), last op first)
** erased, each op once nothing uses it. Returns the new op, NULL (the
** chain untouched) when it cannot be built. */
GILT_INTERNAL GiltOp *graph_match_replace(GiltOp *const *ops, size_t n,
                                          const char *name, size_t num_operands,
                                          GiltValue *const *operands,
                                          size_t num_attrs,
                                          const GiltNamedAttr *attrs);


/* The pass around a matcher: `fuse` is tried at every op of kind `last`
** (the chain's last op) under root, in program order, and the number it
** fused is the pass's statistic `num-fused` (described by `what`). A
** fusion may erase its op and ops before it, never a later one, so no op
** still to try has been erased. */
GILT_INTERNAL GiltStatus graph_match_run(GiltPass *pass, GiltOp *root,
                                         GraphOpId last,
                                         bool (*fuse)(GiltOp *op),
                                         const char *what);

#endif /* GILT_DIALECTS_GRAPH_TRANSFORMS_MATCH_H */
