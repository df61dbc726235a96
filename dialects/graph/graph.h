/*
** graph.h - the graph dialect: tensor operations with value semantics, one
** op per default-domain ONNX operator (opset <= 17 semantics, or a newer
** version's where the importer reads it: GroupNormalization-21).
**
** Ops are named "graph." plus the ONNX op type in snake_case (Conv ->
** graph.conv, MatMul -> graph.mat_mul); operands, results and attributes
** are the ONNX ones, in ONNX order, under their ONNX names. Absent ONNX
** attributes are absent here too: the readers below supply the defaults.
**
** The op table is built in graph.c from one .def file per family
** (elementwise.def, reduce.def, ...). Each row carries, beside the usual
** GiltOpDef fields, a GraphOpDesc: the family's inference function, the
** element categories of the operands, the rule for the result element type
** and (for elementwise ops) the scalar function constant folding uses. The
** verifier, type inference and the folder are each one function driven by
** that descriptor. This header is the contract between the files of the
** dialect; the ONNX importer and the lowerings use the attribute readers.
** Not here: the passes at the graph level (constant and batch-norm
** folding, shape inference), one file each under transforms/ beside this
** header, declared in transforms/passes.def.
*/
#ifndef GILT_DIALECTS_GRAPH_GRAPH_H
#define GILT_DIALECTS_GRAPH_GRAPH_H

#include "gilt/interfaces.h"
#include "ir/op_def.h"

GILT_INTERNAL extern const GiltDialectDef gilt_graph_dialect;

/* ---- op identity -------------------------------------------------------- */

/* The graph ops in table order, one per row of ops.def, named by the row's
** symbol: GRAPH_OP_CONV is graph.conv. graph_ops[id] is the op's
** definition, so asking which op an op is compares a pointer, not a name:
** graph_op_is(op, GRAPH_OP_CONV), or info->def == &graph_ops[id] where
** only an op info is at hand (a build, a view). */
typedef enum GraphOpId {
#define GRAPH_OP(sym, ...) GRAPH_OP_##sym,
#include "dialects/graph/ops.def"
#undef GRAPH_OP
  GRAPH_NUM_OPS
} GraphOpId;

GILT_INTERNAL extern const GiltOpDef graph_ops[GRAPH_NUM_OPS];

/* Whether op (possibly NULL) is the graph op `id`. */
static inline bool graph_op_is(const GiltOp *op, GraphOpId id)
{
  return gilt_op_is(op, &graph_ops[id]);
}

/* ---- shapes ---------------------------------------------------------------- */

/* Ranks beyond this are rejected with a diagnostic; no ONNX model in the
** backend suite comes near it. */
#define GRAPH_MAX_RANK 32

/* A tensor shape during inference: unranked, or rank dims with
** GILT_DYNAMIC for `?`. */
typedef struct GraphShape {
  bool ranked;
  size_t rank;
  int64_t dims[GRAPH_MAX_RANK];
} GraphShape;

/* ---- what inference sees of an op ---------------------------------------- */

/* An op or an op under construction, as inference and checks see it: the
** verifier builds one from the op, the builder from its GiltOpBuild, so one
** function serves both. */
typedef struct GraphOpView {
  GiltContext *ctx;
  GiltLocation *loc;
  const GiltOpInfo *info;
  const struct GraphOpDesc *desc;
  size_t num_operands;
  GiltValue *const *operands;
  GiltAttr *attrs;     /* sorted dictionary */
  size_t num_results;  /* written results, or all it can have */
  /* For a view of some of an op's operands (QLinearConv seen as a Conv):
  ** operand i is the op's operand map[i], for naming it. NULL: itself. */
  const size_t *map;
  /* The op's regions (If's branches, Loop's and Scan's body). */
  size_t num_regions;
  GiltRegion *const *regions;
} GraphOpView;

/* Fills types[0..v->num_results) or reports at v->loc and fails. */
typedef GiltStatus (*GraphInferFn)(const GraphOpView *v, GiltType **types);
/* A scalar evaluator for constant folding: `b` is unused by unary ops;
** `integer` says the element type is an integer (division truncates). */
typedef double (*GraphEvalFn)(double a, double b, bool integer);

