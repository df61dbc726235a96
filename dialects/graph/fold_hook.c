/*
** fold_hook.c - folding of graph ops: constant evaluation of elementwise ops on
** small dense constants, identity-like ops to their input, and the
** canonicalization patterns x + 0, x - 0, x * 1, x / 1 -> x.
**
** Constant folding is one loop for every op with a scalar evaluator
** (GraphOpDesc.eval, eval.c): operands broadcast to the result shape,
** folded left to right (variadic Sum, Min, Max), written in the result
** element type. It handles results of at most FOLD_LIMIT elements of f32,
** f64 and integer types; bigger constants are left to graph-fold-constants
** (dialects/graph/transforms/fold_constants.c), which calls the same code
** with a larger bound. Reshapes, Concat, Gather, Where of small constants
** and Shape/Size of statically shaped tensors fold too, so the shape
** subgraphs of exported models (Shape -> Gather -> Unsqueeze -> Concat ->
** Reshape) become constants. Float ops fold here only where evaluating in
** double gives exactly what the element type's arithmetic gives
** (graph_eval_is_exact); the others fold in graph-fold-constants, through
** the lowering and the loop interpreter, the one reference semantics. Not
** here: folds that need attributes, and f16/bf16 results.
*/
#include "dialects/graph/graph.h"

#include <math.h>
#include <string.h>

#include "ir/rewrite/rewrite.h"
#include "ir/support/checked_math.h"

#define FOLD_LIMIT 1024

/* Integers beyond 2^53 do not survive the trip through double. */
#define EXACT_INT_LIMIT 9007199254740992.0

static bool foldable_elem(GiltType *t)
{
  return (t->kind == GILT_TYPE_FLOAT &&
          (t->fkind == GILT_F32 || t->fkind == GILT_F64)) ||
         t->kind == GILT_TYPE_INTEGER;
}

bool graph_store_element(GiltType *t, double x, uint8_t *dst)
{
  if (t->kind == GILT_TYPE_FLOAT) {
    if (t->fkind == GILT_F32) {
      float f = (float)x;
      memcpy(dst, &f, 4);
    } else {
      memcpy(dst, &x, 8);
    }
    return true;
  }
  if (t->integer.width == 1) {
    if (isnan(x))
      return false;
    *dst = x != 0;
    return true;
  }
  if (!isfinite(x) || fabs(x) >= EXACT_INT_LIMIT)
    return false;
  unsigned width = t->integer.width;
  bool is_signed = t->integer.sign != GILT_UNSIGNED;
  double v = trunc(x);
  if (width == 4) {
    /* ONNX's 4-bit types saturate instead: rounded to nearest (ties to
    ** even) and clipped to [-8, 7] or [0, 15] (Cast-21). */
    double lo = is_signed ? -8 : 0, hi = is_signed ? 7 : 15;
    v = rint(x < lo ? lo : x > hi ? hi : x);
  }
  /* Other widths wrap in two's complement, as a cast in ONNX Runtime does;
  ** the stored bytes are the value extended from its width, as the
  ** readers expect. */
  uint64_t u = (uint64_t)gilt_int_extend((uint64_t)(int64_t)v, width,
                                         is_signed);
  size_t size = gilt_type_get_storage_size(t);
  for (size_t i = 0; i < size; i++)
    dst[i] = (uint8_t)(u >> (8 * i));
  return true;
}

/* The flat index into `in` (shape right-aligned with the result, dims of 1
** broadcast) of the result element whose coordinates are idx. */
static int64_t broadcast_index(GiltType *in, GiltType *out,
                               const int64_t *idx)
{
  size_t r = in->shaped.rank, off = out->shaped.rank - r;
  int64_t flat = 0;
  for (size_t d = 0; d < r; d++) {
    int64_t n = in->shaped.shape[d];
    flat = flat * n + (n == 1 ? 0 : idx[off + d]);
  }
  return flat;
}

