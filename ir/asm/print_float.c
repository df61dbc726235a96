/*
** print_float.c - printing floating-point values as MLIR does.
**
** MLIR's printFloatValue tries, in order: the value in scientific notation
** with six significant digits (`1.000000e+00`, the last digit always a
** padding zero), kept only if parsing it back gives the same bits; then
** APFloat's shortest round-trip form (9 significant digits for f32, 17 for
** f64), kept only if it contains a `.`; and otherwise the raw bit pattern
** in hex (`0x7FC00000`), which is also how NaNs and infinities print.
**
** Both decimal forms come from LLVM's APFloat::toString, whose digits are
** not always those of a correctly rounded printf: it first drops whole
** decimal digits beyond what the precision needs (truncating), then rounds
** half up on the next digit. To print byte for byte what mlir-opt prints,
** this file follows that algorithm exactly, with a small fixed-size bignum
** for the exact decimal expansion (a double needs at most 2,600 bits).
*/
#include "ir/asm/printer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/support/float16.h"
#include "ir/support/float8.h"

/* ---- IEEE formats -------------------------------------------------------- */

typedef struct FloatFormat {
  unsigned precision; /* significand bits, the implicit one included */
  unsigned exp_bits;
  unsigned total_bits;
} FloatFormat;

static const FloatFormat formats[] = {
    [GILT_F16] = {11, 5, 16},
    [GILT_BF16] = {8, 8, 16},
    [GILT_F32] = {24, 8, 32},
    [GILT_F64] = {53, 11, 64},
    /* The 8-bit formats are decoded through their value (see below);
    ** only the precision is read. */
    [GILT_F8E4M3FN] = {4, 4, 8},
    [GILT_F8E4M3FNUZ] = {4, 4, 8},
    [GILT_F8E5M2] = {3, 5, 8},
    [GILT_F8E5M2FNUZ] = {3, 5, 8},
};

typedef enum { CAT_ZERO, CAT_FINITE, CAT_SPECIAL } FloatCategory;

/* value = (-1)^neg * sig * 2^exp2 */
typedef struct Decoded {
  FloatCategory cat;
  bool neg;
  uint64_t sig;
  int exp2;
} Decoded;

static Decoded decode(uint64_t bits, const FloatFormat *f)
{
  unsigned mbits = f->precision - 1;
  uint64_t emax = ((uint64_t)1 << f->exp_bits) - 1;
  uint64_t e = (bits >> mbits) & emax;
  uint64_t mant = bits & (((uint64_t)1 << mbits) - 1);
  int bias = (int)(emax >> 1);
  Decoded d = {CAT_FINITE, (bits >> (f->total_bits - 1)) & 1, mant, 0};
  if (e == emax)
    d.cat = CAT_SPECIAL;
  else if (e == 0 && mant == 0)
    d.cat = CAT_ZERO;
  else if (e == 0)
    d.exp2 = 1 - bias - (int)mbits;
  else {
    d.sig = mant | (uint64_t)1 << mbits;
    d.exp2 = (int)e - bias - (int)mbits;
  }
  return d;
}

/* The 8-bit formats put NaN and the top exponent where each likes: their
** values come from float8.c, and a finite one becomes v = sig * 2^-20,
** an integer sig since no format has numbers below 2^-17. */
static Decoded decode_f8(uint64_t bits, GiltFloatKind k)
{
  double v = gilt_f8_to_double(k, (uint8_t)bits);
  Decoded d = {CAT_FINITE, signbit(v) != 0, 0, -20};
  if (!isfinite(v))
    d.cat = CAT_SPECIAL;
  else if (v == 0)
    d.cat = CAT_ZERO;
  else
    d.sig = (uint64_t)ldexp(fabs(v), 20);
  return d;
}

uint64_t gilt_float_to_bits(double v, GiltFloatKind k)
{
  return gilt_float_bits_from_double(k, v, false);
}

/* ---- a little bignum, enough for sig * 5^1074 ------------------------------ */

#define BIG_LIMBS 96

typedef struct Big {
  uint32_t limb[BIG_LIMBS]; /* least significant first */
  size_t n;                 /* limbs in use; the top one is non-zero */
} Big;

static void big_trim(Big *b)
{
  while (b->n && !b->limb[b->n - 1])
    b->n--;
}

static void big_mul_small(Big *b, uint32_t m)
{
  uint64_t carry = 0;
  for (size_t i = 0; i < b->n; i++) {
    uint64_t t = (uint64_t)b->limb[i] * m + carry;
    b->limb[i] = (uint32_t)t;
    carry = t >> 32;
  }
  if (carry) {
    GILT_ASSERT(b->n < BIG_LIMBS);
    b->limb[b->n++] = (uint32_t)carry;
  }
}

