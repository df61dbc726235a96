/*
** float8.c - unit test of the 8-bit float formats through the public API
** (gilt_float_bits_to_double, gilt_float_bits_from_double, float
** attributes and dense elements of the f8 types).
**
** The tables are known bit patterns: the formats' landmarks (one, the
** largest finite value, the smallest subnormal, NaN, infinity) from the
** OCP 8-bit floating point specification and onnx docs/docs/Float8.md,
** and the rounding cases: ties to even, ties at the top of the range
** (464 in E4M3FN rounds down to 448, 248 in E4M3FNUZ up into overflow),
** and Cast-19's saturate table for infinities and overflow.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/ir.h"
#include "gilt/register.h"

#define E4M3FN GILT_F8E4M3FN
#define E4M3FNUZ GILT_F8E4M3FNUZ
#define E5M2 GILT_F8E5M2
#define E5M2FNUZ GILT_F8E5M2FNUZ

/* Bit pattern -> exact value (NaN for NaN patterns). */
static const struct {
  GiltFloatKind k;
  unsigned bits;
  double value;
} decodes[] = {
    {E4M3FN, 0x00, 0.0},          {E4M3FN, 0x38, 1.0},
    {E4M3FN, 0x40, 2.0},          {E4M3FN, 0x7E, 448.0},
    {E4M3FN, 0xFE, -448.0},       {E4M3FN, 0x01, 0x1p-9},
    {E4M3FN, 0x07, 7 * 0x1p-9},   {E4M3FN, 0x08, 0x1p-6},
    {E4M3FN, 0x78, 256.0},        {E4M3FN, 0x7F, NAN},
    {E4M3FN, 0xFF, NAN},          {E4M3FNUZ, 0x40, 1.0},
    {E4M3FNUZ, 0x7F, 240.0},      {E4M3FNUZ, 0xFF, -240.0},
    {E4M3FNUZ, 0x01, 0x1p-10},    {E4M3FNUZ, 0x08, 0x1p-7},
    {E4M3FNUZ, 0x80, NAN},        {E5M2, 0x3C, 1.0},
    {E5M2, 0x7B, 57344.0},        {E5M2, 0xFB, -57344.0},
    {E5M2, 0x01, 0x1p-16},        {E5M2, 0x04, 0x1p-14},
    {E5M2, 0x7C, INFINITY},       {E5M2, 0xFC, -INFINITY},
    {E5M2, 0x7D, NAN},            {E5M2, 0x7E, NAN},
    {E5M2, 0xFF, NAN},            {E5M2FNUZ, 0x40, 1.0},
    {E5M2FNUZ, 0x7F, 57344.0},    {E5M2FNUZ, 0x01, 0x1p-17},
    {E5M2FNUZ, 0x04, 0x1p-15},    {E5M2FNUZ, 0x7C, 32768.0},
    {E5M2FNUZ, 0x80, NAN},
};

/* Value -> bit pattern, without and with saturation. */
static const struct {
  GiltFloatKind k;
  double value;
  unsigned bits, saturated;
} encodes[] = {
    {E4M3FN, 1.0, 0x38, 0x38},
    {E4M3FN, -0.0, 0x80, 0x80},
    {E4M3FN, 1.0625, 0x38, 0x38},      /* tie: to even 1.0 */
    {E4M3FN, 1.1875, 0x3A, 0x3A},      /* tie: to even 1.25 */
    {E4M3FN, 7.5 * 0x1p-9, 0x08, 0x08}, /* subnormal tie, to 2^-6 */
    {E4M3FN, 0x1p-10, 0x00, 0x00},     /* half the smallest: to 0 */
    {E4M3FN, 0x1.8p-10, 0x01, 0x01},
    {E4M3FN, -0x1p-12, 0x80, 0x80},    /* -0 */
    {E4M3FN, 464.0, 0x7E, 0x7E},       /* tie with 480: to even 448 */
    {E4M3FN, 464.5, 0x7F, 0x7E},       /* past it: overflow */
    {E4M3FN, -1e9, 0xFF, 0xFE},
    {E4M3FN, INFINITY, 0x7F, 0x7E},
    {E4M3FN, -INFINITY, 0xFF, 0xFE},
    {E4M3FN, NAN, 0x7F, 0x7F},
    {E4M3FNUZ, 1.0, 0x40, 0x40},
    {E4M3FNUZ, -0.0, 0x00, 0x00},      /* no -0 */
    {E4M3FNUZ, -0x1p-13, 0x00, 0x00},
    {E4M3FNUZ, 240.0, 0x7F, 0x7F},
    {E4M3FNUZ, 247.0, 0x7F, 0x7F},
    {E4M3FNUZ, 248.0, 0x80, 0x7F},     /* tie with 256: to even, overflow */
    {E4M3FNUZ, -300.0, 0x80, 0xFF},
    {E4M3FNUZ, INFINITY, 0x80, 0x80},  /* infinities are NaN even saturated */
    {E4M3FNUZ, -INFINITY, 0x80, 0x80},
    {E4M3FNUZ, NAN, 0x80, 0x80},
    {E5M2, 1.0, 0x3C, 0x3C},
    {E5M2, -0.0, 0x80, 0x80},
    {E5M2, 1.125, 0x3C, 0x3C},         /* tie: to even 1.0 */
    {E5M2, 1.375, 0x3E, 0x3E},         /* tie: to even 1.5 */
    {E5M2, 0x1p-17, 0x00, 0x00},
    {E5M2, 57344.0, 0x7B, 0x7B},
    {E5M2, 61440.0, 0x7C, 0x7B},       /* tie with 65536: overflow */
    {E5M2, 1e6, 0x7C, 0x7B},
    {E5M2, -1e6, 0xFC, 0xFB},
    {E5M2, INFINITY, 0x7C, 0x7B},
    {E5M2, -INFINITY, 0xFC, 0xFB},
    {E5M2, NAN, 0x7E, 0x7E},           /* the quiet NaN, as APFloat's */
    {E5M2FNUZ, 1.0, 0x40, 0x40},
    {E5M2FNUZ, -0.0, 0x00, 0x00},
    {E5M2FNUZ, 0x1p-17, 0x01, 0x01},
    {E5M2FNUZ, 0x1p-18, 0x00, 0x00},
    {E5M2FNUZ, 57344.0, 0x7F, 0x7F},
    {E5M2FNUZ, 1e6, 0x80, 0x7F},
    {E5M2FNUZ, INFINITY, 0x80, 0x80},
    {E5M2FNUZ, NAN, 0x80, 0x80},
};