/* Result element type rules (GraphOpDesc.result). A value >= 0 takes the
** element type of that operand. */
enum {
  GRAPH_RES_BOOL = -1, /* i1 */
  GRAPH_RES_TO = -2,   /* the ONNX data type in attribute `to` */
  GRAPH_RES_I64 = -3   /* indices, shapes */
};

/* Per-op flags (GraphOpDesc.flags). */
enum {
  GRAPH_FOLD_IDENTITY = 1u << 0, /* folds to operand 0 (Identity, Dropout) */
  GRAPH_CONSTANT = 1u << 1,      /* graph.constant */
  /* A constant operand 0 folds to the same data in the result type
  ** (Reshape, Squeeze, Unsqueeze). */
  GRAPH_FOLD_RESHAPE = 1u << 2,
  /* Folds to the input's static shape (Shape) or element count (Size). */
  GRAPH_FOLD_SHAPE = 1u << 3,
  /* Concat, Gather, Where of small constants fold (shape subgraphs). */
  GRAPH_FOLD_CONCAT = 1u << 6,
  GRAPH_FOLD_GATHER = 1u << 7,
  GRAPH_FOLD_WHERE = 1u << 8,
  /* Control flow: one region (Loop, Scan) or two (If). */
  GRAPH_ONE_REGION = 1u << 4,
  GRAPH_TWO_REGIONS = 1u << 5,
  /* The operands before the variadic group may be `none`: Loop's M and
  ** cond are optional in ONNX, yet stand before a variadic group, where
  ** the signature cannot say `?` (ir/op_def.h). */
  GRAPH_LEADING_NONE = 1u << 9,
  /* The evaluator is the op's meaning with its attributes at their
  ** defaults: an op that carries any attribute does not fold (Gelu with
  ** `approximate`). */
  GRAPH_EVAL_PLAIN = 1u << 10
};

typedef struct GraphOpDesc {
  GraphInferFn infer;
  /* One letter per operand, the last repeating: f float, i integer (not
  ** i1), n numeric (float or integer, not i1), b bool (i1), q quantized
  ** (integer, not i1, or an 8-bit float), a any. An
  ** upper-case letter also requires the element type of the first
  ** upper-case operand. */
  const char *cats;
  int result;
  GraphEvalFn eval;
  unsigned flags;
  GiltFusionKind fusion; /* the fusion-kind interface's answer */
} GraphOpDesc;

/* graph.c */
GILT_INTERNAL const GraphOpDesc *graph_op_desc(const GiltOpDef *def);

/* ---- checks and helpers shared by the families (operands.c) ------------ */

/* Reports "'graph.x' op <message>" at v->loc; always GILT_FAILURE. */
GILT_INTERNAL GiltStatus graph_error(const GraphOpView *v, const char *fmt,
                                     ...)
    __attribute__((format(printf, 2, 3)));
/* The operand's name in the op's signature ('X', 'B', ...). */
GILT_INTERNAL const char *graph_operand_name(const GraphOpView *v, size_t i);
/* Whether string attribute `attr` (`def` when absent) is one of
** `allowed` (NULL-terminated); otherwise reports "attribute 'attr' is
** 'x', expected <listed>" and returns false. */
GILT_INTERNAL bool graph_check_string_attr(const GraphOpView *v,
                                           const char *attr, const char *def,
                                           const char *const *allowed,
                                           const char *listed);
/* Reports an operand whose element count overflows int64. Every op's
** inference runs after it (graph.c), so a shape an op receives has an
** element count; products of some of its dims may still overflow when
** another dim is 0. */
GILT_INTERNAL GiltStatus graph_check_operand_shapes(const GraphOpView *v);
/* Checks every operand against desc->cats, and that a `none` operand is
** an optional one: an inference function calls it first, and may then
** take a required operand for a tensor with an element type. */
GILT_INTERNAL GiltStatus graph_check_operands(const GraphOpView *v);
/* Whether operand i is present (exists and is not `none`). */
GILT_INTERNAL bool graph_has_operand(const GraphOpView *v, size_t i);
/* The shape of operand i (unranked for a non-tensor). */
GILT_INTERNAL void graph_operand_shape(const GraphOpView *v, size_t i,
                                       GraphShape *s);
