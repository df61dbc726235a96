/*
** fold_batchnorm.c - `graph-fold-batchnorm`: folds an inference batch
** normalization, or the Mul-by-constant / Add-of-constant pair exporters
** emit for one, into the constant weight and bias of the convolution (or
** Gemm) that feeds it.
**
** Requires nothing; preserves everything but the rewritten producer, whose
** weight and bias operands become new graph.constant ops (a bias operand is
** added when it had none); the normalization (or the Mul and Add) is
** replaced by the producer's result and erased, and so are the old weight
** and bias constants once nothing uses them. It is the classic inference
** folding (TensorRT, ONNX Runtime's ConvBNFusion, PyTorch's
** fuse_conv_bn_eval): with s = scale / sqrt(var + epsilon) per output
** channel, W' = W * s along the output channel and b' = (b - mean) * s + B;
** for the pair, s is the Mul's constant, the Add's is B, and mean is 0.
** Arithmetic is in double; results are stored in the weight's element type
** (f32 or f64; other types are left alone).
**
** The producer must be the normalization's only user's sole source: its
** result has exactly one use, so no other consumer sees the change. Conv
** and ConvTranspose scale along the output channel (W's dim 0, resp. the
** group-major dim 1), Gemm along the output column (B's dim 0 with transB,
** else dim 1), whose bias C must then be absent, per column, or a scalar,
** and beta nonzero.
** Not here: normalizations before a convolution (folding into the next
** layer's input), training-mode BatchNormalization.
*/
#include "dialects/graph/graph.h"

#include <math.h>
#include <string.h>

#include "dialects/graph/transforms/passes.h"

static const GiltPassOptionDef options[] = {{0}};

typedef GILT_VEC(GiltOp *) OpList;

/* A per-channel affine map y * scale[c] + shift[c] after the producer. */
typedef struct Affine {
  int64_t channels;
  double *scale, *shift;
} Affine;

static bool foldable_float(GiltType *t)
{
  return t->kind == GILT_TYPE_TENSOR && t->shaped.ranked &&
         t->shaped.elem->kind == GILT_TYPE_FLOAT &&
         (t->shaped.elem->fkind == GILT_F32 ||
          t->shaped.elem->fkind == GILT_F64);
}

/* Reads a constant that broadcasts along axis 1 of a result of rank
** `rank` with `channels` channels (dims of 1 elsewhere) into out. */
static bool read_per_channel(GiltValue *v, size_t rank, int64_t channels,
                             double *out)
{
  GiltAttr *c = graph_value_constant(v);
  if (!c || !foldable_float(c->type) || c->type->shaped.rank > rank)
    return false;
  size_t crank = c->type->shaped.rank, off = rank - crank;
  bool along = false;
  for (size_t d = 0; d < crank; d++) {
    int64_t n = c->type->shaped.shape[d];
    if (off + d == 1 && n == channels)
      along = true;
    else if (n != 1)
      return false;
  }
  for (int64_t k = 0; k < channels; k++)
    out[k] = gilt_dense_attr_get_float(c, along ? k : 0);
  return true;
}

/* ---- the producers ------------------------------------------------------- */

/* The weight of a producer, as far as the output channels go. */
typedef struct WeightLayout {
  int64_t dims[GRAPH_MAX_RANK];
  size_t rank;
  int64_t group;
  bool conv_transpose, gemm_trans_b, gemm;
} WeightLayout;

/* The output channel weight element i contributes to. */
static int64_t channel_of(const WeightLayout *w, int64_t i)
{
  int64_t inner = 1;
  if (w->gemm) /* B is [K, N], or [N, K] with transB */
    return w->gemm_trans_b ? i / w->dims[1] : i % w->dims[1];
  for (size_t d = 2; d < w->rank; d++)
    inner *= w->dims[d];
  if (!w->conv_transpose) /* [M, C/g, k...] */
    return i / (inner * w->dims[1]);
  /* [C, M/g, k...]: output channel g * M/g + j for input channel c in
  ** group g = c / (C/g). */
  int64_t j = (i / inner) % w->dims[1], c = i / (inner * w->dims[1]);
  return c / (w->dims[0] / w->group) * w->dims[1] + j;
}

