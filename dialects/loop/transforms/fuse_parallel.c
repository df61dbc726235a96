/*
** fuse_parallel.c - `loop-fuse-parallel`: two loop.parallel nests side by
** side over the same iteration space, the second reading what the first
** wrote only at its own iteration's indices, become one nest, and the
** value the second loaded is the one the first stored (MLIR's
** scf-parallel-loop-fusion, then store-to-load forwarding). graph-to-loop
** lowers each elementwise op to its own nest over its outputs, so that a
** chain (an Add, a Mul, a Tanh) went over memory once per op; fused, it
** goes once, and an intermediate buffer that nothing else reads is gone.
**
** Nests P1 and P2 of one block fuse when:
** - P2 follows P1 with nothing between them but ops without memory
**   effects and loop.allocs (which move up before P1);
** - they have the same bounds and steps (the same values, or equal
**   constants) and the same attributes (a GPU mapping, say);
** - everything either does to memory is known (gilt/interfaces.h), and
**   P2 writes nothing P1 touches;
** - each buffer P1 writes and P2 reads is an identity-layout buffer of
**   the nest's rank that P1 stores to once, in its body's top level, at
**   its own indices, and P2 reads only by loads of the same type at its
**   own: (i, j, ...) its induction variables in order, the last times
**   the lanes for a vector load or store (unmasked), and 0 in a
**   dimension that runs over 0 alone (own_index).
** Buffers are compared through the views they are made from; buffers of
** the function's arguments may be one another, so P2 writing one and P1
** touching another is a dependence too. P2's body then runs after P1's
** in each iteration, its loads of those buffers replaced by the stored
** values, and P1's location becomes the list of both nests' (the ops
** they came from), with a remark of category "fusion" at P2's. A buffer
** left with only its allocation and stores (and nothing else: no view,
** no free) is dropped with them.
**
** Runs before loop-buffer-deallocation, on each function. Statistics:
** num-fused, num-buffers-dropped.
*/
#include "dialects/loop/transforms/passes.h"

#include "dialects/loop/loop.h"
#include "gilt/interfaces.h"
#include "gilt/remarks.h"
#include "ir/core.h"

typedef GILT_VEC(GiltValue *) ValueList;
typedef GILT_VEC(GiltOp *) OpList;

/* The buffer v is a view of, through every view op; v itself when it is
** none. */
static GiltValue *buffer_of(GiltValue *v)
{
  for (GiltOp *def = gilt_value_get_defining_op(v);
       def && loop_op_is_view(def); def = gilt_value_get_defining_op(v))
    v = gilt_op_get_operand(def, 0);
  return v;
}

/* Whether v is defined inside op (its regions), where no other op sees
** it. */
static bool defined_inside(GiltValue *v, GiltOp *op)
{
  GiltBlock *b = gilt_value_get_parent_block(v);
  for (GiltOp *p = b ? gilt_block_get_parent_op(b) : NULL; p;
       p = gilt_op_get_parent_op(p))
    if (p == op)
      return true;
  return false;
}

/* Whether buffers a and b may be one memory: views of one buffer, or of
** two of the function's arguments. */
static bool may_alias(GiltValue *a, GiltValue *b)
{
  a = buffer_of(a);
  b = buffer_of(b);
  return a == b ||
         (!gilt_value_get_defining_op(a) && !gilt_value_get_defining_op(b));
}

/* The buffers (as the ops name them: views too) that nest op reads
** (writes: `writes`) outside itself into *out; false when its effects
** are not known. */
static bool touched(GiltContext *ctx, GiltOp *op, bool writes, ValueList *out)
{
  size_t n;
  if (!gilt_op_get_memory_effects(op, NULL, 0, &n))
    return false;
  GiltMemoryEffect *e = gilt_calloc(ctx, n ? n : 1, sizeof *e);
  gilt_op_get_memory_effects(op, e, n, &n);
  bool known = true;
  for (size_t i = 0; i < n && known; i++) {
    if (!e[i].value) { /* on unknown memory */
      known = false;
      continue;
    }
    if (defined_inside(e[i].value, op))
      continue;
    bool write = e[i].kind != GILT_EFFECT_READ;
    if (write == writes)
      gilt_vec_push(ctx, out, e[i].value);
  }
  gilt_free(ctx, e);
  return known;
}

static bool any_alias(const ValueList *a, const ValueList *b)
{
  for (size_t i = 0; i < a->len; i++)
    for (size_t j = 0; j < b->len; j++)
      if (may_alias(a->data[i], b->data[j]))
        return true;
  return false;
}

