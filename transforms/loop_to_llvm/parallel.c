/*
** parallel.c - loop.parallel to the runtime's parallel-for (jit/abi.h),
** by outlining, as clang does for OpenMP (`.omp_outlined.` and
** __kmpc_fork_call) and MLIR's async-parallel-for: the body becomes a
** private function
**
**     void f__parallel_K(i64 begin, i64 end, ptr context)
**
** that runs iterations [begin, end) of one dimension, the outermost that
** is not known to run once (models run at batch 1), the other dimensions
** as sequential loops around and inside it, and the loop becomes
**
**     context = {captured values..., ptr locations, i32 status = 0}
**     gilt_rt_parallel_for(trip count of that dimension, @f__parallel_K, context)
**     if (context.status != 0) exit the scope and return it
**
** The context is one alloca per loop in the parent's entry block, holding
** every value the body uses from outside it (scalars, vectors, descriptor
** structs) and loaded at the outlined function's entry; a second holds
** the body's failure locations when it has any. What the parent's
** code knows as a constant stays one: a captured value, or a field of a
** captured descriptor, that the parent computes from constants and
** symbols' addresses by pure ops (llvm.constant, llvm.addressof,
** arithmetic, insertvalue) is computed again in the outlined function
** rather than passed, so loop bounds and static sizes and strides stay
** visible to LLVM's optimizer there, and symbol references resolve as in
** the parent. The addresses of weights are passed: then the layers of one
** shape outline bodies that differ in nothing, and they share one
** function (share_outlined). For the same reason the location strings of
** the body's failure messages come from an array of the parent's that
** `locations` points at (l2l_outlined_location).
**
** Buffers: scopes are per thread (jit/runtime.c), so each chunk enters
** its own and exits it on every return; what a chunk allocates never
** lands in a worker's list or outlives the chunk. A failed check in a
** chunk calls gilt_rt_fail (the runtime carries the message back to the
** calling thread), stores its status in the context atomically, and
** returns; the parent then returns it, as after a failed check of its own.
**
** Only a loop.parallel of a function is outlined; one nested in an
** outlined body runs as sequential loops in it (control.c): it already
** runs on a worker, where the runtime would run it serially anyway. One
** known to be small (below) calls its outlined body directly, once.
*/
#include "transforms/loop_to_llvm/lowering.h"

#include <stdio.h>

#include "ir/support/alloc.h"

typedef GILT_VEC(GiltValue *) ValueVec;

/* Buffers private to an iteration that one chunk allocates once, at most. */
#define MAX_PRIVATE_BUFFERS 8

/* ---- what the body uses from outside ----------------------------------------------- */

typedef struct Captures {
  L2L *l;
  GiltOp *op;       /* the loop.parallel */
  GiltPtrMap seen;  /* loop value -> 1 */
  ValueVec values;  /* loop values, in order of first use */
} Captures;

static void capture(Captures *c, GiltValue *v)
{
  if (gilt_ptr_map_get(&c->seen, v, NULL))
    return;
  gilt_ptr_map_put(&c->seen, v, 1);
  gilt_vec_push(c->l->ctx, &c->values, v);
}

static GiltWalkResult capture_operands(GiltOp *op, void *user)
{
  Captures *c = user;
  if (op == c->op)
    return GILT_WALK_ADVANCE;
  for (size_t i = 0; i < gilt_op_get_num_operands(op); i++) {
    GiltValue *v = gilt_op_get_operand(op, i);
    GiltOp *owner = gilt_block_get_parent_op(gilt_value_get_parent_block(v));
    if (!owner || !gilt_op_is_ancestor(c->op, owner))
      capture(c, v);
  }
  return GILT_WALK_ADVANCE;
}

/* ---- constants built again ---------------------------------------------------------- */

/* How deep an expression of constants may be to be built again: enough
** for a descriptor's row-major strides. */
#define REBUILD_DEPTH 24

typedef struct Rebuild {
  L2L *l;
  GiltPtrMap known;  /* parent value -> 1 + whether it can be rebuilt */
  GiltPtrMap copies; /* parent value -> its copy in the outlined function */
} Rebuild;

