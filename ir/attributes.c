/*
** attributes.c - uniqued attributes: construction, queries, dense data and
** resource blobs.
**
** Like types, attributes are hashed structurally and uniqued in the
** context. Dense elements keep their bytes in the arena; dense resources
** refer to a named blob the context holds once, so a 100 MB weight is
** stored a single time however often it is referenced and is printed by
** name. A dense array (`array<i32: 1, 2>`) is MLIR's DenseArrayAttr: a
** one-dimensional run of packed scalars with no shape or splat form, used
** for small integer lists such as operandSegmentSizes. Printing and
** parsing live with the printer and parser.
*/
#include "ir/core.h"

#include <stdlib.h>
#include <string.h>

#include "ir/context.h"

static size_t dense_array_nbytes(const GiltAttr *a)
{
  return a->darray.n * gilt_type_get_storage_size(a->type);
}

static uint32_t hash_attr(const GiltAttr *a)
{
  uint32_t h = gilt_hash_u64(GILT_HASH_SEED, a->kind);
  h = gilt_hash_ptr(h, a->type);
  switch (a->kind) {
  case GILT_ATTR_INTEGER:
    return gilt_hash_u64(h, (uint64_t)a->i);
  case GILT_ATTR_FLOAT:
    return gilt_hash_bytes(h, &a->f, sizeof a->f);
  case GILT_ATTR_BOOL:
    return gilt_hash_u64(h, a->b);
  case GILT_ATTR_STRING:
    return gilt_hash_bytes(h, a->str.data, a->str.len);
  case GILT_ATTR_ARRAY:
    for (size_t i = 0; i < a->array.n; i++)
      h = gilt_hash_ptr(h, a->array.elems[i]);
    return h;
  case GILT_ATTR_DICTIONARY:
    for (size_t i = 0; i < a->dict.n; i++)
      h = gilt_hash_ptr(gilt_hash_ptr(h, a->dict.entries[i].name),
                        a->dict.entries[i].attr);
    return h;
  case GILT_ATTR_SYMBOL_REF:
    for (size_t i = 0; i < a->symref.n; i++)
      h = gilt_hash_ptr(h, a->symref.names[i]);
    return h;
  case GILT_ATTR_DENSE_ELEMENTS:
    h = gilt_hash_u64(h, a->dense.splat);
    return gilt_hash_bytes(h, a->dense.data, a->dense.nbytes);
  case GILT_ATTR_DENSE_RESOURCE:
    return gilt_hash_ptr(h, a->resource);
  case GILT_ATTR_DENSE_ARRAY:
    return gilt_hash_bytes(h, a->darray.data, dense_array_nbytes(a));
  case GILT_ATTR_STRIDED_LAYOUT:
    h = gilt_hash_u64(h, (uint64_t)a->strided.offset);
    for (size_t i = 0; i < a->strided.rank; i++)
      h = gilt_hash_u64(h, (uint64_t)a->strided.strides[i]);
    return h;
  case GILT_ATTR_OPAQUE:
    return gilt_hash_ptr(gilt_hash_ptr(h, a->opaque.dialect), a->opaque.body);
  case GILT_ATTR_DIALECT:
    h = gilt_hash_ptr(h, a->dialect.def);
    for (size_t i = 0; i < a->dialect.n; i++)
      h = gilt_hash_ptr(h, a->dialect.params[i]);
    return h;
  case GILT_ATTR_TYPE:
  case GILT_ATTR_UNIT:
    return h;
  }
  return h;
}

static bool same_bytes(const void *a, const void *b, size_t n)
{
  return n == 0 || memcmp(a, b, n) == 0;
}

