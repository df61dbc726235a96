/*
** alloc.c - allocation through the context, vectors, string buffers,
** arenas and hashing.
**
** Every byte gilt allocates passes through the context's realloc-like hook
** so embedders can account for or redirect it. Out of memory aborts: a
** compiler cannot do anything useful without memory, and checking every
** allocation would bury the code. This file is deliberately the only place
** that knows that policy.
*/
/* madvise and MADV_HUGEPAGE are not POSIX; ask for them explicitly. */
#define _DEFAULT_SOURCE
#include "ir/support/alloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ir/context.h"

_Noreturn void gilt_assert_fail(const char *cond, const char *file, int line)
{
  fprintf(stderr, "%s:%d: internal error: assertion '%s' failed\n", file,
          line, cond);
  abort();
}

void *gilt_realloc(GiltContext *ctx, void *ptr, size_t size)
{
  if (size == 0) {
    ctx->realloc_fn(ctx->realloc_user, ptr, 0);
    return NULL;
  }
  void *p = ctx->realloc_fn(ctx->realloc_user, ptr, size);
  if (!p) {
    fprintf(stderr, "gilt: out of memory allocating %zu bytes\n", size);
    abort();
  }
  return p;
}

void *gilt_malloc(GiltContext *ctx, size_t size)
{
  return gilt_realloc(ctx, NULL, size ? size : 1);
}

enum { HUGE_PAGE = 2 * 1024 * 1024 };

/* Asks for transparent huge pages on the 2 MB pages wholly inside
** [p, p + size), before they are first touched: first touches of fresh
** memory dominate the cost of building large IR and weights on virtual
** machines, and huge pages make them 512 times rarer. Advice only:
** failure, or a kernel without THP, changes nothing. */
static void advise_huge_pages(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
  uintptr_t start = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
  uintptr_t end = ((uintptr_t)p + size) & ~(uintptr_t)(HUGE_PAGE - 1);
  if (end > start)
    madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
  (void)p;
  (void)size;
#endif
}

/* The zeros are a large buffer's first touch, so the advice comes
** before them: ResNet-18's Winograd and packed weights (gilt_blob_alloc)
** took a sixth of its compile's CPU in these zeros and the page faults
** under them. */
void *gilt_calloc(GiltContext *ctx, size_t count, size_t size)
{
  GILT_ASSERT(size == 0 || count <= SIZE_MAX / size);
  size_t bytes = count * size;
  void *p = gilt_malloc(ctx, bytes);
  advise_huge_pages(p, bytes);
  if (bytes)
    memset(p, 0, bytes);
  return p;
}

void gilt_free(GiltContext *ctx, void *ptr)
{
  if (ptr)
    ctx->realloc_fn(ctx->realloc_user, ptr, 0);
}

char *gilt_strndup(GiltContext *ctx, const char *s, size_t len)
{
  char *p = gilt_malloc(ctx, len + 1);
  memcpy(p, s, len);
  p[len] = '\0';
  return p;
}

void gilt_vec_reserve_(GiltContext *ctx, void **data, size_t *cap,
                       size_t need, size_t elem_size)
{
  if (need <= *cap)
    return;
  size_t n = *cap ? *cap : 4;
  while (n < need)
    n *= 2;
  GILT_ASSERT(n <= SIZE_MAX / elem_size);
  *data = gilt_realloc(ctx, *data, n * elem_size);
  *cap = n;
}

/* ---- string buffers ----------------------------------------------------- */

void gilt_strbuf_init(GiltStrBuf *sb, GiltContext *ctx)
{
  sb->ctx = ctx;
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

void gilt_strbuf_append(GiltStrBuf *sb, const char *s, size_t len)
{
  gilt_vec_reserve_(sb->ctx, (void **)&sb->data, &sb->cap, sb->len + len + 1,
                    1);
  memcpy(sb->data + sb->len, s, len);
  sb->len += len;
  sb->data[sb->len] = '\0';
}

void gilt_strbuf_printf(GiltStrBuf *sb, const char *fmt, ...)
{
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n > 0) {
    gilt_vec_reserve_(sb->ctx, (void **)&sb->data, &sb->cap,
                      sb->len + (size_t)n + 1, 1);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
    sb->len += (size_t)n;
  }
  va_end(ap2);
}