/* Whether def takes the address of a weight (a loop.global of the module
** being lowered). */
static bool weight_address(L2L *l, GiltOp *def)
{
  if (!llvm_op_is(def, LLVM_OP_ADDRESSOF))
    return false;
  GiltOp *global = gilt_symbol_table_lookup(
      l->module,
      gilt_symbol_ref_attr_get_root(gilt_op_get_attr(def, "global_name")));
  return global && loop_op_is(global, LOOP_OP_GLOBAL);
}

/* Whether the parent's llvm value v can be computed again in the outlined
** function: a pure op (a constant, a symbol's address, arithmetic,
** insertvalue) of such values, down to ops without operands. A weight's
** address is the exception: it comes through the context, so that layers
** of one shape outline the same body (see share_outlined). */
static bool rebuildable_at(Rebuild *r, GiltValue *v, unsigned depth)
{
  size_t known = 0;
  if (gilt_ptr_map_get(&r->known, v, &known))
    return known == 2;
  GiltOp *def = gilt_value_get_defining_op(v);
  bool ok = def && depth > 0 && llvm_op_id(def) != LLVM_NUM_OPS &&
            !weight_address(r->l, def) &&
            gilt_op_has_trait(def, GILT_TRAIT_PURE) &&
            gilt_op_get_num_regions(def) == 0 &&
            gilt_op_get_num_results(def) == 1;
  for (size_t i = 0; ok && i < gilt_op_get_num_operands(def); i++)
    ok = rebuildable_at(r, gilt_op_get_operand(def, i), depth - 1);
  gilt_ptr_map_put(&r->known, v, ok ? 2 : 1);
  return ok;
}

static bool rebuildable(Rebuild *r, GiltValue *v)
{
  return rebuildable_at(r, v, REBUILD_DEPTH);
}

/* The copy of v (rebuildable) at the insertion point, made once. */
static GiltValue *rebuild(Rebuild *r, GiltValue *v)
{
  size_t copy = 0;
  if (gilt_ptr_map_get(&r->copies, v, &copy))
    return (GiltValue *)(uintptr_t)copy;
  GiltOp *def = gilt_value_get_defining_op(v);
  GiltOp *op = gilt_op_clone(def);
  for (size_t i = 0; i < gilt_op_get_num_operands(def); i++)
    gilt_op_set_operand(op, i, rebuild(r, gilt_op_get_operand(def, i)));
  gilt_builder_insert(r->l->b, op);
  GiltValue *result = gilt_op_get_result(op, 0);
  gilt_ptr_map_put(&r->copies, v, (size_t)(uintptr_t)result);
  return result;
}

/* The fields of the parent's struct v (n of them) that its chain of
** insertvalues sets: fields[k] the value the last insertvalue at k
** inserts, NULL where none does. Returns whether the chain starts from a
** poison value: then the fields it sets are all the struct holds. */
static bool chain_fields(GiltValue *v, size_t n, GiltValue **fields)
{
  for (size_t k = 0; k < n; k++)
    fields[k] = NULL;
  GiltOp *def = gilt_value_get_defining_op(v);
  while (def && llvm_op_is(def, LLVM_OP_INSERTVALUE)) {
    size_t pos =
        (size_t)gilt_integer_attr_get_value(gilt_op_get_attr(def, "position"));
    if (pos < n && !fields[pos])
      fields[pos] = gilt_op_get_operand(def, 1);
    def = gilt_value_get_defining_op(gilt_op_get_operand(def, 0));
  }
  return def && llvm_op_is(def, LLVM_OP_POISON);
}

/* `loaded` (the context's copy of the struct `v` of the parent) with the
** fields the parent computed from constants computed again: a
** descriptor's static sizes and strides (not a weight's address, which
** stays the loaded one: rebuildable_at). */
static GiltValue *rebuild_fields(Rebuild *r, GiltValue *v, GiltValue *loaded)
{
  GiltType *t = gilt_value_get_type(v);
  if (!llvm_is_struct(t))
    return loaded;
  size_t n = llvm_struct_num_fields(t);
  GiltValue *fields[n + 1];
  chain_fields(v, n, fields);
  for (size_t k = 0; k < n; k++)
    if (fields[k] && rebuildable(r, fields[k]))
      loaded = l2l_insert(r->l, loaded, rebuild(r, fields[k]), (int64_t)k);
  return loaded;
}

