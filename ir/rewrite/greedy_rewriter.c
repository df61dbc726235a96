/*
** greedy_rewriter.c - the rewriter, folding, and the greedy pattern
** driver.
**
** The rewriter is the one door through which patterns change IR: it does
** the edit and tells a listener (rewrite.h), so a driver always knows
** which ops are new, changed or gone. The greedy driver is MLIR's
** applyPatternsAndFoldGreedily with one difference in how it counts: an
** iteration is one generation of the worklist. The first generation is
** every op nested in the root, in program order, so a fold propagates
** forward to users in the same sweep; ops created, changed or newly used
** during a generation go to the next one (unless still waiting in the
** current one). The IR has converged when a generation leaves nothing for
** the next. This makes the iteration limit a real bound: a pair of
** patterns that undo each other fails after N generations instead of
** looping (MLIR only bounds it with maxNumRewrites). Ops that become dead
** are erased at once, transitively, whatever their place in the sweep.
**
** Not here: CSE of the constants folding creates (the cse pass does it),
** region simplification (merging blocks, dropping unreachable ones: dce),
** and a scope other than "everything nested in the root".
*/
#include "ir/rewrite/rewrite.h"

#include <string.h>

/* ---- the rewriter --------------------------------------------------------- */

struct GiltRewriter {
  GiltContext *ctx;
  GiltBuilder *builder;
  const GiltRewriteListener *listener;
  void *user;
};

static const GiltRewriteListener no_listener = {0};

GiltRewriter *gilt_rewriter_create(GiltContext *ctx,
                                   const GiltRewriteListener *listener,
                                   void *user)
{
  GiltRewriter *rw = gilt_calloc(ctx, 1, sizeof *rw);
  rw->ctx = ctx;
  rw->builder = gilt_builder_create(ctx);
  rw->listener = listener ? listener : &no_listener;
  rw->user = user;
  return rw;
}

void gilt_rewriter_destroy(GiltRewriter *rw)
{
  if (!rw)
    return;
  gilt_builder_destroy(rw->builder);
  gilt_free(rw->ctx, rw);
}

void *gilt_rewriter_get_listener_data(GiltRewriter *rw,
                                      const GiltRewriteListener *listener)
{
  return rw->listener == listener ? rw->user : NULL;
}

GiltContext *gilt_rewriter_get_context(GiltRewriter *rw) { return rw->ctx; }
GiltBuilder *gilt_rewriter_get_builder(GiltRewriter *rw) { return rw->builder; }

void gilt_rewriter_notify_op_inserted(GiltRewriter *rw, GiltOp *op)
{
  if (rw->listener->op_inserted)
    rw->listener->op_inserted(rw->user, op);
}

void gilt_rewriter_notify_op_modified(GiltRewriter *rw, GiltOp *op)
{
  if (rw->listener->op_modified)
    rw->listener->op_modified(rw->user, op);
}

GiltOp *gilt_rewriter_create_op(GiltRewriter *rw, const GiltOpState *state)
{
  GiltOp *op = gilt_builder_create_op(rw->builder, state);
  if (op)
    gilt_rewriter_notify_op_inserted(rw, op);
  return op;
}

/* The op's attributes as a GiltOpState wants them; the caller frees. */
static GiltNamedAttr *named_attrs(GiltRewriter *rw, GiltOp *op)
{
  size_t n = op->attrs->dict.n;
  GiltNamedAttr *attrs = gilt_calloc(rw->ctx, n + 1, sizeof *attrs);
  for (size_t i = 0; i < n; i++) {
    attrs[i].name = op->attrs->dict.entries[i].name->str;
    attrs[i].attr = op->attrs->dict.entries[i].attr;
  }
  return attrs;
}

