/*
** test_pass_failure.c - `test-pass-failure`: a pass that always fails, to
** test what the pass manager does with failing passes.
**
** It reports an error at the op it runs on and fails; with `crash=true` it
** dereferences a null pointer instead, to exercise the crash reproducer.
** It requires nothing, changes nothing, and has no use outside tests.
*/
#include "test/lib/test_defs.h"

#include "ir/core.h"

static const GiltPassOptionDef options[] = {
    {"crash", GILT_OPTION_BOOL, "false",
     "Crash with SIGSEGV instead of failing"},
    {0}};

/* A real null dereference; the sanitizers are told to let it happen so
** that the signal, not a sanitizer report, ends the process. */
#if defined(__GNUC__)
__attribute__((no_sanitize("undefined")))
#endif
static void crash(void)
{
  volatile int *volatile null = NULL;
  *null = 0;
}

static GiltStatus run(GiltPass *pass, GiltOp *op)
{
  if (gilt_pass_get_option_bool(pass, "crash"))
    crash();
  return gilt_op_emit_error(op, "test-pass-failure: failing as asked");
}

const GiltPassDef gilt_test_pass_failure_pass = {
    .name = "test-pass-failure",
    .description = "Test pass: always fails (or crashes, with crash=true)",
    .anchor = NULL,
    .options = options,
    .run = run,
};