static GiltStatus fold_constant(GiltOp *op, const GraphOpDesc *desc,
                                GiltAttr *const *consts, int64_t limit,
                                GiltFoldResult *out)
{
  GiltType *rt = gilt_op_result_array(op)[0].type;
  if (op->num_results != 1 || !op->num_operands ||
      rt->kind != GILT_TYPE_TENSOR ||
      !gilt_shaped_type_has_static_shape(rt) ||
      rt->shaped.rank > GRAPH_MAX_RANK || !foldable_elem(rt->shaped.elem))
    return GILT_FAILURE;
  int64_t n = gilt_shaped_type_get_num_elements(rt);
  if (n < 0 || n > limit) /* -1: more elements than int64 counts */
    return GILT_FAILURE;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    size_t nbytes;
    GiltAttr *c = consts[i];
    if (!c || (c->kind != GILT_ATTR_DENSE_ELEMENTS &&
               c->kind != GILT_ATTR_DENSE_RESOURCE) ||
        !gilt_dense_attr_get_data(c, &nbytes) ||
        c->type->shaped.rank > rt->shaped.rank)
      return GILT_FAILURE;
  }
  GiltType *et = consts[0]->type->shaped.elem;
  bool integer = et->kind == GILT_TYPE_INTEGER;
  /* Floats fold here only where double gives the element type's own
  ** result: one exact operation (a variadic Sum would round once where
  ** run time rounds at each step). The rest is the interpreter's. */
  if (!integer && (!graph_eval_is_exact(desc->eval) ||
                   (op->num_operands > 2 &&
                    desc->eval != graph_eval_min && desc->eval != graph_eval_max)))
    return GILT_FAILURE;
  GiltContext *ctx = op->loc->ctx;
  size_t esize = gilt_type_get_storage_size(rt->shaped.elem);
  uint8_t *buf = gilt_calloc(ctx, (size_t)n + 1, esize);
  int64_t idx[GRAPH_MAX_RANK] = {0};
  bool variadic = strchr(op->info->def->operands, '*') != NULL;
  GiltStatus st = GILT_SUCCESS;
  for (int64_t k = 0; k < n && st == GILT_SUCCESS; k++) {
    double acc = gilt_dense_attr_get_float(
        consts[0], broadcast_index(consts[0]->type, rt, idx));
    /* A variadic op (Min, Max, Sum) of one operand is that operand. */
    if (op->num_operands == 1 && !variadic)
      acc = desc->eval(acc, 0, integer);
    for (uint32_t i = 1; i < op->num_operands; i++)
      acc = desc->eval(acc,
                       gilt_dense_attr_get_float(
                           consts[i], broadcast_index(consts[i]->type, rt,
                                                      idx)),
                       integer);
    if ((integer && isnan(acc)) ||
        !graph_store_element(rt->shaped.elem, acc, buf + (size_t)k * esize))
      st = GILT_FAILURE;
    /* Next coordinates, last dimension fastest. */
    for (size_t d = rt->shaped.rank; d-- > 0;) {
      if (++idx[d] < rt->shaped.shape[d])
        break;
      idx[d] = 0;
    }
  }
  if (st == GILT_SUCCESS) {
    out[0].attr = gilt_dense_elements_attr_get(rt, buf, (size_t)n * esize);
    st = out[0].attr ? GILT_SUCCESS : GILT_FAILURE;
  }
  gilt_free(ctx, buf);
  return st;
}

/* Identity and inference-mode Dropout (no training_mode operand). */
static GiltStatus fold_identity(GiltOp *op, GiltFoldResult *out)
{
  GiltValue *in = op->operands[0].value;
  if (op->num_results != 1 || op->num_operands > 2 ||
      in->type != gilt_op_result_array(op)[0].type)
    return GILT_FAILURE;
  out[0].value = in;
  return GILT_SUCCESS;
}

/* Reshape, Squeeze, Unsqueeze of a small constant: the same bytes under
** the result type. */
static GiltStatus fold_reshape(GiltOp *op, GiltAttr *const *consts,
                               int64_t limit, GiltFoldResult *out)
{
  GiltAttr *c = consts[0];
  GiltType *rt = gilt_op_result_array(op)[0].type;
  if (!c || (c->kind != GILT_ATTR_DENSE_ELEMENTS &&
             c->kind != GILT_ATTR_DENSE_RESOURCE) ||
      !gilt_shaped_type_has_static_shape(rt) ||
      gilt_shaped_type_get_num_elements(rt) > limit ||
      gilt_shaped_type_get_num_elements(rt) !=
          gilt_dense_attr_get_num_elements(c))
    return GILT_FAILURE;
  size_t nbytes;
  const void *data = gilt_dense_attr_get_data(c, &nbytes);
  if (!data)
    return GILT_FAILURE;
  out[0].attr = gilt_dense_elements_attr_get(rt, data, nbytes);
  return out[0].attr ? GILT_SUCCESS : GILT_FAILURE;
}

