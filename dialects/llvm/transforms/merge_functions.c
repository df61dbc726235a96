/*
** merge_functions.c - `llvm-merge-functions`: private functions of the
** llvm dialect whose bodies differ in nothing but the values of some
** integer constants share one body, which takes those values as
** arguments; each of them becomes a thunk that calls it with its own
** (LLVM's MergeFunctions, which merges identical functions only, taken to
** constants as parameters).
**
** Why: loop-to-llvm outlines one body per parallel loop nest and shares
** bodies that are the same (share_outlined), but the layers of a network
** differ in their sizes: DenseNet-121's 58 dense layers outline 1x1
** convolutions that differ in their number of input channels alone, its
** batch normalizations in their channels and pixels. Each such copy cost
** LLVM's pipeline and code generator their whole time again, and LLVM is
** nine tenths of a cold compile. With the sizes as arguments,
** DenseNet-121's outlined code is half as long (docs/passes.md has the
** measurements).
**
** What may become an argument: a constant whose value, and what is
** computed from it (through integer arithmetic, comparisons, selects,
** casts, the fields of a struct, block arguments), serves only where it
** costs no more at run time than the constant did: a term, a bound or a
** factor of the index arithmetic outside the innermost loops (where
** LLVM hoists what it computes), and inside them a term, or a factor of
** what does not change from step to step there. A divisor or a shift
** amount (which LLVM turns into a multiply or a shift by a known
** amount), a bound of an innermost loop (whose known trip count LLVM
** unrolls by), a stride times the innermost loop's step or times a
** constant offset (which would hold a register per distinct offset where
** a constant folds into the address), an index into a struct or a
** vector, a call's argument: these keep their functions apart. Innermost
** loops are the natural loops of the function's control-flow graph that
** hold no other loop's header.
**
** Requires: a module at the llvm level. Keeps: every symbol and what it
** computes; a merged body is named after the first function of its
** group with `__shared` and is private.
**
** Statistics: num-merged (functions that became thunks), num-bodies
** (shared bodies made), num-parameters (constants passed as arguments).
*/
#include "dialects/llvm/transforms/passes.h"

#include <stdio.h>
#include <string.h>

#include "dialects/llvm/llvm.h"
#include "ir/core.h"
#include "ir/dominance.h"
#include "ir/support/ptr_map.h"

typedef GILT_VEC(GiltOp *) OpVec;
typedef GILT_VEC(GiltValue *) ValueVec;

/* A constant of the first function that another gives a value of its
** own: `at` in the first function, `value` the other's attribute. */
typedef struct Difference {
  GiltOp *at;
  GiltAttr *value;
} Difference;

typedef GILT_VEC(Difference) DifferenceVec;

static bool is_integer(GiltType *t)
{
  return gilt_type_get_kind(t) == GILT_TYPE_INTEGER;
}

static bool is_integer_constant(GiltOp *op)
{
  return llvm_op_is(op, LLVM_OP_CONSTANT) &&
         is_integer(gilt_value_get_type(gilt_op_get_result(op, 0)));
}

/* gilt_regions_equivalent_except: two integer constants of one type may
** differ; each pair is recorded. */
static bool record_difference(GiltOp *a, GiltOp *b, void *user)
{
  if (!is_integer_constant(a) || !is_integer_constant(b))
    return false;
  DifferenceVec *d = user;
  Difference diff = {a, gilt_op_get_attr(b, "value")};
  gilt_vec_push(gilt_op_get_context(a), d, diff);
  return true;
}

static bool is_zero_constant(GiltValue *v)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  return def && is_integer_constant(def) &&
         gilt_integer_attr_get_value(gilt_op_get_attr(def, "value")) == 0;
}

/* ---- what a value from an argument may reach ------------------------------ */

/* Whether a product of a parameter's value and `factor` in an innermost
** loop costs what a constant's would: `factor` is 0 or 1, or the same at
** every step of that loop (defined outside it: LLVM hoists the product).
** A stride times a step of the loop, or times a constant offset, would
** hold a register per distinct offset where a constant folds into the
** address (a 3x3 convolution's rows: DenseNet's ran 60% slower so). */
static bool invariant_factor(GiltValue *factor, const GiltPtrMap *hot)
{
  GiltOp *def = gilt_value_get_defining_op(factor);
  if (def && is_integer_constant(def)) {
    int64_t c = gilt_integer_attr_get_value(gilt_op_get_attr(def, "value"));
    return c == 0 || c == 1;
  }
  GiltBlock *b =
      def ? gilt_op_get_block(def) : gilt_value_get_parent_block(factor);
  return !gilt_ptr_map_get(hot, b, NULL);
}