static bool attr_eq(const void *key, const void *elem)
{
  const GiltAttr *a = key, *b = elem;
  if (a->kind != b->kind || a->type != b->type)
    return false;
  switch (a->kind) {
  case GILT_ATTR_INTEGER:
    return a->i == b->i;
  case GILT_ATTR_FLOAT: /* bitwise, so -0.0 and NaN payloads stay apart */
    return !memcmp(&a->f, &b->f, sizeof a->f);
  case GILT_ATTR_BOOL:
    return a->b == b->b;
  case GILT_ATTR_STRING:
    return a->str.len == b->str.len &&
           same_bytes(a->str.data, b->str.data, a->str.len);
  case GILT_ATTR_ARRAY:
    return a->array.n == b->array.n &&
           same_bytes(a->array.elems, b->array.elems,
                      a->array.n * sizeof *a->array.elems);
  case GILT_ATTR_DICTIONARY:
    return a->dict.n == b->dict.n &&
           same_bytes(a->dict.entries, b->dict.entries,
                      a->dict.n * sizeof *a->dict.entries);
  case GILT_ATTR_SYMBOL_REF:
    return a->symref.n == b->symref.n &&
           same_bytes(a->symref.names, b->symref.names,
                      a->symref.n * sizeof *a->symref.names);
  case GILT_ATTR_DENSE_ELEMENTS:
    return a->dense.splat == b->dense.splat &&
           a->dense.nbytes == b->dense.nbytes &&
           same_bytes(a->dense.data, b->dense.data, a->dense.nbytes);
  case GILT_ATTR_DENSE_RESOURCE:
    return a->resource == b->resource;
  case GILT_ATTR_DENSE_ARRAY:
    return a->darray.n == b->darray.n &&
           same_bytes(a->darray.data, b->darray.data, dense_array_nbytes(a));
  case GILT_ATTR_STRIDED_LAYOUT:
    return a->strided.offset == b->strided.offset &&
           a->strided.rank == b->strided.rank &&
           same_bytes(a->strided.strides, b->strided.strides,
                      a->strided.rank * sizeof *a->strided.strides);
  case GILT_ATTR_OPAQUE:
    return a->opaque.dialect == b->opaque.dialect &&
           a->opaque.body == b->opaque.body;
  case GILT_ATTR_DIALECT:
    return a->dialect.def == b->dialect.def && a->dialect.n == b->dialect.n &&
           same_bytes(a->dialect.params, b->dialect.params,
                      a->dialect.n * sizeof *a->dialect.params);
  case GILT_ATTR_TYPE:
  case GILT_ATTR_UNIT:
    return true;
  }
  return false;
}

static void *make_attr(GiltContext *ctx, const void *key)
{
  GiltArena *ar = &ctx->arena;
  GiltAttr *a = gilt_arena_dup(ar, key, sizeof *a);
  switch (a->kind) {
  case GILT_ATTR_STRING: {
    char *s = gilt_arena_alloc(ar, a->str.len + 1);
    if (a->str.len)
      memcpy(s, a->str.data, a->str.len);
    a->str.data = s;
    break;
  }
  case GILT_ATTR_ARRAY:
    a->array.elems = gilt_arena_dup(ar, a->array.elems,
                                    a->array.n * sizeof *a->array.elems);
    break;
  case GILT_ATTR_DICTIONARY:
    a->dict.entries = gilt_arena_dup(ar, a->dict.entries,
                                     a->dict.n * sizeof *a->dict.entries);
    break;
  case GILT_ATTR_SYMBOL_REF:
    a->symref.names = gilt_arena_dup(ar, a->symref.names,
                                     a->symref.n * sizeof *a->symref.names);
    break;
  case GILT_ATTR_DENSE_ELEMENTS:
    a->dense.data = gilt_arena_dup(ar, a->dense.data, a->dense.nbytes);
    break;
  case GILT_ATTR_DENSE_ARRAY:
    a->darray.data = gilt_arena_dup(ar, a->darray.data, dense_array_nbytes(a));
    break;
  case GILT_ATTR_STRIDED_LAYOUT:
    a->strided.strides = gilt_arena_dup(
        ar, a->strided.strides, a->strided.rank * sizeof(int64_t));
    break;
  case GILT_ATTR_DIALECT:
    a->dialect.params = gilt_arena_dup(ar, a->dialect.params,
                                       a->dialect.n * sizeof(GiltAttr *));
    break;
  default:
    break;
  }
  return a;
}

