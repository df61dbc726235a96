/*
** paged_array.c - pages of 256 slots in a hash map keyed by page number,
** with the page used last cached in front of it.
*/
#include "ir/support/paged_array.h"

#include <string.h>

enum { PAGE_BITS = 8, PAGE_SLOTS = 1u << PAGE_BITS };

void gilt_paged_array_init(GiltPagedArray *a, GiltContext *ctx)
{
  memset(a, 0, sizeof *a);
  a->ctx = ctx;
  gilt_ptr_map_init(&a->pages, ctx);
}

void gilt_paged_array_free(GiltPagedArray *a)
{
  for (size_t i = 0; i < a->owned.len; i++)
    gilt_free(a->ctx, a->owned.data[i]);
  gilt_vec_free(a->ctx, &a->owned);
  gilt_ptr_map_free(&a->pages);
  a->last = NULL;
}

/* The slots of page `page`, allocating them when `create`; NULL if absent
** and not created. Keys are page numbers + 1 posing as pointers: the map
** never dereferences them, and NULL is not a valid key. */
static uintptr_t *find_page(GiltPagedArray *a, uint32_t page, bool create)
{
  if (a->last && a->last_page == page)
    return a->last;
  const void *key = (const void *)((uintptr_t)page + 1);
  size_t found;
  uintptr_t *slots = NULL;
  if (gilt_ptr_map_get(&a->pages, key, &found)) {
    slots = (uintptr_t *)(uintptr_t)found;
  } else if (create) {
    slots = gilt_calloc(a->ctx, PAGE_SLOTS, sizeof *slots);
    gilt_vec_push(a->ctx, &a->owned, slots);
    gilt_ptr_map_put(&a->pages, key, (size_t)(uintptr_t)slots);
  }
  if (slots) {
    a->last_page = page;
    a->last = slots;
  }
  return slots;
}

uintptr_t *gilt_paged_array_slot(GiltPagedArray *a, uint32_t index)
{
  return &find_page(a, index >> PAGE_BITS, true)[index & (PAGE_SLOTS - 1)];
}

uintptr_t gilt_paged_array_get(GiltPagedArray *a, uint32_t index)
{
  uintptr_t *slots = find_page(a, index >> PAGE_BITS, false);
  return slots ? slots[index & (PAGE_SLOTS - 1)] : 0;
}
