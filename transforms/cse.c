/*
** cse.c - `cse`: common subexpression elimination of effect-free and
** read-only ops.
**
** Requires nothing; erases ops, never creates any; values keep their
** types. MLIR's CSE: a walk over the regions with a scoped table of the
** ops seen so far, keyed by structure (name, attributes, operands, result
** types). An op equal to one already in scope is replaced by it. Scopes
** follow dominance: entering a region opens a scope, leaving it forgets
** what it defined, so values of an outer scope are visible in nested
** regions and never the other way round. An isolated-from-above op starts
** an empty scope. In a region of several blocks, blocks are visited in
** reverse postorder and an op found in the table is used only if its block
** dominates the user's (ir/dominance.h); unreachable blocks are skipped.
** Ops with regions are CSE'd when pure and their regions are equal,
** block by block and op by op; regions of several blocks are left alone.
** Regions without SSA dominance (graph regions) are not CSE'd. Ops that
** are already dead are erased on the way, as MLIR's CSE does.
**
** Memory effects (gilt/interfaces.h) decide which ops are candidates.
** Effect-free ops are merged as above. An op whose only effects are reads
** is merged, as in MLIR's CSE, only with an equal op of the same block
** with no op between them that may write (a write, a free, or unknown
** effects: there is no alias analysis). Rather than scanning the ops in
** between, the walk counts the ops that may write as it passes them (the
** write epoch); a read-only op in the table is reusable while the epoch
** is still the one it was entered at. The epoch also moves for writes in
** nested regions, which can only over-approximate: the op holding them
** may write too.
**
** Statistics: num-cse'd, num-dce'd.
*/
#include "transforms/passes.h"

#include <string.h>

#include "gilt/interfaces.h"
#include "ir/dominance.h"
#include "ir/rewrite/rewrite.h"

/* ---- the scoped table ------------------------------------------------------ */

typedef struct Entry {
  GiltOp *op;
  uint32_t hash;
  bool reads;     /* op reads memory: reusable only in its write epoch */
  uint64_t epoch; /* the write epoch when op was entered */
  size_t next; /* index + 1 of the next entry in the bucket, 0 at the end */
} Entry;

/* Entries are a stack: a scope is the stack height at its start, and
** leaving it pops back there. Inserting at the head of a bucket keeps each
** bucket in stack order, so popping only ever unlinks bucket heads. */
typedef struct Table {
  GiltContext *ctx;
  GILT_VEC(Entry) entries;
  size_t *buckets; /* index + 1 of the newest entry, 0 if none */
  size_t num_buckets;
  size_t floor;    /* entries below it are out of scope (isolation) */
} Table;

static void link_entry(Table *t, size_t i)
{
  size_t b = t->entries.data[i].hash & (t->num_buckets - 1);
  t->entries.data[i].next = t->buckets[b];
  t->buckets[b] = i + 1;
}

static void table_insert(Table *t, GiltOp *op, uint32_t hash, bool reads,
                         uint64_t epoch)
{
  Entry e = {op, hash, reads, epoch, 0};
  gilt_vec_push(t->ctx, &t->entries, e);
  if (t->entries.len > t->num_buckets) {
    gilt_free(t->ctx, t->buckets);
    t->num_buckets = t->num_buckets ? t->num_buckets * 2 : 64;
    t->buckets = gilt_calloc(t->ctx, t->num_buckets, sizeof *t->buckets);
    for (size_t i = 0; i < t->entries.len; i++)
      link_entry(t, i);
  } else {
    link_entry(t, t->entries.len - 1);
  }
}

static void table_pop_to(Table *t, size_t height)
{
  while (t->entries.len > height) {
    Entry *e = &t->entries.data[--t->entries.len];
    t->buckets[e->hash & (t->num_buckets - 1)] = e->next;
  }
}

/* ---- structural equality ---------------------------------------------------- */

static uint32_t hash_op(GiltOp *op)
{
  uint32_t h = gilt_hash_ptr(GILT_HASH_SEED, op->info);
  h = gilt_hash_ptr(h, op->attrs);
  for (size_t i = 0; i < op->num_operands; i++)
    h = gilt_hash_ptr(h, op->operands[i].value);
  for (size_t i = 0; i < op->num_results; i++)
    h = gilt_hash_ptr(h, gilt_op_result_array(op)[i].type);
  return gilt_hash_u64(h, op->num_regions);
}