GILT_INTERNAL GiltType *graph_operand_elem(const GraphOpView *v, size_t i);
/* The element type desc->result asks for, NULL after an error. */
GILT_INTERNAL GiltType *graph_result_elem(const GraphOpView *v);
/* tensor<shape x elem> (tensor<*x elem> when unranked); NULL when elem is
** NULL (an operand that is not a tensor). */
GILT_INTERNAL GiltType *graph_tensor_type(GiltContext *ctx,
                                          const GraphShape *s,
                                          GiltType *elem);
/* The value of operand i when a graph.constant defines it, else NULL. */
GILT_INTERNAL GiltAttr *graph_operand_constant(const GraphOpView *v,
                                               size_t i);
/* The readable dense value of a graph.constant defining v, else NULL
** (a block argument, another op, an elided resource, `none`). */
GILT_INTERNAL GiltAttr *graph_value_constant(GiltValue *v);

/* The epilogue graph-fuse-epilogues gives a Conv, Gemm, MatMul or
** BatchNormalization, as the name of one of GRAPH_EPILOGUE_KINDS (x *
** sigmoid(x) for silu; Gelu's two forms, erf and tanh), applied to each
** result element as it is stored (after a Conv's residual operand Z, or
** a MatMul's bias C and residual Z, are added); clip's
** bounds [lo, hi] (f64, +-inf for an absent one) in the second. Every
** lowering of the four ops applies it. */
#define GRAPH_EPILOGUE_ATTR "gilt.epilogue"
#define GRAPH_EPILOGUE_BOUNDS_ATTR "gilt.epilogue_bounds"
/* The activations an epilogue applies, each with its name in
** GRAPH_EPILOGUE_ATTR: the one list that the fusion pass and the
** lowerings share. */
#define GRAPH_EPILOGUE_KINDS(X)                                               \
  X(RELU, "relu")                                                             \
  X(CLIP, "clip")                                                             \
  X(SIGMOID, "sigmoid")                                                       \
  X(HARD_SWISH, "hard_swish")                                                 \
  X(SILU, "silu")                                                             \
  X(GELU, "gelu")                                                             \
  X(GELU_TANH, "gelu_tanh")
typedef enum GraphEpilogue {
  GRAPH_EPILOGUE_NONE,
#define GRAPH_EPILOGUE_ENUM(sym, name) GRAPH_EPILOGUE_##sym,
  GRAPH_EPILOGUE_KINDS(GRAPH_EPILOGUE_ENUM)
#undef GRAPH_EPILOGUE_ENUM
      GRAPH_EPILOGUE_UNKNOWN /* a name not in the list */
} GraphEpilogue;
/* The kind named by op's GRAPH_EPILOGUE_ATTR: NONE without one, UNKNOWN
** for a name (or value) not in the list. */
GILT_INTERNAL GraphEpilogue graph_epilogue_of(GiltOp *op);
/* Sets op's GRAPH_EPILOGUE_ATTR to the name of kind k (not NONE). */
GILT_INTERNAL void graph_epilogue_set(GiltOp *op, GraphEpilogue k);
/* Reads an integer constant operand (any integer element type) into
** out[0..*n); false when it is not a constant or has > max elements. */
GILT_INTERNAL bool graph_operand_ints(const GraphOpView *v, size_t i,
                                      int64_t *out, size_t max, size_t *n);
/* Reads a one-element constant operand i (TopK's K, OneHot's depth, the
** signal ops' lengths) into *out: integers as they are, floats truncated;
** false when it is not such a constant or int64 cannot hold it. */
GILT_INTERNAL bool graph_operand_scalar_int(const GraphOpView *v, size_t i,
                                            int64_t *out);
