/*
** control.c - structured control flow to blocks and branches, as MLIR's
** scf-to-cf: a loop is a header block whose arguments are the induction
** variable and the carried values (the phis), a body, and an exit block
** whose arguments are the results; loop.if branches to its regions and
** joins in a block taking the yielded values; loop.while is MLIR's
** before/after pair. loop.parallel in a function goes to parallel.c,
** which outlines its body for gilt_rt_parallel_for; nested in such a body
** (which already runs on a worker; the runtime would run it serially) it
** runs here as nested sequential loops, any order being right for
** independent iterations; so does every one in a GPU kernel, whose
** thread runs it. loop.assert fails the run with its message and
** location, as the interpreter stops.
*/
#include "transforms/loop_to_llvm/lowering.h"

#include <string.h>

int l2l_trips_up_to_one(GiltValue *lb, GiltValue *ub, GiltValue *step)
{
  int64_t lo, hi, by, span;
  if (!l2l_constant_int(lb, &lo) || !l2l_constant_int(ub, &hi) ||
      !l2l_constant_int(step, &by) || by <= 0)
    return -1;
  if (hi <= lo)
    return 0;
  return __builtin_sub_overflow(hi, lo, &span) || span > by ? -1 : 1;
}

void l2l_loop(L2L *l, GiltValue *lb, GiltValue *ub, GiltValue *step,
              size_t n, GiltValue *const *inits, GiltValue **results,
              L2LBodyFn body, void *user)
{
  /* At batch 1, or over a dimension of one, a level of a nest runs once:
  ** as a loop it would cost LLVM's loop passes (induction variables,
  ** rotation) as much as a real one: 238 of DenseNet-121's main
  ** function's 358 loops ran once. */
  int trips = l2l_trips_up_to_one(lb, ub, step);
  if (trips >= 0) {
    GiltValue *last[n + 1];
    for (size_t i = 0; i < n; i++)
      last[i] = inits[i];
    if (trips == 1)
      body(l, lb, inits, last, user);
    for (size_t i = 0; i < n; i++)
      results[i] = last[i];
    return;
  }
  GiltType *types[n + 2];
  types[0] = l->i64;
  for (size_t i = 0; i < n; i++)
    types[i + 1] = gilt_value_get_type(inits[i]);
  GiltBlock *header = l2l_block(l, n + 1, types);
  GiltBlock *inside = l2l_block(l, 0, NULL);
  GiltBlock *exit = l2l_block(l, n, types + 1);
  GiltValue *args[n + 2];
  args[0] = lb;
  for (size_t i = 0; i < n; i++) /* inits may be NULL when n is 0 */
    args[1 + i] = inits[i];
  l2l_br(l, header, n + 1, args);

  l2l_set_block(l, header);
  GiltValue *iv = gilt_block_get_argument(header, 0);
  GiltValue *current[n + 1];
  for (size_t i = 0; i < n; i++)
    current[i] = gilt_block_get_argument(header, i + 1);
  l2l_cond_br(l, l2l_icmp(l, "slt", iv, ub), inside, 0, NULL, exit, n,
              current);

  l2l_set_block(l, inside);
  GiltValue *next[n + 2];
  body(l, iv, current, next + 1, user);
  next[0] = l2l_binary(l, LLVM_OP_ADD, iv, step);
  l2l_br(l, header, n + 1, next);

  l2l_set_block(l, exit);
  for (size_t i = 0; i < n; i++)
    results[i] = gilt_block_get_argument(exit, i);
}

/* The body of a region of one block: its arguments stand for `args`, its
** ops are lowered, and its terminator's operands come back in `yielded`. */
static void inline_region(L2L *l, GiltRegion *region, GiltValue *const *args,
                          GiltValue **yielded)
{
  GiltBlock *block = gilt_region_get_first_block(region);
  for (size_t i = 0; i < gilt_block_get_num_arguments(block); i++)
    l2l_map(l, gilt_block_get_argument(block, i), args[i]);
  GiltOp *term = l2l_lower_block(l, block);
  for (size_t i = 0; term && i < gilt_op_get_num_operands(term); i++)
    yielded[i] = l2l_value(l, gilt_op_get_operand(term, i));
}

