/*
** patterns.c - canonicalization patterns of the graph dialect's data
** movement ops: chains that exporters leave behind and that cancel or
** merge.
**
**   reshape(reshape(x, a), b)        -> reshape(x, b)   (b has no 0 entry)
**   transpose(transpose(x, p), q)    -> transpose(x, p . q), or x
**   layout_transform(layout_transform(x, A -> B), B -> A) -> x
**   layout_transform(x, A -> A)      -> x
**   unsqueeze(squeeze(x, a), a)      -> x
**   squeeze(unsqueeze(x, a), a)      -> x
**   cast(x) to x's own type          -> x   (Cast and CastLike)
**   slice(x) with unit steps keeping every element -> x
**   pad(x) by zeros on every side    -> x   (PyTorch exports one before
**                                          DenseNet's pools)
**   concat(x)                        -> x
**
** Every pattern keeps the result type: it only fires when the replacement
** has exactly the type of the op it replaces. Identity and inference
** Dropout fold (fold_hook.c), as do x + 0 and friends (graph_identity_patterns),
** and Shape/Size of static shapes. Not here: patterns that need shape
** inference to make a new type, or that move ops across others.
*/
#include "dialects/graph/graph.h"

#include <string.h>

#include "ir/rewrite/rewrite.h"

/* The op defining operand i of op when it is the graph op `id`. */
static GiltOp *operand_op(GiltOp *op, size_t i, GraphOpId id)
{
  if (i >= op->num_operands)
    return NULL;
  GiltOp *def = gilt_value_get_defining_op(op->operands[i].value);
  return graph_op_is(def, id) ? def : NULL;
}

/* Replaces op by a copy reading x instead of its operand 0 (through the
** rewriter, so the driver sees the old producer lose a use). */
static GiltOp *replace_input(GiltRewriter *rw, GiltOp *op, GiltValue *x)
{
  GiltValue *operands[GRAPH_MAX_RANK];
  if (op->num_operands > GRAPH_MAX_RANK)
    return NULL;
  for (size_t i = 0; i < op->num_operands; i++)
    operands[i] = i ? op->operands[i].value : x;
  GiltOp *copy = gilt_rewriter_create_op_like(rw, op, NULL, operands, NULL);
  if (copy) {
    GiltValue *result = &gilt_op_result_array(copy)[0];
    gilt_rewriter_replace_op(rw, op, &result);
  }
  return copy;
}

static GiltStatus replace_by(GiltRewriter *rw, GiltOp *op, GiltValue *v)
{
  if (v->type != gilt_op_result_array(op)[0].type)
    return GILT_FAILURE;
  gilt_rewriter_replace_op(rw, op, &v);
  return GILT_SUCCESS;
}

/* Reads a constant integer operand; false when absent or not constant. */
static bool const_ints(GiltOp *op, size_t i, int64_t *out, size_t *n)
{
  GiltAttr *c = i < op->num_operands
                    ? graph_value_constant(op->operands[i].value)
                    : NULL;
  if (!c || c->type->shaped.elem->kind != GILT_TYPE_INTEGER)
    return false;
  int64_t count = gilt_dense_attr_get_num_elements(c);
  if (count < 0 || count > GRAPH_MAX_RANK)
    return false;
  for (int64_t k = 0; k < count; k++)
    out[k] = gilt_dense_attr_get_int(c, k);
  *n = (size_t)count;
  return true;
}

static GiltStatus merge_reshapes(const GiltPattern *pat, GiltOp *op,
                                 GiltRewriter *rw)
{
  (void)pat;
  GiltOp *inner = operand_op(op, 0, GRAPH_OP_RESHAPE);
  int64_t shape[GRAPH_MAX_RANK];
  size_t n;
  if (!inner || !const_ints(op, 1, shape, &n))
    return GILT_FAILURE;
  /* A 0 copies a dim of the (inner reshape's) input: not the same of x. */
  for (size_t i = 0; i < n; i++)
    if (shape[i] == 0)
      return GILT_FAILURE;
  return replace_input(rw, op, inner->operands[0].value) ? GILT_SUCCESS
                                                         : GILT_FAILURE;
}