/* The element type for an ONNX TensorProto.DataType, NULL if unknown. */
GILT_INTERNAL GiltType *graph_onnx_elem_type(GiltContext *ctx, int64_t dt);
/* Normalizes an axis in [-rank, rank) into *out; false when out of range. */
GILT_INTERNAL bool graph_normalize_axis(int64_t axis, size_t rank,
                                        int64_t *out);

/* broadcast.c: numpy multidirectional broadcasting of operands [first,
** first+n) into *out; reports naming both operands when two disagree. */
GILT_INTERNAL GiltStatus graph_broadcast_operands(const GraphOpView *v,
                                                  size_t first, size_t n,
                                                  GraphShape *out);
/* Broadcasts b into a (in place); false when incompatible. */
GILT_INTERNAL bool graph_broadcast_shapes(GraphShape *a,
                                          const GraphShape *b);

/* ---- layouts (layout.c) ---------------------------------------------------- */

/* A tensor layout such as NCHW16c: dims[i] is the letter of dimension i
** (upper case: a whole dimension; lower case: an inner block of the
** dimension of that letter), factors[i] its block factor, 0 for upper
** case. */
typedef struct GraphLayout {
  size_t rank;
  char dims[GRAPH_MAX_RANK];
  int64_t factors[GRAPH_MAX_RANK];
} GraphLayout;

/* Reads the layout string s[0..n); false with the reason in `why` (a
** phrase after "it": "has dimension 'C' twice") when it is not one. */
GILT_INTERNAL bool graph_layout_parse(const char *s, size_t n,
                                      GraphLayout *out, char *why,
                                      size_t why_len);
/* The channel block of an activation layout: 1 for "NCHW", b for
** "NCHW<b>c", 0 for any other (conv.c; graph.conv_nchwc's layouts). */
GILT_INTERNAL int64_t graph_channel_block(const char *s);
/* The channel block of op's layout attribute `name` ("NCHW" where it is
** absent): what the lowerings of the ops that take one read. */
GILT_INTERNAL int64_t graph_attr_channel_block(GiltOp *op, const char *name);
/* The optional `layout` (default "NCHW") of a pool or a normalization,
** which names the layout of its X and Y: its channel block into *block
** (1 for NCHW); fails where the op does not declare it. For a blocked
** one, checks that x is [N, C/b, H, W, b] and that the op has one
** result, and takes off x's last dimension, so that x reads as the NCHW
** shape of the blocks. */
GILT_INTERNAL GiltStatus graph_x_layout(const GraphOpView *v, GraphShape *x,
                                        int64_t *block);
/* The position of dimension letter d in layout l, or -1. */
GILT_INTERNAL int graph_layout_find(const GraphLayout *l, char d);
/* The block factor layout l gives the logical dimension of upper-case
** letter d (that of its lower-case letter), 0 when l does not block it. */
GILT_INTERNAL int64_t graph_layout_block(const GraphLayout *l, char d);
/* Whether a and b are the same layout. */
GILT_INTERNAL bool graph_layout_equal(const GraphLayout *a,
                                      const GraphLayout *b);
/* The layout in string attribute `name` of op (graph.layout_transform's
** src_layout or dst_layout, which the verifier has checked); false when
** it is absent or not a layout. */
GILT_INTERNAL bool graph_attr_layout(GiltOp *op, const char *name,
                                     GraphLayout *out);
/* The dialect's attributes: `#graph.layout<"NCHW16c">`. */
#define GRAPH_NUM_ATTRS 1
GILT_INTERNAL extern const GiltAttrDef graph_attr_defs[GRAPH_NUM_ATTRS];

/* ---- attribute readers (attrs.c) ------------------------------------------ */

/* Read from a sorted attribute dictionary; absent attributes give `def`.
** Attributes of the wrong kind also give `def`: the verifier has already
** reported them. */
GILT_INTERNAL int64_t graph_dict_int(GiltAttr *dict, const char *name,
                                     int64_t def);
GILT_INTERNAL double graph_dict_float(GiltAttr *dict, const char *name,
                                      double def);