/* Output channels of a producer: conv dims[0], conv_transpose group *
** dims[1], gemm N. */
static int64_t output_channels(const WeightLayout *w)
{
  if (w->gemm)
    return w->gemm_trans_b ? w->dims[0] : w->dims[1];
  return w->conv_transpose ? w->group * w->dims[1] : w->dims[0];
}

/* The producer's weight layout; false for anything else. */
static bool weight_layout(GiltOp *p, GiltAttr *w, WeightLayout *out)
{
  memset(out, 0, sizeof *out);
  out->gemm = graph_op_is(p, GRAPH_OP_GEMM);
  out->conv_transpose = graph_op_is(p, GRAPH_OP_CONV_TRANSPOSE);
  if (!out->gemm && !out->conv_transpose && !graph_op_is(p, GRAPH_OP_CONV))
    return false;
  out->rank = w->type->shaped.rank;
  if (out->rank > GRAPH_MAX_RANK || out->rank < 2 ||
      (out->gemm && out->rank != 2))
    return false;
  memcpy(out->dims, w->type->shaped.shape, out->rank * sizeof *out->dims);
  out->group = graph_attr_int(p, "group", 1);
  out->gemm_trans_b = graph_attr_int(p, "transB", 0) != 0;
  return out->group >= 1 &&
         !(out->conv_transpose && out->dims[0] % out->group);
}

/* A new graph.constant of `type` from doubles, before `before`. */
static GiltValue *new_constant(GiltBuilder *b, GiltOp *before, GiltType *type,
                               const double *vals, int64_t n)
{
  GiltContext *ctx = before->loc->ctx;
  GiltType *elem = type->shaped.elem;
  size_t esize = gilt_type_get_storage_size(elem);
  uint8_t *buf = gilt_blob_alloc(ctx, (size_t)n * esize);
  for (int64_t i = 0; i < n; i++)
    graph_store_element(elem, vals[i], buf + (size_t)i * esize);
  GiltAttr *value =
      gilt_dense_attr_take(type, "folded_weight", buf, (size_t)n * esize);
  if (!value)
    return NULL;
  GiltNamedAttr attr = {"value", value};
  GiltOpState st = gilt_op_state_get("graph.constant", before->loc);
  st.num_results = 1;
  st.result_types = &type;
  st.num_attrs = 1;
  st.attrs = &attr;
  gilt_builder_set_insertion_point_before(b, before);
  GiltOp *c = gilt_builder_create_op(b, &st);
  return c ? &gilt_op_result_array(c)[0] : NULL;
}

static void erase_if_unused(GiltOp *op)
{
  if (graph_op_is(op, GRAPH_OP_CONSTANT) &&
      !gilt_value_has_uses(&gilt_op_result_array(op)[0]))
    gilt_op_destroy(op);
}

/* Erases op (its results unused by now) and then the constants it alone
** used, so no dead parameters are left for `dce`. */
static void erase_with_constants(GiltOp *op)
{
  GiltOp *defs[5] = {0};
  for (size_t i = 0; i < op->num_operands && i < 5; i++)
    defs[i] = gilt_value_get_defining_op(op->operands[i].value);
  gilt_op_destroy(op);
  for (size_t i = 0; i < 5; i++)
    for (size_t j = 0; j < i; j++)
      if (defs[j] == defs[i]) /* the same constant twice */
        defs[i] = NULL;
  for (size_t i = 0; i < 5; i++)
    erase_if_unused(defs[i]);
}

