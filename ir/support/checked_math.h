/*
** checked_math.h - integer arithmetic on sizes that says when it overflows
** instead of wrapping.
**
** Dimensions, strides, element counts and byte sizes come from the user's
** model, and a corrupted model can make any of them huge. Signed overflow
** in C is undefined, and unsigned overflow silently wraps into a small,
** plausible and wrong size, so every sum or product of such numbers goes
** through these functions. Each returns true when the exact result does
** not fit (as __builtin_*_overflow does, on which they rest), and the
** caller reports the overflow at the op or attribute that caused it; *out
** then holds nothing useful. What to say and where is the caller's: this
** file neither reports nor aborts.
**
** Dimensions use GILT_DYNAMIC (INT64_MIN) for `?`; gilt_dims_product knows
** it. The plain int64_t functions do not, so callers handle `?` first.
*/
#ifndef GILT_IR_CHECKED_MATH_H
#define GILT_IR_CHECKED_MATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gilt/ir.h"

static inline bool gilt_add_overflow(int64_t a, int64_t b, int64_t *out)
{
  return __builtin_add_overflow(a, b, out);
}

static inline bool gilt_sub_overflow(int64_t a, int64_t b, int64_t *out)
{
  return __builtin_sub_overflow(a, b, out);
}

static inline bool gilt_mul_overflow(int64_t a, int64_t b, int64_t *out)
{
  return __builtin_mul_overflow(a, b, out);
}

/* Byte sizes and counts of things in memory. */
static inline bool gilt_size_add_overflow(size_t a, size_t b, size_t *out)
{
  return __builtin_add_overflow(a, b, out);
}

static inline bool gilt_size_mul_overflow(size_t a, size_t b, size_t *out)
{
  return __builtin_mul_overflow(a, b, out);
}

/* The product of dims[0..rank) (1 for rank 0): 0 when some dim is 0,
** whatever the others are; else GILT_DYNAMIC when some dim is `?`; else
** the exact product, or true for an overflow. So a shape's element count
** overflows only when it is fully known, and the answer does not depend
** on the order of the dims. */
static inline bool gilt_dims_product(size_t rank, const int64_t *dims,
                                     int64_t *out)
{
  bool dynamic = false;
  for (size_t i = 0; i < rank; i++) {
    if (dims[i] == 0) {
      *out = 0;
      return false;
    }
    dynamic |= dims[i] == GILT_DYNAMIC;
  }
  int64_t n = 1;
  for (size_t i = 0; !dynamic && i < rank; i++)
    if (gilt_mul_overflow(n, dims[i], &n))
      return true;
  *out = dynamic ? GILT_DYNAMIC : n;
  return false;
}

#endif /* GILT_IR_CHECKED_MATH_H */