/* ---- loop.for --------------------------------------------------------------------- */

static void for_body(L2L *l, GiltValue *iv, GiltValue *const *current,
                     GiltValue **next, void *user)
{
  GiltOp *op = user;
  size_t n = gilt_op_get_num_results(op);
  GiltValue *args[n + 1];
  args[0] = iv;
  for (size_t i = 0; i < n; i++)
    args[1 + i] = current[i];
  inline_region(l, gilt_op_get_region(op, 0), args, next);
}

static GiltStatus lower_for(L2L *l, GiltOp *op)
{
  size_t n = gilt_op_get_num_results(op);
  GiltValue *bounds[3], *inits[n + 1], *results[n + 1];
  memset(inits, 0, sizeof inits);
  for (size_t i = 0; i < 3; i++)
    bounds[i] = l2l_value(l, gilt_op_get_operand(op, i));
  for (size_t i = 0; i < n; i++)
    inits[i] = l2l_value(l, gilt_op_get_operand(op, 3 + i));
  l2l_loop(l, bounds[0], bounds[1], bounds[2], n, inits, results, for_body,
           op);
  for (size_t i = 0; i < n; i++)
    l2l_map(l, gilt_op_get_result(op, i), results[i]);
  return GILT_SUCCESS;
}

/* ---- loop.parallel ------------------------------------------------------------------ */

typedef struct Nest {
  GiltOp *op;
  size_t rank, dim;
  GiltValue *const *bounds; /* lowers, uppers, steps */
  GiltValue **ivs;
} Nest;

static void nest_level(L2L *l, GiltValue *iv, GiltValue *const *current,
                       GiltValue **next, void *user)
{
  (void)current, (void)next;
  Nest *nest = user;
  size_t d = nest->dim++;
  nest->ivs[d] = iv;
  if (nest->dim == nest->rank)
    inline_region(l, gilt_op_get_region(nest->op, 0), nest->ivs, NULL);
  else
    l2l_loop(l, nest->bounds[nest->dim], nest->bounds[nest->rank + nest->dim],
             nest->bounds[2 * nest->rank + nest->dim], 0, NULL, NULL,
             nest_level, nest);
  nest->dim = d;
}

void l2l_parallel_loops(L2L *l, GiltOp *op, GiltValue *const *bounds)
{
  size_t rank = gilt_op_get_num_operands(op) / 3;
  GiltValue *ivs[rank + 1];
  if (rank == 0) {
    inline_region(l, gilt_op_get_region(op, 0), NULL, NULL);
    return;
  }
  Nest nest = {op, rank, 0, bounds, ivs};
  l2l_loop(l, bounds[0], bounds[rank], bounds[2 * rank], 0, NULL, NULL,
           nest_level, &nest);
}

static GiltStatus lower_parallel(L2L *l, GiltOp *op)
{
  size_t rank = gilt_op_get_num_operands(op) / 3;
  if (rank > 0 && !l->status && !l->device)
    return l2l_lower_parallel_outlined(l, op);
  GiltValue *bounds[3 * rank + 1];
  for (size_t i = 0; i < 3 * rank; i++)
    bounds[i] = l2l_value(l, gilt_op_get_operand(op, i));
  l2l_parallel_loops(l, op, bounds);
  return GILT_SUCCESS;
}

/* ---- loop.if ------------------------------------------------------------------------ */

