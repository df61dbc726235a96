/*
** context.c - the context: creation and destruction, interned identifiers,
** the uniquing tables, and the registries of dialects and ops.
**
** Uniqued objects (identifiers, types, attributes, locations) are allocated
** in the context's arena and found again through open-addressing hash sets,
** so equal objects are the same pointer. Ops and blocks are not uniqued:
** they come from the context's IR pool (ir/support/pool.h), which frees
** IR its owner forgot when the context goes.
*/
#include "ir/context.h"

#include <stdlib.h>
#include <string.h>

#include "ir/builtin_dialect.h"
#include "ir/signature.h"

/* ---- hash sets ---------------------------------------------------------- */

void *gilt_hashset_find(GiltHashSet *s, uint32_t hash, const void *key,
                        bool (*eq)(const void *, const void *))
{
  if (!s->cap)
    return NULL;
  size_t mask = s->cap - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    if (!s->slots[i])
      return NULL;
    if (s->hashes[i] == hash && eq(key, s->slots[i]))
      return s->slots[i];
  }
}

static void hashset_grow(GiltContext *ctx, GiltHashSet *s)
{
  size_t old_cap = s->cap;
  void **old_slots = s->slots;
  uint32_t *old_hashes = s->hashes;
  s->cap = old_cap ? old_cap * 2 : 64;
  s->slots = gilt_calloc(ctx, s->cap, sizeof *s->slots);
  s->hashes = gilt_calloc(ctx, s->cap, sizeof *s->hashes);
  size_t mask = s->cap - 1;
  for (size_t j = 0; j < old_cap; j++) {
    if (!old_slots[j])
      continue;
    size_t i = old_hashes[j] & mask;
    while (s->slots[i])
      i = (i + 1) & mask;
    s->slots[i] = old_slots[j];
    s->hashes[i] = old_hashes[j];
  }
  gilt_free(ctx, old_slots);
  gilt_free(ctx, old_hashes);
}

void gilt_hashset_insert(GiltContext *ctx, GiltHashSet *s, uint32_t hash,
                         void *elem)
{
  if ((s->len + 1) * 4 > s->cap * 3)
    hashset_grow(ctx, s);
  size_t mask = s->cap - 1;
  size_t i = hash & mask;
  while (s->slots[i])
    i = (i + 1) & mask;
  s->slots[i] = elem;
  s->hashes[i] = hash;
  s->len++;
}

void gilt_hashset_free(GiltContext *ctx, GiltHashSet *s)
{
  gilt_free(ctx, s->slots);
  gilt_free(ctx, s->hashes);
  memset(s, 0, sizeof *s);
}

void *gilt_context_unique(GiltContext *ctx, GiltHashSet *set, uint32_t hash,
                          const void *key,
                          bool (*eq)(const void *, const void *),
                          void *(*make)(GiltContext *, const void *))
{
  void *found = gilt_hashset_find(set, hash, key, eq);
  if (found)
    return found;
  void *obj = make(ctx, key);
  gilt_hashset_insert(ctx, set, hash, obj);
  return obj;
}

/* ---- identifiers -------------------------------------------------------- */

typedef struct IdentKey {
  const char *str;
  size_t len;
} IdentKey;

static bool ident_eq(const void *key, const void *elem)
{
  const IdentKey *k = key;
  const GiltIdent *id = elem;
  return id->len == k->len && memcmp(id->str, k->str, k->len) == 0;
}

GiltIdent *gilt_ident_get(GiltContext *ctx, const char *str, size_t len)
{
  GILT_ASSERT(len <= UINT32_MAX);
  IdentKey key = {str, len};
  uint32_t hash = gilt_hash_bytes(GILT_HASH_SEED, str, len);
  GiltIdent *id = gilt_hashset_find(&ctx->idents, hash, &key, ident_eq);
  if (id)
    return id;
  id = gilt_arena_alloc(&ctx->arena, sizeof *id + len + 1);
  id->hash = hash;
  id->len = (uint32_t)len;
  memcpy(id->str, str, len);
  id->str[len] = '\0';
  gilt_hashset_insert(ctx, &ctx->idents, hash, id);
  return id;
}

GiltIdent *gilt_ident_get_cstr(GiltContext *ctx, const char *str)
{
  return gilt_ident_get(ctx, str, strlen(str));
}

/* ---- creation and destruction ------------------------------------------- */

static void *default_realloc(void *user, void *ptr, size_t size)
{
  (void)user;
  if (size == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, size);
}

GiltContext *gilt_context_create(void)
{
  return gilt_context_create_with_allocator(default_realloc, NULL);
}