/* Shape and Size of a statically shaped input. */
static GiltStatus fold_shape(GiltOp *op, GiltFoldResult *out)
{
  GiltType *in = op->operands[0].value->type,
           *rt = gilt_op_result_array(op)[0].type;
  if (in->kind != GILT_TYPE_TENSOR || !gilt_shaped_type_has_static_shape(in) ||
      !gilt_shaped_type_has_static_shape(rt) ||
      in->shaped.rank > GRAPH_MAX_RANK)
    return GILT_FAILURE;
  int64_t vals[GRAPH_MAX_RANK + 1];
  size_t n = 1;
  if (rt->shaped.rank == 0) {
    vals[0] = gilt_shaped_type_get_num_elements(in);
    if (vals[0] < 0) /* more elements than int64 counts */
      return GILT_FAILURE;
  } else {
    /* Shape's result length already reflects start and end. */
    int64_t r = (int64_t)in->shaped.rank;
    int64_t start = graph_attr_int(op, "start", 0);
    start = start < 0 ? start + r : start;
    start = start < 0 ? 0 : start > r ? r : start;
    n = (size_t)rt->shaped.shape[0];
    if ((size_t)start + n > in->shaped.rank)
      return GILT_FAILURE;
    for (size_t i = 0; i < n; i++)
      vals[i] = in->shaped.shape[(size_t)start + i];
  }
  out[0].attr = gilt_dense_elements_attr_get(rt, vals, n * sizeof *vals);
  return out[0].attr ? GILT_SUCCESS : GILT_FAILURE;
}

/* ---- data movement of small constants (shape subgraphs) ------------------ */

/* Whether every operand is a readable dense constant and the result a
** small static tensor; *esize is the result's element size. */
static bool small_constants(GiltOp *op, GiltAttr *const *consts,
                            int64_t limit, size_t *esize)
{
  GiltType *rt = gilt_op_result_array(op)[0].type;
  int64_t n = gilt_shaped_type_get_num_elements(rt);
  if (op->num_results != 1 || rt->kind != GILT_TYPE_TENSOR || n < 0 ||
      n > limit)
    return false;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    size_t nbytes;
    if (!consts[i] || (consts[i]->kind != GILT_ATTR_DENSE_ELEMENTS &&
                       consts[i]->kind != GILT_ATTR_DENSE_RESOURCE) ||
        !gilt_dense_attr_get_data(consts[i], &nbytes))
      return false;
  }
  *esize = gilt_type_get_storage_size(rt->shaped.elem);
  return true;
}

/* Element i of a dense constant (splat-aware). */
static const uint8_t *element(GiltAttr *c, int64_t i, size_t esize)
{
  size_t nbytes;
  const uint8_t *data = gilt_dense_attr_get_data(c, &nbytes);
  return data + (gilt_dense_attr_is_splat(c) ? 0 : (size_t)i * esize);
}

/* The product of dims [from, to) of a static shape into *n; true when it
** overflows, which a range can even when the whole shape, holding a 0
** elsewhere, has no elements. */
static bool product(const int64_t *dims, size_t from, size_t to, int64_t *n)
{
  return gilt_dims_product(to - from, dims + from, n);
}

static GiltStatus finish(GiltOp *op, uint8_t *buf, size_t nbytes,
                         GiltFoldResult *out)
{
  out[0].attr = gilt_dense_elements_attr_get(gilt_op_result_array(op)[0].type,
                                             buf, nbytes);
  gilt_free(op->loc->ctx, buf);
  return out[0].attr ? GILT_SUCCESS : GILT_FAILURE;
}

