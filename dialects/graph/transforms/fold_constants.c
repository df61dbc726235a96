/*
** fold_constants.c - `graph-fold-constants`: evaluates at compile time
** every graph op whose operands are all graph.constant ops and replaces it
** by a graph.constant holding its results.
**
** Requires nothing; preserves the structure of the IR (no op moves; folded
** ops are erased and their constants put where they stood); invalidates
** nothing beyond the folded ops. Unlike `canonicalize`, which folds only
** results of up to 1024 elements so that it never bloats a module, this
** pass folds results of up to `max-elements` elements, through the same
** evaluator (graph_fold_limited in dialects/graph/fold_hook.c: scalar
** evaluators broadcast over the result, reshapes, Concat, Gather, Where,
** Shape and Size). Ops the evaluator cannot handle stay as they are.
** Results of more than 64 elements become dense resources, which the
** printer can elide and the lowerings pass around without copying. It is
** the classic constant propagation of a dataflow graph in one forward
** sweep: operands are visited before their users, so a chain of constant
** ops folds in one run.
** Not here: ops with regions (If, Loop), and `none` operands other than
** absent optional ones.
*/
#include "dialects/graph/graph.h"

#include <stdio.h>

#include "dialects/graph/transforms/passes.h"
#include "transforms/graph_to_loop/evaluate.h"

static const GiltPassOptionDef options[] = {
    {"max-elements", GILT_OPTION_INT, "1048576",
     "Largest result (in elements) the pass folds"},
    {0}};

typedef GILT_VEC(GiltOp *) OpList;

typedef struct Folder {
  GiltContext *ctx;
  GiltBuilder *builder;
  int64_t limit;
  int64_t num_folded;
  unsigned next_name; /* numbers the resources it creates */
} Folder;

static bool is_graph_op(GiltOp *op)
{
  return op->info->def && op->info->dialect &&
         op->info->dialect->def == &gilt_graph_dialect;
}

/* The constants of op's operands into consts (NULL for an absent optional
** operand); false when an operand is neither constant nor absent, or when
** nothing at all is constant. Shape and Size need no constant: they fold
** from their operand's static type. */
static bool constant_operands(GiltOp *op, GiltAttr **consts)
{
  if (graph_op_desc(op->info->def)->flags & GRAPH_FOLD_SHAPE)
    return true;
  bool any = false;
  for (size_t i = 0; i < op->num_operands; i++) {
    GiltValue *v = op->operands[i].value;
    consts[i] = graph_value_constant(v);
    if (!consts[i] && v->type->kind != GILT_TYPE_NONE)
      return false;
    any = any || consts[i];
  }
  return any;
}

/* A large dense result becomes a resource named after the pass. */
static GiltAttr *storage_for(Folder *f, GiltAttr *value)
{
  if (value->kind != GILT_ATTR_DENSE_ELEMENTS ||
      gilt_dense_attr_get_num_elements(value) <= GILT_INLINE_ELEMENTS ||
      gilt_dense_attr_is_splat(value))
    return value;
  size_t nbytes;
  const void *data = gilt_dense_attr_get_data(value, &nbytes);
  char name[32];
  snprintf(name, sizeof name, "folded_%u", f->next_name++);
  GiltAttr *res = gilt_dense_resource_attr_get(value->type, name, data,
                                               nbytes);
  return res ? res : value;
}

/* Materializes every result and replaces op; false (IR untouched) when a
** result did not fold to a constant. */
static bool replace_by_constants(Folder *f, GiltOp *op,
                                 const GiltFoldResult *out)
{
  for (size_t i = 0; i < op->num_results; i++)
    if (out[i].attr ? out[i].attr->type != gilt_op_result_array(op)[i].type
                    : !out[i].value)
      return false;
  gilt_builder_set_insertion_point_before(f->builder, op);
  for (size_t i = 0; i < op->num_results; i++) {
    GiltValue *v = out[i].value;
    if (!v) {
      GiltType *type = gilt_op_result_array(op)[i].type;
      GiltNamedAttr attr = {"value", storage_for(f, out[i].attr)};
      GiltOpState st = gilt_op_state_get("graph.constant", op->loc);
      st.num_results = 1;
      st.result_types = &type;
      st.num_attrs = 1;
      st.attrs = &attr;
      GiltOp *c = gilt_builder_create_op(f->builder, &st);
      if (!c)
        return false; /* only with a multi-result op: left unfolded */
      v = &gilt_op_result_array(c)[0];
    }
    gilt_value_replace_all_uses_with(&gilt_op_result_array(op)[i], v);
  }
  gilt_op_destroy(op);
  return true;
}

/* Through the lowering and the interpreter, within the size limit. */
static GiltStatus evaluate(Folder *f, GiltOp *op, GiltAttr *const *consts,
                           GiltFoldResult *out)
{
  for (size_t i = 0; i < op->num_results; i++) {
    int64_t n = gilt_shaped_type_get_num_elements(
        gilt_op_result_array(op)[i].type);
    if (n < 0 || n > f->limit)
      return GILT_FAILURE;
  }
  GiltAttr **results = gilt_calloc(f->ctx, op->num_results + 1,
                                   sizeof *results);
  GiltStatus st = graph_to_loop_evaluate(op, consts, results);
  for (size_t i = 0; st == GILT_SUCCESS && i < op->num_results; i++)
    out[i].attr = results[i];
  gilt_free(f->ctx, results);
  return st;
}

static void try_fold(Folder *f, GiltOp *op)
{
  if (!is_graph_op(op) || op->num_regions || !op->num_operands ||
      graph_op_is(op, GRAPH_OP_CONSTANT))
    return;
  GiltAttr **consts = gilt_calloc(f->ctx, op->num_operands, sizeof *consts);
  GiltFoldResult *out = gilt_calloc(f->ctx, op->num_results + 1,
                                    sizeof *out);
  if (constant_operands(op, consts) &&
      (graph_fold_limited(op, consts, f->limit, out) == GILT_SUCCESS ||
       evaluate(f, op, consts, out) == GILT_SUCCESS) &&
      replace_by_constants(f, op, out))
    f->num_folded++;
  gilt_free(f->ctx, consts);
  gilt_free(f->ctx, out);
}

static GiltWalkResult collect(GiltOp *op, void *user)
{
  OpList *ops = user;
  gilt_vec_push(op->loc->ctx, ops, op);
  return GILT_WALK_ADVANCE;
}

static GiltStatus run(GiltPass *pass, GiltOp *root)
{
  Folder f = {gilt_pass_get_context(pass), NULL,
              gilt_pass_get_option_int(pass, "max-elements"), 0, 0};
  f.builder = gilt_builder_create(f.ctx);
  /* Program order, producers first; an op is destroyed only when its own
  ** turn comes, so the list never holds a dangling op. */
  OpList ops = {0};
  gilt_op_walk(root, GILT_WALK_PRE_ORDER, collect, &ops);
  for (size_t i = 0; i < ops.len; i++)
    if (ops.data[i] != root)
      try_fold(&f, ops.data[i]);
  gilt_vec_free(f.ctx, &ops);
  gilt_builder_destroy(f.builder);
  gilt_pass_add_statistic(pass, "num-folded",
                          "Number of graph ops folded to constants",
                          f.num_folded);
  if (!f.num_folded)
    gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_graph_fold_constants_pass = {
    .name = "graph-fold-constants",
    .description = "Evaluate graph ops whose operands are all constants "
                   "and replace them by graph.constant ops",
    .anchor = NULL,
    .options = options,
    .run = run,
};