GiltContext *gilt_context_create_with_allocator(GiltReallocFn fn, void *user)
{
  GiltContext *ctx = fn(user, NULL, sizeof *ctx);
  if (!ctx)
    return NULL;
  memset(ctx, 0, sizeof *ctx);
  ctx->realloc_fn = fn;
  ctx->realloc_user = user;
  gilt_arena_init(&ctx->arena, ctx);
  gilt_pool_init(&ctx->ir_pool, ctx);
  gilt_ptr_map_init(&ctx->file_lines_index, ctx);
  gilt_context_register_dialect(ctx, &gilt_builtin_dialect);
  return ctx;
}

void gilt_context_destroy(GiltContext *ctx)
{
  if (!ctx)
    return;
  gilt_pool_destroy(&ctx->ir_pool);
  for (size_t i = 0; i < ctx->sources.len; i++) {
    if (ctx->sources.data[i].owned)
      gilt_free(ctx, (char *)ctx->sources.data[i].data);
    gilt_vec_free(ctx, &ctx->sources.data[i].line_starts);
  }
  gilt_vec_free(ctx, &ctx->sources);
  gilt_vec_free(ctx, &ctx->passes);
  for (size_t i = 0; i < ctx->file_lines.len; i++)
    gilt_paged_array_free(&ctx->file_lines.data[i].lines);
  gilt_vec_free(ctx, &ctx->file_lines);
  gilt_ptr_map_free(&ctx->file_lines_index);
  gilt_free(ctx, ctx->explained);
  for (size_t i = 0; i < ctx->decisions.len; i++)
    gilt_free(ctx, ctx->decisions.data[i]);
  gilt_vec_free(ctx, &ctx->decisions);
  for (GiltResourceBlob *b = ctx->blobs; b; b = b->next)
    gilt_resource_blob_release(b);
  GiltHashSet *sets[] = {&ctx->idents,   &ctx->types,    &ctx->attrs,
                         &ctx->locs,     &ctx->op_infos, &ctx->dialects,
                         &ctx->blobs_by_name};
  for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
    gilt_hashset_free(ctx, sets[i]);
  gilt_arena_free_all(&ctx->arena);
  ctx->realloc_fn(ctx->realloc_user, ctx, 0);
}

void gilt_context_set_allow_unregistered_dialects(GiltContext *ctx,
                                                  bool allow)
{
  ctx->allow_unregistered = allow;
}

bool gilt_context_get_allow_unregistered_dialects(GiltContext *ctx)
{
  return ctx->allow_unregistered;
}

/* Registers `buf` (copied when `copy`); the newest text of a file wins,
** and registering the text a file already has keeps what is there, so
** gopt's borrowed buffer serves the parser too. */
static void add_source(GiltContext *ctx, const char *filename,
                       const char *buf, size_t len, bool copy)
{
  GiltIdent *file = gilt_ident_get_cstr(ctx, filename);
  GiltSourceBuffer *sb = NULL;
  for (size_t i = 0; i < ctx->sources.len && !sb; i++)
    if (ctx->sources.data[i].file == file)
      sb = &ctx->sources.data[i];
  if (sb && sb->len == len && (sb->data == buf || !memcmp(sb->data, buf, len)))
    return;
  if (!sb) {
    GiltSourceBuffer fresh = {file, NULL, 0, false, {0}};
    gilt_vec_push(ctx, &ctx->sources, fresh);
    sb = &ctx->sources.data[ctx->sources.len - 1];
  } else if (sb->owned) {
    gilt_free(ctx, (char *)sb->data);
  }
  sb->line_starts.len = 0;
  sb->data = copy ? gilt_strndup(ctx, buf, len) : buf;
  sb->len = len;
  sb->owned = copy;
}

void gilt_context_add_source_buffer(GiltContext *ctx, const char *filename,
                                    const char *buf, size_t len)
{
  add_source(ctx, filename, buf, len, true);
}

void gilt_context_add_source_buffer_borrowed(GiltContext *ctx,
                                             const char *filename,
                                             const char *buf, size_t len)
{
  add_source(ctx, filename, buf, len, false);
}

static void index_lines(GiltContext *ctx, GiltSourceBuffer *sb)
{
  gilt_vec_push(ctx, &sb->line_starts, (size_t)0);
  for (const char *p = sb->data, *end = sb->data + sb->len;
       (p = memchr(p, '\n', (size_t)(end - p))); p++)
    gilt_vec_push(ctx, &sb->line_starts, (size_t)(p + 1 - sb->data));
}