static GiltAttr *unique_attr(GiltContext *ctx, GiltAttr *key)
{
  key->ctx = ctx;
  key->hash = hash_attr(key);
  return gilt_context_unique(ctx, &ctx->attrs, key->hash, key, attr_eq,
                             make_attr);
}

/* ---- construction ----------------------------------------------------- */

GiltAttr *gilt_integer_attr_get(GiltType *type, int64_t value)
{
  GILT_ASSERT(type->kind == GILT_TYPE_INTEGER ||
              type->kind == GILT_TYPE_INDEX);
  GiltAttr key = {.kind = GILT_ATTR_INTEGER, .type = type};
  key.i = value;
  return unique_attr(type->ctx, &key);
}

GiltAttr *gilt_float_attr_get(GiltType *type, double value)
{
  GILT_ASSERT(type->kind == GILT_TYPE_FLOAT);
  GiltAttr key = {.kind = GILT_ATTR_FLOAT, .type = type};
  /* Round once, straight to the type: through float first, a value just
  ** past a tie between two halves would round to the tie in f32 and then
  ** to even in f16, one ulp from the nearest half. */
  if (type->fkind == GILT_F32)
    key.f = (float)value;
  else if (type->fkind == GILT_F64)
    key.f = value;
  else
    key.f = gilt_float_bits_to_double(
        type->fkind, gilt_float_bits_from_double(type->fkind, value, false));
  return unique_attr(type->ctx, &key);
}

GiltAttr *gilt_bool_attr_get(GiltContext *ctx, bool value)
{
  GiltAttr key = {.kind = GILT_ATTR_BOOL,
                  .type = gilt_integer_type_get(ctx, 1, GILT_SIGNLESS)};
  key.b = value;
  return unique_attr(ctx, &key);
}

GiltAttr *gilt_string_attr_get(GiltContext *ctx, const char *str, size_t len)
{
  GiltAttr key = {.kind = GILT_ATTR_STRING};
  key.str.len = len;
  key.str.data = str;
  return unique_attr(ctx, &key);
}

GiltAttr *gilt_array_attr_get(GiltContext *ctx, size_t n,
                              GiltAttr *const *elems)
{
  GiltAttr key = {.kind = GILT_ATTR_ARRAY};
  key.array.n = n;
  key.array.elems = elems;
  return unique_attr(ctx, &key);
}

GiltAttr *gilt_dictionary_attr_get_sorted(GiltContext *ctx, size_t n,
                                          const GiltNamedAttrI *entries)
{
  GiltAttr key = {.kind = GILT_ATTR_DICTIONARY};
  key.dict.n = n;
  key.dict.entries = entries;
  return unique_attr(ctx, &key);
}

GiltAttr *gilt_empty_dictionary_attr_get(GiltContext *ctx)
{
  if (!ctx->empty_dict)
    ctx->empty_dict = gilt_dictionary_attr_get_sorted(ctx, 0, NULL);
  return ctx->empty_dict;
}

static int compare_names(const GiltIdent *a, const GiltIdent *b)
{
  size_t n = a->len < b->len ? a->len : b->len;
  int c = memcmp(a->str, b->str, n);
  return c ? c : (a->len > b->len) - (a->len < b->len);
}

GiltAttr *gilt_dictionary_attr_get_i(GiltContext *ctx, size_t n,
                                     const GiltNamedAttrI *e, GiltIdent **dup)
{
  GiltNamedAttrI small[16];
  GiltNamedAttrI *sorted = n > 16 ? gilt_malloc(ctx, n * sizeof *e) : small;
  /* Insertion sort: stable, and dictionaries are short and mostly sorted. */
  for (size_t i = 0; i < n; i++) {
    size_t j = i;
    while (j > 0 && compare_names(sorted[j - 1].name, e[i].name) > 0) {
      sorted[j] = sorted[j - 1];
      j--;
    }
    sorted[j] = e[i];
  }
  GiltAttr *result = NULL;
  size_t i = 1;
  while (i < n && sorted[i - 1].name != sorted[i].name)
    i++;
  if (i < n) {
    if (dup)
      *dup = sorted[i].name;
  } else {
    result = gilt_dictionary_attr_get_sorted(ctx, n, sorted);
  }
  if (sorted != small)
    gilt_free(ctx, sorted);
  return result;
}

