/*
** map_parallel.c - `gpu-map-parallel`: runs a loop-level function's
** buffer work on the GPU. Each loop.parallel the host reaches becomes a
** gpu.launch of one thread per iteration, buffers move to device memory,
** and the host keeps the control around them.
**
** Requires a func.func at the loop level (what graph-to-loop and
** loop-buffer-deallocation make). Produces host code over device buffers
** (memrefs of memory space 1) with gpu.launch ops in it, for
** gpu-outline-kernels; the function's signature is unchanged.
**
** The scheme is MLIR's gpu-map-parallel-loops with one linear dimension,
** as TVM's default schedule for injective ops: the iteration space of a
** loop.parallel is linearized with its innermost dimension fastest, so
** that neighbouring threads touch neighbouring addresses (coalesced), cut
** into blocks of `block-size` threads, and each thread computes its linear
** id (block_id * block_dim + thread_id), stops when it is past the end,
** and delinearizes it into the loop's induction variables (times step
** plus lower). The loop's body, nested loops included, is the thread's
** body. The host reaches the ops of the function's body and, recursively,
** of the loop.for, loop.if and loop.while ops whose blocks only hold what
** the host runs (the tile loops around graph-to-loop's convolutions) or
** that yield buffers (an ONNX If choosing between buffers, a Loop or Scan
** carrying tensors):
**   - loop.parallel: a launch, as above;
**   - loop.alloc, loop.dealloc, loop.get_global: gpu.alloc, gpu.dealloc,
**     gpu.device_global (device buffers; weights uploaded once);
**   - loop.copy of contiguous buffers: gpu.memcpy from device to device;
**   - pure ops without regions (index arithmetic, loop.dim, views,
**     constants) and loop.assert: stay on the host, where the kernels
**     that use them receive their values;
**   - a loop.parallel mapped to blocks (graph-to-loop's block tiles): one
**     launch of a block per iteration, its threads the loop.parallel
**     mapped to threads inside (map_blocks);
**   - anything else that the host reaches (a loop of device work, a load
**     or store, a copy of a view) runs in a launch of
**     one thread, with the ops after it that use what it computes until
**     nothing computed there is used after (a load, arithmetic, the
**     store): correct, slow; counted by the statistic `num-single-thread`
**     so that what is left to map shows.
** A scalar such a launch computes that the host itself needs (a loop
** bound, a size, a condition) is stored by the kernel into a device
** buffer of one element and copied back for the host to load (counted by
** `num-read-back`); a buffer it computes (a view) cannot come back, and
** is reported. Memref arguments are copied to device buffers at entry
** and, when the function may write them (any use but reads, through
** views too), back before the return; memref results are copied to new
** host buffers there, and the device buffers the function made and did
** not free are freed.
** Every other memref value of the function becomes one of space 1.
**
** Statistics: num-launches, num-single-thread, num-small-launches (the
** launches whose loop has fewer iterations than a block, known at
** compile time: a GPU mostly idle), num-block-launches and num-read-back.
*/
#include "gpu/passes.h"

#include "dialects/func/func.h"
#include "dialects/loop/loop.h"
#include "gpu/gpu.h"
#include "ir/core.h"
#include "ir/support/ptr_map.h"

typedef struct Map {
  GiltPass *pass;
  GpuBuilder g;
  int64_t block_size;
  int64_t num_launches, num_single, num_small, num_read_back, num_block_launches;
  size_t num_errors;
} Map;

/* ---- what the host runs ----------------------------------------------------- */

static bool stays_on_host(GiltOp *op)
{
  if (loop_op_is(op, LOOP_OP_ASSERT))
    return true;
  /* A load from host memory: an argument the function only reads. */
  if (loop_op_is(op, LOOP_OP_LOAD))
    return gpu_memory_space(gilt_value_get_type(gilt_op_get_operand(op, 0))) ==
           GPU_SPACE_HOST;
  return gilt_op_has_trait(op, GILT_TRAIT_PURE) &&
         gilt_op_get_num_regions(op) == 0 &&
         !gilt_op_has_trait(op, GILT_TRAIT_TERMINATOR);
}

static bool runs_on_host(GiltOp *op);

/* Whether op has a buffer among its results. */
static bool yields_buffer(GiltOp *op)
{
  for (size_t i = 0; i < gilt_op_get_num_results(op); i++)
    if (gilt_value_get_type(gilt_op_get_result(op, i))->kind == GILT_TYPE_MEMREF)
      return true;
  return false;
}

