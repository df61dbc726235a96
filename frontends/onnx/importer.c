/*
** importer.c - ONNX models to the graph dialect: the walk over a model's
** graphs and the public entry points of include/gilt/onnx.h.
**
** A model becomes `builtin.module { func.func @main(...) }`. The graph
** inputs that are not initializers are the function's arguments,
** initializers become `graph.constant` ops holding dense resources, each
** node becomes one `graph.<snake_case op type>` op, and the graph outputs
** are returned. Subgraphs (If branches, Loop and Scan bodies) become the
** op's regions, one block each whose arguments are the subgraph's inputs
** (typed as the subgraph declares or, where it does not, as a Loop or Scan
** node implies), ending in `graph.yield`; they may read values of
** enclosing graphs, as ONNX allows, through a chain of scopes.
**
** Before building anything, every node (subgraphs included) is checked
** against the registered graph ops, and every unsupported one is reported
** at once: a user converting a model wants the whole list, not the first
** entry. Then nodes are built in order, stopping at the first failure.
** A node's result types are those the model declares (value_info, graph
** outputs) when they are fully static, else those the op infers, else the
** declared ones however dynamic; with none of these the node is an error.
**
** Not here: the conversion of attributes (attributes.c), the rewrites of
** older operator sets (version_upgrade.c), decoding files and tensors
** (model_reader.c, tensor_data.c). Nothing is verified: the caller does
** that, so that the verifier's diagnostics come in the usual order.
*/
#include "frontends/onnx/importer.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "dialects/graph/graph.h"
#include "gilt/register.h"
#include "ir/op_def.h"

static const char *str(const char *s)
{
  return s ? s : "";
}

/* ---- names -------------------------------------------------------------- */

/* ONNX op types are CamelCase with acronyms (QLinearConv, LRN, ReduceL1):
** a word starts at an uppercase letter after a lowercase letter or a digit,
** or at the last uppercase letter of an acronym followed by lowercase. */
bool gilt_onnx_op_name(const char *op_type, char *buf, size_t size)
{
  size_t n = 0;
  const char *prefix = "graph.";
  for (const char *p = prefix; *p; p++)
    if (n + 1 < size)
      buf[n++] = *p;
  for (size_t i = 0; op_type[i]; i++) {
    unsigned char c = (unsigned char)op_type[i];
    if (i > 0 && isupper(c)) {
      unsigned char prev = (unsigned char)op_type[i - 1];
      unsigned char next = (unsigned char)op_type[i + 1];
      if (islower(prev) || isdigit(prev) || (isupper(prev) && islower(next))) {
        if (n + 1 >= size)
          return false;
        buf[n++] = '_';
      }
    }
    if (n + 1 >= size)
      return false;
    buf[n++] = (char)tolower(c);
  }
  buf[n] = '\0';
  return true;
}

/* The op a node becomes, in buf; false when the op type is absurdly long
** or empty. */
static bool node_op_name(const GiltOnnxImporter *imp,
                         const Gilt__Onnx__NodeProto *node, char *buf,
                         size_t size)
{
  const char *op_type = str(node->op_type);
  if (!*op_type)
    return false;
  const char *renamed = gilt_onnx_upgraded_op_name(op_type, imp->opset);
  if (renamed) {
    snprintf(buf, size, "%s", renamed);
    return true;
  }
  return gilt_onnx_op_name(op_type, buf, size);
}

/* `loc("name"("model.onnx":index+1:1))`. Unnamed nodes are called
** "<op_type>_<index>", which is what most tools show for them. */
static GiltLocation *node_location(GiltOnnxImporter *imp,
                                   const Gilt__Onnx__NodeProto *node,
                                   size_t index, char *name_buf,
                                   size_t name_size, const char **name)
{
  *name = str(node->name);
  if (!**name) {
    snprintf(name_buf, name_size, "%s_%zu", str(node->op_type), index);
    *name = name_buf;
  }
  GiltLocation *file = gilt_location_file_line_col_get(
      imp->ctx, imp->file, (unsigned)index + 1, 1);
  return gilt_location_name_get(imp->ctx, *name, file);
}

/* ---- scopes ---------------------------------------------------------------- */

