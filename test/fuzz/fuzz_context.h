/*
** fuzz_context.h - the context every fuzz target starts an input from.
**
** Everything registered, as gopt has it, and diagnostics dropped: the
** targets feed mostly invalid input, so diagnostics are expected, and
** printing them would bury libFuzzer's own reports. Header-only because
** each target is its own program (the Makefile's fuzz rule builds one
** .c with the library sources).
*/
#ifndef GILT_TEST_FUZZ_CONTEXT_H
#define GILT_TEST_FUZZ_CONTEXT_H

#include "gilt/ir.h"
#include "gilt/register.h"

static void fuzz_ignore_diagnostic(const GiltDiagnostic *d, void *user)
{
  (void)d;
  (void)user;
}

static GiltContext *fuzz_context_create(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_diagnostic_handler(ctx, fuzz_ignore_diagnostic, NULL);
  return ctx;
}

#endif /* GILT_TEST_FUZZ_CONTEXT_H */