/* The string, or `def` when absent. */
GILT_INTERNAL const char *graph_dict_string(GiltAttr *dict, const char *name,
                                            const char *def);
/* An INTS attribute into out[0..min(*n, max)); *n is the attribute's
** length, which may exceed max. False when absent. Reports nothing:
** callers check the count against what they need. */
GILT_INTERNAL bool graph_dict_ints(GiltAttr *dict, const char *name,
                                   int64_t *out, size_t max, size_t *n);
/* The same, from an op (for passes and lowerings). */
GILT_INTERNAL int64_t graph_attr_int(GiltOp *op, const char *name,
                                     int64_t def);
GILT_INTERNAL double graph_attr_float(GiltOp *op, const char *name,
                                      double def);
GILT_INTERNAL const char *graph_attr_string(GiltOp *op, const char *name,
                                            const char *def);
GILT_INTERNAL bool graph_attr_ints(GiltOp *op, const char *name,
                                   int64_t *out, size_t max, size_t *n);

/* ---- the hooks every row shares ------------------------------------------ */

/* graph.c: verification and inference. */
GILT_INTERNAL GiltStatus graph_verify(GiltOp *op);
/* The result types op's inference function gives for its current operands
** (constant operands read through graph_value_constant) into
** types[0..num_results), a slot left NULL where it cannot tell; reports at
** the op and fails when the operands are invalid. Verification is this
** plus graph_check_result_types; graph-infer-shapes refines with it. */
GILT_INTERNAL GiltStatus graph_infer_op(GiltOp *op, GiltType **types);
/* Reports the first written result type that contradicts types[i]
** (compatible: same element type, ranks and known dims agree). */
GILT_INTERNAL GiltStatus graph_check_result_types(GiltOp *op,
                                                  GiltType *const *types);
GILT_INTERNAL GiltStatus graph_infer_result_types(GiltOpBuild *b);
/* fold_hook.c: the fold hook and the identity patterns. */
GILT_INTERNAL GiltStatus graph_fold(GiltOp *op, GiltAttr *const *consts,
                                    GiltFoldResult *out);
/* Stores x as one element of type t (f32, f64 or an integer) at dst;
** false when it does not fit (NaN or out of range for an integer). */
GILT_INTERNAL bool graph_store_element(GiltType *t, double x, uint8_t *dst);
/* graph_fold with results of up to `limit` elements (graph_fold's own
** bound is 1024); graph-fold-constants raises it. */
GILT_INTERNAL GiltStatus graph_fold_limited(GiltOp *op,
                                            GiltAttr *const *consts,
                                            int64_t limit,
                                            GiltFoldResult *out);
/* x + 0, x - 0, x * 1, x / 1 (and 0 + x, 1 * x) -> x. */
GILT_INTERNAL void graph_identity_patterns(GiltPatternSet *set);
/* assembly.c: the custom form. */
GILT_INTERNAL void graph_print(GiltOp *op, GiltAsmPrinter *p);
GILT_INTERNAL GiltStatus graph_parse(GiltAsmParser *p, GiltOpBuild *b);
/* patterns.c: reshape/transpose chains, squeeze/unsqueeze pairs, casts to
** the same type, slices keeping everything. */
GILT_INTERNAL void graph_movement_patterns(GiltPatternSet *set);
/* reduce.c: ReduceMean over the spatial axes becomes GlobalAveragePool. */
GILT_INTERNAL void graph_reduce_mean_patterns(GiltPatternSet *set);

/* ---- scalar evaluators for constant folding (eval.c) ----------------------- */

#define GRAPH_EVALS(X)                                                        \
  X(add) X(sub) X(mul) X(div) X(pow) X(min) X(max) X(and) X(or) X(xor)       \
  X(equal) X(less) X(greater) X(less_or_equal) X(greater_or_equal) X(not)    \
  X(abs) X(neg) X(sign) X(exp) X(log) X(sqrt) X(reciprocal) X(floor)         \
  X(ceil) X(round) X(erf) X(sin) X(cos) X(tan) X(asin) X(acos) X(atan)       \
  X(sinh) X(cosh) X(asinh) X(acosh) X(atanh) X(is_nan) X(relu) X(sigmoid)    \
  X(hard_swish) X(softplus) X(softsign) X(tanh) X(mish) X(gelu)             \
  X(bitwise_and) X(bitwise_or) X(bitwise_xor) X(bitwise_not) X(identity)
