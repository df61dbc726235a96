/*
** block_tiles.c - the f32 product for a GPU's thread blocks: the classic
** shared-memory SGEMM (CUTLASS's and Triton's starting point). Each block
** of 16 x 16 threads computes a T x T tile of C (T, Lower's block_tile,
** 16 to 128); each thread R x R of its outputs (R = T / 16), at rows
** ty + 16 r and columns tx + 16 c of the tile, so that neighbouring
** threads read neighbouring words of shared memory and store neighbouring
** words of C. Per step of the reduction:
**
**   every thread stages R elements of A's tile [T x 16] and R of B's
**   [16 x T] into shared memory, neighbouring threads reading
**   neighbouring addresses (A along k, B along j), zeros past k's end;
**   barrier;
**   16 times: R values of A and R of B from shared memory, R * R
**   multiply-adds into the accumulators (registers);
**   barrier (the next step overwrites the tiles).
**
** A's tile is kept transposed, [16 x (T + 1)]: the staging stores of
** neighbouring threads (neighbouring k) fall T + 1 words apart, in
** different banks. Rows and columns past C's edges are read clamped
** (their sums are never stored); the stores are guarded.
**
** The nest is a loop.parallel over the tiles mapped to the grid's
** blocks, the shared tiles allocated in its body, and a loop.parallel
** over the block's threads mapped to them (lower_parallel_mapped);
** gpu-map-parallel makes them one launch.
*/
#include "transforms/graph_to_loop/block_tiles.h"

#include "gilt/remarks.h"
#include "gpu/gpu.h"
#include "transforms/graph_to_loop/indexing.h"

#define THREADS LOWER_BLOCK_THREADS
#define DEPTH LOWER_BLOCK_DEPTH
#define MAX_PER_THREAD (128 / LOWER_BLOCK_THREADS)

typedef struct Block {
  const LowerBlockTiles *t;
  int64_t tile, per; /* T, and R = T / 16 outputs per thread and side */
  GiltValue *batch[GRAPH_MAX_RANK];
  GiltValue *i0, *j0;           /* the tile's first row and column */
  GiltValue *a_tile, *b_tile;   /* shared: [16][T + 1] (A^T), [16][T] */
  GiltValue *ty, *tx;
  GiltValue *b_row, *b_col;     /* where the thread stages B: tid / T, tid % T */
  GiltValue *rows[MAX_PER_THREAD], *cols[MAX_PER_THREAD]; /* in the tile */
} Block;

bool lower_block_tiles_fit(const Lower *l, int64_t m, int64_t n)
{
  int64_t half = l->block_tile / 2;
  return l->block_tile > 0 && (m == GILT_DYNAMIC || m >= half) &&
         (n == GILT_DYNAMIC || n >= half);
}

/* Stages the step's tiles of A and B from k0 into shared memory. */
static void stage(Lower *l, Block *b, GiltValue *k0)
{
  const LowerBlockTiles *t = b->t;
  GiltValue *zero = lower_constant(l, gilt_float_type_get(l->ctx, GILT_F32), 0);
  GiltValue *inside;
  /* A: the thread's column of the tile is k0 + tx, its rows ty + 16 e. */
  GiltValue *ka = ix_clamp_into(l, ix_add(l, k0, b->tx), t->k, &inside);
  for (int64_t e = 0; e < b->per; e++) {
    GiltValue *i = ix_clamp_into(l, ix_add(l, b->i0, b->rows[e]), t->m, NULL);
    GiltValue *a = lower_select(l, inside, t->load_a(l, b->batch, i, ka, t->user),
                                zero);
    GiltValue *at[2] = {b->tx, b->rows[e]};
    lower_store(l, a, b->a_tile, at);
  }
  /* B: its row is tid / T + (256 / T) e, its column tid % T. */
  GiltValue *j = ix_clamp_into(l, ix_add(l, b->j0, b->b_col), t->n, NULL);
  for (int64_t e = 0; e < b->per; e++) {
    GiltValue *row = ix_add(l, b->b_row,
                            lower_index(l, e * THREADS * THREADS / b->tile));
    GiltValue *kb = ix_clamp_into(l, ix_add(l, k0, row), t->k, &inside);
    GiltValue *v = lower_select(l, inside, t->load_b(l, b->batch, kb, j, t->user),
                                zero);
    GiltValue *at[2] = {row, b->b_col};
    lower_store(l, v, b->b_tile, at);
  }
}

/* One k of the staged tiles: R * R multiply-adds (acc and next may be
** the same array). */
static void multiply(Lower *l, GiltValue *kk, GiltValue *const *acc,
                     GiltValue **next, Block *b)
{
  GiltValue *x[MAX_PER_THREAD], *y[MAX_PER_THREAD];
  for (int64_t r = 0; r < b->per; r++) {
    GiltValue *at[2] = {kk, b->rows[r]};
    x[r] = lower_load(l, b->a_tile, at);
  }
  for (int64_t c = 0; c < b->per; c++) {
    GiltValue *at[2] = {kk, b->cols[c]};
    y[c] = lower_load(l, b->b_tile, at);
  }
  for (int64_t r = 0; r < b->per; r++)
    for (int64_t c = 0; c < b->per; c++)
      next[r * b->per + c] =
          lower_lanes_fma(l, x[r], y[c], acc[r * b->per + c]);
}

