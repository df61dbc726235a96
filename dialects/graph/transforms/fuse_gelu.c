/*
** fuse_gelu.c - `graph-fuse-gelu`: the exact GELU that exporters without
** Gelu (ONNX below opset 20) write out op by op becomes one graph.gelu:
**
**   e = Erf(Div(x, sqrt(2)))      (or Mul(x, 1 / sqrt(2)))
**   y = Mul(Mul(x, Add(e, 1)), 0.5)   (PyTorch's F.gelu)
**   y = Mul(Mul(x, 0.5), Add(e, 1))   (the "0.5 * x * (1 + erf)" spelling)
**
** with the operands of each Add and Mul in either order (ONNX Runtime's
** GeluFusion). Five passes over the tensor, four buffers, become one
** elementwise op, which the loop level computes as x * 0.5 * (1 +
** erf(x * 0.70710678)): the same up to rounding, not bit-identical.
**
** Requires the constants to be one-element constants of those values
** (within 1e-6), the intermediate values used only inside the chain (x
** itself may have other users), f32 and the result of x's type. Requires
** nothing of other passes (run it after graph-fold-constants, which makes
** sqrt(2) a constant); the replaced ops are erased, their constants left
** for canonicalize.
*/
#include "dialects/graph/graph.h"

#include <string.h>

#include "dialects/graph/transforms/match.h"
#include "dialects/graph/transforms/passes.h"
#include "ir/core.h"

static const GiltPassOptionDef options[] = {{0}};

#define SQRT2 1.41421356237309504880

typedef struct Chain {
  GiltOp *ops[5]; /* last op first */
  size_t n;
  GiltValue *x;
} Chain;

/* x when e is Erf(x / sqrt(2)) or Erf(x * (1 / sqrt(2))). */
static GiltValue *erf_input(GiltOp *erf, Chain *c)
{
  GiltValue *in = gilt_op_get_operand(erf, 0);
  GiltOp *div = graph_match_sole(in, GRAPH_OP_DIV);
  if (div && graph_match_near(gilt_op_get_operand(div, 1), SQRT2)) {
    c->ops[c->n++] = div;
    return gilt_op_get_operand(div, 0);
  }
  GiltOp *mul = graph_match_sole(in, GRAPH_OP_MUL);
  for (size_t i = 0; mul && i < 2; i++)
    if (graph_match_near(gilt_op_get_operand(mul, i), (1 / SQRT2))) {
      c->ops[c->n++] = mul;
      return gilt_op_get_operand(mul, 1 - i);
    }
  return NULL;
}

/* Add(e, 1) with e = Erf(x / sqrt(2)): fills x, the Add, Erf and Div. */
static bool match_one_plus_erf(GiltValue *v, Chain *c)
{
  GiltOp *add = graph_match_sole(v, GRAPH_OP_ADD);
  for (size_t i = 0; add && i < 2; i++) {
    GiltOp *erf = graph_match_sole(gilt_op_get_operand(add, i), GRAPH_OP_ERF);
    if (!erf || !graph_match_near(gilt_op_get_operand(add, 1 - i), 1))
      continue;
    size_t n = c->n;
    c->ops[c->n++] = add;
    c->ops[c->n++] = erf;
    if ((c->x = erf_input(erf, c)))
      return true;
    c->n = n;
  }
  return false;
}

/* Whether v is x * 0.5 (a Mul used only here); records it. */
static bool half_of(GiltValue *v, GiltValue *x, Chain *c)
{
  GiltOp *mul = graph_match_sole(v, GRAPH_OP_MUL);
  GiltValue *other = mul ? graph_match_other(mul, x) : NULL;
  if (!other || !graph_match_near(other, 0.5))
    return false;
  c->ops[c->n++] = mul;
  return true;
}

/* last = Mul(inner, 0.5), inner = Mul(x, Add(Erf, 1)); or last =
** Mul(Mul(x, 0.5), Add(Erf, 1)). */
static bool match(GiltOp *last, Chain *c)
{
  for (size_t i = 0; i < 2; i++) {
    c->n = 1;
    GiltValue *a = gilt_op_get_operand(last, i);
    GiltValue *b = gilt_op_get_operand(last, 1 - i);
    GiltOp *inner = graph_match_sole(a, GRAPH_OP_MUL);
    if (inner && graph_match_near(b, 0.5)) {
      c->ops[c->n++] = inner;
      for (size_t j = 0; j < 2; j++) {
        c->n = 2;
        if (match_one_plus_erf(gilt_op_get_operand(inner, j), c) &&
            gilt_op_get_operand(inner, 1 - j) == c->x)
          return true;
      }
      continue;
    }
    c->n = 1;
    if (match_one_plus_erf(a, c) && half_of(b, c->x, c))
      return true;
  }
  return false;
}

static bool fuse(GiltOp *mul)
{
  GiltContext *ctx = gilt_op_get_context(mul);
  Chain c = {{mul}, 1, NULL};
  if (!match(mul, &c))
    return false;
  GiltType *t = gilt_value_get_type(c.x);
  if (gilt_type_get_kind(t) != GILT_TYPE_TENSOR ||
      t->shaped.elem != gilt_float_type_get(ctx, GILT_F32) ||
      gilt_value_get_type(gilt_op_get_result(mul, 0)) != t)
    return false;
  return graph_match_replace(c.ops, c.n, "graph.gelu", 1, &c.x, 0, NULL) !=
         NULL;
}

static GiltStatus run(GiltPass *pass, GiltOp *root)
{
  return graph_match_run(pass, root, GRAPH_OP_MUL, fuse,
                         "Number of GELUs formed");
}

const GiltPassDef gilt_graph_fuse_gelu_pass = {
    .name = "graph-fuse-gelu",
    .description = "Replace the ops of an exact GELU written out (Div, Erf, "
                   "Add, Mul, Mul) by one graph.gelu",
    .anchor = NULL,
    .options = options,
    .run = run,
};