static void scope_push(GiltOnnxImporter *imp, GiltOnnxScope *s,
                       const Gilt__Onnx__GraphProto *graph)
{
  memset(s, 0, sizeof *s);
  gilt_name_map_init(&s->names, imp->ctx);
  s->graph = graph;
  s->parent = imp->scope;
  imp->scope = s;
}

static void scope_pop(GiltOnnxImporter *imp)
{
  GiltOnnxScope *s = imp->scope;
  imp->scope = s->parent;
  gilt_name_map_free(&s->names);
  gilt_vec_free(imp->ctx, &s->values);
}

/* A later definition of the same name shadows the earlier one, as in a
** subgraph that redefines an outer name. */
static void scope_define(GiltOnnxImporter *imp, const char *name,
                         GiltValue *v)
{
  GiltOnnxScope *s = imp->scope;
  bool added;
  uint32_t i = gilt_name_map_insert(&s->names, name, strlen(name), 0, &added);
  if (added)
    gilt_vec_push(imp->ctx, &s->values, v);
  else
    s->values.data[i] = v;
}

static GiltValue *scope_lookup(GiltOnnxImporter *imp, const char *name)
{
  for (GiltOnnxScope *s = imp->scope; s; s = s->parent) {
    uint32_t i = gilt_name_map_find(&s->names, name, strlen(name), 0);
    if (i != GILT_NAME_MAP_NONE)
      return s->values.data[i];
  }
  return NULL;
}

static const Gilt__Onnx__ValueInfoProto *find_value_info(
    const Gilt__Onnx__GraphProto *g, const char *name)
{
  for (size_t i = 0; i < g->n_value_info; i++)
    if (!strcmp(str(g->value_info[i]->name), name))
      return g->value_info[i];
  for (size_t i = 0; i < g->n_output; i++)
    if (!strcmp(str(g->output[i]->name), name))
      return g->output[i];
  return NULL;
}

/* A declaration without a tensor type of a supported element type is no
** declaration: value_info is a hint, and a hint gilt cannot use is not an
** error (the value's producer decides). */
GiltType *gilt_onnx_declared_type(GiltOnnxImporter *imp, const char *name)
{
  for (GiltOnnxScope *s = imp->scope; s; s = s->parent) {
    const Gilt__Onnx__ValueInfoProto *vi = find_value_info(s->graph, name);
    if (!vi)
      continue;
    const Gilt__Onnx__TypeProto__Tensor *tt =
        vi->type ? vi->type->tensor_type : NULL;
    if (!tt || !tt->has_elem_type ||
        !gilt_onnx_element_type_get(imp->ctx, tt->elem_type))
      return NULL;
    if (tt->shape)
      for (size_t i = 0; i < tt->shape->n_dim; i++)
        if (tt->shape->dim[i]->value_case ==
                GILT__ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
            tt->shape->dim[i]->dim_value < 0)
          return NULL;
    return gilt_onnx_reader_get_value_type(imp->r, vi, NULL);
  }
  return NULL;
}

static bool is_static(GiltType *t)
{
  return t && gilt_type_get_kind(t) == GILT_TYPE_TENSOR &&
         gilt_shaped_type_has_rank(t) && gilt_shaped_type_has_static_shape(t);
}

/* ---- creating ops ----------------------------------------------------------- */

GiltOp *gilt_onnx_emit(GiltOnnxImporter *imp, GiltLocation *loc,
                       const char *name, size_t num_operands,
                       GiltValue *const *operands, size_t num_attrs,
                       const GiltNamedAttr *attrs, size_t num_results,
                       GiltType *const *result_types)
{
  GiltOpState st = gilt_op_state_get(name, loc);
  st.num_operands = num_operands;
  st.operands = operands;
  st.num_attrs = num_attrs;
  st.attrs = attrs;
  st.num_results = result_types ? num_results : 0;
  st.result_types = result_types;
  st.infer_result_types = !result_types && num_results > 0;
  return gilt_builder_create_op(imp->b, &st);
}