/* Whether operand `i` of `user` may be a value computed from an argument
** at no cost a constant would not have: see the file's comment. `hot`
** holds the blocks of the function's innermost loops. */
static bool free_operand(GiltOp *user, size_t i, const GiltPtrMap *hot)
{
  bool in_hot_loop = gilt_ptr_map_get(hot, gilt_op_get_block(user), NULL);
  switch (llvm_op_id(user)) {
  case LLVM_OP_SDIV:
  case LLVM_OP_UDIV:
  case LLVM_OP_SREM:
  case LLVM_OP_UREM:
  case LLVM_OP_SHL:
  case LLVM_OP_LSHR:
  case LLVM_OP_ASHR:
    return i == 0;
  case LLVM_OP_GEP: {
    /* The first index steps the pointer; later ones may name a field. */
    GiltType *elem =
        gilt_type_attr_get_value(gilt_op_get_attr(user, "elem_type"));
    return i <= 1 || !llvm_is_struct(elem);
  }
  case LLVM_OP_ICMP:
    return !in_hot_loop;
  case LLVM_OP_MUL:
    return !in_hot_loop ||
           invariant_factor(gilt_op_get_operand(user, i == 0), hot);
  case LLVM_OP_ADD:
  case LLVM_OP_SUB:
  case LLVM_OP_AND:
  case LLVM_OP_OR:
  case LLVM_OP_XOR:
  case LLVM_OP_SELECT:
  case LLVM_OP_INSERTVALUE: /* the fields go where an extractvalue says */
  case LLVM_OP_EXTRACTVALUE:
  case LLVM_OP_ZEXT:
  case LLVM_OP_SEXT:
  case LLVM_OP_TRUNC:
  case LLVM_OP_BR:
  case LLVM_OP_COND_BR:
  case LLVM_OP_RETURN:
  case LLVM_OP_STORE: /* the value stored: the address is a pointer */
    return true;
  case LLVM_OP_CALL_INTRINSIC: {
    const char *name =
        gilt_string_attr_get_value(gilt_op_get_attr(user, "intrinsic"), NULL);
    return !strcmp(name, "llvm.smin") || !strcmp(name, "llvm.smax") ||
           !strcmp(name, "llvm.umin") || !strcmp(name, "llvm.umax");
  }
  default:
    return false;
  }
}

/* What is computed from a parameter is tracked as a mask: all ones for a
** scalar, a bit per field for a struct (a memref's descriptor: its
** sizes and strides one field each), so that reading a field the
** parameters did not reach is free of them. Fields from 63 on share a
** bit. */
typedef uint64_t Reach;
#define REACH_ALL (~(Reach)0)

static Reach field_bit(GiltOp *op)
{
  int64_t p = gilt_integer_attr_get_value(gilt_op_get_attr(op, "position"));
  return (Reach)1 << (p < 63 ? p : 63);
}

/* Marks v as reached by `r` more; queues it when that is new. */
static void reach(GiltContext *ctx, GiltPtrMap *reached, ValueVec *work,
                  GiltValue *v, Reach r)
{
  size_t had = 0;
  gilt_ptr_map_get(reached, v, &had);
  if ((had | r) == had)
    return;
  gilt_ptr_map_put(reached, v, had | r);
  gilt_vec_push(ctx, work, v);
}

/* What `user` computes from its operand `i`, reached by `r`: its result
** (a field of it, for insertvalue; nothing from a product with zero), the
** arguments of the blocks a branch passes it to. */
static void spread(GiltContext *ctx, GiltOp *user, size_t i, Reach r,
                   GiltPtrMap *reached, ValueVec *work)
{
  switch (llvm_op_id(user)) {
  case LLVM_OP_BR:
  case LLVM_OP_COND_BR:
    for (size_t s = 0; s < gilt_op_get_num_successors(user); s++) {
      GiltBlock *b = gilt_op_get_successor(user, s);
      for (size_t k = 0; k < gilt_block_get_num_arguments(b); k++)
        reach(ctx, reached, work, gilt_block_get_argument(b, k), REACH_ALL);
    }
    return;
  case LLVM_OP_INSERTVALUE:
    reach(ctx, reached, work, gilt_op_get_result(user, 0),
          i == 0 ? r : field_bit(user));
    return;
  case LLVM_OP_EXTRACTVALUE:
    if (r & field_bit(user))
      reach(ctx, reached, work, gilt_op_get_result(user, 0), REACH_ALL);
    return;
  case LLVM_OP_MUL:
    if (is_zero_constant(gilt_op_get_operand(user, 0)) ||
        is_zero_constant(gilt_op_get_operand(user, 1)))
      return;
    break;
  default:
    break;
  }
  for (size_t k = 0; k < gilt_op_get_num_results(user); k++)
    reach(ctx, reached, work, gilt_op_get_result(user, k), REACH_ALL);
}

