/*
** buffer_deallocation.c - `loop-buffer-deallocation`: frees each buffer
** with a loop.dealloc after its last use, so that a loop whose body
** allocates runs in bounded memory instead of holding every iteration's
** buffers until the function returns.
**
** Requires loop-level IR in which, as graph-to-loop makes it, a buffer is
** never stored into another buffer, so values are the only way a buffer
** travels. Adds loop.dealloc ops and, for the loop-carried buffers it
** takes over, a loop.alloc and loop.copy of the initial value before the
** loop; moves and erases nothing. Run it last at the loop level: a pass
** that moves ops afterwards (LICM, fusion) may move a use past the free.
**
** A simplified form of MLIR's ownership-based buffer deallocation, with
** ownership decided at compile time instead of carried in i1 flags. A
** block owns:
**   - the results of its loop.alloc ops;
**   - the results of its loop.for, loop.while and loop.if ops at the
**     "owned" positions: those where every iteration (or branch) yields a
**     buffer its body owns, and a loop's initial value is a buffer the
**     block owns and hands over (else a fresh copy of it, made here);
**   - at such a position, the block argument of a loop.for body and of a
**     loop.while's "after" region (the previous iteration's buffer).
** An owned buffer and its views (loop.reshape, loop.subview, loop.view)
** may be read, written, copied, measured (loop.dim) and viewed; it is freed after the
** last op of its block that uses it, directly or nested. Any other use is
** an escape, and the buffer is left to the function's end as before:
** returned, passed to a call, yielded or carried at a position that is
** not owned, freed already (the lowering frees its scratch buffers
** itself). A buffer handed over at an owned position (yielded, passed on
** by loop.condition, given as a loop's initial value) is not freed by the
** block: the block or op that receives it owns it.
**
** A missed free only costs memory; a wrong one is a use after free, so
** every rule errs toward keeping a buffer. Not done: ownership decided at
** run time (MLIR's i1 flags and loop.if-guarded frees), positions that
** pass their buffer through unchanged (no copy is worth making for them),
** views yielded across a region, function arguments and call results.
**
** Statistics: num-deallocs, num-owned-positions.
*/
#include "dialects/loop/transforms/passes.h"

#include <string.h>

#include "dialects/loop/loop.h"
#include "ir/core.h"
#include "ir/support/ptr_map.h"

/* Positions beyond this many results are never owned. */
#define MAX_POSITIONS 64

typedef struct Dealloc {
  GiltContext *ctx;
  GiltPtrMap owned; /* region op -> bit k set when result k is owned */
  GILT_VEC(GiltValue *) aliases;
  GILT_VEC(GiltOp *) region_ops; /* innermost first */
  GiltType *index;
  int64_t num_deallocs, num_owned;
} Dealloc;

typedef enum UseKind {
  USE_ACCESS,   /* reads, writes or measures the buffer */
  USE_VIEW,     /* makes a view of it: one more alias */
  USE_TRANSFER, /* hands it over at an owned position */
  USE_FREE,     /* loop.dealloc: someone frees it already */
  USE_ESCAPE,   /* anything else */
} UseKind;

static bool is_memref(GiltValue *v)
{
  return gilt_value_get_type(v)->kind == GILT_TYPE_MEMREF;
}

static uint64_t owned_mask(Dealloc *d, GiltOp *op)
{
  size_t mask = 0;
  if (!op || !gilt_ptr_map_get(&d->owned, op, &mask))
    return 0;
  return (uint64_t)mask;
}

static bool owned_at(Dealloc *d, GiltOp *op, size_t k)
{
  return k < MAX_POSITIONS && (owned_mask(d, op) >> k & 1);
}

/* What the use u of a buffer does with it, given the owned positions
** decided so far. */
static UseKind classify(Dealloc *d, GiltOperand *u)
{
  GiltOp *o = u->owner;
  size_t i = (size_t)(u - o->operands);
  GiltOp *parent = o->block ? gilt_block_get_parent_op(o->block) : NULL;
  if (loop_op_is_buffer_access(o))
    return USE_ACCESS;
  if (loop_op_is_view(o))
    return i == 0 ? USE_VIEW : USE_ESCAPE;
  switch (loop_op_id(o)) {
  case LOOP_OP_DEALLOC:
    return USE_FREE;
  case LOOP_OP_YIELD:
    return owned_at(d, parent, i) ? USE_TRANSFER : USE_ESCAPE;
  case LOOP_OP_CONDITION:
    return i > 0 && owned_at(d, parent, i - 1) ? USE_TRANSFER : USE_ESCAPE;
  case LOOP_OP_FOR:
    return i >= 3 && owned_at(d, o, i - 3) ? USE_TRANSFER : USE_ESCAPE;
  case LOOP_OP_WHILE:
    return owned_at(d, o, i) ? USE_TRANSFER : USE_ESCAPE;
  default:
    return USE_ESCAPE;
  }
}

