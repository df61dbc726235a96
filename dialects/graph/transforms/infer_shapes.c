/*
** infer_shapes.c - `graph-infer-shapes`: makes result types more static
** where the graph ops' own inference knows more than the written types.
**
** An imported model keeps the types its importer wrote: a Reshape whose
** shape came out of a Shape -> Gather -> Concat subgraph is `tensor<?x?xf32>`
** even after `canonicalize,graph-fold-constants` turned that subgraph into
** a constant. This pass is ONNX shape inference (and TVM's InferType) over
** the IR: one forward sweep in program order asks each graph op's inference
** function (graph_infer_op, the one the verifier runs; it reads constant
** operands itself) for its result types given the current operands, and
** gives a result the most static type that both the written and the
** inferred type describe. A type never becomes less static; a written
** static dim that inference contradicts is the verifier's error at the op,
** and the pass fails. Region-carrying ops (If, Loop, Scan) have their
** bodies refined before themselves; other block arguments (the bodies'
** inputs, a function's parameters) keep their types. Last, a function whose
** returned values became more static gets them in its `function_type`.
**
** Types change only where every user accepts a more static operand: graph
** ops (their verifier asks for compatible types only) and the return of a
** function whose signature may change, that is one of a single block that
** no symbol refers to (a caller's call needs the exact types). Functions
** and their returns are known by interface and trait (any function-like op,
** a return-like terminator directly in it), not by func's op names.
** Requires nothing; preserves every op and value; invalidates nothing but
** the types it refines. Not here: folding the Shape ops that newly static
** types make constant (run `canonicalize` after it, and this pass again
** if shapes still depend on them), and refining a callee through its
** callers.
*/
#include "dialects/graph/graph.h"

#include "gilt/interfaces.h"
#include "ir/support/ptr_map.h"
#include "ir/symbol_table.h"
#include "dialects/graph/transforms/passes.h"

typedef struct Refiner {
  GiltContext *ctx;
  GiltPtrMap referenced; /* ops some symbol reference names */
  bool retype_ok;        /* the current function's results may change */
  int64_t num_refined;
} Refiner;

/* A return-like terminator of a function body (func.return), not of a
** region nested in it (whose yielded types belong to the region's op). */
static bool returns_from_function(GiltOp *op)
{
  return gilt_op_has_trait(op, GILT_TRAIT_RETURN_LIKE) &&
         gilt_op_is_function_like(gilt_op_get_parent_op(op));
}

static bool is_graph_op(GiltOp *op)
{
  return op->info->def && op->info->dialect &&
         op->info->dialect->def == &gilt_graph_dialect;
}

/* The most static type two compatible types describe: the written one's
** known dims and encoding, the inferred one's dims where it has `?`. */
static GiltType *meet(GiltContext *ctx, GiltType *written, GiltType *inferred)
{
  if (written == inferred || written->kind != GILT_TYPE_TENSOR ||
      inferred->kind != GILT_TYPE_TENSOR || !inferred->shaped.ranked)
    return written;
  if (!written->shaped.ranked)
    return inferred;
  size_t rank = written->shaped.rank;
  if (rank > GRAPH_MAX_RANK || inferred->shaped.rank != rank)
    return written;
  int64_t dims[GRAPH_MAX_RANK + 1];
  for (size_t d = 0; d < rank; d++)
    dims[d] = written->shaped.shape[d] != GILT_DYNAMIC
                  ? written->shaped.shape[d]
                  : inferred->shaped.shape[d];
  return gilt_tensor_type_get(ctx, rank, dims, written->shaped.elem,
                              gilt_tensor_type_get_encoding(written));
}

/* Whether every use of v takes a more static type without a change. */
static bool users_accept(const Refiner *r, GiltValue *v)
{
  for (GiltOperand *u = v->first_use; u; u = u->next_use)
    if (!is_graph_op(u->owner) &&
        !(r->retype_ok && returns_from_function(u->owner)))
      return false;
  return true;
}

static GiltStatus refine_op(Refiner *r, GiltOp *op)
{
  GiltType **types = gilt_calloc(r->ctx, op->num_results + 1, sizeof *types);
  GiltStatus st = graph_infer_op(op, types);
  if (st == GILT_SUCCESS)
    st = graph_check_result_types(op, types);
  for (size_t i = 0; st == GILT_SUCCESS && i < op->num_results; i++) {
    GiltValue *v = &gilt_op_result_array(op)[i];
    GiltType *t = types[i] ? meet(r->ctx, v->type, types[i]) : v->type;
    if (t != v->type && users_accept(r, v)) {
      gilt_value_set_type(v, t);
      r->num_refined++;
    }
  }
  gilt_free(r->ctx, types);
  return st;
}

/* The returned types into the signature of a single-block function. */
static void retype_function(GiltOp *func)
{
  GiltType *fnty = gilt_function_like_get_type(func);
  GiltBlock *entry = gilt_function_like_get_entry_block(func);
  GiltOp *ret = entry ? entry->last : NULL;
  if (!fnty || !ret || !returns_from_function(ret))
    return;
  size_t nin = fnty->func.num_inputs, nres = fnty->func.num_results;
  if (ret->num_operands != nres)
    return; /* the verifier reports it */
  GiltContext *ctx = func->loc->ctx;
  GiltType **results = gilt_calloc(ctx, nres + 1, sizeof *results);
  bool changed = false;
  for (size_t i = 0; i < nres; i++) {
    results[i] = ret->operands[i].value->type;
    changed = changed || results[i] != fnty->func.types[nin + i];
  }
  if (changed)
    gilt_op_set_attr(func, "function_type",
                     gilt_type_attr_get(gilt_function_type_get(
                         ctx, nin, fnty->func.types, nres, results)));
  gilt_free(ctx, results);
}