const char *gilt_context_get_source_line(GiltContext *ctx, GiltIdent *file,
                                         unsigned line, size_t *len)
{
  GiltSourceBuffer *sb = NULL;
  for (size_t i = 0; i < ctx->sources.len && !sb; i++)
    if (ctx->sources.data[i].file == file)
      sb = &ctx->sources.data[i];
  if (!sb || line == 0)
    return NULL;
  if (!sb->line_starts.len)
    index_lines(ctx, sb);
  if (line > sb->line_starts.len)
    return NULL;
  size_t start = sb->line_starts.data[line - 1];
  size_t end =
      line < sb->line_starts.len ? sb->line_starts.data[line] - 1 : sb->len;
  if (start == sb->len && line > 1) /* past the final newline */
    return NULL;
  *len = end - start;
  return sb->data + start;
}

/* ---- dialect and op registry --------------------------------------------- */

static bool dialect_eq(const void *key, const void *elem)
{
  return ((const GiltDialectInfo *)elem)->name == key;
}

static bool op_info_eq(const void *key, const void *elem)
{
  return ((const GiltOpInfo *)elem)->name == key;
}

static GiltDialectInfo *get_dialect_info(GiltContext *ctx, GiltIdent *name)
{
  GiltDialectInfo *d =
      gilt_hashset_find(&ctx->dialects, name->hash, name, dialect_eq);
  if (d)
    return d;
  d = gilt_arena_alloc(&ctx->arena, sizeof *d);
  d->name = name;
  gilt_hashset_insert(ctx, &ctx->dialects, name->hash, d);
  return d;
}

GiltDialectInfo *gilt_context_lookup_dialect(GiltContext *ctx,
                                             const char *name, size_t len)
{
  GiltIdent *id = gilt_ident_get(ctx, name, len);
  GiltDialectInfo *d =
      gilt_hashset_find(&ctx->dialects, id->hash, id, dialect_eq);
  return d && d->def ? d : NULL;
}

/* Splits "a, b*: index, c?" into specs; a trailing `*` marks variadic,
** `?` optional, and `: constraint` constrains the type (signature.c). */
static size_t parse_arg_specs(GiltContext *ctx, const char *spec,
                              GiltOpArgSpec **out)
{
  GILT_VEC(GiltOpArgSpec) v = {0};
  for (const char *p = spec; *p;) {
    while (*p == ' ' || *p == ',')
      p++;
    const char *start = p;
    while (*p && !strchr(", *?:", *p))
      p++;
    if (p == start)
      break;
    GiltOpArgSpec a = {gilt_ident_get(ctx, start, (size_t)(p - start)),
                       *p == '*', *p == '?', {0}};
    if (*p == '*' || *p == '?')
      p++;
    while (*p == ' ')
      p++;
    if (*p == ':') {
      for (p++; *p == ' '; p++)
        ;
      const char *c = p;
      while (*p && *p != ',' && *p != ' ')
        p++;
      a.type = gilt_type_constraint_parse(c, (size_t)(p - c));
    }
    gilt_vec_push(ctx, &v, a);
  }
  *out = v.len ? gilt_arena_dup(&ctx->arena, v.data, v.len * sizeof *v.data)
               : NULL;
  size_t n = v.len;
  gilt_vec_free(ctx, &v);
  return n;
}