/* A loop.for, loop.if or loop.while the host runs: every op of its
** blocks runs on the host (results are fine: scalars the host computes,
** or device buffers it chooses between), or it yields buffers, which a
** kernel could not give back (an ONNX Loop or Scan carrying tensors: its
** device work is launched from the host, iteration by iteration). */
static bool is_host_control(GiltOp *op)
{
  if (!loop_op_is(op, LOOP_OP_FOR) && !loop_op_is(op, LOOP_OP_IF) &&
      !loop_op_is(op, LOOP_OP_WHILE))
    return false;
  if (yields_buffer(op))
    return true;
  for (size_t r = 0; r < gilt_op_get_num_regions(op); r++)
    for (GiltBlock *b = gilt_region_get_first_block(gilt_op_get_region(op, r));
         b; b = gilt_block_get_next(b)) {
      GiltOp *last = gilt_block_get_terminator(b);
      for (GiltOp *o = gilt_block_get_first_op(b); o && o != last;
           o = gilt_op_get_next(o))
        if (!runs_on_host(o))
          return false;
    }
  return true;
}

static bool runs_on_host(GiltOp *op)
{
  switch (loop_op_id(op)) {
  case LOOP_OP_PARALLEL:
  case LOOP_OP_ALLOC:
  case LOOP_OP_DEALLOC:
  case LOOP_OP_GET_GLOBAL:
  case LOOP_OP_COPY:
    return true;
  case LOOP_OP_FOR:
  case LOOP_OP_IF:
  case LOOP_OP_WHILE:
    return is_host_control(op);
  default:
    return stays_on_host(op);
  }
}

/* ---- launches ----------------------------------------------------------------- */

static void map_block(Map *m, GiltBlock *block);

static GiltValue *index_op(Map *m, const char *name, GiltValue *a, GiltValue *b)
{
  return gpu_build_arith(&m->g, name, a, b);
}

/* The number of iterations of dimension d: max(ceil((upper - lower) /
** step), 0). */
static GiltValue *trip_count(Map *m, GiltOp *par, size_t rank, size_t d)
{
  GiltValue *lower = gilt_op_get_operand(par, d);
  GiltValue *upper = gilt_op_get_operand(par, rank + d);
  GiltValue *step = gilt_op_get_operand(par, 2 * rank + d);
  GiltValue *span = index_op(m, "loop.subi", upper, lower);
  GiltValue *count = index_op(m, "loop.ceildivsi", span, step);
  return index_op(m, "loop.maxsi", count, gpu_build_index(&m->g, 0));
}

/* loop.if (id < total) with an empty then-block, the builder in it. */
static GiltBlock *guard(Map *m, GiltValue *id, GiltValue *total)
{
  GiltValue *ops[2] = {id, total};
  GiltNamedAttr pred = {"predicate", gilt_string_attr_get(m->g.ctx, "slt", 3)};
  GiltType *i1 = gilt_integer_type_get(m->g.ctx, 1, GILT_SIGNLESS);
  GiltValue *in = gilt_op_get_result(
      gpu_build(&m->g, "loop.cmpi", i1, 2, ops, 1, &pred, 0), 0);
  GiltOp *branch = gpu_build(&m->g, "loop.if", NULL, 1, &in, 0, NULL, 2);
  GiltBlock *then = gilt_block_create(m->g.ctx, 0, NULL, NULL);
  gilt_region_append_block(gilt_op_get_region(branch, 0), then);
  gilt_builder_set_insertion_point_to_end(m->g.b, then);
  return then;
}

/* The induction variables of `par` from the thread's linear id: the
** innermost dimension varies fastest. Replaces the body's arguments. */
static void delinearize(Map *m, GiltOp *par, size_t rank, GiltValue *id,
                        GiltValue *const *counts)
{
  GiltBlock *body = gpu_body(par);
  GiltValue *rest = id;
  for (size_t d = rank; d-- > 0;) {
    GiltValue *i = rest;
    if (d > 0) {
      i = index_op(m, "loop.remsi", rest, counts[d]);
      rest = index_op(m, "loop.divsi", rest, counts[d]);
    }
    GiltValue *scaled =
        index_op(m, "loop.muli", i, gilt_op_get_operand(par, 2 * rank + d));
    GiltValue *iv = index_op(m, "loop.addi", gilt_op_get_operand(par, d), scaled);
    gilt_value_replace_all_uses_with(gilt_block_get_argument(body, d), iv);
  }
}

/* Moves the ops of `from`, its terminator included, to the end of `to`. */
static void move_ops(GiltBlock *from, GiltBlock *to)
{
  GiltOp *op;
  while ((op = gilt_block_get_first_op(from))) {
    gilt_op_remove_from_parent(op);
    gilt_block_append_op(to, op);
  }
}

