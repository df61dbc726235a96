/*
** passes.h - the llvm level's passes, declared from passes.def.
**
** Only register.c needs these: everything else finds a pass by name in the
** context.
*/
#ifndef GILT_DIALECTS_LLVM_TRANSFORMS_PASSES_H
#define GILT_DIALECTS_LLVM_TRANSFORMS_PASSES_H

#include "gilt/pass.h"
#include "ir/support/alloc.h"

#define GILT_PASS(symbol) GILT_INTERNAL extern const GiltPassDef symbol;
#include "dialects/llvm/transforms/passes.def"
#undef GILT_PASS

#endif /* GILT_DIALECTS_LLVM_TRANSFORMS_PASSES_H */