/* Whether a and b are the same index: one value, or equal constants. */
static bool same_index(GiltValue *a, GiltValue *b)
{
  int64_t x, y;
  return a == b ||
         (loop_constant_int(a, &x) && loop_constant_int(b, &y) && x == y);
}

/* Whether nests p1 and p2 have the same bounds, steps and attributes. */
static bool same_space(GiltOp *p1, GiltOp *p2)
{
  size_t n = gilt_op_get_num_operands(p1);
  if (n != gilt_op_get_num_operands(p2) ||
      gilt_op_get_attr_dictionary(p1) != gilt_op_get_attr_dictionary(p2))
    return false;
  for (size_t i = 0; i < n; i++)
    if (!same_index(gilt_op_get_operand(p1, i), gilt_op_get_operand(p2, i)))
      return false;
  return true;
}

/* Which operand of its op use u is. */
static size_t operand_index(const GiltOperand *u)
{
  return (size_t)(u - u->owner->operands);
}

static GiltBlock *body_of(GiltOp *par)
{
  return gilt_region_get_first_block(gilt_op_get_region(par, 0));
}

/* Whether op is a load or store of whole elements or of whole vectors
** (loop.load, loop.store, loop.vector_load, loop.vector_store: no mask),
** and which of the two kinds. */
static bool is_load(GiltOp *op)
{
  return loop_op_is(op, LOOP_OP_LOAD) || loop_op_is(op, LOOP_OP_VECTOR_LOAD);
}

static bool is_store(GiltOp *op)
{
  return loop_op_is(op, LOOP_OP_STORE) ||
         loop_op_is(op, LOOP_OP_VECTOR_STORE);
}

/* Whether `index`, in dimension d of an access of `lanes` elements in
** nest `par`, is that iteration's own: the induction variable d; in the
** last dimension of a vector access, that variable times the lanes (a
** nest over N / lanes vectors, as graph-to-loop's elementwise ops by
** lanes go); or 0 where dimension d runs over 0 alone (a broadcast
** operand's index of a dimension of size 1). */
static bool own_index(GiltValue *index, GiltOp *par, size_t d, bool last,
                      int64_t lanes)
{
  GiltValue *iv = gilt_block_get_argument(body_of(par), d);
  GiltOp *def = gilt_value_get_defining_op(index);
  int64_t c, lo, hi, step;
  size_t rank = gilt_block_get_num_arguments(body_of(par));
  if (lanes > 1 && last)
    return def && loop_op_is(def, LOOP_OP_MULI) &&
           ((gilt_op_get_operand(def, 0) == iv &&
             loop_constant_int(gilt_op_get_operand(def, 1), &c)) ||
            (gilt_op_get_operand(def, 1) == iv &&
             loop_constant_int(gilt_op_get_operand(def, 0), &c))) &&
           c == lanes;
  if (index == iv)
    return true;
  return loop_constant_int(index, &c) && c == 0 &&
         loop_constant_int(gilt_op_get_operand(par, d), &lo) &&
         loop_constant_int(gilt_op_get_operand(par, rank + d), &hi) &&
         loop_constant_int(gilt_op_get_operand(par, 2 * rank + d), &step) &&
         lo == 0 && hi == 1 && step == 1;
}

/* The elements one access (is_load or is_store) moves: its vector's
** lanes, or 1. */
static int64_t access_lanes(GiltOp *access)
{
  GiltType *t = gilt_value_get_type(
      is_load(access) ? gilt_op_get_result(access, 0)
                      : gilt_op_get_operand(access, 0));
  return gilt_type_get_kind(t) == GILT_TYPE_VECTOR
             ? t->shaped.shape[0]
             : 1;
}

/* Whether access op (is_load or is_store) of `memref` indexes it at the
** nest `par`'s own indices (own_index), the whole buffer. */
static bool at_own_indices(GiltOp *access, size_t first_index, GiltOp *par)
{
  GiltBlock *body = body_of(par);
  size_t rank = gilt_block_get_num_arguments(body);
  GiltValue *memref = gilt_op_get_operand(access, first_index - 1);
  GiltType *t = gilt_value_get_type(memref);
  if (gilt_op_get_num_operands(access) != first_index + rank ||
      gilt_shaped_type_get_rank(t) != rank || gilt_memref_type_get_layout(t))
    return false;
  int64_t lanes = access_lanes(access);
  for (size_t d = 0; d < rank; d++)
    if (!own_index(gilt_op_get_operand(access, first_index + d), par, d,
                   d + 1 == rank, lanes))
      return false;
  return true;
}

