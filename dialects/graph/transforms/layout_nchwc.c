/*
** layout_nchwc.c - `graph-layout-nchwc`: the convolutions that compute
** better with channels blocked by 16 become graph.conv_nchwc, their
** results NCHW16c ([N, C/16, H, W, 16]: one AVX-512 vector of f32 holds
** the 16 channels of a pixel), and the layout is carried through what
** follows them, as TVM's AlterOpLayout and oneDNN's blocked formats do.
** On a target of 256-bit vectors (`vector-bits`), channels that 16 does
** not divide and 8 does are blocked by 8, NCHW8c, one AVX2 register a
** pixel, as ONNX Runtime's NCHWc kernels block them there; every value
** of C channels is blocked alike (block_for):
**
** - a Conv chosen by the cost model below reads its input blocked when
**   the input was computed blocked, and as NCHW where it lies when not
**   (no conversion on the way in; conv_nchwc reads either), except a
**   3x3 layer of stride 1, whose input is converted: Winograd in
**   NCHW16c (conv_winograd_nchwc.c) reads only blocked inputs; a
**   residual Z is taken blocked, converted when it is not;
** - an elementwise op (Relu, Add of equal shapes, ...) whose tensor
**   operands all were computed blocked computes blocked, and so does a
**   Concat of them along the channels whose operands' channels are
**   multiples of 16;
** - so does one whose other operands are per-channel ([1, C, 1, 1]: a
**   squeeze-and-excitation gate, converted to [1, C/16, 1, 1, 16] on the
**   way in, broadcasting as before), and a MaxPool (without Indices),
**   AveragePool, global pool or inference BatchNormalization of a blocked
**   input, given `layout` "NCHW16c";
** - every blocked result that an op outside these still reads is turned
**   back into NCHW by a graph.layout_transform just after it, which is
**   all that is left of the layout at its boundaries (canonicalize and
**   dce drop the conversions no op reads any more).
**
** The cost model, per Conv (f32, 2-D, static shapes, constant weights,
** output channels a multiple of the block, one group or depthwise): not
** a 3x3 layer of stride 1 on more than 14x14 outputs whose input or
** output channels are no multiple of 16, which Winograd computes with a
** quarter to a half of the multiply-adds in NCHW (conv_winograd.c; with
** whole blocks of 16, Winograd in NCHW16c computes it faster still: ResNet-18's
** 128-channel layers at 28x28 took 0.87 ms blocked, 1.83 in NCHW); not a
** layer of at most 4 input channels, which
** conv_first.c computes at near peak in NCHW; then, to a fixed point, not
** a layer whose neighbours make the layout cost more than it saves
** (why_not_chosen). A remark of category "layout" at each Conv says which
** it chose and why.
**
** Not yet: per-channel operands of other shapes ([C, 1, 1]).
*/
#include "dialects/graph/graph.h"

#include <string.h>

#include "dialects/graph/transforms/passes.h"
#include "gilt/remarks.h"
#include "ir/core.h"

typedef GILT_VEC(GiltOp *) OpList;

/* The block of a blocked value of `channels` channels: 16, an AVX-512
** register of f32, where 16 divides them; else 8, an AVX2 register,
** which the plan allows only where the target's vectors are 256 bits or
** fewer and 8 divides them (MnasNet's 24, 40 and 72 channels). Every
** value of c channels is blocked alike, so that ops on several blocked
** operands of one type find them so. */
static int64_t block_for(int64_t channels)
{
  return channels % 16 ? 8 : 16;
}

static const char *layout_for(int64_t channels)
{
  return block_for(channels) == 8 ? "NCHW8c" : "NCHW16c";
}

/* The channels of v, [N, C, H, W]. */
static int64_t channels_of(GiltValue *v)
{
  return gilt_value_get_type(v)->shaped.shape[1];
}

typedef struct Rewriter {
  GiltContext *ctx;
  GiltBuilder *b;
  int64_t convs, ops;
  bool failed; /* an op could not be created; its diagnostic is out */
} Rewriter;

