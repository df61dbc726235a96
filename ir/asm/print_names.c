/*
** print_names.c - numbering SSA values and blocks for printing.
**
** Follows MLIR's SSANameState so that gilt prints the names mlir-opt
** would: the ops of a region get `%0`, `%1`, ... (one number per op, its
** results being `%N#i`), non-entry block arguments take numbers from the
** same counter, entry block arguments are `%arg0`, `%arg1`, ..., and the
** blocks of a region are `^bb0`, `^bb1`, ... Every region is numbered as a
** whole before the regions nested in its ops, and each nested region
** continues from the counters its parent region ended with; sibling
** regions start from the same counters. So the body of a func.func in a
** module starts again at `%0` and `%arg0`, while a loop body inside it
** numbers after all the values of the function body.
**
** The numbers live in side tables, never in the IR. Blocks are few and go
** in a GiltPtrMap; ops are many, so an op's number sits in an array at
** its block's offset plus its position in the block (GiltOp.order, which
** numbering makes dense). That is four bytes per op instead of a hash
** entry, and lookups while printing touch memory almost in order: on
** machines where a fresh page costs a fault of ten microseconds, this is
** what lets a million ops print well within a second.
**
** Custom value names (MLIR's getAsmResultNames) are not supported.
*/
#include "ir/asm/printer.h"

#include "ir/support/ptr_map.h"

#define NO_ID UINT32_MAX

typedef struct BlockNames {
  uint32_t label;     /* ^bbN */
  uint32_t first_arg; /* %argN of an entry block, else %N */
  size_t first_op;    /* index of its first op in op_ids */
  size_t num_ops;
} BlockNames;

struct GiltSsaNames {
  GiltContext *ctx;
  GiltPtrMap block_index; /* block -> index in blocks */
  GILT_VEC(BlockNames) blocks;
  GILT_VEC(uint32_t) op_ids; /* first result of each op, or NO_ID */
  GiltOp *root;              /* numbered apart: it is in no block */
  uint32_t root_id;
  /* The last block looked up: operands mostly come from the user's
  ** block, so this saves most hash lookups. */
  const GiltBlock *cached_block;
  const BlockNames *cached_names;
};

/* A region waiting to be numbered, with the counters it starts from. */
typedef struct PendingRegion {
  GiltRegion *region;
  uint32_t next_value, next_arg;
} PendingRegion;

typedef GILT_VEC(PendingRegion) PendingStack;
typedef GILT_VEC(GiltOp *) OpList;

/* Makes op->order the position 0, 1, 2, ... of each op in the block of
** num_ops ops, unless it already is (ops appended in order keep it so):
** gilt_op_is_before_in_block renumbers a block whose order is stale. */
static void ensure_dense_order(GiltBlock *b, size_t num_ops)
{
  if (!b->first || (b->order_valid && b->first->order == 0 &&
                    b->last->order == num_ops - 1))
    return;
  b->order_valid = false;
  (void)gilt_op_is_before_in_block(b->first, b->first);
}

static void push_regions(GiltContext *ctx, PendingStack *stack, GiltOp *op,
                         uint32_t next_value, uint32_t next_arg)
{
  for (uint32_t i = 0; i < op->num_regions; i++) {
    PendingRegion pr = {&gilt_op_region_array(op)[i], next_value, next_arg};
    gilt_vec_push(ctx, stack, pr);
  }
}

/* Numbers one block and its ops; ops holding regions are collected in
** `nested` for their regions to be numbered after the whole region. */
static void number_block(GiltSsaNames *n, GiltBlock *b, uint32_t label,
                         PendingRegion *pr, OpList *nested)
{
  bool entry = b == pr->region->first;
  uint32_t *counter = entry ? &pr->next_arg : &pr->next_value;
  BlockNames bn = {label, *counter, n->op_ids.len, 0};
  *counter += (uint32_t)b->num_args;
  for (GiltOp *op = b->first; op; op = op->next, bn.num_ops++) {
    gilt_vec_push(n->ctx, &n->op_ids,
                  op->num_results ? pr->next_value++ : NO_ID);
    if (op->num_regions)
      gilt_vec_push(n->ctx, nested, op);
  }
  ensure_dense_order(b, bn.num_ops);
  gilt_ptr_map_put(&n->block_index, b, n->blocks.len);
  gilt_vec_push(n->ctx, &n->blocks, bn);
}

/* Numbers the region's blocks, arguments and results, then queues the
** regions nested in its ops with the counters as they end here. */
static void number_region(GiltSsaNames *n, PendingStack *stack,
                          OpList *nested, PendingRegion pr)
{
  uint32_t label = 0;
  nested->len = 0;
  for (GiltBlock *b = pr.region->first; b; b = b->next)
    number_block(n, b, label++, &pr, nested);
  for (size_t i = 0; i < nested->len; i++)
    push_regions(n->ctx, stack, nested->data[i], pr.next_value,
                 pr.next_arg);
}

GiltSsaNames *gilt_ssa_names_create(GiltContext *ctx, GiltOp *root)
{
  GiltSsaNames *n = gilt_calloc(ctx, 1, sizeof *n);
  n->ctx = ctx;
  gilt_ptr_map_init(&n->block_index, ctx);
  PendingStack stack = {0};
  OpList nested = {0};
  push_regions(ctx, &stack, root, 0, 0);
  n->root = root;
  n->root_id = root->num_results ? 0 : NO_ID;
  while (stack.len)
    number_region(n, &stack, &nested, stack.data[--stack.len]);
  gilt_vec_free(ctx, &stack);
  gilt_vec_free(ctx, &nested);
  return n;
}

void gilt_ssa_names_destroy(GiltSsaNames *n)
{
  if (!n)
    return;
  gilt_ptr_map_free(&n->block_index);
  gilt_vec_free(n->ctx, &n->blocks);
  gilt_vec_free(n->ctx, &n->op_ids);
  gilt_free(n->ctx, n);
}

static const BlockNames *find_block(GiltSsaNames *n, const GiltBlock *b)
{
  if (!n || !b)
    return NULL;
  if (b == n->cached_block)
    return n->cached_names;
  size_t i;
  if (!gilt_ptr_map_get(&n->block_index, b, &i))
    return NULL;
  n->cached_block = b;
  n->cached_names = &n->blocks.data[i];
  return n->cached_names;
}

bool gilt_ssa_names_lookup_op(GiltSsaNames *n, GiltOp *op, uint32_t *id)
{
  uint32_t found = NO_ID;
  const BlockNames *bn;
  if (n && op == n->root)
    found = n->root_id;
  else if ((bn = find_block(n, op->block)) && op->order < bn->num_ops)
    found = n->op_ids.data[bn->first_op + op->order];
  if (found != NO_ID)
    *id = found;
  return found != NO_ID;
}

bool gilt_ssa_names_lookup_block(GiltSsaNames *n, GiltBlock *block,
                                 uint32_t *label, uint32_t *first_arg)
{
  const BlockNames *bn = find_block(n, block);
  if (bn) {
    *label = bn->label;
    *first_arg = bn->first_arg;
  }
  return bn != NULL;
}
