/*
** object_link_fuzzer.c - libFuzzer target for the in-process linker
** (jit/object_link.h), which reads a compile cache entry's object file.
**
** Links arbitrary bytes as an object with every undefined symbol resolved
** to one buffer of the target's own (so no input makes it search the
** process), looks up a symbol in what links, and unmaps it; nothing
** linked is run. A cache entry's checksum keeps damaged files from the
** linker, so what this guards is the linker's own reading of any file:
** any crash, sanitizer report or leak is a bug; diagnostics are expected.
** Seeds: objects gjit --aot writes (test/fuzz/README.md).
*/
#include <stdint.h>

#include "test/fuzz/fuzz_context.h"

#include "jit/object_link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char undefined_symbols[64];

static void *resolve(const char *name, void *user)
{
  (void)name;
  (void)user;
  return undefined_symbols;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  GiltContext *ctx = fuzz_context_create();
  GiltLocation *loc = gilt_location_name_get(ctx, "fuzz.o", NULL);
  ObjectLink *link = object_link_create(data, size, resolve, NULL, loc);
  if (link) {
    (void)object_link_lookup(link, "main");
    object_link_destroy(link);
  }
  gilt_context_destroy(ctx);
  return 0;
}
