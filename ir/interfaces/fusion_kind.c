/*
** fusion_kind.c - the fusion-kind interface (gilt/interfaces.h): how an op
** combines with its neighbours when loop nests fuse.
**
** The graph dialect implements it for every op from its table; the fusion
** passes read it. An op that does not implement it is never fused.
*/
#include "gilt/interfaces.h"

const GiltInterface gilt_fusion_kind_interface = {"fusion-kind"};

GiltFusionKind gilt_op_get_fusion_kind(GiltOp *op)
{
  const GiltFusionKindMethods *m =
      gilt_op_get_interface(op, &gilt_fusion_kind_interface);
  return m ? m->get_kind(op) : GILT_FUSION_OPAQUE;
}
