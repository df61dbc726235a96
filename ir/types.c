/*
** types.c - uniqued types: construction, queries and storage sizes.
**
** A type is built as a key on the stack, hashed structurally and looked up
** in the context's table; only a type seen for the first time is copied
** into the arena. Equal types are therefore the same pointer. Printing and
** parsing live with the printer and parser.
*/
#include "ir/core.h"

#include <string.h>

#include "ir/context.h"
#include "ir/support/checked_math.h"

static uint32_t hash_shape(uint32_t h, size_t rank, const int64_t *shape)
{
  for (size_t i = 0; i < rank; i++)
    h = gilt_hash_u64(h, (uint64_t)shape[i]);
  return h;
}

static uint32_t hash_type(const GiltType *t)
{
  uint32_t h = gilt_hash_u64(GILT_HASH_SEED, t->kind);
  switch (t->kind) {
  case GILT_TYPE_INTEGER:
    return gilt_hash_u64(h, t->integer.width * 4u + t->integer.sign);
  case GILT_TYPE_FLOAT:
    return gilt_hash_u64(h, t->fkind);
  case GILT_TYPE_TENSOR:
  case GILT_TYPE_MEMREF:
  case GILT_TYPE_VECTOR:
    h = gilt_hash_u64(h, t->shaped.ranked);
    h = hash_shape(h, t->shaped.rank, t->shaped.shape);
    h = gilt_hash_ptr(h, t->shaped.elem);
    h = gilt_hash_ptr(h, t->shaped.encoding);
    h = gilt_hash_ptr(h, t->shaped.layout);
    return gilt_hash_ptr(h, t->shaped.memory_space);
  case GILT_TYPE_FUNCTION:
    h = gilt_hash_u64(h, t->func.num_inputs);
    for (size_t i = 0; i < t->func.num_inputs + t->func.num_results; i++)
      h = gilt_hash_ptr(h, t->func.types[i]);
    return h;
  case GILT_TYPE_OPAQUE:
    h = gilt_hash_ptr(h, t->opaque.dialect);
    return gilt_hash_ptr(h, t->opaque.body);
  case GILT_TYPE_DIALECT:
    h = gilt_hash_ptr(h, t->dialect.def);
    for (size_t i = 0; i < t->dialect.n; i++)
      h = gilt_hash_ptr(h, t->dialect.params[i]);
    return h;
  case GILT_TYPE_INDEX:
  case GILT_TYPE_NONE:
    return h;
  }
  return h;
}

static bool type_eq(const void *key, const void *elem)
{
  const GiltType *a = key, *b = elem;
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case GILT_TYPE_INTEGER:
    return a->integer.width == b->integer.width &&
           a->integer.sign == b->integer.sign;
  case GILT_TYPE_FLOAT:
    return a->fkind == b->fkind;
  case GILT_TYPE_TENSOR:
  case GILT_TYPE_MEMREF:
  case GILT_TYPE_VECTOR:
    return a->shaped.ranked == b->shaped.ranked &&
           a->shaped.rank == b->shaped.rank &&
           (a->shaped.rank == 0 ||
            !memcmp(a->shaped.shape, b->shaped.shape,
                    a->shaped.rank * sizeof *a->shaped.shape)) &&
           a->shaped.elem == b->shaped.elem &&
           a->shaped.encoding == b->shaped.encoding &&
           a->shaped.layout == b->shaped.layout &&
           a->shaped.memory_space == b->shaped.memory_space;
  case GILT_TYPE_FUNCTION: {
    size_t n = a->func.num_inputs + a->func.num_results;
    return a->func.num_inputs == b->func.num_inputs &&
           a->func.num_results == b->func.num_results &&
           (n == 0 || !memcmp(a->func.types, b->func.types,
                              n * sizeof *a->func.types));
  }
  case GILT_TYPE_OPAQUE:
    return a->opaque.dialect == b->opaque.dialect &&
           a->opaque.body == b->opaque.body;
  case GILT_TYPE_DIALECT:
    return a->dialect.def == b->dialect.def && a->dialect.n == b->dialect.n &&
           (a->dialect.n == 0 ||
            !memcmp(a->dialect.params, b->dialect.params,
                    a->dialect.n * sizeof *a->dialect.params));
  case GILT_TYPE_INDEX:
  case GILT_TYPE_NONE:
    return true;
  }
  return false;
}

