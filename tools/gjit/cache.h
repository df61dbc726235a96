/*
** cache.h - gjit's use of the compile cache (jit/cache.h), on when
** --cache-dir=DIR or the environment's GILT_CACHE_DIR names a folder:
** the key of a run, loading its entry instead of compiling, and compiling
** through an object file that is then stored. docs/gjit.md says when the
** cache is used and docs/jit.md what an entry holds.
*/
#ifndef GJIT_CACHE_H
#define GJIT_CACHE_H

#include "gilt/jit.h"
#include "tools/gjit/options.h"

typedef struct GjitCache GjitCache;

/* The cache for this run, or NULL when none is asked for or the run does
** not use one (--interpret, --fold-inputs, --print-ir-after-all, --aot).
** `pipeline` is the pass pipeline the run lowers with (borrowed). A
** model that cannot be read gives NULL too: loading it will say why. */
GjitCache *gjit_cache_open(const GjitOptions *o, GiltContext *ctx,
                           const char *pipeline, unsigned opt_level);
void gjit_cache_close(GjitCache *c);

/* A JIT module from the entry of this run's key, or NULL when there is
** none or it fails a check (then a remark says why and the entry is
** rebuilt by gjit_cache_compile). *name and *type get the function to
** call (--function, else @main, else the only one) and its loop-level
** type; both live as long as c. */
GiltJitModule *gjit_cache_load(GjitCache *c, const GiltJitOptions *opts,
                               const char *function, const char **name,
                               GiltType **type);

/* Compiles `module` (lowered to the llvm level) to an object file, stores
** it as this run's entry (a failure to store is a remark, not an error)
** and returns a JIT module running that object; NULL after reporting. */
GiltJitModule *gjit_cache_compile(GjitCache *c, GiltOp *module,
                                  const GiltJitOptions *opts);

#endif /* GJIT_CACHE_H */
