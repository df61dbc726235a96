/*
** float16.h - conversions between the 16-bit float formats and C floats.
**
** Dense attributes store f16 and bf16 elements as raw 16-bit patterns; the
** parser needs correctly rounded (IEEE round-to-nearest-even) narrowing and
** the printer needs exact widening. Narrowing from double rounds once, so a
** decimal literal parsed with strtod lands on the same half as MLIR's
** APFloat gives. This is not a soft-float library: no arithmetic is done in
** these formats.
*/
#ifndef GILT_IR_FLOAT16_H
#define GILT_IR_FLOAT16_H

#include <stdint.h>

#include "ir/support/alloc.h"

/* IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits. Overflow gives an
** infinity, NaN stays NaN (quiet, payload truncated). */
GILT_INTERNAL uint16_t gilt_f16_from_double(double d);
GILT_INTERNAL uint16_t gilt_f16_from_float(float f);
GILT_INTERNAL float gilt_float_from_f16(uint16_t h);
/* bfloat16: 1 sign, 8 exponent, 7 mantissa bits (the top half of an f32). */
GILT_INTERNAL uint16_t gilt_bf16_from_double(double d);
GILT_INTERNAL uint16_t gilt_bf16_from_float(float f);
GILT_INTERNAL float gilt_float_from_bf16(uint16_t b);

#endif /* GILT_IR_FLOAT16_H */
