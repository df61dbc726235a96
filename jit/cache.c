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
**                   the NUL-terminated loop-level type as gilt prints it;
**                   then a u64 object size and the object file's bytes.
**
** The file is mapped, not read: a ResNet-18 entry is 45 MB, and the
** checksum and ORC's copy are then the only passes over it. The header
** holds the key so that a file renamed, or a hash that collides in the
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

#include <llvm-c/TargetMachine.h>

#include "gilt/dialect.h"
#include "ir/core.h"
#include "jit/abi.h"
#include "jit/hash.h"
#include "jit/jit.h"

static const char magic[8] = {'G', 'I', 'L', 'T', 'J', 'I', 'T', 'C'};
enum { HEADER_SIZE = 48 };

/* ---- the key ------------------------------------------------------------ */

char *jit_cache_host_target(void)
{
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  size_t n = strlen(triple) + strlen(cpu) + strlen(features) + 3;
  char *s = malloc(n);
  if (s)
    snprintf(s, n, "%s %s %s", triple, cpu, features);
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  return s;
}

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
        gilt_string_attr_get_value(name, NULL), gilt_type_attr_get_value(type)};
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

static void put64(unsigned char *b, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    b[i] = (unsigned char)(v >> (8 * i));
}

/* The payload before the object: the functions, then the object's size. */
static void write_functions(GiltStrBuf *sb, size_t num_fns,
                            const JitCacheFunction *fns, size_t object_size)
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
  }
  unsigned char b[8];
  put64(b, object_size);
  gilt_strbuf_append(sb, (const char *)b, 8);
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

/* XXH64 over the two parts of the payload as if they were one buffer. */
static uint64_t payload_checksum(const void *head, size_t head_len,
                                 const void *object, size_t object_size,
                                 unsigned char **joined)
{
  *joined = malloc(head_len + object_size);
  if (!*joined)
    return 0;
  memcpy(*joined, head, head_len);
  memcpy(*joined + head_len, object, object_size);
  return jit_hash64(*joined, head_len + object_size, 0);
}

GiltStatus jit_cache_write(const char *path, uint64_t key, size_t num_fns,
                           const JitCacheFunction *fns, const void *object,
                           size_t object_size, char *why_buf, size_t why_size)
{
  if (num_fns == 0 || !fns[0].type) {
    snprintf(why_buf, why_size, "the module has no entry function");
    return GILT_FAILURE;
  }
  GiltStrBuf head;
  gilt_strbuf_init(&head, gilt_type_get_context(fns[0].type));
  write_functions(&head, num_fns, fns, object_size);
  unsigned char *payload;
  uint64_t sum = payload_checksum(head.data, head.len, object, object_size,
                                  &payload);
  size_t payload_size = head.len + object_size;
  gilt_strbuf_free(&head);
  if (!payload) {
    snprintf(why_buf, why_size, "out of memory");
    return GILT_FAILURE;
  }
  unsigned char header[HEADER_SIZE] = {0};
  memcpy(header, magic, 8);
  for (int i = 0; i < 4; i++) {
    header[8 + i] = (unsigned char)(JIT_CACHE_FORMAT_VERSION >> (8 * i));
    header[12 + i] = (unsigned char)((unsigned)HEADER_SIZE >> (8 * i));
  }
  put64(header + 16, key);
  put64(header + 24, payload_size);
  put64(header + 32, sum);

  size_t tmp_len = strlen(path) + 16;
  char *tmp = malloc(tmp_len);
  int fd = -1;
  if (tmp) {
    snprintf(tmp, tmp_len, "%s.tmp.XXXXXX", path);
    fd = mkstemp(tmp);
  }
  bool ok = fd >= 0 && write_all(fd, header, sizeof header) &&
            write_all(fd, payload, payload_size);
  int saved = errno;
  if (fd >= 0 && close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && rename(tmp, path) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    snprintf(why_buf, why_size, "cannot write '%s': %s", tmp ? tmp : path,
             strerror(tmp ? saved : ENOMEM));
    if (fd >= 0)
      unlink(tmp);
  }
  free(tmp);
  free(payload);
  return ok ? GILT_SUCCESS : GILT_FAILURE;
}

/* ---- reading ------------------------------------------------------------- */

static uint64_t get64(const unsigned char *b)
{
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | b[i];
  return v;
}

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

/* The payload's functions and object, into e; a reason when malformed. */
static const char *parse_payload(GiltContext *ctx, const unsigned char *p,
                                 const unsigned char *end, JitCacheEntry *e)
{
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
    e->functions[e->num_functions++] = (JitCacheFunction){name, t};
  }
  if (end - p < 8 || get64(p) != (uint64_t)(end - p - 8))
    return "an object size that does not match the file";
  e->object = p + 8;
  e->object_size = (size_t)(end - p - 8);
  return NULL;
}

/* The first check the mapped file fails, or NULL. */
static const char *check(GiltContext *ctx, const unsigned char *b,
                         size_t size, uint64_t key, JitCacheEntry *e)
{
  if (size < HEADER_SIZE)
    return "it is shorter than its header";
  if (memcmp(b, magic, 8))
    return "it is no gilt cache entry (wrong magic number)";
  if (get32(b + 8) != JIT_CACHE_FORMAT_VERSION)
    return "it has another format version";
  if (get32(b + 12) != HEADER_SIZE)
    return "it has a bad header size";
  if (get64(b + 16) != key)
    return "it holds another key";
  if (get64(b + 24) != size - HEADER_SIZE)
    return "its size does not match its header (truncated?)";
  if (jit_hash64(b + HEADER_SIZE, size - HEADER_SIZE, 0) != get64(b + 32))
    return "its checksum does not match (damaged)";
  return parse_payload(ctx, b + HEADER_SIZE, b + size, e);
}

JitCacheRead jit_cache_read(GiltContext *ctx, const char *path, uint64_t key,
                            JitCacheEntry *e, char *why_buf, size_t why_size)
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
  if (!why) {
    e->map_size = (size_t)st.st_size;
    e->map = mmap(NULL, e->map_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (e->map == MAP_FAILED) {
      e->map = NULL;
      why = "it cannot be mapped";
    }
  }
  close(fd);
  if (!why)
    why = check(ctx, e->map, e->map_size, key, e);
  if (why) {
    snprintf(why_buf, why_size, "%s", why);
    jit_cache_entry_close(e);
    return JIT_CACHE_INVALID;
  }
  return JIT_CACHE_HIT;
}

void jit_cache_entry_close(JitCacheEntry *e)
{
  if (e->map)
    munmap(e->map, e->map_size);
  free(e->functions);
  *e = (JitCacheEntry){0};
}

/* ---- a JIT module from an object ---------------------------------------- */

GiltJitModule *jit_module_create_from_object(GiltLocation *loc,
                                             const GiltJitOptions *opts,
                                             const void *object, size_t size,
                                             size_t num_fns,
                                             const JitCacheFunction *fns)
{
  GiltJitModule *jm = jit_module_create(loc, opts);
  if (!jm)
    return NULL;
  GiltStatus s = jit_module_add_object(jm, object, size);
  for (size_t i = 0; i < num_fns && s == GILT_SUCCESS; i++)
    s = jit_module_add_entry(jm, fns[i].name, fns[i].type, loc);
  if (s) {
    gilt_jit_destroy(jm);
    return NULL;
  }
  return jm;
}