/* Whether the body of `par` allocates. A kernel cannot, so the host runs
** such a nest's iterations one after another, each launching the nests
** inside (graph-to-loop's MatMul runs a batch of small products side by
** side this way on the CPU, each with its packed operands). */
static bool allocates(GiltOp *par)
{
  for (GiltOp *o = gilt_block_get_first_op(gpu_body(par)); o;
       o = gilt_op_get_next(o))
    if (loop_op_is(o, LOOP_OP_ALLOC))
      return true;
  return false;
}

/* `par` as nested loop.for ops of the host, its body (mapped) inside. */
static void map_parallel_on_host(Map *m, GiltOp *par)
{
  size_t rank = gilt_op_get_num_operands(par) / 3;
  GiltBlock *body = gpu_body(par);
  for (size_t d = 0; d < rank; d++) {
    GiltOp *loop = gpu_build_for(&m->g, gilt_op_get_operand(par, d),
                                 gilt_op_get_operand(par, rank + d),
                                 gilt_op_get_operand(par, 2 * rank + d));
    GiltBlock *inner = gpu_body(loop);
    gilt_value_replace_all_uses_with(gilt_block_get_argument(body, d),
                                     gilt_block_get_argument(inner, 0));
    gilt_builder_set_insertion_point_before(m->g.b,
                                            gilt_block_get_terminator(inner));
  }
  GiltBlock *innermost = gilt_builder_get_insertion_block(m->g.b);
  gilt_op_destroy(gilt_block_get_terminator(innermost));
  move_ops(body, innermost);
  gilt_op_destroy(par);
  map_block(m, innermost);
}

static void map_parallel(Map *m, GiltOp *par)
{
  if (allocates(par)) {
    map_parallel_on_host(m, par);
    return;
  }
  size_t rank = gilt_op_get_num_operands(par) / 3;
  int64_t iterations = loop_parallel_static_iterations(par);
  if (iterations >= 0 && iterations < m->block_size)
    m->num_small++;
  GiltValue *counts[rank + 1], *total = gpu_build_index(&m->g, 1);
  for (size_t d = 0; d < rank; d++) {
    counts[d] = trip_count(m, par, rank, d);
    total = index_op(m, "loop.muli", total, counts[d]);
  }
  GiltValue *one = gpu_build_index(&m->g, 1);
  GiltValue *block = gpu_build_index(&m->g, m->block_size);
  /* At least one block: an empty launch is an error to CUDA; the guard
  ** stops every thread of it. */
  GiltValue *grid = index_op(m, "loop.maxsi",
                             index_op(m, "loop.ceildivsi", total, block), one);
  GiltValue *sizes[6] = {grid, one, one, block, one, one};
  GiltOp *launch = gpu_build_launch(&m->g, sizes);
  gilt_builder_set_insertion_point_before(
      m->g.b, gilt_block_get_terminator(gpu_body(launch)));
  GiltValue *bid = gpu_build_id_x(&m->g, GPU_OP_BLOCK_ID);
  GiltValue *bdim = gpu_build_id_x(&m->g, GPU_OP_BLOCK_DIM);
  GiltValue *tid = gpu_build_id_x(&m->g, GPU_OP_THREAD_ID);
  GiltValue *id = index_op(m, "loop.addi", index_op(m, "loop.muli", bid, bdim),
                           tid);
  GiltBlock *then = guard(m, id, total);
  delinearize(m, par, rank, id, counts);
  move_ops(gpu_body(par), then);
  gilt_op_destroy(par);
  m->num_launches++;
}

/* The loop.parallel mapped to the block's threads in the body of `par`,
** mapped to blocks, or NULL after reporting. Its trip count must be
** known: it is the block's size, every thread of which reaches the
** barriers. */
static GiltOp *block_threads(Map *m, GiltOp *par, int64_t *threads)
{
  GiltOp *found = NULL;
  size_t count = 0;
  for (GiltOp *o = gilt_block_get_first_op(gpu_body(par)); o;
       o = gilt_op_get_next(o))
    if (gpu_loop_is_mapped(o, "threads")) {
      found = o;
      count++;
    }
  *threads = count == 1 ? loop_parallel_static_iterations(found) : -1;
  if (*threads >= 1 && *threads <= 1024)
    return found;
  gilt_op_emit_error(par, "gpu-map-parallel: a loop.parallel mapped to "
                          "blocks holds one loop.parallel mapped to threads, "
                          "of a known trip count from 1 to 1024");
  m->num_errors++;
  return NULL;
}