static GiltStatus lower_if(L2L *l, GiltOp *op)
{
  size_t n = gilt_op_get_num_results(op);
  GiltType *types[n + 1];
  for (size_t i = 0; i < n; i++)
    types[i] = l2l_type(l, gilt_value_get_type(gilt_op_get_result(op, i)));
  GiltBlock *then = l2l_block(l, 0, NULL), *other = l2l_block(l, 0, NULL);
  GiltBlock *join = l2l_block(l, n, types);
  l2l_cond_br(l, l2l_value(l, gilt_op_get_operand(op, 0)), then, 0, NULL,
              other, 0, NULL);
  for (size_t r = 0; r < 2; r++) {
    GiltRegion *region = gilt_op_get_region(op, r);
    GiltValue *yielded[n + 1];
    l2l_set_block(l, r == 0 ? then : other);
    if (gilt_region_get_num_blocks(region))
      inline_region(l, region, NULL, yielded);
    l2l_br(l, join, n, yielded);
  }
  l2l_set_block(l, join);
  for (size_t i = 0; i < n; i++)
    l2l_map(l, gilt_op_get_result(op, i), gilt_block_get_argument(join, i));
  return GILT_SUCCESS;
}

/* ---- loop.while --------------------------------------------------------------------- */

static GiltBlock *block_like(L2L *l, GiltBlock *src)
{
  size_t n = gilt_block_get_num_arguments(src);
  GiltType *types[n + 1];
  for (size_t i = 0; i < n; i++)
    types[i] = l2l_type(
        l, gilt_value_get_type(gilt_block_get_argument(src, i)));
  return l2l_block(l, n, types);
}

static GiltStatus lower_while(L2L *l, GiltOp *op)
{
  GiltRegion *before = gilt_op_get_region(op, 0);
  GiltRegion *after = gilt_op_get_region(op, 1);
  GiltBlock *cond_src = gilt_region_get_first_block(before);
  GiltBlock *body_src = gilt_region_get_first_block(after);
  size_t n_in = gilt_op_get_num_operands(op);
  size_t n_out = gilt_op_get_num_results(op);
  GiltBlock *cond = block_like(l, cond_src), *body = block_like(l, body_src);
  GiltType *types[n_out + 1];
  for (size_t i = 0; i < n_out; i++)
    types[i] = l2l_type(l, gilt_value_get_type(gilt_op_get_result(op, i)));
  GiltBlock *exit = l2l_block(l, n_out, types);
  GiltValue *inits[n_in + 1];
  for (size_t i = 0; i < n_in; i++)
    inits[i] = l2l_value(l, gilt_op_get_operand(op, i));
  l2l_br(l, cond, n_in, inits);

  /* loop.condition(c, args): on to the body with args, or out with them. */
  l2l_set_block(l, cond);
  GiltValue *args[n_in + 1], *passed[n_out + 2];
  memset(args, 0, sizeof args);
  memset(passed, 0, sizeof passed);
  for (size_t i = 0; i < n_in; i++)
    args[i] = gilt_block_get_argument(cond, i);
  inline_region(l, before, args, passed);
  l2l_cond_br(l, passed[0], body, n_out, passed + 1, exit, n_out, passed + 1);

  l2l_set_block(l, body);
  GiltValue *body_args[n_out + 1], *next[n_in + 1];
  memset(body_args, 0, sizeof body_args);
  memset(next, 0, sizeof next);
  for (size_t i = 0; i < n_out; i++)
    body_args[i] = gilt_block_get_argument(body, i);
  inline_region(l, after, body_args, next);
  l2l_br(l, cond, n_in, next);

  l2l_set_block(l, exit);
  for (size_t i = 0; i < n_out; i++)
    l2l_map(l, gilt_op_get_result(op, i), gilt_block_get_argument(exit, i));
  return GILT_SUCCESS;
}

GiltStatus l2l_lower_control(L2L *l, GiltOp *op)
{
  switch (loop_op_id(op)) {
  case LOOP_OP_FOR: return lower_for(l, op);
  case LOOP_OP_PARALLEL: return lower_parallel(l, op);
  case LOOP_OP_IF: return lower_if(l, op);
  case LOOP_OP_WHILE: return lower_while(l, op);
  default: {
    const char *message =
        gilt_string_attr_get_value(gilt_op_get_attr(op, "message"), NULL);
    l2l_check(l, l2l_value(l, gilt_op_get_operand(op, 0)), message);
    return GILT_SUCCESS;
  }
  }
}
