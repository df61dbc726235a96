/*
** model_cache.h - a model's use of the compile cache (jit/cache.h's
** entries), on when GiltModelOptions names a cache folder: the key of a
** model file, loading its entry instead of importing and compiling, and
** compiling through an object file that is then stored. docs/gjit.md
** says what the key covers and docs/jit.md what an entry holds. Internal
** to jit/model.c.
*/
#ifndef GILT_JIT_MODEL_CACHE_H
#define GILT_JIT_MODEL_CACHE_H

#include "jit/cache.h"

typedef struct ModelCache ModelCache;

/* The cache entry of the model file at `model` lowered with `pipeline`
** (borrowed) at `opt_level`, in folder `dir` (created, one level, when
** missing). NULL when the file cannot be read (importing it will say
** why) or memory runs out. */
GILT_INTERNAL ModelCache *model_cache_open(GiltContext *ctx, const char *model,
                                           const char *dir,
                                           const char *pipeline,
                                           unsigned opt_level);
/* NULL is ignored; after the JIT module that runs the entry. */
GILT_INTERNAL void model_cache_close(ModelCache *c);

/* A JIT module from the entry, or NULL when there is none or it fails a
** check (then a remark says why and model_cache_compile rebuilds it).
** *fn gets the function to call (`function`, else @main, else the only
** one), which lives as long as c. */
GILT_INTERNAL GiltJitModule *model_cache_load(ModelCache *c,
                                              const GiltJitOptions *opts,
                                              const char *function,
                                              const JitCacheFunction **fn);

/* Compiles `module` (lowered to the llvm level) to an object file, stores
** it as the entry, with `names` (n, borrowed) as the argument and result
** names of its function `function` (a failure to store is a remark, not
** an error), and returns a JIT module running that object; NULL after
** reporting. */
GILT_INTERNAL GiltJitModule *model_cache_compile(ModelCache *c, GiltOp *module,
                                                 const GiltJitOptions *opts,
                                                 const char *function,
                                                 size_t n,
                                                 const char *const *names);

#endif /* GILT_JIT_MODEL_CACHE_H */