/* ---- what the context holds ------------------------------------------------------- */

/* Whether the captured struct v (n fields) goes into the context field
** by field, its fields in fields[]: when the parent built it from a
** poison value, setting every field. Then only the fields that cannot be
** built again take a slot of the context: a buffer's descriptor costs the
** parent a store of its pointer, not of its static sizes and strides
** too, a dozen stores for every buffer of every parallel loop. Anything
** else that cannot be built again takes one slot whole. */
static bool split_struct(GiltValue *v, size_t n, GiltValue **fields)
{
  if (!llvm_is_struct(gilt_value_get_type(v)) || !chain_fields(v, n, fields))
    return false;
  for (size_t k = 0; k < n; k++)
    if (!fields[k])
      return false;
  return true;
}

/* The number of fields of struct type t, 0 for any other type. */
static size_t num_fields_of(GiltType *t)
{
  return llvm_is_struct(t) ? llvm_struct_num_fields(t) : 0;
}

/* ---- the context -------------------------------------------------------------------- */

/* The address of field k of the context struct `type` at `context`. */
static GiltValue *field_address(L2L *l, GiltType *type, GiltValue *context,
                                size_t k)
{
  GiltValue *ops[3] = {context, l2l_i64(l, 0),
                       l2l_int(l, l->i32, (int64_t)k)};
  return l2l_emit_attr(l, LLVM_OP_GEP, l->ptr, 3, ops, "elem_type",
                       gilt_type_attr_get(type));
}

GiltValue *l2l_entry_alloca(L2L *l, GiltType *type)
{
  GiltBlock *here = gilt_builder_get_insertion_block(l->b);
  gilt_builder_set_insertion_point_to_start(l->b, l->entry);
  GiltValue *one = l2l_i64(l, 1);
  GiltValue *slot = l2l_emit_attr(l, LLVM_OP_ALLOCA, l->ptr, 1, &one,
                                  "elem_type", gilt_type_attr_get(type));
  l2l_set_block(l, here);
  return slot;
}

/* ---- the outlined function ---------------------------------------------------------- */

/* A private llvm.func (i64 begin, i64 end, ptr context) -> () named after
** the function being lowered, added to the new module. (Another function
** of the module may come to call it too: share_outlined.) */
static GiltOp *outlined_function(L2L *l)
{
  char name[256];
  do
    snprintf(name, sizeof name, "%s__parallel_%u", l->func_name,
             l->num_outlined++);
  while (gilt_symbol_table_lookup(l->module, name) ||
         gilt_ptr_map_get(&l->symbols, gilt_ident_get_cstr(l->ctx, name),
                          NULL));
  GiltType *inputs[3] = {l->i64, l->i64, l->ptr};
  GiltType *type = gilt_function_type_get(l->ctx, 3, inputs, 0, NULL);
  return l2l_private_func(l, name, type);
}

/* fn, just built, or the outlined function it repeats: then fn is gone.
** Layers of one shape lower to the same body (their weights come through
** the context), and one copy of it is enough; LLVM then optimizes and
** compiles it once. TVM shares a kernel between ops of one workload the
** same way. */
static GiltOp *share_outlined(L2L *l, GiltOp *fn)
{
  GiltRegion *body = gilt_op_get_region(fn, 0);
  uint32_t hash = gilt_region_hash(body);
  for (size_t i = 0; i < l->outlined.len; i++) {
    GiltOp *seen = l->outlined.data[i].fn;
    if (l->outlined.data[i].hash == hash &&
        gilt_regions_equivalent(gilt_op_get_region(seen, 0), body)) {
      const char *name = gilt_symbol_get_name(fn);
      gilt_ptr_map_remove(&l->symbols, gilt_ident_get_cstr(l->ctx, name));
      gilt_op_destroy(fn);
      return seen;
    }
  }
  struct L2LOutlined entry = {hash, fn};
  gilt_vec_push(l->ctx, &l->outlined, entry);
  return fn;
}

/* The state of the function being built, which outlining replaces. */
typedef struct Saved {
  GiltBlock *block;
  GiltRegion *body;
  GiltBlock *entry;
  GiltValue *scope, *status, *context;
  GiltPtrMap values;
} Saved;

