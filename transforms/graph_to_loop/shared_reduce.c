/*
** shared_reduce.c - reductions split between the threads of a GPU's
** block (lowering.h's lower_parallel_kept_shared and
** lower_reduce_loops_split), the classic CUDA reduction: for a row to
** reduce per kept position, a thread per position would read its row
** alone, its neighbours far away (uncoalesced), with as few threads as
** rows. Here each kept position is a block of LOWER_REDUCE_THREADS
** threads (a loop.parallel mapped to blocks around one mapped to
** threads, as block_tiles.c's), and each reduction of its body is
**
**   thread t: partial = the step over elements t, t + T, t + 2T, ...
**             (the reduced dimensions linearized, the last fastest, so
**             that neighbouring threads read neighbouring elements);
**   partials into shared memory; log2(T) rounds of
**     barrier; threads t < s: buf[t] = combine(buf[t], buf[t + s]);
**   barrier; every thread reads the result from buf[0]; barrier.
**
** A visit (a reduction without accumulators: softmax's and the
** normalizations' writes) is split the same way, without the tree. The
** sums go in another order than the sequential loop's: results within
** rounding, not the same bits.
*/
#include "gpu/gpu.h"
#include "transforms/graph_to_loop/indexing.h"

struct LowerSharedReduce {
  GiltValue *thread; /* the thread's index in its block */
};

/* ---- the blocks --------------------------------------------------------------- */

typedef struct SharedKept {
  size_t rank;
  GiltValue *const *dims;
  const bool *reduced;
  LowerBodyFn body;
  void *user;
  GiltValue *const *kept; /* the blocks' induction variables */
} SharedKept;

/* Whether a kept position reduces enough elements to share them: at
** least a block's threads, or a count known only at run time. */
static bool worth_sharing(const Lower *l, size_t rank, GiltValue *const *dims,
                          const bool *reduced)
{
  if (l->block_tile == 0)
    return false;
  int64_t count = 1, size;
  for (size_t d = 0; d < rank; d++) {
    if (!reduced[d])
      continue;
    if (!loop_constant_int(dims[d], &size))
      return true;
    count *= size;
  }
  return count >= LOWER_REDUCE_THREADS;
}

static void threads_body(Lower *l, GiltValue *const *ivs, void *user)
{
  SharedKept *s = user;
  GiltValue *idx[GRAPH_MAX_RANK + 1], *zero = lower_index(l, 0);
  for (size_t d = 0, j = 0; d < s->rank; d++)
    idx[d] = s->reduced[d] ? zero : s->kept[j++];
  struct LowerSharedReduce shared = {ivs[0]}, *outer = l->shared_reduce;
  l->shared_reduce = &shared;
  s->body(l, idx, s->user);
  l->shared_reduce = outer;
}

static void blocks_body(Lower *l, GiltValue *const *ivs, void *user)
{
  SharedKept *s = user;
  s->kept = ivs;
  GiltValue *threads = lower_index(l, LOWER_REDUCE_THREADS);
  lower_parallel_mapped(l, 1, &threads, "threads", threads_body, s);
}

void lower_parallel_kept_shared(Lower *l, size_t rank, GiltValue *const *dims,
                                const bool *reduced, LowerBodyFn body,
                                void *user)
{
  if (!worth_sharing(l, rank, dims, reduced)) {
    lower_parallel_kept(l, rank, dims, reduced, body, user);
    return;
  }
  GiltValue *uppers[GRAPH_MAX_RANK + 1];
  size_t n = 0;
  for (size_t d = 0; d < rank; d++)
    if (!reduced[d])
      uppers[n++] = dims[d];
  if (n == 0) /* everything reduced: one block */
    uppers[n++] = lower_index(l, 1);
  SharedKept s = {rank, dims, reduced, body, user, NULL};
  lower_parallel_mapped(l, n, uppers, "blocks", blocks_body, &s);
}

/* ---- the reductions ------------------------------------------------------------ */