/* A nest of graph-to-loop's block tiles: `par`, mapped to blocks, is
** one launch whose blocks are its iterations (linearized as above, a
** whole block in or out, so that all its threads reach the same
** barriers); the loop.parallel mapped to threads in its body is the
** block's threads, exactly its iterations; what lies between (the
** shared tiles' allocations) every thread runs. */
static void map_blocks(Map *m, GiltOp *par)
{
  int64_t threads;
  GiltOp *inner = block_threads(m, par, &threads);
  if (!inner)
    return;
  size_t rank = gilt_op_get_num_operands(par) / 3;
  GiltValue *counts[rank + 1], *total = gpu_build_index(&m->g, 1);
  for (size_t d = 0; d < rank; d++) {
    counts[d] = trip_count(m, par, rank, d);
    total = index_op(m, "loop.muli", total, counts[d]);
  }
  GiltValue *one = gpu_build_index(&m->g, 1);
  GiltValue *sizes[6] = {index_op(m, "loop.maxsi", total, one), one, one,
                         gpu_build_index(&m->g, threads), one, one};
  GiltOp *launch = gpu_build_launch(&m->g, sizes);
  gilt_builder_set_insertion_point_before(
      m->g.b, gilt_block_get_terminator(gpu_body(launch)));
  GiltValue *block = gpu_build_id_x(&m->g, GPU_OP_BLOCK_ID);
  GiltBlock *then = guard(m, block, total);
  delinearize(m, par, rank, block, counts);
  move_ops(gpu_body(par), then);
  gilt_op_destroy(par);
  size_t inner_rank = gilt_op_get_num_operands(inner) / 3;
  GiltValue *inner_counts[inner_rank + 1];
  gilt_builder_set_insertion_point_before(m->g.b, inner);
  for (size_t d = 0; d < inner_rank; d++)
    inner_counts[d] = trip_count(m, inner, inner_rank, d);
  delinearize(m, inner, inner_rank, gpu_build_id_x(&m->g, GPU_OP_THREAD_ID),
              inner_counts);
  GiltBlock *body = gpu_body(inner);
  GiltOp *yield = gilt_block_get_terminator(body);
  for (GiltOp *o = gilt_block_get_first_op(body), *next; o != yield; o = next) {
    next = gilt_op_get_next(o);
    gilt_op_move_before(o, inner);
  }
  gilt_op_destroy(inner);
  m->num_launches++;
  m->num_block_launches++;
}

/* Whether a value the ops from `first` to `last` define is used after
** them in their block (or in what follows, nested). */
static bool escapes(GiltOp *first, GiltOp *last)
{
  GiltBlock *block = gilt_op_get_block(first);
  for (GiltOp *op = first;; op = gilt_op_get_next(op)) {
    for (size_t i = 0; i < gilt_op_get_num_results(op); i++)
      for (GiltOperand *u = gilt_value_get_first_use(gilt_op_get_result(op, i));
           u; u = gilt_operand_get_next_use(u)) {
        GiltOp *at = gilt_block_find_ancestor_op(block, u->owner);
        if (at != last && gilt_op_is_before_in_block(last, at))
          return true;
      }
    if (op == last)
      return false;
  }
}

/* Whether a one-thread launch may take op along: device code, not what
** the host runs anyway (launches, copies, allocations, its loops) but the
** pure ops the host would compute too. */
static bool fits_in_kernel(GiltOp *op)
{
  if (gilt_op_has_trait(op, GILT_TRAIT_TERMINATOR) ||
      gpu_op_id(op) != GPU_NUM_OPS)
    return false;
  if (loop_op_is(op, LOOP_OP_LOAD))
    return !stays_on_host(op);
  return !runs_on_host(op) || stays_on_host(op);
}

static GiltType *on_device(Map *m, GiltType *t)
{
  return gpu_memref_in_space(m->g.ctx, t, GPU_SPACE_GLOBAL);
}

