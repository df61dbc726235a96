/*
** cache.c - compile cache entries (cache.h): writing one atomically,
** reading one back with every check done before anything of it runs, and
** a JIT module made from the object it holds.
**
** An entry is one file, little-endian (docs/jit.md):
**
**     offset  size  field
**          0     8  magic "GILTJITC"
**          8     4  format version (JIT_CACHE_FORMAT_VERSION)
**         12     4  header size (48)
**         16     8  key
**         24     8  payload size (the file's size minus the header's)
**         32     8  XXH64 of the payload (seed 0)
**         40     8  zero
**         48        payload: u32 number of functions; per function a u32
**                   length and the NUL-terminated name, a u32 length and
**                   the NUL-terminated loop-level type as gilt prints it,
**                   a u32 number of argument and result names and each
**                   name as a u32 length and the NUL-terminated string;
**                   u32 number of weights; per weight a u32 length and the
**                   NUL-terminated symbol, and a u64 size in bytes; then a
**                   u64 object size and the object file's bytes; then each
**                   weight's bytes in table order, each starting at a file
**                   offset that is a multiple of 64, of 4096 for one of
**                   GILT_WEIGHT_PAGE bytes or more (zeros between).
**
** The file is read whole as a populated read-only mapping (whole_file.h:
** not copied into memory of the process's own): the object (the code
** only: its large weights are linked, translate.h) is copied once by its
** linker (jit_module_add_object),
** and the weights are used where they lie in the mapping, aligned as the
** code assumes. A ResNet-18 entry is 81 MB, nearly all weights, and the
** checksum is the only pass over them before the model runs (once per
** version of the file: its verified checksum is remembered by its
** identity, model_hash.h, so that damage below the file system, which
** leaves the file's times alone, is caught only on its first read). The header holds
** the key so that a file renamed, or a hash that collides in the
** file name's truncation, is still caught; the checksum catches a file
** cut short or damaged. What it does not do is stop anyone who can write
** the cache directory: such a person can run code as the user anyway.
*/
#include "jit/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gilt/dialect.h"
#include "ir/core.h"
#include "jit/abi.h"
#include "jit/hash.h"
#include "jit/jit.h"
#include "jit/model_hash.h"

static const char magic[8] = {'G', 'I', 'L', 'T', 'J', 'I', 'T', 'C'};
enum { HEADER_SIZE = 48 };

/* ---- the key ------------------------------------------------------------ */

/* Each field with its length before it, so that no two different lists
** of fields give the same bytes. */
static void put_field(unsigned char **p, const void *data, uint64_t len)
{
  for (int i = 0; i < 8; i++)
    *(*p)++ = (unsigned char)(len >> (8 * i));
  memcpy(*p, data, len);
  *p += len;
}

uint64_t jit_cache_key(uint64_t model_hash, uint64_t model_size,
                       const char *pipeline, const char *target,
                       unsigned opt_level, const char *version)
{
  size_t n = 8 * 8 + strlen(pipeline) + strlen(target) + strlen(version) + 32;
  unsigned char *buf = malloc(n), *p = buf;
  if (!buf)
    return 0;
  uint64_t words[3] = {model_hash, model_size, opt_level};
  put_field(&p, "gilt-jit-cache", 14);
  put_field(&p, words, sizeof words); /* host order: so is the object */
  put_field(&p, pipeline, strlen(pipeline));
  put_field(&p, target, strlen(target));
  put_field(&p, version, strlen(version));
  uint64_t key = jit_hash64(buf, (size_t)(p - buf), JIT_CACHE_FORMAT_VERSION);
  free(buf);
  return key;
}

/* ---- functions ----------------------------------------------------------- */

