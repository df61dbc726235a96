/*
** onnx_import_fuzzer.c - libFuzzer target for the ONNX importer
** (gilt/onnx.h): bytes in, graph-dialect module out.
**
** Where onnx_reader_fuzzer stops at decoded protobuf structures, this one
** goes on through the importer proper: attribute conversion, the operator
** set upgrades, op construction and the graph dialect's verifiers and
** printers. Each input is imported from memory with no directory, so
** external data is refused and no file is touched; a module that imports
** is verified and printed (into a sink). Diagnostics are expected and
** ignored; any crash, sanitizer report or leak is a bug. Seeds: the
** model.onnx files of the ONNX backend test data (test/fuzz/README.md).
*/
#include <stdint.h>
#include <stdlib.h>

#include "gilt/ir.h"
#include "test/fuzz/fuzz_context.h"
#include "gilt/onnx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Counts the bytes so the printer's output is consumed, not optimized. */
static void sink(const char *text, size_t len, void *user)
{
  (void)text;
  *(size_t *)user += len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  GiltContext *ctx = fuzz_context_create();

  GiltOp *module =
      gilt_onnx_import_buffer(ctx, data, size, "fuzz.onnx", NULL);
  if (module) {
    /* A module that fails to verify is a finding only if verifying or
    ** printing it crashes; the importer may build ops the verifier then
    ** rejects with a diagnostic. */
    size_t printed = 0;
    GiltPrintFlags flags = {0};
    flags.debug_info = true;
    flags.elide_elements_larger_than = 16;
    if (gilt_op_verify(module) == GILT_SUCCESS)
      gilt_op_print(module, &flags, sink, &printed);
    gilt_op_destroy(module);
  }

  gilt_context_destroy(ctx);
  return 0;
}
