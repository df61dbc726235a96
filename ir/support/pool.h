/*
** pool.h - the context's pool for mutable IR: ops, operand arrays, blocks
** and block arguments.
**
** IR is created and erased in great numbers (a parsed model, a rewrite
** that replaces every op), so it gets its own allocator in the manner of
** QBE's pools: objects up to GILT_POOL_MAX_SMALL bytes come from per-size
** free lists refilled from big chunks, larger ones from the context's
** allocator on a list of their own. Freeing needs the size the object was
** allocated with, which IR objects can always recompute. Destroying the
** pool releases everything, so IR its owner forgot dies with the context.
*/
#ifndef GILT_IR_POOL_H
#define GILT_IR_POOL_H

#include "ir/support/alloc.h"

enum { GILT_POOL_GRAIN = 16, GILT_POOL_MAX_SMALL = 1024 };

typedef struct GiltPoolLarge GiltPoolLarge;

typedef struct GiltPool {
  GiltArena chunks;
  void *free_lists[GILT_POOL_MAX_SMALL / GILT_POOL_GRAIN + 1];
  GiltPoolLarge *large; /* doubly linked, see pool.c */
} GiltPool;

GILT_INTERNAL void gilt_pool_init(GiltPool *pool, GiltContext *ctx);
/* Zero-filled memory for an object of `size` bytes. */
GILT_INTERNAL void *gilt_pool_alloc(GiltPool *pool, size_t size);
/* `size` must be the size passed to gilt_pool_alloc. */
GILT_INTERNAL void gilt_pool_free(GiltPool *pool, void *p, size_t size);
GILT_INTERNAL void gilt_pool_destroy(GiltPool *pool);

#endif /* GILT_IR_POOL_H */
