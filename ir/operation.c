/*
** operation.c - operations, blocks, regions and values: creation,
** destruction, linking and use lists.
**
** An op is one allocation holding its results, regions and successor slots;
** its operands live in a separate array because their number may change.
** Every operand is threaded on its value's intrusive use list, so
** replace-all-uses is O(uses). Blocks hold an intrusive list of ops and
** number them lazily for O(1) "is before" queries. Walking and cloning are
** here too; verification, printing and parsing are not.
*/
#include "ir/core.h"

#include <string.h>

#include "ir/context.h"
#include "ir/op_def.h"

/* ---- use lists ------------------------------------------------------------- */

static void use_link(GiltOperand *use, GiltValue *v)
{
  use->value = v;
  use->next_use = v->first_use;
  if (v->first_use)
    v->first_use->prev_next = &use->next_use;
  use->prev_next = &v->first_use;
  v->first_use = use;
}

static void use_unlink(GiltOperand *use)
{
  if (!use->value)
    return;
  *use->prev_next = use->next_use;
  if (use->next_use)
    use->next_use->prev_next = use->prev_next;
  use->value = NULL;
  use->next_use = NULL;
  use->prev_next = NULL;
}

static void block_use_link(GiltBlockOperand *use, GiltBlock *b)
{
  use->block = b;
  use->next_use = b->first_use;
  if (b->first_use)
    b->first_use->prev_next = &use->next_use;
  use->prev_next = &b->first_use;
  b->first_use = use;
}

static void block_use_unlink(GiltBlockOperand *use)
{
  if (!use->block)
    return;
  *use->prev_next = use->next_use;
  if (use->next_use)
    use->next_use->prev_next = use->prev_next;
  use->block = NULL;
  use->next_use = NULL;
  use->prev_next = NULL;
}

/* ---- memory: everything below comes from the context's IR pool ------- */

static size_t op_size(size_t num_results, size_t num_regions,
                      size_t num_successors)
{
  return sizeof(GiltOp) + num_results * sizeof(GiltValue) +
         num_regions * sizeof(GiltRegion) +
         num_successors * sizeof(GiltBlockOperand);
}

static GiltOperand *operands_alloc(GiltContext *ctx, size_t n)
{
  return n ? gilt_pool_alloc(&ctx->ir_pool, n * sizeof(GiltOperand)) : NULL;
}

static void operands_free(GiltContext *ctx, GiltOp *op)
{
  gilt_pool_free(&ctx->ir_pool, op->operands,
                 op->num_operands * sizeof(GiltOperand));
}

static void free_block_memory(GiltContext *ctx, GiltBlock *b)
{
  for (size_t i = 0; i < b->num_args; i++)
    gilt_pool_free(&ctx->ir_pool, b->args[i], sizeof(GiltBlockArg));
  gilt_pool_free(&ctx->ir_pool, b->args, b->cap_args * sizeof *b->args);
  gilt_pool_free(&ctx->ir_pool, b, sizeof *b);
}

/* ---- op creation ------------------------------------------------------------ */

static GiltContext *op_ctx(GiltOp *op) { return op->loc->ctx; }

static void region_init(GiltRegion *r, GiltContext *ctx, GiltOp *op)
{
  r->op = op;
  r->ctx = ctx;
  r->first = r->last = NULL;
}

/* Allocates an op with its results, regions and successor slots. */
static GiltOp *op_alloc(GiltContext *ctx, const GiltOpInfo *info,
                        GiltLocation *loc, size_t num_operands,
                        size_t num_results, size_t num_regions,
                        size_t num_successors)
{
  GILT_ASSERT(num_operands <= UINT32_MAX && num_results <= UINT32_MAX);
  GiltOp *op = gilt_pool_alloc(
      &ctx->ir_pool, op_size(num_results, num_regions, num_successors));
  op->info = info;
  op->loc = loc ? loc : gilt_location_unknown_get(ctx);
  op->attrs = gilt_empty_dictionary_attr_get(ctx);
  op->num_results = (uint32_t)num_results;
  op->num_regions = (uint32_t)num_regions;
  op->num_successors = (uint32_t)num_successors;
  for (size_t i = 0; i < num_results; i++) {
    gilt_op_result_array(op)[i].owner.op = op;
    gilt_op_result_array(op)[i].index = (uint32_t)i;
  }
  for (size_t i = 0; i < num_regions; i++)
    region_init(&gilt_op_region_array(op)[i], ctx, op);
  for (size_t i = 0; i < num_successors; i++)
    gilt_op_successor_array(op)[i].owner = op;
  op->num_operands = (uint32_t)num_operands;
  op->operands = operands_alloc(ctx, num_operands);
  for (size_t i = 0; i < num_operands; i++)
    op->operands[i].owner = op;
  return op;
}