/* Concat: for each outer index, each operand's block along the axis. */
static GiltStatus fold_concat(GiltOp *op, GiltAttr *const *consts,
                              int64_t limit, GiltFoldResult *out)
{
  size_t esize;
  GiltType *rt = gilt_op_result_array(op)[0].type;
  if (!small_constants(op, consts, limit, &esize))
    return GILT_FAILURE;
  int64_t axis = graph_attr_int(op, "axis", 0), a;
  if (!graph_normalize_axis(axis, rt->shaped.rank, &a))
    return GILT_FAILURE;
  int64_t outer, block;
  int64_t n = gilt_shaped_type_get_num_elements(rt);
  if (product(rt->shaped.shape, 0, (size_t)a, &outer))
    return GILT_FAILURE;
  uint8_t *buf = gilt_calloc(op->loc->ctx, (size_t)n + 1, esize), *p = buf;
  for (int64_t o = 0; o < outer; o++) {
    for (uint32_t i = 0; i < op->num_operands; i++) {
      GiltType *t = consts[i]->type;
      if (product(t->shaped.shape, (size_t)a, t->shaped.rank, &block)) {
        gilt_free(op->loc->ctx, buf);
        return GILT_FAILURE;
      }
      for (int64_t k = 0; k < block; k++, p += esize)
        memcpy(p, element(consts[i], o * block + k, esize), esize);
    }
  }
  return finish(op, buf, (size_t)n * esize, out);
}

/* Gather: out[o, j, in] = data[o, indices[j], in]. */
static GiltStatus fold_gather(GiltOp *op, GiltAttr *const *consts,
                              int64_t limit, GiltFoldResult *out)
{
  size_t esize;
  if (!small_constants(op, consts, limit, &esize))
    return GILT_FAILURE;
  GiltType *dt = consts[0]->type;
  int64_t axis = graph_attr_int(op, "axis", 0), a;
  if (!graph_normalize_axis(axis, dt->shaped.rank, &a))
    return GILT_FAILURE;
  int64_t outer, inner, n, dim = dt->shaped.shape[a];
  int64_t nidx = gilt_dense_attr_get_num_elements(consts[1]);
  if (nidx < 0 || product(dt->shaped.shape, 0, (size_t)a, &outer) ||
      product(dt->shaped.shape, (size_t)a + 1, dt->shaped.rank, &inner) ||
      gilt_mul_overflow(outer, nidx, &n) || gilt_mul_overflow(n, inner, &n) ||
      n != gilt_shaped_type_get_num_elements(gilt_op_result_array(op)[0].type))
    return GILT_FAILURE;
  uint8_t *buf = gilt_calloc(op->loc->ctx, (size_t)n + 1, esize), *p = buf;
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t j = 0; j < nidx; j++) {
      int64_t idx = gilt_dense_attr_get_int(consts[1], j);
      idx = idx < 0 ? idx + dim : idx;
      if (idx < 0 || idx >= dim) { /* out of range: the run fails, not us */
        gilt_free(op->loc->ctx, buf);
        return GILT_FAILURE;
      }
      for (int64_t k = 0; k < inner; k++, p += esize)
        memcpy(p, element(consts[0], (o * dim + idx) * inner + k, esize),
               esize);
    }
  }
  return finish(op, buf, (size_t)n * esize, out);
}

/* Where: condition ? X : Y, all three broadcast to the result. */
static GiltStatus fold_where(GiltOp *op, GiltAttr *const *consts,
                             int64_t limit, GiltFoldResult *out)
{
  size_t esize;
  GiltType *rt = gilt_op_result_array(op)[0].type;
  if (!small_constants(op, consts, limit, &esize) ||
      rt->shaped.rank > GRAPH_MAX_RANK)
    return GILT_FAILURE;
  for (uint32_t i = 0; i < 3; i++)
    if (consts[i]->type->shaped.rank > rt->shaped.rank)
      return GILT_FAILURE;
  int64_t n = gilt_shaped_type_get_num_elements(rt);
  int64_t idx[GRAPH_MAX_RANK] = {0};
  uint8_t *buf = gilt_calloc(op->loc->ctx, (size_t)n + 1, esize);
  for (int64_t k = 0; k < n; k++) {
    bool c = gilt_dense_attr_get_int(
                 consts[0], broadcast_index(consts[0]->type, rt, idx)) != 0;
    GiltAttr *from = consts[c ? 1 : 2];
    memcpy(buf + (size_t)k * esize,
           element(from, broadcast_index(from->type, rt, idx), esize), esize);
    for (size_t d = rt->shaped.rank; d-- > 0;) {
      if (++idx[d] < rt->shaped.shape[d])
        break;
      idx[d] = 0;
    }
  }
  return finish(op, buf, (size_t)n * esize, out);
}

