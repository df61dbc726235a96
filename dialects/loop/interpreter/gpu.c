/*
** gpu.c - the gpu ops the interpreter runs, so that what the GPU pipeline
** makes is checked on any machine: a launch runs every thread of its
** grid on the CPU, block after block (x fastest); the id ops read the
** running thread's ids; a buffer of memory space 3 (shared memory) is one
** per block, which every thread of the block allocates and sees.
**
** A kernel without gpu.barrier runs its threads one after another: no
** thread waits for another, so any order is one the GPU may take. A
** kernel with barriers runs each block's threads in lockstep, each a
** coroutine on a stack of its own (ucontext): a thread runs until it
** reaches a barrier or its end, then the next one does; once every thread
** waits, all go on. A block whose threads do not all reach the barrier
** (some ended) is an error, as CUDA leaves it undefined. After a
** thread's error the others are resumed only to unwind (their barrier
** fails silently), so that every frame is freed.
**
** The switches are getcontext and setcontext with AddressSanitizer's
** fiber annotations, not swapcontext, which it warns about; POSIX
** threads passing a baton were 25 times slower (the kernel's scheduler
** between 257 threads on every barrier).
*/
#include "dialects/loop/interpreter/interpreter.h"

#include <string.h>
#include <ucontext.h>

#if defined(__SANITIZE_ADDRESS__)
#define GILT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GILT_ASAN 1
#endif
#endif
#ifdef GILT_ASAN
#include <sanitizer/common_interface_defs.h>
#define FIBER_START(save, bottom, size)                                      \
  __sanitizer_start_switch_fiber(save, bottom, size)
#define FIBER_FINISH(save, bottom, size)                                     \
  __sanitizer_finish_switch_fiber(save, bottom, size)
#else
#define FIBER_START(save, bottom, size) ((void)(save), (void)(bottom))
#define FIBER_FINISH(save, bottom, size) ((void)(save), (void)(bottom))
#endif

/* The C stack of a thread run in lockstep: the handlers recurse once per
** nested region (sanitized frames are several times larger). */
#define THREAD_STACK_BYTES (256 * 1024)

typedef enum ThreadState {
  THREAD_WAITING, /* for its turn: at its start or at a barrier */
  THREAD_DONE,
  THREAD_FAILED
} ThreadState;

typedef struct BlockThread {
  ucontext_t context;
  char *stack;
  void *fake_stack; /* AddressSanitizer's, while switched away */
  int64_t id[3];
  unsigned depth; /* Interp's depth of calls while it runs */
  ThreadState state;
} BlockThread;

/* The threads of the block that runs in lockstep (Interp's `block`). */
struct InterpBlock {
  ucontext_t launch_context; /* where the launch waits for a thread */
  const void *launch_stack;  /* its stack, for AddressSanitizer */
  size_t launch_stack_size;
  void *launch_fake_stack;
  BlockThread *threads, *running;
  int64_t num_threads;
  bool unwinding; /* a thread failed: barriers fail */
  Interp *it;
  InterpFunction *kernel;
  GiltOp *launch;
  const Cell *args;
};

/* ---- a block in lockstep ------------------------------------------------------- */

/* The block whose thread starts: makecontext's entry takes no pointer.
** The coroutines run on the launch's own thread. */
static _Thread_local InterpBlock *starting;

/* Saves the running context into `from` and runs `to`; returns once
** something runs `from` again. */
static void switch_context(ucontext_t *from, const ucontext_t *to)
{
  volatile bool back = false;
  getcontext(from);
  if (!back) {
    back = true;
    setcontext(to);
  }
}

/* A thread: the kernel, called as a function, then back to the launch
** for good. */
static void thread_main(void)
{
  InterpBlock *b = starting;
  FIBER_FINISH(NULL, &b->launch_stack, &b->launch_stack_size);
  BlockThread *t = b->running;
  bool ok = !b->unwinding &&
            interp_call(b->it, b->kernel, b->launch, b->args, NULL);
  t->state = ok ? THREAD_DONE : THREAD_FAILED;
  FIBER_START(NULL, b->launch_stack, b->launch_stack_size);
  setcontext(&b->launch_context);
}