GiltAttr *gilt_dictionary_attr_get(GiltContext *ctx, size_t n,
                                   const GiltNamedAttr *entries)
{
  GiltNamedAttrI *e = gilt_malloc(ctx, (n ? n : 1) * sizeof *e);
  for (size_t i = 0; i < n; i++) {
    e[i].name = gilt_ident_get_cstr(ctx, entries[i].name);
    e[i].attr = entries[i].attr;
  }
  GiltIdent *dup = NULL;
  GiltAttr *a = gilt_dictionary_attr_get_i(ctx, n, e, &dup);
  gilt_free(ctx, e);
  if (!a)
    gilt_emit_error(gilt_location_unknown_get(ctx),
                    "duplicate key '%s' in dictionary attribute", dup->str);
  return a;
}

GiltAttr *gilt_type_attr_get(GiltType *type)
{
  GiltAttr key = {.kind = GILT_ATTR_TYPE, .type = type};
  return unique_attr(type->ctx, &key);
}

GiltAttr *gilt_symbol_ref_attr_get_i(GiltContext *ctx, size_t n,
                                     GiltIdent *const *names)
{
  GILT_ASSERT(n >= 1);
  GiltAttr key = {.kind = GILT_ATTR_SYMBOL_REF};
  key.symref.n = n;
  key.symref.names = names;
  return unique_attr(ctx, &key);
}

GiltAttr *gilt_symbol_ref_attr_get(GiltContext *ctx, const char *root,
                                   size_t num_nested,
                                   const char *const *nested)
{
  GiltIdent *small[8];
  GiltIdent **names =
      num_nested + 1 > 8 ? gilt_malloc(ctx, (num_nested + 1) * sizeof *names)
                         : small;
  names[0] = gilt_ident_get_cstr(ctx, root);
  for (size_t i = 0; i < num_nested; i++)
    names[i + 1] = gilt_ident_get_cstr(ctx, nested[i]);
  GiltAttr *a = gilt_symbol_ref_attr_get_i(ctx, num_nested + 1, names);
  if (names != small)
    gilt_free(ctx, names);
  return a;
}

GiltAttr *gilt_unit_attr_get(GiltContext *ctx)
{
  GiltAttr key = {.kind = GILT_ATTR_UNIT};
  return unique_attr(ctx, &key);
}

static size_t element_size(GiltType *shaped)
{
  return gilt_type_get_storage_size(shaped->shaped.elem);
}

GiltAttr *gilt_dense_elements_attr_get(GiltType *type, const void *data,
                                       size_t nbytes)
{
  GiltContext *ctx = type->ctx;
  int64_t n = gilt_shaped_type_get_num_elements(type);
  size_t esize = gilt_type_is_shaped(type) ? element_size(type) : 0;
  if (n < 0 || esize == 0 || type->kind == GILT_TYPE_MEMREF) {
    gilt_emit_error(gilt_location_unknown_get(ctx),
                    "dense elements need a statically shaped tensor or "
                    "vector of integers or floats");
    return NULL;
  }
  bool splat = nbytes == esize;
  size_t want;
  if (!splat && !gilt_shaped_type_get_byte_size(type, &want)) {
    gilt_emit_error(gilt_location_unknown_get(ctx),
                    "dense elements data holds %zu bytes, but its type "
                    "needs more than fit in memory (only a splat can)",
                    nbytes);
    return NULL;
  }
  if (!splat && nbytes != want) {
    gilt_emit_error(gilt_location_unknown_get(ctx),
                    "dense elements data holds %zu bytes, expected %zu "
                    "(or %zu for a splat)",
                    nbytes, want, esize);
    return NULL;
  }
  /* An explicit list whose elements are all equal is stored as a splat, as
  ** MLIR does, so equal constants unique to one attribute. */
  if (!splat && n > 1) {
    const uint8_t *p = data;
    size_t i = esize;
    while (i < nbytes && !memcmp(p + i, p, esize))
      i += esize;
    if (i == nbytes) {
      splat = true;
      nbytes = esize;
    }
  }
  GiltAttr key = {.kind = GILT_ATTR_DENSE_ELEMENTS, .type = type};
  key.dense.splat = splat || n == 1;
  key.dense.nbytes = nbytes;
  key.dense.data = data;
  return unique_attr(ctx, &key);
}

