/*
** inline.c - `inline`: inline calls to functions, callees first.
**
** Requires nothing; replaces call-like ops by a copy of the callee's body
** (each copied op located at `callsite(its location at the call's)`) and
** leaves the callees in place: erasing the private ones that become unused
** is symbol-dce's job, as in MLIR. Calls and callees are known by their
** interfaces (gilt/interfaces.h), not their names: any call-like op naming
** any callable op is a candidate, so func.call into func.func, and the
** same for the function and call ops of every other level or dialect.
**
** The order is MLIR's inliner: bottom-up over the call graph's strongly
** connected components (Tarjan, 1972), so a callee has had its own calls
** inlined before it is copied into its callers. A call is inlined when it
** names, with a flat reference, a callable whose region is one block
** ending in a return-like terminator and whose types match the call's
** argument operands and results. Calls between functions of one component
** (recursion) are never inlined, and neither are calls that were
** themselves copied in by inlining: that is what stops a recursive
** function from being unrolled into its callers once per iteration
** (MLIR's inline history). Calls outside any function come last. `max-iterations` bounds how often the whole graph is redone
** while something changes; with no simplification between iterations the
** second one normally finds nothing.
**
** Not here: a cost model (every eligible call is inlined), callees with
** several blocks (that needs the terminator to become a branch), or
** calls through function values.
**
** Statistic: num-inlined.
*/
#include "transforms/passes.h"

#include <string.h>

#include "gilt/interfaces.h"
#include "ir/op_def.h"
#include "ir/support/ptr_map.h"

typedef GILT_VEC(GiltOp *) OpVec;

typedef struct Node {
  GiltOp *func;
  GILT_VEC(size_t) callees; /* node indices, with repeats */
  long index, lowlink;      /* Tarjan's numbers; index -1: not visited */
  bool on_stack;
  size_t scc;
} Node;

typedef struct Inliner {
  GiltContext *ctx;
  GiltOp *root;
  GILT_VEC(Node) nodes;
  GiltPtrMap node_of;    /* callable op -> node index */
  GILT_VEC(size_t) order; /* nodes, callee components first */
  GILT_VEC(size_t) stack; /* Tarjan's stack */
  long counter;
  size_t num_sccs;
  GiltPtrMap copied_calls; /* calls created by inlining */
  int64_t num_inlined;
} Inliner;

static bool is_callable(GiltOp *op)
{
  return gilt_op_get_interface(op, &gilt_callable_interface) != NULL;
}

static bool is_call(GiltOp *op)
{
  return gilt_op_get_interface(op, &gilt_call_like_interface) != NULL;
}

/* The callable a call names with a flat reference, NULL if it names
** anything else. */
static GiltOp *callee_of(GiltOp *call)
{
  GiltAttr *ref = gilt_call_like_get_callee(call);
  if (!ref || ref->symref.n != 1)
    return NULL;
  return gilt_call_like_resolve_callee(call);
}

/* ---- the call graph -------------------------------------------------------- */

typedef struct CallWalk {
  Inliner *in;
  GiltOp *scope; /* the function (or root) whose calls these are */
  OpVec *calls;
} CallWalk;

/* Nested callables and symbol tables are scopes of their own. */
static GiltWalkResult collect_call(GiltOp *op, void *user)
{
  CallWalk *w = user;
  if (op != w->scope &&
      (is_callable(op) || gilt_op_has_trait(op, GILT_TRAIT_SYMBOL_TABLE)))
    return GILT_WALK_SKIP;
  if (is_call(op))
    gilt_vec_push(w->in->ctx, w->calls, op);
  return GILT_WALK_ADVANCE;
}

static void collect_calls(Inliner *in, GiltOp *scope, OpVec *calls)
{
  CallWalk w = {in, scope, calls};
  calls->len = 0;
  gilt_op_walk(scope, GILT_WALK_PRE_ORDER, collect_call, &w);
}