void gilt_op_build_init(GiltOpBuild *b, GiltContext *ctx,
                        const GiltOpInfo *info, GiltLocation *loc)
{
  memset(b, 0, sizeof *b);
  b->ctx = ctx;
  b->info = info;
  b->loc = loc ? loc : gilt_location_unknown_get(ctx);
}

void gilt_op_build_add_attr(GiltOpBuild *b, const char *name, GiltAttr *attr)
{
  GiltNamedAttrI e = {gilt_ident_get_cstr(b->ctx, name), attr};
  gilt_vec_push(b->ctx, &b->attrs, e);
}

GiltRegion *gilt_op_build_add_region(GiltOpBuild *b)
{
  GiltRegion *r = gilt_region_create_detached(b->ctx);
  gilt_vec_push(b->ctx, &b->regions, r);
  return r;
}

/* ---- gilt/dialect.h: the build as hooks outside the tree see it ---------- */

GiltContext *gilt_op_build_get_context(GiltOpBuild *b) { return b->ctx; }

GiltLocation *gilt_op_build_get_location(GiltOpBuild *b) { return b->loc; }

const GiltOpDef *gilt_op_build_get_def(GiltOpBuild *b)
{
  return b->info->def;
}

void gilt_op_build_add_operand(GiltOpBuild *b, GiltValue *v)
{
  gilt_vec_push(b->ctx, &b->operands, v);
}

void gilt_op_build_add_operands(GiltOpBuild *b, size_t n,
                                GiltValue *const *values)
{
  for (size_t i = 0; i < n; i++)
    gilt_op_build_add_operand(b, values[i]);
}

size_t gilt_op_build_get_num_operands(GiltOpBuild *b)
{
  return b->operands.len;
}

GiltValue *gilt_op_build_get_operand(GiltOpBuild *b, size_t i)
{
  GILT_ASSERT(i < b->operands.len);
  return b->operands.data[i];
}

void gilt_op_build_add_result_type(GiltOpBuild *b, GiltType *t)
{
  gilt_vec_push(b->ctx, &b->result_types, t);
}

size_t gilt_op_build_get_num_result_types(GiltOpBuild *b)
{
  return b->result_types.len;
}

GiltType *gilt_op_build_get_result_type(GiltOpBuild *b, size_t i)
{
  GILT_ASSERT(i < b->result_types.len);
  return b->result_types.data[i];
}

void gilt_op_build_set_infer_result_types(GiltOpBuild *b, bool infer)
{
  b->infer_result_types = infer;
}

GiltAttr *gilt_op_build_get_attr(GiltOpBuild *b, const char *name)
{
  for (size_t i = 0; i < b->attrs.len; i++)
    if (strcmp(b->attrs.data[i].name->str, name) == 0)
      return b->attrs.data[i].attr;
  return NULL;
}

size_t gilt_op_build_get_num_regions(GiltOpBuild *b)
{
  return b->regions.len;
}

GiltRegion *gilt_op_build_get_region(GiltOpBuild *b, size_t i)
{
  GILT_ASSERT(i < b->regions.len);
  return b->regions.data[i];
}

void gilt_op_build_discard(GiltOpBuild *b)
{
  for (size_t i = 0; i < b->regions.len; i++)
    gilt_region_destroy_detached(b->regions.data[i]);
  gilt_vec_free(b->ctx, &b->operands);
  gilt_vec_free(b->ctx, &b->result_types);
  gilt_vec_free(b->ctx, &b->attrs);
  gilt_vec_free(b->ctx, &b->regions);
  gilt_vec_free(b->ctx, &b->successors);
}

