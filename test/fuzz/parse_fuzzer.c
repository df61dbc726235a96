/*
** parse_fuzzer.c - libFuzzer target for the textual IR parser, printer and
** verifier.
**
** Feeds arbitrary bytes to gilt_parse_source (every dialect and the test
** dialect registered, unregistered dialects allowed, so the generic form
** is reachable) and verifies what parses.
** IR that verifies must round-trip: its printout parses again, and
** printing that gives the same bytes (print(parse(print(x))) == print(x)),
** or the fuzzer aborts. IR that fails to verify is printed (the printer
** must cope with it) but not parsed again: like MLIR, gilt cannot read
** back everything the verifier rejects (an entry block with predecessors
** prints without a label, so the branches to it name no block).
** Diagnostics are dropped, not printed, so the fuzzer's output stays
** quiet. Seeds are the lit inputs; test/fuzz/README.md says how to run it.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/ir.h"
#include "test/fuzz/fuzz_context.h"

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

static Text print_op(GiltOp *op)
{
  Text t = {0};
  gilt_op_print(op, NULL, collect, &t);
  return t;
}

/* Shows both printouts before aborting, so a crash report explains itself. */
static void fail(const char *why, const Text *first, const Text *second)
{
  fprintf(stderr, "parse_fuzzer: %s\n--- first print ---\n%.*s\n", why,
          (int)first->len, first->data ? first->data : "");
  if (second)
    fprintf(stderr, "--- second print ---\n%.*s\n", (int)second->len,
            second->data ? second->data : "");
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  GiltContext *ctx = fuzz_context_create();
  gilt_context_set_allow_unregistered_dialects(ctx, true);
  GiltOp *module =
      gilt_parse_source(ctx, (const char *)data, size, "fuzz.gilt");
  if (module) {
    bool valid = gilt_op_verify(module) == GILT_SUCCESS;
    Text first = print_op(module);
    if (valid) {
      GiltOp *again = gilt_parse_source(ctx, first.data ? first.data : "",
                                        first.len, "printed.gilt");
      if (!again)
        fail("the printer produced text the parser rejects", &first, NULL);
      Text second = print_op(again);
      if (second.len != first.len ||
          memcmp(second.data, first.data, first.len) != 0)
        fail("print -> parse -> print is not byte-identical", &first,
             &second);
      free(second.data);
      gilt_op_destroy(again);
    }
    free(first.data);
    gilt_op_destroy(module);
  }
  gilt_context_destroy(ctx);
  return 0;
}
