/*
** ptr_map.h - a hash map from pointers to sizes, with removal.
**
** The passes and drivers keep per-op and per-value facts in these (an op's
** slot in a worklist, a value's materialization, a function's node in the
** call graph). Keys are compared by address, never dereferenced, so a key
** may be a pointer to memory that is gone, as long as it is removed before
** the address can be reused. Open addressing with linear probing and
** backward-shift deletion: no tombstones, so a map that sees many inserts
** and removals stays short.
**
** Not a uniquing table (that is GiltHashSet in ir/context.h, which hashes
** contents) and not an ordered map: iteration order is unspecified.
*/
#ifndef GILT_IR_PTR_MAP_H
#define GILT_IR_PTR_MAP_H

#include "ir/support/alloc.h"

typedef struct GiltPtrMap {
  GiltContext *ctx;
  const void **keys; /* NULL marks an empty slot */
  size_t *vals;
  size_t cap, len;   /* cap is zero or a power of two */
} GiltPtrMap;

GILT_INTERNAL void gilt_ptr_map_init(GiltPtrMap *m, GiltContext *ctx);
GILT_INTERNAL void gilt_ptr_map_free(GiltPtrMap *m);
/* Whether `key` is present; if so and `val` is not NULL, *val is its
** value. */
GILT_INTERNAL bool gilt_ptr_map_get(const GiltPtrMap *m, const void *key,
                                    size_t *val);
/* Inserts or overwrites. `key` must not be NULL. */
GILT_INTERNAL void gilt_ptr_map_put(GiltPtrMap *m, const void *key,
                                    size_t val);
/* Returns whether `key` was present. */
GILT_INTERNAL bool gilt_ptr_map_remove(GiltPtrMap *m, const void *key);

#endif /* GILT_IR_PTR_MAP_H */
