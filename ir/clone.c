/*
** clone.c - deep copies of ops and regions through a value mapping.
**
** A GiltIRMapping maps values and blocks of the original to their copies;
** operands defined outside the cloned IR map to themselves. The inliner
** seeds the mapping (callee arguments -> call operands) before cloning.
** Successors may refer to blocks cloned later in the same region, so
** regions are cloned in two steps: blocks first, then their ops.
*/
#include "ir/core.h"

#include <string.h>

#include "ir/context.h"

struct GiltIRMapping {
  GiltContext *ctx;
  const void **keys;
  void **values;
  size_t cap, len; /* power-of-two open addressing */
};

GiltIRMapping *gilt_ir_mapping_create(GiltContext *ctx)
{
  GiltIRMapping *m = gilt_calloc(ctx, 1, sizeof *m);
  m->ctx = ctx;
  return m;
}

void gilt_ir_mapping_destroy(GiltIRMapping *m)
{
  if (!m)
    return;
  gilt_free(m->ctx, m->keys);
  gilt_free(m->ctx, m->values);
  gilt_free(m->ctx, m);
}

static size_t slot_of(const GiltIRMapping *m, const void *key)
{
  size_t mask = m->cap - 1;
  size_t i = gilt_hash_ptr(GILT_HASH_SEED, key) & mask;
  while (m->keys[i] && m->keys[i] != key)
    i = (i + 1) & mask;
  return i;
}

void gilt_ir_mapping_map(GiltIRMapping *m, const void *from, void *to)
{
  if ((m->len + 1) * 2 > m->cap) {
    GiltIRMapping old = *m;
    m->cap = old.cap ? old.cap * 2 : 32;
    m->keys = gilt_calloc(m->ctx, m->cap, sizeof *m->keys);
    m->values = gilt_calloc(m->ctx, m->cap, sizeof *m->values);
    for (size_t i = 0; i < old.cap; i++) {
      if (old.keys[i]) {
        size_t j = slot_of(m, old.keys[i]);
        m->keys[j] = old.keys[i];
        m->values[j] = old.values[i];
      }
    }
    gilt_free(m->ctx, old.keys);
    gilt_free(m->ctx, old.values);
  }
  size_t i = slot_of(m, from);
  if (!m->keys[i])
    m->len++;
  m->keys[i] = from;
  m->values[i] = to;
}

void *gilt_ir_mapping_lookup(GiltIRMapping *m, const void *from)
{
  if (!m->cap)
    return (void *)from;
  size_t i = slot_of(m, from);
  return m->keys[i] ? m->values[i] : (void *)from;
}

GiltOp *gilt_op_clone_with_mapping(GiltOp *op, GiltIRMapping *m)
{
  GiltContext *ctx = op->loc->ctx;
  GiltOpBuild b;
  gilt_op_build_init(&b, ctx, op->info, op->loc);
  for (size_t i = 0; i < op->num_operands; i++)
    gilt_vec_push(ctx, &b.operands,
                  gilt_ir_mapping_lookup(m, op->operands[i].value));
  for (size_t i = 0; i < op->num_results; i++)
    gilt_vec_push(ctx, &b.result_types, op->results[i].type);
  for (size_t i = 0; i < op->num_successors; i++)
    gilt_vec_push(ctx, &b.successors,
                  gilt_ir_mapping_lookup(m, op->successors[i].block));
  for (size_t i = 0; i < op->num_regions; i++)
    gilt_op_build_add_region(&b);
  /* The attribute dictionary is immutable and shared. */
  GiltOp *copy = gilt_op_build_finish(&b);
  GILT_ASSERT(copy);
  copy->attrs = op->attrs;
  for (size_t i = 0; i < op->num_results; i++)
    gilt_ir_mapping_map(m, &op->results[i], &copy->results[i]);
  for (size_t i = 0; i < op->num_regions; i++)
    gilt_region_clone_into(&op->regions[i], &copy->regions[i], m);
  return copy;
}

void gilt_region_clone_into(GiltRegion *src, GiltRegion *dst,
                            GiltIRMapping *m)
{
  GiltContext *ctx = src->ctx;
  for (GiltBlock *b = src->first; b; b = b->next) {
    GiltBlock *nb = gilt_block_create(ctx, 0, NULL, NULL);
    for (size_t i = 0; i < b->num_args; i++) {
      GiltValue *a = b->args[i];
      gilt_ir_mapping_map(m, a, gilt_block_add_argument(nb, a->type, a->loc));
    }
    gilt_ir_mapping_map(m, b, nb);
    gilt_region_append_block(dst, nb);
  }
  for (GiltBlock *b = src->first; b; b = b->next) {
    GiltBlock *nb = gilt_ir_mapping_lookup(m, b);
    for (GiltOp *o = b->first; o; o = o->next)
      gilt_block_append_op(nb, gilt_op_clone_with_mapping(o, m));
  }
}

GiltOp *gilt_op_clone(GiltOp *op)
{
  GiltIRMapping *m = gilt_ir_mapping_create(op->loc->ctx);
  GiltOp *copy = gilt_op_clone_with_mapping(op, m);
  gilt_ir_mapping_destroy(m);
  return copy;
}