/* The value `v`, computed in the one-thread launch `launch`, for the host
** ops after it: the kernel stores it into a device buffer of one element,
** which is copied into a host buffer the host loads it from (the copy
** waits for the kernel). False when v is a buffer, which cannot move. */
static bool read_back(Map *m, GiltOp *launch, GiltValue *v)
{
  GiltType *t = gilt_value_get_type(v);
  if (t->kind == GILT_TYPE_MEMREF)
    return false;
  int64_t one = 1;
  GiltType *host_t = gilt_memref_type_get(m->g.ctx, 1, &one, t, NULL, NULL);
  gilt_builder_set_insertion_point_before(m->g.b, launch);
  GiltValue *slot = gilt_op_get_result(
      gpu_build(&m->g, "gpu.alloc", on_device(m, host_t), 0, NULL, 0, NULL, 0),
      0);
  gilt_builder_set_insertion_point_after(m->g.b, gilt_value_get_defining_op(v));
  GiltValue *store[3] = {v, slot, gpu_build_index(&m->g, 0)};
  gpu_build(&m->g, "loop.store", NULL, 3, store, 0, NULL, 0);
  gilt_builder_set_insertion_point_after(m->g.b, launch);
  GiltValue *host = gilt_op_get_result(
      gpu_build(&m->g, "loop.alloc", host_t, 0, NULL, 0, NULL, 0), 0);
  GiltValue *copy[2] = {host, slot};
  gpu_build(&m->g, "gpu.memcpy", NULL, 2, copy, 0, NULL, 0);
  GiltValue *load[2] = {host, gpu_build_index(&m->g, 0)};
  GiltValue *on_host =
      gilt_op_get_result(gpu_build(&m->g, "loop.load", t, 2, load, 0, NULL, 0), 0);
  gpu_build(&m->g, "gpu.dealloc", NULL, 1, &slot, 0, NULL, 0);
  gpu_build(&m->g, "loop.dealloc", NULL, 1, &host, 0, NULL, 0);
  GiltBlock *block = gilt_op_get_block(launch);
  GiltOperand *next;
  for (GiltOperand *u = gilt_value_get_first_use(v); u; u = next) {
    next = gilt_operand_get_next_use(u);
    if (gilt_block_find_ancestor_op(block, u->owner) != launch)
      gilt_op_set_operand(u->owner, (size_t)(u - u->owner->operands), on_host);
  }
  return true;
}

/* Runs op in a launch of one thread, with the ops after it that use what
** it computes (a load, the arithmetic on it, the store of the result),
** until nothing the launch computes is used after it or the next op is
** the host's (an allocation sized by the value, a loop bounded by it):
** the values the host needs are then read back. Returns the op after the
** launch. */
static GiltOp *map_single(Map *m, GiltOp *op)
{
  GiltOp *last = op;
  while (escapes(op, last)) {
    GiltOp *next = gilt_op_get_next(last);
    if (!next || !fits_in_kernel(next))
      break;
    last = next;
  }
  GiltOp *after = gilt_op_get_next(last);
  bool needed = escapes(op, last);
  GiltValue *one = gpu_build_index(&m->g, 1);
  GiltValue *sizes[6] = {one, one, one, one, one, one};
  GiltOp *launch = gpu_build_launch(&m->g, sizes);
  GiltOp *term = gilt_block_get_terminator(gpu_body(launch));
  for (GiltOp *o = op, *next; o != after; o = next) {
    next = gilt_op_get_next(o);
    gilt_op_move_before(o, term);
  }
  m->num_single++;
  if (!needed)
    return after;
  GiltBlock *block = gilt_op_get_block(launch);
  for (GiltOp *o = op; o != term; o = gilt_op_get_next(o))
    for (size_t i = 0; i < gilt_op_get_num_results(o); i++) {
      GiltValue *v = gilt_op_get_result(o, i);
      bool outside = false;
      for (GiltOperand *u = gilt_value_get_first_use(v); u && !outside;
           u = gilt_operand_get_next_use(u))
        outside = gilt_block_find_ancestor_op(block, u->owner) != launch;
      if (outside && !read_back(m, launch, v)) {
        gilt_op_emit_error(o, "cannot run on the GPU: the host uses a "
                              "buffer it computes from device buffers");
        m->num_errors++;
      }
    }
  m->num_read_back++;
  return after;
}

/* ---- buffers ------------------------------------------------------------------- */

/* `op` replaced by the gpu op `name` of the same operands and attribute
** `attr` (or none), its result (if any) moved to device memory. */
static void replace_by(Map *m, GiltOp *op, const char *name, const char *attr)
{
  GiltType *result = gilt_op_get_num_results(op)
                         ? on_device(m, gilt_value_get_type(
                                            gilt_op_get_result(op, 0)))
                         : NULL;
  GiltNamedAttr a = {attr, attr ? gilt_op_get_attr(op, attr) : NULL};
  size_t n = gilt_op_get_num_operands(op);
  GiltValue *ops[n + 1];
  for (size_t i = 0; i < n; i++)
    ops[i] = gilt_op_get_operand(op, i);
  GiltOp *repl = gpu_build(&m->g, name, result, n, ops, attr ? 1 : 0, &a, 0);
  if (result)
    gilt_value_replace_all_uses_with(gilt_op_get_result(op, 0),
                                     gilt_op_get_result(repl, 0));
  gilt_op_destroy(op);
}