/* Fills d->aliases with v and every view made of it, transitively. */
static void collect_aliases(Dealloc *d, GiltValue *v)
{
  d->aliases.len = 0;
  gilt_vec_push(d->ctx, &d->aliases, v);
  for (size_t a = 0; a < d->aliases.len; a++)
    for (GiltOperand *u = d->aliases.data[a]->first_use; u; u = u->next_use)
      if (classify(d, u) == USE_VIEW)
        gilt_vec_push(d->ctx, &d->aliases,
                      gilt_op_get_result(u->owner, 0));
}

/* Whether v and its views are only accessed and viewed, but for at most
** `allowed` (NULL: none), which must be a use of v itself. */
static bool only_accessed(Dealloc *d, GiltValue *v, GiltOperand *allowed)
{
  collect_aliases(d, v);
  for (size_t a = 0; a < d->aliases.len; a++)
    for (GiltOperand *u = d->aliases.data[a]->first_use; u; u = u->next_use) {
      if (u == allowed && u->value == v)
        continue;
      UseKind k = classify(d, u);
      if (k != USE_ACCESS && k != USE_VIEW)
        return false;
    }
  return true;
}

/* Whether v is a buffer that block b owns outright: made by a loop.alloc
** of b, or an owned result of a region op of b. */
static bool is_fresh(Dealloc *d, GiltValue *v, GiltBlock *b)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  if (!def || def->block != b)
    return false;
  if (loop_op_is(def, LOOP_OP_ALLOC))
    return true;
  return owned_at(d, def, gilt_value_get_index(v));
}

/* Whether the terminator `term` of block b hands over at its operand
** `slot` a buffer b owns outright and uses nowhere else. */
static bool yields_fresh(Dealloc *d, GiltOp *term, size_t slot)
{
  if (!term || slot >= term->num_operands)
    return false;
  GiltValue *y = gilt_op_get_operand(term, slot);
  if (!is_fresh(d, y, term->block))
    return false;
  for (size_t j = 0; j < term->num_operands; j++)
    if (j != slot && gilt_op_get_operand(term, j) == y)
      return false;
  return only_accessed(d, y, &term->operands[slot]);
}

static GiltBlock *entry_block(GiltOp *op, size_t r)
{
  GiltRegion *region = gilt_op_get_region(op, r);
  return region ? region->first : NULL;
}

/* Whether position k of loop.if op can be owned: both branches yield a
** buffer of their own there. */
static bool if_position(Dealloc *d, GiltOp *op, size_t k)
{
  for (size_t r = 0; r < 2; r++) {
    GiltBlock *b = entry_block(op, r);
    if (!b || !yields_fresh(d, gilt_block_get_terminator(b), k))
      return false;
  }
  return true;
}

/* Whether the loop-carried position k of a loop.for or loop.while can be
** owned: the body yields a buffer of its own, the block argument that
** receives the previous one is only accessed, and (loop.while) the
** "before" region passes its argument on unchanged. */
static bool loop_position(Dealloc *d, GiltOp *op, size_t k)
{
  bool is_for = loop_op_is(op, LOOP_OP_FOR);
  GiltType *t = gilt_value_get_type(gilt_op_get_result(op, k));
  GiltValue *init = gilt_op_get_operand(op, k + (is_for ? 3 : 0));
  if (gilt_memref_type_get_layout(t) ||
      gilt_memref_type_get_layout(gilt_value_get_type(init)))
    return false;
  GiltBlock *body = entry_block(op, is_for ? 0 : 1);
  if (!body)
    return false;
  GiltValue *arg = gilt_block_get_argument(body, k + (is_for ? 1 : 0));
  if (!yields_fresh(d, gilt_block_get_terminator(body), k) ||
      !only_accessed(d, arg, NULL))
    return false;
  if (is_for)
    return true;
  GiltBlock *before = entry_block(op, 0);
  GiltOp *cond = before ? gilt_block_get_terminator(before) : NULL;
  if (!cond || !loop_op_is(cond, LOOP_OP_CONDITION) ||
      k + 1 >= cond->num_operands)
    return false;
  GiltValue *barg = gilt_block_get_argument(before, k);
  if (gilt_op_get_operand(cond, k + 1) != barg)
    return false;
  for (size_t j = 1; j < cond->num_operands; j++)
    if (j != k + 1 && gilt_op_get_operand(cond, j) == barg)
      return false;
  return only_accessed(d, barg, &cond->operands[k + 1]);
}