static void save(L2L *l, Saved *s)
{
  *s = (Saved){gilt_builder_get_insertion_block(l->b), l->body, l->entry,
               l->scope, l->status, l->context, l->values};
  gilt_ptr_map_init(&l->values, l->ctx);
}

static void restore(L2L *l, const Saved *s)
{
  gilt_ptr_map_free(&l->values);
  l->values = s->values;
  l->body = s->body;
  l->entry = s->entry;
  l->scope = s->scope;
  l->status = s->status;
  l->context = s->context;
  l2l_set_block(l, s->block);
}

/* ---- buffers private to an iteration ------------------------------------------ */

/* The loop.dealloc of `alloc`'s buffer in `block`, or NULL. */
static GiltOp *freed_in(GiltOp *alloc, GiltBlock *block)
{
  GiltValue *buffer = gilt_op_get_result(alloc, 0);
  for (GiltOperand *u = gilt_value_get_first_use(buffer); u;
       u = gilt_operand_get_next_use(u)) {
    GiltOp *user = gilt_operand_get_owner(u);
    if (loop_op_is(user, LOOP_OP_DEALLOC) &&
        gilt_op_get_block(user) == block)
      return user;
  }
  return NULL;
}

/* A buffer that each iteration of the parallel loop op allocates and
** frees again (a kernel's scratch: a channel's padded planes) is
** allocated once per chunk instead, before the chunk's iterations, and
** freed after them, when its size does not change from one iteration to
** the next: an iteration's buffer starts undefined and dies within the
** iteration, so the chunk's iterations, which run one after the other on
** one thread, can all take the same bytes, as OpenMP's private arrays
** do. Lowers the allocs now and returns the deallocs, which the caller
** lowers after the loop; marks both as hoisted. */
static size_t hoist_private_buffers(L2L *l, GiltOp *op, GiltOp **frees,
                                    size_t cap)
{
  GiltBlock *block = gilt_region_get_first_block(gilt_op_get_region(op, 0));
  size_t n = 0;
  for (GiltOp *a = gilt_block_get_first_op(block); a && n < cap;
       a = gilt_op_get_next(a)) {
    if (!loop_op_is(a, LOOP_OP_ALLOC))
      continue;
    bool invariant = true;
    for (size_t i = 0; i < gilt_op_get_num_operands(a); i++)
      invariant = invariant && gilt_loop_like_is_defined_outside(
                                   op, gilt_op_get_operand(a, i));
    GiltOp *dealloc = invariant ? freed_in(a, block) : NULL;
    if (!dealloc)
      continue;
    l2l_lower_one(l, a);
    gilt_ptr_map_put(&l->hoisted, a, 1);
    gilt_ptr_map_put(&l->hoisted, dealloc, 1);
    frees[n++] = dealloc;
  }
  return n;
}

/* The parent's value `lowered` in the outlined function: built again,
** loaded whole from the next slot of the context (from *slot on), or,
** split, built again from its fields, each loaded from the next slot or
** built again; the slots in the order l2l_lower_parallel_outlined filled
** them. */
static GiltValue *captured_value(L2L *l, Rebuild *r, GiltType *context_type,
                                 GiltValue *context, size_t *slot,
                                 GiltValue *lowered)
{
  GiltType *t = gilt_value_get_type(lowered);
  if (rebuildable(r, lowered))
    return rebuild(r, lowered);
  size_t n = num_fields_of(t);
  GiltValue *fields[n + 1];
  if (!split_struct(lowered, n, fields)) {
    GiltValue *v = l2l_load(
        l, t, field_address(l, context_type, context, (*slot)++), 0);
    return rebuild_fields(r, lowered, v);
  }
  GiltValue *v = l2l_poison(l, t);
  for (size_t k = 0; k < n; k++) {
    GiltValue *f =
        rebuildable(r, fields[k])
            ? rebuild(r, fields[k])
            : l2l_load(l, llvm_struct_field(t, k),
                       field_address(l, context_type, context, (*slot)++), 0);
    v = l2l_insert(l, v, f, (int64_t)k);
  }
  return v;
}

