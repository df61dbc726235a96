/*
** model_hash.c - a file's hash, remembered by its identity (model_hash.h
** says when that is safe): a model file's, and a cache entry's checksum
** once verified.
**
** What is remembered is one small file per file and version of it,
** DIR/<identity in hex>.hash: the magic "GILTHASH", then the hash and the
** size, little-endian u64s. The identity hashes the stat fields, so a
** changed file gets a new name and old ones are merely unused, like old
** cache entries.
*/
#define _DEFAULT_SOURCE /* struct stat's st_mtim and st_ctim */
#include "jit/model_hash.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jit/hash.h"
#include "jit/whole_file.h"

static const char magic[8] = {'G', 'I', 'L', 'T', 'H', 'A', 'S', 'H'};
enum { RECORD_SIZE = 24, RECENT_SECONDS = 2 };

/* DIR/<identity>.hash for the file that `st` describes. */
static void record_path(const char *dir, const struct stat *st, char *buf,
                        size_t size)
{
  uint64_t fields[7] = {
      (uint64_t)st->st_dev,          (uint64_t)st->st_ino,
      (uint64_t)st->st_size,         (uint64_t)st->st_mtim.tv_sec,
      (uint64_t)st->st_mtim.tv_nsec, (uint64_t)st->st_ctim.tv_sec,
      (uint64_t)st->st_ctim.tv_nsec};
  snprintf(buf, size, "%s/%016llx.hash", dir,
           (unsigned long long)jit_hash64(fields, sizeof fields, 0));
}

static bool read_record(const char *path, uint64_t size, uint64_t *hash)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return false;
  unsigned char b[RECORD_SIZE];
  bool ok = read(fd, b, sizeof b) == (ssize_t)sizeof b &&
            !memcmp(b, magic, 8) && jit_get64(b + 16) == size;
  close(fd);
  if (ok)
    *hash = jit_get64(b + 8);
  return ok;
}

/* Best effort: a record not written only costs the next run a hash. */
static void write_record(const char *path, uint64_t hash, uint64_t size)
{
  unsigned char b[RECORD_SIZE];
  memcpy(b, magic, 8);
  jit_put64(b + 8, hash);
  jit_put64(b + 16, size);
  char *tmp;
  int fd = whole_file_replace_begin(path, &tmp);
  if (fd >= 0)
    whole_file_replace_end(fd, &tmp, path,
                           write(fd, b, sizeof b) == (ssize_t)sizeof b);
}

/* Whether the file changed so recently that a second change might still
** leave its times as they are. */
static bool changed_recently(const struct stat *st)
{
  time_t now = time(NULL);
  return now - st->st_mtim.tv_sec < RECENT_SECONDS ||
         now - st->st_ctim.tv_sec < RECENT_SECONDS;
}

bool model_hash_recall(const char *dir, const struct stat *st,
                       uint64_t *hash)
{
  char record[4096];
  record_path(dir, st, record, sizeof record);
  return read_record(record, (uint64_t)st->st_size, hash);
}

void model_hash_remember(const char *dir, const struct stat *st,
                         uint64_t hash)
{
  if (changed_recently(st))
    return;
  char record[4096];
  record_path(dir, st, record, sizeof record);
  write_record(record, hash, (uint64_t)st->st_size);
}

bool model_hash_get(const char *path, const char *dir, uint64_t *hash,
                    uint64_t *size)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return false;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return false;
  }
  *size = (uint64_t)st.st_size;
  if (model_hash_recall(dir, &st, hash)) {
    close(fd);
    return true;
  }
  WholeFile f;
  bool ok = whole_file_read(fd, (size_t)st.st_size, &f);
  close(fd);
  if (!ok)
    return false;
  *hash = jit_hash64(f.data, f.size, 0);
  whole_file_free(&f);
  model_hash_remember(dir, &st, *hash);
  return true;
}