GiltStatus jit_cache_collect_functions(GiltOp *module, size_t *num_fns,
                                       JitCacheFunction **fns)
{
  *num_fns = 0;
  *fns = NULL;
  size_t cap = 0;
  for (GiltOp *op = gilt_block_get_first_op(gilt_module_get_body(module)); op;
       op = gilt_op_get_next(op)) {
    GiltAttr *type = gilt_op_get_attr(op, GILT_ABI_ENTRY_TYPE_ATTR);
    GiltAttr *name = gilt_op_get_attr(op, "sym_name");
    if (strcmp(gilt_op_get_name(op), "llvm.func") || !type || !name ||
        gilt_attr_get_kind(type) != GILT_ATTR_TYPE)
      continue;
    if (*num_fns == cap) {
      cap = cap ? 2 * cap : 4;
      JitCacheFunction *grown = realloc(*fns, cap * sizeof *grown);
      if (!grown) {
        free(*fns);
        *fns = NULL;
        *num_fns = 0;
        gilt_op_emit_error(module, "out of memory listing entry functions");
        return GILT_FAILURE;
      }
      *fns = grown;
    }
    (*fns)[(*num_fns)++] = (JitCacheFunction){
        gilt_string_attr_get_value(name, NULL), gilt_type_attr_get_value(type),
        0, NULL};
  }
  return GILT_SUCCESS;
}

/* ---- writing ------------------------------------------------------------- */

static void put32(GiltStrBuf *sb, uint32_t v)
{
  unsigned char b[4];
  for (int i = 0; i < 4; i++)
    b[i] = (unsigned char)(v >> (8 * i));
  gilt_strbuf_append(sb, (const char *)b, 4);
}

/* The payload before the object: the functions, the weights, then the
** object's size. */
static void write_tables(GiltStrBuf *sb, size_t num_fns,
                         const JitCacheFunction *fns, size_t num_weights,
                         const LlvmLinkedWeight *weights, size_t object_size)
{
  put32(sb, (uint32_t)num_fns);
  for (size_t i = 0; i < num_fns; i++) {
    put32(sb, (uint32_t)strlen(fns[i].name) + 1);
    gilt_strbuf_append(sb, fns[i].name, strlen(fns[i].name) + 1);
    GiltStrBuf type;
    gilt_strbuf_init(&type, sb->ctx);
    gilt_type_print(fns[i].type, gilt_strbuf_callback, &type);
    put32(sb, (uint32_t)type.len + 1);
    gilt_strbuf_append(sb, type.data, type.len + 1);
    gilt_strbuf_free(&type);
    put32(sb, (uint32_t)fns[i].num_names);
    for (size_t j = 0; j < fns[i].num_names; j++) {
      const char *name = fns[i].names[j] ? fns[i].names[j] : "";
      put32(sb, (uint32_t)strlen(name) + 1);
      gilt_strbuf_append(sb, name, strlen(name) + 1);
    }
  }
  unsigned char b[8];
  put32(sb, (uint32_t)num_weights);
  for (size_t i = 0; i < num_weights; i++) {
    put32(sb, (uint32_t)strlen(weights[i].symbol) + 1);
    gilt_strbuf_append(sb, weights[i].symbol, strlen(weights[i].symbol) + 1);
    jit_put64(b, weights[i].nbytes);
    gilt_strbuf_append(sb, (const char *)b, 8);
  }
  jit_put64(b, object_size);
  gilt_strbuf_append(sb, (const char *)b, 8);
}

/* The zeros that take file offset `at` to the start of a weight of
** `nbytes`: a large one starts on a page, as gilt_blob_alloc places it
** (the file is mapped whole, so its offsets are the weights' places in
** their pages). */
static size_t padding(uint64_t at, uint64_t nbytes)
{
  uint64_t align = gilt_weight_alignment(nbytes, JIT_CACHE_WEIGHT_ALIGN);
  return (size_t)((align - at % align) % align);
}

static bool write_all(int fd, const void *data, size_t len)
{
  const char *p = data;
  while (len) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    len -= (size_t)n;
  }
  return true;
}