/* Makes `t` start at thread_main on its stack. Apart: getcontext returns
** twice as far as the compiler knows, which would clobber the caller's
** locals. */
static void prepare_start(BlockThread *t)
{
  getcontext(&t->context);
  t->context.uc_stack.ss_sp = t->stack;
  t->context.uc_stack.ss_size = THREAD_STACK_BYTES;
  t->context.uc_link = NULL; /* thread_main never returns */
  makecontext(&t->context, thread_main, 0);
}

/* Runs `t` until it waits at a barrier or ends. */
static void resume(InterpBlock *b, BlockThread *t)
{
  Interp *it = b->it;
  unsigned depth = it->depth;
  memcpy(it->gpu_ids[GPU_ID_THREAD], t->id, sizeof t->id);
  it->depth = t->depth;
  b->running = t;
  starting = b;
  FIBER_START(&b->launch_fake_stack, t->stack, THREAD_STACK_BYTES);
  switch_context(&b->launch_context, &t->context);
  FIBER_FINISH(b->launch_fake_stack, NULL, NULL);
  t->depth = it->depth;
  it->depth = depth;
}

/* Resumes every waiting thread so that it unwinds (its barrier fails, or
** it does not start). */
static void unwind(InterpBlock *b)
{
  b->unwinding = true;
  for (int64_t i = 0; i < b->num_threads; i++)
    if (b->threads[i].state == THREAD_WAITING)
      resume(b, &b->threads[i]);
}

/* One block's threads in lockstep, from barrier to barrier. */
static bool run_block_in_lockstep(InterpBlock *b, const int64_t *grid)
{
  b->unwinding = false;
  for (int64_t i = 0; i < b->num_threads; i++) {
    BlockThread *t = &b->threads[i];
    t->id[0] = i % grid[3];
    t->id[1] = i / grid[3] % grid[4];
    t->id[2] = i / grid[3] / grid[4];
    t->depth = b->it->depth;
    t->state = THREAD_WAITING;
    prepare_start(t);
  }
  for (;;) {
    int64_t done = 0;
    for (int64_t i = 0; i < b->num_threads; i++) {
      BlockThread *t = &b->threads[i];
      if (t->state == THREAD_WAITING)
        resume(b, t);
      if (t->state == THREAD_FAILED) {
        unwind(b);
        return false;
      }
      done += t->state == THREAD_DONE;
    }
    if (done == b->num_threads)
      return true;
    if (done > 0) {
      gilt_op_emit_error(b->launch, "%lld of the %lld threads of a block "
                                    "ended while the others wait at a "
                                    "gpu.barrier",
                         (long long)done, (long long)b->num_threads);
      unwind(b);
      return false;
    }
  }
}

bool interp_gpu_barrier(Cell *f, const Instr *in, Interp *it)
{
  (void)f;
  InterpBlock *b = it->block;
  if (!b) {
    gilt_op_emit_error(in->op, "waits at a barrier outside a kernel");
    return false;
  }
  BlockThread *t = b->running;
  t->state = THREAD_WAITING;
  FIBER_START(&t->fake_stack, b->launch_stack, b->launch_stack_size);
  switch_context(&t->context, &b->launch_context);
  FIBER_FINISH(t->fake_stack, NULL, NULL);
  return !b->unwinding;
}

/* ---- the grid --------------------------------------------------------------- */

/* Frees the block's shared buffers: the next block allocates its own. */
static void end_block(Interp *it)
{
  if (!it->shared.len)
    return;
  for (size_t i = 0; i < it->shared.cap; i++)
    if (it->shared.keys[i])
      interp_buffer_retire(it, (char *)(uintptr_t)it->shared.vals[i]);
  gilt_ptr_map_free(&it->shared);
  gilt_ptr_map_init(&it->shared, it->ctx);
}

