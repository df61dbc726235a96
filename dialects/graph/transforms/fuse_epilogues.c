/*
** fuse_epilogues.c - `graph-fuse-epilogues`: what follows a Conv, Gemm,
** MatMul or BatchNormalization elementwise becomes that op's epilogue,
** computed as it stores its result, and the separate passes over the
** tensor are gone (ONNX Runtime's FusedConv and TVM's fused kernels do
** the same):
**
** - a bias Add of a MatMul's result and a vector of one value per
**   column ([N]: the Linear layers of transformers, which PyTorch exports
**   as MatMul and Add): the vector becomes the MatMul's operand C;
** - a residual Add of a Conv's, Gemm's or MatMul's result and a tensor
**   of the same shape (the skip connections of ResNet, MobileNetV2 and
**   transformer blocks): the tensor becomes the op's operand Z, added to
**   each result element (after C);
** - then an activation of the result (a BatchNormalization's too): a
**   Relu, a Clip (constant bounds), a Sigmoid, a HardSwish, a Gelu, or a
**   Mul of the result and its Sigmoid (SiLU, EfficientNet's activation):
**   the discardable attributes GRAPH_EPILOGUE_ATTR ("relu", "clip",
**   "sigmoid", "hard_swish", "gelu", "gelu_tanh" or "silu") and
**   GRAPH_EPILOGUE_BOUNDS_ATTR ([lo, hi] as f64, for clip) of the
**   producer (graph.h), applied after Z.
**
** Every lowering of the four ops applies them
** (transforms/graph_to_loop/epilogue.c), so the fused op computes what
** the separate ones did, bit for bit. The producer's location becomes the
** fusion of all the ops' locations: diagnostics and gjit --profile name
** every node.
**
** Fused only when the producer's result has this one use (no other
** consumer may see the unfused values), is f32 (the element type the
** tiled kernels apply epilogues in), and, for an Add, has no epilogue yet
** (an activation comes after the residual, never before) and the Add's
** other operand has exactly the result's type (no broadcast) or, for a
** bias, is the f32 vector [N] (a MatMul with no residual yet); a SiLU,
** when the result's two users are its Sigmoid and the Mul. Adds are
** fused first, in program order (a bias before the residual that
** follows it), so that an activation after them then fuses too. A
** producer fused with an Add defined after its other operand moves down
** to the Add, so that C or Z is defined before it. A remark of category
** "fusion" at each Add and activation says what was decided and why
** (gilt/remarks.h: gopt and gjit --explain=fusion, --decisions).
*/
#include "dialects/graph/graph.h"

#include <math.h>
#include <string.h>

#include "dialects/graph/transforms/passes.h"
#include "gilt/remarks.h"
#include "ir/core.h"

typedef GILT_VEC(GiltOp *) OpList;

/* The Adds and the Muls, or the activations, in program order. */
typedef struct Candidates {
  OpList adds, muls, acts;
} Candidates;

/* The epilogue that the unary activation op becomes, or NONE when it is
** none of those. */
static GraphEpilogue activation_kind(GiltOp *op)
{
  if (graph_op_is(op, GRAPH_OP_RELU))
    return GRAPH_EPILOGUE_RELU;
  if (graph_op_is(op, GRAPH_OP_CLIP))
    return GRAPH_EPILOGUE_CLIP;
  if (graph_op_is(op, GRAPH_OP_SIGMOID))
    return GRAPH_EPILOGUE_SIGMOID;
  if (graph_op_is(op, GRAPH_OP_HARD_SWISH))
    return GRAPH_EPILOGUE_HARD_SWISH;
  if (graph_op_is(op, GRAPH_OP_GELU))
    return strcmp(graph_attr_string(op, "approximate", "none"), "tanh")
               ? GRAPH_EPILOGUE_GELU
               : GRAPH_EPILOGUE_GELU_TANH;
  return GRAPH_EPILOGUE_NONE;
}

