/*
** func.h - the func dialect: func.func, func.return and func.call, MLIR's
** function dialect with MLIR's textual forms.
**
** Registered by gilt_register_func_dialect (include/gilt/register.h). Its
** ops are built through the public API (gilt_func_create in
** include/gilt/ir.h) or the parser.
*/
#ifndef GILT_DIALECTS_FUNC_FUNC_H
#define GILT_DIALECTS_FUNC_FUNC_H

#include "ir/op_def.h"

GILT_INTERNAL extern const GiltDialectDef gilt_func_dialect;

/* The func ops by the symbol of their func.def row: an op is known by its
** definition, gilt_func_ops[id] (ir/op_def.h, gilt_op_is). */
typedef enum FuncOpId {
#define GILT_OP(sym, ...) FUNC_OP_##sym,
#include "dialects/func/func.def"
#undef GILT_OP
  FUNC_NUM_OPS
} FuncOpId;

GILT_INTERNAL extern const GiltOpDef gilt_func_ops[FUNC_NUM_OPS];

/* Whether op (possibly NULL) is the func op `id`. */
static inline bool gilt_func_op_is(const GiltOp *op, FuncOpId id)
{
  return gilt_op_is(op, &gilt_func_ops[id]);
}

#endif /* GILT_DIALECTS_FUNC_FUNC_H */