GiltValue *gilt_onnx_emit_constant(GiltOnnxImporter *imp, GiltLocation *loc,
                                   GiltAttr *value)
{
  GiltNamedAttr attr = {"value", value};
  GiltType *type = gilt_attr_get_type(value);
  GiltOp *op =
      gilt_onnx_emit(imp, loc, "graph.constant", 0, NULL, 1, &attr, 1, &type);
  return op ? gilt_op_get_result(op, 0) : NULL;
}

/* Absent inputs: trailing ones are dropped, the others become the result
** of a `graph.none`, so that every operand keeps its ONNX position. */
static GiltStatus fill_absent_operands(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  while (n->operands.len && !n->operands.data[n->operands.len - 1])
    n->operands.len--;
  GiltValue *none = NULL;
  for (size_t i = 0; i < n->operands.len; i++) {
    if (n->operands.data[i])
      continue;
    if (!none) {
      GiltType *t = gilt_none_type_get(imp->ctx);
      GiltOp *op = gilt_onnx_emit(imp, n->loc, "graph.none", 0, NULL, 0, NULL,
                                  1, &t);
      if (!op)
        return GILT_FAILURE;
      none = gilt_op_get_result(op, 0);
    }
    n->operands.data[i] = none;
  }
  return GILT_SUCCESS;
}

/* The types of a subgraph's inputs as its node implies them, by block
** argument position; NULL entries imply nothing. */
typedef GILT_VEC(GiltType *) ImpliedTypes;

static GiltStatus import_subgraph(GiltOnnxImporter *imp,
                                  const Gilt__Onnx__GraphProto *g,
                                  const ImpliedTypes *implied,
                                  GiltRegion *region, GiltLocation *loc);

/* The result types of the node being built in `b`: see the file's
** comment for the order of preference. Without `use_declared` the
** model's declarations of the node's outputs are ignored. */
static GiltStatus set_result_types(GiltOnnxImporter *imp, GiltOnnxNode *n,
                                   GiltOpBuild *b, bool use_declared)
{
  GiltContext *ctx = imp->ctx;
  size_t num = n->num_outputs;
  GiltType **declared = gilt_calloc(ctx, num ? num : 1, sizeof *declared);
  bool all_static = true;
  for (size_t i = 0; i < num; i++) {
    const char *out = str(n->proto->output[i]);
    declared[i] =
        use_declared && *out ? gilt_onnx_declared_type(imp, out) : NULL;
    all_static = all_static && is_static(declared[i]);
  }
  const GiltOpDef *def = b->info->def;
  GiltStatus status = GILT_SUCCESS;
  b->result_types.len = 0;
  if (!all_static && def && def->infer_result_types) {
    status = def->infer_result_types(b);
    if (status == GILT_SUCCESS && b->result_types.len < num) {
      gilt_emit_error(n->loc,
                      "node '%s' (%s) has %zu outputs, but '%s' has %zu "
                      "results",
                      n->display_name, str(n->proto->op_type), num,
                      n->op_name, b->result_types.len);
      status = GILT_FAILURE;
    }
    b->result_types.len = num < b->result_types.len ? num : b->result_types.len;
    for (size_t i = 0; status == GILT_SUCCESS && i < num; i++)
      if (is_static(declared[i]))
        b->result_types.data[i] = declared[i];
  } else {
    for (size_t i = 0; status == GILT_SUCCESS && i < num; i++) {
      if (!declared[i]) {
        const char *out = str(n->proto->output[i]);
        gilt_emit_error(n->loc,
                        "cannot tell the type of output %zu%s%s%s of node "
                        "'%s' (%s): the model declares none and '%s' does "
                        "not infer it",
                        i, *out ? " ('" : "", out, *out ? "')" : "",
                        n->display_name, str(n->proto->op_type), n->op_name);
        status = GILT_FAILURE;
        break;
      }
      gilt_vec_push(ctx, &b->result_types, declared[i]);
    }
  }
  gilt_free(ctx, declared);
  return status;
}

/* An INT attribute's value, `dflt` when absent or of another kind. */
static int64_t int_attr(GiltAttr *a, int64_t dflt)
{
  return a && a->kind == GILT_ATTR_INTEGER ? gilt_integer_attr_get_value(a)
                                           : dflt;
}

