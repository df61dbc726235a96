/*
** threadpool.h - a small pool of worker threads that runs a loop's
** iteration space in chunks: what gilt_rt_parallel_for (jit/runtime.c)
** runs on. Internal to jit/; depends on nothing but libc and pthreads, so
** that the runtime can be linked into a program without the rest of gilt.
*/
#ifndef GILT_JIT_THREADPOOL_H
#define GILT_JIT_THREADPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "ir/support/alloc.h" /* GILT_INTERNAL */

typedef struct JitThreadPool JitThreadPool;

typedef void (*JitChunkFn)(int64_t begin, int64_t end, void *context);

/* The number of cores online (sysconf), at least 1. */
GILT_INTERNAL size_t jit_threadpool_default_threads(void);

/* A pool that runs loops on `threads` threads in all: the caller of
** jit_threadpool_run and threads - 1 workers, started now and kept until
** jit_threadpool_destroy. 0 means jit_threadpool_default_threads(). NULL
** when a thread cannot be started (nothing is left running). */
GILT_INTERNAL JitThreadPool *jit_threadpool_create(size_t threads);
/* Stops and joins the workers; NULL is ignored. No run may be in flight. */
GILT_INTERNAL void jit_threadpool_destroy(JitThreadPool *pool);
/* The caller and the workers. */
GILT_INTERNAL size_t jit_threadpool_get_threads(const JitThreadPool *pool);

/* Calls body(begin, end, context) over [0, n) split statically into at
** most a few chunks per thread (CHUNKS_PER_THREAD, threadpool.c) of
** near-equal size, the calling thread taking chunks too, each thread its
** own consecutive share first and then what is left of the others', and
** returns when every chunk is done. A pool runs one loop at a time: a run
** started while another is in flight (a nested loop.parallel, or a
** second thread calling in) runs in the calling thread alone, which is
** correct and never deadlocks. A NULL pool runs everything in the
** calling thread. n <= 0 calls nothing. */
GILT_INTERNAL void jit_threadpool_run(JitThreadPool *pool, int64_t n,
                                      JitChunkFn body, void *context);

#endif /* GILT_JIT_THREADPOOL_H */
