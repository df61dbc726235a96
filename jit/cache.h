/*
** cache.h - the compile cache's entries: one file per compiled model,
** holding the object file of its llvm-level module, its linked weights
** and the loop-level types of its entry functions, so that a later run loads the machine
** code into the JIT without importing, lowering or translating anything.
**
** What goes into the key and when the cache is used is the caller's
** business (gjit: tools/gjit/cache.c); this module writes an entry
** atomically and reads one back, checking everything it can before any
** byte of it is run. docs/jit.md describes the file format.
*/
#ifndef GILT_JIT_CACHE_H
#define GILT_JIT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "dialects/llvm/translate.h"
#include "gilt/jit.h"
#include "ir/support/alloc.h"
#include "jit/whole_file.h"

/* The format version; bump it whenever the layout of an entry or the
** meaning of what it holds changes. */
#define JIT_CACHE_FORMAT_VERSION 4u

/* Where a weight's bytes start in an entry: at a multiple of this file
** offset (of a page for large ones: cache.c), so that read into memory
** aligned to huge pages (whole_file.h) they are aligned as the code
** assumes. */
#define JIT_CACHE_WEIGHT_ALIGN LLVM_LINKED_WEIGHT_ALIGN

/* An entry function of a compiled module: its symbol and loop-level
** function type (what gilt_jit_call builds the libffi call from), and
** the names its model gives its arguments and results, in that order
** ("" or, when writing, NULL for one without a name; none at all when
** num_names is 0). */
typedef struct JitCacheFunction {
  const char *name;
  GiltType *type;
  size_t num_names;
  const char *const *names;
} JitCacheFunction;

/* An entry read back: the object, the functions and the weights point
** into the file's bytes and live until jit_cache_entry_close (after the
** JIT module that runs them). */
typedef struct JitCacheEntry {
  WholeFile file;
  const void *object;
  size_t object_size;
  size_t num_functions;
  JitCacheFunction *functions;
  size_t num_weights;
  LlvmLinkedWeight *weights;
} JitCacheEntry;

typedef enum JitCacheRead {
  JIT_CACHE_HIT,     /* *entry is filled */
  JIT_CACHE_MISSING, /* no file: nothing to say */
  JIT_CACHE_INVALID  /* a file that must not be used: *why says why */
} JitCacheRead;

/* The key of an entry: a hash of everything that decides its machine
** code. model_hash is the caller's hash of the model's bytes. */
GILT_INTERNAL uint64_t jit_cache_key(uint64_t model_hash, uint64_t model_size,
                                     const char *pipeline, const char *target,
                                     unsigned opt_level, const char *version);

/* The entry functions of a module at the llvm level: its llvm.func ops
** with a GILT_ABI_ENTRY_TYPE_ATTR, without argument and result names.
** *fns is a new array (free()) whose names and types are borrowed from
** the module. */
GILT_INTERNAL GiltStatus jit_cache_collect_functions(GiltOp *module,
                                                     size_t *num_fns,
                                                     JitCacheFunction **fns);

/* Writes the entry for `key` to `path`: to a temporary file beside it
** first, then renamed over it, so that a reader sees the old file, the
** new one or none, never half of one. On failure returns GILT_FAILURE
** with a static reason in *why (and errno's text appended to it where it
** applies, in why_buf) and leaves no temporary file behind. */
GILT_INTERNAL GiltStatus jit_cache_write(const char *path, uint64_t key,
                                         size_t num_fns,
                                         const JitCacheFunction *fns,
                                         size_t num_weights,
                                         const LlvmLinkedWeight *weights,
                                         const void *object,
                                         size_t object_size, char *why_buf,
                                         size_t why_size);

/* Reads the entry at `path` and checks its magic number, format version,
** key (`key`), size and payload checksum, then parses its function types
** in ctx. The checksum, once verified, is remembered by the file's
** identity in folder `records` (model_hash.h) and not computed again for
** the same file. JIT_CACHE_INVALID fills why_buf with the first check
** that failed. */
GILT_INTERNAL JitCacheRead jit_cache_read(GiltContext *ctx, const char *path,
                                          uint64_t key, const char *records,
                                          JitCacheEntry *entry, char *why_buf,
                                          size_t why_size);
GILT_INTERNAL void jit_cache_entry_close(JitCacheEntry *entry);

/* A JIT module for this host with `opts` (NULL: the defaults) running the
** object file object[0..size) (copied), whose functions fns[] become its
** entries, each reporting at loc, and whose linked weights are weights[]
** (jit_module_define_weights: borrowed where aligned). NULL after
** reporting at loc. */
GILT_INTERNAL GiltJitModule *jit_module_create_from_object(
    GiltLocation *loc, const GiltJitOptions *opts, const void *object,
    size_t size, size_t num_fns, const JitCacheFunction *fns,
    size_t num_weights, const LlvmLinkedWeight *weights);

#endif /* GILT_JIT_CACHE_H */