/* The one store of P1's top level to `buffer`, at its own indices; NULL
** when there is none, more, or one elsewhere in P1. */
static GiltOp *sole_store(GiltOp *p1, GiltValue *buffer)
{
  GiltOp *found = NULL;
  for (GiltOperand *u = gilt_value_get_first_use(buffer); u; u = u->next_use) {
    GiltOp *owner = u->owner;
    if (!gilt_op_is_ancestor(p1, owner))
      continue;
    if (found || !is_store(owner) ||
        gilt_op_get_parent_op(owner) != p1 || operand_index(u) != 1 ||
        !at_own_indices(owner, 2, p1))
      return NULL;
    found = owner;
  }
  return found;
}

/* Whether every use of `buffer` inside P2 is a load at P2's own indices
** of what `store` (P1's) stores: the same type, element or vector. */
static bool loaded_at_own_indices(GiltOp *p2, GiltValue *buffer,
                                  GiltOp *store)
{
  GiltType *stored = gilt_value_get_type(gilt_op_get_operand(store, 0));
  for (GiltOperand *u = gilt_value_get_first_use(buffer); u; u = u->next_use)
    if (gilt_op_is_ancestor(p2, u->owner) &&
        (!is_load(u->owner) || !at_own_indices(u->owner, 1, p2) ||
         gilt_value_get_type(gilt_op_get_result(u->owner, 0)) != stored))
      return false;
  return true;
}

/* Whether every value of `list` that may be `b`'s memory is b itself;
** *any (when given) is set if one may be. */
static bool only_through(const ValueList *list, GiltValue *b, bool *any)
{
  for (size_t i = 0; i < list->len; i++)
    if (may_alias(list->data[i], b)) {
      if (any)
        *any = true;
      if (list->data[i] != b)
        return false;
    }
  return true;
}

/* The stores of P1 whose values P2's loads take (in `stores`), or false
** when the two may not fuse (the file's conditions on buffers). */
static bool forwardable(GiltContext *ctx, GiltOp *p1, GiltOp *p2,
                        OpList *stores)
{
  ValueList r1 = {0}, w1 = {0}, r2 = {0}, w2 = {0};
  bool ok = touched(ctx, p1, false, &r1) && touched(ctx, p1, true, &w1) &&
            touched(ctx, p2, false, &r2) && touched(ctx, p2, true, &w2) &&
            !any_alias(&w2, &r1) && !any_alias(&w2, &w1);
  for (size_t i = 0; ok && i < w1.len; i++) {
    GiltValue *b = w1.data[i];
    bool read = false;
    /* Read by P2: both nests name its memory by b alone, P1 stores it
    ** once at its indices and P2 loads it only at its own. */
    ok = only_through(&r2, b, &read);
    if (!ok || !read)
      continue;
    GiltOp *store = sole_store(p1, b);
    ok = only_through(&w1, b, NULL) && only_through(&r1, b, NULL) &&
         store && loaded_at_own_indices(p2, b, store);
    bool seen = false;
    for (size_t j = 0; j < stores->len; j++)
      seen |= stores->data[j] == store;
    if (ok && !seen)
      gilt_vec_push(ctx, stores, store);
  }
  gilt_vec_free(ctx, &r1);
  gilt_vec_free(ctx, &w1);
  gilt_vec_free(ctx, &r2);
  gilt_vec_free(ctx, &w2);
  return ok;
}

/* The nest after p1 that it may fuse with, the ops between them movable
** above p1; NULL when there is none. */
static GiltOp *next_nest(GiltOp *p1)
{
  for (GiltOp *op = gilt_op_get_next(p1); op; op = gilt_op_get_next(op)) {
    if (loop_op_is(op, LOOP_OP_PARALLEL))
      return op;
    if (!gilt_op_is_effect_free(op) && !loop_op_is(op, LOOP_OP_ALLOC))
      return NULL;
  }
  return NULL;
}

