/*
** register.c - unit test of registration through the public API: a new
** context knows only the builtin dialect, and each registration call adds
** just its piece.
**
** Covers a bare context (builtin.module yes, func.func and passes no),
** func alone, the graph dialect bringing func along, the passes of one
** level, and registering twice.
*/
#include <stdio.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/pass.h"
#include "gilt/register.h"

static bool has_pass(GiltContext *ctx, const char *name)
{
  for (size_t i = 0; i < gilt_context_get_num_passes(ctx); i++)
    if (strcmp(gilt_context_get_pass(ctx, i)->name, name) == 0)
      return true;
  return false;
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  CHECK(gilt_context_is_registered_op(ctx, "builtin.module"));
  CHECK(!gilt_context_is_registered_op(ctx, "func.func"));
  CHECK(!gilt_context_is_registered_op(ctx, "graph.add"));
  CHECK(gilt_context_get_num_passes(ctx) == 0);

  gilt_register_func_dialect(ctx);
  CHECK(gilt_context_is_registered_op(ctx, "func.func"));
  CHECK(!gilt_context_is_registered_op(ctx, "graph.add"));

  gilt_register_transforms_passes(ctx);
  CHECK(has_pass(ctx, "cse") && has_pass(ctx, "canonicalize"));
  CHECK(!has_pass(ctx, "graph-fold-constants"));
  size_t num_passes = gilt_context_get_num_passes(ctx);
  gilt_register_transforms_passes(ctx); /* twice: harmless */
  CHECK(gilt_context_get_num_passes(ctx) == num_passes);
  CHECK(gilt_context_get_error_count(ctx) == 0);
  gilt_context_destroy(ctx);

  ctx = gilt_context_create();
  gilt_register_graph_dialect(ctx);
  CHECK(gilt_context_is_registered_op(ctx, "graph.add"));
  CHECK(gilt_context_is_registered_op(ctx, "func.return"));
  gilt_register_everything(ctx);
  gilt_register_everything(ctx);
  CHECK(has_pass(ctx, "graph-fold-constants") && has_pass(ctx, "inline"));
  CHECK(gilt_context_get_error_count(ctx) == 0);
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