/* ---- the walk ------------------------------------------------------------------ */

/* A region of several blocks being walked, with its dominator tree. */
typedef struct DomScope {
  GiltRegion *region;
  GiltDomTree *tree;
} DomScope;

typedef struct Cse {
  GiltContext *ctx;
  Table table;
  GILT_VEC(DomScope) doms;
  GILT_VEC(GiltOp *) to_erase; /* erased at the end, in this order */
  uint64_t epoch;              /* ops passed that may write */
  int64_t num_cse, num_dce;
} Cse;

/* Whether `known`, an op in the table, dominates `op`. Only regions of
** several blocks need asking: the table holds nothing of a single-block
** region that is not on the way from op to the root. */
static bool dominates(Cse *c, GiltOp *known, GiltOp *op)
{
  GiltRegion *r = known->block->region;
  if (r->first == r->last)
    return true;
  GiltOp *ancestor = op;
  while (ancestor->block->region != r)
    ancestor = gilt_op_get_parent_op(ancestor);
  if (ancestor->block == known->block)
    return true;
  for (size_t i = c->doms.len; i-- > 0;)
    if (c->doms.data[i].region == r)
      return gilt_dom_tree_dominates(c->doms.data[i].tree, known->block,
                                     ancestor->block);
  GILT_ASSERT(!"a multi-block region in the table has no dominator tree");
  return false;
}

/* A read-only op in the table stands for `op` only if nothing may have
** written since it ran: same block, same write epoch. */
static bool still_valid(Cse *c, const Entry *e, GiltOp *op)
{
  return !e->reads || (e->op->block == op->block && e->epoch == c->epoch);
}

static GiltOp *lookup(Cse *c, GiltOp *op, uint32_t hash)
{
  Table *t = &c->table;
  if (!t->num_buckets)
    return NULL;
  for (size_t i = t->buckets[hash & (t->num_buckets - 1)]; i;
       i = t->entries.data[i - 1].next) {
    Entry *e = &t->entries.data[i - 1];
    if (i - 1 >= t->floor && e->hash == hash && still_valid(c, e, op) &&
        gilt_ops_equivalent(e->op, op) && dominates(c, e->op, op))
      return e->op;
  }
  return NULL;
}

/* Whether op may be merged: results, no region of several blocks, and
** no effect but reads (*reads tells whether it has any). */
static bool cse_candidate(GiltOp *op, bool *reads)
{
  for (size_t i = 0; i < op->num_regions; i++)
    if (gilt_op_region_array(op)[i].first != gilt_op_region_array(op)[i].last)
      return false;
  if (op->num_results == 0 || !gilt_op_only_reads(op))
    return false;
  *reads = !gilt_op_is_effect_free(op);
  return true;
}

static void simplify_op(Cse *c, GiltOp *op, bool ssa)
{
  bool reads;
  if (gilt_op_has_trait(op, GILT_TRAIT_TERMINATOR))
    return;
  if (gilt_op_is_trivially_dead(op)) {
    gilt_vec_push(c->ctx, &c->to_erase, op);
    c->num_dce++;
    return;
  }
  if (!ssa || !cse_candidate(op, &reads))
    return;
  uint32_t hash = hash_op(op);
  GiltOp *known = lookup(c, op, hash);
  if (!known) {
    table_insert(&c->table, op, hash, reads, c->epoch);
    return;
  }
  for (size_t i = 0; i < op->num_results; i++)
    gilt_value_replace_all_uses_with(&gilt_op_result_array(op)[i],
                                     &gilt_op_result_array(known)[i]);
  gilt_vec_push(c->ctx, &c->to_erase, op);
  c->num_cse++;
}

static void simplify_region(Cse *c, GiltRegion *r);

