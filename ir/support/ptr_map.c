/*
** ptr_map.c - the pointer map of ptr_map.h.
**
** Linear probing keeps a key's cluster contiguous, which is what lets
** removal shift later members of the cluster back instead of leaving a
** tombstone (Knuth, TAOCP vol. 3, 6.4 Algorithm R). The table is kept at
** most half full.
*/
#include "ir/support/ptr_map.h"

#include <string.h>

void gilt_ptr_map_init(GiltPtrMap *m, GiltContext *ctx)
{
  memset(m, 0, sizeof *m);
  m->ctx = ctx;
}

void gilt_ptr_map_free(GiltPtrMap *m)
{
  gilt_free(m->ctx, m->keys);
  gilt_free(m->ctx, m->vals);
  gilt_ptr_map_init(m, m->ctx);
}

static size_t home(const GiltPtrMap *m, const void *key)
{
  return gilt_hash_ptr(GILT_HASH_SEED, key) & (m->cap - 1);
}

/* The slot holding `key`, or the empty slot where it would go. */
static size_t find(const GiltPtrMap *m, const void *key)
{
  size_t mask = m->cap - 1;
  size_t i = home(m, key);
  while (m->keys[i] && m->keys[i] != key)
    i = (i + 1) & mask;
  return i;
}

static void grow(GiltPtrMap *m)
{
  GiltPtrMap old = *m;
  m->cap = old.cap ? old.cap * 2 : 16;
  m->keys = gilt_calloc(m->ctx, m->cap, sizeof *m->keys);
  m->vals = gilt_calloc(m->ctx, m->cap, sizeof *m->vals);
  for (size_t i = 0; i < old.cap; i++) {
    if (!old.keys[i])
      continue;
    size_t j = find(m, old.keys[i]);
    m->keys[j] = old.keys[i];
    m->vals[j] = old.vals[i];
  }
  gilt_free(m->ctx, old.keys);
  gilt_free(m->ctx, old.vals);
}

bool gilt_ptr_map_get(const GiltPtrMap *m, const void *key, size_t *val)
{
  if (!m->cap)
    return false;
  size_t i = find(m, key);
  if (!m->keys[i])
    return false;
  if (val)
    *val = m->vals[i];
  return true;
}

void gilt_ptr_map_put(GiltPtrMap *m, const void *key, size_t val)
{
  GILT_ASSERT(key);
  if ((m->len + 1) * 2 > m->cap)
    grow(m);
  size_t i = find(m, key);
  if (!m->keys[i]) {
    m->keys[i] = key;
    m->len++;
  }
  m->vals[i] = val;
}

/* Whether `h` lies cyclically in (hole, j]: then the key at j may not move
** back to the hole without becoming unreachable from its home h. */
static bool between(size_t hole, size_t h, size_t j)
{
  return hole <= j ? hole < h && h <= j : hole < h || h <= j;
}

bool gilt_ptr_map_remove(GiltPtrMap *m, const void *key)
{
  if (!m->cap)
    return false;
  size_t mask = m->cap - 1;
  size_t hole = find(m, key);
  if (!m->keys[hole])
    return false;
  for (size_t j = (hole + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
    if (between(hole, home(m, m->keys[j]), j))
      continue;
    m->keys[hole] = m->keys[j];
    m->vals[hole] = m->vals[j];
    hole = j;
  }
  m->keys[hole] = NULL;
  m->len--;
  return true;
}
