/*
** block_cache.h - large buffers that compiled code freed, kept for the
** next allocation of about their size (block_cache.c). Internal to the
** runtime (jit/runtime.c) and the JIT, which empties it.
*/
#ifndef GILT_JIT_BLOCK_CACHE_H
#define GILT_JIT_BLOCK_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/* Buffers from this size up go through the cache. */
#define JIT_BLOCK_CACHE_MIN ((size_t)128 * 1024)
/* The alignment every buffer of that size gets, cached or new. */
#define JIT_BLOCK_CACHE_ALIGN 64

/* A kept buffer of at least `size` bytes (and at most twice that), taken
** out of the cache; NULL when none fits. */
void *jit_block_take(size_t size);
/* Keeps p, a buffer of JIT_BLOCK_CACHE_MIN bytes or more from
** aligned_alloc(JIT_BLOCK_CACHE_ALIGN, ...), for a later take; frees the
** oldest kept buffers to stay within the cache's bounds. */
void jit_block_keep(void *p);
/* Frees every kept buffer. */
void jit_block_release_all(void);

#endif /* GILT_JIT_BLOCK_CACHE_H */