static GiltWalkResult add_node(GiltOp *op, void *user)
{
  Inliner *in = user;
  if (!is_callable(op))
    return GILT_WALK_ADVANCE;
  Node n;
  memset(&n, 0, sizeof n);
  n.func = op;
  n.index = -1;
  gilt_ptr_map_put(&in->node_of, op, in->nodes.len);
  gilt_vec_push(in->ctx, &in->nodes, n);
  return GILT_WALK_ADVANCE;
}

static void build_graph(Inliner *in)
{
  OpVec calls = {0};
  gilt_op_walk(in->root, GILT_WALK_PRE_ORDER, add_node, in);
  for (size_t i = 0; i < in->nodes.len; i++) {
    collect_calls(in, in->nodes.data[i].func, &calls);
    for (size_t j = 0; j < calls.len; j++) {
      GiltOp *callee = callee_of(calls.data[j]);
      size_t k;
      if (callee && gilt_ptr_map_get(&in->node_of, callee, &k))
        gilt_vec_push(in->ctx, &in->nodes.data[i].callees, k);
    }
  }
  gilt_vec_free(in->ctx, &calls);
}

/* Tarjan's algorithm; components come out callees first. */
static void strong_connect(Inliner *in, size_t v)
{
  in->nodes.data[v].index = in->nodes.data[v].lowlink = in->counter++;
  in->nodes.data[v].on_stack = true;
  gilt_vec_push(in->ctx, &in->stack, v);
  for (size_t i = 0; i < in->nodes.data[v].callees.len; i++) {
    size_t w = in->nodes.data[v].callees.data[i];
    Node *nw = &in->nodes.data[w];
    if (nw->index < 0) {
      strong_connect(in, w);
      if (nw->lowlink < in->nodes.data[v].lowlink)
        in->nodes.data[v].lowlink = nw->lowlink;
    } else if (nw->on_stack && nw->index < in->nodes.data[v].lowlink) {
      in->nodes.data[v].lowlink = nw->index;
    }
  }
  if (in->nodes.data[v].lowlink != in->nodes.data[v].index)
    return;
  size_t w;
  do {
    w = in->stack.data[--in->stack.len];
    in->nodes.data[w].on_stack = false;
    in->nodes.data[w].scc = in->num_sccs;
    gilt_vec_push(in->ctx, &in->order, w);
  } while (w != v);
  in->num_sccs++;
}

/* ---- inlining one call ------------------------------------------------------- */

static bool types_match(GiltOp *call, GiltBlock *body)
{
  GiltOp *ret = body->last;
  if (gilt_call_like_get_num_args(call) != body->num_args ||
      call->num_results != ret->num_operands)
    return false;
  for (size_t i = 0; i < body->num_args; i++)
    if (gilt_call_like_get_arg(call, i)->type != body->args[i]->type)
      return false;
  for (size_t i = 0; i < call->num_results; i++)
    if (gilt_op_result_array(call)[i].type != ret->operands[i].value->type)
      return false;
  return true;
}

/* Whether `call`, made from the component `scc` (or from outside any
** function when scc is SIZE_MAX), may be inlined. */
static GiltOp *inlinable_callee(Inliner *in, GiltOp *call, size_t scc)
{
  GiltOp *callee = callee_of(call);
  size_t k;
  if (!callee || !gilt_ptr_map_get(&in->node_of, callee, &k) ||
      in->nodes.data[k].scc == scc ||
      gilt_ptr_map_get(&in->copied_calls, call, NULL))
    return NULL;
  GiltRegion *body = gilt_callable_get_region(callee);
  if (!body || !body->first || body->first != body->last ||
      !body->first->last ||
      !gilt_op_has_trait(body->first->last, GILT_TRAIT_RETURN_LIKE) ||
      !types_match(call, body->first))
    return NULL;
  return callee;
}

typedef struct CopyWalk {
  Inliner *in;
  GiltLocation *call_loc;
} CopyWalk;

static GiltWalkResult adopt_copy(GiltOp *op, void *user)
{
  CopyWalk *w = user;
  op->loc = gilt_location_callsite_get(op->loc, w->call_loc);
  if (is_call(op))
    gilt_ptr_map_put(&w->in->copied_calls, op, 0);
  return GILT_WALK_ADVANCE;
}

