/*
** register_everything.c - gilt_register_everything and its two halves:
** every dialect and every pass gilt ships, for tools and embedders that
** want all of them.
**
** This is the one file that knows every level; nothing below it calls it.
** A new dialect or level adds its registration call here. Not here: the
** registration of each piece, which lives with the piece.
*/
#include "gilt/register.h"

void gilt_register_all_dialects(GiltContext *ctx)
{
  gilt_register_func_dialect(ctx);
  gilt_register_graph_dialect(ctx);
  gilt_register_loop_dialect(ctx);
  gilt_register_llvm_dialect(ctx);
  gilt_register_gpu_dialect(ctx);
}

void gilt_register_all_passes(GiltContext *ctx)
{
  gilt_register_transforms_passes(ctx);
  gilt_register_graph_passes(ctx);
  gilt_register_loop_passes(ctx);
  gilt_register_llvm_passes(ctx);
  gilt_register_conversion_passes(ctx);
  gilt_register_gpu_passes(ctx);
  gilt_register_gpu_host_lowering(ctx);
}

void gilt_register_everything(GiltContext *ctx)
{
  gilt_register_all_dialects(ctx);
  gilt_register_all_passes(ctx);
}