/* A contiguous copy is a gpu.memcpy; a view's copy a one-thread launch. */
static GiltOp *map_copy(Map *m, GiltOp *op)
{
  GiltValue *src = gilt_op_get_operand(op, 0), *dst = gilt_op_get_operand(op, 1);
  if (!loop_memref_is_contiguous(gilt_value_get_type(src)) ||
      !loop_memref_is_contiguous(gilt_value_get_type(dst)))
    return map_single(m, op);
  GiltValue *ops[2] = {dst, src};
  gpu_build(&m->g, "gpu.memcpy", NULL, 2, ops, 0, NULL, 0);
  GiltOp *next = gilt_op_get_next(op);
  gilt_op_destroy(op);
  return next;
}

/* Maps op; returns the op to map next. */
static GiltOp *map_op(Map *m, GiltOp *op)
{
  GiltOp *next = gilt_op_get_next(op);
  if (gpu_op_id(op) != GPU_NUM_OPS) /* mapped already (argument copies) */
    return next;
  m->g.loc = gilt_op_get_location(op);
  gilt_builder_set_insertion_point_before(m->g.b, op);
  switch (loop_op_id(op)) {
  case LOOP_OP_PARALLEL:
    if (gpu_loop_is_mapped(op, "blocks"))
      map_blocks(m, op);
    else if (gpu_loop_is_mapped(op, "threads")) {
      gilt_op_emit_error(op, "gpu-map-parallel: a loop.parallel mapped to "
                             "threads must be in the body of one mapped to "
                             "blocks");
      m->num_errors++;
    } else
      map_parallel(m, op);
    return next;
  case LOOP_OP_ALLOC: replace_by(m, op, "gpu.alloc", NULL); return next;
  case LOOP_OP_DEALLOC: replace_by(m, op, "gpu.dealloc", NULL); return next;
  case LOOP_OP_GET_GLOBAL:
    replace_by(m, op, "gpu.device_global", "name");
    return next;
  case LOOP_OP_COPY: return map_copy(m, op);
  default: break;
  }
  if (is_host_control(op)) {
    for (size_t r = 0; r < gilt_op_get_num_regions(op); r++)
      for (GiltBlock *b = gilt_region_get_first_block(gilt_op_get_region(op, r));
           b; b = gilt_block_get_next(b))
        map_block(m, b);
  }
  else if (!stays_on_host(op) && !gilt_op_has_trait(op, GILT_TRAIT_TERMINATOR))
    return map_single(m, op);
  return next;
}

static void map_block(Map *m, GiltBlock *block)
{
  for (GiltOp *op = gilt_block_get_first_op(block); op;)
    op = map_op(m, op);
}

/* ---- the function's boundary ---------------------------------------------------- */

/* The sizes of the dynamic dimensions of `buf`, as loop.dim ops. */
static size_t dynamic_sizes(Map *m, GiltValue *buf, GiltValue **sizes)
{
  GiltType *t = gilt_value_get_type(buf);
  size_t n = 0;
  for (size_t i = 0; i < t->shaped.rank; i++) {
    if (t->shaped.shape[i] != GILT_DYNAMIC)
      continue;
    GiltValue *ops[2] = {buf, gpu_build_index(&m->g, (int64_t)i)};
    sizes[n++] = gilt_op_get_result(
        gpu_build(&m->g, "loop.dim", m->g.index, 2, ops, 0, NULL, 0), 0);
  }
  return n;
}

/* A new buffer of type t (from `alloc`) shaped as `from`, holding a copy
** of it. */
static GiltValue *copy_of(Map *m, GiltType *t, GiltValue *from,
                          const char *alloc)
{
  GiltValue *sizes[t->shaped.rank + 1];
  size_t n = dynamic_sizes(m, from, sizes);
  GiltValue *buf =
      gilt_op_get_result(gpu_build(&m->g, alloc, t, n, sizes, 0, NULL, 0), 0);
  GiltValue *ops[2] = {buf, from};
  gpu_build(&m->g, "gpu.memcpy", NULL, 2, ops, 0, NULL, 0);
  return buf;
}

/* Whether anything but `filler` (the copy that fills it, or NULL) may
** write the buffer v, or a view of it: any use but reading elements,
** sizes or copying from it. */
static bool may_write(GiltValue *v, GiltOp *filler)
{
  for (GiltOperand *u = gilt_value_get_first_use(v); u;
       u = gilt_operand_get_next_use(u)) {
    GiltOp *op = u->owner;
    if (op == filler)
      continue;
    switch (loop_op_id(op)) {
    case LOOP_OP_LOAD:
    case LOOP_OP_VECTOR_LOAD:
    case LOOP_OP_PREFETCH:
    case LOOP_OP_DIM:
      continue;
    case LOOP_OP_MASKED_LOAD:
      if (u - op->operands == 2)
        continue;
      return true;
    case LOOP_OP_RESHAPE:
    case LOOP_OP_SUBVIEW:
      if (u - op->operands == 0 &&
          !may_write(gilt_op_get_result(op, 0), NULL))
        continue;
      return true;
    default:
      if (gpu_op_is(op, GPU_OP_MEMCPY) && u - op->operands == 1)
        continue;
      return true;
    }
  }
  return false;
}

