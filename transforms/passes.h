/*
** passes.h - the passes of transforms/, declared from passes.def.
**
** Only register.c needs these: everything else finds a pass by name in
** the context. Adding a pass means one row in passes.def.
*/
#ifndef GILT_TRANSFORMS_PASSES_H
#define GILT_TRANSFORMS_PASSES_H

#include "gilt/pass.h"
#include "ir/support/alloc.h"

#define GILT_PASS(symbol) GILT_INTERNAL extern const GiltPassDef symbol;
#include "transforms/passes.def"
#undef GILT_PASS

#endif /* GILT_TRANSFORMS_PASSES_H */