/* Whether the results of `params` (constants of one function) can all be
** arguments: everything computed from them reaches only free operands
** (`hot`: the blocks of the function's innermost loops). */
static bool parameters_free(GiltContext *ctx, const OpVec *params,
                            const GiltPtrMap *hot)
{
  ValueVec work = {0};
  GiltPtrMap reached;
  gilt_ptr_map_init(&reached, ctx);
  for (size_t i = 0; i < params->len; i++)
    reach(ctx, &reached, &work, gilt_op_get_result(params->data[i], 0), REACH_ALL);
  bool ok = true;
  while (ok && work.len) {
    GiltValue *v = work.data[--work.len];
    size_t r = 0;
    gilt_ptr_map_get(&reached, v, &r);
    GiltType *t = gilt_value_get_type(v);
    /* A pointer, a float or a vector computed from one is no size any
    ** more: nothing further depends on the constant's value. */
    if (!is_integer(t) && !llvm_is_struct(t))
      continue;
    for (GiltOperand *u = gilt_value_get_first_use(v); ok && u;
         u = gilt_operand_get_next_use(u)) {
      GiltOp *user = gilt_operand_get_owner(u);
      size_t i = gilt_operand_get_index(u);
      ok = free_operand(user, i, hot);
      if (ok)
        spread(ctx, user, i, (Reach)r, &reached, &work);
    }
  }
  gilt_ptr_map_free(&reached);
  gilt_vec_free(ctx, &work);
  return ok;
}

/* ---- innermost loops ------------------------------------------------------ */

typedef GILT_VEC(GiltBlock *) BlockVec;

/* A natural loop: its header and the blocks of its body (header
** included), as keys of a map. */
typedef struct Loop {
  GiltBlock *header;
  GiltPtrMap body;
} Loop;

/* Adds to loop the blocks that reach `latch` without passing its header. */
static void collect_body(GiltContext *ctx, Loop *loop, GiltBlock *latch)
{
  BlockVec work = {0};
  gilt_ptr_map_put(&loop->body, loop->header, 1);
  gilt_vec_push(ctx, &work, latch);
  while (work.len) {
    GiltBlock *b = work.data[--work.len];
    if (gilt_ptr_map_get(&loop->body, b, NULL))
      continue;
    gilt_ptr_map_put(&loop->body, b, 1);
    for (GiltBlockOperand *u = b->first_use; u; u = u->next_use)
      gilt_vec_push(ctx, &work, gilt_op_get_block(u->owner));
  }
  gilt_vec_free(ctx, &work);
}

/* Puts into `hot` the blocks of fn's innermost loops: the natural loops,
** one per header that a back edge (to a block that dominates its source)
** enters, that hold no other loop's header. */
static void innermost_loop_blocks(GiltOp *fn, GiltPtrMap *hot)
{
  GiltContext *ctx = gilt_op_get_context(fn);
  GiltRegion *body = gilt_op_get_region(fn, 0);
  GiltDomTree *dt = gilt_dom_tree_create(body);
  GILT_VEC(Loop) loops = {0};
  for (GiltBlock *b = gilt_region_get_first_block(body); b;
       b = gilt_block_get_next(b)) {
    GiltOp *term = gilt_block_get_last_op(b);
    for (size_t s = 0; term && s < gilt_op_get_num_successors(term); s++) {
      GiltBlock *h = gilt_op_get_successor(term, s);
      if (!gilt_dom_tree_is_reachable(dt, b) ||
          !gilt_dom_tree_dominates(dt, h, b))
        continue;
      size_t k = 0;
      while (k < loops.len && loops.data[k].header != h)
        k++;
      if (k == loops.len) {
        Loop loop = {.header = h};
        gilt_ptr_map_init(&loop.body, ctx);
        gilt_vec_push(ctx, &loops, loop);
      }
      collect_body(ctx, &loops.data[k], b);
    }
  }
  for (size_t k = 0; k < loops.len; k++) {
    bool innermost = true;
    for (size_t j = 0; innermost && j < loops.len; j++)
      innermost = j == k || !gilt_ptr_map_get(&loops.data[k].body,
                                              loops.data[j].header, NULL);
    for (GiltBlock *b = gilt_region_get_first_block(body);
         innermost && b; b = gilt_block_get_next(b))
      if (gilt_ptr_map_get(&loops.data[k].body, b, NULL))
        gilt_ptr_map_put(hot, b, 1);
  }
  for (size_t k = 0; k < loops.len; k++)
    gilt_ptr_map_free(&loops.data[k].body);
  gilt_vec_free(ctx, &loops);
  gilt_dom_tree_destroy(dt);
}

