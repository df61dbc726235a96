/*
** aot.h - `gjit MODEL --aot=OUT`: the lowered model written as OUT.o, an
** object file for this host with its weights inside, and OUT.h, the C
** declarations a program needs to call it (jit/abi.h's convention),
** instead of running it. Entry @f becomes the C function OUT_f (OUT's
** file name as an identifier: `--aot=build/classify` gives
** classify_main), so that a model's @main is no program's main; weights
** and helper functions are internal to the object. docs/gjit.md shows a
** program that links one.
*/
#ifndef GJIT_AOT_H
#define GJIT_AOT_H

#include "gilt/ir.h"

/* Writes OUT.o and OUT.h for `module` (a builtin.module at the llvm
** level) at opt_level for the host; `model` names the source in the
** header's comment. Reports through the module's context on failure
** (nothing it could not write is left half-written under OUT's names).
** Renames the module's entries and makes its other symbols private. */
GiltStatus gjit_aot_write(GiltOp *module, const char *out, const char *model,
                          unsigned opt_level);

#endif /* GJIT_AOT_H */
