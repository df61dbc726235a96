/*
** parse_fuzzer.c - libFuzzer target for the textual IR parser.
**
** Feeds arbitrary bytes to gilt_parse_source (unregistered dialects
** allowed, so the generic form is reachable), and when the input parses,
** verifies and prints it and parses the printout again, which must
** succeed: anything the printer emits is valid syntax. Seeds are the lit
** inputs (`make fuzz-run` passes test/lit as the corpus). Diagnostics are
** counted, not printed, so the fuzzer's output stays quiet.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Text {
  char *data;
  size_t len;
} Text;

static void collect(const char *data, size_t len, void *user)
{
  Text *t = user;
  char *grown = realloc(t->data, t->len + len + 1);
  if (!grown)
    abort();
  t->data = grown;
  memcpy(t->data + t->len, data, len);
  t->len += len;
  t->data[t->len] = '\0';
}

static void ignore(const GiltDiagnostic *d, void *user)
{
  (void)d;
  (void)user;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  GiltContext *ctx = gilt_context_create();
  gilt_context_set_diagnostic_handler(ctx, ignore, NULL);
  gilt_context_set_allow_unregistered_dialects(ctx, true);
  GiltOp *module =
      gilt_parse_source(ctx, (const char *)data, size, "fuzz.gilt");
  if (module) {
    gilt_op_verify(module);
    Text printed = {0};
    gilt_op_print(module, NULL, collect, &printed);
    GiltOp *again =
        gilt_parse_source(ctx, printed.data ? printed.data : "", printed.len,
                          "printed.gilt");
    if (!again)
      abort(); /* the printer produced text the parser rejects */
    gilt_op_destroy(again);
    free(printed.data);
    gilt_op_destroy(module);
  }
  gilt_context_destroy(ctx);
  return 0;
}