/* Copies the key's arrays into the arena. */
static void *make_type(GiltContext *ctx, const void *key)
{
  GiltType *t = gilt_arena_dup(&ctx->arena, key, sizeof *t);
  if (t->kind == GILT_TYPE_TENSOR || t->kind == GILT_TYPE_MEMREF ||
      t->kind == GILT_TYPE_VECTOR)
    t->shaped.shape = gilt_arena_dup(&ctx->arena, t->shaped.shape,
                                     t->shaped.rank * sizeof(int64_t));
  else if (t->kind == GILT_TYPE_FUNCTION)
    t->func.types = gilt_arena_dup(
        &ctx->arena, t->func.types,
        (t->func.num_inputs + t->func.num_results) * sizeof(GiltType *));
  else if (t->kind == GILT_TYPE_DIALECT)
    t->dialect.params = gilt_arena_dup(
        &ctx->arena, t->dialect.params, t->dialect.n * sizeof(GiltAttr *));
  return t;
}

static GiltType *unique_type(GiltContext *ctx, GiltType *key)
{
  key->ctx = ctx;
  key->hash = hash_type(key);
  return gilt_context_unique(ctx, &ctx->types, key->hash, key, type_eq,
                             make_type);
}

GiltType *gilt_integer_type_get(GiltContext *ctx, unsigned width,
                                GiltSignedness sign)
{
  GiltType key = {.kind = GILT_TYPE_INTEGER};
  key.integer.width = width;
  key.integer.sign = sign;
  return unique_type(ctx, &key);
}

GiltType *gilt_index_type_get(GiltContext *ctx)
{
  GiltType key = {.kind = GILT_TYPE_INDEX};
  return unique_type(ctx, &key);
}

GiltType *gilt_float_type_get(GiltContext *ctx, GiltFloatKind kind)
{
  GiltType key = {.kind = GILT_TYPE_FLOAT};
  key.fkind = kind;
  return unique_type(ctx, &key);
}

GiltType *gilt_none_type_get(GiltContext *ctx)
{
  GiltType key = {.kind = GILT_TYPE_NONE};
  return unique_type(ctx, &key);
}

/* Tensor, memref and vector types share one key layout; the fields a
** kind does not use stay NULL. A shaped type without an element type
** would crash whoever asks for it far from here, so it is refused here. */
static GiltType *shaped_type_get(GiltContext *ctx, GiltTypeKind kind,
                                 bool ranked, size_t rank,
                                 const int64_t *shape, GiltType *elem,
                                 GiltAttr *encoding, GiltAttr *layout,
                                 GiltAttr *memory_space)
{
  GILT_ASSERT(elem);
  GiltType key = {.kind = kind};
  key.shaped.ranked = ranked;
  key.shaped.rank = rank;
  key.shaped.shape = shape;
  key.shaped.elem = elem;
  key.shaped.encoding = encoding;
  key.shaped.layout = layout;
  key.shaped.memory_space = memory_space;
  return unique_type(ctx, &key);
}

GiltType *gilt_tensor_type_get(GiltContext *ctx, size_t rank,
                               const int64_t *shape, GiltType *elem,
                               GiltAttr *encoding)
{
  return shaped_type_get(ctx, GILT_TYPE_TENSOR, true, rank, shape, elem,
                         encoding, NULL, NULL);
}

GiltType *gilt_unranked_tensor_type_get(GiltContext *ctx, GiltType *elem)
{
  return shaped_type_get(ctx, GILT_TYPE_TENSOR, false, 0, NULL, elem, NULL,
                         NULL, NULL);
}