/* ---- groups ----------------------------------------------------------------- */

/* A function that may join a group: private, with a body. */
static bool mergeable(GiltOp *op)
{
  GiltAttr *vis = gilt_op_get_attr(op, "sym_visibility");
  return llvm_op_is(op, LLVM_OP_FUNC) && vis &&
         !strcmp(gilt_string_attr_get_value(vis, NULL), "private") &&
         gilt_region_get_first_block(gilt_op_get_region(op, 0));
}

/* A group: its first function, the constants of it that are parameters,
** and the other functions with the values they give each difference. */
typedef struct Group {
  GiltOp *first;
  GiltPtrMap hot; /* the first's innermost loops' blocks */
  OpVec params;
  OpVec members;
  GILT_VEC(DifferenceVec) values; /* one per member */
} Group;

static bool in_params(const OpVec *params, GiltOp *op)
{
  for (size_t i = 0; i < params->len; i++)
    if (params->data[i] == op)
      return true;
  return false;
}

/* Adds `fn` to g when its body is the first's but for integer constants
** that can all be parameters with those g has. */
static bool join(Group *g, GiltOp *fn)
{
  GiltContext *ctx = gilt_op_get_context(fn);
  if (gilt_op_get_attr(fn, "function_type") !=
      gilt_op_get_attr(g->first, "function_type"))
    return false;
  DifferenceVec diffs = {0};
  bool same = gilt_regions_equivalent_except(
      gilt_op_get_region(g->first, 0), gilt_op_get_region(fn, 0),
      record_difference, &diffs);
  OpVec params = {0};
  for (size_t i = 0; same && i < g->params.len; i++)
    gilt_vec_push(ctx, &params, g->params.data[i]);
  for (size_t i = 0; same && i < diffs.len; i++)
    if (!in_params(&params, diffs.data[i].at))
      gilt_vec_push(ctx, &params, diffs.data[i].at);
  bool joins = same && (params.len == g->params.len ||
                        parameters_free(ctx, &params, &g->hot));
  if (joins) {
    gilt_vec_free(ctx, &g->params);
    g->params = params;
    gilt_vec_push(ctx, &g->members, fn);
    gilt_vec_push(ctx, &g->values, diffs);
  } else {
    gilt_vec_free(ctx, &params);
    gilt_vec_free(ctx, &diffs);
  }
  return joins;
}

static void free_group(GiltContext *ctx, Group *g)
{
  gilt_ptr_map_free(&g->hot);
  gilt_vec_free(ctx, &g->params);
  gilt_vec_free(ctx, &g->members);
  for (size_t i = 0; i < g->values.len; i++)
    gilt_vec_free(ctx, &g->values.data[i]);
  gilt_vec_free(ctx, &g->values);
}

/* ---- the shared body and the thunks -------------------------------------- */

/* The value parameter p takes in the function whose differences from the
** first are `diffs` (NULL: in the first). */
static GiltAttr *value_for(const DifferenceVec *diffs, GiltOp *p)
{
  for (size_t i = 0; diffs && i < diffs->len; i++)
    if (diffs->data[i].at == p)
      return diffs->data[i].value;
  return gilt_op_get_attr(p, "value");
}

static GiltOp *create(GiltContext *ctx, const char *name, GiltLocation *loc,
                      size_t n, GiltValue *const *operands,
                      GiltType *result, size_t num_attrs,
                      GiltNamedAttr *attrs)
{
  GiltOpState st = gilt_op_state_get(name, loc);
  st.num_operands = n;
  st.operands = operands;
  st.num_results = result ? 1 : 0;
  st.result_types = result ? &result : NULL;
  st.num_attrs = num_attrs;
  st.attrs = attrs;
  return gilt_op_create(ctx, &st);
}

