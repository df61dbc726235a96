/*
** hash.c - XXH64 (hash.h). Follows xxHash's specification
** (xxhash.h, "XXH64 algorithm description"): the same constants, rounds,
** merge and avalanche, so its values can be checked against the
** reference implementation's (XXH64("", 0) = 0xEF46DB3751D8E999).
*/
#include "jit/hash.h"

#include <string.h>

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/* Little-endian reads, as the specification defines them. One load each
** (a byte-by-byte assembly is not always recognized as one, and hashing a
** 45 MB model then takes 65 ms instead of 5); swapped on big-endian hosts. */
static uint64_t read64(const unsigned char *p)
{
  uint64_t v;
  memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static uint32_t read32(const unsigned char *p)
{
  uint32_t v;
  memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  return v;
}

static uint64_t round64(uint64_t acc, uint64_t input)
{
  acc += input * P2;
  acc = rotl(acc, 31);
  return acc * P1;
}

static uint64_t merge(uint64_t acc, uint64_t lane)
{
  acc ^= round64(0, lane);
  return acc * P1 + P4;
}

uint64_t jit_hash64(const void *data, size_t len, uint64_t seed)
{
  const unsigned char *p = data, *end = p + len;
  uint64_t h;
  if (len >= 32) {
    uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
    const unsigned char *limit = end - 32;
    do {
      v1 = round64(v1, read64(p));
      v2 = round64(v2, read64(p + 8));
      v3 = round64(v3, read64(p + 16));
      v4 = round64(v4, read64(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge(h, v1);
    h = merge(h, v2);
    h = merge(h, v3);
    h = merge(h, v4);
  } else {
    h = seed + P5;
  }
  h += (uint64_t)len;
  for (; p + 8 <= end; p += 8)
    h = rotl(h ^ round64(0, read64(p)), 27) * P1 + P4;
  if (p + 4 <= end) {
    h = rotl(h ^ (uint64_t)read32(p) * P1, 23) * P2 + P3;
    p += 4;
  }
  for (; p < end; p++)
    h = rotl(h ^ (uint64_t)*p * P5, 11) * P1;
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}