static void big_shl(Big *b, unsigned bits)
{
  unsigned words = bits / 32, rest = bits % 32;
  GILT_ASSERT(b->n + words + 1 <= BIG_LIMBS);
  b->limb[b->n + words] = 0;
  for (size_t i = b->n; i-- > 0;) {
    uint64_t v = (uint64_t)b->limb[i] << rest;
    b->limb[i + words + 1] |= (uint32_t)(v >> 32);
    b->limb[i + words] = (uint32_t)v;
  }
  memset(b->limb, 0, words * sizeof *b->limb);
  b->n += words + 1;
  big_trim(b);
}

/* Divides in place; returns the remainder. */
static uint32_t big_div_small(Big *b, uint32_t d)
{
  uint64_t rem = 0;
  for (size_t i = b->n; i-- > 0;) {
    uint64_t cur = rem << 32 | b->limb[i];
    b->limb[i] = (uint32_t)(cur / d);
    rem = cur % d;
  }
  big_trim(b);
  return (uint32_t)rem;
}

static unsigned big_bit_length(const Big *b)
{
  if (!b->n)
    return 0;
  unsigned top = 0;
  for (uint32_t v = b->limb[b->n - 1]; v; v >>= 1)
    top++;
  return (unsigned)(b->n - 1) * 32 + top;
}

static const uint32_t pow10[] = {1,      10,      100,      1000,
                                  10000,  100000,  1000000,  10000000,
                                  100000000, 1000000000};
static const uint32_t pow5[] = {1,         5,         25,        125,
                                625,       3125,      15625,     78125,
                                390625,    1953125,   9765625,   48828125,
                                244140625, 1220703125};

/* ---- APFloat::toString ------------------------------------------------------- */

/* Up to this many decimal digits survive AdjustToPrecision (17 + slack). */
#define MAX_DIGITS 48

/* Decimal digits of sig * 2^exp2, least significant first, trailing zeros
** dropped, as APFloat computes them before rounding; *exp10 is the power
** of ten of the first digit kept. */
static size_t exact_digits(uint64_t sig, int exp2, unsigned precision,
                           char *digits, int *exp10)
{
  int tz = __builtin_ctzll(sig);
  sig >>= tz;
  exp2 += tz;
  Big n = {{(uint32_t)sig, (uint32_t)(sig >> 32)}, 2};
  big_trim(&n);
  int exp = 0;
  if (exp2 > 0) {
    big_shl(&n, (unsigned)exp2);
  } else {
    for (int k = -exp2; k > 0; k -= 13) /* 5^13 fits in 32 bits */
      big_mul_small(&n, pow5[k < 13 ? k : 13]);
    exp = exp2;
  }
  /* AdjustToPrecision: drop digits the precision cannot use. The bound
  ** (196/59 overestimates log2(10)) is APFloat's. */
  unsigned bits = big_bit_length(&n), required = (precision * 196 + 58) / 59;
  if (bits > required) {
    unsigned tens = (bits - required) * 59 / 196;
    exp += (int)tens;
    for (; tens >= 9; tens -= 9)
      big_div_small(&n, pow10[9]);
    big_div_small(&n, pow10[tens]);
  }
  size_t nd = 0;
  while (n.n) {
    uint32_t d = big_div_small(&n, 10);
    if (nd == 0 && d == 0) {
      exp++;
      continue;
    }
    GILT_ASSERT(nd < MAX_DIGITS);
    digits[nd++] = (char)('0' + d);
  }
  *exp10 = exp;
  return nd;
}

/* APFloat's second AdjustToPrecision: keep `precision` digits, rounding
** half up on the first dropped digit, and drop the zeros that leaves. */
static size_t round_digits(char *digits, size_t nd, unsigned precision,
                           int *exp10)
{
  if (nd <= precision)
    return nd;
  size_t first = nd - precision;
  if (digits[first - 1] < '5') {
    while (first < nd && digits[first] == '0')
      first++;
  } else {
    size_t i = first;
    while (i < nd && digits[i] == '9')
      i++;
    if (i == nd) { /* carried out of every digit: 10^k */
      *exp10 += (int)nd;
      digits[0] = '1';
      return 1;
    }
    digits[i]++;
    first = i;
  }
  *exp10 += (int)first;
  memmove(digits, digits + first, nd - first);
  return nd - first;
}

