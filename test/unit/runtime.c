/*
** runtime.c - unit test of the functions compiled code calls
** (jit/abi.h): aligned allocation, scopes and the results they disown,
** failure messages per thread, and gilt_rt_parallel_for with and without
** a pool, a failure in a worker's chunk carried back to the thread that
** started the loop.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "jit/runtime.h"
#include "test/unit/check.h"

static void check_alloc(void)
{
  for (int64_t align = 16; align <= 4096; align *= 2) {
    for (int64_t bytes = 0; bytes < 200; bytes += 37) {
      char *p = gilt_rt_alloc(bytes, align);
      CHECK(p != NULL);
      CHECK((uintptr_t)p % (uintptr_t)align == 0);
      memset(p, 1, (size_t)bytes);
      gilt_rt_free(p);
    }
  }
  /* Small alignments are raised to 16; bad ones and sizes fail. */
  void *p = gilt_rt_alloc(3, 4);
  CHECK(p && (uintptr_t)p % 16 == 0);
  gilt_rt_free(p);
  CHECK(gilt_rt_alloc(8, 24) == NULL);
  CHECK(gilt_rt_alloc(-1, 64) == NULL);
  CHECK(gilt_rt_alloc(INT64_MAX, 64) == NULL);
  gilt_rt_free(NULL);
}

/* A scope frees its buffers when it exits, except one disowned: a
** compiled function's result, which the caller frees; a large one goes
** to the cache of blocks, where the next call's result comes from. */
static void check_scopes(void)
{
  const int64_t large = 1 << 20;
  char *before[2] = {NULL, NULL}; /* the first call's two buffers */
  for (int call = 0; call < 2; call++) {
    int64_t mark = gilt_rt_scope_enter();
    char *result = gilt_rt_alloc(large, 64);
    char *scratch = gilt_rt_alloc(large, 64);
    CHECK(result && scratch);
    if (call == 0) {
      before[0] = result;
      before[1] = scratch;
    } else { /* both came back from the cache */
      CHECK(result == before[0] || result == before[1]);
      CHECK(scratch == before[0] || scratch == before[1]);
    }
    memset(scratch, 2, (size_t)large);
    gilt_rt_disown(result);
    gilt_rt_scope_exit(mark);
    memset(result, 1, (size_t)large); /* still the caller's */
    CHECK(result[large - 1] == 1);
    gilt_rt_free(result);
  }
}

static void *fail_in_thread(void *arg)
{
  (void)arg;
  gilt_rt_fail("in another thread", "t.gilt:1:1");
  return (void *)(uintptr_t)(gilt_rt_last_error() != NULL);
}

static void check_errors(void)
{
  jit_runtime_clear_error();
  CHECK(gilt_rt_last_error() == NULL);
  gilt_rt_fail("division by zero", "m.gilt:3:7");
  CHECK(gilt_rt_last_error() &&
        strcmp(gilt_rt_last_error(), "m.gilt:3:7: division by zero") == 0);
  gilt_rt_fail("no location", NULL);
  CHECK(strcmp(gilt_rt_last_error(), "no location") == 0);
  /* Long messages are cut, not overflowed. */
  char big[5000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  gilt_rt_fail(big, "here");
  CHECK(strlen(gilt_rt_last_error()) < sizeof big);
  /* Another thread's failure is its own. */
  jit_runtime_clear_error();
  pthread_t t;
  void *had;
  CHECK(pthread_create(&t, NULL, fail_in_thread, NULL) == 0);
  pthread_join(t, &had);
  CHECK(had != NULL);
  CHECK(gilt_rt_last_error() == NULL);
}

typedef struct Sum {
  atomic_llong sum;
  atomic_int chunks;
  int64_t fail_at; /* the iteration whose chunk fails; -1: none */
} Sum;

static void add_range(int64_t begin, int64_t end, void *context)
{
  Sum *s = context;
  atomic_fetch_add(&s->chunks, 1);
  for (int64_t i = begin; i < end; i++) {
    atomic_fetch_add(&s->sum, i);
    if (i == s->fail_at)
      gilt_rt_fail("assertion failed", "p.gilt:9:2");
  }
}

static void check_parallel(void)
{
  /* No pool: one chunk, in the caller. */
  Sum s = {.fail_at = -1};
  gilt_rt_parallel_for(1000, add_range, &s);
  CHECK(atomic_load(&s.sum) == 999 * 1000 / 2 && atomic_load(&s.chunks) == 1);

  JitThreadPool *pool = jit_threadpool_create(3);
  CHECK(jit_runtime_set_pool(pool) == NULL);
  Sum t = {.fail_at = -1};
  gilt_rt_parallel_for(1000, add_range, &t);
  CHECK(atomic_load(&t.sum) == 999 * 1000 / 2 && atomic_load(&t.chunks) == 12);
  gilt_rt_parallel_for(0, add_range, &t);
  CHECK(atomic_load(&t.chunks) == 12);

  /* A failure in the last chunk, whichever thread ran it, is the
  ** caller's; a run without failure leaves no message. */
  for (int r = 0; r < 50; r++) {
    jit_runtime_clear_error();
    Sum u = {.fail_at = 999};
    gilt_rt_parallel_for(1000, add_range, &u);
    CHECK(gilt_rt_last_error() &&
          strcmp(gilt_rt_last_error(), "p.gilt:9:2: assertion failed") == 0);
    jit_runtime_clear_error();
    Sum v = {.fail_at = -1};
    gilt_rt_parallel_for(1000, add_range, &v);
    CHECK(gilt_rt_last_error() == NULL);
  }
  CHECK(jit_runtime_set_pool(NULL) == pool);
  jit_threadpool_destroy(pool);
}

int main(void)
{
  check_alloc();
  check_scopes();
  check_errors();
  check_parallel();
  return check_failures != 0;
}
