/*
** builder.c - the builder: an insertion point and op creation there.
**
** The insertion point is a block and the op before which new ops go (NULL
** for the block's end). Inserting keeps the point after the new op, so a
** sequence of creations comes out in program order.
*/
#include "ir/core.h"

struct GiltBuilder {
  GiltContext *ctx;
  GiltBlock *block;
  GiltOp *before; /* NULL: the end of block */
};

GiltBuilder *gilt_builder_create(GiltContext *ctx)
{
  GiltBuilder *b = gilt_calloc(ctx, 1, sizeof *b);
  b->ctx = ctx;
  return b;
}

void gilt_builder_destroy(GiltBuilder *b)
{
  if (b)
    gilt_free(b->ctx, b);
}

GiltContext *gilt_builder_get_context(GiltBuilder *b) { return b->ctx; }
GiltBlock *gilt_builder_get_insertion_block(GiltBuilder *b) { return b->block; }

void gilt_builder_set_insertion_point_to_start(GiltBuilder *b,
                                               GiltBlock *block)
{
  b->block = block;
  b->before = block->first;
}

void gilt_builder_set_insertion_point_to_end(GiltBuilder *b,
                                             GiltBlock *block)
{
  b->block = block;
  b->before = NULL;
}

void gilt_builder_set_insertion_point_before(GiltBuilder *b, GiltOp *op)
{
  b->block = op->block;
  b->before = op;
}

void gilt_builder_set_insertion_point_after(GiltBuilder *b, GiltOp *op)
{
  b->block = op->block;
  b->before = op->next;
}

void gilt_builder_insert(GiltBuilder *b, GiltOp *op)
{
  GILT_ASSERT(b->block && "builder has no insertion point");
  if (b->before)
    gilt_block_insert_op_before(b->before, op);
  else
    gilt_block_append_op(b->block, op);
}

GiltOp *gilt_builder_create_op(GiltBuilder *b, const GiltOpState *state)
{
  GiltOp *op = gilt_op_create(b->ctx, state);
  if (op)
    gilt_builder_insert(b, op);
  return op;
}
