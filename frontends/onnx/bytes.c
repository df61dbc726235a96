/*
** bytes.c - reference-counted read-only byte ranges, mapped or read (see
** bytes.h for why the importer keeps weights where they are).
**
** A mapping starts at a page boundary, so a range at any file offset maps
** the pages around it and points into them. The count is plain, not
** atomic: a context, and so everything holding these ranges, is used by
** one thread at a time.
*/
#define _DEFAULT_SOURCE /* madvise */
#include "frontends/onnx/bytes.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct GiltOnnxBytes {
  GiltContext *ctx;
  size_t refs;
  const uint8_t *data;
  size_t len;
  void *map; /* what munmap takes back; NULL: data is from gilt_malloc */
  size_t map_len;
};

static GiltOnnxBytes *bytes_new(GiltContext *ctx, const void *data,
                                size_t len)
{
  GiltOnnxBytes *b = gilt_calloc(ctx, 1, sizeof *b);
  b->ctx = ctx;
  b->refs = 1;
  b->data = data;
  b->len = len;
  return b;
}

GiltOnnxBytes *gilt_onnx_bytes_wrap(GiltContext *ctx, void *buf, size_t len)
{
  return bytes_new(ctx, buf, len);
}

/* Reads `len` bytes at `offset` into a buffer from gilt_malloc. */
static uint8_t *read_range(GiltContext *ctx, int fd, uint64_t offset,
                           size_t len, const char **error)
{
  uint8_t *buf = gilt_malloc(ctx, len);
  size_t done = 0;
  while (done < len) {
    ssize_t got = pread(fd, buf + done, len - done, (off_t)(offset + done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      *error = got < 0 ? strerror(errno) : "unexpected end of file";
      gilt_free(ctx, buf);
      return NULL;
    }
    done += (size_t)got;
  }
  return buf;
}

GiltOnnxBytes *gilt_onnx_bytes_map(GiltContext *ctx, int fd, uint64_t offset,
                                   size_t len, const char **error)
{
  GILT_ASSERT(len > 0);
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t skip = offset % page;
  if (len <= SIZE_MAX - skip) {
    void *map = mmap(NULL, len + skip, PROT_READ, MAP_PRIVATE, fd,
                     (off_t)(offset - skip));
    if (map != MAP_FAILED) {
      GiltOnnxBytes *b = bytes_new(ctx, (uint8_t *)map + skip, len);
      b->map = map;
      b->map_len = len + skip;
      return b;
    }
  }
  uint8_t *buf = read_range(ctx, fd, offset, len, error);
  return buf ? bytes_new(ctx, buf, len) : NULL;
}

const uint8_t *gilt_onnx_bytes_get_data(const GiltOnnxBytes *b)
{
  return b->data;
}

size_t gilt_onnx_bytes_get_size(const GiltOnnxBytes *b)
{
  return b->len;
}

void gilt_onnx_bytes_release(GiltOnnxBytes *b)
{
  if (!b || --b->refs > 0)
    return;
  if (b->map)
    munmap(b->map, b->map_len);
  else
    gilt_free(b->ctx, (void *)b->data);
  gilt_free(b->ctx, b);
}

/* A blob's bytes given back while the range they lie in lives on (other
** weights of the same mapped file are still read): the pages wholly
** inside them leave the process's memory now. They are never written, so
** the file still holds them, and nothing reads a released blob again. */
static void drop_pages(const GiltOnnxBytes *b, const void *data,
                       size_t nbytes)
{
  if (!b->map)
    return;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t start = ((uintptr_t)data + page - 1) / page * page;
  uintptr_t end = ((uintptr_t)data + nbytes) / page * page;
  if (start < end)
    madvise((void *)start, end - start, MADV_DONTNEED);
}

static void release_blob(void *user, void *data, size_t nbytes)
{
  GiltOnnxBytes *b = user;
  if (b->refs > 1)
    drop_pages(b, data, nbytes);
  gilt_onnx_bytes_release(b);
}

GiltAttr *gilt_onnx_bytes_resource(GiltOnnxBytes *b, GiltType *type,
                                   const char *name, const void *data,
                                   size_t nbytes)
{
  GILT_ASSERT((const uint8_t *)data >= b->data &&
              nbytes <= b->len - (size_t)((const uint8_t *)data - b->data));
  b->refs++;
  /* The context never writes blob bytes: the cast only hands them over. */
  return gilt_dense_resource_attr_take(type, name, (void *)data, nbytes,
                                       release_blob, b);
}
