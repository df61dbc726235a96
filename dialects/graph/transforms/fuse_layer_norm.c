/*
** fuse_layer_norm.c - `graph-fuse-layer-norm`: the layer normalization
** that exporters without LayerNormalization (PyTorch below opset 17)
** write out op by op becomes one graph.layer_normalization:
**
**   m = ReduceMean(x, axes=[-1])          d = Sub(x, m)
**   v = ReduceMean(Pow(d, 2), axes=[-1])  n = Div(d, Sqrt(Add(v, eps)))
**   y = Add(Mul(n, scale), bias)          (Mul and Add in either order)
**
** -> y = LayerNormalization(x, scale, bias) {axis = -1, epsilon = eps}
**
** (ONNX Runtime's LayerNormFusion). Nine ops, each a pass over the
** tensor and most a buffer, become one op whose lowering reads each row
** three times, by vectors (transforms/graph_to_loop/rows.c). It computes
** (x - mean) * (1 / sqrt(var + eps)) where the chain divides by the root:
** the same up to rounding, not bit-identical.
**
** Requires static-rank f32 tensors, keepdims on both means, the chain's
** intermediate values used only inside it (d twice), eps a constant,
** scale and bias of rank at most 1 (per element of the row, or one for
** all) and the result of x's type. Without the Mul and the Add (no
** affine part) nothing is matched. Requires nothing of other passes (run
** it after graph-infer-shapes and graph-fold-constants, which make the
** types static and eps a constant); the replaced ops are erased, their
** constants left for canonicalize.
*/
#include "dialects/graph/graph.h"

#include <string.h>

#include "dialects/graph/transforms/match.h"
#include "dialects/graph/transforms/passes.h"
#include "ir/core.h"

static const GiltPassOptionDef options[] = {{0}};

enum { MAX_CHAIN = 9 };

typedef struct Chain {
  GiltOp *ops[MAX_CHAIN]; /* last op first */
  size_t n;
  GiltValue *x, *scale, *bias;
  double eps;
} Chain;

static GiltOp *take(Chain *c, GiltOp *op)
{
  if (op)
    c->ops[c->n++] = op;
  return op;
}

/* Whether t is a ranked f32 tensor. */
static bool f32_tensor(GiltContext *ctx, GiltType *t)
{
  return gilt_type_get_kind(t) == GILT_TYPE_TENSOR && t->shaped.rank >= 1 &&
         t->shaped.elem == gilt_float_type_get(ctx, GILT_F32);
}

/* Whether mean is a ReduceMean of x over its last axis alone, kept. */
static bool mean_of_last(GiltOp *mean, GiltValue *x)
{
  if (gilt_op_get_operand(mean, 0) != x ||
      gilt_op_get_num_operands(mean) < 2 ||
      graph_attr_int(mean, "keepdims", 1) != 1)
    return false;
  GiltAttr *axes = graph_value_constant(gilt_op_get_operand(mean, 1));
  int64_t rank = (int64_t)gilt_value_get_type(x)->shaped.rank;
  if (!axes || gilt_dense_attr_get_num_elements(axes) != 1)
    return false;
  int64_t a = gilt_dense_attr_get_int(axes, 0);
  return a == -1 || a == rank - 1;
}