/* An llvm.func with the attributes of `like` but `name` and `type` where
** given (NULL: like's), and an empty body. */
static GiltOp *function_like(GiltOp *like, const char *name, GiltType *type)
{
  GiltContext *ctx = gilt_op_get_context(like);
  GiltAttr *dict = gilt_op_get_attr_dictionary(like);
  size_t n = gilt_dictionary_attr_get_size(dict);
  GiltNamedAttr *attrs = gilt_calloc(ctx, n ? n : 1, sizeof *attrs);
  for (size_t i = 0; i < n; i++) {
    attrs[i] = gilt_dictionary_attr_get_entry(dict, i);
    if (name && !strcmp(attrs[i].name, "sym_name"))
      attrs[i].attr = gilt_string_attr_get(ctx, name, strlen(name));
    if (type && !strcmp(attrs[i].name, "function_type"))
      attrs[i].attr = gilt_type_attr_get(type);
  }
  GiltOpState st = gilt_op_state_get("llvm.func", gilt_op_get_location(like));
  st.num_attrs = n;
  st.attrs = attrs;
  st.num_regions = 1;
  GiltOp *fn = gilt_op_create(ctx, &st);
  gilt_free(ctx, attrs);
  return fn;
}

/* fn replaced by a function of its name and type that calls `shared`
** with its arguments and the values of the group's parameters that fn
** gives (diffs; NULL for the first function, whose own they are). */
static void make_thunk(GiltOp *fn, GiltOp *shared, const OpVec *params,
                       const DifferenceVec *diffs)
{
  GiltContext *ctx = gilt_op_get_context(fn);
  GiltLocation *loc = gilt_op_get_location(fn);
  GiltOp *thunk = function_like(fn, NULL, NULL);
  GiltType *type =
      gilt_type_attr_get_value(gilt_op_get_attr(fn, "function_type"));
  size_t n = gilt_function_type_get_num_inputs(type);
  GiltBlock *entry = gilt_block_create(ctx, 0, NULL, NULL);
  gilt_region_append_block(gilt_op_get_region(thunk, 0), entry);
  GiltValue **args = gilt_calloc(ctx, n + params->len, sizeof *args);
  for (size_t i = 0; i < n; i++)
    args[i] = gilt_block_add_argument(
        entry, gilt_function_type_get_input(type, i), loc);
  for (size_t i = 0; i < params->len; i++) {
    GiltOp *p = params->data[i];
    GiltNamedAttr value = {"value", value_for(diffs, p)};
    GiltOp *c = create(ctx, "llvm.constant", loc, 0, NULL,
                       gilt_value_get_type(gilt_op_get_result(p, 0)), 1,
                       &value);
    gilt_block_append_op(entry, c);
    args[n + i] = gilt_op_get_result(c, 0);
  }
  const char *callee = gilt_symbol_get_name(shared);
  GiltNamedAttr ref = {"callee",
                       gilt_symbol_ref_attr_get(ctx, callee, 0, NULL)};
  bool returns = gilt_function_type_get_num_results(type) > 0;
  GiltOp *call = create(ctx, "llvm.call", loc, n + params->len, args,
                        returns ? gilt_function_type_get_result(type, 0)
                                : NULL,
                        1, &ref);
  gilt_block_append_op(entry, call);
  GiltValue *result = returns ? gilt_op_get_result(call, 0) : NULL;
  gilt_block_append_op(entry, create(ctx, "llvm.return", loc, returns,
                                     &result, NULL, 0, NULL));
  gilt_free(ctx, args);
  gilt_block_insert_op_after(fn, thunk);
  gilt_op_remove_from_parent(fn);
  gilt_op_destroy(fn);
}