/* The permutation of a transpose of a tensor of rank r into perm. */
static bool permutation(GiltOp *op, size_t r, int64_t *perm)
{
  size_t n;
  if (!graph_attr_ints(op, "perm", perm, GRAPH_MAX_RANK, &n)) {
    for (size_t i = 0; i < r; i++)
      perm[i] = (int64_t)(r - 1 - i); /* ONNX: reverse the axes */
    return true;
  }
  return n == r;
}

static GiltStatus merge_transposes(const GiltPattern *pat, GiltOp *op,
                                   GiltRewriter *rw)
{
  (void)pat;
  GiltOp *inner = operand_op(op, 0, GRAPH_OP_TRANSPOSE);
  GiltValue *x = inner ? inner->operands[0].value : NULL;
  if (!x || x->type->kind != GILT_TYPE_TENSOR || !x->type->shaped.ranked ||
      x->type->shaped.rank > GRAPH_MAX_RANK)
    return GILT_FAILURE;
  size_t r = x->type->shaped.rank;
  int64_t p[GRAPH_MAX_RANK], q[GRAPH_MAX_RANK];
  if (!permutation(inner, r, p) || !permutation(op, r, q))
    return GILT_FAILURE;
  /* out[i] = inner[q[i]] = x[p[q[i]]] */
  bool identity = true;
  GiltContext *ctx = gilt_rewriter_get_context(rw);
  GiltType *i64 = gilt_integer_type_get(ctx, 64, GILT_SIGNLESS);
  GiltAttr *elems[GRAPH_MAX_RANK];
  for (size_t i = 0; i < r; i++) {
    if (q[i] < 0 || (size_t)q[i] >= r)
      return GILT_FAILURE;
    int64_t c = p[q[i]];
    identity = identity && c == (int64_t)i;
    elems[i] = gilt_integer_attr_get(i64, c);
  }
  if (identity)
    return replace_by(rw, op, x);
  GiltOp *copy = replace_input(rw, op, x);
  if (!copy)
    return GILT_FAILURE;
  gilt_op_set_attr(copy, "perm", gilt_array_attr_get(ctx, r, elems));
  gilt_rewriter_notify_op_modified(rw, copy);
  return GILT_SUCCESS;
}

/* The two layouts of a graph.layout_transform. */
static bool layouts(GiltOp *op, GraphLayout *src, GraphLayout *dst)
{
  return graph_attr_layout(op, "src_layout", src) &&
         graph_attr_layout(op, "dst_layout", dst);
}

static GiltStatus drop_same_layout(const GiltPattern *pat, GiltOp *op,
                                   GiltRewriter *rw)
{
  (void)pat;
  GraphLayout src, dst;
  if (!layouts(op, &src, &dst) || !graph_layout_equal(&src, &dst))
    return GILT_FAILURE;
  return replace_by(rw, op, op->operands[0].value);
}

/* A -> B then B -> A: each layout compared whole, since one tensor type
** fits two layouts (NCHW and NCWH of a square image). */
static GiltStatus cancel_layout_transforms(const GiltPattern *pat,
                                           GiltOp *op, GiltRewriter *rw)
{
  (void)pat;
  GiltOp *inner = operand_op(op, 0, GRAPH_OP_LAYOUT_TRANSFORM);
  GraphLayout a, b, c, d;
  if (!inner || !layouts(inner, &a, &b) || !layouts(op, &c, &d) ||
      !graph_layout_equal(&b, &c) || !graph_layout_equal(&a, &d))
    return GILT_FAILURE;
  return replace_by(rw, op, inner->operands[0].value);
}

/* Sorted normalized axes of a Squeeze/Unsqueeze against rank r. */
static bool axes(GiltOp *op, size_t r, int64_t *out, size_t *n)
{
  if (!const_ints(op, 1, out, n))
    return false;
  for (size_t i = 0; i < *n; i++)
    if (!graph_normalize_axis(out[i], r, &out[i]))
      return false;
  for (size_t i = 1; i < *n; i++) /* insertion sort: a few axes */
    for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
      int64_t t = out[j];
      out[j] = out[j - 1];
      out[j - 1] = t;
    }
  return true;
}

