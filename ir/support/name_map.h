/*
** name_map.h - a hash map from (string, number) keys to dense indices.
**
** The parser keeps its symbol tables in these: SSA names with a result
** number, block names with the serial of their region, aliases and blobs
** with a kind. The map only assigns each distinct key an index (0, 1, 2, ...
** in insertion order); callers keep the values in an array of their own
** indexed the same way. Keys are not copied: the strings must outlive the
** map (the parser's keys point into the source buffer). Nothing is ever
** removed; a caller "forgets" an entry by clearing its value.
*/
#ifndef GILT_IR_NAME_MAP_H
#define GILT_IR_NAME_MAP_H

#include "ir/support/alloc.h"

#define GILT_NAME_MAP_NONE UINT32_MAX

typedef struct GiltNameKey {
  const char *str;
  uint32_t len;
  uint32_t extra; /* result number, region serial, kind... */
  uint32_t hash;
} GiltNameKey;

/* A slot keeps the key's hash so that probing rarely touches the keys. */
typedef struct GiltNameSlot {
  uint32_t index; /* key index + 1, 0 when empty */
  uint32_t hash;
} GiltNameSlot;

typedef struct GiltNameMap {
  GiltContext *ctx;
  GiltNameSlot *slots;
  size_t cap; /* a power of two, or 0 */
  GILT_VEC(GiltNameKey) keys;
} GiltNameMap;

GILT_INTERNAL void gilt_name_map_init(GiltNameMap *m, GiltContext *ctx);
GILT_INTERNAL void gilt_name_map_free(GiltNameMap *m);
/* The index of the key, or GILT_NAME_MAP_NONE. */
GILT_INTERNAL uint32_t gilt_name_map_find(const GiltNameMap *m,
                                          const char *str, size_t len,
                                          uint32_t extra);
/* The index of the key, adding it (as the next index) when absent. */
GILT_INTERNAL uint32_t gilt_name_map_insert(GiltNameMap *m, const char *str,
                                            size_t len, uint32_t extra,
                                            bool *added);

#endif /* GILT_IR_NAME_MAP_H */
