/*
** callable.c - the callable interface (gilt/interfaces.h): an op a call
** can run, MLIR's CallableOpInterface.
**
** Only the identity and the queries live here; the implementations are
** each op's (function-like ops share gilt_function_like_callable_methods,
** in function_like.c). Not here: resolving a call's callee (call_like.c).
*/
#include "gilt/interfaces.h"

const GiltInterface gilt_callable_interface = {"callable"};

GiltRegion *gilt_callable_get_region(GiltOp *op)
{
  const GiltCallableMethods *m =
      gilt_op_get_interface(op, &gilt_callable_interface);
  return m ? m->get_callable_region(op) : NULL;
}

GiltType *gilt_callable_get_type(GiltOp *op)
{
  const GiltCallableMethods *m =
      gilt_op_get_interface(op, &gilt_callable_interface);
  return m ? m->get_callable_type(op) : NULL;
}