/* The blocked value that v is the NCHW form of, or NULL. */
static GiltValue *blocked_source(GiltValue *v)
{
  GiltOp *d = gilt_value_get_defining_op(v);
  if (!d || !graph_op_is(d, GRAPH_OP_LAYOUT_TRANSFORM) ||
      strcmp(graph_attr_string(d, "src_layout", ""),
             layout_for(channels_of(v))) ||
      strcmp(graph_attr_string(d, "dst_layout", ""), "NCHW"))
    return NULL;
  return gilt_op_get_operand(d, 0);
}

/* A new op of one result, before `before`, of type `type`, or inferred
** where that is NULL (inference would give an op with optional results,
** MaxPool's Indices, all of them). */
static GiltValue *create(Rewriter *r, GiltOp *before, const char *name,
                         size_t n, GiltValue *const *operands, size_t num_attrs,
                         const GiltNamedAttr *attrs, GiltType *type)
{
  GiltOpState st = gilt_op_state_get(name, gilt_op_get_location(before));
  st.num_operands = n;
  st.operands = operands;
  st.num_results = 1;
  st.result_types = type ? &type : NULL;
  st.num_attrs = num_attrs;
  st.attrs = attrs;
  st.infer_result_types = !type;
  gilt_builder_set_insertion_point_before(r->b, before);
  GiltOp *op = gilt_builder_create_op(r->b, &st);
  r->failed = r->failed || !op;
  return op ? gilt_op_get_result(op, 0) : NULL;
}

static GiltAttr *string_attr(Rewriter *r, const char *s)
{
  return gilt_string_attr_get(r->ctx, s, strlen(s));
}

/* v from layout `from` into `to`, before `before`. */
static GiltValue *transform(Rewriter *r, GiltOp *before, GiltValue *v,
                            const char *from, const char *to)
{
  GiltNamedAttr attrs[2] = {{"dst_layout", string_attr(r, to)},
                            {"src_layout", string_attr(r, from)}};
  return create(r, before, "graph.layout_transform", 1, &v, 2, attrs, NULL);
}

/* Op's result replaced by `blocked` turned back into NCHW, and op gone. */
static void replace(Rewriter *r, GiltOp *op, GiltValue *blocked)
{
  GiltValue *result = gilt_op_get_result(op, 0);
  GiltValue *nchw =
      transform(r, op, blocked, layout_for(channels_of(result)), "NCHW");
  gilt_value_replace_all_uses_with(result, nchw);
  gilt_op_destroy(op);
}

/* ---- convolutions ---------------------------------------------------------------- */

/* v's shape when it is static and of that rank, else NULL. */
static const int64_t *static_shape(GiltValue *v, size_t rank)
{
  GiltType *t = gilt_value_get_type(v);
  return gilt_shaped_type_has_static_shape(t) && t->shaped.rank == rank
             ? t->shaped.shape
             : NULL;
}

/* A 2-D window attribute with ONNX's default: strides and dilations 1,
** pads 0 (four entries). */
static void read_window_attr(GiltOp *op, const char *name, int64_t *out)
{
  bool pads = !strcmp(name, "pads");
  size_t n;
  for (size_t i = 0; i < (pads ? 4u : 2u); i++)
    out[i] = pads ? 0 : 1;
  graph_dict_ints(gilt_op_get_attr_dictionary(op), name, out, pads ? 4 : 2,
                  &n);
}

/* Whether conv is 1x1 of stride 1 without padding: the product of W and
** X as they lie, which NCHW computes in place (conv_tiled.c). */
static bool plain_1x1(GiltOp *conv, const int64_t *ws)
{
  int64_t strides[2], pads[4];
  read_window_attr(conv, "strides", strides);
  read_window_attr(conv, "pads", pads);
  return ws[2] == 1 && ws[3] == 1 && strides[0] == 1 && strides[1] == 1 &&
         !pads[0] && !pads[1] && !pads[2] && !pads[3] &&
         !strcmp(graph_attr_string(conv, "auto_pad", "NOTSET"), "NOTSET");
}