const char *gilt_dense_array_check_element_type(GiltType *t)
{
  if (t->kind != GILT_TYPE_INTEGER && t->kind != GILT_TYPE_FLOAT)
    return "expected integer or float type";
  unsigned width = gilt_type_get_bit_width(t);
  if (width != 1 && width % 8 != 0)
    return "element type bitwidth must be a multiple of 8";
  if (width == 0 || width > 64)
    return "element type must be i1 or 8 to 64 bits wide";
  return NULL;
}

GiltAttr *gilt_dense_array_attr_get(GiltType *elem_type, size_t n,
                                    const void *data)
{
  const char *why = gilt_dense_array_check_element_type(elem_type);
  if (why) {
    gilt_emit_error(gilt_location_unknown_get(elem_type->ctx),
                    "invalid dense array element type: %s", why);
    return NULL;
  }
  GiltAttr key = {.kind = GILT_ATTR_DENSE_ARRAY, .type = elem_type};
  key.darray.n = n;
  key.darray.data = data;
  return unique_attr(elem_type->ctx, &key);
}

GiltAttr *gilt_strided_layout_attr_get(GiltContext *ctx, int64_t offset,
                                       size_t rank, const int64_t *strides)
{
  GiltAttr key = {.kind = GILT_ATTR_STRIDED_LAYOUT};
  key.strided.offset = offset;
  key.strided.rank = rank;
  key.strided.strides = strides;
  return unique_attr(ctx, &key);
}

GiltAttr *gilt_opaque_attr_get(GiltContext *ctx, const char *dialect,
                               const char *body, size_t body_len)
{
  GiltAttr key = {.kind = GILT_ATTR_OPAQUE};
  key.opaque.dialect = gilt_ident_get_cstr(ctx, dialect);
  key.opaque.body = gilt_ident_get(ctx, body, body_len);
  return unique_attr(ctx, &key);
}

GiltAttr *gilt_dialect_attr_get_unchecked(GiltContext *ctx,
                                          const GiltDialectValue *v)
{
  GiltAttr key = {.kind = GILT_ATTR_DIALECT};
  key.dialect = *v;
  return unique_attr(ctx, &key);
}

/* ---- resource blobs ------------------------------------------------------ */

static bool blob_eq(const void *key, const void *elem)
{
  return ((const GiltResourceBlob *)elem)->name == key;
}

static GiltResourceBlob *find_blob(GiltContext *ctx, GiltIdent *name)
{
  return gilt_hashset_find(&ctx->blobs_by_name, name->hash, name, blob_eq);
}

static GiltResourceBlob *new_blob(GiltContext *ctx, GiltIdent *name)
{
  GiltResourceBlob *b = gilt_arena_alloc(&ctx->arena, sizeof *b);
  b->name = name;
  b->next = ctx->blobs;
  ctx->blobs = b;
  ctx->num_blobs++;
  gilt_hashset_insert(ctx, &ctx->blobs_by_name, name->hash, b);
  return b;
}

GiltResourceBlob *gilt_resource_blob_lookup(GiltContext *ctx,
                                            const char *name)
{
  GiltIdent *id = gilt_ident_get_cstr(ctx, name);
  GiltResourceBlob *b = find_blob(ctx, id);
  return b ? b : new_blob(ctx, id);
}