/* Builds the body of `fn`: takes the captured values (`lowered`, the
** parent's llvm values of `captured`) from the context's slots, or
** builds them again, and runs the chunk. */
static void build_body(L2L *l, Rebuild *r, GiltOp *op, size_t dim,
                       GiltOp *fn, GiltType *context_type,
                       const ValueVec *captured, GiltValue *const *lowered,
                       size_t status_field)
{
  GiltType *inputs[3] = {l->i64, l->i64, l->ptr};
  l->body = gilt_op_get_region(fn, 0);
  l->entry = l2l_block(l, 3, inputs);
  l2l_set_block(l, l->entry);
  GiltValue *begin = gilt_block_get_argument(l->entry, 0);
  GiltValue *end = gilt_block_get_argument(l->entry, 1);
  GiltValue *context = gilt_block_get_argument(l->entry, 2);
  l->scope = l2l_call_extern(l, "gilt_rt_scope_enter", l->i64, 0, NULL);
  l->status = field_address(l, context_type, context, status_field);
  l->context = context;
  l->context_type = context_type;
  l->locations_field = status_field - 1; /* just before the status */
  size_t slot = 0;
  for (size_t i = 0; i < captured->len; i++)
    l2l_map(l, captured->data[i], captured_value(l, r, context_type,
                                                 context, &slot, lowered[i]));
  /* The split dimension runs iterations [begin, end): lb + begin * step
  ** up to lb + end * step. */
  size_t rank = gilt_op_get_num_operands(op) / 3;
  GiltValue *bounds[3 * rank + 1];
  for (size_t i = 0; i < 3 * rank; i++)
    if (i != rank + dim) /* its upper bound is the chunk's */
      bounds[i] = l2l_value(l, gilt_op_get_operand(op, i));
  GiltValue *lb = bounds[dim], *step = bounds[2 * rank + dim];
  bounds[dim] = l2l_binary(l, LLVM_OP_ADD, lb,
                           l2l_binary(l, LLVM_OP_MUL, begin, step));
  bounds[rank + dim] = l2l_binary(l, LLVM_OP_ADD, lb,
                                  l2l_binary(l, LLVM_OP_MUL, end, step));
  GiltOp *frees[MAX_PRIVATE_BUFFERS];
  size_t num_frees = hoist_private_buffers(l, op, frees, MAX_PRIVATE_BUFFERS);
  l2l_parallel_loops(l, op, bounds);
  for (size_t i = 0; i < num_frees; i++) {
    gilt_ptr_map_remove(&l->hoisted, frees[i]);
    gilt_ptr_map_remove(&l->hoisted, gilt_value_get_defining_op(
                                         gilt_op_get_operand(frees[i], 0)));
    l2l_lower_one(l, frees[i]);
  }
  l2l_exit_scope(l);
  l2l_emit(l, LLVM_OP_RETURN, NULL, 0, NULL);
}

GiltValue *l2l_outlined_location(L2L *l, const char *text)
{
  GiltIdent *key = gilt_ident_get_cstr(l->ctx, text);
  size_t k = 0;
  while (k < l->locations.len && l->locations.data[k] != key)
    k++;
  if (k == l->locations.len)
    gilt_vec_push(l->ctx, &l->locations, key);
  GiltValue *array = l2l_load(
      l, l->ptr,
      field_address(l, l->context_type, l->context, l->locations_field), 0);
  return l2l_load(l, l->ptr, l2l_gep(l, l->ptr, array, l2l_i64(l, (int64_t)k)),
                  0);
}

/* Stores into the context's field `field` the address of an array of the
** location strings the body named, in its order; none when it named
** none. Clears the list. */
static void pass_locations(L2L *l, GiltType *context_type, GiltValue *context,
                           size_t field)
{
  size_t n = l->locations.len;
  if (n == 0)
    return;
  GiltType *ptrs[n];
  for (size_t k = 0; k < n; k++)
    ptrs[k] = l->ptr;
  GiltValue *array = l2l_entry_alloca(l, llvm_struct_type(l->ctx, n, ptrs));
  for (size_t k = 0; k < n; k++) {
    /* Built one after the other: as arguments of one call, the order of
    ** the ops would be the compiler's. */
    GiltValue *slot = l2l_gep(l, l->ptr, array, l2l_i64(l, (int64_t)k));
    GiltValue *text = l2l_string(l, l->locations.data[k]->str);
    l2l_store(l, text, slot, 0);
  }
  l2l_store(l, array, field_address(l, context_type, context, field), 0);
  l->locations.len = 0;
}