typedef struct Split {
  size_t rank;
  GiltValue *const *dims;
  const bool *reduced;
  GiltValue *const *at;
  size_t n;
  LowerAccFn step;
  LowerCombineFn combine;
  void *user;
  GiltValue *thread, *half; /* a round of the tree: threads below half */
  GiltValue *partials[LOWER_REDUCE_MAX_ACCUMULATORS];
} Split;

/* The thread's element k of the reduced dimensions, linearized. */
static void strided_step(Lower *l, GiltValue *k, GiltValue *const *acc,
                         GiltValue **next, void *user)
{
  Split *s = user;
  GiltValue *idx[GRAPH_MAX_RANK + 1];
  size_t outermost = 0;
  while (!s->reduced[outermost])
    outermost++;
  for (size_t d = s->rank; d-- > 0;) {
    if (!s->reduced[d]) {
      idx[d] = s->at[d];
    } else if (d == outermost) {
      idx[d] = k; /* below the count: what is left is in bounds */
    } else {
      idx[d] = ix_rem(l, k, s->dims[d]);
      k = ix_div(l, k, s->dims[d]);
    }
  }
  s->step(l, idx, acc, next, s->user);
}

/* A round of the tree, in the threads below half: buf[t] combined with
** buf[t + half]. */
static void combine_round(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Split *s = user;
  GiltValue *mine[LOWER_REDUCE_MAX_ACCUMULATORS];
  GiltValue *other[LOWER_REDUCE_MAX_ACCUMULATORS];
  GiltValue *next[LOWER_REDUCE_MAX_ACCUMULATORS];
  GiltValue *partner = ix_add(l, s->thread, s->half);
  for (size_t a = 0; a < s->n; a++) {
    mine[a] = lower_load(l, s->partials[a], &s->thread);
    other[a] = lower_load(l, s->partials[a], &partner);
  }
  s->combine(l, mine, other, next, s->user);
  for (size_t a = 0; a < s->n; a++)
    lower_store(l, next[a], s->partials[a], &s->thread);
}

void lower_reduce_loops_split(Lower *l, size_t rank, GiltValue *const *dims,
                              const bool *reduced, GiltValue *const *at,
                              size_t n, GiltValue *const *inits,
                              GiltValue **results, LowerAccFn step,
                              LowerCombineFn combine, void *user)
{
  if (!l->shared_reduce) {
    lower_reduce_loops(l, rank, dims, reduced, at, n, inits, results, step,
                       user);
    return;
  }
  GILT_ASSERT(n <= LOWER_REDUCE_MAX_ACCUMULATORS && (n == 0 || combine));
  Split s = {rank, dims, reduced, at, n, step, combine, user,
             l->shared_reduce->thread, NULL, {NULL}};
  GiltValue *partial[LOWER_REDUCE_MAX_ACCUMULATORS + 1];
  lower_for(l, s.thread, lower_reduced_count(l, rank, dims, reduced),
            lower_index(l, LOWER_REDUCE_THREADS), n, inits, partial,
            strided_step, &s);
  if (n == 0)
    return;
  int64_t threads = LOWER_REDUCE_THREADS;
  for (size_t a = 0; a < n; a++) {
    GiltType *t = gilt_memref_type_get(
        l->ctx, 1, &threads, gilt_value_get_type(inits[a]), NULL, NULL);
    s.partials[a] =
        lower_alloc(l, gpu_memref_in_space(l->ctx, t, GPU_SPACE_SHARED), NULL);
    lower_store(l, partial[a], s.partials[a], &s.thread);
  }
  for (int64_t half = threads / 2; half >= 1; half /= 2) {
    lower_barrier(l);
    s.half = lower_index(l, half);
    lower_if(l, lower_cmp(l, "slt", s.thread, s.half), combine_round, NULL,
             &s);
  }
  lower_barrier(l);
  GiltValue *first = lower_index(l, 0);
  for (size_t a = 0; a < n; a++)
    results[a] = lower_load(l, s.partials[a], &first);
  lower_barrier(l); /* before the buffers are written again */
}