GiltOp *gilt_rewriter_create_op_like(GiltRewriter *rw, GiltOp *op,
                                     const char *name,
                                     GiltValue *const *operands,
                                     GiltType *const *types)
{
  GiltContext *ctx = rw->ctx;
  GiltValue **vals = gilt_calloc(ctx, op->num_operands + 1, sizeof *vals);
  GiltType **tys = gilt_calloc(ctx, op->num_results + 1, sizeof *tys);
  GiltBlock **succs = gilt_calloc(ctx, op->num_successors + 1, sizeof *succs);
  GiltNamedAttr *attrs = named_attrs(rw, op);
  for (size_t i = 0; i < op->num_operands; i++)
    vals[i] = operands ? operands[i] : op->operands[i].value;
  for (size_t i = 0; i < op->num_results; i++)
    tys[i] = types ? types[i] : gilt_op_result_array(op)[i].type;
  for (size_t i = 0; i < op->num_successors; i++)
    succs[i] = gilt_op_successor_array(op)[i].block;
  GiltOpState st = gilt_op_state_get(name ? name : op->info->name->str,
                                     op->loc);
  st.num_operands = op->num_operands;
  st.operands = vals;
  st.num_results = op->num_results;
  st.result_types = tys;
  st.num_attrs = op->attrs->dict.n;
  st.attrs = attrs;
  st.num_regions = op->num_regions;
  st.num_successors = op->num_successors;
  st.successors = succs;
  GiltOp *copy = gilt_rewriter_create_op(rw, &st);
  for (size_t r = 0; copy && r < op->num_regions; r++)
    gilt_region_take_body(&gilt_op_region_array(copy)[r],
                          &gilt_op_region_array(op)[r]);
  gilt_free(ctx, attrs);
  gilt_free(ctx, vals);
  gilt_free(ctx, tys);
  gilt_free(ctx, succs);
  return copy;
}

void gilt_rewriter_replace_all_uses_with(GiltRewriter *rw, GiltValue *from,
                                         GiltValue *to)
{
  if (from == to)
    return;
  if (rw->listener->value_replaced)
    to = rw->listener->value_replaced(rw->user, from, to);
  gilt_value_replace_all_uses_with(from, to);
}

void gilt_rewriter_erase_op(GiltRewriter *rw, GiltOp *op)
{
  for (size_t i = 0; i < op->num_results; i++)
    GILT_ASSERT(!gilt_op_result_array(op)[i].first_use &&
                "erasing an op still in use");
  if (rw->listener->op_erased && rw->listener->op_erased(rw->user, op)) {
    gilt_op_remove_from_parent(op);
    gilt_op_drop_all_references(op);
    return;
  }
  gilt_op_destroy(op);
}

void gilt_rewriter_replace_op(GiltRewriter *rw, GiltOp *op,
                              GiltValue *const *values)
{
  for (size_t i = 0; i < op->num_results; i++)
    gilt_rewriter_replace_all_uses_with(rw, &gilt_op_result_array(op)[i],
                                        values[i]);
  gilt_rewriter_erase_op(rw, op);
}

void gilt_rewriter_inline_block_before(GiltRewriter *rw, GiltBlock *src,
                                       GiltOp *before,
                                       GiltValue *const *args)
{
  for (size_t i = 0; args && i < src->num_args; i++)
    gilt_rewriter_replace_all_uses_with(rw, src->args[i], args[i]);
  while (src->first) {
    GiltOp *op = src->first;
    gilt_op_remove_from_parent(op);
    gilt_block_insert_op_before(before, op);
    gilt_rewriter_notify_op_inserted(rw, op);
  }
  gilt_block_destroy(src);
}

/* ---- folding -------------------------------------------------------------- */

/* The constant a value holds: the `value` of a constant-like producer. */
static GiltAttr *constant_of(GiltValue *v)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  if (!def || !gilt_op_has_trait(def, GILT_TRAIT_CONSTANT_LIKE))
    return NULL;
  return gilt_op_get_attr(def, "value");
}

/* A constant op for `value`, built before `op` by op's dialect. */
static GiltValue *materialize(GiltRewriter *rw, GiltOp *op, GiltAttr *value,
                              GiltType *type)
{
  const GiltDialectInfo *dialect = op->info->dialect;
  if (!dialect || !dialect->def || !dialect->def->materialize_constant)
    return NULL;
  gilt_builder_set_insertion_point_before(rw->builder, op);
  GiltOp *c = dialect->def->materialize_constant(rw->builder, value, type,
                                                 op->loc);
  if (!c)
    return NULL;
  if (!c->block)
    gilt_builder_insert(rw->builder, c);
  GILT_ASSERT(c->num_results == 1);
  gilt_rewriter_notify_op_inserted(rw, c);
  return &gilt_op_result_array(c)[0];
}