GiltType *gilt_memref_type_get(GiltContext *ctx, size_t rank,
                               const int64_t *shape, GiltType *elem,
                               GiltAttr *layout, GiltAttr *memory_space)
{
  return shaped_type_get(ctx, GILT_TYPE_MEMREF, true, rank, shape, elem, NULL,
                         layout, memory_space);
}

GiltType *gilt_vector_type_get(GiltContext *ctx, size_t rank,
                               const int64_t *shape, GiltType *elem)
{
  return shaped_type_get(ctx, GILT_TYPE_VECTOR, true, rank, shape, elem, NULL,
                         NULL, NULL);
}

GiltType *gilt_function_type_get(GiltContext *ctx, size_t num_inputs,
                                 GiltType *const *inputs, size_t num_results,
                                 GiltType *const *results)
{
  GiltType *small[16];
  GiltType **types = small;
  size_t n = num_inputs + num_results;
  if (n > 16)
    types = gilt_malloc(ctx, n * sizeof *types);
  if (num_inputs)
    memcpy(types, inputs, num_inputs * sizeof *types);
  if (num_results)
    memcpy(types + num_inputs, results, num_results * sizeof *types);
  GiltType key = {.kind = GILT_TYPE_FUNCTION};
  key.func.num_inputs = num_inputs;
  key.func.num_results = num_results;
  key.func.types = types;
  GiltType *t = unique_type(ctx, &key);
  if (types != small)
    gilt_free(ctx, types);
  return t;
}

GiltType *gilt_opaque_type_get(GiltContext *ctx, const char *dialect,
                               const char *body, size_t body_len)
{
  GiltType key = {.kind = GILT_TYPE_OPAQUE};
  key.opaque.dialect = gilt_ident_get_cstr(ctx, dialect);
  key.opaque.body = gilt_ident_get(ctx, body, body_len);
  return unique_type(ctx, &key);
}

GiltType *gilt_dialect_type_get_unchecked(GiltContext *ctx,
                                          const GiltDialectValue *v)
{
  GiltType key = {.kind = GILT_TYPE_DIALECT};
  key.dialect = *v;
  return unique_type(ctx, &key);
}

/* ---- queries -------------------------------------------------------------- */

GiltContext *gilt_type_get_context(GiltType *t) { return t->ctx; }
GiltTypeKind gilt_type_get_kind(GiltType *t) { return t->kind; }

bool gilt_type_is_integer(GiltType *t, unsigned width)
{
  return t->kind == GILT_TYPE_INTEGER && t->integer.width == width;
}

bool gilt_type_is_float(GiltType *t) { return t->kind == GILT_TYPE_FLOAT; }

bool gilt_type_is_shaped(GiltType *t)
{
  return t->kind == GILT_TYPE_TENSOR || t->kind == GILT_TYPE_MEMREF ||
         t->kind == GILT_TYPE_VECTOR;
}

unsigned gilt_integer_type_get_width(GiltType *t)
{
  GILT_ASSERT(t->kind == GILT_TYPE_INTEGER);
  return t->integer.width;
}

GiltSignedness gilt_integer_type_get_signedness(GiltType *t)
{
  GILT_ASSERT(t->kind == GILT_TYPE_INTEGER);
  return t->integer.sign;
}

GiltFloatKind gilt_float_type_get_kind(GiltType *t)
{
  GILT_ASSERT(t->kind == GILT_TYPE_FLOAT);
  return t->fkind;
}

unsigned gilt_type_get_bit_width(GiltType *t)
{
  static const unsigned float_bits[] = {16, 16, 32, 64, 8, 8, 8, 8};
  if (t->kind == GILT_TYPE_INTEGER)
    return t->integer.width;
  if (t->kind == GILT_TYPE_FLOAT)
    return float_bits[t->fkind];
  if (t->kind == GILT_TYPE_INDEX)
    return 64;
  return 0;
}