/* A scan input's slice type: `t` without dimension `axis`. */
static GiltType *without_axis(GiltContext *ctx, GiltType *t, int64_t axis)
{
  if (!gilt_type_is_shaped(t) || !gilt_shaped_type_has_rank(t))
    return t;
  int64_t rank = (int64_t)gilt_shaped_type_get_rank(t), dims[64];
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank || rank > 64)
    return NULL;
  for (int64_t d = 0, k = 0; d < rank; d++)
    if (d != axis)
      dims[k++] = gilt_shaped_type_get_dim(t, (size_t)d);
  return gilt_tensor_type_get(ctx, (size_t)rank - 1, dims,
                              gilt_shaped_type_get_element_type(t), NULL);
}

/* ONNX lets a Loop or Scan body leave its inputs' types to the node
** (shape inference takes them from there): Loop's are the iteration
** number, the condition and the loop-carried values (v_initial's element
** types only: a carried value may change shape from one iteration to the
** next, and ONNX's inference clears the shape); Scan's are the states (the
** initial states' types) and the scan inputs' slices. Other ops imply
** nothing. `def` is the definition of the op the node becomes. */
static void implied_arg_types(GiltOnnxImporter *imp, GiltOnnxNode *n,
                              const GiltOpDef *def, ImpliedTypes *out)
{
  GiltContext *ctx = imp->ctx;
  size_t len = n->operands.len;
  if (def == &graph_ops[GRAPH_OP_LOOP]) {
    int32_t scalars[2] = {GILT__ONNX__TENSOR_PROTO__DATA_TYPE__INT64,
                          GILT__ONNX__TENSOR_PROTO__DATA_TYPE__BOOL};
    for (size_t i = 0; i < 2; i++)
      gilt_vec_push(ctx, out,
                    gilt_tensor_type_get(
                        ctx, 0, NULL,
                        gilt_onnx_element_type_get(ctx, scalars[i]), NULL));
    for (size_t i = 2; i < len; i++) {
      GiltType *t = gilt_value_get_type(n->operands.data[i]);
      if (gilt_type_get_kind(t) == GILT_TYPE_TENSOR)
        t = gilt_unranked_tensor_type_get(
            ctx, gilt_shaped_type_get_element_type(t));
      gilt_vec_push(ctx, out, t);
    }
  } else if (def == &graph_ops[GRAPH_OP_SCAN]) {
    int64_t scans =
        int_attr(gilt_onnx_node_get_attr(n, "num_scan_inputs"), 0);
    GiltAttr *axes = gilt_onnx_node_get_attr(n, "scan_input_axes");
    if (axes && axes->kind != GILT_ATTR_ARRAY)
      axes = NULL;
    size_t states = scans >= 0 && (size_t)scans < len ? len - (size_t)scans
                                                      : 0;
    for (size_t i = 0; i < len; i++) {
      GiltType *t = gilt_value_get_type(n->operands.data[i]);
      if (i >= states) {
        size_t k = i - states;
        GiltAttr *axis = axes && k < gilt_array_attr_get_size(axes)
                             ? gilt_array_attr_get_element(axes, k)
                             : NULL;
        t = without_axis(ctx, t, int_attr(axis, 0));
      }
      gilt_vec_push(ctx, out, t);
    }
  }
}

GiltOp *gilt_onnx_build_op(GiltOnnxImporter *imp, GiltOnnxNode *n,
                           bool use_declared)
{
  GiltContext *ctx = imp->ctx;
  if (fill_absent_operands(imp, n) != GILT_SUCCESS)
    return NULL;
  const GiltOpInfo *info =
      gilt_context_get_op_info(ctx, n->op_name, strlen(n->op_name), n->loc);
  if (!info)
    return NULL;
  GiltOpBuild b;
  gilt_op_build_init(&b, ctx, info, n->loc);
  for (size_t i = 0; i < n->operands.len; i++)
    gilt_vec_push(ctx, &b.operands, n->operands.data[i]);
  for (size_t i = 0; i < n->attrs.len; i++)
    gilt_op_build_add_attr(&b, n->attrs.data[i].name, n->attrs.data[i].attr);
  ImpliedTypes implied = {0};
  implied_arg_types(imp, n, info->def, &implied);
  for (size_t i = 0; i < n->graphs.len; i++) {
    GiltRegion *region = gilt_op_build_add_region(&b);
    if (import_subgraph(imp, n->graphs.data[i], &implied, region, n->loc) !=
        GILT_SUCCESS) {
      gilt_vec_free(ctx, &implied);
      gilt_op_build_discard(&b);
      return NULL;
    }
  }
  gilt_vec_free(ctx, &implied);
  if (set_result_types(imp, n, &b, use_declared) != GILT_SUCCESS) {
    gilt_op_build_discard(&b);
    return NULL;
  }
  GiltOp *op = gilt_op_build_finish(&b);
  if (op)
    gilt_builder_insert(imp->b, op);
  return op;
}

