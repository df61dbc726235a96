/*
** name_map.c - open addressing (linear probing) over an array of key
** indices, so that growing the table moves 4-byte slots, not keys, and the
** indices handed out stay valid forever.
*/
#include "ir/support/name_map.h"

#include <string.h>

void gilt_name_map_init(GiltNameMap *m, GiltContext *ctx)
{
  memset(m, 0, sizeof *m);
  m->ctx = ctx;
}

void gilt_name_map_free(GiltNameMap *m)
{
  gilt_free(m->ctx, m->slots);
  gilt_vec_free(m->ctx, &m->keys);
  m->slots = NULL;
  m->cap = 0;
}

static uint32_t key_hash(const char *str, size_t len, uint32_t extra)
{
  return gilt_hash_u64(gilt_hash_bytes(GILT_HASH_SEED, str, len), extra);
}

static bool key_eq(const GiltNameKey *k, const char *str, size_t len,
                   uint32_t extra)
{
  return k->extra == extra && k->len == len && memcmp(k->str, str, len) == 0;
}

/* The slot holding the key, or the empty slot where it would go. */
static size_t probe(const GiltNameMap *m, const char *str, size_t len,
                    uint32_t extra, uint32_t hash)
{
  size_t mask = m->cap - 1, i = hash & mask;
  for (;; i = (i + 1) & mask) {
    const GiltNameSlot *s = &m->slots[i];
    if (!s->index || (s->hash == hash &&
                      key_eq(&m->keys.data[s->index - 1], str, len, extra)))
      return i;
  }
}

uint32_t gilt_name_map_find(const GiltNameMap *m, const char *str,
                            size_t len, uint32_t extra)
{
  if (!m->cap)
    return GILT_NAME_MAP_NONE;
  uint32_t slot = m->slots[probe(m, str, len, extra,
                                 key_hash(str, len, extra))].index;
  return slot ? slot - 1 : GILT_NAME_MAP_NONE;
}

static void grow(GiltNameMap *m)
{
  size_t cap = m->cap ? m->cap * 2 : 64;
  gilt_free(m->ctx, m->slots);
  m->slots = gilt_calloc(m->ctx, cap, sizeof *m->slots);
  m->cap = cap;
  for (size_t k = 0; k < m->keys.len; k++) {
    uint32_t hash = m->keys.data[k].hash;
    size_t i = hash & (cap - 1);
    while (m->slots[i].index)
      i = (i + 1) & (cap - 1);
    m->slots[i] = (GiltNameSlot){(uint32_t)k + 1, hash};
  }
}

uint32_t gilt_name_map_insert(GiltNameMap *m, const char *str, size_t len,
                              uint32_t extra, bool *added)
{
  /* Keys are source text, so more than 4 GiB of them cannot happen. */
  GILT_ASSERT(len <= UINT32_MAX && m->keys.len < UINT32_MAX - 1);
  if ((m->keys.len + 1) * 2 > m->cap)
    grow(m);
  uint32_t hash = key_hash(str, len, extra);
  size_t i = probe(m, str, len, extra, hash);
  *added = !m->slots[i].index;
  if (*added) {
    GiltNameKey k = {str, (uint32_t)len, extra, hash};
    gilt_vec_push(m->ctx, &m->keys, k);
    m->slots[i] = (GiltNameSlot){(uint32_t)m->keys.len, hash};
  }
  return m->slots[i].index - 1;
}