/* Writes the digits (least significant first, the last one at 10^exp10)
** as APFloat::toString lays them out. Returns the length. */
static size_t layout(char *out, bool neg, const char *digits, size_t nd,
                     int exp10, unsigned precision, unsigned max_padding,
                     bool truncate_zero)
{
  char *o = out;
  if (neg)
    *o++ = '-';
  bool scientific;
  if (!max_padding)
    scientific = true;
  else if (exp10 >= 0)
    scientific = (unsigned)exp10 > max_padding || nd + exp10 > precision;
  else {
    int msd = exp10 + (int)nd - 1;
    scientific = msd < 0 && (unsigned)-msd > max_padding;
  }
  if (scientific) {
    int e = exp10 + (int)nd - 1;
    *o++ = digits[nd - 1];
    *o++ = '.';
    if (nd == 1 && truncate_zero)
      *o++ = '0';
    for (size_t i = nd - 1; i-- > 0;)
      *o++ = digits[i];
    for (size_t i = nd; !truncate_zero && i <= precision; i++)
      *o++ = '0';
    o += sprintf(o, truncate_zero ? "E%+d" : "e%+03d", e);
    return (size_t)(o - out);
  }
  int whole = exp10 + (int)nd; /* digits left of the point */
  if (exp10 >= 0) {
    for (size_t i = nd; i-- > 0;)
      *o++ = digits[i];
    for (int i = 0; i < exp10; i++)
      *o++ = '0';
  } else if (whole > 0) {
    for (size_t i = nd; i-- > (size_t)(nd - (size_t)whole);)
      *o++ = digits[i];
    *o++ = '.';
    for (size_t i = nd - (size_t)whole; i-- > 0;)
      *o++ = digits[i];
  } else {
    *o++ = '0';
    *o++ = '.';
    for (int i = whole; i < 0; i++)
      *o++ = '0';
    for (size_t i = nd; i-- > 0;)
      *o++ = digits[i];
  }
  return (size_t)(o - out);
}

/* APFloat::toString(precision, max_padding, truncate_zero) of a finite
** value; precision 0 picks the format's round-trip precision. */
static size_t apfloat_to_string(char *out, Decoded d, const FloatFormat *f,
                                unsigned precision, unsigned max_padding,
                                bool truncate_zero)
{
  if (!precision)
    precision = 2 + f->precision * 59 / 196;
  if (d.cat == CAT_ZERO) {
    if (max_padding)
      return (size_t)sprintf(out, "%s0", d.neg ? "-" : "");
    if (truncate_zero)
      return (size_t)sprintf(out, "%s0.0E+0", d.neg ? "-" : "");
    return (size_t)sprintf(out, "%s0.%0*de+00", d.neg ? "-" : "",
                           (int)precision, 0);
  }
  char digits[MAX_DIGITS];
  int exp10;
  size_t nd = exact_digits(d.sig, d.exp2, precision, digits, &exp10);
  nd = round_digits(digits, nd, precision, &exp10);
  return layout(out, d.neg, digits, nd, exp10, precision, max_padding,
                truncate_zero);
}

/* Whether the text parses back to exactly `bits` in format k. */
static bool round_trips(const char *text, uint64_t bits, GiltFloatKind k)
{
  if (k == GILT_F32) {
    float f = strtof(text, NULL);
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b == bits;
  }
  return gilt_float_to_bits(strtod(text, NULL), k) == bits;
}

static void print_hex_bits(GiltAsmPrinter *p, uint64_t bits)
{
  static const char hex[] = "0123456789ABCDEF";
  char tmp[18];
  size_t i = sizeof tmp;
  do {
    tmp[--i] = hex[bits & 15];
    bits >>= 4;
  } while (bits);
  gilt_printer_write(p, "0x", 2);
  gilt_printer_write(p, tmp + i, sizeof tmp - i);
}

void gilt_printer_print_float_bits(GiltAsmPrinter *p, uint64_t bits,
                                   GiltFloatKind k, bool *printed_hex)
{
  const FloatFormat *f = &formats[k];
  Decoded d = gilt_float_kind_is_f8(k) ? decode_f8(bits, k) : decode(bits, f);
  if (printed_hex)
    *printed_hex = false;
  if (d.cat != CAT_SPECIAL) {
    char text[64];
    size_t n = apfloat_to_string(text, d, f, 6, 0, false);
    if (round_trips(text, bits, k)) {
      gilt_printer_write(p, text, n);
      return;
    }
    n = apfloat_to_string(text, d, f, 0, 3, true);
    if (memchr(text, '.', n)) {
      gilt_printer_write(p, text, n);
      return;
    }
  }
  if (printed_hex)
    *printed_hex = true;
  print_hex_bits(p, bits);
}
