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

#endif /* GILT_DIALECTS_FUNC_FUNC_H */