/* n = Div(d, Sqrt(Add(ReduceMean(Pow(d, 2)), eps))), d = Sub(x, mean(x)):
** fills x and eps. */
static bool match_normalized(Chain *c, GiltOp *div)
{
  GiltValue *d = gilt_op_get_operand(div, 0);
  GiltOp *sqrt = take(c, graph_match_sole(gilt_op_get_operand(div, 1),
                                          GRAPH_OP_SQRT));
  GiltOp *add = sqrt ? take(c, graph_match_sole(gilt_op_get_operand(sqrt, 0),
                                                GRAPH_OP_ADD))
                     : NULL;
  if (!add)
    return false;
  GiltValue *var = gilt_op_get_operand(add, 0);
  if (!graph_match_scalar(gilt_op_get_operand(add, 1), &c->eps)) {
    var = gilt_op_get_operand(add, 1);
    if (!graph_match_scalar(gilt_op_get_operand(add, 0), &c->eps))
      return false;
  }
  GiltOp *mean2 = take(c, graph_match_sole(var, GRAPH_OP_REDUCE_MEAN));
  GiltOp *pow = mean2 ? take(c, graph_match_sole(gilt_op_get_operand(mean2, 0),
                                                 GRAPH_OP_POW))
                      : NULL;
  GiltOp *sub = take(c, graph_match_def(d, GRAPH_OP_SUB));
  if (!pow || !sub || gilt_op_get_operand(pow, 0) != d ||
      !graph_match_near(gilt_op_get_operand(pow, 1), 2) ||
      gilt_value_get_num_uses(d) != 2 ||
      !mean_of_last(mean2, gilt_op_get_result(pow, 0)))
    return false;
  c->x = gilt_op_get_operand(sub, 0);
  GiltOp *mean1 = take(c, graph_match_sole(gilt_op_get_operand(sub, 1),
                                           GRAPH_OP_REDUCE_MEAN));
  return mean1 && mean_of_last(mean1, c->x);
}

/* Whether p (scale or bias) applies per element of the row or to all. */
static bool row_param(GiltValue *p, GiltValue *x)
{
  GiltType *t = gilt_value_get_type(p), *xt = gilt_value_get_type(x);
  if (gilt_type_get_kind(t) != GILT_TYPE_TENSOR ||
      t->shaped.elem != xt->shaped.elem || t->shaped.rank > 1)
    return false;
  int64_t last = xt->shaped.shape[xt->shaped.rank - 1];
  return t->shaped.rank == 0 || t->shaped.shape[0] == 1 ||
         (last != GILT_DYNAMIC && t->shaped.shape[0] == last);
}

/* Matches the chain ending at `add` (the bias), last op first. */
static bool match(GiltContext *ctx, GiltOp *add, Chain *c)
{
  memset(c, 0, sizeof *c);
  take(c, add);
  for (size_t i = 0; i < 2 && !c->bias; i++) {
    GiltValue *m = gilt_op_get_operand(add, i);
    GiltOp *mul = graph_match_sole(m, GRAPH_OP_MUL);
    if (!mul)
      continue;
    for (size_t j = 0; j < 2 && !c->scale; j++) {
      GiltValue *n = gilt_op_get_operand(mul, j);
      GiltOp *div = graph_match_sole(n, GRAPH_OP_DIV);
      if (!div)
        continue;
      c->n = 1;
      take(c, mul);
      take(c, div);
      if (!match_normalized(c, div))
        continue;
      c->scale = graph_match_other(mul, n);
      c->bias = graph_match_other(add, m);
    }
  }
  if (!c->bias)
    return false;
  GiltType *xt = gilt_value_get_type(c->x);
  return f32_tensor(ctx, xt) &&
         gilt_value_get_type(gilt_op_get_result(add, 0)) == xt &&
         row_param(c->scale, c->x) && row_param(c->bias, c->x);
}

static bool fuse(GiltOp *add)
{
  GiltContext *ctx = gilt_op_get_context(add);
  Chain c;
  if (!match(ctx, add, &c))
    return false;
  GiltType *i64 = gilt_integer_type_get(ctx, 64, GILT_SIGNLESS);
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  GiltNamedAttr attrs[2] = {{"axis", gilt_integer_attr_get(i64, -1)},
                            {"epsilon", gilt_float_attr_get(f32, c.eps)}};
  GiltValue *operands[3] = {c.x, c.scale, c.bias};
  return graph_match_replace(c.ops, c.n, "graph.layer_normalization", 3,
                             operands, 2, attrs) != NULL;
}

static GiltStatus run(GiltPass *pass, GiltOp *root)
{
  return graph_match_run(pass, root, GRAPH_OP_ADD, fuse,
                         "Number of layer normalizations formed");
}

const GiltPassDef gilt_graph_fuse_layer_norm_pass = {
    .name = "graph-fuse-layer-norm",
    .description = "Replace the ops of a layer normalization written out "
                   "(ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, "
                   "Mul, Add) by one graph.layer_normalization",
    .anchor = NULL,
    .options = options,
    .run = run,
};
