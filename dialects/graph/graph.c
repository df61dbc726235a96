/*
** graph.c - the graph dialect's op table and the hooks every row shares.
**
** The table is the concatenation of the family .def files (graph.def for
** graph.constant, graph.none and graph.yield, then elementwise.def, ...).
** Each GRAPH_OP row expands twice here: once into the GiltOpDef array the
** context registers (graph_ops, indexed by the GraphOpId that graph.h
** expands from the rows' symbols), once into a parallel GraphOpDesc array,
** so a hook finds its op's descriptor from the definition pointer alone.
** Every row gets the same verify, infer_result_types, fold, print and
** parse hooks; what differs per op is data in its descriptor.
**
** Verification is inference: the family's inference function checks
** operands and attributes (naming the one at fault) and computes result
** types, which must agree with the written ones wherever both are known.
** Around every inference function run the checks all ops share: before
** it, no operand's element count overflows int64; after it, no inferred
** result has a negative dim or such a count.
** Not here: the families' inference (elementwise.c, ...), folding
** (fold_hook.c), the custom form (assembly.c).
*/
#include "dialects/graph/graph.h"

#include "gilt/register.h"
#include "ir/rewrite/rewrite.h"
#include "ir/support/checked_math.h"

/* ---- the table ---------------------------------------------------------------- */

static GiltFusionKind graph_fusion_kind(GiltOp *op)
{
  return graph_op_desc(gilt_op_get_def(op))->fusion;
}

static const GiltFusionKindMethods graph_fusion_methods = {graph_fusion_kind};

/* Every graph op implements the same interfaces, each reading the op's
** descriptor. */
static const GiltInterfaceImpl graph_interfaces[] = {
    {&gilt_fusion_kind_interface, &graph_fusion_methods},
    {0, 0},
};

const GiltOpDef graph_ops[GRAPH_NUM_OPS] = {
#define GRAPH_OP(sym, name, traits, operands, results, attrs, fusion, infer, \
                 cats, result, eval, flags, canon)                            \
  GILT_OP_ROW(name, traits, operands, results, attrs,                        \
              (flags) & GRAPH_TWO_REGIONS  ? 2                               \
              : (flags) & GRAPH_ONE_REGION ? 1                               \
                                           : 0,                              \
              0,                                                             \
              .verify = graph_verify,                                        \
              .infer_result_types = graph_infer_result_types,                \
              .fold = graph_fold, .canonicalization_patterns = (canon),      \
              .print = graph_print, .parse = graph_parse,                    \
              .interfaces = graph_interfaces)
#include "dialects/graph/ops.def"
#undef GRAPH_OP
};

static const GraphOpDesc graph_descs[] = {
#define GRAPH_OP(sym, name, traits, operands, results, attrs, fusion, infer, \
                 cats, result, eval, flags, canon)                            \
  {(infer), (cats), (result), (eval), (flags), (fusion)},
#include "dialects/graph/ops.def"
#undef GRAPH_OP
};

#define NUM_OPS (sizeof graph_ops / sizeof *graph_ops)
_Static_assert(sizeof graph_descs / sizeof *graph_descs == NUM_OPS,
               "one descriptor per op");

const GraphOpDesc *graph_op_desc(const GiltOpDef *def)
{
  GILT_ASSERT(def >= graph_ops && def < graph_ops + NUM_OPS);
  return &graph_descs[def - graph_ops];
}

/* ---- verification and inference --------------------------------------------- */

/* What the first region of a control-flow op (If, Loop, Scan) yields
** that becomes results: all of it but Loop's condition. */
static size_t num_yielded_results(const GiltOpBuild *b)
{
  GiltBlock *block = b->regions.len ? b->regions.data[0]->first : NULL;
  GiltOp *y = block ? block->last : NULL;
  if (!graph_op_is(y, GRAPH_OP_YIELD))
    return 0;
  bool loop = b->info->def == &graph_ops[GRAPH_OP_LOOP];
  return loop && y->num_operands ? y->num_operands - 1 : y->num_operands;
}

/* The results a build without types gets: every result the op can have,
** optional ones included (a builder keeps the leading ones it needs, as
** the ONNX importer does), and for a variadic list as many as attribute
** `num_outputs` says or, without it, as a constant `split` operand has
** entries (Split, opset 13) or the op's region yields (control flow). */
static size_t num_inferred_results(const GiltOpBuild *b, GiltAttr *attrs)
{
  const GiltOpInfo *info = b->info;
  size_t n = 0;
  for (size_t i = 0; i < info->num_result_specs; i++) {
    if (info->result_specs[i].variadic) {
      GiltAttr *split =
          b->operands.len > 1 ? graph_value_constant(b->operands.data[1])
                              : NULL;
      int64_t k = graph_dict_int(
          attrs, "num_outputs",
          split ? gilt_dense_attr_get_num_elements(split)
                : (int64_t)num_yielded_results(b));
      n += k > 0 && k <= 4096 ? (size_t)k : 0;
    } else {
      n++;
    }
  }
  return n;
}