/* Pads the file (at offset *at) with zeros to the start of the next
** weight, of `nbytes`. */
static bool write_padding(int fd, uint64_t *at, uint64_t nbytes)
{
  static const unsigned char zeros[GILT_WEIGHT_PAGE];
  size_t n = padding(*at, nbytes);
  *at += n;
  return write_all(fd, zeros, n);
}

/* Everything after the header, then the payload's checksum into the
** header: hashed from a mapping of what was written, so that no second
** copy of the weights is made to hash them. */
static bool write_payload(int fd, const GiltStrBuf *tables,
                          const void *object, size_t object_size,
                          size_t num_weights, const LlvmLinkedWeight *weights)
{
  uint64_t at = HEADER_SIZE + tables->len + object_size;
  bool ok = write_all(fd, tables->data, tables->len) &&
            write_all(fd, object, object_size);
  for (size_t i = 0; i < num_weights && ok; i++) {
    ok = write_padding(fd, &at, weights[i].nbytes) &&
         write_all(fd, weights[i].data, weights[i].nbytes);
    at += weights[i].nbytes;
  }
  if (!ok)
    return false;
  void *map = mmap(NULL, (size_t)at, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED)
    return false;
  unsigned char sum[8];
  jit_put64(sum, jit_hash64((unsigned char *)map + HEADER_SIZE,
                        (size_t)at - HEADER_SIZE, 0));
  munmap(map, (size_t)at);
  return pwrite(fd, sum, 8, 32) == 8;
}

GiltStatus jit_cache_write(const char *path, uint64_t key, size_t num_fns,
                           const JitCacheFunction *fns, size_t num_weights,
                           const LlvmLinkedWeight *weights, const void *object,
                           size_t object_size, char *why_buf, size_t why_size)
{
  if (num_fns == 0 || !fns[0].type) {
    snprintf(why_buf, why_size, "the module has no entry function");
    return GILT_FAILURE;
  }
  GiltStrBuf tables;
  gilt_strbuf_init(&tables, gilt_type_get_context(fns[0].type));
  write_tables(&tables, num_fns, fns, num_weights, weights, object_size);
  uint64_t payload_size = tables.len + object_size;
  for (size_t i = 0; i < num_weights; i++)
    payload_size += padding(HEADER_SIZE + payload_size, weights[i].nbytes) +
                    weights[i].nbytes;
  unsigned char header[HEADER_SIZE] = {0};
  memcpy(header, magic, 8);
  for (int i = 0; i < 4; i++) {
    header[8 + i] = (unsigned char)(JIT_CACHE_FORMAT_VERSION >> (8 * i));
    header[12 + i] = (unsigned char)((unsigned)HEADER_SIZE >> (8 * i));
  }
  jit_put64(header + 16, key);
  jit_put64(header + 24, payload_size);

  char *tmp;
  int fd = whole_file_replace_begin(path, &tmp);
  if (fd < 0) {
    gilt_strbuf_free(&tables);
    snprintf(why_buf, why_size, "cannot write beside '%s': %s", path,
             strerror(errno));
    return GILT_FAILURE;
  }
  bool ok = write_all(fd, header, sizeof header) &&
            write_payload(fd, &tables, object, object_size, num_weights,
                          weights);
  gilt_strbuf_free(&tables);
  ok = whole_file_replace_end(fd, &tmp, path, ok);
  if (!ok)
    snprintf(why_buf, why_size, "cannot write '%s': %s", path,
             strerror(errno));
  return ok ? GILT_SUCCESS : GILT_FAILURE;
}

/* ---- reading ------------------------------------------------------------- */

static uint32_t get32(const unsigned char *b)
{
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
         (uint32_t)b[3] << 24;
}

