/*
** whole_file.h - files the compile cache reads and writes whole: read
** into memory of its own, on huge pages where the system gives them (a
** model hashed, an entry checked and its weights used in place), and
** replaced atomically (written beside, then renamed over), so that a
** concurrent reader sees the old file, the new one or none.
**
** Why not mmap: on a cache hit every page of a 45 MB file is touched
** once, and each first touch of a mapped page is a page fault. On the
** virtual machines gilt is measured on a fault costs microseconds, and
** ResNet-18's file took 30 to 60 ms to hash through a mapping (MAP_POPULATE
** or not) against 10 to 15 ms read() into 2 MB pages and hashed. The
** kernel copies from its page cache without faulting the reader's pages
** one by one, and the code that later reads the weights walks 23 huge
** pages instead of 11,000 small ones.
*/
#ifndef GILT_JIT_WHOLE_FILE_H
#define GILT_JIT_WHOLE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/support/alloc.h" /* GILT_INTERNAL */

/* The bytes of a file read whole; release with whole_file_free. */
typedef struct WholeFile {
  unsigned char *data; /* size bytes, aligned to at least 64 */
  size_t size;
  void *region; /* the mapping that holds data */
  size_t region_size;
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
