/*
** builtin.h - the dialects every gilt context starts with.
**
** `builtin` holds builtin.module, the top-level container of all IR; `func`
** holds func.func, func.return and func.call, MLIR's function dialect with
** MLIR's textual forms. Both are listed in dialects/dialects.def and
** registered by gilt_context_create. Their ops are built through the public
** API (gilt_module_create, gilt_func_create in include/gilt/ir.h) or the
** parser; nothing else needs more than these two tables.
*/
#ifndef GILT_DIALECTS_BUILTIN_BUILTIN_H
#define GILT_DIALECTS_BUILTIN_BUILTIN_H

#include "ir/op_def.h"

GILT_INTERNAL extern const GiltDialectDef gilt_builtin_dialect;
GILT_INTERNAL extern const GiltDialectDef gilt_func_dialect;

#endif /* GILT_DIALECTS_BUILTIN_BUILTIN_H */
