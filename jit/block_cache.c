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
** The cache is one list under a mutex (a few dozen large allocations per
** call), bounded by a count and a total size; past either, the oldest
** buffer is freed. Sizes come from malloc_usable_size, so nothing is
** stored beside a buffer and a kept one can be handed out as a call's
** result, which its caller frees with gilt_rt_free (back into the cache)
** or with free().
*/
#define _GNU_SOURCE
#include "jit/block_cache.h"

#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

enum { SLOTS = 64 };
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