/* The deleter of bytes that came from gilt_malloc on the context. */
static void free_blob_data(void *ctx, void *data, size_t nbytes)
{
  (void)nbytes;
  gilt_free(ctx, data);
}

void gilt_resource_blob_release(GiltResourceBlob *blob)
{
  if (blob->deleter)
    blob->deleter(blob->deleter_user, blob->data, blob->nbytes);
}

GiltAttr *gilt_dense_resource_attr_get_blob(GiltType *type,
                                            GiltResourceBlob *blob)
{
  GiltAttr key = {.kind = GILT_ATTR_DENSE_RESOURCE, .type = type};
  key.resource = blob;
  return unique_attr(type->ctx, &key);
}

/* Whether `nbytes` are the elements of `type`; reports when not. */
static bool check_resource_size(GiltType *type, const char *name,
                                size_t nbytes)
{
  int64_t n = gilt_shaped_type_get_num_elements(type);
  size_t esize = gilt_type_is_shaped(type) ? element_size(type) : 0;
  GiltLocation *loc = gilt_location_unknown_get(type->ctx);
  if (n < 0 || esize == 0 || type->kind == GILT_TYPE_MEMREF) {
    gilt_emit_error(loc, "dense resource '%s' needs a statically shaped "
                    "tensor or vector of integers or floats", name);
    return false;
  }
  size_t want;
  if (!gilt_shaped_type_get_byte_size(type, &want)) {
    gilt_emit_error(loc, "dense resource '%s' holds %zu bytes, its type "
                    "needs more than fit in memory", name, nbytes);
    return false;
  }
  if (nbytes != want) {
    gilt_emit_error(loc, "dense resource '%s' holds %zu bytes, its type "
                    "needs %zu", name, nbytes, want);
    return false;
  }
  return true;
}

GiltAttr *gilt_dense_resource_attr_take(GiltType *type, const char *name,
                                        void *data, size_t nbytes,
                                        GiltBlobDeleter deleter, void *user)
{
  GiltContext *ctx = type->ctx;
  if (!check_resource_size(type, name, nbytes)) {
    if (deleter)
      deleter(user, data, nbytes);
    return NULL;
  }
  GiltIdent *id = gilt_ident_get_cstr(ctx, name);
  GiltResourceBlob *b = find_blob(ctx, id);
  /* The same name with other bytes gets a fresh name, as MLIR's resource
  ** manager does, so importing two models into one context is safe. */
  for (unsigned k = 1; b && !(b->data && b->nbytes == nbytes &&
                              same_bytes(b->data, data, nbytes));
       k++) {
    char buf[512];
    snprintf(buf, sizeof buf, "%.480s_%u", name, k);
    id = gilt_ident_get_cstr(ctx, buf);
    b = find_blob(ctx, id);
  }
  if (b) {
    /* The context holds these bytes already; it needs no second copy. */
    if (deleter)
      deleter(user, data, nbytes);
  } else {
    b = new_blob(ctx, id);
    b->data = data;
    b->nbytes = nbytes;
    b->deleter = deleter;
    b->deleter_user = user;
  }
  return gilt_dense_resource_attr_get_blob(type, b);
}

GiltAttr *gilt_dense_resource_attr_get(GiltType *type, const char *name,
                                       const void *data, size_t nbytes)
{
  GiltContext *ctx = type->ctx;
  void *copy = gilt_malloc(ctx, nbytes);
  if (nbytes)
    memcpy(copy, data, nbytes);
  return gilt_dense_resource_attr_take(type, name, copy, nbytes,
                                       free_blob_data, ctx);
}

/* Blob bytes a pass computes start on a 64-byte boundary, where dense
** elements in the arena start too: a JIT links a weight at its own
** address only when it is that aligned (jit.c copies it otherwise), and
** vector loads of it then never straddle a cache line. Those of
** GILT_WEIGHT_PAGE bytes or more start on a page, as the weights of an
** object do (dialects/llvm/translate.c). The two bytes before the data
** say how far past the allocation's start it lies. */
enum { BLOB_ALIGN = 64 };

