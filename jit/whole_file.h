/*
** whole_file.h - files the compile cache reads and writes whole: read as
** a private read-only mapping of the file, every page mapped at once
** (MAP_POPULATE: a model hashed, an entry checked and its weights used in
** place), and replaced atomically (written beside, then renamed over), so
** that a concurrent reader sees the old file, the new one or none, and a
** mapping of the old one stays whole.
**
** Why a populated mapping: the pages are the page cache's own, so nothing
** is allocated, zeroed or copied. Reading into memory of the process's
** own, even on transparent huge pages, has the kernel zero every page
** first, and on the Firecracker virtual machines gilt is measured on the
** first touch of fresh memory is the slow part: ResNet-18's 81 MB cache
** entry took 20 to 157 ms to pread() into 2 MB pages, 1.5 to 2 ms to map
** populated, and 9 to 12 ms to hash either way (an earlier VM had it the
** other way round: 30 to 60 ms to hash through a mapping, 10 to 15 to
** read; measure before changing it back). Without MAP_POPULATE each
** first touch of a page is a fault.
**
** A file cut short while it is mapped raises SIGBUS when the missing
** pages are read: the cache never truncates an entry (it renames a new
** file over it), and a model file shortened under a running import is
** left to the user.
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
} WholeFile;

/* Reads the `size` bytes of the open file `fd` from offset 0 into f;
** false with errno set when they cannot be read (f is then empty). */
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
