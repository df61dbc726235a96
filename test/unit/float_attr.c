/*
** float_attr.c - unit test of gilt_float_attr_get's rounding, through the
** public API only: a float attribute holds exactly the value of its type
** nearest to the double it was given, rounded once.
**
** Regression test: f16 and bf16 values used to go through (float) first,
** which rounds twice. 1 + 2^-11 + 2^-30 lies just above the tie between
** the f16 values 1 and 1 + 2^-10; in f32 it rounds onto that tie, and the
** tie then rounds to even, to 1, where the nearest f16 is 1 + 2^-10.
*/
#include <math.h>
#include <stdio.h>

#include "test/unit/check.h"
#include "gilt/ir.h"
#include "gilt/register.h"

/* The value a float attribute of kind k holds for v. */
static double held(GiltContext *ctx, GiltFloatKind k, double v)
{
  GiltType *t = gilt_float_type_get(ctx, k);
  return gilt_float_attr_get_value(gilt_float_attr_get(t, v));
}

static void test_rounds_once(GiltContext *ctx)
{
  double just_above_f16_tie = 1 + ldexp(1, -11) + ldexp(1, -30);
  CHECK(held(ctx, GILT_F16, just_above_f16_tie) == 1 + ldexp(1, -10));
  double just_above_bf16_tie = 1 + ldexp(1, -8) + ldexp(1, -30);
  CHECK(held(ctx, GILT_BF16, just_above_bf16_tie) == 1 + ldexp(1, -7));
  /* Exact ties still go to even. */
  CHECK(held(ctx, GILT_F16, 1 + ldexp(1, -11)) == 1);
  CHECK(held(ctx, GILT_BF16, 1 + 3 * ldexp(1, -8)) == 1 + ldexp(1, -6));
  /* f32 and f64 are unchanged: one rounding, or none. */
  CHECK(held(ctx, GILT_F32, 0.1) == (double)0.1f);
  CHECK(held(ctx, GILT_F64, 0.1) == 0.1);
}

static void test_range(GiltContext *ctx)
{
  CHECK(held(ctx, GILT_F16, 65504) == 65504);
  CHECK(held(ctx, GILT_F16, 65519) == 65504);
  CHECK(isinf(held(ctx, GILT_F16, 65520)));
  CHECK(held(ctx, GILT_F16, ldexp(1, -24)) == ldexp(1, -24)); /* subnormal */
  CHECK(held(ctx, GILT_F16, ldexp(1, -26)) == 0);
  CHECK(signbit(held(ctx, GILT_F16, -0.0)));
  CHECK(isnan(held(ctx, GILT_F16, NAN)));
  CHECK(held(ctx, GILT_BF16, 3e38) == ldexp(226, 120)); /* 8 bits kept */
}

/* Values that round to the same one are the same attribute. */
static void test_uniqued_after_rounding(GiltContext *ctx)
{
  GiltType *f16 = gilt_float_type_get(ctx, GILT_F16);
  CHECK(gilt_float_attr_get(f16, 1 + ldexp(1, -10)) ==
        gilt_float_attr_get(f16, 1 + ldexp(1, -11) + ldexp(1, -30)));
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  test_rounds_once(ctx);
  test_range(ctx);
  test_uniqued_after_rounding(ctx);
  gilt_context_destroy(ctx);
  if (check_failures)
    fprintf(stderr, "%d checks failed\n", check_failures);
  return check_failures != 0;
}