/* Rewrites producer p so that its result is the affine map of the old one;
** false (IR untouched) when it cannot. */
static bool fold_into(GiltBuilder *b, GiltOp *p, const Affine *a)
{
  GiltContext *ctx = p->loc->ctx;
  GiltAttr *w =
      p->num_operands > 1 ? graph_value_constant(p->operands[1].value) : NULL;
  WeightLayout lay;
  if (!w || !foldable_float(w->type) || !weight_layout(p, w, &lay) ||
      output_channels(&lay) != a->channels ||
      w->type->shaped.elem != gilt_op_result_array(p)[0].type->shaped.elem)
    return false;
  GiltValue *bias_in = p->num_operands > 2 ? p->operands[2].value : NULL;
  bool has_bias = bias_in && bias_in->type->kind != GILT_TYPE_NONE;
  /* Gemm's alpha scales A * B and so commutes with the column scale. */
  double beta = lay.gemm ? graph_attr_float(p, "beta", 1.0) : 1.0;
  if (beta == 0)
    return false;
  int64_t c = a->channels;
  double *bias = gilt_calloc(ctx, (size_t)c + 1, sizeof *bias);
  /* Conv's [M] bias and Gemm's [N], [1, N] or scalar C all broadcast
  ** along axis 1 of a rank-2 view. */
  if (has_bias && !read_per_channel(bias_in, 2, c, bias)) {
    gilt_free(ctx, bias);
    return false;
  }
  int64_t n = gilt_dense_attr_get_num_elements(w);
  double *wv = gilt_calloc(ctx, (size_t)n + 1, sizeof *wv);
  for (int64_t i = 0; i < n; i++)
    wv[i] = gilt_dense_attr_get_float(w, i) * a->scale[channel_of(&lay, i)];
  /* y = acc + beta * b  ->  y * s + t = acc * s + beta * (b * s + t / beta) */
  for (int64_t k = 0; k < c; k++)
    bias[k] = bias[k] * a->scale[k] + a->shift[k] / beta;
  GiltType *elem = w->type->shaped.elem;
  GiltType *bias_type = gilt_tensor_type_get(ctx, 1, &c, elem, NULL);
  GiltValue *nw = new_constant(b, p, w->type, wv, n);
  GiltValue *nb = nw ? new_constant(b, p, bias_type, bias, c) : NULL;
  gilt_free(ctx, wv);
  gilt_free(ctx, bias);
  if (!nb) {
    if (nw)
      gilt_op_destroy(gilt_value_get_defining_op(nw));
    return false;
  }
  GiltOp *old_w = gilt_value_get_defining_op(p->operands[1].value);
  GiltOp *old_b = has_bias ? gilt_value_get_defining_op(bias_in) : NULL;
  GiltValue *ops[3] = {p->operands[0].value, nw, nb};
  gilt_op_set_operands(p, 3, ops);
  erase_if_unused(old_w);
  if (old_b != old_w)
    erase_if_unused(old_b);
  return true;
}

/* ---- the two shapes of the normalization -------------------------------- */

/* The producer of v when v is its only result and has one use, and no
** epilogue of graph-fuse-epilogues (an activation or a residual Z, which
** a scale of the weights would not scale alike). */
static GiltOp *sole_producer(GiltValue *v)
{
  GiltOp *p = gilt_value_get_defining_op(v);
  if (!p || p->num_results != 1 || gilt_value_get_num_uses(v) != 1 ||
      !foldable_float(v->type) || v->type->shaped.rank < 2 ||
      gilt_op_get_attr(p, GRAPH_EPILOGUE_ATTR) || p->num_operands > 3)
    return NULL;
  return p;
}

static int64_t channels_of(GiltValue *v)
{
  return v->type->shaped.shape[1];
}

/* graph.batch_normalization in inference form. */
static bool fold_batch_norm(GiltBuilder *b, GiltOp *bn)
{
  /* An activation fused into it would be lost with it. */
  if (bn->num_results != 1 || bn->num_operands != 5 ||
      graph_attr_int(bn, "training_mode", 0) != 0 ||
      gilt_op_get_attr(bn, GRAPH_EPILOGUE_ATTR))
    return false;
  GiltValue *x = bn->operands[0].value;
  GiltOp *p = sole_producer(x);
  int64_t c = p ? channels_of(x) : GILT_DYNAMIC;
  if (!p || c == GILT_DYNAMIC || gilt_op_result_array(bn)[0].type != x->type)
    return false;
  GiltContext *ctx = bn->loc->ctx;
  double *v = gilt_calloc(ctx, 4 * (size_t)c + 1, sizeof *v);
  double *scale = v, *shift = v + c, *mean = v + 2 * c, *var = v + 3 * c;
  double eps = graph_attr_float(bn, "epsilon", 1e-5);
  bool ok = read_per_channel(bn->operands[1].value, 2, c, scale) &&
            read_per_channel(bn->operands[2].value, 2, c, shift) &&
            read_per_channel(bn->operands[3].value, 2, c, mean) &&
            read_per_channel(bn->operands[4].value, 2, c, var);
  for (int64_t k = 0; ok && k < c; k++) {
    scale[k] /= sqrt(var[k] + eps);
    shift[k] -= mean[k] * scale[k];
  }
  Affine a = {c, scale, shift};
  ok = ok && fold_into(b, p, &a);
  gilt_free(ctx, v);
  if (ok) {
    gilt_value_replace_all_uses_with(&gilt_op_result_array(bn)[0], x);
    erase_with_constants(bn);
  }
  return ok;
}