#define GRAPH_DECLARE_EVAL(name)                                              \
  GILT_INTERNAL double graph_eval_##name(double a, double b, bool integer);
GRAPH_EVALS(GRAPH_DECLARE_EVAL)
/* Whether fn, on f32 or f64 operands, gives the element type's correctly
** rounded result (eval.c says which do); integer folds are always exact. */
GILT_INTERNAL bool graph_eval_is_exact(GraphEvalFn fn);
#undef GRAPH_DECLARE_EVAL

/* ---- the families' inference functions ------------------------------------ */

/* graph.c */
GILT_INTERNAL GiltStatus graph_infer_constant(const GraphOpView *v,
                                              GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_none(const GraphOpView *v,
                                          GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_nothing(const GraphOpView *v,
                                             GiltType **types);
/* elementwise.c */
GILT_INTERNAL GiltStatus graph_infer_unary(const GraphOpView *v,
                                           GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_broadcast(const GraphOpView *v,
                                               GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_dropout(const GraphOpView *v,
                                             GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_same(const GraphOpView *v,
                                          GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_gelu(const GraphOpView *v,
                                          GiltType **types);
/* reduce.c */
GILT_INTERNAL GiltStatus graph_infer_reduce(const GraphOpView *v,
                                            GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_arg_reduce(const GraphOpView *v,
                                                GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_global_pool(const GraphOpView *v,
                                                 GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_axis_unary(const GraphOpView *v,
                                                GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_flatten(const GraphOpView *v,
                                             GiltType **types);
/* linalg.c */
GILT_INTERNAL GiltStatus graph_infer_matmul(const GraphOpView *v,
                                            GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_gemm(const GraphOpView *v,
                                          GiltType **types);
/* conv.c */
GILT_INTERNAL GiltStatus graph_infer_conv(const GraphOpView *v,
                                          GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_conv_nchwc(const GraphOpView *v,
                                                GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_conv_transpose(const GraphOpView *v,
                                                    GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_pool(const GraphOpView *v,
                                          GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_col2im(const GraphOpView *v,
                                            GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_deform_conv(const GraphOpView *v,
                                                 GiltType **types);
/* shape.c */
GILT_INTERNAL GiltStatus graph_infer_reshape(const GraphOpView *v,
                                             GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_transpose(const GraphOpView *v,
                                               GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_layout_transform(const GraphOpView *v,
                                                      GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_squeeze(const GraphOpView *v,
                                             GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_unsqueeze(const GraphOpView *v,
                                               GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_expand(const GraphOpView *v,
                                            GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_tile(const GraphOpView *v,
                                          GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_depth_to_space(const GraphOpView *v,
                                                    GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_space_to_depth(const GraphOpView *v,
                                                    GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_shape(const GraphOpView *v,
                                           GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_size(const GraphOpView *v,
                                          GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_center_crop_pad(const GraphOpView *v,
                                                     GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_constant_of_shape(const GraphOpView *v,
                                                       GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_range(const GraphOpView *v,
                                           GiltType **types);
/* slice.c */
GILT_INTERNAL GiltStatus graph_infer_concat(const GraphOpView *v,
                                            GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_split(const GraphOpView *v,
                                           GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_slice(const GraphOpView *v,
                                           GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_pad(const GraphOpView *v,
                                         GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_resize(const GraphOpView *v,
                                            GiltType **types);
/* gather.c */
GILT_INTERNAL GiltStatus graph_infer_gather(const GraphOpView *v,
                                            GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_gather_elements(const GraphOpView *v,
                                                     GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_gather_nd(const GraphOpView *v,
                                               GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_scatter(const GraphOpView *v,
                                             GiltType **types);
/* select.c */
GILT_INTERNAL GiltStatus graph_infer_top_k(const GraphOpView *v,
                                           GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_one_hot(const GraphOpView *v,
                                             GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_eye_like(const GraphOpView *v,
                                              GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_non_zero(const GraphOpView *v,
                                              GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_unique(const GraphOpView *v,
                                            GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_compress(const GraphOpView *v,
                                              GiltType **types);
/* quant.c */
GILT_INTERNAL GiltStatus graph_infer_matmul_integer(const GraphOpView *v,
                                                    GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_conv_integer(const GraphOpView *v,
                                                  GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_q_linear_mat_mul(const GraphOpView *v,
                                                      GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_q_linear_conv(const GraphOpView *v,
                                                   GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_quantize_linear(const GraphOpView *v,
                                                     GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_dequantize_linear(const GraphOpView *v,
                                                       GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_dynamic_quantize_linear(const GraphOpView *v,
                                                             GiltType **types);
/* loss.c */
GILT_INTERNAL GiltStatus graph_infer_loss(const GraphOpView *v,
                                          GiltType **types);
/* einsum.c */
GILT_INTERNAL GiltStatus graph_infer_einsum(const GraphOpView *v,
                                            GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_det(const GraphOpView *v,
                                         GiltType **types);
/* An Einsum equation resolved against its operands' ranks, for lowering:
** each dimension of each operand and of the result gets a label, equal
** labels running together. The dims under '...' are labels
** 0..ellipsis-1, aligned to the right (an operand with fewer of them
** broadcasts against the others); the letters follow, upper case first. */
#define GRAPH_EINSUM_MAX_LABELS (GRAPH_MAX_RANK + 52)
typedef struct GraphEinsum {
  size_t num_inputs, num_labels, ellipsis;
  size_t rank[GRAPH_MAX_RANK + 1]; /* the operands', then the result's */
  unsigned char label[GRAPH_MAX_RANK + 1][GRAPH_MAX_RANK];
} GraphEinsum;
/* Resolves the equation of graph.einsum `op` whose operands have ranks
** ranks[0..num_inputs); reports and fails when they do not fit it. */
GILT_INTERNAL GiltStatus graph_einsum_resolve(GiltOp *op, const size_t *ranks,
                                              GraphEinsum *e);
/* rnn.c */
GILT_INTERNAL GiltStatus graph_infer_rnn(const GraphOpView *v,
                                         GiltType **types);
/* control.c */
GILT_INTERNAL GiltStatus graph_infer_if(const GraphOpView *v,
                                        GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_loop(const GraphOpView *v,
                                          GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_scan(const GraphOpView *v,
                                          GiltType **types);
/* signal.c */
GILT_INTERNAL GiltStatus graph_infer_dft(const GraphOpView *v,
                                         GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_stft(const GraphOpView *v,
                                          GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_window(const GraphOpView *v,
                                            GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_mel_weight_matrix(const GraphOpView *v,
                                                       GiltType **types);
/* random.c */
GILT_INTERNAL GiltStatus graph_infer_random(const GraphOpView *v,
                                            GiltType **types);
/* detection.c */
GILT_INTERNAL GiltStatus graph_infer_non_max_suppression(const GraphOpView *v,
                                                         GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_roi(const GraphOpView *v,
                                         GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_grid_sample(const GraphOpView *v,
                                                 GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_affine_grid(const GraphOpView *v,
                                                 GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_max_unpool(const GraphOpView *v,
                                                GiltType **types);
/* tfidf.c */
GILT_INTERNAL GiltStatus graph_infer_tf_idf_vectorizer(const GraphOpView *v,
                                                       GiltType **types);
/* normalization.c */
GILT_INTERNAL GiltStatus graph_infer_channel_norm(const GraphOpView *v,
                                                  GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_layer_norm(const GraphOpView *v,
                                                GiltType **types);
GILT_INTERNAL GiltStatus graph_infer_group_norm(const GraphOpView *v,
                                                GiltType **types);

#endif /* GILT_DIALECTS_GRAPH_GRAPH_H */
