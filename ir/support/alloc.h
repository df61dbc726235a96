/*
** alloc.h - memory: the context's allocator hook, growable vectors and
** arenas.
**
** All memory gilt allocates goes through the context's realloc-like hook.
** Running out of memory is not a recoverable error in a compiler: the
** helpers here abort with a message rather than make every caller check.
** Arenas hold immortal, uniqued objects (types, attributes, identifiers);
** they grow by chunks, have no cap, and are freed with the context.
*/
#ifndef GILT_IR_ALLOC_H
#define GILT_IR_ALLOC_H

#include "gilt/ir.h"

/* Internal visibility for cross-file functions of the library. */
#define GILT_INTERNAL __attribute__((visibility("hidden")))

GILT_INTERNAL void *gilt_realloc(GiltContext *ctx, void *ptr, size_t size);
GILT_INTERNAL void *gilt_malloc(GiltContext *ctx, size_t size);
/* Zero-filled; from 2 MB on, on transparent huge pages where the kernel
** gives them. */
GILT_INTERNAL void *gilt_calloc(GiltContext *ctx, size_t count, size_t size);
GILT_INTERNAL void gilt_free(GiltContext *ctx, void *ptr);
GILT_INTERNAL char *gilt_strndup(GiltContext *ctx, const char *s, size_t len);

/* A growable array of T: `GILT_VEC(int) v = {0};`. */
#define GILT_VEC(T) struct { T *data; size_t len, cap; }
GILT_INTERNAL void gilt_vec_reserve_(GiltContext *ctx, void **data,
                                     size_t *cap, size_t need,
                                     size_t elem_size);
#define gilt_vec_reserve(ctx, v, n)                                          \
  gilt_vec_reserve_((ctx), (void **)&(v)->data, &(v)->cap, (n),              \
                    sizeof *(v)->data)
#define gilt_vec_push(ctx, v, x)                                             \
  (gilt_vec_reserve((ctx), (v), (v)->len + 1), (v)->data[(v)->len++] = (x))
#define gilt_vec_free(ctx, v)                                                \
  (gilt_free((ctx), (v)->data), (v)->data = NULL, (v)->len = (v)->cap = 0)

/* A growable string buffer, NUL-terminated after every append. */
typedef struct GiltStrBuf {
  GiltContext *ctx;
  char *data;
  size_t len, cap;
} GiltStrBuf;
GILT_INTERNAL void gilt_strbuf_init(GiltStrBuf *sb, GiltContext *ctx);
GILT_INTERNAL void gilt_strbuf_append(GiltStrBuf *sb, const char *s,
                                      size_t len);
GILT_INTERNAL void gilt_strbuf_printf(GiltStrBuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
GILT_INTERNAL void gilt_strbuf_free(GiltStrBuf *sb);
/* A GiltStringCallback appending to the GiltStrBuf passed as `user`. */
GILT_INTERNAL void gilt_strbuf_callback(const char *data, size_t len,
                                        void *user);

/* Bump allocation of objects that live as long as the context. */
typedef struct GiltArenaChunk GiltArenaChunk;
typedef struct GiltArena {
  GiltContext *ctx;
  GiltArenaChunk *chunks;
  char *cur, *end;
  size_t chunk_size; /* of the next chunk: grows from 64 KiB to 4 MiB */
} GiltArena;
GILT_INTERNAL void gilt_arena_init(GiltArena *a, GiltContext *ctx);
/* Zero-filled, aligned for any object. Large requests get their own chunk
** and start at a multiple of 64 bytes. */
GILT_INTERNAL void *gilt_arena_alloc(GiltArena *a, size_t size);
GILT_INTERNAL void *gilt_arena_dup(GiltArena *a, const void *src,
                                   size_t size);
GILT_INTERNAL void gilt_arena_free_all(GiltArena *a);

/* Internal invariant checks, on in every build: a failure names file and
** line and aborts. A user's bad input must never reach one. Checks too
** slow for a release build test GILT_DEBUG (configure --enable-debug) in
** a plain `if`, so that they compile in every build and cannot rot. */
#ifndef GILT_DEBUG
#define GILT_DEBUG 0
#endif
#define GILT_ASSERT(cond)                                                    \
  ((cond) ? (void)0 : gilt_assert_fail(#cond, __FILE__, __LINE__))
GILT_INTERNAL _Noreturn void gilt_assert_fail(const char *cond,
                                              const char *file, int line);

/* FNV-1a style hashing for uniquing tables. */
GILT_INTERNAL uint32_t gilt_hash_bytes(uint32_t h, const void *data,
                                       size_t len);
GILT_INTERNAL uint32_t gilt_hash_ptr(uint32_t h, const void *p);
GILT_INTERNAL uint32_t gilt_hash_u64(uint32_t h, uint64_t v);
#define GILT_HASH_SEED 2166136261u

#endif /* GILT_IR_ALLOC_H */
