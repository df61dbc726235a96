/*
** paged_array.h - a sparse array of pointer-sized slots indexed by a
** 32-bit number, allocated a page at a time.
**
** For tables indexed by numbers that mostly come densely and in order: the
** lines of a source file (file locations) and the printer's numeric SSA
** names (`%41`). Looking a number up costs two loads, and numbers asked for
** in order walk memory sequentially, where a hash table would jump around
** it. A page is allocated, zero-filled, the first time a slot in it is asked
** for; the directory grows to the highest page used, so even a number near
** 2^32 costs a few megabytes, not a dense array up to it.
**
** Not a map: every slot exists and reads as NULL/0 until set.
*/
#ifndef GILT_IR_PAGED_ARRAY_H
#define GILT_IR_PAGED_ARRAY_H

#include "ir/alloc.h"

typedef struct GiltPagedArray {
  GiltContext *ctx;
  GILT_VEC(uintptr_t *) pages; /* NULL until a slot of the page is used */
} GiltPagedArray;

GILT_INTERNAL void gilt_paged_array_init(GiltPagedArray *a, GiltContext *ctx);
GILT_INTERNAL void gilt_paged_array_free(GiltPagedArray *a);
/* The slot for `index`, allocating its page: valid until the array is
** freed (pages never move). */
GILT_INTERNAL uintptr_t *gilt_paged_array_slot(GiltPagedArray *a,
                                               uint32_t index);
/* The slot's value without allocating: 0 for a slot never set. */
GILT_INTERNAL uintptr_t gilt_paged_array_get(const GiltPagedArray *a,
                                             uint32_t index);

#endif /* GILT_IR_PAGED_ARRAY_H */