void *gilt_blob_alloc(GiltContext *ctx, size_t nbytes)
{
  size_t align = (size_t)gilt_weight_alignment(nbytes, BLOB_ALIGN);
  uint8_t *raw = gilt_calloc(ctx, 1, nbytes + align + 1);
  uintptr_t first = (uintptr_t)raw + 2; /* room for the two bytes */
  uint16_t pad = (uint16_t)(2 + (align - first % align) % align);
  memcpy(raw + pad - sizeof pad, &pad, sizeof pad);
  return raw + pad;
}

static void free_aligned_blob(void *ctx, void *data, size_t nbytes)
{
  (void)nbytes;
  uint8_t *p = data;
  uint16_t pad;
  memcpy(&pad, p - sizeof pad, sizeof pad);
  gilt_free(ctx, p - pad);
}

GiltAttr *gilt_dense_attr_take(GiltType *type, const char *name, void *data,
                               size_t nbytes)
{
  int64_t n = gilt_shaped_type_get_num_elements(type);
  if (n >= 0 && n <= GILT_INLINE_ELEMENTS) {
    GiltAttr *inline_value = gilt_dense_elements_attr_get(type, data, nbytes);
    free_aligned_blob(type->ctx, data, nbytes);
    return inline_value;
  }
  return gilt_dense_resource_attr_take(type, name, data, nbytes,
                                       free_aligned_blob, type->ctx);
}

/* ---- queries --------------------------------------------------------------- */

GiltContext *gilt_attr_get_context(GiltAttr *a) { return a->ctx; }
GiltAttrKind gilt_attr_get_kind(GiltAttr *a) { return a->kind; }
GiltType *gilt_attr_get_type(GiltAttr *a) { return a->type; }

int64_t gilt_integer_attr_get_value(GiltAttr *a)
{
  GILT_ASSERT(a->kind == GILT_ATTR_INTEGER);
  return a->i;
}

double gilt_float_attr_get_value(GiltAttr *a)
{
  GILT_ASSERT(a->kind == GILT_ATTR_FLOAT);
  return a->f;
}

bool gilt_bool_attr_get_value(GiltAttr *a)
{
  GILT_ASSERT(a->kind == GILT_ATTR_BOOL);
  return a->b;
}

const char *gilt_string_attr_get_value(GiltAttr *a, size_t *len)
{
  GILT_ASSERT(a->kind == GILT_ATTR_STRING);
  if (len)
    *len = a->str.len;
  return a->str.data;
}

size_t gilt_array_attr_get_size(GiltAttr *a)
{
  GILT_ASSERT(a->kind == GILT_ATTR_ARRAY);
  return a->array.n;
}

GiltAttr *gilt_array_attr_get_element(GiltAttr *a, size_t i)
{
  GILT_ASSERT(a->kind == GILT_ATTR_ARRAY && i < a->array.n);
  return a->array.elems[i];
}

size_t gilt_dictionary_attr_get_size(GiltAttr *a)
{
  GILT_ASSERT(a->kind == GILT_ATTR_DICTIONARY);
  return a->dict.n;
}

GiltNamedAttr gilt_dictionary_attr_get_entry(GiltAttr *a, size_t i)
{
  GILT_ASSERT(a->kind == GILT_ATTR_DICTIONARY && i < a->dict.n);
  GiltNamedAttr e = {a->dict.entries[i].name->str, a->dict.entries[i].attr};
  return e;
}

