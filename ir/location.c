/*
** location.c - uniqued source locations.
**
** Locations say where an op came from: a file position, a name (an ONNX
** node), a fusion of several, or a call site. They are uniqued like types
** so passes can attach them freely. Printing lives with the printer.
*/
#include "ir/core.h"

#include <string.h>

#include "ir/context.h"

static uint32_t hash_loc(const GiltLocation *l)
{
  uint32_t h = gilt_hash_u64(GILT_HASH_SEED, l->kind);
  switch (l->kind) {
  case GILT_LOC_FILE_LINE_COL:
    h = gilt_hash_ptr(h, l->flc.file);
    return gilt_hash_u64(h, ((uint64_t)l->flc.line << 32) | l->flc.col);
  case GILT_LOC_NAME:
    return gilt_hash_ptr(gilt_hash_ptr(h, l->name.name), l->name.child);
  case GILT_LOC_FUSED:
    for (size_t i = 0; i < l->fused.n; i++)
      h = gilt_hash_ptr(h, l->fused.locs[i]);
    return gilt_hash_ptr(h, l->fused.metadata);
  case GILT_LOC_CALLSITE:
    return gilt_hash_ptr(gilt_hash_ptr(h, l->callsite.callee),
                         l->callsite.caller);
  case GILT_LOC_UNKNOWN:
    return h;
  }
  return h;
}

static bool loc_eq(const void *key, const void *elem)
{
  const GiltLocation *a = key, *b = elem;
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case GILT_LOC_FILE_LINE_COL:
    return a->flc.file == b->flc.file && a->flc.line == b->flc.line &&
           a->flc.col == b->flc.col;
  case GILT_LOC_NAME:
    return a->name.name == b->name.name && a->name.child == b->name.child;
  case GILT_LOC_FUSED:
    return a->fused.n == b->fused.n && a->fused.metadata == b->fused.metadata &&
           (a->fused.n == 0 ||
            !memcmp(a->fused.locs, b->fused.locs,
                    a->fused.n * sizeof *a->fused.locs));
  case GILT_LOC_CALLSITE:
    return a->callsite.callee == b->callsite.callee &&
           a->callsite.caller == b->callsite.caller;
  case GILT_LOC_UNKNOWN:
    return true;
  }
  return false;
}

static void *make_loc(GiltContext *ctx, const void *key)
{
  GiltLocation *l = gilt_arena_dup(&ctx->arena, key, sizeof *l);
  if (l->kind == GILT_LOC_FUSED)
    l->fused.locs = gilt_arena_dup(&ctx->arena, l->fused.locs,
                                   l->fused.n * sizeof *l->fused.locs);
  return l;
}

static GiltLocation *unique_loc(GiltContext *ctx, GiltLocation *key)
{
  key->ctx = ctx;
  key->hash = hash_loc(key);
  return gilt_context_unique(ctx, &ctx->locs, key->hash, key, loc_eq,
                             make_loc);
}

GiltLocation *gilt_location_unknown_get(GiltContext *ctx)
{
  if (!ctx->unknown_loc) {
    GiltLocation key = {.kind = GILT_LOC_UNKNOWN};
    ctx->unknown_loc = unique_loc(ctx, &key);
  }
  return ctx->unknown_loc;
}

GiltLocation *gilt_location_file_line_col_get(GiltContext *ctx,
                                              const char *file,
                                              unsigned line, unsigned col)
{
  GiltLocation key = {.kind = GILT_LOC_FILE_LINE_COL};
  key.flc.file = gilt_ident_get_cstr(ctx, file);
  key.flc.line = line;
  key.flc.col = col;
  return unique_loc(ctx, &key);
}

GiltLocation *gilt_location_name_get(GiltContext *ctx, const char *name,
                                     GiltLocation *child)
{
  GiltLocation key = {.kind = GILT_LOC_NAME};
  key.name.name = gilt_ident_get_cstr(ctx, name);
  key.name.child = child ? child : gilt_location_unknown_get(ctx);
  return unique_loc(ctx, &key);
}

GiltLocation *gilt_location_fused_get(GiltContext *ctx, size_t n,
                                      GiltLocation *const *locs,
                                      GiltAttr *metadata)
{
  GiltLocation key = {.kind = GILT_LOC_FUSED};
  key.fused.n = n;
  key.fused.locs = locs;
  key.fused.metadata = metadata;
  return unique_loc(ctx, &key);
}

GiltLocation *gilt_location_callsite_get(GiltLocation *callee,
                                         GiltLocation *caller)
{
  GiltLocation key = {.kind = GILT_LOC_CALLSITE};
  key.callsite.callee = callee;
  key.callsite.caller = caller;
  return unique_loc(callee->ctx, &key);
}

GiltContext *gilt_location_get_context(GiltLocation *loc) { return loc->ctx; }

GiltLocation *gilt_location_find_file_line_col(GiltLocation *loc)
{
  switch (loc->kind) {
  case GILT_LOC_FILE_LINE_COL:
    return loc;
  case GILT_LOC_NAME:
    return gilt_location_find_file_line_col(loc->name.child);
  case GILT_LOC_CALLSITE:
    return gilt_location_find_file_line_col(loc->callsite.callee);
  case GILT_LOC_FUSED:
    for (size_t i = 0; i < loc->fused.n; i++) {
      GiltLocation *l = gilt_location_find_file_line_col(loc->fused.locs[i]);
      if (l)
        return l;
    }
    return NULL;
  case GILT_LOC_UNKNOWN:
    return NULL;
  }
  return NULL;
}

bool gilt_location_get_file_line_col(GiltLocation *loc, const char **file,
                                     unsigned *line, unsigned *col)
{
  GiltLocation *flc = gilt_location_find_file_line_col(loc);
  if (!flc)
    return false;
  *file = flc->flc.file->str;
  *line = flc->flc.line;
  *col = flc->flc.col;
  return true;
}