/* ---- the loop ------------------------------------------------------------------------ */

/* The dimension to split over the threads: the first one not known to
** run at most once. Models run at batch 1, so dimension 0 often has one
** iteration; the dimensions before the one chosen then run whole in
** every chunk, which covers each iteration once as long as they have at
** most one (and would still, in another order, with more). */
static size_t split_dimension(L2L *l, GiltOp *op)
{
  size_t rank = gilt_op_get_num_operands(op) / 3;
  for (size_t d = 0; d < rank; d++)
    if (l2l_trips_up_to_one(
            l2l_value(l, gilt_op_get_operand(op, d)),
            l2l_value(l, gilt_op_get_operand(op, rank + d)),
            l2l_value(l, gilt_op_get_operand(op, 2 * rank + d))) < 0)
      return d;
  return 0;
}

/* ---- loops too small to share ------------------------------------------------------ */

/* Waking a worker and waiting for it costs some microseconds on these
** machines, and a loop gains at most half its time from a second core:
** below l->serial_ops ops in all (10,000 by default, counted on the loop
** dialect: each op once, loop bodies as often as they run), a loop runs
** as one chunk on the calling thread, like ONNX Runtime's cost-based
** TryParallelFor. An op is a rough measure of time: at 50,000 LeNet at
** two threads went from 29 to 18.5 us (its 13 loops down to 3 shared
** out), but EfficientNet-B0 at two threads lost about 1 ms (best of 50
** runs, three pairs alternated), its squeeze-and-excitation pools and
** gates (20,000 to 45,000 ops, memory-bound) paying for their threads;
** at 10,000 only the likes of the 1x1 convolutions of one pixel and the
** packing of a vector run alone, and neither model moved past noise. */

/* a + b, or cap where that reaches it (a, b >= 0). */
static int64_t add_capped(int64_t a, int64_t b, int64_t cap)
{
  return a >= cap - b ? cap : a + b;
}

/* The times a loop.for or loop.parallel runs its body (1 for another
** op), or -1 where that is not known. */
static int64_t body_runs(GiltOp *op)
{
  if (loop_op_is(op, LOOP_OP_PARALLEL))
    return loop_parallel_static_iterations(op);
  if (loop_op_is(op, LOOP_OP_FOR))
    return loop_static_trips(gilt_op_get_operand(op, 0),
                             gilt_op_get_operand(op, 1),
                             gilt_op_get_operand(op, 2));
  return loop_op_is(op, LOOP_OP_WHILE) ? -1 : 1;
}

/* The ops that op runs: itself, and its regions' ops as often as they
** run (both of a loop.if's), at most `cap`; `cap` where a trip count is
** not known. */
static int64_t ops_run(GiltOp *op, int64_t cap)
{
  int64_t runs = body_runs(op), total = 1;
  if (runs < 0)
    return cap;
  for (size_t i = 0; i < gilt_op_get_num_regions(op) && runs > 0; i++) {
    GiltBlock *body = gilt_region_get_first_block(gilt_op_get_region(op, i));
    int64_t each = 0;
    for (GiltOp *in = body ? gilt_block_get_first_op(body) : NULL;
         in && each < cap; in = gilt_op_get_next(in))
      each = add_capped(each, ops_run(in, cap), cap);
    total = add_capped(total, each >= cap / runs ? cap : each * runs, cap);
    if (total >= cap)
      return cap;
  }
  return total;
}

