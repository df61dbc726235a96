/*
** test_defs.h - the pieces of the test library, declared to register.c.
*/
#ifndef GILT_TEST_LIB_TEST_DEFS_H
#define GILT_TEST_LIB_TEST_DEFS_H

#include "gilt/pass.h"
#include "ir/op_def.h"

GILT_INTERNAL extern const GiltDialectDef gilt_test_dialect;
/* The types and attributes of the test dialect (test_types.c). */
#define GILT_TEST_NUM_TYPES 3
#define GILT_TEST_NUM_ATTRS 2
GILT_INTERNAL extern const GiltTypeDef gilt_test_types[GILT_TEST_NUM_TYPES];
GILT_INTERNAL extern const GiltAttrDef gilt_test_attrs[GILT_TEST_NUM_ATTRS];
GILT_INTERNAL extern const GiltPassDef gilt_test_pass_failure_pass;
GILT_INTERNAL extern const GiltPassDef gilt_test_options_pass;
GILT_INTERNAL extern const GiltPassDef gilt_test_legalize_pass;
GILT_INTERNAL extern const GiltPassDef gilt_test_false_unchanged_pass;

#endif /* GILT_TEST_LIB_TEST_DEFS_H */
