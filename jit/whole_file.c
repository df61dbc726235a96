/*
** whole_file.c - a file read whole as a private read-only mapping of its
** page cache, populated at once (whole_file.h says why), and a file
** replaced through a temporary file and rename(2), atomic on POSIX file
** systems.
*/
#define _DEFAULT_SOURCE /* MAP_POPULATE */
#include "jit/whole_file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

bool whole_file_read(int fd, size_t size, WholeFile *f)
{
  /* A mapping of no bytes is an error: an empty file has nothing to map. */
  static _Alignas(64) unsigned char empty[1];
  *f = (WholeFile){empty, 0};
  if (size == 0)
    return true;
  void *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (data == MAP_FAILED)
    return false;
  *f = (WholeFile){data, size};
  return true;
}

void whole_file_free(WholeFile *f)
{
  if (f->size)
    munmap((void *)f->data, f->size);
  *f = (WholeFile){0};
}

int whole_file_replace_begin(const char *path, char **tmp)
{
  size_t n = strlen(path) + 16;
  *tmp = malloc(n);
  if (!*tmp) {
    errno = ENOMEM;
    return -1;
  }
  snprintf(*tmp, n, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(*tmp);
  if (fd < 0) {
    int err = errno;
    free(*tmp);
    *tmp = NULL;
    errno = err;
  }
  return fd;
}

bool whole_file_replace_end(int fd, char **tmp, const char *path, bool ok)
{
  int err = ok ? 0 : errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && rename(*tmp, path) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok)
    unlink(*tmp);
  free(*tmp);
  *tmp = NULL;
  errno = err;
  return ok;
}