/* ---- nodes -------------------------------------------------------------------- */

static void node_free(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  gilt_vec_free(imp->ctx, &n->operands);
  gilt_vec_free(imp->ctx, &n->attrs);
  gilt_vec_free(imp->ctx, &n->graphs);
  gilt_free(imp->ctx, n->results);
}

/* ONNX op types whose graph op takes more operands than ONNX gives (a
** Conv's or Gemm's residual Z, a MatMul's bias C and Z, which only
** graph-fuse-epilogues sets): the most inputs a node of the type may
** have, so that a malformed node is rejected rather than read as the
** extra operand. */
static const struct {
  const char *op_type;
  size_t max_inputs;
} input_limits[] = {{"Conv", 3}, {"Gemm", 3}, {"MatMul", 2}};

static GiltStatus gather_operands(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  const Gilt__Onnx__NodeProto *p = n->proto;
  for (size_t i = 0; i < sizeof input_limits / sizeof *input_limits; i++)
    if (!strcmp(str(p->op_type), input_limits[i].op_type) &&
        p->n_input > input_limits[i].max_inputs) {
      gilt_emit_error(n->loc, "node '%s' (%s) has %zu inputs; it takes at "
                      "most %zu",
                      n->display_name, str(p->op_type), p->n_input,
                      input_limits[i].max_inputs);
      return GILT_FAILURE;
    }
  for (size_t i = 0; i < p->n_input; i++) {
    const char *in = str(p->input[i]);
    GiltValue *v = NULL;
    if (*in && !(v = scope_lookup(imp, in))) {
      gilt_emit_error(n->loc,
                      "node '%s' (%s) reads '%s', which no graph input, "
                      "initializer or earlier node defines",
                      n->display_name, str(p->op_type), in);
      return GILT_FAILURE;
    }
    gilt_vec_push(imp->ctx, &n->operands, v);
  }
  return GILT_SUCCESS;
}

static GiltStatus import_node(GiltOnnxImporter *imp,
                              const Gilt__Onnx__NodeProto *proto, size_t index)
{
  GiltOnnxNode n;
  memset(&n, 0, sizeof n);
  n.proto = proto;
  n.loc = node_location(imp, proto, index, n.display_buf,
                        sizeof n.display_buf, &n.display_name);
  n.num_outputs = proto->n_output;
  while (n.num_outputs && !*str(proto->output[n.num_outputs - 1]))
    n.num_outputs--;
  if (!node_op_name(imp, proto, n.op_name, sizeof n.op_name)) {
    gilt_emit_error(n.loc, "node '%s' has no usable op_type",
                    n.display_name);
    return GILT_FAILURE;
  }
  GiltStatus status = gather_operands(imp, &n);
  if (status == GILT_SUCCESS)
    status = gilt_onnx_convert_attributes(imp, &n);
  if (status == GILT_SUCCESS)
    status = gilt_onnx_upgrade_node(imp, &n);
  if (status == GILT_SUCCESS && !n.results) {
    GiltOp *op = gilt_onnx_build_op(imp, &n, true);
    if (!op)
      status = GILT_FAILURE;
    else
      for (size_t i = 0; i < n.num_outputs; i++)
        if (*str(proto->output[i]))
          scope_define(imp, proto->output[i], gilt_op_get_result(op, i));
  } else if (status == GILT_SUCCESS) {
    for (size_t i = 0; i < n.num_outputs; i++)
      if (*str(proto->output[i]))
        scope_define(imp, proto->output[i], n.results[i]);
  }
  node_free(imp, &n);
  return status;
}