/* Each memref argument becomes a device copy of it, made at entry. */
static void copy_arguments_in(Map *m, GiltBlock *entry, GiltPtrMap *to_free)
{
  GiltOp *first = gilt_block_get_first_op(entry);
  gilt_builder_set_insertion_point_before(m->g.b, first);
  for (size_t i = 0; i < gilt_block_get_num_arguments(entry); i++) {
    GiltValue *arg = gilt_block_get_argument(entry, i);
    GiltType *t = gilt_value_get_type(arg);
    if (t->kind != GILT_TYPE_MEMREF)
      continue;
    bool read_only = !may_write(arg, NULL);
    GiltValue *dev = copy_of(m, on_device(m, t), arg, "gpu.alloc");
    /* Every use but the copy's (and the sizes' it reads) moves over, but
    ** the loads of the function's body from an argument it never writes:
    ** the host reads its own copy (a Resize's scales, a Slice's starts:
    ** values the host needs for sizes and bounds). */
    GiltOperand *next;
    for (GiltOperand *u = gilt_value_get_first_use(arg); u; u = next) {
      next = gilt_operand_get_next_use(u);
      if (read_only && loop_op_is(u->owner, LOOP_OP_LOAD) &&
          gilt_op_get_block(u->owner) == entry)
        continue;
      GiltOp *at = gilt_block_find_ancestor_op(entry, u->owner);
      if (at == first || !gilt_op_is_before_in_block(at, first))
        gilt_op_set_operand(u->owner, (size_t)(u - u->owner->operands), dev);
    }
    /* Read by the host alone: no device copy. */
    GiltOperand *only = gilt_value_get_first_use(dev);
    if (only && !gilt_operand_get_next_use(only)) {
      GiltOp *alloc = gilt_value_get_defining_op(dev);
      gilt_op_destroy(only->owner);
      gilt_op_destroy(alloc);
      continue;
    }
    gilt_ptr_map_put(to_free, dev, 1);
  }
}

/* Every memref value the function computes lives on the device, but the
** buffers that kernels allocate for themselves. */
static GiltWalkResult retype(GiltOp *op, void *user)
{
  Map *m = user;
  for (size_t r = 0; r < gilt_op_get_num_regions(op); r++)
    for (GiltBlock *b = gilt_region_get_first_block(gilt_op_get_region(op, r));
         b; b = gilt_block_get_next(b))
      for (size_t i = 0; i < gilt_block_get_num_arguments(b); i++) {
        GiltValue *v = gilt_block_get_argument(b, i);
        if (!gilt_func_op_is(op, FUNC_OP_FUNC) &&
            gilt_value_get_type(v)->kind == GILT_TYPE_MEMREF)
          gilt_value_set_type(v, on_device(m, gilt_value_get_type(v)));
      }
  if (loop_op_is(op, LOOP_OP_ALLOC))
    return GILT_WALK_ADVANCE;
  for (size_t i = 0; i < gilt_op_get_num_results(op); i++) {
    GiltValue *v = gilt_op_get_result(op, i);
    if (gilt_value_get_type(v)->kind == GILT_TYPE_MEMREF)
      gilt_value_set_type(v, on_device(m, gilt_value_get_type(v)));
  }
  return GILT_WALK_ADVANCE;
}

/* The entry block's device buffers that nothing frees: neither a
** gpu.dealloc nor a loop they enter as an iteration value, which frees
** or yields them (loop-buffer-deallocation's contract). */
static void collect_unfreed(GiltBlock *entry, GiltPtrMap *to_free)
{
  for (GiltOp *op = gilt_block_get_first_op(entry); op;
       op = gilt_op_get_next(op)) {
    if (!gpu_op_is(op, GPU_OP_ALLOC))
      continue;
    GiltValue *buf = gilt_op_get_result(op, 0);
    bool freed = false;
    for (GiltOperand *u = gilt_value_get_first_use(buf); u && !freed;
         u = gilt_operand_get_next_use(u))
      freed = gpu_op_is(u->owner, GPU_OP_DEALLOC) ||
              (gilt_op_get_num_regions(u->owner) &&
               gilt_op_get_num_results(u->owner));
    if (!freed)
      gilt_ptr_map_put(to_free, buf, 1);
  }
}