void gilt_strbuf_free(GiltStrBuf *sb)
{
  gilt_free(sb->ctx, sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

void gilt_strbuf_callback(const char *data, size_t len, void *user)
{
  gilt_strbuf_append(user, data, len);
}

void gilt_print_to_file(const char *data, size_t len, void *user)
{
  fwrite(data, 1, len, user);
}

/* ---- arenas ------------------------------------------------------------- */

struct GiltArenaChunk {
  GiltArenaChunk *next;
  max_align_t data[];
};

enum {
  ARENA_FIRST_CHUNK = 64 * 1024,
  ARENA_MAX_CHUNK = 4 * 1024 * 1024,
  ARENA_ALIGN = _Alignof(max_align_t),
  /* Large objects start on a cache line: weights folded at compile time
  ** are then aligned as compiled code reads them, and the JIT links them
  ** in place instead of copying (jit/jit.c). */
  LARGE_ALIGN = 64
};

void gilt_arena_init(GiltArena *a, GiltContext *ctx)
{
  a->ctx = ctx;
  a->chunks = NULL;
  a->cur = a->end = NULL;
  a->chunk_size = ARENA_FIRST_CHUNK;
}

/* A chunk holding `size` bytes, linked after the current chunk when
** `behind` (so the current one keeps serving small requests). */
static GiltArenaChunk *new_chunk(GiltArena *a, size_t size, bool behind)
{
  GiltArenaChunk *c = gilt_malloc(a->ctx, sizeof *c + size);
  advise_huge_pages(c->data, size);
  if (behind && a->chunks) {
    c->next = a->chunks->next;
    a->chunks->next = c;
  } else {
    c->next = a->chunks;
    a->chunks = c;
  }
  return c;
}

/* Uninitialized, aligned memory. */
static void *arena_bump(GiltArena *a, size_t size)
{
  size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (size == 0)
    size = ARENA_ALIGN;
  if (size > a->chunk_size / 4) { /* large objects: weights, big tables */
    char *p = (char *)new_chunk(a, size + LARGE_ALIGN, true)->data;
    return p + (LARGE_ALIGN - (uintptr_t)p % LARGE_ALIGN) % LARGE_ALIGN;
  }
  if ((size_t)(a->end - a->cur) < size) {
    GiltArenaChunk *c = new_chunk(a, a->chunk_size, false);
    a->cur = (char *)c->data;
    a->end = a->cur + a->chunk_size;
    if (a->chunk_size < ARENA_MAX_CHUNK)
      a->chunk_size *= 2;
  }
  void *p = a->cur;
  a->cur += size;
  return p;
}

void *gilt_arena_alloc(GiltArena *a, size_t size)
{
  void *p = arena_bump(a, size);
  memset(p, 0, size);
  return p;
}

void *gilt_arena_dup(GiltArena *a, const void *src, size_t size)
{
  void *p = arena_bump(a, size);
  if (size)
    memcpy(p, src, size);
  return p;
}

void gilt_arena_free_all(GiltArena *a)
{
  for (GiltArenaChunk *c = a->chunks, *next; c; c = next) {
    next = c->next;
    gilt_free(a->ctx, c);
  }
  a->chunks = NULL;
  a->cur = a->end = NULL;
}

/* ---- hashing ------------------------------------------------------------ */

uint32_t gilt_hash_bytes(uint32_t h, const void *data, size_t len)
{
  /* Eight bytes per step: dense constants can be megabytes long. */
  const unsigned char *p = data;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = gilt_hash_u64(h, w);
  }
  for (; i < len; i++)
    h = (h ^ p[i]) * 16777619u;
  return h;
}

uint32_t gilt_hash_u64(uint32_t h, uint64_t v)
{
  /* Combine, then avalanche with MurmurHash3's 64-bit finalizer: tables
  ** index by the low bits, so every input bit must reach them. */
  uint64_t x = ((uint64_t)h * 0x9e3779b97f4a7c15ull) ^ v;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return (uint32_t)x;
}

uint32_t gilt_hash_ptr(uint32_t h, const void *p)
{
  return gilt_hash_u64(h, (uint64_t)(uintptr_t)p);
}
