/*
** register.c - gilt_register_loop_passes: registers every pass listed in
** dialects/loop/transforms/passes.def.
*/
#include "dialects/loop/transforms/passes.h"

#include "gilt/register.h"

void gilt_register_loop_passes(GiltContext *ctx)
{
  static const GiltPassDef *const passes[] = {
#define GILT_PASS(symbol) &symbol,
#include "dialects/loop/transforms/passes.def"
#undef GILT_PASS
  };
  gilt_context_register_passes(ctx, passes, sizeof passes / sizeof *passes);
}
