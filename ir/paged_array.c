/*
** paged_array.c - pages of 4096 slots under a directory that grows on
** demand.
*/
#include "ir/paged_array.h"

#include <string.h>

enum { PAGE_BITS = 12, PAGE_SLOTS = 1u << PAGE_BITS };

void gilt_paged_array_init(GiltPagedArray *a, GiltContext *ctx)
{
  memset(a, 0, sizeof *a);
  a->ctx = ctx;
}

void gilt_paged_array_free(GiltPagedArray *a)
{
  for (size_t i = 0; i < a->pages.len; i++)
    gilt_free(a->ctx, a->pages.data[i]);
  gilt_vec_free(a->ctx, &a->pages);
}

uintptr_t *gilt_paged_array_slot(GiltPagedArray *a, uint32_t index)
{
  size_t page = index >> PAGE_BITS;
  if (page >= a->pages.len) {
    gilt_vec_reserve(a->ctx, &a->pages, page + 1);
    memset(a->pages.data + a->pages.len, 0,
           (page + 1 - a->pages.len) * sizeof *a->pages.data);
    a->pages.len = page + 1;
  }
  if (!a->pages.data[page])
    a->pages.data[page] = gilt_calloc(a->ctx, PAGE_SLOTS, sizeof(uintptr_t));
  return &a->pages.data[page][index & (PAGE_SLOTS - 1)];
}

uintptr_t gilt_paged_array_get(const GiltPagedArray *a, uint32_t index)
{
  size_t page = index >> PAGE_BITS;
  if (page >= a->pages.len || !a->pages.data[page])
    return 0;
  return a->pages.data[page][index & (PAGE_SLOTS - 1)];
}