/* Whether conv is depthwise: one input and one output channel a group. */
static bool depthwise(GiltOp *conv)
{
  const int64_t *xs = static_shape(gilt_op_get_operand(conv, 0), 4);
  const int64_t *ws = static_shape(gilt_op_get_operand(conv, 1), 4);
  int64_t group = graph_attr_int(conv, "group", 1);
  return xs && ws && group != 1 && group == xs[1] && group == ws[0] &&
         ws[1] == 1;
}

/* A 3x3 layer of stride and dilation 1 whose input and output channels
** fill whole blocks of 16: one Winograd in NCHW16c computes. */
static bool winograd_shape(GiltOp *conv)
{
  const int64_t *ws = static_shape(gilt_op_get_operand(conv, 1), 4);
  int64_t strides[2], dilations[2];
  read_window_attr(conv, "strides", strides);
  read_window_attr(conv, "dilations", dilations);
  return ws && ws[2] == 3 && ws[3] == 3 && ws[0] % 16 == 0 &&
         ws[1] % 16 == 0 &&
         strides[0] == 1 && strides[1] == 1 && dilations[0] == 1 &&
         dilations[1] == 1 && !depthwise(conv);
}

/* Why conv cannot or should not compute blocked whatever its
** neighbours do, or NULL; block8: whether blocks of 8 may serve. */
static const char *why_nchw(GiltOp *conv, bool block8)
{
  GiltValue *x = gilt_op_get_operand(conv, 0);
  GiltValue *w = gilt_op_get_operand(conv, 1);
  const int64_t *xs = static_shape(x, 4), *ws = static_shape(w, 4);
  const int64_t *ys = static_shape(gilt_op_get_result(conv, 0), 4);
  if (!xs || !ws || !ys)
    return "not a 2-D convolution of static shapes";
  if (gilt_value_get_type(x)->shaped.elem !=
      gilt_float_type_get(gilt_op_get_context(conv), GILT_F32))
    return "not f32";
  if (graph_attr_int(conv, "group", 1) != 1 && !depthwise(conv))
    return "grouped, and not depthwise";
  if (!graph_value_constant(w))
    return "its weights are not constants";
  if (ws[0] % 16 && !block8)
    return "its output channels are not a multiple of 16";
  if (ws[0] % 8)
    return "its output channels are not a multiple of 8";
  if (depthwise(conv))
    return ws[2] * ws[3] > 49 ? "a depthwise filter of more than 7x7 taps"
                              : NULL;
  if (xs[1] <= 4)
    return "few input channels: conv_first computes it near peak in NCHW";
  int64_t strides[2], dilations[2];
  read_window_attr(conv, "strides", strides);
  read_window_attr(conv, "dilations", dilations);
  if (ws[2] == 3 && ws[3] == 3 && strides[0] == 1 && strides[1] == 1 &&
      dilations[0] == 1 && dilations[1] == 1 && ys[2] * ys[3] > 14 * 14 &&
      !winograd_shape(conv))
    return "a 3x3 layer of stride 1 on more than 14x14 outputs, its input "
           "or output channels no multiple of 16: Winograd computes it with "
           "fewer multiply-adds in NCHW";
  return NULL;
}

/* ---- which ops compute blocked -------------------------------------------------- */

/* Whether op computes blocked given `layout` when its X is blocked:
** a pool (of a 2-D input: the only blocked values are 2-D convolutions')
** or a BatchNormalization in inference form (its per-channel parameters
** [C] are the same floats in either layout); with one result, which
** carries_kind asks: MaxPool without its Indices. */
static bool takes_layout(GiltOp *op)
{
  return graph_op_is(op, GRAPH_OP_MAX_POOL) ||
         graph_op_is(op, GRAPH_OP_AVERAGE_POOL) ||
         graph_op_is(op, GRAPH_OP_GLOBAL_AVERAGE_POOL) ||
         graph_op_is(op, GRAPH_OP_GLOBAL_MAX_POOL) ||
         (graph_op_is(op, GRAPH_OP_BATCH_NORMALIZATION) &&
          !graph_attr_int(op, "training_mode", 0));
}

