/*
** test_false_unchanged.c - `test-false-unchanged`: a pass that changes the
** IR and declares it unchanged, to test that a debug build's pass manager
** (GILT_DEBUG) catches the false declaration.
**
** It sets the unit attribute `test.touched` on the op it runs on and calls
** gilt_pass_mark_unchanged. A release build believes it; no real pass
** may do this.
*/
#include "test/lib/test_defs.h"

static GiltStatus run(GiltPass *pass, GiltOp *op)
{
  gilt_op_set_attr(op, "test.touched",
                   gilt_unit_attr_get(gilt_op_get_context(op)));
  gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_test_false_unchanged_pass = {
    .name = "test-false-unchanged",
    .description = "Test pass: changes the IR but declares it unchanged",
    .anchor = NULL,
    .options = NULL,
    .run = run,
};
