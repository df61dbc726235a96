/*
** location.c - uniqued source locations.
**
** Locations say where an op came from: a file position, a name (an ONNX
** node), a fusion of several, or a call site. They are uniqued like types
** so passes can attach them freely. Printing lives with the printer.
**
** File positions are the most numerous (the parser makes one per op), so
** they skip the context's hash set: each file has a table indexed by line
** whose slot chains the positions on that line. The parser asks in line
** order, so its lookups walk memory sequentially; a line number far from
** the others costs one small page (see ir/support/paged_array.h),
** whatever its size.
*/
#include "ir/core.h"

#include <string.h>

#include "ir/context.h"

static uint32_t hash_loc(const GiltLocation *l)
{
  uint32_t h = gilt_hash_u64(GILT_HASH_SEED, l->kind);
  switch (l->kind) {
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
  case GILT_LOC_FILE_LINE_COL: /* not in this table: see file_lines() */
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
  case GILT_LOC_FILE_LINE_COL: /* not in this table: see file_lines() */
    return false;
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

/* The line table of `file`, created on first use. */
static GiltPagedArray *file_lines(GiltContext *ctx, GiltIdent *file)
{
  size_t i;
  if (!gilt_ptr_map_get(&ctx->file_lines_index, file, &i)) {
    GiltFileLines fl = {file, {0}};
    gilt_paged_array_init(&fl.lines, ctx);
    i = ctx->file_lines.len;
    gilt_vec_push(ctx, &ctx->file_lines, fl);
    gilt_ptr_map_put(&ctx->file_lines_index, file, i);
  }
  return &ctx->file_lines.data[i].lines;
}

GiltLocation *gilt_location_file_line_col_get_ident(GiltContext *ctx,
                                                    GiltIdent *file,
                                                    unsigned line,
                                                    unsigned col)
{
  uintptr_t *first = gilt_paged_array_slot(file_lines(ctx, file), line);
  for (GiltLocation *l = (GiltLocation *)*first; l; l = l->flc.next_on_line)
    if (l->flc.col == col)
      return l;
  GiltLocation *l = gilt_arena_alloc(&ctx->arena, sizeof *l);
  l->kind = GILT_LOC_FILE_LINE_COL;
  l->ctx = ctx;
  l->flc.file = file;
  l->flc.line = line;
  l->flc.col = col;
  l->flc.next_on_line = (GiltLocation *)*first;
  *first = (uintptr_t)l;
  return l;
}

GiltLocation *gilt_location_file_line_col_get(GiltContext *ctx,
                                              const char *file,
                                              unsigned line, unsigned col)
{
  return gilt_location_file_line_col_get_ident(
      ctx, gilt_ident_get_cstr(ctx, file), line, col);
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

static bool is_node_list(const GiltLocation *loc)
{
  return loc->kind == GILT_LOC_FUSED && !loc->fused.metadata;
}

GiltLocation *gilt_location_fused_flat(GiltLocation *a, GiltLocation *b)
{
  GiltContext *ctx = a->ctx;
  GiltLocation *parts[2] = {a, b};
  size_t n = 0;
  for (size_t p = 0; p < 2; p++)
    n += is_node_list(parts[p]) ? parts[p]->fused.n : 1;
  GiltLocation **locs = gilt_calloc(ctx, n, sizeof *locs);
  n = 0;
  for (size_t p = 0; p < 2; p++)
    if (is_node_list(parts[p]))
      for (size_t i = 0; i < parts[p]->fused.n; i++)
        locs[n++] = parts[p]->fused.locs[i];
    else
      locs[n++] = parts[p];
  GiltLocation *fused = gilt_location_fused_get(ctx, n, locs, NULL);
  gilt_free(ctx, locs);
  return fused;
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

/* gilt_location_find_file_line_col's search, also noting in *name the
** innermost name location on the way to the position it returns. */
static GiltLocation *find_named_position(GiltLocation *loc, GiltIdent **name)
{
  switch (loc->kind) {
  case GILT_LOC_FILE_LINE_COL:
    return loc;
  case GILT_LOC_NAME: {
    GiltLocation *flc = find_named_position(loc->name.child, name);
    if (flc && !*name)
      *name = loc->name.name;
    return flc;
  }
  case GILT_LOC_CALLSITE:
    return find_named_position(loc->callsite.callee, name);
  case GILT_LOC_FUSED:
    for (size_t i = 0; i < loc->fused.n; i++) {
      GiltLocation *flc = find_named_position(loc->fused.locs[i], name);
      if (flc)
        return flc;
    }
    return NULL;
  case GILT_LOC_UNKNOWN:
    return NULL;
  }
  return NULL;
}

/* The first name in `loc`, innermost when names nest; a call site's callee
** is looked into before its caller. */
static GiltIdent *first_name(GiltLocation *loc)
{
  GiltIdent *name = NULL;
  switch (loc->kind) {
  case GILT_LOC_NAME:
    name = first_name(loc->name.child);
    return name ? name : loc->name.name;
  case GILT_LOC_CALLSITE:
    name = first_name(loc->callsite.callee);
    return name ? name : first_name(loc->callsite.caller);
  case GILT_LOC_FUSED:
    for (size_t i = 0; i < loc->fused.n && !name; i++)
      name = first_name(loc->fused.locs[i]);
    return name;
  case GILT_LOC_UNKNOWN:
  case GILT_LOC_FILE_LINE_COL:
    return NULL;
  }
  return NULL;
}

GiltIdent *gilt_location_find_name(GiltLocation *loc)
{
  GiltIdent *name = NULL;
  find_named_position(loc, &name);
  return name ? name : first_name(loc);
}

const char *gilt_location_get_name(GiltLocation *loc)
{
  GiltIdent *name = gilt_location_find_name(loc);
  return name ? name->str : NULL;
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
