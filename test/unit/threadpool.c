/*
** threadpool.c - unit test of the runtime's thread pool
** (jit/threadpool.h, internal to jit/ and so included directly).
**
** Every iteration of [0, n) runs exactly once, in at most four chunks
** per thread that are the same from run to run; small and empty loops, a
** pool of one thread, no pool, a loop nested in a chunk, two threads
** sharing one pool, many short runs back to back (where a worker late for
** one run must not take chunks of the next), and a thread stuck in its
** first chunk, whose other chunks the other thread takes.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jit/threadpool.h"
#include "test/unit/check.h"

#define MAX_N 100000

typedef struct Counts {
  atomic_int hits[MAX_N];
  atomic_int chunks;
  int64_t begins[64];
  JitThreadPool *pool; /* for nested runs */
  atomic_int nested;
} Counts;

static void count(int64_t begin, int64_t end, void *context)
{
  Counts *c = context;
  int k = atomic_fetch_add(&c->chunks, 1);
  if (k < 64)
    c->begins[k] = begin;
  for (int64_t i = begin; i < end; i++)
    atomic_fetch_add(&c->hits[i], 1);
}

static Counts *counts_new(void)
{
  Counts *c = calloc(1, sizeof *c);
  return c;
}

/* Runs a loop of n and checks that each iteration ran once, in at most
** `max_chunks` chunks. */
static void check_cover(JitThreadPool *pool, int64_t n, size_t max_chunks)
{
  Counts *c = counts_new();
  jit_threadpool_run(pool, n, count, c);
  int bad = 0;
  for (int64_t i = 0; i < n; i++)
    bad += atomic_load(&c->hits[i]) != 1;
  CHECK(bad == 0);
  int chunks = atomic_load(&c->chunks);
  CHECK(n <= 0 ? chunks == 0 : chunks >= 1 && (size_t)chunks <= max_chunks);
  CHECK(n <= 0 || chunks <= n);
  free(c);
}

static int cmp64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The chunk boundaries of a run, sorted. */
static int chunk_starts(JitThreadPool *pool, int64_t n, int64_t *out)
{
  Counts *c = counts_new();
  jit_threadpool_run(pool, n, count, c);
  int k = atomic_load(&c->chunks);
  memcpy(out, c->begins, k * sizeof *out);
  qsort(out, k, sizeof *out, cmp64);
  free(c);
  return k;
}

static void nested_body(int64_t begin, int64_t end, void *context)
{
  Counts *c = context;
  /* The pool is busy with the outer loop: the inner one must run here. */
  Counts *inner = counts_new();
  jit_threadpool_run(c->pool, 10, count, inner);
  if (atomic_load(&inner->chunks) == 1 && atomic_load(&inner->hits[9]) == 1)
    atomic_fetch_add(&c->nested, 1);
  free(inner);
  count(begin, end, context);
}

typedef struct Stuck {
  pthread_t caller;
  atomic_int by_caller; /* chunks the caller ran */
  atomic_int others;    /* chunks the workers ran */
  int rest;             /* all chunks but the caller's first */
} Stuck;

/* Iteration 0 (the caller's first chunk) waits until the workers have
** run all `rest` other chunks, or some ten seconds have passed (a
** sanitizer's build on a loaded machine wakes its workers late). */
static void stuck_body(int64_t begin, int64_t end, void *context)
{
  Stuck *s = context;
  (void)end;
  if (!pthread_equal(pthread_self(), s->caller)) {
    atomic_fetch_add(&s->others, 1);
    return;
  }
  atomic_fetch_add(&s->by_caller, 1);
  if (begin != 0)
    return;
  struct timespec pause = {0, 1000000};
  for (int i = 0; i < 10000 && atomic_load(&s->others) < s->rest; i++)
    nanosleep(&pause, NULL);
}

/* A pool of `threads` runs a loop of one iteration a chunk whose caller
** is stuck in its first: the workers run their own chunks and then the
** caller's other three, from the back, so the caller ran one chunk. */
static void check_stuck_caller(size_t threads)
{
  JitThreadPool *pool = jit_threadpool_create(threads);
  CHECK(pool != NULL);
  int n = 4 * (int)threads;
  Stuck stuck = {.caller = pthread_self(), .rest = n - 1};
  jit_threadpool_run(pool, n, stuck_body, &stuck);
  CHECK(atomic_load(&stuck.by_caller) == 1);
  CHECK(atomic_load(&stuck.others) == n - 1);
  jit_threadpool_destroy(pool);
}

static void *second_caller(void *arg)
{
  JitThreadPool *pool = arg;
  for (int r = 0; r < 200; r++)
    check_cover(pool, 1000, 4 * jit_threadpool_get_threads(pool));
  return NULL;
}

int main(void)
{
  CHECK(jit_threadpool_default_threads() >= 1);

  JitThreadPool *pool = jit_threadpool_create(4);
  CHECK(pool != NULL);
  CHECK(jit_threadpool_get_threads(pool) == 4);
  check_cover(pool, 0, 16);
  check_cover(pool, -5, 16);
  check_cover(pool, 1, 16);
  check_cover(pool, 3, 16);
  check_cover(pool, 4, 16);
  check_cover(pool, 5, 16);
  check_cover(pool, MAX_N, 16);

  /* Static chunks: 10 in 4 threads is 10 of one; 40 is 16 chunks, 3 for
  ** the first 8 and 2 for the rest, whatever thread takes which. */
  int64_t starts[64];
  CHECK(chunk_starts(pool, 10, starts) == 10);
  CHECK(starts[0] == 0 && starts[9] == 9);
  CHECK(chunk_starts(pool, 40, starts) == 16);
  CHECK(starts[1] == 3 && starts[8] == 24 && starts[9] == 26 &&
        starts[15] == 38);

  /* Many short runs back to back. */
  for (int r = 0; r < 2000; r++)
    check_cover(pool, 1 + r % 37, 16);

  /* A loop nested in a chunk runs in that chunk's thread. */
  Counts *c = counts_new();
  c->pool = pool;
  jit_threadpool_run(pool, 8, nested_body, c);
  CHECK(atomic_load(&c->nested) == atomic_load(&c->chunks));
  CHECK(atomic_load(&c->chunks) == 8);
  free(c);

  /* Two threads calling in at once. */
  pthread_t t;
  CHECK(pthread_create(&t, NULL, second_caller, pool) == 0);
  for (int r = 0; r < 200; r++)
    check_cover(pool, 1000, 16);
  pthread_join(t, NULL);
  jit_threadpool_destroy(pool);

  /* The caller stuck in its first chunk: its home taken by one worker, and
  ** by two, which share it. */
  check_stuck_caller(2);
  check_stuck_caller(3);

  /* One thread: everything in the caller, in one chunk. */
  pool = jit_threadpool_create(1);
  CHECK(pool != NULL);
  check_cover(pool, 100, 1);
  jit_threadpool_destroy(pool);

  /* No pool at all. */
  check_cover(NULL, 100, 1);
  jit_threadpool_destroy(NULL);

  /* The default: all cores. */
  pool = jit_threadpool_create(0);
  CHECK(jit_threadpool_get_threads(pool) == jit_threadpool_default_threads());
  size_t threads = jit_threadpool_get_threads(pool);
  check_cover(pool, 12345, threads > 1 ? 4 * threads : 1);
  jit_threadpool_destroy(pool);
  return check_failures != 0;
}
