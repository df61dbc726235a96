/*
** test_lib.h - gilt's test library: the test dialect and the test passes.
**
** Like MLIR's test library, it exists for tests only. It is linked into
** gopt (as mlir-opt links MLIR's) and the unit tests, never into libgilt,
** so what `make install` ships holds none of it. The test dialect has
** small ops with traits, folds and patterns for the lit tests of the
** generic passes and the rewrite drivers; the test passes exercise the
** pass manager (test-pass-failure, test-options, test-false-unchanged)
** and the conversion driver (test-legalize). This header is what its
** users need; test_defs.h declares its pieces to each other.
*/
#ifndef GILT_TEST_LIB_TEST_LIB_H
#define GILT_TEST_LIB_TEST_LIB_H

#include "gilt/ir.h"

/* Registers the test dialect and the test passes (register.c). */
void gilt_test_register_all(GiltContext *ctx);

#endif /* GILT_TEST_LIB_TEST_LIB_H */