/* Materializes the constants of a fold into vals[]; on failure erases
** those already built, so the IR is as it was. */
static GiltStatus materialize_all(GiltRewriter *rw, GiltOp *op,
                                  const GiltFoldResult *out,
                                  GiltValue **vals)
{
  for (size_t i = 0; i < op->num_results; i++) {
    vals[i] = out[i].value ? out[i].value : &gilt_op_result_array(op)[i];
    if (out[i].value || !out[i].attr)
      continue;
    vals[i] =
        materialize(rw, op, out[i].attr, gilt_op_result_array(op)[i].type);
    if (vals[i])
      continue;
    while (i-- > 0)
      if (!out[i].value && out[i].attr)
        gilt_rewriter_erase_op(rw, vals[i]->owner.op);
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

/* Replaces op's results by the fold's values. A result the fold left
** alone (or folded to itself) keeps op alive, updated in place. */
static GiltStatus apply_fold(GiltRewriter *rw, GiltOp *op,
                             const GiltFoldResult *out)
{
  GiltValue **vals = gilt_calloc(rw->ctx, op->num_results + 1, sizeof *vals);
  GiltStatus status = materialize_all(rw, op, out, vals);
  if (status == GILT_SUCCESS) {
    bool keep = false;
    for (size_t i = 0; i < op->num_results; i++) {
      if (vals[i] == &gilt_op_result_array(op)[i])
        keep = true;
      else
        gilt_rewriter_replace_all_uses_with(rw, &gilt_op_result_array(op)[i],
                                            vals[i]);
    }
    if (keep)
      gilt_rewriter_notify_op_modified(rw, op);
    else
      gilt_rewriter_erase_op(rw, op);
  }
  gilt_free(rw->ctx, vals);
  return status;
}

static GiltStatus fold_with_hook(GiltRewriter *rw, GiltOp *op)
{
  GiltAttr **consts =
      gilt_calloc(rw->ctx, op->num_operands + 1, sizeof *consts);
  GiltFoldResult *out =
      gilt_calloc(rw->ctx, op->num_results + 1, sizeof *out);
  for (size_t i = 0; i < op->num_operands; i++)
    consts[i] = constant_of(op->operands[i].value);
  GiltStatus status = op->info->def->fold(op, consts, out);
  if (status == GILT_SUCCESS) {
    bool in_place = true;
    for (size_t i = 0; i < op->num_results; i++)
      in_place = in_place && !out[i].attr && !out[i].value;
    if (in_place)
      gilt_rewriter_notify_op_modified(rw, op);
    else
      status = apply_fold(rw, op, out);
  }
  gilt_free(rw->ctx, consts);
  gilt_free(rw->ctx, out);
  return status;
}

/* As MLIR's commutative trait folding: a constant operand moves to the
** right, so `c + x` and `x + c` look alike to patterns and CSE. */
static GiltStatus fold_commutative(GiltRewriter *rw, GiltOp *op)
{
  if (!gilt_op_has_trait(op, GILT_TRAIT_COMMUTATIVE) ||
      op->num_operands != 2)
    return GILT_FAILURE;
  GiltValue *lhs = op->operands[0].value, *rhs = op->operands[1].value;
  if (!constant_of(lhs) || constant_of(rhs))
    return GILT_FAILURE;
  GiltValue *swapped[2] = {rhs, lhs};
  gilt_op_set_operands(op, 2, swapped);
  gilt_rewriter_notify_op_modified(rw, op);
  return GILT_SUCCESS;
}

/* Constant-like ops are where folding ends, not something to fold. */
GiltStatus gilt_op_try_fold(GiltOp *op, GiltRewriter *rw)
{
  const GiltOpDef *def = op->info->def;
  if (!def || gilt_op_has_trait(op, GILT_TRAIT_CONSTANT_LIKE))
    return GILT_FAILURE;
  if (def->fold && fold_with_hook(rw, op) == GILT_SUCCESS)
    return GILT_SUCCESS;
  return fold_commutative(rw, op);
}

/* ---- the greedy driver ---------------------------------------------------- */

GiltGreedyConfig gilt_greedy_config_default(void)
{
  GiltGreedyConfig config = {10, true, true};
  return config;
}

/* CUR: this generation; NEXT: the next one; DEAD: ops that may have lost
** their last use, checked (and erased) right after the current op. */
enum { QUEUE_CUR, QUEUE_NEXT, QUEUE_DEAD, NUM_QUEUES };

typedef struct OpQueue {
  GILT_VEC(GiltOp *) ops; /* NULL where an op was taken out */
  size_t head;            /* first slot not yet popped */
} OpQueue;

typedef struct Driver {
  GiltContext *ctx;
  GiltOp *root;
  GiltGreedyConfig config;
  GiltRewriter *rw;
  GiltPatternIndex index;
  OpQueue queues[NUM_QUEUES];
  GiltPtrMap where; /* queued op -> slot << 2 | queue */
  bool changed;
} Driver;

static bool in_scope(Driver *d, GiltOp *op)
{
  return op != d->root && gilt_op_is_ancestor(d->root, op);
}

static bool queued_in(Driver *d, GiltOp *op, int *queue)
{
  size_t w;
  if (!gilt_ptr_map_get(&d->where, op, &w))
    return false;
  *queue = (int)(w & 3);
  return true;
}

static void push(Driver *d, int queue, GiltOp *op)
{
  OpQueue *q = &d->queues[queue];
  gilt_ptr_map_put(&d->where, op, q->ops.len << 2 | (size_t)queue);
  gilt_vec_push(d->ctx, &q->ops, op);
}

/* Takes op out of whichever queue holds it. */
static void unqueue(Driver *d, GiltOp *op)
{
  size_t w;
  if (!gilt_ptr_map_get(&d->where, op, &w))
    return;
  d->queues[w & 3].ops.data[w >> 2] = NULL;
  gilt_ptr_map_remove(&d->where, op);
}

static GiltOp *pop(Driver *d, int queue)
{
  OpQueue *q = &d->queues[queue];
  while (q->head < q->ops.len) {
    GiltOp *op = q->ops.data[q->head++];
    if (op) {
      gilt_ptr_map_remove(&d->where, op);
      return op;
    }
  }
  q->ops.len = q->head = 0;
  return NULL;
}

static GiltOp *peek(Driver *d, int queue)
{
  OpQueue *q = &d->queues[queue];
  for (size_t i = q->head; i < q->ops.len; i++)
    if (q->ops.data[i])
      return q->ops.data[i];
  return NULL;
}

/* An op that is new or changed gets another look: in this generation if
** it is still waiting in it, else in the next. A dead-candidate is simply
** moved, as processing checks deadness first. */
static void schedule(Driver *d, GiltOp *op)
{
  int queue;
  if (!in_scope(d, op))
    return;
  if (queued_in(d, op, &queue)) {
    if (queue != QUEUE_DEAD)
      return;
    unqueue(d, op);
  }
  push(d, QUEUE_NEXT, op);
}

static void suspect_dead(Driver *d, GiltOp *op)
{
  int queue;
  if (d->config.remove_dead && in_scope(d, op) && !queued_in(d, op, &queue))
    push(d, QUEUE_DEAD, op);
}

static GiltWalkResult schedule_walk(GiltOp *op, void *user)
{
  schedule(user, op);
  return GILT_WALK_ADVANCE;
}

static void on_inserted(void *user, GiltOp *op)
{
  gilt_op_walk(op, GILT_WALK_PRE_ORDER, schedule_walk, user);
}

static void on_modified(void *user, GiltOp *op) { schedule(user, op); }

static GiltValue *on_replaced(void *user, GiltValue *from, GiltValue *to)
{
  Driver *d = user;
  for (GiltOperand *u = from->first_use; u; u = u->next_use)
    schedule(d, u->owner);
  if (!from->is_block_arg)
    suspect_dead(d, from->owner.op);
  return to;
}

static GiltWalkResult suspect_producers(GiltOp *op, void *user)
{
  for (size_t i = 0; i < op->num_operands; i++) {
    GiltValue *v = op->operands[i].value;
    if (v && !v->is_block_arg)
      suspect_dead(user, v->owner.op);
  }
  return GILT_WALK_ADVANCE;
}

static GiltWalkResult unqueue_walk(GiltOp *op, void *user)
{
  unqueue(user, op);
  return GILT_WALK_ADVANCE;
}

/* Producers inside the erased op are suspected too, then unqueued with
** the rest of it by the second walk. */
static bool on_erased(void *user, GiltOp *op)
{
  gilt_op_walk(op, GILT_WALK_PRE_ORDER, suspect_producers, user);
  gilt_op_walk(op, GILT_WALK_PRE_ORDER, unqueue_walk, user);
  return false;
}

static const GiltRewriteListener driver_listener = {
    on_inserted, on_modified, on_replaced, on_erased};

static GiltWalkResult populate(GiltOp *op, void *user)
{
  Driver *d = user;
  if (op != d->root)
    push(d, QUEUE_CUR, op);
  return GILT_WALK_ADVANCE;
}

static void driver_init(Driver *d, GiltOp *root, const GiltPatternSet *set,
                        const GiltGreedyConfig *config)
{
  memset(d, 0, sizeof *d);
  d->ctx = root->loc->ctx;
  d->root = root;
  d->config = config ? *config : gilt_greedy_config_default();
  if (d->config.max_iterations <= 0)
    d->config.max_iterations = 10;
  d->rw = gilt_rewriter_create(d->ctx, &driver_listener, d);
  gilt_pattern_index_init(&d->index, set);
  gilt_ptr_map_init(&d->where, d->ctx);
  gilt_op_walk(root, GILT_WALK_PRE_ORDER, populate, d);
}

static void driver_free(Driver *d)
{
  for (int q = 0; q < NUM_QUEUES; q++)
    gilt_vec_free(d->ctx, &d->queues[q].ops);
  gilt_ptr_map_free(&d->where);
  gilt_pattern_index_free(&d->index);
  gilt_rewriter_destroy(d->rw);
}

static void erase_if_dead(Driver *d, GiltOp *op)
{
  if (gilt_op_is_trivially_dead(op)) {
    gilt_rewriter_erase_op(d->rw, op);
    d->changed = true;
  }
}

static bool apply_patterns(Driver *d, GiltOp *op)
{
  GiltPatternCursor cursor;
  gilt_pattern_index_lookup(&d->index, op, &cursor);
  for (const GiltPattern *p; (p = gilt_pattern_cursor_next(&cursor));) {
    gilt_builder_set_insertion_point_before(d->rw->builder, op);
    if (p->match_and_rewrite(p, op, d->rw) == GILT_SUCCESS)
      return true;
  }
  return false;
}

static void process(Driver *d, GiltOp *op)
{
  if (d->config.remove_dead && gilt_op_is_trivially_dead(op)) {
    gilt_rewriter_erase_op(d->rw, op);
    d->changed = true;
  } else if (d->config.fold && gilt_op_try_fold(op, d->rw) == GILT_SUCCESS) {
    d->changed = true;
  } else if (apply_patterns(d, op)) {
    d->changed = true;
  }
}

static void sweep(Driver *d)
{
  for (GiltOp *op; (op = pop(d, QUEUE_CUR));) {
    process(d, op);
    for (GiltOp *dead; (dead = pop(d, QUEUE_DEAD));)
      erase_if_dead(d, dead);
  }
}

/* The next generation becomes the current one. */
static void promote(Driver *d)
{
  OpQueue *cur = &d->queues[QUEUE_CUR], *next = &d->queues[QUEUE_NEXT];
  OpQueue emptied = *cur;
  *cur = *next;
  *next = emptied;
  next->ops.len = next->head = 0;
  for (size_t i = cur->head; i < cur->ops.len; i++)
    if (cur->ops.data[i])
      gilt_ptr_map_put(&d->where, cur->ops.data[i], i << 2 | QUEUE_CUR);
}

static void report_no_convergence(Driver *d)
{
  GiltDiagnostic *diag = gilt_diag_create(
      d->ctx, GILT_SEVERITY_ERROR, d->root->loc,
      "greedy pattern rewriter did not converge after %d iterations",
      d->config.max_iterations);
  GiltOp *pending = peek(d, QUEUE_NEXT);
  gilt_diag_add_note(diag, pending->loc, "still on the worklist: '%s'",
                     pending->info->name->str);
  gilt_diag_emit(diag);
}

GiltStatus gilt_apply_patterns_greedily(GiltOp *op, const GiltPatternSet *set,
                                        const GiltGreedyConfig *config,
                                        bool *changed)
{
  Driver d;
  driver_init(&d, op, set, config);
  GiltStatus status = GILT_SUCCESS;
  for (int iteration = 1;; iteration++) {
    sweep(&d);
    if (!peek(&d, QUEUE_NEXT))
      break;
    if (iteration >= d.config.max_iterations) {
      report_no_convergence(&d);
      status = GILT_FAILURE;
      break;
    }
    promote(&d);
  }
  if (changed)
    *changed = d.changed;
  driver_free(&d);
  return status;
}
