/*
** test.h - the test dialect: small ops with traits, folds and patterns
** for the lit tests of the generic passes and the rewrite drivers.
**
** Like MLIR's test dialect, it exists for tests only: nothing outside
** test/lit and the test passes (transforms/test_legalize.c) uses it. Its
** ops use the generic form.
*/
#ifndef GILT_DIALECTS_TEST_TEST_H
#define GILT_DIALECTS_TEST_TEST_H

#include "ir/op_def.h"

GILT_INTERNAL extern const GiltDialectDef gilt_test_dialect;

#endif /* GILT_DIALECTS_TEST_TEST_H */