/* Whether the op may compute blocked from its operands: one result, and
** elementwise (or a broadcast kind, whose operands must then turn out of
** one type), a Concat along the channels, or an op that takes_layout. */
static bool carries_kind(GiltOp *op)
{
  GiltFusionKind kind = gilt_op_get_fusion_kind(op);
  if (gilt_op_get_num_results(op) != 1)
    return false;
  if (graph_op_is(op, GRAPH_OP_CONCAT))
    return graph_attr_int(op, "axis", 0) == 1;
  return takes_layout(op) || kind == GILT_FUSION_ELEMENTWISE ||
         kind == GILT_FUSION_BROADCAST;
}

/* Whether operand v of an op that computes blocked may stay as it is: a
** scalar (a Clip's bound) or an absent operand. */
static bool layout_free(GiltValue *v)
{
  GiltType *t = gilt_value_get_type(v);
  return gilt_type_get_kind(t) == GILT_TYPE_NONE ||
         (gilt_type_is_shaped(t) && t->shaped.ranked && t->shaped.rank == 0);
}

/* Whether v, an operand of an op whose result has type `result`, holds
** one value per channel of it: [1 or N, C, 1, 1] (a squeeze-and-
** excitation gate, a per-channel scale), which broadcasts the same way
** once it is blocked too ([1 or N, C/b, 1, 1, b]). */
static bool per_channel(GiltValue *v, GiltType *result)
{
  GiltType *t = gilt_value_get_type(v);
  const int64_t *s = static_shape(v, 4);
  return s && t->shaped.elem == result->shaped.elem &&
         (s[0] == 1 || s[0] == result->shaped.shape[0]) &&
         s[1] == result->shaped.shape[1] && s[2] == 1 && s[3] == 1;
}

/* Tells whether value v is (or, when planning, will be) blocked. */
typedef bool (*IsBlockedFn)(GiltValue *v, void *user, int depth);

/* Whether op (carries_kind) computes blocked when is_blocked says which
** operands are: X blocked for an op that takes_layout; a Concat's
** operands all blocked, by the result's block (16 and 16, or 8 and 8:
** 24 and 40 channels in blocks of 8 are no 64 in blocks of 16); else at
** least one tensor operand blocked, all those of the result's type (no
** broadcast, no change of element type), and the others per-channel
** (converted on the way in). */
static bool carries(GiltOp *op, IsBlockedFn is_blocked, void *user, int depth)
{
  /* Blocked values are static 2-D convolutions'; so is what they make. */
  if (!carries_kind(op) || !static_shape(gilt_op_get_result(op, 0), 4))
    return false;
  if (takes_layout(op))
    return is_blocked(gilt_op_get_operand(op, 0), user, depth);
  bool concat = graph_op_is(op, GRAPH_OP_CONCAT);
  GiltType *result = gilt_value_get_type(gilt_op_get_result(op, 0));
  size_t blocked = 0;
  for (size_t i = 0; i < gilt_op_get_num_operands(op); i++) {
    GiltValue *v = gilt_op_get_operand(op, i);
    if (!concat && layout_free(v))
      continue;
    bool same = concat ? block_for(channels_of(v)) ==
                             block_for(result->shaped.shape[1])
                       : gilt_value_get_type(v) == result;
    if (same && is_blocked(v, user, depth))
      blocked++;
    else if (concat || !per_channel(v, result))
      return false;
  }
  return blocked > 0;
}

/* ---- the plan -------------------------------------------------------------------- */

static bool in_list(const OpList *l, GiltOp *op)
{
  for (size_t i = 0; i < l->len; i++)
    if (l->data[i] == op)
      return true;
  return false;
}

/* How deep the planner follows chains of elementwise ops back to a Conv
** (each level may follow every operand: a bound on the work too). */
#define MAX_CHAIN 8

