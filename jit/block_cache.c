/*
** block_cache.c - reuse of large buffers across calls (block_cache.h).
**
** A model allocates the same large buffers on every call (its
** activations, packed operands, results) and frees them before it
** returns. glibc serves such sizes with fresh mmap()s, or returns the
** top of its heap to the kernel on free, so each call faulted every page
** in again: 200,000 page faults in 50 calls of MobileNetV2, a fifth of
** its time. Keeping the freed buffers here and handing them out again
** turns that into a lookup. The static memory plan of a whole model is
** the full answer; this serves every program, AOT ones included.
**
** A new buffer of 2 MB or more is aligned to 2 MB and advised onto
** transparent huge pages: the first call of a model touches every page
** of its activations, and on the virtual machines gilt is measured on a
** page fault costs some 10 us, so ResNet-18's 19 MB of them took 60 ms
** in 4 KB faults. The rounding up to a whole huge page costs address
** space, and at most one partly used huge page of memory per buffer.
**
** The cache is one list under a mutex (a few dozen large allocations per
** call), bounded by a count and a total size; past either, the oldest
** buffer is freed. Sizes come from malloc_usable_size, so nothing is
** stored beside a buffer and a kept one can be handed out as a call's
** result, which its caller frees with free().
*/
#define _GNU_SOURCE
#include "jit/block_cache.h"

#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { SLOTS = 64 };
#define HUGE_PAGE ((size_t)2 << 20)
#define MAX_BYTES ((size_t)1 << 30)

typedef struct Block {
  void *p;
  size_t size;
} Block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Block blocks[SLOTS]; /* oldest first */
static size_t num_blocks, total_bytes;

static void remove_at(size_t i)
{
  total_bytes -= blocks[i].size;
  for (size_t j = i + 1; j < num_blocks; j++)
    blocks[j - 1] = blocks[j];
  num_blocks--;
}

void *jit_block_allocate(size_t size)
{
  if (size < HUGE_PAGE || size > SIZE_MAX - HUGE_PAGE)
    return aligned_alloc(JIT_BLOCK_CACHE_ALIGN, size);
  size_t rounded = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  void *p = aligned_alloc(HUGE_PAGE, rounded);
#ifdef MADV_HUGEPAGE
  if (p)
    (void)madvise(p, rounded, MADV_HUGEPAGE); /* a hint only */
#endif
  return p;
}

void *jit_block_take(size_t size)
{
  pthread_mutex_lock(&lock);
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < num_blocks; i++)
    if (blocks[i].size >= size && blocks[i].size / 2 <= size &&
        (best == SIZE_MAX || blocks[i].size < blocks[best].size))
      best = i;
  void *p = NULL;
  if (best != SIZE_MAX) {
    p = blocks[best].p;
    remove_at(best);
  }
  pthread_mutex_unlock(&lock);
  return p;
}

void jit_block_keep(void *p)
{
  size_t size = malloc_usable_size(p);
  pthread_mutex_lock(&lock);
  while (num_blocks && (num_blocks == SLOTS || total_bytes + size > MAX_BYTES)) {
    free(blocks[0].p);
    remove_at(0);
  }
  if (size <= MAX_BYTES) {
    blocks[num_blocks++] = (Block){p, size};
    total_bytes += size;
    p = NULL;
  }
  pthread_mutex_unlock(&lock);
  free(p);
}

void jit_block_release_all(void)
{
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < num_blocks; i++)
    free(blocks[i].p);
  num_blocks = 0;
  total_bytes = 0;
  pthread_mutex_unlock(&lock);
}