/* ---- graphs --------------------------------------------------------------------- */

static bool is_initializer(const Gilt__Onnx__GraphProto *g, const char *name)
{
  for (size_t i = 0; i < g->n_initializer; i++)
    if (!strcmp(str(g->initializer[i]->name), name))
      return true;
  return false;
}

static GiltStatus import_initializers(GiltOnnxImporter *imp,
                                      const Gilt__Onnx__GraphProto *g)
{
  for (size_t i = 0; i < g->n_initializer; i++) {
    const Gilt__Onnx__TensorProto *t = g->initializer[i];
    const char *name = str(t->name);
    GiltLocation *loc = gilt_location_name_get(imp->ctx, name, NULL);
    GiltAttr *value = gilt_onnx_tensor_attr(imp, t, name, 0, loc);
    GiltValue *v = value ? gilt_onnx_emit_constant(imp, loc, value) : NULL;
    if (!v)
      return GILT_FAILURE;
    scope_define(imp, name, v);
  }
  return GILT_SUCCESS;
}

static GiltStatus import_nodes(GiltOnnxImporter *imp,
                               const Gilt__Onnx__GraphProto *g)
{
  for (size_t i = 0; i < g->n_node; i++)
    if (import_node(imp, g->node[i], i) != GILT_SUCCESS)
      return GILT_FAILURE;
  return GILT_SUCCESS;
}

/* The values of the graph's outputs, in a vector the caller frees. */
static GiltValue **graph_outputs(GiltOnnxImporter *imp,
                                 const Gilt__Onnx__GraphProto *g)
{
  GiltValue **outs = gilt_calloc(imp->ctx, g->n_output ? g->n_output : 1,
                                 sizeof *outs);
  for (size_t i = 0; i < g->n_output; i++) {
    const char *name = str(g->output[i]->name);
    outs[i] = scope_lookup(imp, name);
    if (!outs[i]) {
      gilt_emit_error(gilt_location_name_get(imp->ctx, name, NULL),
                      "'%s': graph '%s' outputs '%s', which nothing defines",
                      imp->file, str(g->name), name);
      gilt_free(imp->ctx, outs);
      return NULL;
    }
  }
  return outs;
}

/* The arguments of a graph's block: its inputs minus the initializers
** (which old exporters list as inputs too). */
typedef struct GraphArgs {
  GILT_VEC(GiltType *) types;
  GILT_VEC(GiltLocation *) locs;
  GILT_VEC(const char *) names;
} GraphArgs;

static void graph_args_free(GiltContext *ctx, GraphArgs *a)
{
  gilt_vec_free(ctx, &a->types);
  gilt_vec_free(ctx, &a->locs);
  gilt_vec_free(ctx, &a->names);
}

/* An input without a type takes the one `implied` has at its position,
** when there is one. */
static GiltStatus graph_arguments(GiltOnnxImporter *imp,
                                  const Gilt__Onnx__GraphProto *g,
                                  const ImpliedTypes *implied, GraphArgs *a)
{
  for (size_t i = 0; i < g->n_input; i++) {
    const Gilt__Onnx__ValueInfoProto *vi = g->input[i];
    const char *name = str(vi->name);
    if (is_initializer(g, name))
      continue;
    GiltLocation *loc = gilt_location_name_get(imp->ctx, name, NULL);
    size_t pos = a->types.len;
    GiltType *t = !vi->type && implied && pos < implied->len &&
                          implied->data[pos]
                      ? implied->data[pos]
                      : gilt_onnx_reader_get_value_type(imp->r, vi, loc);
    if (!t)
      return GILT_FAILURE;
    gilt_vec_push(imp->ctx, &a->types, t);
    gilt_vec_push(imp->ctx, &a->locs, loc);
    gilt_vec_push(imp->ctx, &a->names, name);
  }
  return GILT_SUCCESS;
}