/* One step of the reduction: stage, wait, multiply (the 16 k of the
** tiles unrolled, as CUDA's SGEMMs do: LLVM's NVPTX unroller leaves a
** loop of this size), wait. */
static void reduce_step(Lower *l, GiltValue *k0, GiltValue *const *acc,
                        GiltValue **next, void *user)
{
  Block *b = user;
  size_t count = (size_t)(b->per * b->per);
  stage(l, b, k0);
  lower_barrier(l);
  for (size_t s = 0; s < count; s++)
    next[s] = acc[s];
  for (int64_t kk = 0; kk < DEPTH; kk++)
    multiply(l, lower_index(l, kk), next, next, b);
  lower_barrier(l);
}

typedef struct Output {
  Block *b;
  GiltValue *i, *j, *sum;
} Output;

static void store_output(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Output *o = user;
  o->b->t->store(l, o->b->batch, o->i, o->j, o->sum, o->b->t->user);
}

/* A thread's body: its outputs' sums, then the ones inside C stored. */
static void thread_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Block *b = user;
  const LowerBlockTiles *t = b->t;
  b->ty = ivs[0];
  b->tx = ivs[1];
  GiltValue *tid = ix_add(l, ix_mul(l, b->ty, lower_index(l, THREADS)), b->tx);
  GiltValue *tile = lower_index(l, b->tile);
  b->b_row = ix_div(l, tid, tile);
  b->b_col = ix_rem(l, tid, tile);
  for (int64_t r = 0; r < b->per; r++) {
    b->rows[r] = ix_add(l, b->ty, lower_index(l, THREADS * r));
    b->cols[r] = ix_add(l, b->tx, lower_index(l, THREADS * r));
  }
  size_t count = (size_t)(b->per * b->per);
  GiltValue *init[MAX_PER_THREAD * MAX_PER_THREAD];
  GiltValue *sums[MAX_PER_THREAD * MAX_PER_THREAD];
  GiltValue *zero = lower_constant(l, gilt_float_type_get(l->ctx, GILT_F32), 0);
  for (int64_t r = 0; r < b->per; r++) {
    /* A row past C's edge starts from its last row's value, unused. */
    GiltValue *i = ix_clamp_into(l, ix_add(l, b->i0, b->rows[r]), t->m, NULL);
    GiltValue *first = t->init ? t->init(l, b->batch, i, t->user) : zero;
    for (int64_t c = 0; c < b->per; c++)
      init[r * b->per + c] = first;
  }
  lower_for(l, lower_index(l, 0), t->k, lower_index(l, DEPTH), count, init,
            sums, reduce_step, b);
  for (int64_t r = 0; r < b->per; r++) {
    GiltValue *i = ix_add(l, b->i0, b->rows[r]);
    GiltValue *row_in = lower_cmp(l, "slt", i, t->m);
    for (int64_t c = 0; c < b->per; c++) {
      GiltValue *j = ix_add(l, b->j0, b->cols[c]);
      GiltValue *in = lower_binary(l, LOOP_OP_ANDI, row_in,
                                   lower_cmp(l, "slt", j, t->n));
      Output o = {b, i, j, sums[r * b->per + c]};
      lower_if(l, in, store_output, NULL, &o);
    }
  }
}

/* A block's body: its tile's corner, the shared tiles, its threads. */
static void block_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Block *b = user;
  size_t nb = b->t->batch_rank;
  for (size_t d = 0; d < nb; d++)
    b->batch[d] = ivs[d];
  GiltValue *tile = lower_index(l, b->tile);
  b->i0 = ix_mul(l, ivs[nb], tile);
  b->j0 = ix_mul(l, ivs[nb + 1], tile);
  GiltType *f32 = gilt_float_type_get(l->ctx, GILT_F32);
  int64_t a_shape[2] = {DEPTH, b->tile + 1}, b_shape[2] = {DEPTH, b->tile};
  GiltType *a_type = gilt_memref_type_get(l->ctx, 2, a_shape, f32, NULL, NULL);
  GiltType *b_type = gilt_memref_type_get(l->ctx, 2, b_shape, f32, NULL, NULL);
  b->a_tile = lower_alloc(l, gpu_memref_in_space(l->ctx, a_type,
                                                 GPU_SPACE_SHARED),
                          NULL);
  b->b_tile = lower_alloc(l, gpu_memref_in_space(l->ctx, b_type,
                                                 GPU_SPACE_SHARED),
                          NULL);
  GiltValue *threads[2] = {lower_index(l, THREADS), lower_index(l, THREADS)};
  lower_parallel_mapped(l, 2, threads, "threads", thread_body, b);
}

void lower_block_tiles(Lower *l, const LowerBlockTiles *t)
{
  Block b = {.t = t, .tile = l->block_tile,
             .per = l->block_tile / THREADS};
  GILT_ASSERT(b.per >= 1 && b.per <= MAX_PER_THREAD);
  GiltRemarkArg args[3] = {{"algorithm", t->algorithm, 0},
                           {"tile", NULL, b.tile},
                           {"per_thread", NULL, b.per}};
  gilt_remark(l->op, "tiling", t->algorithm, 3, args,
              "%s: block tiles of %lld x %lld through shared memory, "
              "16 x 16 threads of %lld x %lld outputs each, 16 deep along "
              "the reduction",
              t->algorithm, (long long)b.tile, (long long)b.tile,
              (long long)b.per, (long long)b.per);
  size_t nb = t->batch_rank;
  GiltValue *uppers[GRAPH_MAX_RANK + 2];
  for (size_t d = 0; d < nb; d++)
    uppers[d] = t->batch[d];
  GiltValue *tile = lower_index(l, b.tile);
  uppers[nb] = lower_binary(l, LOOP_OP_CEILDIVSI, t->m, tile);
  uppers[nb + 1] = lower_binary(l, LOOP_OP_CEILDIVSI, t->n, tile);
  lower_parallel_mapped(l, nb + 2, uppers, "blocks", block_body, &b);
}