static void inline_call(Inliner *in, GiltOp *call, GiltOp *callee)
{
  GiltBlock *body = gilt_callable_get_region(callee)->first;
  GiltIRMapping *m = gilt_ir_mapping_create(in->ctx);
  for (size_t i = 0; i < body->num_args; i++)
    gilt_ir_mapping_map(m, body->args[i], gilt_call_like_get_arg(call, i));
  CopyWalk w = {in, call->loc};
  for (GiltOp *op = body->first; op != body->last; op = op->next) {
    GiltOp *copy = gilt_op_clone_with_mapping(op, m);
    gilt_op_walk(copy, GILT_WALK_PRE_ORDER, adopt_copy, &w);
    gilt_block_insert_op_before(call, copy);
  }
  GiltOp *ret = body->last;
  for (size_t i = 0; i < call->num_results; i++)
    gilt_value_replace_all_uses_with(
        &gilt_op_result_array(call)[i],
        gilt_ir_mapping_lookup(m, ret->operands[i].value));
  gilt_ir_mapping_destroy(m);
  gilt_op_destroy(call);
  in->num_inlined++;
}

/* ---- the pass ------------------------------------------------------------------ */

static bool inline_calls_in(Inliner *in, GiltOp *scope, size_t scc)
{
  OpVec calls = {0};
  bool changed = false;
  collect_calls(in, scope, &calls);
  for (size_t i = 0; i < calls.len; i++) {
    GiltOp *callee = inlinable_callee(in, calls.data[i], scc);
    if (callee) {
      inline_call(in, calls.data[i], callee);
      changed = true;
    }
  }
  gilt_vec_free(in->ctx, &calls);
  return changed;
}

static void reset_graph(Inliner *in)
{
  for (size_t i = 0; i < in->nodes.len; i++)
    gilt_vec_free(in->ctx, &in->nodes.data[i].callees);
  in->nodes.len = in->order.len = in->stack.len = 0;
  in->counter = 0;
  in->num_sccs = 0;
  gilt_ptr_map_free(&in->node_of);
}

/* One bottom-up sweep over the call graph as it is now. */
static bool inline_once(Inliner *in)
{
  bool changed = false;
  build_graph(in);
  for (size_t v = 0; v < in->nodes.len; v++)
    if (in->nodes.data[v].index < 0)
      strong_connect(in, v);
  for (size_t i = 0; i < in->order.len; i++) {
    Node *n = &in->nodes.data[in->order.data[i]];
    changed |= inline_calls_in(in, n->func, n->scc);
  }
  changed |= inline_calls_in(in, in->root, SIZE_MAX);
  reset_graph(in);
  return changed;
}

static GiltStatus run(GiltPass *pass, GiltOp *op)
{
  Inliner in;
  memset(&in, 0, sizeof in);
  in.ctx = gilt_pass_get_context(pass);
  in.root = op;
  gilt_ptr_map_init(&in.node_of, in.ctx);
  gilt_ptr_map_init(&in.copied_calls, in.ctx);
  int64_t max = gilt_pass_get_option_int(pass, "max-iterations");
  for (int64_t i = 0; i < max && inline_once(&in); i++)
    continue;
  gilt_vec_free(in.ctx, &in.nodes);
  gilt_vec_free(in.ctx, &in.order);
  gilt_vec_free(in.ctx, &in.stack);
  gilt_ptr_map_free(&in.copied_calls);
  gilt_pass_add_statistic(pass, "num-inlined",
                          "Number of call sites inlined", in.num_inlined);
  if (!in.num_inlined)
    gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

static const GiltPassOptionDef options[] = {
    {"max-iterations", GILT_OPTION_INT, "4",
     "Sweeps over the call graph while calls keep being inlined"},
    {0}};

const GiltPassDef gilt_inline_pass = {
    .name = "inline",
    .description = "Inline calls to single-block functions, callees first",
    .anchor = NULL,
    .options = options,
    .run = run,
};