GiltOp *gilt_op_build_finish(GiltOpBuild *b)
{
  GiltContext *ctx = b->ctx;
  if (b->infer_result_types) {
    const GiltOpDef *def = b->info->def;
    if (!def || !def->infer_result_types) {
      gilt_emit_error(b->loc, "'%s' op cannot infer its result types",
                      b->info->name->str);
      gilt_op_build_discard(b);
      return NULL;
    }
    b->result_types.len = 0;
    if (def->infer_result_types(b) != GILT_SUCCESS) {
      gilt_op_build_discard(b);
      return NULL;
    }
  }
  GiltIdent *dup = NULL;
  GiltAttr *dict = gilt_dictionary_attr_get_i(ctx, b->attrs.len,
                                              b->attrs.data, &dup);
  if (!dict) {
    gilt_emit_error(b->loc, "attribute '%s' occurs more than once",
                    dup->str);
    gilt_op_build_discard(b);
    return NULL;
  }
  GiltOp *op = op_alloc(ctx, b->info, b->loc, b->operands.len,
                        b->result_types.len, b->regions.len,
                        b->successors.len);
  op->attrs = dict;
  for (size_t i = 0; i < b->operands.len; i++)
    use_link(&op->operands[i], b->operands.data[i]);
  for (size_t i = 0; i < b->result_types.len; i++)
    gilt_op_result_array(op)[i].type = b->result_types.data[i];
  for (size_t i = 0; i < b->regions.len; i++)
    gilt_region_take_body(&gilt_op_region_array(op)[i], b->regions.data[i]);
  for (size_t i = 0; i < b->successors.len; i++)
    block_use_link(&gilt_op_successor_array(op)[i], b->successors.data[i]);
  gilt_op_build_discard(b);
  return op;
}

GiltOpState gilt_op_state_get(const char *name, GiltLocation *loc)
{
  GiltOpState st;
  memset(&st, 0, sizeof st);
  st.name = name;
  st.loc = loc;
  return st;
}

GiltOp *gilt_op_create(GiltContext *ctx, const GiltOpState *st)
{
  GiltLocation *loc = st->loc ? st->loc : gilt_location_unknown_get(ctx);
  const GiltOpInfo *info =
      gilt_context_get_op_info(ctx, st->name, strlen(st->name), loc);
  if (!info)
    return NULL;
  GiltOpBuild b;
  gilt_op_build_init(&b, ctx, info, loc);
  for (size_t i = 0; i < st->num_operands; i++)
    gilt_vec_push(ctx, &b.operands, st->operands[i]);
  b.infer_result_types = st->infer_result_types;
  if (!st->infer_result_types)
    for (size_t i = 0; i < st->num_results; i++)
      gilt_vec_push(ctx, &b.result_types, st->result_types[i]);
  for (size_t i = 0; i < st->num_attrs; i++)
    gilt_op_build_add_attr(&b, st->attrs[i].name, st->attrs[i].attr);
  for (size_t i = 0; i < st->num_regions; i++)
    gilt_op_build_add_region(&b);
  for (size_t i = 0; i < st->num_successors; i++)
    gilt_vec_push(ctx, &b.successors, st->successors[i]);
  return gilt_op_build_finish(&b);
}

/* ---- op destruction and linking ---------------------------------------------- */

static void block_unlink_op(GiltOp *op)
{
  GiltBlock *b = op->block;
  if (!b)
    return;
  if (op->prev)
    op->prev->next = op->next;
  else
    b->first = op->next;
  if (op->next)
    op->next->prev = op->prev;
  else
    b->last = op->prev;
  op->prev = op->next = NULL;
  op->block = NULL;
}

void gilt_op_drop_all_references(GiltOp *op)
{
  for (size_t i = 0; i < op->num_operands; i++)
    use_unlink(&op->operands[i]);
  for (size_t i = 0; i < op->num_successors; i++)
    block_use_unlink(&gilt_op_successor_array(op)[i]);
  for (size_t r = 0; r < op->num_regions; r++)
    for (GiltBlock *b = gilt_op_region_array(op)[r].first; b; b = b->next)
      for (GiltOp *o = b->first; o; o = o->next)
        gilt_op_drop_all_references(o);
}