/* A NUL-terminated string of the payload at *p (its u32 length first),
** bounds checked against end. */
static const char *get_string(const unsigned char **p,
                              const unsigned char *end)
{
  if (end - *p < 4)
    return NULL;
  uint32_t n = get32(*p);
  *p += 4;
  if (n == 0 || (size_t)(end - *p) < n || (*p)[n - 1] != '\0' ||
      memchr(*p, '\0', n) != (const void *)(*p + n - 1))
    return NULL;
  const char *s = (const char *)*p;
  *p += n;
  return s;
}

/* The argument and result names of function f (at *p): a new array into
** f, or false when malformed. */
static bool parse_names(const unsigned char **p, const unsigned char *end,
                        JitCacheFunction *f)
{
  if (end - *p < 4)
    return false;
  uint32_t n = get32(*p);
  *p += 4;
  if (n > (size_t)(end - *p) / 5)
    return false;
  const char **names = calloc(n ? n : 1, sizeof *names);
  if (!names)
    return false;
  f->names = names;
  for (uint32_t i = 0; i < n; i++)
    if (!(names[f->num_names++] = get_string(p, end)))
      return false;
  return true;
}

/* The payload's weights (table at *p, bytes after the object) into e. */
static const char *parse_weights(const unsigned char **p,
                                 const unsigned char *end, JitCacheEntry *e)
{
  if (end - *p < 4)
    return "no weight table";
  uint32_t n = get32(*p);
  *p += 4;
  if (n > (size_t)(end - *p) / 10)
    return "a bad number of weights";
  e->weights = calloc(n ? n : 1, sizeof *e->weights);
  if (!e->weights)
    return "out of memory";
  for (uint32_t i = 0; i < n; i++) {
    const char *symbol = get_string(p, end);
    if (!symbol || end - *p < 8)
      return "a malformed weight table";
    e->weights[e->num_weights++] =
        (LlvmLinkedWeight){symbol, NULL, (size_t)jit_get64(*p)};
    *p += 8;
  }
  return NULL;
}

/* Where each weight's bytes lie in the file of `size` bytes at `file`,
** after the object that ends at offset `at`; the last must end with the
** file. */
static const char *place_weights(const unsigned char *file, uint64_t at,
                                 uint64_t size, JitCacheEntry *e)
{
  for (size_t i = 0; i < e->num_weights; i++) {
    at += padding(at, e->weights[i].nbytes);
    if (at > size || size - at < e->weights[i].nbytes)
      return "weights that do not fit in the file";
    e->weights[i].data = file + at;
    at += e->weights[i].nbytes;
  }
  return at == size ? NULL : "bytes after the last weight";
}

/* The payload's functions, weights and object, into e; a reason when
** malformed. */
static const char *parse_payload(GiltContext *ctx, const unsigned char *file,
                                 const unsigned char *end, JitCacheEntry *e)
{
  const unsigned char *p = file + HEADER_SIZE;
  if (end - p < 4)
    return "no function table";
  uint32_t n = get32(p);
  p += 4;
  if (n == 0 || n > (size_t)(end - p) / 8)
    return "a bad number of functions";
  e->functions = calloc(n, sizeof *e->functions);
  if (!e->functions)
    return "out of memory";
  for (uint32_t i = 0; i < n; i++) {
    const char *name = get_string(&p, end), *type = name ? get_string(&p, end)
                                                         : NULL;
    if (!type)
      return "a malformed function table";
    GiltType *t = gilt_type_parse(ctx, type);
    if (!t || gilt_type_get_kind(t) != GILT_TYPE_FUNCTION)
      return "a function type that does not parse";
    JitCacheFunction *f = &e->functions[e->num_functions++];
    *f = (JitCacheFunction){name, t, 0, NULL};
    if (!parse_names(&p, end, f))
      return "a malformed function table";
  }
  const char *why = parse_weights(&p, end, e);
  if (why)
    return why;
  if (end - p < 8 || jit_get64(p) > (uint64_t)(end - p - 8))
    return "an object size that does not match the file";
  e->object = p + 8;
  e->object_size = (size_t)jit_get64(p);
  return place_weights(file, (uint64_t)(p + 8 - file) + e->object_size,
                       (uint64_t)(end - file), e);
}