static GiltWalkResult collect_binary(GiltOp *op, void *user)
{
  Candidates *c = user;
  GiltContext *ctx = gilt_op_get_context(op);
  if (graph_op_is(op, GRAPH_OP_ADD))
    gilt_vec_push(ctx, &c->adds, op);
  else if (graph_op_is(op, GRAPH_OP_MUL))
    gilt_vec_push(ctx, &c->muls, op);
  return GILT_WALK_ADVANCE;
}

static GiltWalkResult collect_activations(GiltOp *op, void *user)
{
  Candidates *c = user;
  if (activation_kind(op) != GRAPH_EPILOGUE_NONE)
    gilt_vec_push(gilt_op_get_context(op), &c->acts, op);
  return GILT_WALK_ADVANCE;
}

static bool is_f32_tensor(GiltValue *v)
{
  GiltType *t = gilt_value_get_type(v);
  return gilt_type_get_kind(t) == GILT_TYPE_TENSOR &&
         gilt_shaped_type_get_element_type(t) ==
             gilt_float_type_get(gilt_type_get_context(t), GILT_F32);
}

/* The producer's location fused with op's, op's result replaced by the
** producer's, and op erased. */
static void absorb(GiltOp *producer, GiltOp *op, const char *as)
{
  GiltLocation *at = gilt_op_get_location(producer);
  GiltLocation *loc = gilt_op_get_location(op);
  GiltRemarkArg args[2] = {{"into", gilt_op_get_name(producer), 0},
                           {"as", as, 0}};
  gilt_remark(op, "fusion", "fused", 2, args,
              "fused into the %s before it as its %s",
              gilt_op_get_name(producer), as);
  gilt_op_set_location(producer, gilt_location_fused_flat(at, loc));
  gilt_value_replace_all_uses_with(gilt_op_get_result(op, 0),
                                   gilt_op_get_result(producer, 0));
  gilt_op_destroy(op);
}

static void explain_not(GiltOp *op, const char *why)
{
  gilt_remark(op, "fusion", "not-fused", 0, NULL, "not fused: %s", why);
}

/* ---- bias and residual Adds ---------------------------------------------------- */

/* Whether op is a product that takes a bias or residual operand: a Conv
** or Gemm (a residual), or a MatMul of matrices (the verifier's condition
** for its C and Z). */
static bool takes_addends(GiltOp *op)
{
  if (graph_op_is(op, GRAPH_OP_CONV) || graph_op_is(op, GRAPH_OP_GEMM))
    return true;
  if (!graph_op_is(op, GRAPH_OP_MAT_MUL))
    return false;
  for (size_t i = 0; i < 2; i++) {
    GiltType *t = gilt_value_get_type(gilt_op_get_operand(op, i));
    if (gilt_type_get_kind(t) != GILT_TYPE_TENSOR ||
        !gilt_shaped_type_has_rank(t) || gilt_shaped_type_get_rank(t) < 2)
      return false;
  }
  return true;
}

/* Why Add operand y, the other being z, cannot become operand `slot` (2:
** a MatMul's bias C; 3: the residual Z) of the Conv, Gemm or MatMul that
** produces it, or NULL when it can. */
static const char *why_not_addend(GiltOp *add, GiltValue *y, GiltValue *z,
                                  size_t slot)
{
  GiltOp *producer = gilt_value_get_defining_op(y);
  if (!takes_addends(producer))
    return "neither operand is the result of a Conv, a Gemm or a MatMul of "
           "matrices";
  if (slot == 2 && !graph_op_is(producer, GRAPH_OP_MAT_MUL))
    return "a Conv or Gemm takes its bias from the model";
  if (gilt_value_get_num_uses(y) != 1)
    return "the product's result has other users, which must see it "
           "without the addition";
  if (gilt_op_get_attr(producer, GRAPH_EPILOGUE_ATTR))
    return "the product has an activation epilogue, which the addition "
           "would have to follow";
  if (gilt_op_get_num_operands(producer) > 3)
    return "the product has a residual already";
  if (slot == 2 && gilt_op_get_num_operands(producer) > 2)
    return "the MatMul has a bias already";
  if (gilt_op_get_block(producer) != gilt_op_get_block(add))
    return "the product is in another block";
  if (!is_f32_tensor(y))
    return "the product's result is not f32";
  if (slot == 3 && gilt_value_get_type(z) != gilt_value_get_type(y))
    return "its other operand's type differs from the product's result's "
           "(a broadcast)";
  if (slot == 2) {
    GiltType *yt = gilt_value_get_type(y), *zt = gilt_value_get_type(z);
    size_t rank =
        gilt_shaped_type_has_rank(yt) ? gilt_shaped_type_get_rank(yt) : 0;
    int64_t n = rank ? gilt_shaped_type_get_dim(yt, rank - 1) : GILT_DYNAMIC;
    if (!is_f32_tensor(z) || !gilt_shaped_type_has_rank(zt) ||
        gilt_shaped_type_get_rank(zt) != 1 || n == GILT_DYNAMIC ||
        gilt_shaped_type_get_dim(zt, 0) != n)
      return "its other operand is not one value per column of the "
             "MatMul's result";
  }
  return NULL;
}

