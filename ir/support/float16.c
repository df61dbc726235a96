/*
** float16.c - IEEE half and bfloat16 conversions.
**
** Both narrow formats are handled by one routine parameterized by the
** widths of their exponent and mantissa fields: it works on the bits of the
** double so that rounding happens exactly once, to nearest, ties to even,
** including into the subnormal range. Widening is exact and goes through
** the bit pattern of a float.
*/
#include "ir/support/float16.h"

#include <string.h>

/* Rounds `d` to a binary format with `mbits` mantissa and `ebits` exponent
** bits (at most 16 bits in all) and returns its bit pattern. */
static uint16_t narrow(double d, unsigned mbits, unsigned ebits)
{
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  uint16_t sign = (uint16_t)((bits >> 63) << (mbits + ebits));
  int exp = (int)((bits >> 52) & 0x7ff);
  uint64_t man = bits & ((UINT64_C(1) << 52) - 1);
  uint16_t inf = (uint16_t)(((1u << ebits) - 1) << mbits);
  if (exp == 0x7ff) { /* keep NaNs NaN: set the quiet bit */
    if (!man)
      return sign | inf;
    return (uint16_t)(sign | inf | (1u << (mbits - 1)) |
                      (uint16_t)(man >> (52 - mbits)));
  }
  int bias = (1 << (ebits - 1)) - 1;
  int e = exp - 1023; /* unbiased; tiny for zero and double subnormals */
  uint64_t m = exp ? man | (UINT64_C(1) << 52) : man;
  /* Normal results keep mbits+1 significant bits; subnormal ones fewer. */
  int shift = 52 - (int)mbits + (e < 1 - bias ? 1 - bias - e : 0);
  if (shift > 54)
    return sign; /* below half the smallest subnormal: rounds to zero */
  uint64_t q = m >> shift, rem = m & ((UINT64_C(1) << shift) - 1);
  uint64_t half = UINT64_C(1) << (shift - 1);
  if (rem > half || (rem == half && (q & 1)))
    q++;
  if (e < 1 - bias) /* subnormal; a carry into bit mbits makes it normal */
    return (uint16_t)(sign | q);
  if (q >> (mbits + 1)) { /* the mantissa carried out: renormalize */
    q >>= 1;
    e++;
  }
  if (e > bias)
    return sign | inf;
  return (uint16_t)(sign | ((unsigned)(e + bias) << mbits) |
                    (q & ((1u << mbits) - 1)));
}

uint16_t gilt_f16_from_double(double d) { return narrow(d, 10, 5); }
uint16_t gilt_f16_from_float(float f) { return narrow(f, 10, 5); }
uint16_t gilt_bf16_from_double(double d) { return narrow(d, 7, 8); }
uint16_t gilt_bf16_from_float(float f) { return narrow(f, 7, 8); }

float gilt_float_from_f16(uint16_t h)
{
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31u,
           man = h & 1023u, bits;
  if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (!man) {
    bits = sign;
  } else { /* subnormal: normalize the mantissa */
    exp = 113;
    while (!(man & 1024)) {
      man <<= 1;
      exp--;
    }
    bits = sign | (exp << 23) | ((man & 1023) << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

float gilt_float_from_bf16(uint16_t b)
{
  uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
