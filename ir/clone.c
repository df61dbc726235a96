/*
** clone.c - deep copies of ops and regions through a value mapping.
**
** A GiltIRMapping maps values and blocks of the original to their copies;
** operands defined outside the cloned IR map to themselves. The inliner
** seeds the mapping (callee arguments -> call operands) before cloning.
** Successors may refer to blocks cloned later in the same region, so
** regions are cloned in two steps: blocks first, then their ops. Likewise
** a use may precede its definition (graph regions, blocks listed before
** their dominator), so operands are remapped once more after the whole
** copy exists, as MLIR's Region::cloneInto does.
*/
#include "ir/core.h"

#include "ir/support/ptr_map.h"

struct GiltIRMapping {
  GiltPtrMap map; /* original -> copy, stored as uintptr_t */
};

GiltIRMapping *gilt_ir_mapping_create(GiltContext *ctx)
{
  GiltIRMapping *m = gilt_malloc(ctx, sizeof *m);
  gilt_ptr_map_init(&m->map, ctx);
  return m;
}

void gilt_ir_mapping_destroy(GiltIRMapping *m)
{
  if (!m)
    return;
  GiltContext *ctx = m->map.ctx;
  gilt_ptr_map_free(&m->map);
  gilt_free(ctx, m);
}

void gilt_ir_mapping_map(GiltIRMapping *m, const void *from, void *to)
{
  gilt_ptr_map_put(&m->map, from, (size_t)(uintptr_t)to);
}

void *gilt_ir_mapping_lookup(GiltIRMapping *m, const void *from)
{
  size_t to;
  return gilt_ptr_map_get(&m->map, from, &to) ? (void *)(uintptr_t)to
                                              : (void *)(uintptr_t)from;
}

static void clone_region_into(GiltRegion *src, GiltRegion *dst,
                              GiltIRMapping *m);

/* Copies op; operands defined later in the cloned IR are fixed up by
** remap_operands afterwards. */
static GiltOp *clone_op(GiltOp *op, GiltIRMapping *m)
{
  GiltContext *ctx = op->loc->ctx;
  GiltOpBuild b;
  gilt_op_build_init(&b, ctx, op->info, op->loc);
  for (size_t i = 0; i < op->num_operands; i++)
    gilt_vec_push(ctx, &b.operands,
                  gilt_ir_mapping_lookup(m, op->operands[i].value));
  for (size_t i = 0; i < op->num_results; i++)
    gilt_vec_push(ctx, &b.result_types, gilt_op_result_array(op)[i].type);
  for (size_t i = 0; i < op->num_successors; i++)
    gilt_vec_push(
        ctx, &b.successors,
        gilt_ir_mapping_lookup(m, gilt_op_successor_array(op)[i].block));
  for (size_t i = 0; i < op->num_regions; i++)
    gilt_op_build_add_region(&b);
  /* The attribute dictionary is immutable and shared. */
  GiltOp *copy = gilt_op_build_finish(&b);
  GILT_ASSERT(copy);
  copy->attrs = op->attrs;
  for (size_t i = 0; i < op->num_results; i++)
    gilt_ir_mapping_map(m, &gilt_op_result_array(op)[i],
                        &gilt_op_result_array(copy)[i]);
  for (size_t i = 0; i < op->num_regions; i++)
    clone_region_into(&gilt_op_region_array(op)[i],
                      &gilt_op_region_array(copy)[i], m);
  return copy;
}

static void clone_region_into(GiltRegion *src, GiltRegion *dst,
                              GiltIRMapping *m)
{
  GiltContext *ctx = src->ctx;
  for (GiltBlock *b = src->first; b; b = b->next) {
    GiltBlock *nb = gilt_block_create(ctx, 0, NULL, NULL);
    for (size_t i = 0; i < b->num_args; i++) {
      GiltValue *a = b->args[i];
      gilt_ir_mapping_map(m, a, gilt_block_add_argument(nb, a->type, *gilt_block_arg_loc(a)));
    }
    gilt_ir_mapping_map(m, b, nb);
    gilt_region_append_block(dst, nb);
  }
  for (GiltBlock *b = src->first; b; b = b->next) {
    GiltBlock *nb = gilt_ir_mapping_lookup(m, b);
    for (GiltOp *o = b->first; o; o = o->next)
      gilt_block_append_op(nb, clone_op(o, m));
  }
}

static GiltWalkResult remap_operands(GiltOp *op, void *user)
{
  for (size_t i = 0; i < op->num_operands; i++) {
    GiltValue *v = op->operands[i].value;
    GiltValue *image = gilt_ir_mapping_lookup(user, v);
    if (image != v)
      gilt_op_set_operand(op, i, image);
  }
  return GILT_WALK_ADVANCE;
}

GiltOp *gilt_op_clone_with_mapping(GiltOp *op, GiltIRMapping *m)
{
  GiltOp *copy = clone_op(op, m);
  gilt_op_walk(copy, GILT_WALK_PRE_ORDER, remap_operands, m);
  return copy;
}

void gilt_region_clone_into(GiltRegion *src, GiltRegion *dst,
                            GiltIRMapping *m)
{
  GiltBlock *last_before = dst->last;
  clone_region_into(src, dst, m);
  GiltBlock *b = last_before ? last_before->next : dst->first;
  for (; b; b = b->next)
    for (GiltOp *o = b->first; o; o = o->next)
      gilt_op_walk(o, GILT_WALK_PRE_ORDER, remap_operands, m);
}

GiltOp *gilt_op_clone(GiltOp *op)
{
  GiltIRMapping *m = gilt_ir_mapping_create(op->loc->ctx);
  GiltOp *copy = gilt_op_clone_with_mapping(op, m);
  gilt_ir_mapping_destroy(m);
  return copy;
}