/* The checks of an entry's bytes, or why it fails one. `verified`: the
** checksum that an earlier read of this very file (by its identity)
** found right, NULL if none: the payload is hashed only when the header's
** is another. */
static const char *check(GiltContext *ctx, const unsigned char *b,
                         size_t size, uint64_t key, const uint64_t *verified,
                         JitCacheEntry *e)
{
  if (size < HEADER_SIZE)
    return "it is shorter than its header";
  if (memcmp(b, magic, 8))
    return "it is no gilt cache entry (wrong magic number)";
  if (get32(b + 8) != JIT_CACHE_FORMAT_VERSION)
    return "it has another format version";
  if (get32(b + 12) != HEADER_SIZE)
    return "it has a bad header size";
  if (jit_get64(b + 16) != key)
    return "it holds another key";
  if (jit_get64(b + 24) != size - HEADER_SIZE)
    return "its size does not match its header (truncated?)";
  uint64_t sum = jit_get64(b + 32);
  if ((!verified || *verified != sum) &&
      jit_hash64(b + HEADER_SIZE, size - HEADER_SIZE, 0) != sum)
    return "its checksum does not match (damaged)";
  return parse_payload(ctx, b, b + size, e);
}

JitCacheRead jit_cache_read(GiltContext *ctx, const char *path, uint64_t key,
                            const char *records, JitCacheEntry *e,
                            char *why_buf, size_t why_size)
{
  *e = (JitCacheEntry){0};
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    if (errno == ENOENT)
      return JIT_CACHE_MISSING;
    snprintf(why_buf, why_size, "cannot open it: %s", strerror(errno));
    return JIT_CACHE_INVALID;
  }
  struct stat st;
  const char *why = NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    why = "it is not a regular file";
  else if (st.st_size < HEADER_SIZE)
    why = "it is shorter than its header";
  if (!why && !whole_file_map(fd, (size_t)st.st_size, &e->file))
    why = "it cannot be read";
  close(fd);
  uint64_t verified;
  bool known = !why && model_hash_recall(records, &st, &verified);
  if (!why)
    why = check(ctx, e->file.data, e->file.size, key, known ? &verified : NULL,
                e);
  if (!why && !known)
    model_hash_remember(records, &st, jit_get64(e->file.data + 32));
  if (why) {
    snprintf(why_buf, why_size, "%s", why);
    jit_cache_entry_close(e);
    return JIT_CACHE_INVALID;
  }
  return JIT_CACHE_HIT;
}

void jit_cache_entry_close(JitCacheEntry *e)
{
  whole_file_free(&e->file);
  for (size_t i = 0; i < e->num_functions; i++)
    free((void *)e->functions[i].names);
  free(e->functions);
  free(e->weights);
  *e = (JitCacheEntry){0};
}

/* ---- a JIT module from an object ---------------------------------------- */

GiltJitModule *jit_module_create_from_object(GiltLocation *loc,
                                             const GiltJitOptions *opts,
                                             const void *object, size_t size,
                                             size_t num_fns,
                                             const JitCacheFunction *fns,
                                             size_t num_weights,
                                             const LlvmLinkedWeight *weights)
{
  GiltJitModule *jm = jit_module_create(loc, opts);
  if (!jm)
    return NULL;
  GiltStatus s = jit_module_define_weights(jm, num_weights, weights);
  if (s == GILT_SUCCESS)
    s = jit_module_add_object(jm, object, size);
  for (size_t i = 0; i < num_fns && s == GILT_SUCCESS; i++)
    s = jit_module_add_entry(jm, fns[i].name, fns[i].type, loc);
  if (s) {
    gilt_jit_destroy(jm);
    return NULL;
  }
  return jm;
}
