/*
** passes.h - the pass definitions gilt ships, declared from passes.def.
**
** Only the registry needs these: everything else finds a pass by name in
** the context. Adding a pass means one row in passes.def.
*/
#ifndef GILT_TRANSFORMS_PASSES_H
#define GILT_TRANSFORMS_PASSES_H

#include "gilt/pass.h"
#include "ir/alloc.h"

#define GILT_PASS(symbol) GILT_INTERNAL extern const GiltPassDef symbol;
#include "transforms/passes.def"
#undef GILT_PASS

#endif /* GILT_TRANSFORMS_PASSES_H */