/* Fills `block` (at the end of which the builder stands) from the graph:
** its arguments named, initializers, nodes; returns the outputs. */
static GiltValue **import_graph_body(GiltOnnxImporter *imp,
                                     const Gilt__Onnx__GraphProto *g,
                                     GiltBlock *block, const char **arg_names)
{
  for (size_t i = 0; i < gilt_block_get_num_arguments(block); i++)
    scope_define(imp, arg_names[i], gilt_block_get_argument(block, i));
  if (import_initializers(imp, g) != GILT_SUCCESS ||
      import_nodes(imp, g) != GILT_SUCCESS)
    return NULL;
  return graph_outputs(imp, g);
}

static GiltStatus import_subgraph(GiltOnnxImporter *imp,
                                  const Gilt__Onnx__GraphProto *g,
                                  const ImpliedTypes *implied,
                                  GiltRegion *region, GiltLocation *loc)
{
  GiltContext *ctx = imp->ctx;
  GraphArgs a = {0};
  GiltStatus status = GILT_FAILURE;
  GiltBlock *saved = gilt_builder_get_insertion_block(imp->b);
  GiltOnnxScope scope;
  scope_push(imp, &scope, g);
  if (graph_arguments(imp, g, implied, &a) == GILT_SUCCESS) {
    GiltBlock *block = gilt_block_create(ctx, a.types.len, a.types.data, a.locs.data);
    gilt_region_append_block(region, block);
    gilt_builder_set_insertion_point_to_end(imp->b, block);
    GiltValue **outs = import_graph_body(imp, g, block, a.names.data);
    if (outs && gilt_onnx_emit(imp, loc, "graph.yield", g->n_output, outs, 0,
                               NULL, 0, NULL))
      status = GILT_SUCCESS;
    gilt_free(ctx, outs);
  }
  scope_pop(imp);
  gilt_builder_set_insertion_point_to_end(imp->b, saved);
  graph_args_free(ctx, &a);
  return status;
}

/* func.func @main: its type is known only once the outputs are, so it is
** created with no results and retyped at the end. */
static GiltOp *import_main(GiltOnnxImporter *imp, GiltOp *module)
{
  GiltContext *ctx = imp->ctx;
  const Gilt__Onnx__GraphProto *g = gilt_onnx_reader_get_graph(imp->r);
  GraphArgs a = {0};
  GiltOp *func = NULL;
  GiltOnnxScope scope;
  scope_push(imp, &scope, g);
  if (graph_arguments(imp, g, NULL, &a) == GILT_SUCCESS) {
    GiltType *fty = gilt_function_type_get(ctx, a.types.len, a.types.data, 0, NULL);
    GiltLocation *loc = gilt_location_file_line_col_get(ctx, imp->file, 0, 0);
    func = gilt_func_create(ctx, loc, "main", fty);
    gilt_block_append_op(gilt_module_get_body(module), func);
    GiltBlock *entry = gilt_func_get_entry_block(func);
    /* gilt_func_create gives the arguments unknown locations. */
    for (size_t i = 0; i < a.types.len; i++)
      *gilt_block_arg_loc(gilt_block_get_argument(entry, i)) = a.locs.data[i];
    gilt_builder_set_insertion_point_to_end(imp->b, entry);
    GiltValue **outs = import_graph_body(imp, g, entry, a.names.data);
    GiltOp *ret = NULL;
    if (outs)
      ret = gilt_onnx_emit(imp, loc, "func.return", g->n_output, outs, 0,
                           NULL, 0, NULL);
    if (ret) {
      GiltType **res = gilt_calloc(ctx, g->n_output + 1, sizeof *res);
      for (size_t i = 0; i < g->n_output; i++)
        res[i] = gilt_value_get_type(outs[i]);
      fty = gilt_function_type_get(ctx, a.types.len, a.types.data, g->n_output,
                                   res);
      gilt_op_set_attr(func, "function_type", gilt_type_attr_get(fty));
      gilt_free(ctx, res);
    } else {
      func = NULL;
    }
    gilt_free(ctx, outs);
  }
  scope_pop(imp);
  graph_args_free(ctx, &a);
  return func;
}

/* ---- the up-front check -------------------------------------------------------- */

