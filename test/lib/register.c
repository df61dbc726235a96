/*
** register.c - gilt_test_register_all: the test dialect and test passes,
** for gopt, the unit tests and the benchmarks.
*/
#include "test/lib/test_lib.h"

#include "test/lib/test_defs.h"

void gilt_test_register_all(GiltContext *ctx)
{
  static const GiltPassDef *const passes[] = {
      &gilt_test_pass_failure_pass,
      &gilt_test_options_pass,
      &gilt_test_legalize_pass,
      &gilt_test_false_unchanged_pass,
  };
  gilt_context_register_dialect(ctx, &gilt_test_dialect);
  gilt_context_register_passes(ctx, passes, sizeof passes / sizeof *passes);
}
