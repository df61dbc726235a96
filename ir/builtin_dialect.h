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

#endif /* GILT_IR_BUILTIN_DIALECT_H */
