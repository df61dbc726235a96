/*
** function_asm.h - the custom form of function-like ops, shared by every
** op that implements the function-like interface (MLIR's
** function_interface_impl::printFunctionOp / parseFunctionOp):
**
**   func.func private @decl(i32 {attrs}) -> i32
**   func.func @f(%arg0: tensor<4xf32>, %arg1: i32 {attrs} loc(...))
**       -> (tensor<4xf32>, i32 {attrs}) attributes {inline} {
**     ...
**   }
**
** Both functions have the types of GiltOpDef's print and parse hooks, so a
** function-like op's row names them directly. They read and write the
** storage gilt/interfaces.h describes (`sym_visibility`, `sym_name`,
** `function_type`, `arg_attrs`, `res_attrs`, region 0); the checks of that
** storage are gilt_function_like_verify's.
*/
#ifndef GILT_IR_ASM_FUNCTION_ASM_H
#define GILT_IR_ASM_FUNCTION_ASM_H

#include "ir/asm/asm.h"

/* Prints what follows the op name: visibility, name, signature, other
** attributes after `attributes`, and the body when there is one. */
GILT_INTERNAL void gilt_function_asm_print(GiltOp *op, GiltAsmPrinter *p);
/* Parses that form into the build: the symbol attributes, `function_type`,
** `arg_attrs`/`res_attrs` (only when some entry has attributes) and one
** region, empty for a declaration. */
GILT_INTERNAL GiltStatus gilt_function_asm_parse(GiltAsmParser *p,
                                                 GiltOpBuild *b);

#endif /* GILT_IR_ASM_FUNCTION_ASM_H */
