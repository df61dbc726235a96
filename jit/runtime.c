/*
** runtime.c - the functions compiled code calls (jit/abi.h): aligned
** allocation with the scopes that free a call's buffers when it returns,
** failure messages, and parallel loops.
**
** Failures are per thread, because compiled functions may run in several
** threads at once and each caller wants the message of its own call. A
** failure inside a chunk of gilt_rt_parallel_for that ran on a worker is
** carried back to the thread that started the loop (the first one, when
** several chunks fail), so that the caller of the compiled function sees
** it whatever thread hit it.
**
** Large buffers are freed into a cache of blocks (block_cache.c) that
** later allocations take them from, so that calls after the first do not
** fault their pages in again.
**
** The thread pool a loop runs on is the calling thread's, set by the JIT
** around each call (jit_runtime_set_pool); with none set, as in a program
** that links an ahead-of-time compiled model, loops run serially. Only
** libc and pthreads are used here, so this file and threadpool.c can be
** linked without the rest of gilt.
*/
#define _GNU_SOURCE /* malloc_usable_size */
#include "jit/runtime.h"

#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jit/block_cache.h"

/* Long enough for any message and location the lowering emits; longer
** ones are cut, never overflowed. */
#define ERROR_CAPACITY 1024

/* A thread's last failure: the compiled module's static strings, and the
** text gilt_rt_last_error gives. Copied whole from a worker's chunk to
** the caller. */
typedef struct Failure {
  const char *message, *location;
  char text[ERROR_CAPACITY];
} Failure;

static _Thread_local Failure failure;
static _Thread_local bool has_error;
/* Bumped by every failure: how a chunk learns that it failed. */
static _Thread_local uint64_t failures;
static _Thread_local JitThreadPool *current_pool;

/* The buffers compiled functions allocated and still hold, in order, per
** thread: a function frees those of its own call when it returns
** (gilt_rt_scope_exit), whatever path it returns by. A slot is NULL once
** gilt_rt_free freed its buffer early (loop.dealloc). */
static _Thread_local void **held;
static _Thread_local size_t num_held, cap_held;

/* Backs the whole pages of a new large buffer now, in one system call,
** where the code that fills it would fault them in one by one: on the
** virtual machines gilt is measured on a fault costs microseconds, and a
** first run of ResNet-18 from the compile cache took some 2,300 of them
** (74 -> 67 ms from process start to result). Linux 5.14 and later; a
** hint that older kernels refuse. */
static void populate(void *p, size_t size)
{
#ifdef MADV_POPULATE_WRITE
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t begin = ((uintptr_t)p + page - 1) & ~(page - 1);
  uintptr_t end = ((uintptr_t)p + size) & ~(page - 1);
  if (end > begin)
    (void)madvise((void *)begin, end - begin, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)size;
#endif
}

/* An aligned buffer, not held by any scope. */
static void *allocate(int64_t bytes, int64_t align)
{
  if (bytes < 0 || align <= 0 || (align & (align - 1)) != 0)
    return NULL;
  if (align < 16)
    align = 16;
  /* aligned_alloc wants a multiple of the alignment, and a zero-sized
  ** buffer must still be a pointer distinct from the NULL of failure. */
  if (bytes > INT64_MAX - align)
    return NULL;
  int64_t size = (bytes + align - 1) / align * align;
  if (size == 0)
    size = align;
  if ((uint64_t)size > SIZE_MAX)
    return NULL;
  if ((size_t)size < JIT_BLOCK_CACHE_MIN || align > JIT_BLOCK_CACHE_ALIGN)
    return aligned_alloc((size_t)align, (size_t)size);
  void *p = jit_block_take((size_t)size);
  if (p)
    return p;
  p = aligned_alloc(JIT_BLOCK_CACHE_ALIGN, (size_t)size);
  if (p)
    populate(p, (size_t)size);
  return p;
}

/* Frees a buffer from allocate: a large one into the block cache. */
static void release(void *p)
{
  if (p && malloc_usable_size(p) >= JIT_BLOCK_CACHE_MIN &&
      (uintptr_t)p % JIT_BLOCK_CACHE_ALIGN == 0)
    jit_block_keep(p);
  else
    free(p);
}

