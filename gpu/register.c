/*
** register.c - gilt_register_gpu_passes: registers the gpu dialect and
** every pass listed in gpu/passes.def.
*/
#include "gpu/passes.h"

#include "gilt/register.h"

void gilt_register_gpu_passes(GiltContext *ctx)
{
  static const GiltPassDef *const passes[] = {
#define GILT_PASS(symbol) &symbol,
#include "gpu/passes.def"
#undef GILT_PASS
  };
  gilt_register_gpu_dialect(ctx);
  gilt_context_register_passes(ctx, passes, sizeof passes / sizeof *passes);
}