/* Reports every node whose op is not registered, subgraphs included;
** returns how many. */
static size_t report_unsupported(GiltOnnxImporter *imp,
                                 const Gilt__Onnx__GraphProto *g)
{
  size_t bad = 0;
  bool allow = gilt_context_get_allow_unregistered_dialects(imp->ctx);
  for (size_t i = 0; i < g->n_node; i++) {
    const Gilt__Onnx__NodeProto *node = g->node[i];
    char op_name[128], name_buf[96];
    const char *display;
    GiltLocation *loc =
        node_location(imp, node, i, name_buf, sizeof name_buf, &display);
    /* Versions are those of the default domain's operators; a custom
    ** domain's op of the same name is another operator. */
    int version = gilt_onnx_is_default_domain(node->domain)
                      ? gilt_onnx_unimported_version(str(node->op_type),
                                                     imp->opset)
                      : 0;
    if (!node_op_name(imp, node, op_name, sizeof op_name) ||
        (!allow && !gilt_context_is_registered_op(imp->ctx, op_name))) {
      /* No "in node": the location names the node, and printing shows it. */
      gilt_emit_error(loc, "unsupported ONNX operator '%s' (version %lld)",
                      str(node->op_type), (long long)imp->opset);
      bad++;
    } else if (version) {
      /* Known to gilt, but not in the version this opset selects: reading
      ** it with its opset-17 meaning would be silently wrong. */
      gilt_emit_error(loc,
                      "unsupported version %d of ONNX operator '%s' (opset "
                      "%lld)",
                      version, str(node->op_type), (long long)imp->opset);
      bad++;
    }
    for (size_t j = 0; j < node->n_attribute; j++)
      if (node->attribute[j]->g)
        bad += report_unsupported(imp, node->attribute[j]->g);
  }
  return bad;
}

/* ---- entry points ---------------------------------------------------------------- */

/* The names of the main graph's outputs, as an array of strings. */
static GiltAttr *output_names(GiltContext *ctx,
                              const Gilt__Onnx__GraphProto *g)
{
  GiltAttr **names = gilt_calloc(ctx, g->n_output + 1, sizeof *names);
  for (size_t i = 0; i < g->n_output; i++) {
    const char *name = str(g->output[i]->name);
    names[i] = gilt_string_attr_get(ctx, name, strlen(name));
  }
  GiltAttr *a = gilt_array_attr_get(ctx, g->n_output, names);
  gilt_free(ctx, names);
  return a;
}

static GiltOp *import(GiltContext *ctx, GiltOnnxReader *r, GiltAttr **names)
{
  if (!r)
    return NULL;
  /* The importer produces graph ops, so it loads their dialect itself, as
  ** MLIR's importers load theirs. */
  gilt_register_graph_dialect(ctx);
  GiltOnnxImporter imp = {.ctx = ctx,
                          .r = r,
                          .file = gilt_onnx_reader_get_file_name(r),
                          .opset = gilt_onnx_reader_get_opset_version(r, "")};
  GiltOp *module = NULL;
  if (report_unsupported(&imp, gilt_onnx_reader_get_graph(r)) == 0) {
    imp.b = gilt_builder_create(ctx);
    module = gilt_module_create(
        ctx, gilt_location_file_line_col_get(ctx, imp.file, 0, 0));
    if (!import_main(&imp, module)) {
      gilt_op_destroy(module);
      module = NULL;
    } else if (names) {
      *names = output_names(ctx, gilt_onnx_reader_get_graph(r));
    }
    gilt_builder_destroy(imp.b);
  }
  gilt_onnx_reader_destroy(r);
  return module;
}

GiltOp *gilt_onnx_import_file(GiltContext *ctx, const char *path)
{
  return import(ctx, gilt_onnx_reader_open_model(ctx, path), NULL);
}

GiltOp *gilt_onnx_import_file_named(GiltContext *ctx, const char *path,
                                    GiltAttr **output_names)
{
  return import(ctx, gilt_onnx_reader_open_model(ctx, path), output_names);
}

GiltOp *gilt_onnx_import_buffer(GiltContext *ctx, const void *data,
                                size_t len, const char *name, const char *dir)
{
  return import(ctx,
                gilt_onnx_reader_open_model_buffer(ctx, data, len, name, dir),
                NULL);
}
