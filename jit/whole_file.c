/*
** whole_file.c - a file read whole into anonymous memory, asking for
** transparent huge pages (whole_file.h says why), and a file replaced
** through a temporary file and rename(2), atomic on POSIX file systems.
**
** The region is rounded up to, and aligned at, the huge page size, since
** the kernel backs only whole aligned huge pages; where it gives none
** (transparent huge pages off, or no madvise), the same code reads into
** ordinary pages.
*/
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
#include "jit/whole_file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { HUGE_PAGE = 2u << 20 };

static size_t round_up(size_t n)
{
  return (n + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
}

bool whole_file_read(int fd, size_t size, WholeFile *f)
{
  *f = (WholeFile){0};
  if (size > SIZE_MAX - 2 * (size_t)HUGE_PAGE) {
    errno = EFBIG;
    return false;
  }
  /* One huge page more than needed, to start at an aligned address. */
  size_t region_size = round_up(size) + HUGE_PAGE;
  void *region = mmap(NULL, region_size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED)
    return false;
  uintptr_t aligned = ((uintptr_t)region + HUGE_PAGE - 1) &
                      ~(uintptr_t)(HUGE_PAGE - 1);
  unsigned char *data = (unsigned char *)aligned;
#ifdef MADV_HUGEPAGE
  (void)madvise(data, round_up(size), MADV_HUGEPAGE); /* a hint only */
#endif
  size_t done = 0;
  while (done < size) {
    ssize_t n = pread(fd, data + done, size - done, (off_t)done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO; /* EIO: the file shrank */
      munmap(region, region_size);
      errno = err;
      return false;
    }
    done += (size_t)n;
  }
  *f = (WholeFile){data, size, region, region_size};
  return true;
}

void whole_file_free(WholeFile *f)
{
  if (f->region)
    munmap(f->region, f->region_size);
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