static GiltOp *create(Dealloc *d, const char *name, GiltLocation *loc,
                      size_t n, GiltValue *const *operands, GiltType *result,
                      size_t num_attrs, const GiltNamedAttr *attrs)
{
  GiltOpState st = gilt_op_state_get(name, loc);
  st.num_operands = n;
  st.operands = operands;
  st.num_results = result ? 1 : 0;
  st.result_types = &result;
  st.num_attrs = num_attrs;
  st.attrs = attrs;
  return gilt_op_create(d->ctx, &st);
}

/* Makes the loop own its initial value at operand `slot`: kept when the
** loop's block owns it outright and uses it nowhere else, else replaced
** by a fresh copy made just before the loop. */
static void own_init(Dealloc *d, GiltOp *loop, size_t slot)
{
  GiltValue *init = gilt_op_get_operand(loop, slot);
  if (is_fresh(d, init, loop->block) && init->first_use &&
      !init->first_use->next_use)
    return;
  GiltType *t = gilt_value_get_type(init);
  GiltLocation *loc = gilt_op_get_location(loop);
  size_t rank = t->shaped.rank, n = 0;
  GiltValue *sizes[rank + 1];
  for (size_t i = 0; i < rank; i++) {
    if (t->shaped.shape[i] != GILT_DYNAMIC)
      continue;
    GiltNamedAttr value = {"value",
                           gilt_integer_attr_get(d->index, (int64_t)i)};
    GiltOp *c = create(d, "loop.constant", loc, 0, NULL, d->index, 1, &value);
    gilt_block_insert_op_before(loop, c);
    GiltValue *dim_ops[2] = {init, gilt_op_get_result(c, 0)};
    GiltOp *dim = create(d, "loop.dim", loc, 2, dim_ops, d->index, 0, NULL);
    gilt_block_insert_op_before(loop, dim);
    sizes[n++] = gilt_op_get_result(dim, 0);
  }
  GiltOp *alloc = create(d, "loop.alloc", loc, n, sizes, t, 0, NULL);
  gilt_block_insert_op_before(loop, alloc);
  GiltValue *copy_ops[2] = {init, gilt_op_get_result(alloc, 0)};
  gilt_block_insert_op_before(loop,
                              create(d, "loop.copy", loc, 2, copy_ops, NULL,
                                     0, NULL));
  gilt_op_set_operand(loop, slot, gilt_op_get_result(alloc, 0));
}

/* Decides the owned positions of a region op whose nested region ops are
** decided already, and hands the loops their initial values. */
static void plan(Dealloc *d, GiltOp *op)
{
  LoopOpId id = loop_op_id(op);
  uint64_t mask = 0;
  size_t n = op->num_results < MAX_POSITIONS ? op->num_results
                                             : MAX_POSITIONS;
  for (size_t k = 0; k < n; k++) {
    if (!is_memref(gilt_op_get_result(op, k)))
      continue;
    bool ok = id == LOOP_OP_IF ? if_position(d, op, k) : loop_position(d, op, k);
    if (ok) {
      mask |= (uint64_t)1 << k;
      /* Later positions' checks see this one handed over. */
      gilt_ptr_map_put(&d->owned, op, (size_t)mask);
    }
  }
  if (!mask)
    return;
  for (size_t k = 0; k < n; k++)
    if (mask >> k & 1) {
      d->num_owned++;
      if (id != LOOP_OP_IF)
        own_init(d, op, k + (id == LOOP_OP_FOR ? 3 : 0));
    }
}

/* Frees buffer v, owned by block b, after its last use in b; nothing when
** it escapes or is handed over. `after` is its defining op (NULL for a
** block argument). */
static void free_after_last_use(Dealloc *d, GiltValue *v, GiltBlock *b,
                                GiltOp *after, GiltLocation *loc)
{
  GiltOp *last = NULL;
  collect_aliases(d, v);
  for (size_t a = 0; a < d->aliases.len; a++)
    for (GiltOperand *u = d->aliases.data[a]->first_use; u; u = u->next_use) {
      UseKind k = classify(d, u);
      if (k != USE_ACCESS && k != USE_VIEW)
        return;
      GiltOp *anc = gilt_block_find_ancestor_op(b, u->owner);
      if (!anc || gilt_op_has_trait(anc, GILT_TRAIT_TERMINATOR))
        return;
      if (!last || gilt_op_is_before_in_block(last, anc))
        last = anc;
    }
  GiltOp *free_op = create(d, "loop.dealloc", loc, 1, &v, NULL, 0, NULL);
  if (last || after)
    gilt_block_insert_op_after(last ? last : after, free_op);
  else if (b->first)
    gilt_block_insert_op_before(b->first, free_op);
  else {
    gilt_op_destroy(free_op);
    return;
  }
  d->num_deallocs++;
}

