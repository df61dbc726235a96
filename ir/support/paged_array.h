/*
** paged_array.h - a sparse array of pointer-sized slots indexed by a
** 32-bit number, allocated a page at a time.
**
** For tables indexed by numbers that mostly come densely and in order: the
** lines of a source file (file locations) and the printer's numeric SSA
** names (`%41`). Numbers asked for in order hit the page looked up last
** and walk memory sequentially, where a hash table would jump around it.
** A page (256 slots) is allocated, zero-filled, the first time a slot in
** it is asked for, and found through a hash map of the pages in use, so a
** number costs at most one page whatever its size: `loc("f":4000000000:1)`
** allocates 2 KB, not a directory reaching that far.
**
** Not a map: every slot exists and reads as NULL/0 until set.
*/
#ifndef GILT_IR_PAGED_ARRAY_H
#define GILT_IR_PAGED_ARRAY_H

#include "ir/support/ptr_map.h"

typedef struct GiltPagedArray {
  GiltContext *ctx;
  GiltPtrMap pages;              /* page number + 1 -> its slots */
  GILT_VEC(uintptr_t *) owned;   /* every page, to free them */
  uint32_t last_page;            /* the page looked up last, and its slots */
  uintptr_t *last;
} GiltPagedArray;

GILT_INTERNAL void gilt_paged_array_init(GiltPagedArray *a, GiltContext *ctx);
GILT_INTERNAL void gilt_paged_array_free(GiltPagedArray *a);
/* The slot for `index`, allocating its page: valid until the array is
** freed (pages never move). */
GILT_INTERNAL uintptr_t *gilt_paged_array_slot(GiltPagedArray *a,
                                               uint32_t index);
/* The slot's value without allocating: 0 for a slot never set. */
GILT_INTERNAL uintptr_t gilt_paged_array_get(GiltPagedArray *a,
                                             uint32_t index);

#endif /* GILT_IR_PAGED_ARRAY_H */
