/*
** float8.c - the 8-bit float formats: decoding to double, and rounding
** from double with or without ONNX's saturation.
**
** The four formats differ in three things only: field widths and bias,
** whether the all-ones exponent is special (E5M2, as IEEE) or holds normal
** numbers (the others), and where NaN lives. So one description per format
** drives both directions. Rounding works on the value, not the bits: |d|
** divided by the spacing of the format's numbers at d's magnitude is exact
** in double (a power of two), rint rounds it once to nearest even, and the
** product is the rounded value, which is then encoded or, if it exceeds
** the largest finite number, overflows. This is how APFloat rounds, so a
** value exactly halfway to the first number past the largest (464 in
** E4M3FN) goes to the even one, the largest.
**
** The public conversions of every float kind (gilt_float_bits_to_double,
** gilt_float_bits_from_double) are at the end: the 16-bit formats go to
** float16.c, f32 and f64 are C's.
*/
#include "ir/support/float8.h"

#include <math.h>
#include <string.h>

#include "ir/support/float16.h"

typedef struct F8Format {
  unsigned mbits;  /* stored mantissa bits */
  int bias;
  bool ieee;       /* the top exponent is infinity/NaN, as in IEEE */
  bool fnuz;       /* NaN is 0x80; no -0, no infinity */
  uint8_t max;     /* the largest finite pattern */
} F8Format;

static const F8Format *format(GiltFloatKind k)
{
  static const F8Format e4m3fn = {3, 7, false, false, 0x7E};
  static const F8Format e4m3fnuz = {3, 8, false, true, 0x7F};
  static const F8Format e5m2 = {2, 15, true, false, 0x7B};
  static const F8Format e5m2fnuz = {2, 16, false, true, 0x7F};
  switch (k) {
  case GILT_F8E4M3FN:
    return &e4m3fn;
  case GILT_F8E4M3FNUZ:
    return &e4m3fnuz;
  case GILT_F8E5M2:
    return &e5m2;
  case GILT_F8E5M2FNUZ:
    return &e5m2fnuz;
  default:
    return NULL;
  }
}

bool gilt_float_kind_is_f8(GiltFloatKind k)
{
  return format(k) != NULL;
}

static bool is_nan_pattern(const F8Format *f, uint8_t bits)
{
  if (f->fnuz)
    return bits == 0x80;
  if (f->ieee) /* exponent all ones, mantissa non-zero */
    return (bits & 0x7F) > 0x7C;
  return (bits & 0x7F) == 0x7F;
}

double gilt_f8_to_double(GiltFloatKind k, uint8_t bits)
{
  const F8Format *f = format(k);
  if (is_nan_pattern(f, bits)) {
    /* E5M2's NaNs keep their mantissa at the top of the double's, as the
    ** 16-bit formats do, so that a NaN's pattern survives the trip. */
    uint64_t d = UINT64_C(0x7FF8) << 48;
    if (f->ieee)
      d = UINT64_C(0x7FF) << 52 | (uint64_t)(bits & 3) << 50;
    if ((bits & 0x80) && !f->fnuz)
      d |= UINT64_C(1) << 63;
    double v;
    memcpy(&v, &d, sizeof v);
    return v;
  }
  double sign = bits & 0x80 ? -1.0 : 1.0;
  unsigned e = (bits & 0x7F) >> f->mbits;
  unsigned m = bits & ((1u << f->mbits) - 1);
  if (f->ieee && e == (0x7Fu >> f->mbits))
    return sign * INFINITY;
  if (e == 0) /* subnormal, or zero */
    return sign * ldexp(m, 1 - f->bias - (int)f->mbits);
  return sign * ldexp(m | (1u << f->mbits), (int)e - f->bias - (int)f->mbits);
}

static uint8_t nan_pattern(const F8Format *f, uint8_t sign)
{
  return f->fnuz ? 0x80 : (uint8_t)(sign | 0x7F);
}

/* A NaN of E5M2 is quiet (the top mantissa bit set) and keeps the next
** bit of d's payload, as the 16-bit formats narrow NaNs; the others have
** one NaN per sign, or one in all. */
static uint8_t nan_from_double(const F8Format *f, uint8_t sign, double d)
{
  if (!f->ieee)
    return nan_pattern(f, sign);
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return (uint8_t)(sign | 0x7E | ((b >> 50) & 1));
}

/* What a value beyond the largest finite one becomes. */
static uint8_t overflow(const F8Format *f, uint8_t sign, bool saturate)
{
  if (saturate)
    return (uint8_t)(sign | f->max);
  if (f->ieee)
    return (uint8_t)(sign | 0x7C);
  return nan_pattern(f, sign);
}

uint8_t gilt_f8_from_double(GiltFloatKind k, double d, bool saturate)
{
  const F8Format *f = format(k);
  uint8_t sign = signbit(d) ? 0x80 : 0;
  if (isnan(d))
    return nan_from_double(f, sign, d);
  if (isinf(d))
    return f->fnuz ? 0x80 : overflow(f, sign, saturate);
  double a = fabs(d);
  int emin = 1 - f->bias;
  /* The spacing of the format's numbers at a: 2^(e - mbits) where
  ** 2^e <= a < 2^(e+1), and the subnormal spacing below 2^emin. */
  int e = a == 0 ? emin : ilogb(a);
  if (e < emin)
    e = emin;
  double r = ldexp(rint(ldexp(a, (int)f->mbits - e)), e - (int)f->mbits);
  if (r > gilt_f8_to_double(k, f->max))
    return overflow(f, sign, saturate);
  if (r == 0)
    return f->fnuz ? 0 : sign;
  e = ilogb(r);
  if (e < emin) /* subnormal: the exponent field is 0 */
    return (uint8_t)(sign | (unsigned)ldexp(r, (int)f->mbits - emin));
  unsigned m = (unsigned)ldexp(r, (int)f->mbits - e) - (1u << f->mbits);
  return (uint8_t)(sign | (unsigned)(e + f->bias) << f->mbits | m);
}

/* ---- every float kind ------------------------------------------------------ */

double gilt_float_bits_to_double(GiltFloatKind k, uint64_t bits)
{
  switch (k) {
  case GILT_F16:
    return gilt_float_from_f16((uint16_t)bits);
  case GILT_BF16:
    return gilt_float_from_bf16((uint16_t)bits);
  case GILT_F32: {
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
  }
  case GILT_F64: {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
  }
  case GILT_F8E4M3FN:
  case GILT_F8E4M3FNUZ:
  case GILT_F8E5M2:
  case GILT_F8E5M2FNUZ:
    return gilt_f8_to_double(k, (uint8_t)bits);
  }
  return NAN;
}

uint64_t gilt_float_bits_from_double(GiltFloatKind k, double v, bool saturate)
{
  switch (k) {
  case GILT_F16:
    return gilt_f16_from_double(v);
  case GILT_BF16:
    return gilt_bf16_from_double(v);
  case GILT_F32: {
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
  }
  case GILT_F64: {
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
  }
  case GILT_F8E4M3FN:
  case GILT_F8E4M3FNUZ:
  case GILT_F8E5M2:
  case GILT_F8E5M2FNUZ:
    return gilt_f8_from_double(k, v, saturate);
  }
  return 0;
}