/* Frees an op whose nested IR no longer references anything. */
static void op_free(GiltOp *op)
{
  GiltContext *ctx = op_ctx(op);
  for (size_t r = 0; r < op->num_regions; r++)
    gilt_region_clear(&gilt_op_region_array(op)[r]);
  for (size_t i = 0; i < op->num_operands; i++)
    use_unlink(&op->operands[i]);
  for (size_t i = 0; i < op->num_successors; i++)
    block_use_unlink(&gilt_op_successor_array(op)[i]);
  for (size_t i = 0; i < op->num_results; i++)
    GILT_ASSERT(!gilt_op_result_array(op)[i].first_use &&
                "destroying an op still in use");
  operands_free(ctx, op);
  gilt_pool_free(&ctx->ir_pool, op,
                 op_size(op->num_results, op->num_regions,
                         op->num_successors));
}

void gilt_op_destroy(GiltOp *op)
{
  block_unlink_op(op);
  op_free(op);
}

void gilt_op_remove_from_parent(GiltOp *op) { block_unlink_op(op); }

static void block_link_op(GiltBlock *b, GiltOp *prev, GiltOp *op)
{
  GILT_ASSERT(!op->block && "op is already in a block");
  op->block = b;
  op->prev = prev;
  op->next = prev ? prev->next : b->first;
  if (op->next)
    op->next->prev = op;
  else
    b->last = op;
  if (prev)
    prev->next = op;
  else
    b->first = op;
  /* Appending keeps the numbering valid; anything else renumbers later. */
  if (b->order_valid) {
    if (!op->next)
      op->order = prev ? prev->order + 1 : 0;
    else
      b->order_valid = false;
  }
}

void gilt_block_append_op(GiltBlock *block, GiltOp *op)
{
  block_link_op(block, block->last, op);
}

void gilt_block_insert_op_before(GiltOp *before, GiltOp *op)
{
  block_link_op(before->block, before->prev, op);
}

void gilt_block_insert_op_after(GiltOp *after, GiltOp *op)
{
  block_link_op(after->block, after, op);
}

void gilt_op_move_before(GiltOp *op, GiltOp *before)
{
  block_unlink_op(op);
  gilt_block_insert_op_before(before, op);
}

void gilt_op_move_after(GiltOp *op, GiltOp *after)
{
  block_unlink_op(op);
  gilt_block_insert_op_after(after, op);
}

bool gilt_op_is_before_in_block(GiltOp *a, GiltOp *b)
{
  GiltBlock *blk = a->block;
  GILT_ASSERT(blk && blk == b->block);
  if (!blk->order_valid) {
    uint32_t n = 0;
    for (GiltOp *o = blk->first; o; o = o->next)
      o->order = n++;
    blk->order_valid = true;
  }
  return a->order < b->order;
}

/* ---- op accessors ----------------------------------------------------------- */

GiltContext *gilt_op_get_context(GiltOp *op) { return op_ctx(op); }
const char *gilt_op_get_name(GiltOp *op) { return op->info->name->str; }
bool gilt_op_is_registered(GiltOp *op) { return op->info->def != NULL; }
const GiltOpDef *gilt_op_get_def(GiltOp *op) { return op->info->def; }
GiltLocation *gilt_op_get_location(GiltOp *op) { return op->loc; }
void gilt_op_set_location(GiltOp *op, GiltLocation *loc) { op->loc = loc; }
GiltBlock *gilt_op_get_block(GiltOp *op) { return op->block; }
GiltOp *gilt_op_get_next(GiltOp *op) { return op->next; }
GiltOp *gilt_op_get_prev(GiltOp *op) { return op->prev; }
size_t gilt_op_get_num_operands(GiltOp *op) { return op->num_operands; }
size_t gilt_op_get_num_results(GiltOp *op) { return op->num_results; }
size_t gilt_op_get_num_regions(GiltOp *op) { return op->num_regions; }
size_t gilt_op_get_num_successors(GiltOp *op) { return op->num_successors; }
GiltAttr *gilt_op_get_attr_dictionary(GiltOp *op) { return op->attrs; }

GiltOp *gilt_op_get_parent_op(GiltOp *op)
{
  return op->block ? gilt_block_get_parent_op(op->block) : NULL;
}

GiltValue *gilt_op_get_operand(GiltOp *op, size_t i)
{
  GILT_ASSERT(i < op->num_operands);
  return op->operands[i].value;
}

void gilt_op_set_operand(GiltOp *op, size_t i, GiltValue *v)
{
  GILT_ASSERT(i < op->num_operands);
  use_unlink(&op->operands[i]);
  use_link(&op->operands[i], v);
}