/* The per-channel constant operand of a binary op whose other operand is
** x; NULL when neither is. */
static GiltValue *constant_beside(GiltOp *op, GiltValue *x)
{
  if (op->num_operands != 2)
    return NULL;
  GiltValue *l = op->operands[0].value, *r = op->operands[1].value;
  return l == x ? r : r == x ? l : NULL;
}

/* producer -> graph.mul by a per-channel constant -> graph.add of one. */
static bool fold_mul_add(GiltBuilder *b, GiltOp *add)
{
  for (size_t i = 0; i < 2; i++) {
    GiltValue *m = add->operands[i].value;
    GiltOp *mul = gilt_value_get_defining_op(m);
    if (!graph_op_is(mul, GRAPH_OP_MUL) || gilt_value_get_num_uses(m) != 1 ||
        m->type != gilt_op_result_array(add)[0].type)
      continue;
    for (size_t j = 0; j < 2; j++) {
      GiltValue *x = mul->operands[j].value;
      GiltOp *p = sole_producer(x);
      if (!p || x->type != m->type || channels_of(x) == GILT_DYNAMIC ||
          !(graph_op_is(p, GRAPH_OP_CONV) ||
            graph_op_is(p, GRAPH_OP_CONV_TRANSPOSE) ||
            graph_op_is(p, GRAPH_OP_GEMM)))
        continue;
      int64_t c = channels_of(x);
      size_t rank = x->type->shaped.rank;
      GiltContext *ctx = add->loc->ctx;
      double *v = gilt_calloc(ctx, 2 * (size_t)c + 1, sizeof *v);
      Affine a = {c, v, v + c};
      bool ok = read_per_channel(constant_beside(mul, x), rank, c, a.scale) &&
                read_per_channel(constant_beside(add, m), rank, c, a.shift) &&
                fold_into(b, p, &a);
      gilt_free(ctx, v);
      if (ok) {
        gilt_value_replace_all_uses_with(&gilt_op_result_array(add)[0], x);
        erase_with_constants(add);
        erase_with_constants(mul);
        return true;
      }
    }
  }
  return false;
}

/* ---- the pass -------------------------------------------------------------- */

static GiltWalkResult collect(GiltOp *op, void *user)
{
  if (graph_op_is(op, GRAPH_OP_BATCH_NORMALIZATION) ||
      graph_op_is(op, GRAPH_OP_ADD))
    gilt_vec_push(op->loc->ctx, (OpList *)user, op);
  return GILT_WALK_ADVANCE;
}

static GiltStatus run(GiltPass *pass, GiltOp *root)
{
  GiltContext *ctx = gilt_pass_get_context(pass);
  GiltBuilder *b = gilt_builder_create(ctx);
  OpList ops = {0};
  gilt_op_walk(root, GILT_WALK_PRE_ORDER, collect, &ops);
  /* A fold erases the visited op and ops before it (the Mul, constants),
  ** never a later add or normalization, so the list stays valid. */
  int64_t folded = 0;
  for (size_t i = 0; i < ops.len; i++) {
    GiltOp *op = ops.data[i];
    if (graph_op_is(op, GRAPH_OP_BATCH_NORMALIZATION) ? fold_batch_norm(b, op)
                                                      : fold_mul_add(b, op))
      folded++;
  }
  gilt_vec_free(ctx, &ops);
  gilt_builder_destroy(b);
  gilt_pass_add_statistic(pass, "num-folded",
                          "Number of normalizations folded into weights",
                          folded);
  if (!folded)
    gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_graph_fold_batchnorm_pass = {
    .name = "graph-fold-batchnorm",
    .description = "Fold inference batch normalizations (and Mul/Add "
                   "pairs) into the constant weights of the convolution "
                   "or Gemm before them",
    .anchor = NULL,
    .options = options,
    .run = run,
};