static GiltAttrConstraint parse_constraint(const char *s, size_t len)
{
  static const struct {
    const char *name;
    GiltAttrConstraint c;
  } kinds[] = {
      {"any", GILT_ATTR_ANY_KIND},        {"integer", GILT_ATTR_IS_INTEGER},
      {"float", GILT_ATTR_IS_FLOAT},      {"bool", GILT_ATTR_IS_BOOL},
      {"string", GILT_ATTR_IS_STRING},    {"array", GILT_ATTR_IS_ARRAY},
      {"dictionary", GILT_ATTR_IS_DICTIONARY},
      {"type", GILT_ATTR_IS_TYPE},        {"symbol", GILT_ATTR_IS_SYMBOL},
      {"unit", GILT_ATTR_IS_UNIT},        {"elements", GILT_ATTR_IS_ELEMENTS},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (strlen(kinds[i].name) == len && !memcmp(kinds[i].name, s, len))
      return kinds[i].c;
  GILT_ASSERT(!"unknown attribute constraint in an op table");
  return GILT_ATTR_ANY_KIND;
}

/* Parses "name: kind, other?: kind". */
static size_t parse_attr_specs(GiltContext *ctx, const char *spec,
                               GiltOpAttrSpec **out)
{
  GILT_VEC(GiltOpAttrSpec) v = {0};
  for (const char *p = spec; *p;) {
    while (*p == ' ' || *p == ',')
      p++;
    const char *name = p;
    while (*p && *p != ':' && *p != '?' && *p != ' ')
      p++;
    if (p == name)
      break;
    GiltOpAttrSpec a = {gilt_ident_get(ctx, name, (size_t)(p - name)),
                        GILT_ATTR_ANY_KIND, *p == '?'};
    if (*p == '?')
      p++;
    GILT_ASSERT(*p == ':');
    p++;
    while (*p == ' ')
      p++;
    const char *kind = p;
    while (*p && *p != ',' && *p != ' ')
      p++;
    a.constraint = parse_constraint(kind, (size_t)(p - kind));
    gilt_vec_push(ctx, &v, a);
  }
  *out = v.len ? gilt_arena_dup(&ctx->arena, v.data, v.len * sizeof *v.data)
               : NULL;
  size_t n = v.len;
  gilt_vec_free(ctx, &v);
  return n;
}

GiltStatus gilt_context_register_dialect(GiltContext *ctx,
                                         const GiltDialectDef *def)
{
  GiltDialectInfo *d = get_dialect_info(ctx, gilt_ident_get_cstr(ctx, def->name));
  if (d->def == def)
    return GILT_SUCCESS; /* registering a dialect twice is harmless */
  GILT_ASSERT(!d->def && "two dialects with one name");
  d->def = def;
  for (size_t i = 0; i < def->num_ops; i++) {
    const GiltOpDef *od = &def->ops[i];
    GiltIdent *name = gilt_ident_get_cstr(ctx, od->name);
    GILT_ASSERT(!gilt_hashset_find(&ctx->op_infos, name->hash, name,
                                   op_info_eq));
    GiltOpInfo *info = gilt_arena_alloc(&ctx->arena, sizeof *info);
    info->name = name;
    info->def = od;
    info->dialect = d;
    info->num_operand_specs =
        parse_arg_specs(ctx, od->operands ? od->operands : "",
                        &info->operand_specs);
    info->num_result_specs = parse_arg_specs(
        ctx, od->results ? od->results : "", &info->result_specs);
    info->num_attr_specs = parse_attr_specs(
        ctx, od->attributes ? od->attributes : "", &info->attr_specs);
    gilt_op_info_check_groups(info);
    gilt_hashset_insert(ctx, &ctx->op_infos, name->hash, info);
  }
  return GILT_SUCCESS;
}

const GiltOpInfo *gilt_context_lookup_op(GiltContext *ctx, const char *name,
                                         size_t len)
{
  GiltIdent *id = gilt_ident_get(ctx, name, len);
  GiltOpInfo *info =
      gilt_hashset_find(&ctx->op_infos, id->hash, id, op_info_eq);
  return info && info->def ? info : NULL;
}

bool gilt_context_is_registered_op(GiltContext *ctx, const char *name)
{
  return gilt_context_lookup_op(ctx, name, strlen(name)) != NULL;
}

const GiltOpInfo *gilt_context_get_op_info(GiltContext *ctx,
                                           const char *name, size_t len,
                                           GiltLocation *loc)
{
  GiltIdent *id = gilt_ident_get(ctx, name, len);
  GiltOpInfo *info =
      gilt_hashset_find(&ctx->op_infos, id->hash, id, op_info_eq);
  if (info && info->def)
    return info;
  const char *dot = memchr(name, '.', len);
  if (!ctx->allow_unregistered) {
    GiltDialectInfo *d =
        dot ? gilt_context_lookup_dialect(ctx, name, (size_t)(dot - name))
            : NULL;
    if (d)
      gilt_emit_error(loc, "operation '%s' is not registered in dialect '%s'",
                      id->str, d->name->str);
    else
      gilt_emit_error(loc,
                      "operation '%s' belongs to an unregistered dialect; use "
                      "--allow-unregistered-dialect to accept it",
                      id->str);
    return NULL;
  }
  /* As with MLIR's allowUnknownOperations, allowing unregistered dialects
  ** also admits unknown ops of registered ones, as opaque ops. */
  if (info)
    return info;
  info = gilt_arena_alloc(&ctx->arena, sizeof *info);
  info->name = id;
  info->dialect = get_dialect_info(
      ctx, gilt_ident_get(ctx, name, dot ? (size_t)(dot - name) : len));
  gilt_hashset_insert(ctx, &ctx->op_infos, id->hash, info);
  return info;
}