/* Makes the current scope hold p; false (p freed) when out of memory. */
static bool hold(void *p)
{
  if (num_held == cap_held) {
    size_t cap = cap_held ? 2 * cap_held : 64;
    void **grown = realloc(held, cap * sizeof *grown);
    if (!grown) {
      free(p);
      return false;
    }
    held = grown;
    cap_held = cap;
  }
  held[num_held++] = p;
  return true;
}

void *gilt_rt_alloc(int64_t bytes, int64_t align)
{
  void *p = allocate(bytes, align);
  return p && hold(p) ? p : NULL;
}

/* Makes no scope hold p any more (p stays allocated). */
static void unhold(void *p)
{
  for (size_t i = num_held; p && i-- > 0;)
    if (held[i] == p) {
      held[i] = NULL;
      break;
    }
  /* A loop that frees what each iteration allocates (loop.dealloc) must
  ** not grow the array: the slots freed last go. A scope frees only its
  ** own buffers, which lie above its mark, so this never pops below the
  ** mark of a scope still open unless that scope's slots are all empty. */
  while (num_held && !held[num_held - 1])
    num_held--;
}

void gilt_rt_free(void *p)
{
  unhold(p);
  release(p);
}

void gilt_rt_disown(void *p)
{
  unhold(p);
}

int32_t gilt_rt_adopt(void *p)
{
  if (p && !hold(p)) {
    gilt_rt_fail("out of memory", NULL);
    return 1;
  }
  return 0;
}

int64_t gilt_rt_scope_enter(void)
{
  return (int64_t)num_held;
}

void gilt_rt_scope_exit(int64_t mark)
{
  while (num_held > (size_t)mark)
    release(held[--num_held]);
  if (!num_held) { /* the outermost call returned: give the array back */
    free(held);
    held = NULL;
    cap_held = 0;
  }
}

void gilt_rt_fail(const char *message, const char *location)
{
  if (!message)
    message = "failed";
  failure.message = message;
  failure.location = location && *location ? location : NULL;
  if (failure.location)
    snprintf(failure.text, sizeof failure.text, "%s: %s", location, message);
  else
    snprintf(failure.text, sizeof failure.text, "%s", message);
  has_error = true;
  failures++;
}

const char *gilt_rt_last_error(void)
{
  return has_error ? failure.text : NULL;
}

bool jit_runtime_last_failure(const char **message, const char **location)
{
  *message = has_error ? failure.message : NULL;
  *location = has_error ? failure.location : NULL;
  return has_error;
}

void jit_runtime_clear_error(void)
{
  has_error = false;
  failure = (Failure){0};
}

JitThreadPool *jit_runtime_set_pool(JitThreadPool *pool)
{
  JitThreadPool *old = current_pool;
  current_pool = pool;
  return old;
}

/* ---- parallel loops ---------------------------------------------------------- */

typedef struct ParallelRun {
  void (*body)(int64_t, int64_t, void *);
  void *context;
  pthread_t caller;
  pthread_mutex_t mu; /* guards failed and message */
  bool failed;
  Failure failure;
} ParallelRun;

static void run_chunk(int64_t begin, int64_t end, void *arg)
{
  ParallelRun *run = arg;
  JitThreadPool *pool = jit_runtime_set_pool(NULL);
  uint64_t before = failures;
  run->body(begin, end, run->context);
  jit_runtime_set_pool(pool);
  if (failures == before || pthread_equal(pthread_self(), run->caller))
    return;
  pthread_mutex_lock(&run->mu);
  if (!run->failed) {
    run->failed = true;
    run->failure = failure;
  }
  pthread_mutex_unlock(&run->mu);
}

void gilt_rt_parallel_for(int64_t n,
                          void (*body)(int64_t begin, int64_t end,
                                       void *context),
                          void *context)
{
  JitThreadPool *pool = current_pool;
  if (n <= 0)
    return;
  if (!pool || jit_threadpool_get_threads(pool) == 1) {
    body(0, n, context);
    return;
  }
  ParallelRun run = {.body = body, .context = context,
                     .caller = pthread_self()};
  uint64_t before = failures;
  pthread_mutex_init(&run.mu, NULL);
  jit_threadpool_run(pool, n, run_chunk, &run);
  pthread_mutex_destroy(&run.mu);
  /* The caller's own chunks set its message already; a worker's failure
  ** becomes the caller's only when the caller's chunks did not fail. */
  if (run.failed && failures == before) {
    failure = run.failure;
    has_error = true;
    failures++;
  }
}