GiltAttr *gilt_dictionary_attr_lookup_ident(GiltAttr *dict, GiltIdent *name)
{
  GILT_ASSERT(dict->kind == GILT_ATTR_DICTIONARY);
  size_t lo = 0, hi = dict->dict.n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = compare_names(dict->dict.entries[mid].name, name);
    if (c == 0)
      return dict->dict.entries[mid].attr;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

GiltAttr *gilt_dictionary_attr_lookup(GiltAttr *a, const char *name)
{
  return gilt_dictionary_attr_lookup_ident(a, gilt_ident_get_cstr(a->ctx, name));
}

GiltType *gilt_type_attr_get_value(GiltAttr *a)
{
  GILT_ASSERT(a->kind == GILT_ATTR_TYPE);
  return a->type;
}

const char *gilt_symbol_ref_attr_get_root(GiltAttr *a)
{
  GILT_ASSERT(a->kind == GILT_ATTR_SYMBOL_REF);
  return a->symref.names[0]->str;
}

bool gilt_dense_attr_is_splat(GiltAttr *a)
{
  return a->kind == GILT_ATTR_DENSE_ELEMENTS && a->dense.splat;
}

const void *gilt_dense_attr_get_data(GiltAttr *a, size_t *nbytes)
{
  if (a->kind == GILT_ATTR_DENSE_RESOURCE) {
    *nbytes = a->resource->nbytes;
    return a->resource->data;
  }
  GILT_ASSERT(a->kind == GILT_ATTR_DENSE_ELEMENTS);
  *nbytes = a->dense.nbytes;
  return a->dense.data;
}

int64_t gilt_dense_attr_get_num_elements(GiltAttr *a)
{
  return gilt_shaped_type_get_num_elements(a->type);
}

/* Reads element i as raw little-endian bits of its storage size. */
static const uint8_t *element_ptr(GiltAttr *a, int64_t i)
{
  size_t esize = element_size(a->type), nbytes;
  const uint8_t *data = gilt_dense_attr_get_data(a, &nbytes);
  if (gilt_dense_attr_is_splat(a))
    i = 0;
  GILT_ASSERT(data && (size_t)(i + 1) * esize <= nbytes);
  return data + (size_t)i * esize;
}

/* One stored element of type et read as int64 / double: the readers of
** dense elements and dense arrays share them. */
static int64_t load_int(GiltType *et, const uint8_t *p)
{
  unsigned width = gilt_type_get_bit_width(et);
  uint64_t v = 0;
  for (size_t i = gilt_type_get_storage_size(et); i-- > 0;)
    v = v << 8 | p[i];
  bool is_signed = et->kind != GILT_TYPE_INTEGER ||
                   (et->integer.sign != GILT_UNSIGNED && width > 1);
  return gilt_int_extend(v, width, is_signed);
}

static double load_float(GiltType *et, const uint8_t *p)
{
  if (et->kind != GILT_TYPE_FLOAT)
    return (double)load_int(et, p);
  uint64_t bits = 0;
  memcpy(&bits, p, gilt_type_get_storage_size(et)); /* little-endian */
  return gilt_float_bits_to_double(et->fkind, bits);
}

int64_t gilt_dense_attr_get_int(GiltAttr *a, int64_t i)
{
  return load_int(a->type->shaped.elem, element_ptr(a, i));
}

double gilt_dense_attr_get_float(GiltAttr *a, int64_t i)
{
  return load_float(a->type->shaped.elem, element_ptr(a, i));
}

size_t gilt_dense_array_attr_get_size(GiltAttr *a)
{
  GILT_ASSERT(a->kind == GILT_ATTR_DENSE_ARRAY);
  return a->darray.n;
}

const void *gilt_dense_array_attr_get_data(GiltAttr *a, size_t *nbytes)
{
  GILT_ASSERT(a->kind == GILT_ATTR_DENSE_ARRAY);
  *nbytes = dense_array_nbytes(a);
  return a->darray.data;
}

int64_t gilt_dense_array_attr_get_int(GiltAttr *a, size_t i)
{
  GILT_ASSERT(a->kind == GILT_ATTR_DENSE_ARRAY && i < a->darray.n);
  return load_int(a->type, a->darray.data +
                               i * gilt_type_get_storage_size(a->type));
}

double gilt_dense_array_attr_get_float(GiltAttr *a, size_t i)
{
  GILT_ASSERT(a->kind == GILT_ATTR_DENSE_ARRAY && i < a->darray.n);
  return load_float(a->type, a->darray.data +
                                 i * gilt_type_get_storage_size(a->type));
}
