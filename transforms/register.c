/*
** register.c - gilt_register_transforms_passes: registers every pass
** listed in transforms/passes.def.
**
** The registry itself (lookup by name, sorted listing) is
** ir/pass/pass_registry.c.
*/
#include "transforms/passes.h"

#include "gilt/register.h"

void gilt_register_transforms_passes(GiltContext *ctx)
{
  static const GiltPassDef *const passes[] = {
#define GILT_PASS(symbol) &symbol,
#include "transforms/passes.def"
#undef GILT_PASS
  };
  gilt_context_register_passes(ctx, passes, sizeof passes / sizeof *passes);
}