void gilt_op_set_operands(GiltOp *op, size_t n, GiltValue *const *values)
{
  GiltContext *ctx = op_ctx(op);
  for (size_t i = 0; i < op->num_operands; i++)
    use_unlink(&op->operands[i]);
  if (n != op->num_operands) {
    GILT_ASSERT(n <= UINT32_MAX);
    operands_free(ctx, op);
    op->operands = operands_alloc(ctx, n);
    op->num_operands = (uint32_t)n;
  }
  for (size_t i = 0; i < n; i++) {
    op->operands[i].owner = op;
    use_link(&op->operands[i], values[i]);
  }
}

GiltValue *gilt_op_get_result(GiltOp *op, size_t i)
{
  GILT_ASSERT(i < op->num_results);
  return &gilt_op_result_array(op)[i];
}

GiltRegion *gilt_op_get_region(GiltOp *op, size_t i)
{
  GILT_ASSERT(i < op->num_regions);
  return &gilt_op_region_array(op)[i];
}

GiltBlock *gilt_op_get_successor(GiltOp *op, size_t i)
{
  GILT_ASSERT(i < op->num_successors);
  return gilt_op_successor_array(op)[i].block;
}

void gilt_op_set_successor(GiltOp *op, size_t i, GiltBlock *block)
{
  GILT_ASSERT(i < op->num_successors);
  block_use_unlink(&gilt_op_successor_array(op)[i]);
  block_use_link(&gilt_op_successor_array(op)[i], block);
}

GiltAttr *gilt_op_get_attr(GiltOp *op, const char *name)
{
  return gilt_dictionary_attr_lookup(op->attrs, name);
}

void gilt_op_set_attr(GiltOp *op, const char *name, GiltAttr *attr)
{
  GiltContext *ctx = op_ctx(op);
  GiltIdent *id = gilt_ident_get_cstr(ctx, name);
  size_t n = op->attrs->dict.n;
  GiltNamedAttrI *e = gilt_malloc(ctx, (n + 1) * sizeof *e);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (op->attrs->dict.entries[i].name != id)
      e[k++] = op->attrs->dict.entries[i];
  e[k].name = id;
  e[k].attr = attr;
  op->attrs = gilt_dictionary_attr_get_i(ctx, k + 1, e, NULL);
  gilt_free(ctx, e);
}

bool gilt_op_remove_attr(GiltOp *op, const char *name)
{
  GiltContext *ctx = op_ctx(op);
  GiltIdent *id = gilt_ident_get_cstr(ctx, name);
  size_t n = op->attrs->dict.n;
  const GiltNamedAttrI *old = op->attrs->dict.entries;
  for (size_t i = 0; i < n; i++) {
    if (old[i].name != id)
      continue;
    GiltNamedAttrI *e = gilt_malloc(ctx, n * sizeof *e);
    memcpy(e, old, i * sizeof *e);
    memcpy(e + i, old + i + 1, (n - i - 1) * sizeof *e);
    op->attrs = gilt_dictionary_attr_get_sorted(ctx, n - 1, e);
    gilt_free(ctx, e);
    return true;
  }
  return false;
}

bool gilt_op_has_trait(GiltOp *op, unsigned traits)
{
  return op->info->def && (op->info->def->traits & traits) == traits;
}

bool gilt_op_is_ancestor(GiltOp *ancestor, GiltOp *op)
{
  for (; op; op = gilt_op_get_parent_op(op))
    if (op == ancestor)
      return true;
  return false;
}

GiltOp *gilt_block_find_ancestor_op(GiltBlock *block, GiltOp *op)
{
  for (; op; op = gilt_op_get_parent_op(op))
    if (op->block == block)
      return op;
  return NULL;
}

/* ---- walking ---------------------------------------------------------------- */

GiltWalkResult gilt_op_walk(GiltOp *op, GiltWalkOrder order, GiltWalkFn fn,
                            void *user)
{
  if (order == GILT_WALK_PRE_ORDER) {
    GiltWalkResult r = fn(op, user);
    if (r != GILT_WALK_ADVANCE)
      return r == GILT_WALK_SKIP ? GILT_WALK_ADVANCE : r;
  }
  for (size_t i = 0; i < op->num_regions; i++) {
    for (GiltBlock *b = gilt_op_region_array(op)[i].first; b; b = b->next) {
      /* Fetch next first: a post-order callback may erase the op. */
      for (GiltOp *o = b->first, *next; o; o = next) {
        next = o->next;
        if (gilt_op_walk(o, order, fn, user) == GILT_WALK_INTERRUPT)
          return GILT_WALK_INTERRUPT;
      }
    }
  }
  if (order == GILT_WALK_POST_ORDER)
    return fn(op, user) == GILT_WALK_INTERRUPT ? GILT_WALK_INTERRUPT
                                               : GILT_WALK_ADVANCE;
  return GILT_WALK_ADVANCE;
}

