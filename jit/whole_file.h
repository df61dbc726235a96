/*
** whole_file.h - files the compile cache reads and writes whole, and
** replaces atomically (written beside, then renamed over), so that a
** concurrent reader sees the old file, the new one or none, and a mapping
** of the old one stays whole.
**
** A cache entry is mapped: a private read-only mapping of the file, every
** page mapped at once (MAP_POPULATE), its weights then used in place. The
** pages are the page cache's own, so nothing is allocated, zeroed or
** copied. Reading into memory of the process's own, even on transparent
** huge pages, has the kernel zero every page first, and on the
** Firecracker virtual machines gilt is measured on, the first touch of
** fresh memory is the slow part: ResNet-18's 81 MB entry took 20 to 157
** ms to pread() into 2 MB pages, 1.5 to 2 ms to map populated, and 9 to
** 12 ms to hash either way (an earlier VM had it the other way round: 30
** to 60 ms to hash through a mapping, 10 to 15 to read; measure before
** changing it back). A mapped file cut short raises SIGBUS where its
** missing pages are read, so only files that gilt alone writes, and
** replaces by rename, never truncates, are mapped.
**
** A model, which its user may rewrite while gilt hashes it, is read as a
** copy: a file that shrinks under the read is an error, not a crash. Its
** hash is remembered (model_hash.h), so this is once per version of it.
*/
#ifndef GILT_JIT_WHOLE_FILE_H
#define GILT_JIT_WHOLE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/support/alloc.h" /* GILT_INTERNAL */

/* The bytes of a file read whole; release with whole_file_free. */
typedef struct WholeFile {
  const unsigned char *data; /* size bytes, aligned to at least 64 */
  size_t size;
  bool mapped; /* else a copy of its own */
} WholeFile;

/* Maps the `size` bytes (more than 0) of the open file `fd`, which only
** gilt writes (see above), from offset 0 into f; false with errno set
** when they cannot be mapped (f is then empty). */
GILT_INTERNAL bool whole_file_map(int fd, size_t size, WholeFile *f);

/* Reads the `size` bytes of the open file `fd` from offset 0 into a copy
** in f; false with errno set when they cannot be read, the file shorter
** than `size` included (f is then empty). */
GILT_INTERNAL bool whole_file_read(int fd, size_t size, WholeFile *f);

GILT_INTERNAL void whole_file_free(WholeFile *f);

/* Opens a new temporary file beside `path` (PATH.tmp.XXXXXX) to write
** the file's new contents into; its name in *tmp (free()). -1 with errno
** set when it cannot be created (*tmp is then NULL). */
GILT_INTERNAL int whole_file_replace_begin(const char *path, char **tmp);

/* Closes fd and, when `ok` (everything was written), renames *tmp over
** `path`; otherwise, or when that fails, removes *tmp. Frees *tmp. False
** with errno set (from the first failure) when `path` was not replaced. */
GILT_INTERNAL bool whole_file_replace_end(int fd, char **tmp,
                                          const char *path, bool ok);

#endif /* GILT_JIT_WHOLE_FILE_H */
