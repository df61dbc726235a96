/*
** pool.c - size-class free lists over arena chunks, plus a list of large
** objects, for the IR the context owns. See pool.h for why.
*/
#include "ir/support/pool.h"

#include <string.h>

struct GiltPoolLarge {
  GiltPoolLarge *prev, *next;
  max_align_t data[];
};

void gilt_pool_init(GiltPool *pool, GiltContext *ctx)
{
  memset(pool, 0, sizeof *pool);
  gilt_arena_init(&pool->chunks, ctx);
}

static size_t size_class(size_t size)
{
  return (size + GILT_POOL_GRAIN - 1) / GILT_POOL_GRAIN;
}

void *gilt_pool_alloc(GiltPool *pool, size_t size)
{
  if (size > GILT_POOL_MAX_SMALL) {
    GiltPoolLarge *l =
        gilt_calloc(pool->chunks.ctx, 1, sizeof *l + size);
    l->next = pool->large;
    if (l->next)
      l->next->prev = l;
    pool->large = l;
    return l->data;
  }
  size_t c = size_class(size ? size : 1);
  void *p = pool->free_lists[c];
  if (!p) /* the arena hands out zeroed memory */
    return gilt_arena_alloc(&pool->chunks, c * GILT_POOL_GRAIN);
  memcpy(&pool->free_lists[c], p, sizeof(void *));
  memset(p, 0, c * GILT_POOL_GRAIN);
  return p;
}

void gilt_pool_free(GiltPool *pool, void *p, size_t size)
{
  if (!p)
    return;
  if (size > GILT_POOL_MAX_SMALL) {
    GiltPoolLarge *l =
        (GiltPoolLarge *)((char *)p - offsetof(GiltPoolLarge, data));
    if (l->prev)
      l->prev->next = l->next;
    else
      pool->large = l->next;
    if (l->next)
      l->next->prev = l->prev;
    gilt_free(pool->chunks.ctx, l);
    return;
  }
  size_t c = size_class(size ? size : 1);
  memcpy(p, &pool->free_lists[c], sizeof(void *));
  pool->free_lists[c] = p;
}

void gilt_pool_destroy(GiltPool *pool)
{
  for (GiltPoolLarge *l = pool->large, *next; l; l = next) {
    next = l->next;
    gilt_free(pool->chunks.ctx, l);
  }
  gilt_arena_free_all(&pool->chunks);
  memset(pool->free_lists, 0, sizeof pool->free_lists);
  pool->large = NULL;
}
