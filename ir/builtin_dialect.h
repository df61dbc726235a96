/*
** builtin_dialect.h - the dialect every gilt context starts with.
**
** `builtin` holds builtin.module, the top-level container of all IR that
** the parser and the importers produce. As in MLIR, the context registers
** it itself (gilt_context_create); every other dialect is registered by
** whoever creates the context (include/gilt/register.h).
*/
#ifndef GILT_IR_BUILTIN_DIALECT_H
#define GILT_IR_BUILTIN_DIALECT_H

#include "ir/op_def.h"

GILT_INTERNAL extern const GiltDialectDef gilt_builtin_dialect;

/* The builtin ops by the symbol of their builtin.def row: an op is known
** by its definition, gilt_builtin_ops[id] (ir/op_def.h, gilt_op_is). */
typedef enum BuiltinOpId {
#define GILT_OP(sym, ...) BUILTIN_OP_##sym,
#include "ir/builtin.def"
#undef GILT_OP
  BUILTIN_NUM_OPS
} BuiltinOpId;

GILT_INTERNAL extern const GiltOpDef gilt_builtin_ops[BUILTIN_NUM_OPS];

/* Whether op (possibly NULL) is the builtin op `id`. */
static inline bool gilt_builtin_op_is(const GiltOp *op, BuiltinOpId id)
{
  return gilt_op_is(op, &gilt_builtin_ops[id]);
}

#endif /* GILT_IR_BUILTIN_DIALECT_H */
