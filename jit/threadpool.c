/*
** threadpool.c - the workers behind gilt_rt_parallel_for: N - 1 threads
** started once, a loop split statically into at most CHUNKS_PER_THREAD
** chunks a thread, the calling thread working too.
**
** A run publishes its job under the mutex and bumps a generation counter.
** The loop is cut into up to CHUNKS_PER_THREAD chunks per thread, and each
** thread has a home: a run of consecutive chunks, thread k the k-th (the
** caller is thread 0, worker i thread i + 1). A thread works its home from
** the front, so that consecutive loops split the same way (a convolution's
** output channels, then the depthwise convolution over the same channels)
** keep each part of the data in the cache of the core that wrote it, where
** taking chunks in the order threads arrive moved it from core to core at
** random. A thread done with its home then takes the chunks nobody has
** started from the back of the others' homes, where their owners would come
** last. So a worker slow to wake costs nothing but its share, and a core
** that runs slower than the other (a virtual machine's cores do: ResNet-50
** at two threads kept one busy 7 to 11% longer than the other, the faster
** then idle) hands its last chunks to it. The chunks themselves are fixed by
** n and N (OpenMP's schedule(static)), so which iterations run together does
** not depend on timing; only which thread runs them does. A thief walks a
** home down until it meets a chunk taken (by the owner, or by another thief,
** which then goes on), so with more than two threads a home has one helper
** at a time. Waiting is a short spin, for the common case of loops that
** finish in microseconds, then a condition variable; an idle pool sleeps. A
** caller whose run finished while it spun takes no lock; the one mutex is
** adaptive. Both matter at two threads: a chain of 100 kernels of 2
** microseconds each took 0.285 ms, 0.194 after (0.205 on one thread).
**
** A worker that joined a run is counted until it has left it, and the
** next run is published only when no worker still holds the previous
** job, so a late worker can never take a chunk of the next run with the
** previous run's body. The caller returns as soon as every chunk is
** done.
*/
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "jit/threadpool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

/* Rounds of polling before a thread sleeps: a few microseconds. */
#define SPIN_ROUNDS 4000

/* Chunks per thread where the loop has that many iterations: enough that
** the last ones can move to a thread that finished early, few enough that
** taking one (an atomic exchange on a line both cores write) stays
** negligible beside the iterations it covers. */
#define CHUNKS_PER_THREAD 4

typedef struct Worker {
  JitThreadPool *pool;
  int64_t index; /* its home (run_chunks): 1 for the first worker */
  pthread_t thread;
} Worker;

struct JitThreadPool {
  size_t threads; /* the caller and the workers */
  Worker *workers;
  size_t num_workers;
  pthread_mutex_t mu;
  pthread_cond_t wake; /* a new generation, or stop */
  pthread_cond_t done; /* the last chunk or the last worker left */
  pthread_mutex_t run_mu; /* held by the one run in flight */
  bool stop;
  /* The job of the current generation, written under mu. */
  atomic_uint_fast64_t generation;
  JitChunkFn body;
  void *context;
  int64_t n;
  int64_t chunks;
  atomic_bool *taken; /* per chunk, CHUNKS_PER_THREAD per thread */
  atomic_int_fast64_t chunks_done;
  atomic_int_fast64_t active; /* workers holding the job */
};

static void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* The cores this process may run on: its affinity mask where the system
** has one (a container limited to 2 of a host's 64 cores, taskset), else
** the cores online. */
size_t jit_threadpool_default_threads(void)
{
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return (size_t)CPU_COUNT(&set);
#endif
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (size_t)n : 1;
}

/* Chunk k of `chunks` near-equal parts of [0, n). */
static int64_t chunk_begin(int64_t n, int64_t chunks, int64_t k)
{
  /* n * k may overflow for huge n; split into quotient and remainder. */
  int64_t q = n / chunks, r = n % chunks;
  return q * k + (k < r ? k : r);
}

/* Takes chunk k and runs it unless another thread took it first; whether
** this thread then finished the run's last chunk. */
static bool try_chunk(JitThreadPool *p, int64_t k, JitChunkFn body,
                      void *context, int64_t n, int64_t chunks, bool *last)
{
  if (atomic_exchange(&p->taken[k], true))
    return false;
  body(chunk_begin(n, chunks, k), chunk_begin(n, chunks, k + 1), context);
  *last = atomic_fetch_add(&p->chunks_done, 1) + 1 == chunks;
  return true;
}

/* Runs thread `self`'s home chunks front to back, then what is left of
** the other threads' homes back to front, until no chunk is left; whether
** this thread finished the last one. */
static bool run_chunks(JitThreadPool *p, int64_t self, JitChunkFn body,
                       void *context, int64_t n, int64_t chunks)
{
  int64_t threads = (int64_t)p->threads;
  bool last = false;
  for (int64_t k = chunk_begin(chunks, threads, self);
       k < chunk_begin(chunks, threads, self + 1); k++)
    try_chunk(p, k, body, context, n, chunks, &last);
  for (int64_t i = 1; i < threads; i++) {
    int64_t other = (self + i) % threads;
    for (int64_t k = chunk_begin(chunks, threads, other + 1) - 1;
         k >= chunk_begin(chunks, threads, other); k--)
      if (!try_chunk(p, k, body, context, n, chunks, &last))
        break; /* another thread walks this home: it finishes it */
  }
  return last;
}

static void *worker_main(void *arg)
{
  Worker *self = arg;
  JitThreadPool *p = self->pool;
  uint64_t seen = 0;
  for (;;) {
    for (int i = 0; i < SPIN_ROUNDS &&
                    atomic_load_explicit(&p->generation,
                                         memory_order_acquire) == seen;
         i++)
      spin_pause();
    pthread_mutex_lock(&p->mu);
    while (!p->stop && atomic_load(&p->generation) == seen)
      pthread_cond_wait(&p->wake, &p->mu);
    if (p->stop) {
      pthread_mutex_unlock(&p->mu);
      return NULL;
    }
    seen = atomic_load(&p->generation);
    JitChunkFn body = p->body;
    void *context = p->context;
    int64_t n = p->n, chunks = p->chunks;
    atomic_fetch_add(&p->active, 1);
    pthread_mutex_unlock(&p->mu);

    bool last = run_chunks(p, self->index, body, context, n, chunks);

    pthread_mutex_lock(&p->mu);
    if (atomic_fetch_sub(&p->active, 1) == 1 || last)
      pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->mu);
  }
}