/* The device copies of the arguments the function may write are copied
** back into them; memref results are copied into new host buffers; then
** the device buffers left are freed. */
static void copy_results_out(Map *m, GiltOp *func, GiltOp *ret,
                             GiltPtrMap *to_free)
{
  GiltType *ft = gilt_func_get_type(func);
  m->g.loc = gilt_op_get_location(ret);
  gilt_builder_set_insertion_point_before(m->g.b, ret);
  GiltBlock *entry = gilt_op_get_block(ret);
  for (size_t i = 0; i < gilt_block_get_num_arguments(entry); i++) {
    GiltValue *arg = gilt_block_get_argument(entry, i);
    GiltOperand *u = gilt_value_get_first_use(arg);
    /* The argument's remaining uses are its copy's and its sizes'. */
    for (; u && !gpu_op_is(u->owner, GPU_OP_MEMCPY);
         u = gilt_operand_get_next_use(u))
      ;
    if (!u || !may_write(gilt_op_get_operand(u->owner, 0), u->owner))
      continue;
    GiltValue *ops[2] = {arg, gilt_op_get_operand(u->owner, 0)};
    gpu_build(&m->g, "gpu.memcpy", NULL, 2, ops, 0, NULL, 0);
  }
  for (size_t i = 0; i < gilt_op_get_num_operands(ret); i++) {
    GiltValue *v = gilt_op_get_operand(ret, i);
    GiltType *t = ft->func.types[ft->func.num_inputs + i];
    if (t->kind == GILT_TYPE_MEMREF)
      gilt_op_set_operand(ret, i, copy_of(m, t, v, "loop.alloc"));
  }
  /* In the order the buffers were made, whatever the map's order. */
  for (GiltOp *op = gilt_block_get_first_op(entry); op; op = gilt_op_get_next(op))
    if (gpu_op_is(op, GPU_OP_ALLOC) &&
        gilt_ptr_map_get(to_free, gilt_op_get_result(op, 0), NULL)) {
      GiltValue *buf = gilt_op_get_result(op, 0);
      gpu_build(&m->g, "gpu.dealloc", NULL, 1, &buf, 0, NULL, 0);
    }
}

static GiltStatus run(GiltPass *pass, GiltOp *func)
{
  GiltBlock *entry = gilt_func_get_entry_block(func);
  if (!entry) {
    gilt_pass_mark_unchanged(pass);
    return GILT_SUCCESS;
  }
  Map m = {.pass = pass,
           .block_size = gilt_pass_get_option_int(pass, "block-size")};
  if (m.block_size < 1 || m.block_size > 1024)
    return gilt_op_emit_error(func, "gpu-map-parallel: block-size %lld is "
                                    "not between 1 and 1024 (CUDA's limit)",
                              (long long)m.block_size);
  gpu_builder_init(&m.g, gilt_pass_get_context(pass));
  GiltPtrMap to_free;
  gilt_ptr_map_init(&to_free, m.g.ctx);
  m.g.loc = gilt_op_get_location(func);
  copy_arguments_in(&m, entry, &to_free);
  map_block(&m, entry);
  gilt_op_walk(func, GILT_WALK_PRE_ORDER, retype, &m);
  GiltOp *ret = gilt_block_get_terminator(entry);
  collect_unfreed(entry, &to_free);
  if (gilt_func_op_is(ret, FUNC_OP_RETURN))
    copy_results_out(&m, func, ret, &to_free);
  gilt_ptr_map_free(&to_free);
  gpu_builder_free(&m.g);
  gilt_pass_add_statistic(pass, "num-launches",
                          "loop.parallel ops mapped to launches",
                          m.num_launches);
  gilt_pass_add_statistic(pass, "num-single-thread",
                          "ops left to launches of one thread",
                          m.num_single);
  gilt_pass_add_statistic(pass, "num-block-launches",
                          "launches of nests mapped to blocks and threads",
                          m.num_block_launches);
  gilt_pass_add_statistic(pass, "num-read-back",
                          "one-thread launches whose values the host reads "
                          "back",
                          m.num_read_back);
  gilt_pass_add_statistic(pass, "num-small-launches",
                          "launches of fewer iterations than a block",
                          m.num_small);
  return m.num_errors ? GILT_FAILURE : GILT_SUCCESS;
}

static const GiltPassOptionDef options[] = {
    {"block-size", GILT_OPTION_INT, "256", "threads per block"},
    {0},
};

const GiltPassDef gilt_gpu_map_parallel_pass = {
    .name = "gpu-map-parallel",
    .description = "Run a loop-level function's loop.parallel nests as GPU "
                   "launches of one thread per iteration, over device "
                   "buffers",
    .anchor = "func.func",
    .options = options,
    .run = run,
};