/* IsBlockedFn for planning: v will be the result of a chosen Conv or of
** an op that carries the layout. */
static bool will_be_blocked(GiltValue *v, void *user, int depth)
{
  const OpList *chosen = user;
  GiltOp *d = gilt_value_get_defining_op(v);
  if (!d || depth > MAX_CHAIN)
    return false;
  if (graph_op_is(d, GRAPH_OP_CONV))
    return in_list(chosen, d);
  return carries(d, will_be_blocked, user, depth + 1);
}

/* Whether some op will read v blocked: a chosen Conv as its input X or
** residual Z, or an op that carries the layout. */
static bool read_blocked(const OpList *chosen, GiltValue *v)
{
  for (GiltOperand *u = gilt_value_get_first_use(v); u;
       u = gilt_operand_get_next_use(u)) {
    GiltOp *user = gilt_operand_get_owner(u);
    size_t i = gilt_operand_get_index(u);
    if (graph_op_is(user, GRAPH_OP_CONV) ? in_list(chosen, user) &&
                                               (i == 0 || i == 3)
                                         : carries(user, will_be_blocked,
                                                   (void *)chosen, 0))
      return true;
  }
  return false;
}

/* Why a Conv that why_nchw allows still stays NCHW beside the chosen
** ones, or NULL. A 1x1 layer that NCHW computes in place, whose result
** no op would read blocked, stays NCHW when its input is NCHW too (the
** layout would only add a conversion of its result) or when it has more
** output channels than input ones (converting its input back is the
** smaller pass). A depthwise layer, which computes blocked only from a
** blocked input, stays NCHW when its input or its result would not be
** blocked. */
static const char *why_not_chosen(const OpList *chosen, GiltOp *conv)
{
  bool read = read_blocked(chosen, gilt_op_get_result(conv, 0));
  bool from_blocked =
      will_be_blocked(gilt_op_get_operand(conv, 0), (void *)chosen, 0);
  const int64_t *ws = static_shape(gilt_op_get_operand(conv, 1), 4);
  if (depthwise(conv))
    return !from_blocked ? "a depthwise layer whose input is not computed "
                           "blocked"
           : !read ? "a depthwise layer whose result no op would read "
                     "blocked"
                   : NULL;
  if (!plain_1x1(conv, ws) || read)
    return NULL;
  if (!from_blocked)
    return "a 1x1 layer that NCHW computes in place, its input NCHW, and "
           "no op would read its result blocked";
  return ws[0] > ws[1] ? "a 1x1 layer that NCHW computes in place, of more "
                         "outputs than inputs, and no op would read its "
                         "result blocked"
                       : NULL;
}

/* A Conv that stays NCHW, and why. */
typedef struct Unchosen {
  GiltOp *conv;
  const char *why;
} Unchosen;

typedef struct Plan {
  OpList chosen;
  GILT_VEC(Unchosen) unchosen;
} Plan;

/* The Convs to compute blocked: those why_nchw allows, less those
** why_not_chosen drops, until no more drop out. */
static void plan(GiltContext *ctx, const OpList *convs, bool block8, Plan *p)
{
  for (size_t i = 0; i < convs->len; i++) {
    const char *why = why_nchw(convs->data[i], block8);
    if (why)
      gilt_vec_push(ctx, &p->unchosen, ((Unchosen){convs->data[i], why}));
    else
      gilt_vec_push(ctx, &p->chosen, convs->data[i]);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < p->chosen.len;) {
      GiltOp *conv = p->chosen.data[i];
      const char *why = why_not_chosen(&p->chosen, conv);
      if (!why) {
        i++;
        continue;
      }
      gilt_vec_push(ctx, &p->unchosen, ((Unchosen){conv, why}));
      p->chosen.data[i] = p->chosen.data[--p->chosen.len];
      changed = true;
    }
  }
}

/* The remark at a Conv that stays NCHW: why. */
static void remark_nchw(const Plan *p, GiltOp *conv)
{
  for (size_t i = 0; i < p->unchosen.len; i++)
    if (p->unchosen.data[i].conv == conv)
      gilt_remark(conv, "layout", "stays-nchw", 0, NULL, "stays NCHW: %s",
                  p->unchosen.data[i].why);
}

