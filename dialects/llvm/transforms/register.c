/*
** register.c - gilt_register_llvm_passes: registers every pass listed in
** dialects/llvm/transforms/passes.def.
*/
#include "dialects/llvm/transforms/passes.h"

#include "gilt/register.h"

void gilt_register_llvm_passes(GiltContext *ctx)
{
  static const GiltPassDef *const passes[] = {
#define GILT_PASS(symbol) &symbol,
#include "dialects/llvm/transforms/passes.def"
#undef GILT_PASS
  };
  gilt_context_register_passes(ctx, passes, sizeof passes / sizeof *passes);
}
