/*
** model_hash.h - the hash of a model file's bytes, for the compile
** cache's key (model_cache.c), remembered by the file's identity so that
** a cache hit need not read the file at all; and, the same way, that a
** cache entry's checksum was verified (cache.c), so that a hit need not
** hash the entry's weights again (ResNet-18's 81 MB took 9 to 12 ms of a
** start-up of about 60).
**
** Hashing ResNet-18's 45 MB costs 10 to 50 ms, more than the rest of a
** cache hit's start-up besides the inference. Like ccache's direct mode
** and CPython's .pyc check, a hit trusts the file's identity instead: its
** device, inode, size, and modification and change times to the
** nanosecond. A write to the file changes its change time (which no user
** can set back), so the remembered hash is only used for the very bytes
** it was computed from. The exception is a file written twice within one
** tick of the file system's clock, which would keep its times: a file
** changed within the last two seconds is hashed, never remembered.
*/
#ifndef GILT_JIT_MODEL_HASH_H
#define GILT_JIT_MODEL_HASH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ir/support/alloc.h" /* GILT_INTERNAL */

/* XXH64 (seed 0) of the bytes of the regular file at `path` and their
** number, remembered in (and looked up from) folder `dir` as
** `<identity>.hash`, where it exists. False when the file cannot be read. */
GILT_INTERNAL bool model_hash_get(const char *path, const char *dir,
                                  uint64_t *hash, uint64_t *size);

/* The hash remembered in `dir` for the regular file that `st` describes,
** into *hash; false when none is. */
GILT_INTERNAL bool model_hash_recall(const char *dir, const struct stat *st,
                                     uint64_t *hash);
/* Remembers `hash` in `dir` for the file that `st` describes, unless it
** changed within the last two seconds; best effort. */
GILT_INTERNAL void model_hash_remember(const char *dir, const struct stat *st,
                                       uint64_t hash);

#endif /* GILT_JIT_MODEL_HASH_H */
