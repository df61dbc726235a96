/*
** test_options.c - `test-options`: a pass that reports its option values,
** to test pass options end to end (pipeline text, defaults, typed
** accessors) and statistics.
**
** It emits one remark per op it runs on, with every option's value, adds
** one to its `num-remarks` statistic and declares the IR unchanged. It has
** no use outside tests.
*/
#include "test/lib/test_defs.h"

#include "ir/core.h"

static const GiltPassOptionDef options[] = {
    {"int-opt", GILT_OPTION_INT, "3", "An integer"},
    {"bool-opt", GILT_OPTION_BOOL, "false", "A boolean"},
    {"double-opt", GILT_OPTION_DOUBLE, "0.5", "A double"},
    {"string-opt", GILT_OPTION_STRING, "", "A string"},
    {0}};

static GiltStatus run(GiltPass *pass, GiltOp *op)
{
  gilt_emit_diag(gilt_op_get_location(op), GILT_SEVERITY_REMARK,
                 "test-options: int-opt=%lld bool-opt=%s double-opt=%g "
                 "string-opt='%s'",
                 (long long)gilt_pass_get_option_int(pass, "int-opt"),
                 gilt_pass_get_option_bool(pass, "bool-opt") ? "true"
                                                             : "false",
                 gilt_pass_get_option_double(pass, "double-opt"),
                 gilt_pass_get_option_string(pass, "string-opt"));
  gilt_pass_add_statistic(pass, "num-remarks", "Number of remarks emitted",
                          1);
  gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_test_options_pass = {
    .name = "test-options",
    .description = "Test pass: reports its option values in a remark",
    .anchor = NULL,
    .options = options,
    .run = run,
};
