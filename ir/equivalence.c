/*
** equivalence.c - whether two regions compute the same thing, op for op,
** and a hash that such regions share (MLIR's OperationEquivalence).
**
** Two regions are equivalent when their blocks correspond in order, with
** arguments of the same types, and their ops correspond in order, with
** the same name, attributes and result types, corresponding operands and
** successors, and equivalent regions. Types and attributes are uniqued in
** the context, so comparing them is comparing pointers. Locations do not
** count: the loop-to-llvm lowering shares one outlined body between
** layers of one shape, which differ in nothing but where they came from.
**
** Operands are compared only after the whole structure matched, because
** a use may come before its definition in block order. CSE compares ops
** with regions the same way (gilt_ops_equivalent), their own operands
** included. The `_except` forms let a caller accept ops that differ in
** their attributes alone: llvm-merge-functions shares one body between
** functions whose integer constants differ, passing them as arguments.
*/
#include "ir/core.h"

#include "ir/support/ptr_map.h"

typedef GILT_VEC(GiltOp *) OpVec;

/* ---- the hash ----------------------------------------------------------------- */

/* `ignored` (may be NULL) picks the ops whose attributes do not count. */
static uint32_t hash_region(uint32_t h, GiltRegion *r,
                            bool (*ignored)(GiltOp *op))
{
  for (GiltBlock *b = r->first; b; b = b->next) {
    h = gilt_hash_u64(h, b->num_args);
    for (size_t i = 0; i < b->num_args; i++)
      h = gilt_hash_ptr(h, b->args[i]->type);
    for (GiltOp *op = b->first; op; op = op->next) {
      h = gilt_hash_ptr(h, op->info);
      if (!ignored || !ignored(op))
        h = gilt_hash_ptr(h, op->attrs);
      h = gilt_hash_u64(h, (uint64_t)op->num_operands << 32 | op->num_results);
      for (uint32_t i = 0; i < op->num_results; i++)
        h = gilt_hash_ptr(h, gilt_op_result_array(op)[i].type);
      for (uint32_t i = 0; i < op->num_regions; i++)
        h = hash_region(h, &gilt_op_region_array(op)[i], ignored);
    }
  }
  return h;
}

uint32_t gilt_region_hash(GiltRegion *r)
{
  return hash_region(GILT_HASH_SEED, r, NULL);
}

uint32_t gilt_region_hash_except(GiltRegion *r, bool (*ignored)(GiltOp *op))
{
  return hash_region(GILT_HASH_SEED, r, ignored);
}

/* ---- the comparison ------------------------------------------------------------- */

typedef struct Match {
  GiltContext *ctx;
  GiltPtrMap image; /* a's blocks and values -> b's */
  OpVec pairs;      /* a's op, b's op, ... matched so far */
  GiltAttrsMayDiffer may_differ; /* NULL: attributes must be the same */
  void *user;
} Match;

static void map(Match *m, const void *a, const void *b)
{
  gilt_ptr_map_put(&m->image, a, (size_t)(uintptr_t)b);
}

/* Whether a (of the first region) stands for b: its image, or the same
** thing where a is defined outside the region. */
static bool corresponds(const Match *m, const void *a, const void *b)
{
  size_t image;
  if (gilt_ptr_map_get(&m->image, a, &image))
    return (const void *)(uintptr_t)image == b;
  return a == b;
}

static bool match_region(Match *m, GiltRegion *a, GiltRegion *b);

/* Matches the structure of ops a and b, all but operands and successors. */
static bool match_op(Match *m, GiltOp *a, GiltOp *b)
{
  if (a->info != b->info || a->num_operands != b->num_operands ||
      a->num_results != b->num_results ||
      a->num_regions != b->num_regions ||
      a->num_successors != b->num_successors)
    return false;
  for (uint32_t i = 0; i < a->num_results; i++)
    if (gilt_op_result_array(a)[i].type != gilt_op_result_array(b)[i].type)
      return false;
  if (a->attrs != b->attrs &&
      !(m->may_differ && m->may_differ(a, b, m->user)))
    return false;
  for (uint32_t i = 0; i < a->num_results; i++) {
    GiltValue *ra = &gilt_op_result_array(a)[i];
    GiltValue *rb = &gilt_op_result_array(b)[i];
    map(m, ra, rb);
  }
  gilt_vec_push(m->ctx, &m->pairs, a);
  gilt_vec_push(m->ctx, &m->pairs, b);
  for (uint32_t i = 0; i < a->num_regions; i++)
    if (!match_region(m, &gilt_op_region_array(a)[i],
                      &gilt_op_region_array(b)[i]))
      return false;
  return true;
}

static bool match_block(Match *m, GiltBlock *a, GiltBlock *b)
{
  if (a->num_args != b->num_args)
    return false;
  for (size_t i = 0; i < a->num_args; i++) {
    if (a->args[i]->type != b->args[i]->type)
      return false;
    map(m, a->args[i], b->args[i]);
  }
  map(m, a, b);
  GiltOp *x = a->first, *y = b->first;
  for (; x && y; x = x->next, y = y->next)
    if (!match_op(m, x, y))
      return false;
  return !x && !y;
}

static bool match_region(Match *m, GiltRegion *a, GiltRegion *b)
{
  GiltBlock *x = a->first, *y = b->first;
  for (; x && y; x = x->next, y = y->next)
    if (!match_block(m, x, y))
      return false;
  return !x && !y;
}

/* Whether the operands and successors of the matched pair a, b
** correspond. */
static bool uses_correspond(const Match *m, GiltOp *a, GiltOp *b)
{
  for (uint32_t i = 0; i < a->num_operands; i++)
    if (!corresponds(m, a->operands[i].value, b->operands[i].value))
      return false;
  for (uint32_t i = 0; i < a->num_successors; i++)
    if (!corresponds(m, gilt_op_successor_array(a)[i].block,
                     gilt_op_successor_array(b)[i].block))
      return false;
  return true;
}

/* The structure of a and b (ops when `ops`, else regions) matched, then
** the uses of every pair. */
static bool equivalent(GiltContext *ctx, bool ops, void *a, void *b,
                       GiltAttrsMayDiffer may_differ, void *user)
{
  Match m = {.ctx = ctx, .may_differ = may_differ, .user = user};
  gilt_ptr_map_init(&m.image, ctx);
  bool same = ops ? match_op(&m, a, b) : match_region(&m, a, b);
  for (size_t i = 0; same && i < m.pairs.len; i += 2)
    same = uses_correspond(&m, m.pairs.data[i], m.pairs.data[i + 1]);
  gilt_ptr_map_free(&m.image);
  gilt_vec_free(ctx, &m.pairs);
  return same;
}

bool gilt_regions_equivalent(GiltRegion *a, GiltRegion *b)
{
  return equivalent(a->ctx, false, a, b, NULL, NULL);
}

bool gilt_regions_equivalent_except(GiltRegion *a, GiltRegion *b,
                                    GiltAttrsMayDiffer may_differ, void *user)
{
  return equivalent(a->ctx, false, a, b, may_differ, user);
}

bool gilt_ops_equivalent(GiltOp *a, GiltOp *b)
{
  /* a's own operands come from outside it, so they must be b's: seen
  ** before anything is mapped or allocated, as CSE asks this of every op
  ** whose hash matches. */
  if (a->num_operands != b->num_operands)
    return false;
  for (uint32_t i = 0; i < a->num_operands; i++)
    if (a->operands[i].value != b->operands[i].value)
      return false;
  return equivalent(gilt_op_get_context(a), true, a, b, NULL, NULL);
}