/* P2 fused into P1: the ops between them moved above P1, P2's body
** appended to P1's on P1's induction variables, P2's loads of what P1
** stored taking the stored values (P1's own loads, before its stores,
** keep reading memory); P1's location names both nests' ops. */
static void fuse(GiltContext *ctx, GiltOp *p1, GiltOp *p2,
                 GiltOp *const *stores, size_t num_stores)
{
  OpList loads = {0};
  ValueList values = {0};
  for (size_t i = 0; i < num_stores; i++) {
    GiltValue *buffer = gilt_op_get_operand(stores[i], 1);
    for (GiltOperand *u = gilt_value_get_first_use(buffer); u;
         u = u->next_use)
      if (is_load(u->owner) && gilt_op_is_ancestor(p2, u->owner)) {
        gilt_vec_push(ctx, &loads, u->owner);
        gilt_vec_push(ctx, &values, gilt_op_get_operand(stores[i], 0));
      }
  }
  gilt_remark(p2, "fusion", "fused", 0, NULL,
              "fused into the loop nest before it (loop-fuse-parallel)");
  gilt_op_set_location(p1, gilt_location_fused_flat(gilt_op_get_location(p1),
                                                    gilt_op_get_location(p2)));
  while (gilt_op_get_next(p1) != p2)
    gilt_op_move_before(gilt_op_get_next(p1), p1);
  GiltBlock *b1 = body_of(p1), *b2 = body_of(p2);
  for (size_t d = 0; d < gilt_block_get_num_arguments(b2); d++)
    gilt_value_replace_all_uses_with(gilt_block_get_argument(b2, d),
                                     gilt_block_get_argument(b1, d));
  GiltOp *yield = gilt_block_get_terminator(b1);
  for (GiltOp *op = gilt_block_get_first_op(b2); op;) {
    GiltOp *next = gilt_op_get_next(op);
    if (next) /* all but P2's terminator */
      gilt_op_move_before(op, yield);
    op = next;
  }
  for (size_t i = 0; i < loads.len; i++) {
    gilt_value_replace_all_uses_with(gilt_op_get_result(loads.data[i], 0),
                                     values.data[i]);
    gilt_op_destroy(loads.data[i]);
  }
  gilt_vec_free(ctx, &loads);
  gilt_vec_free(ctx, &values);
  gilt_op_destroy(p2);
}

/* Drops alloc and its stores when they are all its uses. */
static bool drop_if_stored_only(GiltOp *alloc)
{
  GiltValue *buffer = gilt_op_get_result(alloc, 0);
  for (GiltOperand *u = gilt_value_get_first_use(buffer); u; u = u->next_use)
    if (!is_store(u->owner) || operand_index(u) != 1)
      return false;
  while (gilt_value_get_first_use(buffer))
    gilt_op_destroy(gilt_value_get_first_use(buffer)->owner);
  gilt_op_destroy(alloc);
  return true;
}

typedef struct Fusion {
  GiltContext *ctx;
  int64_t fused, dropped;
  OpList allocs; /* the loop.allocs, for drop_if_stored_only */
} Fusion;

static GiltWalkResult fuse_in(GiltOp *op, void *user)
{
  Fusion *f = user;
  if (loop_op_is(op, LOOP_OP_ALLOC))
    gilt_vec_push(f->ctx, &f->allocs, op);
  if (!loop_op_is(op, LOOP_OP_PARALLEL))
    return GILT_WALK_ADVANCE;
  OpList stores = {0};
  for (GiltOp *p2 = next_nest(op); p2 && same_space(op, p2);
       p2 = next_nest(op)) {
    stores.len = 0;
    if (!forwardable(f->ctx, op, p2, &stores))
      break;
    fuse(f->ctx, op, p2, stores.data, stores.len);
    f->fused++;
  }
  gilt_vec_free(f->ctx, &stores);
  return GILT_WALK_ADVANCE;
}

static GiltStatus run(GiltPass *pass, GiltOp *func)
{
  Fusion f = {.ctx = gilt_pass_get_context(pass)};
  gilt_op_walk(func, GILT_WALK_PRE_ORDER, fuse_in, &f);
  if (f.fused)
    for (size_t i = 0; i < f.allocs.len; i++)
      f.dropped += drop_if_stored_only(f.allocs.data[i]);
  gilt_vec_free(f.ctx, &f.allocs);
  if (!f.fused)
    gilt_pass_mark_unchanged(pass);
  gilt_pass_add_statistic(pass, "num-fused",
                          "Number of parallel nests fused into the one "
                          "before them",
                          f.fused);
  gilt_pass_add_statistic(pass, "num-buffers-dropped",
                          "Number of buffers left only stored to, dropped",
                          f.dropped);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_loop_fuse_parallel_pass = {
    .name = "loop-fuse-parallel",
    .description = "Fuse a loop.parallel nest into the one before it over "
                   "the same space when it reads what that one wrote only "
                   "at its own indices, forwarding the stored values",
    .anchor = "func.func",
    .options = NULL,
    .run = run,
};