/* An absent operand of op (a product's bias): a graph.none
** before it, for the position of the operand after it. */
static GiltValue *none_before(GiltOp *op)
{
  GiltContext *ctx = gilt_op_get_context(op);
  GiltType *t = gilt_none_type_get(ctx);
  GiltOpState st = gilt_op_state_get("graph.none", gilt_op_get_location(op));
  st.num_results = 1;
  st.result_types = &t;
  GiltBuilder *b = gilt_builder_create(ctx);
  gilt_builder_set_insertion_point_before(b, op);
  GiltOp *none = gilt_builder_create_op(b, &st);
  gilt_builder_destroy(b);
  return gilt_op_get_result(none, 0);
}

/* The operand an Add would be of the product before it: a bias (slot 2)
** when an operand is a vector, which no residual is, else a residual. */
static size_t addend_slot(GiltOp *add)
{
  for (size_t i = 0; i < 2; i++) {
    GiltType *t = gilt_value_get_type(gilt_op_get_operand(add, i));
    if (gilt_type_get_kind(t) == GILT_TYPE_TENSOR &&
        gilt_shaped_type_has_rank(t) && gilt_shaped_type_get_rank(t) == 1)
      return 2;
  }
  return 3;
}

/* Add's operands as the product's result y and the addend z, or false
** with a remark when neither can be; both may be products of which the
** later one takes the earlier one's result. Which slot: see
** why_not_addend. */
static bool pick_addend(GiltOp *add, size_t slot, GiltValue **y,
                        GiltValue **z)
{
  GiltValue *a = gilt_op_get_operand(add, 0), *b = gilt_op_get_operand(add, 1);
  const char *why_a = why_not_addend(add, a, b, slot);
  const char *why_b = why_not_addend(add, b, a, slot);
  if (why_a && why_b) {
    /* The reason about a product operand, when there is one. */
    explain_not(add, takes_addends(gilt_value_get_defining_op(a)) ? why_a
                                                                  : why_b);
    return false;
  }
  *y = why_a ? b : a;
  *z = why_a ? a : b;
  if (!why_a && !why_b &&
      gilt_op_is_before_in_block(gilt_value_get_defining_op(a),
                                 gilt_value_get_defining_op(b))) {
    *y = b;
    *z = a;
  }
  return true;
}

/* Add fused into the product before it as its operand `slot` (see
** why_not_addend); false, with a remark, when it cannot be. */
static bool fuse_addend(GiltOp *add, size_t slot)
{
  GiltValue *y, *z;
  if (!pick_addend(add, slot, &y, &z))
    return false;
  GiltOp *producer = gilt_value_get_defining_op(y);
  GiltOp *zdef = gilt_value_get_defining_op(z);
  /* The product's operands are defined before it, so also before the
  ** Add; there z is too. */
  if (zdef && gilt_op_get_block(zdef) == gilt_op_get_block(producer) &&
      gilt_op_is_before_in_block(producer, zdef))
    gilt_op_move_before(producer, add);
  size_t n = gilt_op_get_num_operands(producer);
  GiltValue *ops[4];
  for (size_t i = 0; i < slot; i++)
    ops[i] = i < n ? gilt_op_get_operand(producer, i) : none_before(producer);
  ops[slot] = z;
  gilt_op_set_operands(producer, slot + 1, ops);
  absorb(producer, add, slot == 2 ? "bias epilogue" : "residual epilogue");
  return true;
}

