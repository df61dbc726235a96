/*
** jit_hash.c - unit test of jit/hash.h: XXH64 against the reference
** implementation's values (xxHash's own test vectors and python-xxhash's
** documented example), short inputs through every tail path, and a long
** input through the four-lane loop; then that one flipped bit anywhere
** changes the hash (what the compile cache relies on).
*/
#include <stdio.h>
#include <string.h>

#include "test/unit/check.h"
#include "jit/hash.h"

int main(void)
{
  CHECK(jit_hash64("", 0, 0) == 0xEF46DB3751D8E999ULL);
  CHECK(jit_hash64("abc", 3, 0) == 0x44BC2CF5AD770999ULL);
  const char *s = "Nobody inspects the spammish repetition";
  CHECK(jit_hash64(s, strlen(s), 0) == 0xFBCEA83C8A378BF1ULL);
  CHECK(jit_hash64("abc", 3, 1) != jit_hash64("abc", 3, 0));

  static unsigned char buf[4096];
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (unsigned char)(i * 31 + 7);
  uint64_t base = jit_hash64(buf, sizeof buf, 0);
  for (size_t i = 0; i < sizeof buf; i += 97) {
    for (int bit = 0; bit < 8; bit++) {
      buf[i] ^= (unsigned char)(1u << bit);
      CHECK(jit_hash64(buf, sizeof buf, 0) != base);
      buf[i] ^= (unsigned char)(1u << bit);
    }
  }
  /* Every length from 0 to 64 differs from its neighbour. */
  for (size_t n = 1; n <= 64; n++)
    CHECK(jit_hash64(buf, n, 0) != jit_hash64(buf, n - 1, 0));
  if (check_failures)
    fprintf(stderr, "%d checks failed\n", check_failures);
  return check_failures != 0;
}