/* ---- the rewrite ---------------------------------------------------------------- */

/* The blocked form of op's result, [N, C, H, W] as [N, C/b, H, W, b]. */
static GiltType *blocked_type(Rewriter *r, GiltOp *op)
{
  GiltType *t = gilt_value_get_type(gilt_op_get_result(op, 0));
  const int64_t *s = t->shaped.shape;
  int64_t b = block_for(s[1]);
  int64_t shape[5] = {s[0], s[1] / b, s[2], s[3], b};
  return gilt_tensor_type_get(r->ctx, 5, shape, t->shaped.elem, NULL);
}

/* Op as the same op on `operands`, its result blocked, and `extra`
** attributes besides its own; op's result turned back into NCHW. */
static bool rebuild(Rewriter *r, GiltOp *op, const char *name,
                    GiltValue *const *operands, size_t num_extra,
                    const GiltNamedAttr *extra)
{
  GiltAttr *dict = gilt_op_get_attr_dictionary(op);
  size_t na = dict ? gilt_dictionary_attr_get_size(dict) : 0, n = 0;
  GiltNamedAttr *attrs = gilt_calloc(r->ctx, na + num_extra + 1, sizeof *attrs);
  for (size_t i = 0; i < na; i++) { /* an `extra` one replaces the op's */
    GiltNamedAttr a = gilt_dictionary_attr_get_entry(dict, i);
    bool replaced = false;
    for (size_t k = 0; k < num_extra; k++)
      replaced = replaced || !strcmp(a.name, extra[k].name);
    if (!replaced)
      attrs[n++] = a;
  }
  for (size_t i = 0; i < num_extra; i++)
    attrs[n++] = extra[i];
  GiltValue *y = create(r, op, name, gilt_op_get_num_operands(op), operands,
                        n, attrs, blocked_type(r, op));
  gilt_free(r->ctx, attrs);
  if (y)
    replace(r, op, y);
  return y != NULL;
}

static bool convert_conv(Rewriter *r, GiltOp *conv)
{
  size_t n = gilt_op_get_num_operands(conv);
  GiltValue *ops[4];
  for (size_t i = 0; i < n; i++)
    ops[i] = gilt_op_get_operand(conv, i);
  /* A depthwise layer reads its input blocked only: the plan makes it
  ** so, but a conversion keeps the IR right whatever the plan missed. A
  ** 3x3 layer of stride 1 reads it blocked too, converted where it is
  ** not: Winograd in NCHW16c (conv_winograd_nchwc.c) takes only that. */
  const char *in_layout = layout_for(channels_of(ops[0]));
  const char *out_layout = layout_for(channels_of(gilt_op_get_result(conv, 0)));
  GiltValue *xb = blocked_source(ops[0]);
  if (!xb && (depthwise(conv) || winograd_shape(conv)))
    xb = transform(r, conv, ops[0], "NCHW", in_layout);
  const char *data_layout = xb ? in_layout : "NCHW";
  if (xb)
    ops[0] = xb;
  if (n > 3 && !layout_free(ops[3])) {
    GiltValue *zb = blocked_source(ops[3]);
    ops[3] = zb ? zb : transform(r, conv, ops[3], "NCHW", out_layout);
  }
  if (r->failed)
    return false;
  gilt_remark(conv, "layout", "nchwc", 0, NULL,
              "computes %s (graph.conv_nchwc), its input read as %s",
              out_layout, data_layout);
  GiltNamedAttr layouts[2] = {{"data_layout", string_attr(r, data_layout)},
                              {"out_layout", string_attr(r, out_layout)}};
  return rebuild(r, conv, "graph.conv_nchwc", ops, 2, layouts);
}

static bool is_blocked_now(GiltValue *v, void *user, int depth)
{
  (void)user, (void)depth;
  return blocked_source(v) != NULL;
}

