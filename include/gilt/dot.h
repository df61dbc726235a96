/*
** gilt/dot.h - IR drawn as Graphviz graphs.
**
** A debugging view of the dataflow of functions, as MLIR's
** `--view-op-graph`: `gopt --emit=dot f.gilt | dot -Tsvg > f.svg`. It is a
** picture, not a serialization: nothing parses it back.
*/
#ifndef GILT_DOT_H
#define GILT_DOT_H

#include "gilt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Prints one `digraph "name" { ... }` per function-like op in `op` (op
** itself included; func.func and the like, gilt/interfaces.h), or a single
** digraph named after `op` when it holds none.
** Each op is a box labelled with its name and result types, each block
** argument an ellipse; an edge runs from whatever defines a value to each
** op using it; an op with regions is a cluster around its nested ops.
** The output depends only on the IR (node names count from n0 in each
** graph). Values defined outside the drawn op get no edge. */
GILT_API void gilt_op_print_dot(GiltOp *op, GiltStringCallback cb,
                                void *user);

#ifdef __cplusplus
}
#endif

#endif /* GILT_DOT_H */
