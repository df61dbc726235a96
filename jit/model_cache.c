/*
** model_cache.c - a model's compile cache (model_cache.h) over
** jit/cache.h's entries.
**
** The key hashes the model file's bytes (the weights of an .onnx file are
** in it; external data files of an ONNX model are not, see docs/gjit.md;
** model_hash.c remembers that hash by the file's identity),
** the pipeline's text, the host CPU's fingerprint (host_cpu.h), the opt level
** and gilt's version. The file is DIR/<key in hex>.gjc. A run that finds
** it skips import, the pipeline and translation: it parses the entry
** functions' types and links the object without starting LLVM
** (jit_module_add_object). A run that does not, or finds an entry that
** fails a check, compiles through an object file
** (gilt_llvm_emit, the same code `gjit --aot` writes), runs that object
** and stores it, so the first and every later run execute the same code.
** The entry also keeps the names of the model's inputs and outputs,
** which only the import knew.
*/
#include "jit/model_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gilt/llvm.h"
#include "ir/core.h"
#include "ir/support/alloc.h"
#include "jit/cache.h"
#include "jit/host_cpu.h"
#include "jit/model_hash.h"

struct ModelCache {
  GiltContext *ctx;
  GiltLocation *loc;
  char *dir;  /* DIR, where the hash records lie too (model_hash.h) */
  char *path; /* DIR/KEY.gjc */
  uint64_t key;
  unsigned opt_level;
  JitCacheEntry entry;
};

ModelCache *model_cache_open(GiltContext *ctx, const char *model,
                             const char *dir, const char *pipeline,
                             unsigned opt_level)
{
  /* Created first: the model's hash is remembered in it. One level, as
  ** a build tree's cache folder; an error shows when the entry is
  ** written. */
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    gilt_emit_diag(gilt_location_name_get(ctx, "compile cache", NULL),
                   GILT_SEVERITY_REMARK, "cannot create '%s': %s", dir,
                   strerror(errno));
  uint64_t hash, size;
  if (!model_hash_get(model, dir, &hash, &size))
    return NULL;
  char *target = host_cpu_fingerprint();
  ModelCache *c = calloc(1, sizeof *c);
  size_t n = strlen(dir) + 32;
  char *path = malloc(n), *dir_copy = strdup(dir);
  if (!target || !c || !path || !dir_copy) {
    free(target);
    free(c);
    free(path);
    free(dir_copy);
    return NULL;
  }
  c->dir = dir_copy;
  c->ctx = ctx;
  c->loc = gilt_location_name_get(ctx, "compile cache", NULL);
  c->opt_level = opt_level;
  c->key = jit_cache_key(hash, size, pipeline, target, opt_level,
                         GILT_VERSION);
  free(target);
  snprintf(path, n, "%s/%016llx.gjc", dir, (unsigned long long)c->key);
  c->path = path;
  return c;
}

void model_cache_close(ModelCache *c)
{
  if (!c)
    return;
  jit_cache_entry_close(&c->entry);
  free(c->dir);
  free(c->path);
  free(c);
}

/* The same choice as gilt_model_find_function, among the entry's
** functions. */
static const JitCacheFunction *pick(const JitCacheEntry *e,
                                    const char *function)
{
  const char *want = function ? function : "main";
  for (size_t i = 0; i < e->num_functions; i++)
    if (!strcmp(e->functions[i].name, want))
      return &e->functions[i];
  return !function && e->num_functions == 1 ? &e->functions[0] : NULL;
}

GiltJitModule *model_cache_load(ModelCache *c, const GiltJitOptions *opts,
                                const char *function,
                                const JitCacheFunction **fn)
{
  char why[256];
  switch (jit_cache_read(c->ctx, c->path, c->key, c->dir, &c->entry, why,
                         sizeof why)) {
  case JIT_CACHE_MISSING:
    return NULL;
  case JIT_CACHE_INVALID:
    gilt_emit_diag(c->loc, GILT_SEVERITY_REMARK,
                   "ignoring '%s', rebuilding it: %s", c->path, why);
    return NULL;
  case JIT_CACHE_HIT:
    break;
  }
  *fn = pick(&c->entry, function);
  if (!*fn) { /* the module's own error comes from the uncached path */
    jit_cache_entry_close(&c->entry);
    return NULL;
  }
  return jit_module_create_from_object(
      c->loc, opts, c->entry.object, c->entry.object_size,
      c->entry.num_functions, c->entry.functions, c->entry.num_weights,
      c->entry.weights);
}

static void append(const char *data, size_t len, void *user)
{
  GiltStrBuf *sb = user;
  gilt_strbuf_append(sb, data, len);
}

GiltJitModule *model_cache_compile(ModelCache *c, GiltOp *module,
                                   const GiltJitOptions *opts,
                                   const char *function, size_t n,
                                   const char *const *names)
{
  if (gilt_op_verify(module))
    return NULL;
  GiltLlvmTargetOptions target = gilt_llvm_target_options_default();
  target.opt_level = c->opt_level;
  GiltStrBuf obj;
  gilt_strbuf_init(&obj, c->ctx);
  size_t num_fns = 0, num_weights = 0;
  JitCacheFunction *fns = NULL;
  LlvmLinkedWeight *weights = NULL;
  GiltJitModule *jm = NULL;
  if (llvm_emit(module, &target, LLVM_WEIGHTS_LINKED, GILT_LLVM_OUTPUT_OBJECT,
                append, &obj) == GILT_SUCCESS &&
      jit_cache_collect_functions(module, &num_fns, &fns) == GILT_SUCCESS &&
      llvm_collect_linked_weights(module, &num_weights, &weights) ==
          GILT_SUCCESS) {
    for (size_t i = 0; i < num_fns; i++)
      if (!strcmp(fns[i].name, function)) {
        fns[i].num_names = n;
        fns[i].names = names;
      }
    char why[512];
    if (jit_cache_write(c->path, c->key, num_fns, fns, num_weights, weights,
                        obj.data, obj.len, why, sizeof why))
      gilt_emit_diag(c->loc, GILT_SEVERITY_REMARK,
                     "the compiled model is not cached: %s", why);
    jm = jit_module_create_from_object(gilt_op_get_location(module), opts,
                                       obj.data, obj.len, num_fns, fns,
                                       num_weights, weights);
  }
  free(weights);
  free(fns);
  gilt_strbuf_free(&obj);
  return jm;
}