/* Every thread of the grid, block after block: one after another, or in
** lockstep in `block` (when not NULL). */
static bool run_grid(Interp *it, const Instr *in, InterpFunction *fn,
                     const int64_t *grid, const Cell *args, InterpBlock *block)
{
  int64_t (*ids)[3] = it->gpu_ids;
  for (int d = 0; d < 3; d++) {
    ids[GPU_ID_GRID_DIM][d] = grid[d];
    ids[GPU_ID_BLOCK_DIM][d] = grid[3 + d];
  }
  int64_t threads = grid[3] * grid[4] * grid[5];
  bool ok = true;
  for (int64_t b = 0; ok && b < grid[0] * grid[1] * grid[2]; b++) {
    ids[GPU_ID_BLOCK][0] = b % grid[0];
    ids[GPU_ID_BLOCK][1] = b / grid[0] % grid[1];
    ids[GPU_ID_BLOCK][2] = b / grid[0] / grid[1];
    if (block)
      ok = run_block_in_lockstep(block, grid);
    for (int64_t t = 0; !block && ok && t < threads; t++) {
      ids[GPU_ID_THREAD][0] = t % grid[3];
      ids[GPU_ID_THREAD][1] = t / grid[3] % grid[4];
      ids[GPU_ID_THREAD][2] = t / grid[3] / grid[4];
      ok = interp_call(it, fn, in->op, args, NULL);
    }
    end_block(it);
  }
  return ok;
}

/* The block of threads in lockstep for a kernel with barriers, their
** stacks allocated; NULL for one without. */
static InterpBlock *block_create(Interp *it, const Instr *in,
                                 InterpFunction *fn, const int64_t *grid,
                                 const Cell *args)
{
  if (!fn->waits_at_barriers)
    return NULL;
  InterpBlock *b = gilt_malloc(it->ctx, sizeof *b);
  *b = (InterpBlock){.num_threads = grid[3] * grid[4] * grid[5],
                     .it = it,
                     .kernel = fn,
                     .launch = in->op,
                     .args = args};
  b->threads = gilt_malloc(it->ctx, (size_t)b->num_threads * sizeof *b->threads);
  for (int64_t i = 0; i < b->num_threads; i++)
    b->threads[i].stack = gilt_malloc(it->ctx, THREAD_STACK_BYTES);
  return b;
}

static void block_free(Interp *it, InterpBlock *b)
{
  if (!b)
    return;
  for (int64_t i = 0; i < b->num_threads; i++)
    gilt_free(it->ctx, b->threads[i].stack);
  gilt_free(it->ctx, b->threads);
  gilt_free(it->ctx, b);
}

bool interp_launch_func(Cell *f, const Instr *in, Interp *it)
{
  InterpCallee *kernel = (InterpCallee *)in->aux;
  if (!kernel->fn && !(kernel->fn = interp_function_get(it, kernel->func)))
    return false;
  int64_t grid[6];
  for (int i = 0; i < 6; i++) {
    grid[i] = f[in->list[i]].i;
    if (grid[i] < 1) {
      gilt_op_emit_error(in->op, "launches a grid of %s %lld in %c; CUDA "
                                 "needs at least 1",
                         i < 3 ? "blocks" : "threads", (long long)grid[i],
                         "xyz"[i % 3]);
      return false;
    }
  }
  if (grid[3] > 1024 || grid[4] > 1024 || grid[5] > 64 ||
      grid[3] * grid[4] * grid[5] > 1024) {
    gilt_op_emit_error(in->op, "launches blocks of %lld x %lld x %lld "
                               "threads; CUDA allows at most 1024 (and 64 "
                               "in z)",
                       (long long)grid[3], (long long)grid[4],
                       (long long)grid[5]);
    return false;
  }
  Cell *args = gilt_malloc(it->ctx, (in->n - 6 + 1) * sizeof(Cell));
  for (uint32_t i = 6; i < in->n; i++)
    args[i - 6] = f[in->list[i]];
  int64_t saved[4][3];
  memcpy(saved, it->gpu_ids, sizeof saved);
  InterpBlock *block = block_create(it, in, kernel->fn, grid, args);
  InterpBlock *outer = it->block;
  it->block = block;
  bool ok = run_grid(it, in, kernel->fn, grid, args, block);
  it->block = outer;
  block_free(it, block);
  memcpy(it->gpu_ids, saved, sizeof saved);
  gilt_free(it->ctx, args);
  return ok;
}

bool interp_gpu_id(Cell *f, const Instr *in, Interp *it)
{
  f[in->dst].i = it->gpu_ids[in->imm / 3][in->imm % 3];
  return true;
}