int64_t gilt_int_extend(uint64_t v, unsigned width, bool sign)
{
  if (width >= 64)
    return (int64_t)v;
  uint64_t mask = (UINT64_C(1) << width) - 1;
  v &= mask;
  if (sign && width > 0 && (v >> (width - 1)) & 1)
    v |= ~mask;
  return (int64_t)v;
}

size_t gilt_type_get_storage_size(GiltType *t)
{
  unsigned bits = gilt_type_get_bit_width(t);
  return bits <= 8 ? 1 : (bits + 7) / 8;
}

bool gilt_shaped_type_has_rank(GiltType *t)
{
  GILT_ASSERT(gilt_type_is_shaped(t));
  return t->shaped.ranked;
}

size_t gilt_shaped_type_get_rank(GiltType *t)
{
  GILT_ASSERT(gilt_type_is_shaped(t));
  return t->shaped.rank;
}

int64_t gilt_shaped_type_get_dim(GiltType *t, size_t i)
{
  GILT_ASSERT(gilt_type_is_shaped(t) && i < t->shaped.rank);
  return t->shaped.shape[i];
}

const int64_t *gilt_shaped_type_get_shape(GiltType *t)
{
  GILT_ASSERT(gilt_type_is_shaped(t));
  return t->shaped.shape;
}

GiltType *gilt_shaped_type_get_element_type(GiltType *t)
{
  GILT_ASSERT(gilt_type_is_shaped(t));
  return t->shaped.elem;
}

bool gilt_shaped_type_has_static_shape(GiltType *t)
{
  if (!gilt_type_is_shaped(t) || !t->shaped.ranked)
    return false;
  for (size_t i = 0; i < t->shaped.rank; i++)
    if (t->shaped.shape[i] < 0)
      return false;
  return true;
}

int64_t gilt_shaped_type_get_num_elements(GiltType *t)
{
  int64_t n;
  if (!gilt_shaped_type_has_static_shape(t) ||
      gilt_dims_product(t->shaped.rank, t->shaped.shape, &n))
    return -1;
  return n;
}

bool gilt_shaped_type_get_byte_size(GiltType *t, size_t *nbytes)
{
  int64_t n = gilt_shaped_type_get_num_elements(t);
  return n >= 0 && (uint64_t)n <= SIZE_MAX &&
         !gilt_size_mul_overflow((size_t)n,
                                 gilt_type_get_storage_size(t->shaped.elem),
                                 nbytes);
}

GiltAttr *gilt_tensor_type_get_encoding(GiltType *t)
{
  GILT_ASSERT(t->kind == GILT_TYPE_TENSOR);
  return t->shaped.encoding;
}

GiltAttr *gilt_memref_type_get_layout(GiltType *t)
{
  GILT_ASSERT(t->kind == GILT_TYPE_MEMREF);
  return t->shaped.layout;
}

GiltAttr *gilt_memref_type_get_memory_space(GiltType *t)
{
  GILT_ASSERT(t->kind == GILT_TYPE_MEMREF);
  return t->shaped.memory_space;
}

size_t gilt_function_type_get_num_inputs(GiltType *t)
{
  GILT_ASSERT(t->kind == GILT_TYPE_FUNCTION);
  return t->func.num_inputs;
}

GiltType *gilt_function_type_get_input(GiltType *t, size_t i)
{
  GILT_ASSERT(t->kind == GILT_TYPE_FUNCTION && i < t->func.num_inputs);
  return t->func.types[i];
}

size_t gilt_function_type_get_num_results(GiltType *t)
{
  GILT_ASSERT(t->kind == GILT_TYPE_FUNCTION);
  return t->func.num_results;
}

GiltType *gilt_function_type_get_result(GiltType *t, size_t i)
{
  GILT_ASSERT(t->kind == GILT_TYPE_FUNCTION && i < t->func.num_results);
  return t->func.types[t->func.num_inputs + i];
}
