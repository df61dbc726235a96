/*
** verify_diagnostics.h - --verify-diagnostics: diagnostics checked against
** the `expected-*` annotations written in the input.
**
** The semantics are MLIR's (SourceMgrDiagnosticVerifierHandler):
**
**     // expected-error {{substring}}          on this line
**     // expected-warning@+2 {{substring}}     two lines below (@-N above)
**     // expected-note@above {{substring}}     the last line without an
**     // expected-remark@below {{substring}}   annotation / the next one
**     // expected-error@unknown {{substring}}  at an unknown location (@*
**                                             is accepted as well)
**     // expected-error-re {{value {{[0-9]+}} is unused}}
**
** A diagnostic matches an expectation of its severity on its line whose
** text it contains (or, for `-re`, where the `{{...}}` parts are POSIX
** extended regexes, that it matches). Only lines count, not columns; one
** expectation may absorb several identical diagnostics; notes attached to
** a diagnostic are matched as diagnostics of their own. Every diagnostic
** must be expected and every expectation met; the complaints are printed
** to stderr clang-style. This module does not print expected diagnostics.
*/
#ifndef GOPT_VERIFY_DIAGNOSTICS_H
#define GOPT_VERIFY_DIAGNOSTICS_H

#include "gilt/ir.h"

typedef struct GoptVerifier GoptVerifier;

/* Reads the expectations in buf, the text of `filename`, and installs the
** verifier as ctx's diagnostic handler. `filename` is borrowed until
** gopt_verifier_finish; register buf with gilt_context_add_source_buffer
** first so that complaints quote it. A malformed `-re` annotation is
** reported at once and makes the verification fail. */
GoptVerifier *gopt_verifier_create(GiltContext *ctx, const char *filename,
                                   const char *buf, size_t len);

/* Reports every expectation that was not met, uninstalls the handler and
** frees the verifier. Returns GILT_SUCCESS iff every diagnostic was
** expected and every expectation met. */
GiltStatus gopt_verifier_finish(GoptVerifier *v);

#endif /* GOPT_VERIFY_DIAGNOSTICS_H */