/* Whether two types can describe the same value: equal, or tensors of the
** same element type whose ranks and known dims agree. */
static bool types_compatible(GiltType *a, GiltType *b)
{
  if (a == b)
    return true;
  if (a->kind != GILT_TYPE_TENSOR || b->kind != GILT_TYPE_TENSOR ||
      a->shaped.elem != b->shaped.elem)
    return false;
  if (!a->shaped.ranked || !b->shaped.ranked)
    return true;
  if (a->shaped.rank != b->shaped.rank)
    return false;
  for (size_t i = 0; i < a->shaped.rank; i++) {
    int64_t x = a->shaped.shape[i], y = b->shaped.shape[i];
    if (x != GILT_DYNAMIC && y != GILT_DYNAMIC && x != y)
      return false;
  }
  return true;
}

static GiltStatus report_mismatch(GiltOp *op, GiltType *inferred,
                                  GiltType *written)
{
  GiltContext *ctx = op->loc->ctx;
  GiltStrBuf a, b;
  gilt_strbuf_init(&a, ctx);
  gilt_strbuf_init(&b, ctx);
  gilt_type_print(inferred, gilt_strbuf_callback, &a);
  gilt_type_print(written, gilt_strbuf_callback, &b);
  gilt_op_emit_error(op, "inferred type '%s' does not match result type "
                     "'%s'", a.data ? a.data : "", b.data ? b.data : "");
  gilt_strbuf_free(&a);
  gilt_strbuf_free(&b);
  return GILT_FAILURE;
}

/* A result inference made up must be a shape some tensor can have: no
** negative dims (a negative size in a shape operand or attribute that the
** op's own checks let through) and an element count int64 holds. */
static GiltStatus check_inferred_shapes(const GraphOpView *v,
                                        GiltType *const *types, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    GiltType *t = types[i];
    if (!t || t->kind != GILT_TYPE_TENSOR || !t->shaped.ranked)
      continue;
    for (size_t d = 0; d < t->shaped.rank; d++)
      if (t->shaped.shape[d] < 0 && t->shaped.shape[d] != GILT_DYNAMIC)
        return graph_error(v, "result %zu would have negative dimension "
                           "%zu (%lld)", i, d,
                           (long long)t->shaped.shape[d]);
    int64_t count;
    if (gilt_dims_product(t->shaped.rank, t->shaped.shape, &count))
      return graph_error(v, "the dimension product of result %zu overflows "
                         "int64", i);
  }
  return GILT_SUCCESS;
}

/* Inference on a view, between the checks every op shares. */
static GiltStatus infer_view(const GraphOpView *v, GiltType **types,
                             size_t num_types)
{
  if (graph_check_operand_shapes(v) || v->desc->infer(v, types))
    return GILT_FAILURE;
  return check_inferred_shapes(v, types, num_types);
}

GiltStatus graph_infer_op(GiltOp *op, GiltType **types)
{
  GiltContext *ctx = op->loc->ctx;
  size_t n = op->num_operands;
  GiltValue **operands = gilt_calloc(ctx, n + 1, sizeof *operands);
  GiltRegion **regions = gilt_calloc(ctx, op->num_regions + 1,
                                     sizeof *regions);
  for (size_t i = 0; i < n; i++)
    operands[i] = op->operands[i].value;
  for (size_t i = 0; i < op->num_regions; i++)
    regions[i] = &gilt_op_region_array(op)[i];
  GraphOpView v = {ctx, op->loc, op->info, graph_op_desc(op->info->def),
                   n, operands, op->attrs, op->num_results, NULL,
                   op->num_regions, regions};
  GiltStatus st = infer_view(&v, types, op->num_results);
  gilt_free(ctx, operands);
  gilt_free(ctx, regions);
  return st;
}

GiltStatus graph_check_result_types(GiltOp *op, GiltType *const *types)
{
  /* A `none` result stands for an absent optional output. */
  for (size_t i = 0; i < op->num_results; i++)
    if (types[i] && gilt_op_result_array(op)[i].type->kind != GILT_TYPE_NONE &&
        !types_compatible(types[i], gilt_op_result_array(op)[i].type))
      return report_mismatch(op, types[i], gilt_op_result_array(op)[i].type);
  return GILT_SUCCESS;
}