/* ---- values -------------------------------------------------------------------- */

GiltType *gilt_value_get_type(GiltValue *v) { return v->type; }
void gilt_value_set_type(GiltValue *v, GiltType *type) { v->type = type; }
bool gilt_value_is_block_argument(GiltValue *v) { return v->is_block_arg; }
size_t gilt_value_get_index(GiltValue *v) { return v->index; }
bool gilt_value_has_uses(GiltValue *v) { return v->first_use != NULL; }
GiltOperand *gilt_value_get_first_use(GiltValue *v) { return v->first_use; }
GiltOperand *gilt_operand_get_next_use(GiltOperand *u) { return u->next_use; }
GiltOp *gilt_operand_get_owner(GiltOperand *u) { return u->owner; }
size_t gilt_operand_get_index(GiltOperand *u)
{
  return (size_t)(u - u->owner->operands);
}

GiltOp *gilt_value_get_defining_op(GiltValue *v)
{
  return v->is_block_arg ? NULL : v->owner.op;
}

GiltBlock *gilt_value_get_parent_block(GiltValue *v)
{
  return v->is_block_arg ? v->owner.block : v->owner.op->block;
}

size_t gilt_value_get_num_uses(GiltValue *v)
{
  size_t n = 0;
  for (GiltOperand *u = v->first_use; u; u = u->next_use)
    n++;
  return n;
}

void gilt_value_replace_all_uses_with(GiltValue *from, GiltValue *to)
{
  if (from == to)
    return;
  while (from->first_use) {
    GiltOperand *u = from->first_use;
    use_unlink(u);
    use_link(u, to);
  }
}

void gilt_op_replace_all_uses_with(GiltOp *op, GiltValue *const *values)
{
  for (size_t i = 0; i < op->num_results; i++)
    gilt_value_replace_all_uses_with(&gilt_op_result_array(op)[i], values[i]);
}

/* ---- blocks --------------------------------------------------------------------- */

GiltBlock *gilt_block_create(GiltContext *ctx, size_t num_args,
                             GiltType *const *arg_types,
                             GiltLocation *const *arg_locs)
{
  GiltBlock *b = gilt_pool_alloc(&ctx->ir_pool, sizeof *b);
  b->ctx = ctx;
  b->order_valid = true;
  for (size_t i = 0; i < num_args; i++)
    gilt_block_add_argument(b, arg_types[i], arg_locs ? arg_locs[i] : NULL);
  return b;
}

static void block_free(GiltBlock *b)
{
  for (GiltOp *op = b->first, *next; op; op = next) {
    next = op->next;
    op->block = NULL;
    op_free(op);
  }
  for (size_t i = 0; i < b->num_args; i++)
    GILT_ASSERT(!b->args[i]->first_use && "destroying a block still in use");
  while (b->first_use)
    block_use_unlink(b->first_use);
  free_block_memory(b->ctx, b);
}

void gilt_block_destroy(GiltBlock *block)
{
  if (block->region)
    gilt_block_remove_from_parent(block);
  for (GiltOp *op = block->first; op; op = op->next)
    gilt_op_drop_all_references(op);
  block_free(block);
}

GiltValue *gilt_block_add_argument(GiltBlock *block, GiltType *type,
                                   GiltLocation *loc)
{
  GiltContext *ctx = block->ctx;
  if (block->num_args == block->cap_args) {
    size_t cap = block->cap_args ? block->cap_args * 2 : 4;
    GiltValue **args = gilt_pool_alloc(&ctx->ir_pool, cap * sizeof *args);
    if (block->num_args)
      memcpy(args, block->args, block->num_args * sizeof *args);
    gilt_pool_free(&ctx->ir_pool, block->args,
                   block->cap_args * sizeof *block->args);
    block->args = args;
    block->cap_args = cap;
  }
  GiltBlockArg *arg = gilt_pool_alloc(&ctx->ir_pool, sizeof *arg);
  GiltValue *v = &arg->value;
  v->type = type;
  v->owner.block = block;
  v->is_block_arg = true;
  v->index = (uint32_t)block->num_args;
  arg->loc = loc ? loc : gilt_location_unknown_get(ctx);
  block->args[block->num_args++] = v;
  return v;
}