GiltStatus l2l_lower_parallel_outlined(L2L *l, GiltOp *op)
{
  size_t rank = gilt_op_get_num_operands(op) / 3;
  size_t dim = split_dimension(l, op);
  bool serial = ops_run(op, l->serial_ops) < l->serial_ops;
  Captures c = {.l = l, .op = op};
  Rebuild r = {.l = l};
  gilt_ptr_map_init(&c.seen, l->ctx);
  gilt_ptr_map_init(&r.known, l->ctx);
  gilt_ptr_map_init(&r.copies, l->ctx);
  for (size_t i = 0; i < 3 * rank; i++)
    if (i != rank + dim) /* the chunk is the split dimension's bounds */
      capture(&c, gilt_op_get_operand(op, i));
  gilt_op_walk(op, GILT_WALK_PRE_ORDER, capture_operands, &c);

  /* The context: a slot per captured value that is not a constant (or
  ** per field of it that is not), the address of the body's failure
  ** locations, and the status. */
  size_t n = c.values.len;
  GiltValue *lowered[n + 1];
  ValueVec slots = {0}; /* the parent's values the context holds */
  for (size_t i = 0; i < n; i++) {
    lowered[i] = l2l_value(l, c.values.data[i]);
    if (rebuildable(&r, lowered[i]))
      continue;
    size_t num = num_fields_of(gilt_value_get_type(lowered[i]));
    GiltValue *fields[num + 1];
    if (!split_struct(lowered[i], num, fields)) {
      gilt_vec_push(l->ctx, &slots, lowered[i]);
      continue;
    }
    for (size_t k = 0; k < num; k++)
      if (!rebuildable(&r, fields[k]))
        gilt_vec_push(l->ctx, &slots, fields[k]);
  }
  size_t num_fields = slots.len;
  GiltType *types[num_fields + 2];
  for (size_t j = 0; j < slots.len; j++)
    types[j] = gilt_value_get_type(slots.data[j]);
  size_t locations_field = num_fields;
  types[num_fields++] = l->ptr;
  size_t status_field = num_fields;
  types[num_fields++] = l->i32;
  GiltType *context_type = llvm_struct_type(l->ctx, num_fields, types);

  GiltOp *fn = outlined_function(l);
  Saved saved;
  save(l, &saved);
  build_body(l, &r, op, dim, fn, context_type, &c.values, lowered,
             status_field);
  restore(l, &saved);
  fn = share_outlined(l, fn);

  GiltValue *context = l2l_entry_alloca(l, context_type);
  for (size_t j = 0; j < slots.len; j++)
    l2l_store(l, slots.data[j], field_address(l, context_type, context, j),
              0);
  pass_locations(l, context_type, context, locations_field);
  GiltValue *status = field_address(l, context_type, context, status_field);
  l2l_store(l, l2l_int(l, l->i32, 0), status, 4);
  /* Trip count: ceil((ub - lb) / step); none when it is not positive. */
  GiltValue *lb = l2l_value(l, gilt_op_get_operand(op, dim));
  GiltValue *ub = l2l_value(l, gilt_op_get_operand(op, rank + dim));
  GiltValue *step = l2l_value(l, gilt_op_get_operand(op, 2 * rank + dim));
  GiltValue *span = l2l_binary(l, LLVM_OP_SUB, ub, lb);
  span = l2l_binary(l, LLVM_OP_ADD, span,
                    l2l_binary(l, LLVM_OP_SUB, step, l2l_i64(l, 1)));
  GiltValue *trips = l2l_binary(l, LLVM_OP_SDIV, span, step);
  GiltValue *body = l2l_emit_attr(
      l, LLVM_OP_ADDRESSOF, l->ptr, 0, NULL, "global_name",
      gilt_symbol_ref_attr_get(l->ctx, gilt_symbol_get_name(fn), 0, NULL));
  if (serial) { /* all iterations here, as one chunk */
    GiltValue *chunk[3] = {l2l_i64(l, 0), trips, context};
    l2l_call(l, gilt_symbol_get_name(fn), NULL, 3, chunk);
  } else {
    GiltValue *args[3] = {trips, body, context};
    l2l_call_extern(l, "gilt_rt_parallel_for", NULL, 3, args);
  }

  GiltValue *result = l2l_load(l, l->i32, status, 4);
  GiltBlock *fail = l2l_block(l, 0, NULL), *next = l2l_block(l, 0, NULL);
  l2l_cond_br(l, l2l_icmp(l, "eq", result, l2l_int(l, l->i32, 0)), next, 0,
              NULL, fail, 0, NULL);
  l2l_set_block(l, fail);
  l2l_return_failure(l, result);
  l2l_set_block(l, next);

  gilt_ptr_map_free(&c.seen);
  gilt_ptr_map_free(&r.known);
  gilt_ptr_map_free(&r.copies);
  gilt_vec_free(l->ctx, &c.values);
  gilt_vec_free(l->ctx, &slots);
  return GILT_SUCCESS;
}
