/*
** pass_registry.c - the context's registry of passes, by name.
**
** Registered definitions are borrowed and kept sorted by name, so that
** pipelines find a pass by binary search and `gopt --list-passes` lists
** them in order without sorting. Which passes a context knows is decided
** by whoever creates it (include/gilt/register.h); each level lists its
** own passes and registers them with gilt_context_register_passes.
*/
#include "ir/pass/pass_manager.h"

#include <string.h>

/* strcmp of a counted string against a C string. */
static int compare_name(const char *text, size_t len, const char *name)
{
  int c = strncmp(text, name, len);
  if (c)
    return c;
  return name[len] ? -1 : 0;
}

/* The first index whose name is not less than text[0..len). */
static size_t lower_bound(GiltContext *ctx, const char *text, size_t len)
{
  size_t lo = 0, hi = ctx->passes.len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (compare_name(text, len, ctx->passes.data[mid]->name) > 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

const GiltPassDef *gilt_context_lookup_pass(GiltContext *ctx,
                                            const char *text, size_t len)
{
  size_t i = lower_bound(ctx, text, len);
  if (i < ctx->passes.len &&
      compare_name(text, len, ctx->passes.data[i]->name) == 0)
    return ctx->passes.data[i];
  return NULL;
}

GiltStatus gilt_context_register_pass(GiltContext *ctx, const GiltPassDef *def)
{
  GILT_ASSERT(def && def->name && def->run);
  size_t len = strlen(def->name);
  const GiltPassDef *known = gilt_context_lookup_pass(ctx, def->name, len);
  if (known == def)
    return GILT_SUCCESS; /* registering a level twice is harmless */
  if (known) {
    gilt_emit_error(gilt_location_unknown_get(ctx),
                    "pass '%s' is already registered", def->name);
    return GILT_FAILURE;
  }
  /* Check the defaults now, so a bad one shows at registration rather
  ** than in the first pipeline that names the pass. */
  gilt_pass_destroy(gilt_pass_create(ctx, def));
  size_t i = lower_bound(ctx, def->name, len);
  gilt_vec_push(ctx, &ctx->passes, def);
  memmove(&ctx->passes.data[i + 1], &ctx->passes.data[i],
          (ctx->passes.len - 1 - i) * sizeof *ctx->passes.data);
  ctx->passes.data[i] = def;
  return GILT_SUCCESS;
}

void gilt_context_register_passes(GiltContext *ctx,
                                  const GiltPassDef *const *defs, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    /* Two shipped passes with one name is a bug in gilt, not a user error. */
    GiltStatus status = gilt_context_register_pass(ctx, defs[i]);
    GILT_ASSERT(status == GILT_SUCCESS);
  }
}

size_t gilt_context_get_num_passes(GiltContext *ctx)
{
  return ctx->passes.len;
}

const GiltPassDef *gilt_context_get_pass(GiltContext *ctx, size_t i)
{
  GILT_ASSERT(i < ctx->passes.len);
  return ctx->passes.data[i];
}