/* ---- activations -------------------------------------------------------------------- */

/* The ops whose lowerings apply an activation epilogue: the products,
** and a BatchNormalization in inference (one result), which DenseNet's
** and pre-activation ResNets' layers follow with a Relu before their
** Conv. */
static bool is_producer(GiltOp *op)
{
  if (graph_op_is(op, GRAPH_OP_BATCH_NORMALIZATION))
    return gilt_op_get_num_results(op) == 1 &&
           !graph_attr_int(op, "training_mode", 0);
  return graph_op_is(op, GRAPH_OP_CONV) || graph_op_is(op, GRAPH_OP_GEMM) ||
         graph_op_is(op, GRAPH_OP_MAT_MUL);
}

/* Clip's bound operand i (1 min, 2 max) into *out: absent is +-inf. False
** when it is present but not a constant scalar. */
static bool clip_bound(GiltOp *clip, size_t i, double none, double *out)
{
  *out = none;
  if (gilt_op_get_num_operands(clip) <= i)
    return true;
  GiltValue *v = gilt_op_get_operand(clip, i);
  if (gilt_type_get_kind(gilt_value_get_type(v)) == GILT_TYPE_NONE)
    return true;
  GiltAttr *c = graph_value_constant(v);
  if (!c || gilt_dense_attr_get_num_elements(c) != 1)
    return false;
  *out = gilt_dense_attr_get_float(c, 0);
  return true;
}

/* Why `in`, used `uses` times by what would fuse, cannot be the result
** of an op that takes an activation epilogue, or NULL when it can;
** *producer gets its defining op when there is one. */
static const char *why_not_producer(GiltValue *in, size_t uses,
                                    GiltOp **producer)
{
  *producer = gilt_value_get_defining_op(in);
  if (!*producer || !is_producer(*producer))
    return "its input is not the result of a Conv, Gemm, MatMul or "
           "BatchNormalization";
  if (gilt_value_get_num_uses(in) != uses)
    return "the producer's result has other users, which must see it "
           "unactivated";
  if (gilt_op_get_attr(*producer, GRAPH_EPILOGUE_ATTR))
    return "the producer has an epilogue already";
  if (!is_f32_tensor(in))
    return "the producer's result is not f32";
  return NULL;
}

/* The producer's epilogue set to `kind`, then the ops (its users, in
** order) absorbed into it. */
static void set_epilogue(GiltOp *producer, GraphEpilogue kind, size_t n,
                         GiltOp *const *ops)
{
  graph_epilogue_set(producer, kind);
  for (size_t i = 0; i < n; i++)
    absorb(producer, ops[i], "epilogue");
}

static bool fuse_activation(GiltOp *act)
{
  GiltContext *ctx = gilt_op_get_context(act);
  GiltOp *producer;
  double bounds[2] = {0, 0};
  GraphEpilogue what = activation_kind(act);
  const char *why = why_not_producer(gilt_op_get_operand(act, 0), 1, &producer);
  if (!why && what == GRAPH_EPILOGUE_CLIP &&
      (!clip_bound(act, 1, -INFINITY, &bounds[0]) ||
       !clip_bound(act, 2, INFINITY, &bounds[1])))
    why = "its bounds are not constants";
  if (why) {
    explain_not(act, why);
    return false;
  }
  if (what == GRAPH_EPILOGUE_CLIP) {
    GiltType *f64 = gilt_float_type_get(ctx, GILT_F64);
    GiltAttr *b[2] = {gilt_float_attr_get(f64, bounds[0]),
                      gilt_float_attr_get(f64, bounds[1])};
    gilt_op_set_attr(producer, GRAPH_EPILOGUE_BOUNDS_ATTR,
                     gilt_array_attr_get(ctx, 2, b));
  }
  set_epilogue(producer, what, 1, &act);
  return true;
}

