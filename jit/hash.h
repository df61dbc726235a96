/*
** hash.h - a fast 64-bit hash of bytes, for the compile cache (cache.c):
** the key of an entry (a model's bytes, weights included, and what else
** decides the machine code) and the checksum of its payload.
**
** This is XXH64 (Yann Collet's xxHash, 64-bit variant, as its
** specification describes it), written out here: four lanes of 8-byte
** multiply-rotate rounds, so a 100 MB model hashes at memory speed, where
** FNV-1a's byte-serial multiply would take ten times as long. It is not a
** cryptographic hash: it finds accidents (a stale or damaged entry), not
** an adversary who writes the cache directory.
*/
#ifndef GILT_JIT_HASH_H
#define GILT_JIT_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "ir/support/alloc.h" /* GILT_INTERNAL */

/* XXH64 of data[0..len) with `seed`; the same value on every host of
** either byte order (words are read little-endian). */
GILT_INTERNAL uint64_t jit_hash64(const void *data, size_t len, uint64_t seed);

/* A u64 written and read little-endian, as the compile cache's files
** hold them (cache.c's entries, model_hash.c's records). */
static inline void jit_put64(unsigned char *b, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    b[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t jit_get64(const unsigned char *b)
{
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | b[i];
  return v;
}

#endif /* GILT_JIT_HASH_H */
