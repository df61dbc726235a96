/*
** gilt/interfaces.h - the op interfaces the IR core defines, for every
** level to implement and query (gilt/dialect.h has the mechanism).
**
** Each interface is a GiltInterface object and a struct of functions; an
** op implements it by listing {&gilt_X_interface, &its_methods} in its
** row's `interfaces`, or by an external model attached to it. The query
** functions here answer conservatively for ops that implement nothing.
** Interfaces that belong to one level (lowering, interpretation) are
** defined by that level, with the same mechanism.
*/
#ifndef GILT_INTERFACES_H
#define GILT_INTERFACES_H

#include "gilt/dialect.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- fusion kind -------------------------------------------------------- */

/* How an op combines with its neighbours when fusing loop nests, as in
** TVM's FuseOps: elementwise (same shape in and out), broadcast (inputs
** broadcast to the output), injective (each output element reads one input
** element: transpose, slice, ...), reduction, output-fusable (conv/matmul:
** elementwise consumers fuse into its output), opaque (never fused). */
typedef enum GiltFusionKind {
  GILT_FUSION_OPAQUE = 0,
  GILT_FUSION_ELEMENTWISE,
  GILT_FUSION_BROADCAST,
  GILT_FUSION_INJECTIVE,
  GILT_FUSION_REDUCTION,
  GILT_FUSION_OUTPUT_FUSABLE
} GiltFusionKind;

typedef struct GiltFusionKindMethods {
  GiltFusionKind (*get_kind)(GiltOp *op);
} GiltFusionKindMethods;

GILT_API extern const GiltInterface gilt_fusion_kind_interface;
/* The op's fusion kind; opaque when it does not implement the interface. */
GILT_API GiltFusionKind gilt_op_get_fusion_kind(GiltOp *op);

#ifdef __cplusplus
}
#endif

#endif /* GILT_INTERFACES_H */