static bool run_finished(JitThreadPool *p)
{
  return atomic_load(&p->chunks_done) == p->chunks;
}

void jit_threadpool_run(JitThreadPool *p, int64_t n, JitChunkFn body,
                        void *context)
{
  if (n <= 0)
    return;
  if (!p || p->num_workers == 0 || n == 1 ||
      pthread_mutex_trylock(&p->run_mu) != 0) {
    body(0, n, context);
    return;
  }
  int64_t most = (int64_t)p->threads * CHUNKS_PER_THREAD;
  int64_t chunks = most < n ? most : n;
  pthread_mutex_lock(&p->mu);
  /* A worker that joined the previous run after its last chunk holds
  ** that run's job until it finds no chunk left; clearing `taken` under
  ** it would hand it a chunk of this run. */
  while (atomic_load(&p->active) != 0)
    pthread_cond_wait(&p->done, &p->mu);
  p->body = body;
  p->context = context;
  p->n = n;
  p->chunks = chunks;
  for (int64_t k = 0; k < chunks; k++)
    atomic_store(&p->taken[k], false);
  atomic_store(&p->chunks_done, 0);
  atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);

  run_chunks(p, 0, body, context, n, chunks);

  for (int i = 0; i < SPIN_ROUNDS && !run_finished(p); i++)
    spin_pause();
  if (!run_finished(p)) {
    pthread_mutex_lock(&p->mu);
    while (!run_finished(p))
      pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
  }
  pthread_mutex_unlock(&p->run_mu);
}

JitThreadPool *jit_threadpool_create(size_t threads)
{
  if (threads == 0)
    threads = jit_threadpool_default_threads();
  JitThreadPool *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->threads = threads;
  p->workers = calloc(threads, sizeof *p->workers);
  p->taken = calloc(threads * CHUNKS_PER_THREAD, sizeof *p->taken);
  if (!p->workers || !p->taken) {
    free(p->workers);
    free(p->taken);
    free(p);
    return NULL;
  }
  /* mu is taken by the caller publishing a run and by each worker joining
  ** it at the same moment: an adaptive mutex spins briefly where a plain
  ** one would put the worker to sleep in the kernel, to be woken by a
  ** system call in the caller's unlock. */
  pthread_mutexattr_t adaptive;
  pthread_mutexattr_init(&adaptive);
  pthread_mutexattr_settype(&adaptive, PTHREAD_MUTEX_ADAPTIVE_NP);
  pthread_mutex_init(&p->mu, &adaptive);
  pthread_mutexattr_destroy(&adaptive);
  pthread_mutex_init(&p->run_mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  for (size_t i = 0; i + 1 < threads; i++) {
    Worker *w = &p->workers[i];
    w->pool = p;
    w->index = (int64_t)i + 1;
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
      jit_threadpool_destroy(p);
      return NULL;
    }
    p->num_workers++;
  }
  return p;
}

void jit_threadpool_destroy(JitThreadPool *p)
{
  if (!p)
    return;
  pthread_mutex_lock(&p->mu);
  p->stop = true;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  for (size_t i = 0; i < p->num_workers; i++)
    pthread_join(p->workers[i].thread, NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_mutex_destroy(&p->run_mu);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->done);
  free(p->workers);
  free(p->taken);
  free(p);
}

size_t jit_threadpool_get_threads(const JitThreadPool *p)
{
  return p ? p->threads : 1;
}
