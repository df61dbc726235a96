/*
** whole_file.c - a file read whole, as a private read-only mapping of its
** page cache populated at once or as a copy (whole_file.h says which
** when), and a file replaced through a temporary file and rename(2),
** atomic on POSIX file systems.
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

bool whole_file_map(int fd, size_t size, WholeFile *f)
{
  *f = (WholeFile){0};
  void *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (data == MAP_FAILED)
    return false;
  *f = (WholeFile){data, size, true};
  return true;
}

bool whole_file_read(int fd, size_t size, WholeFile *f)
{
  *f = (WholeFile){0};
  if (size > SIZE_MAX - 64) {
    errno = EFBIG;
    return false;
  }
  unsigned char *data = aligned_alloc(64, (size + 64) & ~(size_t)63);
  if (!data)
    return false;
  size_t done = 0;
  while (done < size) {
    ssize_t n = pread(fd, data + done, size - done, (off_t)done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO; /* EIO: the file shrank */
      free(data);
      errno = err;
      return false;
    }
    done += (size_t)n;
  }
  *f = (WholeFile){data, size, false};
  return true;
}

void whole_file_free(WholeFile *f)
{
  if (f->mapped)
    munmap((void *)f->data, f->size);
  else
    free((void *)f->data);
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