static void simplify_block(Cse *c, GiltBlock *b, bool ssa)
{
  for (GiltOp *op = b->first; op; op = op->next) {
    size_t floor = c->table.floor;
    if (gilt_op_has_trait(op, GILT_TRAIT_ISOLATED_FROM_ABOVE))
      c->table.floor = c->table.entries.len;
    for (size_t i = 0; i < op->num_regions; i++)
      simplify_region(c, &gilt_op_region_array(op)[i]);
    c->table.floor = floor;
    simplify_op(c, op, ssa);
    if (gilt_op_may_write(op))
      c->epoch++;
  }
}

/* The reachable blocks of a region, dominators before what they
** dominate: reverse postorder of a depth-first walk from the entry. */
typedef GILT_VEC(GiltBlock *) BlockVec;

static void reverse_postorder(Cse *c, GiltRegion *r, BlockVec *out)
{
  typedef struct Frame {
    GiltBlock *block;
    size_t next_succ;
  } Frame;
  GILT_VEC(Frame) stack = {0};
  GiltPtrMap seen;
  gilt_ptr_map_init(&seen, c->ctx);
  Frame entry = {r->first, 0};
  gilt_vec_push(c->ctx, &stack, entry);
  gilt_ptr_map_put(&seen, r->first, 0);
  while (stack.len) {
    Frame *top = &stack.data[stack.len - 1];
    GiltOp *term = top->block->last;
    if (term && top->next_succ < term->num_successors) {
      GiltBlock *s = gilt_op_successor_array(term)[top->next_succ++].block;
      if (!gilt_ptr_map_get(&seen, s, NULL)) {
        gilt_ptr_map_put(&seen, s, 0);
        Frame f = {s, 0};
        gilt_vec_push(c->ctx, &stack, f);
      }
      continue;
    }
    gilt_vec_push(c->ctx, out, top->block);
    stack.len--;
  }
  for (size_t i = 0, j = out->len; i + 1 < j; i++, j--) {
    GiltBlock *tmp = out->data[i];
    out->data[i] = out->data[j - 1];
    out->data[j - 1] = tmp;
  }
  gilt_ptr_map_free(&seen);
  gilt_vec_free(c->ctx, &stack);
}

static void simplify_blocks(Cse *c, GiltRegion *r)
{
  GiltDomTree *tree = gilt_dom_tree_create(r);
  DomScope scope = {r, tree};
  gilt_vec_push(c->ctx, &c->doms, scope);
  BlockVec order = {0};
  reverse_postorder(c, r, &order);
  for (size_t i = 0; i < order.len; i++)
    simplify_block(c, order.data[i], true);
  gilt_vec_free(c->ctx, &order);
  c->doms.len--;
  gilt_dom_tree_destroy(tree);
}

static void simplify_region(Cse *c, GiltRegion *r)
{
  if (!r->first)
    return;
  bool ssa = !gilt_op_has_trait(r->op, GILT_TRAIT_GRAPH_REGION);
  size_t height = c->table.entries.len;
  if (r->first == r->last)
    simplify_block(c, r->first, ssa);
  else if (ssa)
    simplify_blocks(c, r);
  table_pop_to(&c->table, height);
}

static GiltStatus run(GiltPass *pass, GiltOp *op)
{
  Cse c;
  memset(&c, 0, sizeof c);
  c.ctx = gilt_pass_get_context(pass);
  c.table.ctx = c.ctx;
  for (size_t i = 0; i < op->num_regions; i++)
    simplify_region(&c, &gilt_op_region_array(op)[i]);
  for (size_t i = 0; i < c.to_erase.len; i++)
    gilt_op_destroy(c.to_erase.data[i]);
  gilt_vec_free(c.ctx, &c.to_erase);
  gilt_vec_free(c.ctx, &c.doms);
  gilt_vec_free(c.ctx, &c.table.entries);
  gilt_free(c.ctx, c.table.buckets);
  gilt_pass_add_statistic(pass, "num-cse'd", "Number of operations CSE'd",
                          c.num_cse);
  gilt_pass_add_statistic(pass, "num-dce'd", "Number of operations DCE'd",
                          c.num_dce);
  if (!c.num_cse && !c.num_dce)
    gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_cse_pass = {
    .name = "cse",
    .description = "Eliminate common subexpressions among side-effect-free "
                   "ops, by dominance scope, and reads with no write between",
    .anchor = NULL,
    .options = NULL,
    .run = run,
};