void gilt_block_erase_argument(GiltBlock *block, size_t i)
{
  GILT_ASSERT(i < block->num_args && !block->args[i]->first_use);
  gilt_pool_free(&block->ctx->ir_pool, block->args[i], sizeof(GiltBlockArg));
  for (size_t j = i + 1; j < block->num_args; j++) {
    block->args[j - 1] = block->args[j];
    block->args[j - 1]->index = (uint32_t)(j - 1);
  }
  block->num_args--;
}

size_t gilt_block_get_num_arguments(GiltBlock *b) { return b->num_args; }
GiltOp *gilt_block_get_first_op(GiltBlock *b) { return b->first; }
GiltOp *gilt_block_get_last_op(GiltBlock *b) { return b->last; }
GiltRegion *gilt_block_get_parent(GiltBlock *b) { return b->region; }
GiltBlock *gilt_block_get_next(GiltBlock *b) { return b->next; }

GiltValue *gilt_block_get_argument(GiltBlock *b, size_t i)
{
  GILT_ASSERT(i < b->num_args);
  return b->args[i];
}

GiltOp *gilt_block_get_terminator(GiltBlock *b)
{
  return b->last && gilt_op_has_trait(b->last, GILT_TRAIT_TERMINATOR)
             ? b->last
             : NULL;
}

GiltOp *gilt_block_get_parent_op(GiltBlock *b)
{
  return b->region ? b->region->op : NULL;
}

/* ---- regions --------------------------------------------------------------------- */

size_t gilt_region_get_num_blocks(GiltRegion *r)
{
  size_t n = 0;
  for (GiltBlock *b = r->first; b; b = b->next)
    n++;
  return n;
}

GiltBlock *gilt_region_get_first_block(GiltRegion *r) { return r->first; }
GiltOp *gilt_region_get_parent_op(GiltRegion *r) { return r->op; }

static void region_link_block(GiltRegion *r, GiltBlock *prev, GiltBlock *b)
{
  GILT_ASSERT(!b->region && "block is already in a region");
  b->region = r;
  b->prev = prev;
  b->next = prev ? prev->next : r->first;
  if (b->next)
    b->next->prev = b;
  else
    r->last = b;
  if (prev)
    prev->next = b;
  else
    r->first = b;
}

void gilt_region_append_block(GiltRegion *r, GiltBlock *b)
{
  region_link_block(r, r->last, b);
}

void gilt_region_insert_block_before(GiltBlock *before, GiltBlock *b)
{
  region_link_block(before->region, before->prev, b);
}

void gilt_block_remove_from_parent(GiltBlock *b)
{
  GiltRegion *r = b->region;
  if (!r)
    return;
  if (b->prev)
    b->prev->next = b->next;
  else
    r->first = b->next;
  if (b->next)
    b->next->prev = b->prev;
  else
    r->last = b->prev;
  b->prev = b->next = NULL;
  b->region = NULL;
}

GiltRegion *gilt_region_create_detached(GiltContext *ctx)
{
  GiltRegion *r = gilt_malloc(ctx, sizeof *r);
  region_init(r, ctx, NULL);
  return r;
}

void gilt_region_destroy_detached(GiltRegion *r)
{
  gilt_region_clear(r);
  gilt_free(r->ctx, r);
}

void gilt_region_take_body(GiltRegion *dst, GiltRegion *src)
{
  while (src->first) {
    GiltBlock *b = src->first;
    gilt_block_remove_from_parent(b);
    gilt_region_append_block(dst, b);
  }
}

void gilt_region_clear(GiltRegion *r)
{
  for (GiltBlock *b = r->first; b; b = b->next)
    for (GiltOp *op = b->first; op; op = op->next)
      gilt_op_drop_all_references(op);
  while (r->first) {
    GiltBlock *b = r->first;
    gilt_block_remove_from_parent(b);
    block_free(b);
  }
}