GiltStatus graph_fold_limited(GiltOp *op, GiltAttr *const *consts,
                              int64_t limit, GiltFoldResult *out)
{
  const GraphOpDesc *desc = graph_op_desc(op->info->def);
  if (desc->flags & GRAPH_FOLD_IDENTITY)
    return fold_identity(op, out);
  if (desc->flags & GRAPH_FOLD_RESHAPE)
    return fold_reshape(op, consts, limit, out);
  if (desc->flags & GRAPH_FOLD_SHAPE)
    return fold_shape(op, out);
  if (desc->flags & GRAPH_FOLD_CONCAT)
    return fold_concat(op, consts, limit, out);
  if (desc->flags & GRAPH_FOLD_GATHER)
    return fold_gather(op, consts, limit, out);
  if (desc->flags & GRAPH_FOLD_WHERE)
    return fold_where(op, consts, limit, out);
  if (desc->eval && !((desc->flags & GRAPH_EVAL_PLAIN) &&
                      op->attrs && gilt_dictionary_attr_get_size(op->attrs)))
    return fold_constant(op, desc, consts, limit, out);
  return GILT_FAILURE;
}

GiltStatus graph_fold(GiltOp *op, GiltAttr *const *consts,
                      GiltFoldResult *out)
{
  return graph_fold_limited(op, consts, FOLD_LIMIT, out);
}

/* ---- identity patterns ----------------------------------------------------- */

typedef struct IdentityRule {
  double value;    /* the neutral element */
  bool left_too;   /* also value op x (commutative ops) */
} IdentityRule;

/* Whether v is a graph.constant splat equal to x. */
static bool is_splat_of(GiltValue *v, double x)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  if (!graph_op_is(def, GRAPH_OP_CONSTANT))
    return false;
  GiltAttr *c = gilt_op_get_attr(def, "value");
  return c && c->kind == GILT_ATTR_DENSE_ELEMENTS &&
         gilt_dense_attr_is_splat(c) && gilt_dense_attr_get_float(c, 0) == x;
}

static GiltStatus drop_identity(const GiltPattern *pat, GiltOp *op,
                                GiltRewriter *rw)
{
  const IdentityRule *rule = pat->data;
  GiltValue *lhs = op->operands[0].value, *rhs = op->operands[1].value;
  GiltType *rt = gilt_op_result_array(op)[0].type;
  GiltValue *keep = NULL;
  /* The kept operand must already have the result type: broadcasting
  ** against the constant may have grown it. */
  if (lhs->type == rt && is_splat_of(rhs, rule->value))
    keep = lhs;
  else if (rule->left_too && rhs->type == rt && is_splat_of(lhs, rule->value))
    keep = rhs;
  if (!keep)
    return GILT_FAILURE;
  gilt_rewriter_replace_op(rw, op, &keep);
  return GILT_SUCCESS;
}

void graph_identity_patterns(GiltPatternSet *set)
{
  static const IdentityRule zero_both = {0, true}, zero_right = {0, false},
                            one_both = {1, true}, one_right = {1, false};
  static const struct {
    const char *name, *root;
    const IdentityRule *rule;
  } table[] = {{"graph-add-zero", "graph.add", &zero_both},
               {"graph-sub-zero", "graph.sub", &zero_right},
               {"graph-mul-one", "graph.mul", &one_both},
               {"graph-div-one", "graph.div", &one_right}};
  for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
    GiltPattern p = {table[i].name, table[i].root, 1, drop_identity,
                     table[i].rule};
    gilt_pattern_set_add(set, p);
  }
}