/* An op that carries the layout, on the blocked values and its
** per-channel operands converted. */
static bool carry(Rewriter *r, GiltOp *op)
{
  if (!carries(op, is_blocked_now, NULL, 0))
    return false;
  size_t n = gilt_op_get_num_operands(op);
  GiltValue **ops = gilt_calloc(r->ctx, n + 1, sizeof *ops);
  bool x_only = takes_layout(op); /* its other operands keep their form */
  const char *layout = layout_for(channels_of(gilt_op_get_result(op, 0)));
  for (size_t i = 0; i < n; i++) {
    GiltValue *v = gilt_op_get_operand(op, i);
    GiltValue *b = blocked_source(v);
    if (b)
      ops[i] = b;
    else if (layout_free(v) || (x_only && i > 0))
      ops[i] = v;
    else /* per-channel */
      ops[i] = transform(r, op, v, "NCHW", layout);
  }
  if (r->failed) {
    gilt_free(r->ctx, ops);
    return false;
  }
  GiltNamedAttr attr = {"layout", string_attr(r, layout)};
  bool done =
      rebuild(r, op, gilt_op_get_name(op), ops, takes_layout(op), &attr);
  gilt_free(r->ctx, ops);
  return done;
}

/* ---- the pass -------------------------------------------------------------------- */

typedef struct Collected {
  OpList all, convs;
} Collected;

static GiltWalkResult collect(GiltOp *op, void *user)
{
  Collected *c = user;
  GiltContext *ctx = gilt_op_get_context(op);
  gilt_vec_push(ctx, &c->all, op);
  if (graph_op_is(op, GRAPH_OP_CONV))
    gilt_vec_push(ctx, &c->convs, op);
  return GILT_WALK_ADVANCE;
}

static GiltStatus run(GiltPass *pass, GiltOp *root)
{
  GiltContext *ctx = gilt_pass_get_context(pass);
  Rewriter r = {ctx, gilt_builder_create(ctx), 0, 0, false};
  Collected c = {{0}, {0}};
  Plan p = {{0}, {0}};
  gilt_op_walk(root, GILT_WALK_PRE_ORDER, collect, &c);
  plan(ctx, &c.convs, gilt_pass_get_option_int(pass, "vector-bits") == 256,
       &p);
  /* In program order, so that an op sees its operands' layouts decided.
  ** A rewrite destroys only the op visited. */
  for (size_t i = 0; i < c.all.len && !r.failed; i++) {
    GiltOp *op = c.all.data[i];
    if (graph_op_is(op, GRAPH_OP_CONV) && !in_list(&p.chosen, op))
      remark_nchw(&p, op);
    else if (graph_op_is(op, GRAPH_OP_CONV))
      r.convs += convert_conv(&r, op);
    else
      r.ops += carry(&r, op);
  }
  gilt_vec_free(ctx, &c.all);
  gilt_vec_free(ctx, &c.convs);
  gilt_vec_free(ctx, &p.chosen);
  gilt_vec_free(ctx, &p.unchosen);
  gilt_builder_destroy(r.b);
  gilt_pass_add_statistic(pass, "num-convs",
                          "Number of convolutions computed blocked", r.convs);
  gilt_pass_add_statistic(pass, "num-carried",
                          "Number of other ops computed blocked", r.ops);
  if (!r.convs && !r.ops && !r.failed)
    gilt_pass_mark_unchanged(pass);
  return r.failed ? GILT_FAILURE : GILT_SUCCESS;
}

static const GiltPassOptionDef options[] = {
    {"vector-bits", GILT_OPTION_INT, "512",
     "The width of the target's vector registers: 256 (AVX2) blocks "
     "channels by 8 where 16 do not divide them, any other width by 16 "
     "only"},
    {0}};

const GiltPassDef gilt_graph_layout_nchwc_pass = {
    .name = "graph-layout-nchwc",
    .description = "Compute the convolutions that the cost model chooses in "
                   "NCHW16c or NCHW8c (graph.conv_nchwc), and the "
                   "elementwise ops and channel Concats after them, "
                   "converting back to NCHW only where an op reads the "
                   "layout as NCHW",
    .anchor = NULL,
    .options = options,
    .run = run,
};