/* The group's shared body: the first function's blocks moved into a new
** function after it, whose extra arguments replace the parameters. */
static GiltOp *share_body(GiltOp *module, Group *g)
{
  GiltContext *ctx = gilt_op_get_context(module);
  GiltOp *first = g->first;
  /* `<first>__shared`, numbered where the name is taken. */
  char name[512];
  snprintf(name, sizeof name, "%s__shared", gilt_symbol_get_name(first));
  for (unsigned k = 1; gilt_symbol_table_lookup(module, name); k++)
    snprintf(name, sizeof name, "%s__shared%u", gilt_symbol_get_name(first),
             k);
  GiltType *type =
      gilt_type_attr_get_value(gilt_op_get_attr(first, "function_type"));
  size_t n = gilt_function_type_get_num_inputs(type);
  GiltType **inputs = gilt_calloc(ctx, n + g->params.len, sizeof *inputs);
  for (size_t i = 0; i < n; i++)
    inputs[i] = gilt_function_type_get_input(type, i);
  for (size_t i = 0; i < g->params.len; i++)
    inputs[n + i] = gilt_value_get_type(gilt_op_get_result(g->params.data[i], 0));
  size_t num_results = gilt_function_type_get_num_results(type);
  GiltType *result =
      num_results ? gilt_function_type_get_result(type, 0) : NULL;
  GiltOp *shared = function_like(
      first, name,
      gilt_function_type_get(ctx, n + g->params.len, inputs, num_results,
                             &result));
  gilt_free(ctx, inputs);
  /* Inlined into its thunks, it would be optimized and compiled once per
  ** thunk again, which is what sharing it saves. */
  gilt_op_set_attr(shared, "no_inline", gilt_unit_attr_get(ctx));
  GiltRegion *from = gilt_op_get_region(first, 0);
  GiltRegion *to = gilt_op_get_region(shared, 0);
  for (GiltBlock *b; (b = gilt_region_get_first_block(from));) {
    gilt_block_remove_from_parent(b);
    gilt_region_append_block(to, b);
  }
  GiltBlock *entry = gilt_region_get_first_block(to);
  for (size_t i = 0; i < g->params.len; i++) {
    GiltOp *p = g->params.data[i];
    GiltValue *arg = gilt_block_add_argument(
        entry, gilt_value_get_type(gilt_op_get_result(p, 0)),
        gilt_op_get_location(p));
    gilt_value_replace_all_uses_with(gilt_op_get_result(p, 0), arg);
  }
  gilt_block_insert_op_after(first, shared);
  return shared;
}

/* Makes g's shared body and its thunks; the parameters leave the body
** once the thunks have read their values. */
static void merge(GiltOp *module, Group *g)
{
  GiltOp *shared = share_body(module, g);
  make_thunk(g->first, shared, &g->params, NULL);
  for (size_t i = 0; i < g->members.len; i++)
    make_thunk(g->members.data[i], shared, &g->params, &g->values.data[i]);
  for (size_t i = 0; i < g->params.len; i++) {
    gilt_op_remove_from_parent(g->params.data[i]);
    gilt_op_destroy(g->params.data[i]);
  }
}

/* ---- the pass ------------------------------------------------------------- */

typedef struct Candidate {
  GiltOp *fn;
  uint32_t hash;
  bool taken; /* in a group already */
} Candidate;

static GiltStatus run(GiltPass *pass, GiltOp *module)
{
  GiltContext *ctx = gilt_pass_get_context(pass);
  GILT_VEC(Candidate) fns = {0};
  for (GiltOp *op = gilt_block_get_first_op(gilt_module_get_body(module)); op;
       op = gilt_op_get_next(op))
    if (mergeable(op)) {
      /* An integer constant's value does not count in the hash. */
      Candidate c = {op, gilt_region_hash_except(gilt_op_get_region(op, 0),
                                                 is_integer_constant),
                     false};
      gilt_vec_push(ctx, &fns, c);
    }
  int64_t merged = 0, bodies = 0, params = 0;
  for (size_t i = 0; i < fns.len; i++) {
    if (fns.data[i].taken)
      continue;
    Group g = {.first = fns.data[i].fn};
    gilt_ptr_map_init(&g.hot, ctx);
    innermost_loop_blocks(g.first, &g.hot);
    for (size_t j = i + 1; j < fns.len; j++)
      if (!fns.data[j].taken && fns.data[j].hash == fns.data[i].hash &&
          join(&g, fns.data[j].fn))
        fns.data[j].taken = true;
    if (g.members.len) {
      merged += (int64_t)g.members.len + 1;
      bodies++;
      params += (int64_t)g.params.len;
      merge(module, &g);
    }
    free_group(ctx, &g);
  }
  gilt_vec_free(ctx, &fns);
  if (!bodies)
    gilt_pass_mark_unchanged(pass);
  gilt_pass_add_statistic(pass, "num-merged",
                          "Number of functions that became thunks of a "
                          "shared body",
                          merged);
  gilt_pass_add_statistic(pass, "num-bodies", "Number of shared bodies made",
                          bodies);
  gilt_pass_add_statistic(pass, "num-parameters",
                          "Number of constants the shared bodies take as "
                          "arguments",
                          params);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_llvm_merge_functions_pass = {
    .name = "llvm-merge-functions",
    .description = "Share one body between private llvm.funcs that differ "
                   "only in integer constants, passed as arguments by "
                   "thunks",
    .anchor = "builtin.module",
    .options = NULL,
    .run = run,
};