GiltStatus graph_verify(GiltOp *op)
{
  GiltContext *ctx = op->loc->ctx;
  GiltType **types = gilt_calloc(ctx, op->num_results + 1, sizeof *types);
  GiltStatus st = graph_infer_op(op, types);
  if (st == GILT_SUCCESS)
    st = graph_check_result_types(op, types);
  gilt_free(ctx, types);
  return st;
}

GiltStatus graph_infer_result_types(GiltOpBuild *b)
{
  GiltIdent *dup = NULL;
  GiltAttr *dict = gilt_dictionary_attr_get_i(b->ctx, b->attrs.len,
                                              b->attrs.data, &dup);
  if (!dict)
    return GILT_SUCCESS; /* gilt_op_build_finish reports the repeat */
  /* The verifier checks the signature before inference; a builder has not
  ** yet, and inference reads operands by position. */
  size_t need = 0;
  for (size_t i = 0; i < b->info->num_operand_specs; i++)
    need += !b->info->operand_specs[i].optional &&
            !b->info->operand_specs[i].variadic;
  if (b->operands.len < need) {
    gilt_emit_error(b->loc, "'%s' op requires %zu operands, got %zu",
                    b->info->name->str, need, b->operands.len);
    return GILT_FAILURE;
  }
  size_t r = num_inferred_results(b, dict);
  GiltType **types = gilt_calloc(b->ctx, r + 1, sizeof *types);
  GraphOpView v = {b->ctx, b->loc, b->info, graph_op_desc(b->info->def),
                   b->operands.len, b->operands.data, dict, r, NULL,
                   b->regions.len, b->regions.data};
  GiltStatus st = infer_view(&v, types, r);
  for (size_t i = 0; st == GILT_SUCCESS && i < r; i++) {
    if (!types[i]) {
      st = graph_error(&v, "cannot infer the type of result %zu", i);
      break;
    }
    gilt_vec_push(b->ctx, &b->result_types, types[i]);
  }
  gilt_free(b->ctx, types);
  return st;
}

/* ---- graph.constant, graph.none, graph.yield -------------------------------- */

GiltStatus graph_infer_constant(const GraphOpView *v, GiltType **types)
{
  GiltAttr *value = gilt_dictionary_attr_lookup(v->attrs, "value");
  if (!value)
    return graph_error(v, "requires attribute 'value'");
  if ((value->kind != GILT_ATTR_DENSE_ELEMENTS &&
       value->kind != GILT_ATTR_DENSE_RESOURCE) ||
      value->type->kind != GILT_TYPE_TENSOR)
    return graph_error(v, "attribute 'value' must be a dense tensor");
  types[0] = value->type;
  return GILT_SUCCESS;
}

GiltStatus graph_infer_none(const GraphOpView *v, GiltType **types)
{
  types[0] = gilt_none_type_get(v->ctx);
  return GILT_SUCCESS;
}

GiltStatus graph_infer_nothing(const GraphOpView *v, GiltType **types)
{
  (void)v;
  (void)types;
  return GILT_SUCCESS;
}

/* Folding produces dense elements; scalars (integer or float attributes)
** become splats of the requested tensor type. */
static GiltOp *materialize_constant(GiltBuilder *b, GiltAttr *value,
                                    GiltType *type, GiltLocation *loc)
{
  if (type->kind != GILT_TYPE_TENSOR)
    return NULL;
  if (value->kind != GILT_ATTR_DENSE_ELEMENTS &&
      value->kind != GILT_ATTR_DENSE_RESOURCE)
    return NULL;
  if (value->type != type)
    return NULL;
  GiltNamedAttr attr = {"value", value};
  GiltOpState st = gilt_op_state_get("graph.constant", loc);
  st.num_results = 1;
  st.result_types = &type;
  st.num_attrs = 1;
  st.attrs = &attr;
  return gilt_builder_create_op(b, &st);
}

const GiltDialectDef gilt_graph_dialect = {
    .name = "graph",
    GILT_DIALECT_OPS(graph_ops),
    .materialize_constant = materialize_constant,
    .attrs = graph_attr_defs,
    .num_attrs = GRAPH_NUM_ATTRS,
};

void gilt_register_graph_dialect(GiltContext *ctx)
{
  gilt_register_func_dialect(ctx); /* graph functions are func.func */
  gilt_context_register_dialect(ctx, &gilt_graph_dialect);
}