/* unsqueeze(squeeze(x, a), a) and squeeze(unsqueeze(x, a), a): both axes
** lists refer to the dims of the larger (unsqueezed) tensor. */
static GiltStatus cancel_squeezes(const GiltPattern *pat, GiltOp *op,
                                  GiltRewriter *rw)
{
  (void)pat;
  bool squeeze = graph_op_is(op, GRAPH_OP_SQUEEZE);
  GiltOp *inner =
      operand_op(op, 0, squeeze ? GRAPH_OP_UNSQUEEZE : GRAPH_OP_SQUEEZE);
  GiltValue *x = inner ? inner->operands[0].value : NULL;
  if (!x || x->type != gilt_op_result_array(op)[0].type ||
      x->type->kind != GILT_TYPE_TENSOR || !x->type->shaped.ranked)
    return GILT_FAILURE;
  GiltValue *big = squeeze ? op->operands[0].value : x;
  size_t r = big->type->shaped.rank, n1, n2;
  int64_t a1[GRAPH_MAX_RANK], a2[GRAPH_MAX_RANK];
  if (r > GRAPH_MAX_RANK || !axes(op, r, a1, &n1) ||
      !axes(inner, r, a2, &n2) || n1 != n2 ||
      memcmp(a1, a2, n1 * sizeof *a1))
    return GILT_FAILURE;
  return replace_by(rw, op, x);
}

static GiltStatus drop_cast(const GiltPattern *pat, GiltOp *op,
                            GiltRewriter *rw)
{
  (void)pat;
  return replace_by(rw, op, op->operands[0].value);
}

/* Unit steps (or none) and a result as large as the input: every element
** is kept, in order. */
static GiltStatus drop_full_slice(const GiltPattern *pat, GiltOp *op,
                                  GiltRewriter *rw)
{
  (void)pat;
  GiltType *t = op->operands[0].value->type;
  if (t->kind != GILT_TYPE_TENSOR || !gilt_shaped_type_has_static_shape(t) ||
      t != gilt_op_result_array(op)[0].type)
    return GILT_FAILURE;
  if (op->num_operands > 4 &&
      op->operands[4].value->type->kind != GILT_TYPE_NONE) {
    int64_t steps[GRAPH_MAX_RANK];
    size_t n;
    if (!const_ints(op, 4, steps, &n))
      return GILT_FAILURE;
    for (size_t i = 0; i < n; i++)
      if (steps[i] != 1)
        return GILT_FAILURE;
  }
  return replace_by(rw, op, op->operands[0].value);
}

static GiltStatus drop_zero_pad(const GiltPattern *pat, GiltOp *op,
                                GiltRewriter *rw)
{
  (void)pat;
  GiltAttr *pads = op->num_operands > 1
                       ? graph_value_constant(op->operands[1].value)
                       : NULL;
  if (!pads || pads->type->shaped.elem->kind != GILT_TYPE_INTEGER)
    return GILT_FAILURE;
  for (int64_t k = 0; k < gilt_dense_attr_get_num_elements(pads); k++)
    if (gilt_dense_attr_get_int(pads, k) != 0)
      return GILT_FAILURE;
  return replace_by(rw, op, op->operands[0].value);
}

static GiltStatus drop_single_concat(const GiltPattern *pat, GiltOp *op,
                                     GiltRewriter *rw)
{
  (void)pat;
  if (op->num_operands != 1)
    return GILT_FAILURE;
  return replace_by(rw, op, op->operands[0].value);
}

void graph_movement_patterns(GiltPatternSet *set)
{
  static const GiltPattern table[] = {
      {"graph-reshape-reshape", "graph.reshape", 1, merge_reshapes, NULL},
      {"graph-transpose-transpose", "graph.transpose", 1, merge_transposes,
       NULL},
      {"graph-layout-transform-same", "graph.layout_transform", 1,
       drop_same_layout, NULL},
      {"graph-layout-transform-inverse", "graph.layout_transform", 1,
       cancel_layout_transforms, NULL},
      {"graph-unsqueeze-squeeze", "graph.unsqueeze", 1, cancel_squeezes, NULL},
      {"graph-squeeze-unsqueeze", "graph.squeeze", 1, cancel_squeezes, NULL},
      {"graph-cast-same-type", "graph.cast", 1, drop_cast, NULL},
      {"graph-cast-like-same-type", "graph.cast_like", 1, drop_cast, NULL},
      {"graph-full-slice", "graph.slice", 1, drop_full_slice, NULL},
      {"graph-pad-nothing", "graph.pad", 1, drop_zero_pad, NULL},
      {"graph-concat-one", "graph.concat", 1, drop_single_concat, NULL}};
  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    gilt_pattern_set_add(set, table[i]);
}