/* The buffers block b owns: its allocations, the owned results of its
** region ops, and its owned arguments; each is freed after its last use. */
static void free_block(Dealloc *d, GiltBlock *b)
{
  GiltOp *parent = gilt_block_get_parent_op(b);
  LoopOpId pid = parent ? loop_op_id(parent) : LOOP_NUM_OPS;
  bool carried = (pid == LOOP_OP_FOR && b == entry_block(parent, 0)) ||
                 (pid == LOOP_OP_WHILE && b == entry_block(parent, 1));
  if (carried) {
    size_t first = pid == LOOP_OP_FOR ? 1 : 0;
    for (size_t k = 0; k + first < b->num_args; k++)
      if (owned_at(d, parent, k))
        free_after_last_use(d, b->args[k + first], b, NULL,
                            gilt_op_get_location(parent));
  }
  /* Ops inserted while walking (the frees) are skipped: they own nothing. */
  for (GiltOp *op = b->first, *next; op; op = next) {
    next = op->next;
    if (loop_op_is(op, LOOP_OP_ALLOC)) {
      free_after_last_use(d, gilt_op_get_result(op, 0), b, op,
                          gilt_op_get_location(op));
      continue;
    }
    for (size_t k = 0; k < op->num_results && owned_mask(d, op); k++)
      if (owned_at(d, op, k))
        free_after_last_use(d, gilt_op_get_result(op, k), b, op,
                            gilt_op_get_location(op));
  }
}

static GiltWalkResult collect_region_op(GiltOp *op, void *user)
{
  Dealloc *d = user;
  LoopOpId id = loop_op_id(op);
  if (id == LOOP_OP_FOR || id == LOOP_OP_WHILE || id == LOOP_OP_IF)
    gilt_vec_push(d->ctx, &d->region_ops, op);
  return GILT_WALK_ADVANCE;
}

static void free_region_blocks(Dealloc *d, GiltOp *op)
{
  for (size_t r = 0; r < op->num_regions; r++)
    for (GiltBlock *b = gilt_op_get_region(op, r)->first; b; b = b->next)
      free_block(d, b);
}

static GiltWalkResult free_op_blocks(GiltOp *op, void *user)
{
  free_region_blocks(user, op);
  return GILT_WALK_ADVANCE;
}

static GiltStatus run(GiltPass *pass, GiltOp *op)
{
  Dealloc d;
  memset(&d, 0, sizeof d);
  d.ctx = gilt_pass_get_context(pass);
  d.index = gilt_index_type_get(d.ctx);
  gilt_ptr_map_init(&d.owned, d.ctx);
  gilt_op_walk(op, GILT_WALK_POST_ORDER, collect_region_op, &d);
  for (size_t i = 0; i < d.region_ops.len; i++)
    plan(&d, d.region_ops.data[i]);
  /* Pre-order: a block's frees are placed before the walk reaches the
  ** blocks nested in it, whose own frees never move its ops. */
  gilt_op_walk(op, GILT_WALK_PRE_ORDER, free_op_blocks, &d);
  gilt_ptr_map_free(&d.owned);
  gilt_vec_free(d.ctx, &d.aliases);
  gilt_vec_free(d.ctx, &d.region_ops);
  gilt_pass_add_statistic(pass, "num-deallocs",
                          "Number of loop.dealloc ops inserted",
                          d.num_deallocs);
  gilt_pass_add_statistic(pass, "num-owned-positions",
                          "Number of loop-carried or branch results whose "
                          "buffers are freed by their owner",
                          d.num_owned);
  if (!d.num_deallocs && !d.num_owned)
    gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_loop_buffer_deallocation_pass = {
    .name = "loop-buffer-deallocation",
    .description = "Free each buffer after its last use in the block that "
                   "owns it, taking over loop-carried buffers that every "
                   "iteration makes anew",
    .anchor = NULL,
    .options = NULL,
    .run = run,
};