static void test_decode(void)
{
  for (size_t i = 0; i < sizeof decodes / sizeof *decodes; i++) {
    double v = gilt_float_bits_to_double(decodes[i].k, decodes[i].bits);
    bool ok = isnan(decodes[i].value) ? isnan(v) : v == decodes[i].value;
    if (!ok)
      fprintf(stderr, "decode kind %d 0x%02X: got %g, want %g\n",
              (int)decodes[i].k, decodes[i].bits, v, decodes[i].value);
    CHECK(ok);
  }
}

static void test_encode(void)
{
  for (size_t i = 0; i < sizeof encodes / sizeof *encodes; i++) {
    uint64_t b = gilt_float_bits_from_double(encodes[i].k, encodes[i].value,
                                             false);
    uint64_t s = gilt_float_bits_from_double(encodes[i].k, encodes[i].value,
                                             true);
    if (b != encodes[i].bits || s != encodes[i].saturated)
      fprintf(stderr, "encode kind %d %a: got 0x%02X/0x%02X, want "
              "0x%02X/0x%02X\n", (int)encodes[i].k, encodes[i].value,
              (unsigned)b, (unsigned)s, encodes[i].bits,
              encodes[i].saturated);
    CHECK(b == encodes[i].bits && s == encodes[i].saturated);
  }
}

/* Every pattern but a NaN decodes and encodes back to itself; NaNs stay
** NaN (E5M2's signalling 0x7D becomes quiet). */
static void test_every_pattern(void)
{
  static const GiltFloatKind kinds[] = {E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ};
  for (size_t k = 0; k < 4; k++)
    for (unsigned bits = 0; bits < 256; bits++) {
      double v = gilt_float_bits_to_double(kinds[k], bits);
      uint64_t back = gilt_float_bits_from_double(kinds[k], v, false);
      if (isnan(v))
        CHECK(isnan(gilt_float_bits_to_double(kinds[k], back)));
      else if (back != bits) {
        fprintf(stderr, "kind %d 0x%02X -> %g -> 0x%02X\n", (int)kinds[k],
                bits, v, (unsigned)back);
        CHECK(back == bits);
      }
    }
}

/* Float attributes hold f8 values; dense elements a byte each. */
static void test_attributes(GiltContext *ctx)
{
  GiltType *t = gilt_float_type_get(ctx, E4M3FN);
  CHECK(gilt_type_get_bit_width(t) == 8);
  CHECK(gilt_float_type_get_kind(t) == E4M3FN);
  CHECK(t == gilt_float_type_get(ctx, E4M3FN));
  CHECK(t != gilt_float_type_get(ctx, E4M3FNUZ));
  CHECK(gilt_float_attr_get_value(gilt_float_attr_get(t, 0.1)) == 0.1015625);
  CHECK(isnan(gilt_float_attr_get_value(gilt_float_attr_get(t, 500.0))));
  CHECK(gilt_float_attr_get(t, 1.03) == gilt_float_attr_get(t, 1.0));

  int64_t dim = 4;
  GiltType *tt = gilt_tensor_type_get(
      ctx, 1, &dim, gilt_float_type_get(ctx, E5M2), NULL);
  static const uint8_t bytes[] = {0x3C, 0x7B, 0xFC, 0x01};
  GiltAttr *a = gilt_dense_elements_attr_get(tt, bytes, sizeof bytes);
  size_t nbytes = 0;
  const void *data = a ? gilt_dense_attr_get_data(a, &nbytes) : NULL;
  CHECK(data && nbytes == 4 && !memcmp(data, bytes, 4));
}

int main(void)
{
  test_decode();
  test_encode();
  test_every_pattern();
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  test_attributes(ctx);
  gilt_context_destroy(ctx);
  if (check_failures)
    fprintf(stderr, "%d checks failed\n", check_failures);
  return check_failures != 0;
}