/* ---- SiLU: x * Sigmoid(x) ------------------------------------------------------ */

/* The Sigmoid defining `gate` when it is the Sigmoid of x, else NULL. */
static GiltOp *sigmoid_of(GiltValue *gate, GiltValue *x)
{
  GiltOp *s = gilt_value_get_defining_op(gate);
  return s && graph_op_is(s, GRAPH_OP_SIGMOID) &&
                 gilt_op_get_operand(s, 0) == x
             ? s
             : NULL;
}

/* A Mul of a producer's result x and Sigmoid(x) (SiLU, or Swish:
** EfficientNet's activation) becomes the producer's "silu" epilogue,
** Sigmoid and Mul both absorbed. Other Muls are no business of this
** pass and get no remark. */
static bool fuse_silu(GiltOp *mul)
{
  GiltValue *x = gilt_op_get_operand(mul, 0);
  GiltOp *sigmoid = sigmoid_of(gilt_op_get_operand(mul, 1), x);
  if (!sigmoid) {
    x = gilt_op_get_operand(mul, 1);
    sigmoid = sigmoid_of(gilt_op_get_operand(mul, 0), x);
  }
  if (!sigmoid)
    return false;
  GiltOp *producer;
  const char *why = why_not_producer(x, 2, &producer);
  if (!why && gilt_value_get_num_uses(gilt_op_get_result(sigmoid, 0)) != 1)
    why = "the Sigmoid's result has other users";
  if (why) {
    explain_not(mul, why);
    return false;
  }
  GiltOp *ops[2] = {sigmoid, mul};
  set_epilogue(producer, GRAPH_EPILOGUE_SILU, 2, ops);
  return true;
}

static GiltStatus run(GiltPass *pass, GiltOp *root)
{
  GiltContext *ctx = gilt_pass_get_context(pass);
  Candidates c = {{0}, {0}, {0}};
  gilt_op_walk(root, GILT_WALK_PRE_ORDER, collect_binary, &c);
  /* A fusion erases the visited op and, for a SiLU, its Sigmoid, which
  ** no list holds yet: the activations are collected after. */
  int64_t residuals = 0, biases = 0, fused = 0;
  for (size_t i = 0; i < c.adds.len; i++) {
    size_t slot = addend_slot(c.adds.data[i]);
    if (!fuse_addend(c.adds.data[i], slot))
      continue;
    if (slot == 2)
      biases++;
    else
      residuals++;
  }
  for (size_t i = 0; i < c.muls.len; i++)
    fused += fuse_silu(c.muls.data[i]);
  gilt_op_walk(root, GILT_WALK_PRE_ORDER, collect_activations, &c);
  for (size_t i = 0; i < c.acts.len; i++)
    fused += fuse_activation(c.acts.data[i]);
  gilt_vec_free(ctx, &c.adds);
  gilt_vec_free(ctx, &c.muls);
  gilt_vec_free(ctx, &c.acts);
  gilt_pass_add_statistic(pass, "num-fused",
                          "Number of activations fused into their producer",
                          fused);
  gilt_pass_add_statistic(pass, "num-residuals",
                          "Number of residual Adds fused into their Conv, "
                          "Gemm or MatMul",
                          residuals);
  gilt_pass_add_statistic(pass, "num-biases",
                          "Number of bias Adds fused into their MatMul",
                          biases);
  if (!fused && !residuals && !biases)
    gilt_pass_mark_unchanged(pass);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_graph_fuse_epilogues_pass = {
    .name = "graph-fuse-epilogues",
    .description = "Fuse a bias Add into the MatMul before it, a residual "
                   "Add into the Conv, Gemm or MatMul before it, and a Relu, "
                   "constant Clip, Sigmoid, HardSwish, Gelu or SiLU (x * "
                   "Sigmoid(x)) into the Conv, Gemm, MatMul or "
                   "BatchNormalization before it, "
                   "as their epilogue",
    .anchor = NULL,
    .run = run,
};