static bool may_retype(const Refiner *r, GiltOp *func)
{
  GiltBlock *entry = gilt_function_like_get_entry_block(func);
  return entry && !entry->next && !gilt_ptr_map_get(&r->referenced, func,
                                                    NULL);
}

static GiltStatus refine_regions(Refiner *r, GiltOp *op);

/* A Loop body's loop-carried arguments (after the iteration number and
** the condition) take the rank of the values they start from when the
** model left them unranked, as ONNX's shape inference gives a subgraph
** its inputs' types: with every dim `?`, since a carried value may change
** shape from one iteration to the next, but not its rank (the body's
** yields are checked against that afterwards). Returns how many it
** refined. */
static size_t rank_loop_arguments(Refiner *r, GiltOp *op)
{
  GiltBlock *body = op->num_regions ? gilt_op_region_array(op)[0].first
                                    : NULL;
  size_t n = 0;
  for (size_t i = 2; body && i < op->num_operands &&
                     i < gilt_block_get_num_arguments(body);
       i++) {
    GiltValue *arg = gilt_block_get_argument(body, i);
    GiltType *init = op->operands[i].value->type;
    if (arg->type->kind != GILT_TYPE_TENSOR || arg->type->shaped.ranked ||
        init->kind != GILT_TYPE_TENSOR || !init->shaped.ranked ||
        init->shaped.rank > GRAPH_MAX_RANK ||
        init->shaped.elem != arg->type->shaped.elem)
      continue;
    int64_t dims[GRAPH_MAX_RANK + 1];
    for (size_t d = 0; d < init->shaped.rank; d++)
      dims[d] = GILT_DYNAMIC;
    gilt_value_set_type(arg, gilt_tensor_type_get(r->ctx, init->shaped.rank,
                                                  dims, init->shaped.elem,
                                                  NULL));
    n++;
  }
  r->num_refined += n;
  return n;
}

/* After its body was refined: a loop-carried value must keep its rank. */
static GiltStatus check_loop_ranks(GiltOp *op)
{
  GiltBlock *body = gilt_op_region_array(op)[0].first;
  GiltOp *yield = body->last;
  for (size_t i = 2; i < op->num_operands && i < yield->num_operands + 1 &&
                     i < gilt_block_get_num_arguments(body);
       i++) {
    GiltType *arg = gilt_block_get_argument(body, i)->type;
    GiltType *next = yield->operands[i - 1].value->type;
    if (arg->kind == GILT_TYPE_TENSOR && next->kind == GILT_TYPE_TENSOR &&
        arg->shaped.ranked && next->shaped.ranked &&
        arg->shaped.rank != next->shaped.rank)
      return gilt_op_emit_error(op, "loop-carried value %zu starts with rank "
                                    "%zu and the body yields rank %zu",
                                i - 2, arg->shaped.rank, next->shaped.rank);
  }
  return GILT_SUCCESS;
}

/* Program order; an op's bodies before the op, whose inference reads
** what they yield. */
static GiltStatus refine_block(Refiner *r, GiltBlock *b)
{
  for (GiltOp *op = b->first; op; op = op->next) {
    bool loop = graph_op_is(op, GRAPH_OP_LOOP) && rank_loop_arguments(r, op);
    if (refine_regions(r, op) || (loop && check_loop_ranks(op)) ||
        (is_graph_op(op) && refine_op(r, op)))
      return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

/* A function's body under its own retype_ok, then its signature. */
static GiltStatus refine_regions(Refiner *r, GiltOp *op)
{
  bool outer = r->retype_ok, func = gilt_op_is_function_like(op);
  if (func)
    r->retype_ok = may_retype(r, op);
  GiltStatus st = GILT_SUCCESS;
  for (size_t i = 0; st == GILT_SUCCESS && i < op->num_regions; i++)
    for (GiltBlock *b = gilt_op_region_array(op)[i].first;
         b && st == GILT_SUCCESS; b = b->next)
      st = refine_block(r, b);
  if (func && st == GILT_SUCCESS && r->retype_ok)
    retype_function(op);
  r->retype_ok = outer;
  return st;
}

static GiltWalkResult note_referenced(GiltOp *user, GiltAttr *ref,
                                      void *data)
{
  GiltOp *target = gilt_symbol_lookup_nearest(user, ref);
  if (target)
    gilt_ptr_map_put(data, target, 1);
  return GILT_WALK_ADVANCE;
}

static GiltStatus run(GiltPass *pass, GiltOp *root)
{
  Refiner r = {gilt_pass_get_context(pass), {0}, false, 0};
  gilt_ptr_map_init(&r.referenced, r.ctx);
  /* Callers may sit anywhere in the scope, also outside root. */
  GiltOp *scope = gilt_symbol_table_get_nearest(root);
  if (scope)
    gilt_symbol_walk_uses(scope, note_referenced, &r.referenced);
  GiltStatus st = refine_regions(&r, root);
  gilt_ptr_map_free(&r.referenced);
  gilt_pass_add_statistic(pass, "num-refined",
                          "Number of results given a more static type",
                          r.num_refined);
  if (!r.num_refined)
    gilt_pass_mark_unchanged(pass);
  return st;
}

const GiltPassDef gilt_graph_infer_shapes_pass = {
    .name = "graph-infer-shapes",
    .description = "Refine result types of graph ops (and function "
                   "results) to the more static types their inference "
                   "gives for the current operands",
    .anchor = NULL,
    .options = NULL,
    .run = run,
};
