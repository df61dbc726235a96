/*
** registry.c - registers every pass listed in transforms/passes.def.
**
** Called once by gilt_context_create. The registry itself (lookup by name,
** sorted listing) is ir/pass_registry.c.
*/
#include "transforms/passes.h"

#include "ir/context.h"

/* Two shipped passes with one name is a bug in gilt, not a user error. */
static void register_shipped(GiltContext *ctx, const GiltPassDef *def)
{
  GiltStatus status = gilt_context_register_pass(ctx, def);
  GILT_ASSERT(status == GILT_SUCCESS);
}

void gilt_register_builtin_passes(GiltContext *ctx)
{
#define GILT_PASS(symbol) register_shipped(ctx, &symbol);
#include "transforms/passes.def"
#undef GILT_PASS
}
