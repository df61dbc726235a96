/*
** elementwise.c - lowering of the graph's elementwise and broadcasting ops
** (arithmetic, logic, comparisons, activations, casts): one loop.parallel
** nest over the result, loading each operand at its broadcast indices and
** storing what a scalar function computes from them.
**
** One nest builder serves every op; what differs is the scalar function,
** one small function per ONNX op, with ONNX's semantics in the element
** type: integer division truncates, Mod without fmod takes the divisor's
** sign, comparisons of NaN are false, Relu and the clamps keep NaN.
** Not here: ops with a reduction or a window (reduce.c, conv.c, ...).
*/
#include "transforms/graph_to_loop/lowering.h"

#include "gilt/remarks.h"
#include "transforms/graph_to_loop/activation.h"

#include <math.h>
#include <string.h>

/* Computes one result element from the operands' elements (x[i] NULL for
** an absent optional operand). */
typedef GiltValue *(*ScalarFn)(Lower *l, GiltValue *const *x);

typedef struct Elementwise {
  ScalarFn fn;
  GiltValue *out;
  size_t rank;
  size_t num_inputs; /* the operands it reads: CastLike's second is a type */
} Elementwise;

static void elementwise_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Elementwise *e = user;
  /* Absent trailing operands (Clip's min and max) read as NULL too. */
  size_t n = e->num_inputs, room = gilt_op_get_num_operands(l->op) + 3;
  GiltValue *x[room];
  for (size_t i = 0; i < room; i++)
    x[i] = NULL;
  for (size_t i = 0; i < n; i++) {
    GiltValue *in = lower_operand(l, i);
    if (!in)
      continue;
    GiltValue *idx[GRAPH_MAX_RANK];
    lower_broadcast_indices(l, in, e->rank, ivs, idx);
    x[i] = lower_load(l, in, idx);
  }
  lower_store(l, e->fn(l, x), e->out, ivs);
}

/* The size of result dimension i: its static size, or the broadcast of
** the operands' sizes aligned with it. */
static GiltValue *broadcast_dim(Lower *l, size_t i, size_t rank,
                                size_t num_inputs)
{
  GiltType *t = lower_result_type(l, 0);
  if (t->shaped.shape[i] != GILT_DYNAMIC)
    return lower_index(l, t->shaped.shape[i]);
  GiltValue *size = lower_index(l, 1), *one = size;
  for (size_t k = 0; k < num_inputs; k++) {
    GiltValue *in = lower_operand(l, k);
    if (!in)
      continue;
    size_t r = gilt_value_get_type(in)->shaped.rank;
    if (r + i < rank)
      continue;
    GiltValue *d = lower_dim(l, in, r + i - rank);
    size = lower_select(l, lower_cmp(l, "eq", d, one), size, d);
  }
  return size;
}

static GiltStatus lower_with(Lower *l, ScalarFn fn)
{
  GiltType *t = lower_result_type(l, 0);
  size_t rank = t->shaped.rank;
  size_t inputs = graph_op_is(l->op, GRAPH_OP_CAST_LIKE)
                      ? 1
                      : gilt_op_get_num_operands(l->op);
  GiltValue *dims[GRAPH_MAX_RANK];
  for (size_t i = 0; i < rank; i++)
    dims[i] = broadcast_dim(l, i, rank, inputs);
  Elementwise e = {fn, lower_alloc(l, t, dims), rank, inputs};
  lower_parallel(l, rank, dims, elementwise_body, &e);
  return lower_replace(l, &e.out);
}

/* ---- by lanes ------------------------------------------------------------------ */

/* The arithmetic ops and the activations in f32 go 16 results at a time
** where the result's last dimension is a static multiple of 16 (8 at a
** time where it is 8: NCHW8c's blocks) and every operand's last
** dimension is the result's or broadcast (1, or none): an
** operand of the result's width is read as vectors, a broadcast one (a
** Clip's bound, a squeeze-and-excitation gate) once and splat. A product
** by a squeeze-and-excitation gate in NCHW16c ([N, C/16, H, W, 16] times
** [N, C/16, 1, 1, 16]) is then one vector multiply per pixel, and a chain
** of such ops (x * Sigmoid(x), a Gelu written out) has nests of one shape,
** which loop-fuse-parallel makes one. The scalar functions take vectors
** as they are (fused epilogues apply them to a kernel's lanes), so the
** arithmetic is the scalar nest's. */
typedef struct Lanes {
  Elementwise e;
  LowerLanes v;
} Lanes;

/* The most operands an op by lanes reads: Clip's three. */
#define LANES_MAX_INPUTS 3

static void lanes_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Lanes *s = user;
  size_t rank = s->e.rank;
  GiltValue *at[GRAPH_MAX_RANK];
  for (size_t i = 0; i < rank; i++)
    at[i] = ivs[i];
  at[rank - 1] = lower_times(l, ivs[rank - 1], lower_index(l, s->v.width));
  GiltValue *x[LANES_MAX_INPUTS] = {NULL};
  for (size_t i = 0; i < s->e.num_inputs; i++) {
    GiltValue *in = lower_operand(l, i);
    if (!in)
      continue;
    GiltValue *idx[GRAPH_MAX_RANK];
    lower_broadcast_indices(l, in, rank, at, idx);
    GiltType *t = gilt_value_get_type(in);
    x[i] = t->shaped.rank > 0 && t->shaped.shape[t->shaped.rank - 1] != 1
               ? lower_lanes_load(l, &s->v, NULL, in, idx)
               : lower_lanes_splat(l, &s->v, lower_load(l, in, idx));
  }
  lower_lanes_store(l, &s->v, NULL, s->e.fn(l, x), s->e.out, at);
}

/* The lanes the op goes by (see above), 0 where it does not. */
static int64_t lanes_of_op(Lower *l)
{
  GiltType *t = lower_result_type(l, 0);
  size_t rank = t->shaped.rank;
  if (rank == 0 || !gilt_shaped_type_has_static_shape(t) ||
      gilt_op_get_num_operands(l->op) > LANES_MAX_INPUTS)
    return 0;
  int64_t last = t->shaped.shape[rank - 1];
  int64_t width = last == LOWER_F32_LANES / 2 ? last : LOWER_F32_LANES;
  if (last % width || !lower_block_vectorizes(l, t->shaped.elem, width))
    return 0;
  for (size_t i = 0; i < gilt_op_get_num_operands(l->op); i++) {
    GiltValue *v = lower_operand(l, i);
    if (!v)
      continue;
    GiltType *in = gilt_value_get_type(v);
    size_t r = in->shaped.rank;
    if (in->shaped.elem != t->shaped.elem ||
        !gilt_shaped_type_has_static_shape(in))
      return 0;
    if (r > 0 && in->shaped.shape[r - 1] != 1 &&
        in->shaped.shape[r - 1] != last)
      return 0;
  }
  return width;
}

/* lower_with, by lanes where it can. */
static GiltStatus lower_by_lanes(Lower *l, ScalarFn fn)
{
  int64_t width = lanes_of_op(l);
  if (!width)
    return lower_with(l, fn);
  gilt_remark(l->op, "vectorize", "vectorized", 0, NULL,
              "vectorized: %d f32 lanes along the last dimension, a "
              "broadcast operand splat",
              (int)width);
  GiltType *t = lower_result_type(l, 0);
  size_t rank = t->shaped.rank;
  Lanes s = {{fn, NULL, rank, gilt_op_get_num_operands(l->op)}, {0}};
  lower_lanes_init_width(l, &s.v, t->shaped.elem, width);
  GiltValue *dims[GRAPH_MAX_RANK];
  for (size_t i = 0; i < rank; i++)
    dims[i] = lower_index(l, t->shaped.shape[i]);
  s.e.out = lower_alloc(l, t, dims);
  dims[rank - 1] = lower_index(l, t->shaped.shape[rank - 1] / s.v.width);
  lower_parallel(l, rank, dims, lanes_body, &s);
  return lower_replace(l, &s.e.out);
}

/* ---- helpers for the scalar functions --------------------------------------- */

static GiltType *type_of(GiltValue *v)
{
  return gilt_value_get_type(v);
}

/* A float or a vector of floats (a fused epilogue applies these to the
** lanes of a kernel's vectors). */
static bool is_float(GiltValue *v)
{
  return loop_is_float_like(type_of(v));
}

static GiltValue *attr_const(Lower *l, GiltValue *like, const char *name,
                             double def)
{
  return lower_constant_like(l, like, graph_attr_float(l->op, name, def));
}

/* Signed or unsigned integer op by a's type. */
static LoopOpId by_sign(GiltValue *a, LoopOpId s, LoopOpId u)
{
  return lower_is_unsigned(type_of(a)) ? u : s;
}

/* cmp with the float predicate, or the integer one signed or unsigned. */
static GiltValue *compare(Lower *l, const char *fpred, const char *spred,
                          const char *upred, GiltValue *a, GiltValue *b)
{
  if (is_float(a))
    return lower_cmp(l, fpred, a, b);
  return lower_cmp(l, lower_is_unsigned(type_of(a)) ? upred : spred, a, b);
}

/* max(a, b) and min(a, b) that keep a NaN a, as ONNX Runtime's Relu and
** Clip do (a is the value, b the bound). The max serves other files too
** (lowering.h). */
GiltValue *lower_keep_max(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_select(l, compare(l, "olt", "slt", "ult", a, b), b, a);
}

static GiltValue *keep_min(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_select(l, compare(l, "ogt", "sgt", "ugt", a, b), b, a);
}

/* ---- arithmetic --------------------------------------------------------------- */

static GiltValue *s_add(Lower *l, GiltValue *const *x)
{
  return lower_plus(l, x[0], x[1]);
}

static GiltValue *s_sub(Lower *l, GiltValue *const *x)
{
  return lower_minus(l, x[0], x[1]);
}

static GiltValue *s_mul(Lower *l, GiltValue *const *x)
{
  return lower_times(l, x[0], x[1]);
}

static GiltValue *s_div(Lower *l, GiltValue *const *x)
{
  return lower_divide(l, x[0], x[1]);
}

/* Pow: a float base takes the exponent converted to its type; an integer
** base is computed in f64 and truncated back, as ONNX Runtime does. */
static GiltValue *s_pow(Lower *l, GiltValue *const *x)
{
  GiltType *t = type_of(x[0]);
  if (is_float(x[0]))
    return lower_binary(l, LOOP_OP_POWF, x[0], lower_convert(l, x[1], t));
  GiltType *f64 = lower_f64_type(l);
  GiltValue *base = lower_convert(l, x[0], f64);
  GiltValue *exponent = lower_convert(l, x[1], f64);
  GiltValue *r = lower_binary(l, LOOP_OP_POWF, base, exponent);
  return lower_convert(l, r, t);
}

/* Mod: fmod=1 is C's fmod (the dividend's sign); otherwise (integers) the
** remainder takes the divisor's sign, as Python's %. */
static GiltValue *s_mod(Lower *l, GiltValue *const *x)
{
  if (is_float(x[0]))
    return lower_binary(l, LOOP_OP_REMF, x[0], x[1]);
  if (lower_is_unsigned(type_of(x[0])))
    return lower_binary(l, LOOP_OP_REMUI, x[0], x[1]);
  GiltValue *r = lower_binary(l, LOOP_OP_REMSI, x[0], x[1]);
  if (graph_attr_int(l->op, "fmod", 0))
    return r;
  GiltValue *zero = lower_constant_like(l, r, 0);
  GiltValue *r_negative = lower_cmp(l, "slt", r, zero);
  GiltValue *divisor_negative = lower_cmp(l, "slt", x[1], zero);
  GiltValue *differ =
      lower_binary(l, LOOP_OP_XORI, r_negative, divisor_negative);
  GiltValue *fix = lower_binary(l, LOOP_OP_ANDI, differ,
                                lower_cmp(l, "ne", r, zero));
  return lower_select(l, fix, lower_binary(l, LOOP_OP_ADDI, r, x[1]), r);
}

/* Min, Max, Sum, Mean over any number of operands. */
static GiltValue *fold_operands(Lower *l, GiltValue *const *x,
                                GiltValue *(*step)(Lower *, GiltValue *,
                                                   GiltValue *))
{
  GiltValue *acc = x[0];
  for (size_t i = 1; i < gilt_op_get_num_operands(l->op); i++)
    acc = step(l, acc, x[i]);
  return acc;
}

static GiltValue *min2(Lower *l, GiltValue *a, GiltValue *b)
{
  if (is_float(a))
    return lower_binary(l, LOOP_OP_MINIMUMF, a, b);
  return lower_binary(l, by_sign(a, LOOP_OP_MINSI, LOOP_OP_MINUI), a, b);
}

static GiltValue *max2(Lower *l, GiltValue *a, GiltValue *b)
{
  if (is_float(a))
    return lower_binary(l, LOOP_OP_MAXIMUMF, a, b);
  return lower_binary(l, by_sign(a, LOOP_OP_MAXSI, LOOP_OP_MAXUI), a, b);
}

static GiltValue *s_min(Lower *l, GiltValue *const *x)
{
  return fold_operands(l, x, min2);
}

static GiltValue *s_max(Lower *l, GiltValue *const *x)
{
  return fold_operands(l, x, max2);
}

static GiltValue *s_sum(Lower *l, GiltValue *const *x)
{
  return fold_operands(l, x, lower_plus);
}

static GiltValue *s_mean(Lower *l, GiltValue *const *x)
{
  GiltValue *sum = fold_operands(l, x, lower_plus);
  GiltValue *n =
      lower_constant_like(l, sum, (double)gilt_op_get_num_operands(l->op));
  GiltValue *q[2] = {sum, n};
  return s_div(l, q);
}

static GiltValue *s_prelu(Lower *l, GiltValue *const *x)
{
  GiltValue *neg =
      compare(l, "olt", "slt", "ult", x[0], lower_constant_like(l, x[0], 0));
  return lower_select(l, neg, s_mul(l, x), x[0]);
}

/* ---- logic and comparisons ------------------------------------------------------- */

static GiltValue *s_and(Lower *l, GiltValue *const *x)
{
  return lower_binary(l, LOOP_OP_ANDI, x[0], x[1]);
}

static GiltValue *s_or(Lower *l, GiltValue *const *x)
{
  return lower_binary(l, LOOP_OP_ORI, x[0], x[1]);
}

static GiltValue *s_xor(Lower *l, GiltValue *const *x)
{
  return lower_binary(l, LOOP_OP_XORI, x[0], x[1]);
}

static GiltValue *s_not(Lower *l, GiltValue *const *x)
{
  return lower_binary(l, LOOP_OP_XORI, x[0], lower_constant_like(l, x[0], -1));
}

static GiltValue *s_equal(Lower *l, GiltValue *const *x)
{
  return compare(l, "oeq", "eq", "eq", x[0], x[1]);
}

static GiltValue *s_less(Lower *l, GiltValue *const *x)
{
  return compare(l, "olt", "slt", "ult", x[0], x[1]);
}

static GiltValue *s_greater(Lower *l, GiltValue *const *x)
{
  return compare(l, "ogt", "sgt", "ugt", x[0], x[1]);
}

static GiltValue *s_less_equal(Lower *l, GiltValue *const *x)
{
  return compare(l, "ole", "sle", "ule", x[0], x[1]);
}

static GiltValue *s_greater_equal(Lower *l, GiltValue *const *x)
{
  return compare(l, "oge", "sge", "uge", x[0], x[1]);
}

static GiltValue *s_bit_shift(Lower *l, GiltValue *const *x)
{
  bool left = strcmp(graph_attr_string(l->op, "direction", "LEFT"), "LEFT") == 0;
  return lower_binary(l, left ? LOOP_OP_SHLI : LOOP_OP_SHRUI, x[0], x[1]);
}

static GiltValue *s_where(Lower *l, GiltValue *const *x)
{
  return lower_select(l, x[0], x[1], x[2]);
}

/* ---- unary math ------------------------------------------------------------------ */

#define DIRECT(name, id)                                                       \
  static GiltValue *s_##name(Lower *l, GiltValue *const *x)                    \
  {                                                                            \
    return lower_unary(l, id, x[0]);                                           \
  }
DIRECT(exp, LOOP_OP_EXP)
DIRECT(log, LOOP_OP_LOG)
DIRECT(sqrt, LOOP_OP_SQRT)
DIRECT(floor, LOOP_OP_FLOOR)
DIRECT(ceil, LOOP_OP_CEIL)
DIRECT(round, LOOP_OP_ROUNDEVEN)
DIRECT(erf, LOOP_OP_ERF)
DIRECT(sin, LOOP_OP_SIN)
DIRECT(cos, LOOP_OP_COS)
DIRECT(tan, LOOP_OP_TAN)
DIRECT(asin, LOOP_OP_ASIN)
DIRECT(acos, LOOP_OP_ACOS)
DIRECT(atan, LOOP_OP_ATAN)
DIRECT(sinh, LOOP_OP_SINH)
DIRECT(cosh, LOOP_OP_COSH)
DIRECT(asinh, LOOP_OP_ASINH)
DIRECT(acosh, LOOP_OP_ACOSH)
DIRECT(atanh, LOOP_OP_ATANH)
DIRECT(tanh, LOOP_OP_TANH)
#undef DIRECT

static GiltValue *s_abs(Lower *l, GiltValue *const *x)
{
  if (is_float(x[0]))
    return lower_unary(l, LOOP_OP_ABSF, x[0]);
  if (lower_is_unsigned(type_of(x[0])))
    return x[0];
  return lower_unary(l, LOOP_OP_ABSI, x[0]);
}

static GiltValue *s_neg(Lower *l, GiltValue *const *x)
{
  if (is_float(x[0]))
    return lower_unary(l, LOOP_OP_NEGF, x[0]);
  return lower_binary(l, LOOP_OP_SUBI, lower_constant_like(l, x[0], 0), x[0]);
}

/* 1, -1 or the value itself (0, -0 and NaN). */
static GiltValue *s_sign(Lower *l, GiltValue *const *x)
{
  GiltValue *zero = lower_constant_like(l, x[0], 0);
  GiltValue *pos = compare(l, "ogt", "sgt", "ugt", x[0], zero);
  GiltValue *neg = compare(l, "olt", "slt", "ult", x[0], zero);
  GiltValue *r = lower_select(l, neg, lower_constant_like(l, x[0], -1), x[0]);
  return lower_select(l, pos, lower_constant_like(l, x[0], 1), r);
}

static GiltValue *s_reciprocal(Lower *l, GiltValue *const *x)
{
  return lower_binary(l, LOOP_OP_DIVF, lower_constant_like(l, x[0], 1), x[0]);
}

static GiltValue *s_is_nan(Lower *l, GiltValue *const *x)
{
  return lower_cmp(l, "uno", x[0], x[0]);
}

static GiltValue *s_is_inf(Lower *l, GiltValue *const *x)
{
  GiltValue *pos =
      lower_cmp(l, "oeq", x[0], lower_constant_like(l, x[0], INFINITY));
  GiltValue *neg =
      lower_cmp(l, "oeq", x[0], lower_constant_like(l, x[0], -INFINITY));
  GiltValue *no = lower_int_constant(l, lower_i1_type(l), 0);
  if (!graph_attr_int(l->op, "detect_positive", 1))
    pos = no;
  if (!graph_attr_int(l->op, "detect_negative", 1))
    neg = no;
  return lower_binary(l, LOOP_OP_ORI, pos, neg);
}

/* ---- activations (activation.h: rnn.c applies them too) ------------------- */

GiltValue *activation_relu(Lower *l, GiltValue *x)
{
  return lower_keep_max(l, x, lower_constant_like(l, x, 0));
}

static GiltValue *s_clip(Lower *l, GiltValue *const *x);

GiltValue *activation_clip(Lower *l, GiltValue *x, double lo, double hi)
{
  GiltValue *bounds[3] = {x, isinf(lo) ? NULL : lower_constant_like(l, x, lo),
                          isinf(hi) ? NULL : lower_constant_like(l, x, hi)};
  return s_clip(l, bounds);
}

GiltValue *activation_leaky_relu(Lower *l, GiltValue *x, double alpha)
{
  GiltValue *neg = lower_cmp(l, "olt", x, lower_constant_like(l, x, 0));
  GiltValue *scaled =
      lower_binary(l, LOOP_OP_MULF, x, lower_constant_like(l, x, alpha));
  return lower_select(l, neg, scaled, x);
}

GiltValue *activation_elu(Lower *l, GiltValue *x, double alpha)
{
  GiltValue *neg = lower_cmp(l, "olt", x, lower_constant_like(l, x, 0));
  GiltValue *scale = lower_constant_like(l, x, alpha);
  GiltValue *e =
      lower_binary(l, LOOP_OP_MULF, scale, lower_unary(l, LOOP_OP_EXPM1, x));
  return lower_select(l, neg, e, x);
}

GiltValue *activation_thresholded_relu(Lower *l, GiltValue *x, double alpha)
{
  GiltValue *above = lower_cmp(l, "ogt", x, lower_constant_like(l, x, alpha));
  return lower_select(l, above, x, lower_constant_like(l, x, 0));
}

GiltValue *activation_hard_sigmoid(Lower *l, GiltValue *x, double alpha,
                                   double beta)
{
  GiltValue *scaled =
      lower_binary(l, LOOP_OP_MULF, x, lower_constant_like(l, x, alpha));
  GiltValue *y =
      lower_binary(l, LOOP_OP_ADDF, scaled, lower_constant_like(l, x, beta));
  y = keep_min(l, y, lower_constant_like(l, x, 1));
  return lower_keep_max(l, y, lower_constant_like(l, x, 0));
}

GiltValue *activation_sigmoid(Lower *l, GiltValue *x)
{
  return lower_unary(l, LOOP_OP_SIGMOID, x);
}

GiltValue *activation_silu(Lower *l, GiltValue *x)
{
  GiltValue *gate = activation_sigmoid(l, x);
  return lower_binary(l, LOOP_OP_MULF, x, gate);
}

/* x/2 (1 + erf(x / sqrt 2)), or with tanh_form Gelu's approximation
** x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
GiltValue *activation_gelu(Lower *l, GiltValue *x, bool tanh_form)
{
  GiltValue *half_x =
      lower_binary(l, LOOP_OP_MULF, x, lower_constant_like(l, x, 0.5));
  GiltValue *inner;
  if (tanh_form) {
    GiltValue *cube =
        lower_binary(l, LOOP_OP_MULF, x, lower_binary(l, LOOP_OP_MULF, x, x));
    GiltValue *t = lower_binary(
        l, LOOP_OP_ADDF, x,
        lower_binary(l, LOOP_OP_MULF, cube,
                     lower_constant_like(l, x, 0.044715)));
    t = lower_binary(
        l, LOOP_OP_MULF, t,
        lower_constant_like(l, x, 0.79788456080286535588)); /* sqrt(2/pi) */
    inner = lower_unary(l, LOOP_OP_TANH, t);
  } else {
    inner = lower_unary(
        l, LOOP_OP_ERF,
        lower_binary(l, LOOP_OP_MULF, x,
                     lower_constant_like(l, x, 0.70710678118654752440)));
  }
  return lower_binary(
      l, LOOP_OP_MULF, half_x,
      lower_binary(l, LOOP_OP_ADDF, lower_constant_like(l, x, 1), inner));
}

/* log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|). */
GiltValue *activation_softplus(Lower *l, GiltValue *x)
{
  GiltValue *e = lower_unary(
      l, LOOP_OP_EXP,
      lower_unary(l, LOOP_OP_NEGF, lower_unary(l, LOOP_OP_ABSF, x)));
  GiltValue *positive = lower_keep_max(l, x, lower_constant_like(l, x, 0));
  return lower_binary(l, LOOP_OP_ADDF, positive,
                      lower_unary(l, LOOP_OP_LOG1P, e));
}

GiltValue *activation_softsign(Lower *l, GiltValue *x)
{
  GiltValue *one = lower_constant_like(l, x, 1);
  GiltValue *d =
      lower_binary(l, LOOP_OP_ADDF, one, lower_unary(l, LOOP_OP_ABSF, x));
  return lower_binary(l, LOOP_OP_DIVF, x, d);
}

static GiltValue *s_relu(Lower *l, GiltValue *const *x)
{
  return activation_relu(l, x[0]);
}

static GiltValue *s_leaky_relu(Lower *l, GiltValue *const *x)
{
  return activation_leaky_relu(l, x[0], graph_attr_float(l->op, "alpha", 0.01));
}

static GiltValue *s_elu(Lower *l, GiltValue *const *x)
{
  return activation_elu(l, x[0], graph_attr_float(l->op, "alpha", 1));
}

static GiltValue *s_selu(Lower *l, GiltValue *const *x)
{
  GiltValue *alpha = attr_const(l, x[0], "alpha", 1.67326319217681884765625);
  GiltValue *gamma = attr_const(l, x[0], "gamma", 1.05070102214813232421875);
  GiltValue *neg = lower_cmp(l, "ole", x[0], lower_constant_like(l, x[0], 0));
  GiltValue *e = lower_binary(
      l, LOOP_OP_SUBF,
      lower_binary(l, LOOP_OP_MULF, alpha, lower_unary(l, LOOP_OP_EXP, x[0])),
      alpha);
  return lower_binary(l, LOOP_OP_MULF, gamma, lower_select(l, neg, e, x[0]));
}

static GiltValue *s_celu(Lower *l, GiltValue *const *x)
{
  GiltValue *alpha = attr_const(l, x[0], "alpha", 1);
  GiltValue *zero = lower_constant_like(l, x[0], 0);
  GiltValue *e =
      lower_binary(l, LOOP_OP_MULF, alpha,
                   lower_unary(l, LOOP_OP_EXPM1,
                               lower_binary(l, LOOP_OP_DIVF, x[0], alpha)));
  GiltValue *positive = lower_binary(l, LOOP_OP_MAXIMUMF, zero, x[0]);
  GiltValue *negative = lower_binary(l, LOOP_OP_MINIMUMF, zero, e);
  return lower_binary(l, LOOP_OP_ADDF, positive, negative);
}

static GiltValue *s_thresholded_relu(Lower *l, GiltValue *const *x)
{
  return activation_thresholded_relu(l, x[0], graph_attr_float(l->op, "alpha", 1));
}

static GiltValue *s_hard_sigmoid(Lower *l, GiltValue *const *x)
{
  return activation_hard_sigmoid(l, x[0], graph_attr_float(l->op, "alpha", 0.2),
                            graph_attr_float(l->op, "beta", 0.5));
}

GiltValue *activation_hard_swish(Lower *l, GiltValue *x)
{
  GiltValue *gate = activation_hard_sigmoid(l, x, 1.0 / 6, 0.5);
  return lower_binary(l, LOOP_OP_MULF, x, gate);
}

static GiltValue *s_hard_swish(Lower *l, GiltValue *const *x)
{
  return activation_hard_swish(l, x[0]);
}

static GiltValue *s_sigmoid(Lower *l, GiltValue *const *x)
{
  return activation_sigmoid(l, x[0]);
}

static GiltValue *s_softplus(Lower *l, GiltValue *const *x)
{
  return activation_softplus(l, x[0]);
}

static GiltValue *s_softsign(Lower *l, GiltValue *const *x)
{
  return activation_softsign(l, x[0]);
}

static GiltValue *s_mish(Lower *l, GiltValue *const *x)
{
  return lower_binary(
      l, LOOP_OP_MULF, x[0],
      lower_unary(l, LOOP_OP_TANH, activation_softplus(l, x[0])));
}

static GiltValue *s_gelu(Lower *l, GiltValue *const *x)
{
  return activation_gelu(
      l, x[0],
      strcmp(graph_attr_string(l->op, "approximate", "none"), "tanh") == 0);
}

static GiltValue *s_shrink(Lower *l, GiltValue *const *x)
{
  GiltType *t = type_of(x[0]);
  double lambd = graph_attr_float(l->op, "lambd", 0.5);
  double bias = graph_attr_float(l->op, "bias", 0);
  GiltType *f64 = lower_f64_type(l);
  GiltValue *v = lower_convert(l, x[0], f64);
  GiltValue *below = lower_cmp(l, "olt", v, lower_constant(l, f64, -lambd));
  GiltValue *above = lower_cmp(l, "ogt", v, lower_constant(l, f64, lambd));
  GiltValue *shrunk_down =
      lower_binary(l, LOOP_OP_SUBF, v, lower_constant(l, f64, bias));
  GiltValue *r = lower_select(l, above, shrunk_down, lower_constant(l, f64, 0));
  r = lower_select(l, below,
                   lower_binary(l, LOOP_OP_ADDF, v, lower_constant(l, f64, bias)),
                   r);
  return lower_convert(l, r, t);
}

static GiltValue *s_clip(Lower *l, GiltValue *const *x)
{
  GiltValue *v = x[0];
  if (x[1])
    v = lower_keep_max(l, v, x[1]);
  if (x[2])
    v = keep_min(l, v, x[2]);
  return v;
}

static GiltValue *s_cast(Lower *l, GiltValue *const *x)
{
  return lower_convert(l, x[0], lower_result_elem(l, 0));
}

/* ---- the ops ---------------------------------------------------------------------- */

#define LOWER(name)                                                          \
  static GiltStatus lower_##name(Lower *l)                                   \
  {                                                                          \
    return lower_with(l, s_##name);                                          \
  }
#define LOWER_LANES(name)                                                    \
  static GiltStatus lower_##name(Lower *l)                                   \
  {                                                                          \
    return lower_by_lanes(l, s_##name);                                      \
  }
LOWER_LANES(add) LOWER_LANES(sub) LOWER_LANES(mul) LOWER_LANES(div)
LOWER_LANES(relu) LOWER_LANES(leaky_relu) LOWER_LANES(sigmoid)
LOWER_LANES(hard_sigmoid) LOWER_LANES(hard_swish) LOWER_LANES(gelu)
LOWER_LANES(clip) LOWER_LANES(tanh) LOWER_LANES(exp) LOWER_LANES(erf)
#undef LOWER_LANES
LOWER(pow) LOWER(mod)
LOWER(min) LOWER(max) LOWER(sum) LOWER(mean) LOWER(prelu)
LOWER(and) LOWER(or) LOWER(xor) LOWER(not) LOWER(equal) LOWER(less)
LOWER(greater) LOWER(less_equal) LOWER(greater_equal) LOWER(bit_shift)
LOWER(where) LOWER(log) LOWER(sqrt) LOWER(floor) LOWER(ceil)
LOWER(round) LOWER(sin) LOWER(cos) LOWER(tan) LOWER(asin)
LOWER(acos) LOWER(atan) LOWER(sinh) LOWER(cosh) LOWER(asinh) LOWER(acosh)
LOWER(atanh) LOWER(abs) LOWER(neg) LOWER(sign) LOWER(reciprocal)
LOWER(is_nan) LOWER(is_inf) LOWER(elu)
LOWER(selu) LOWER(celu) LOWER(thresholded_relu)
LOWER(softplus) LOWER(softsign) LOWER(mish)
LOWER(shrink) LOWER(cast)
#undef LOWER

/* Identity and inference-mode Dropout pass their input on: buffers are
** never written after the op that made them, so sharing one is safe. The
** mask of Dropout is all true. */
static GiltStatus lower_identity(Lower *l)
{
  size_t n = gilt_op_get_num_results(l->op);
  GiltValue *results[2] = {lower_operand(l, 0), NULL};
  if (graph_op_is(l->op, GRAPH_OP_DROPOUT) && lower_operand(l, 2))
    return lower_error(l, "training mode is not supported");
  if (n > 1) {
    GiltValue *dims[GRAPH_MAX_RANK];
    lower_dims(l, results[0], dims);
    results[1] = lower_alloc_result(l, 1, dims);
    lower_fill(l, results[1], lower_int_constant(l, lower_i1_type(l), 1));
  }
  return lower_replace(l, results);
}

const GraphLoweringRow graph_lower_elementwise[] = {
    {GRAPH_OP_ADD, {lower_add}},
    {GRAPH_OP_SUB, {lower_sub}},
    {GRAPH_OP_MUL, {lower_mul}},
    {GRAPH_OP_DIV, {lower_div}},
    {GRAPH_OP_POW, {lower_pow}},
    {GRAPH_OP_MOD, {lower_mod}},
    {GRAPH_OP_MIN, {lower_min}},
    {GRAPH_OP_MAX, {lower_max}},
    {GRAPH_OP_SUM, {lower_sum}},
    {GRAPH_OP_MEAN, {lower_mean}},
    {GRAPH_OP_P_RELU, {lower_prelu}},
    {GRAPH_OP_AND, {lower_and}},
    {GRAPH_OP_OR, {lower_or}},
    {GRAPH_OP_XOR, {lower_xor}},
    {GRAPH_OP_NOT, {lower_not}},
    {GRAPH_OP_BITWISE_AND, {lower_and}},
    {GRAPH_OP_BITWISE_OR, {lower_or}},
    {GRAPH_OP_BITWISE_XOR, {lower_xor}},
    {GRAPH_OP_BITWISE_NOT, {lower_not}},
    {GRAPH_OP_EQUAL, {lower_equal}},
    {GRAPH_OP_LESS, {lower_less}},
    {GRAPH_OP_GREATER, {lower_greater}},
    {GRAPH_OP_LESS_OR_EQUAL, {lower_less_equal}},
    {GRAPH_OP_GREATER_OR_EQUAL, {lower_greater_equal}},
    {GRAPH_OP_BIT_SHIFT, {lower_bit_shift}},
    {GRAPH_OP_WHERE, {lower_where}},
    {GRAPH_OP_EXP, {lower_exp}},
    {GRAPH_OP_LOG, {lower_log}},
    {GRAPH_OP_SQRT, {lower_sqrt}},
    {GRAPH_OP_FLOOR, {lower_floor}},
    {GRAPH_OP_CEIL, {lower_ceil}},
    {GRAPH_OP_ROUND, {lower_round}},
    {GRAPH_OP_ERF, {lower_erf}},
    {GRAPH_OP_SIN, {lower_sin}},
    {GRAPH_OP_COS, {lower_cos}},
    {GRAPH_OP_TAN, {lower_tan}},
    {GRAPH_OP_ASIN, {lower_asin}},
    {GRAPH_OP_ACOS, {lower_acos}},
    {GRAPH_OP_ATAN, {lower_atan}},
    {GRAPH_OP_SINH, {lower_sinh}},
    {GRAPH_OP_COSH, {lower_cosh}},
    {GRAPH_OP_ASINH, {lower_asinh}},
    {GRAPH_OP_ACOSH, {lower_acosh}},
    {GRAPH_OP_ATANH, {lower_atanh}},
    {GRAPH_OP_TANH, {lower_tanh}},
    {GRAPH_OP_ABS, {lower_abs}},
    {GRAPH_OP_NEG, {lower_neg}},
    {GRAPH_OP_SIGN, {lower_sign}},
    {GRAPH_OP_RECIPROCAL, {lower_reciprocal}},
    {GRAPH_OP_IS_NA_N, {lower_is_nan}},
    {GRAPH_OP_IS_INF, {lower_is_inf}},
    {GRAPH_OP_RELU, {lower_relu}},
    {GRAPH_OP_LEAKY_RELU, {lower_leaky_relu}},
    {GRAPH_OP_ELU, {lower_elu}},
    {GRAPH_OP_SELU, {lower_selu}},
    {GRAPH_OP_CELU, {lower_celu}},
    {GRAPH_OP_THRESHOLDED_RELU, {lower_thresholded_relu}},
    {GRAPH_OP_HARD_SIGMOID, {lower_hard_sigmoid}},
    {GRAPH_OP_HARD_SWISH, {lower_hard_swish}},
    {GRAPH_OP_SIGMOID, {lower_sigmoid}},
    {GRAPH_OP_SOFTPLUS, {lower_softplus}},
    {GRAPH_OP_SOFTSIGN, {lower_softsign}},
    {GRAPH_OP_MISH, {lower_mish}},
    {GRAPH_OP_GELU, {lower_gelu}},
    {GRAPH_OP_SHRINK, {lower_shrink}},
    {GRAPH_OP_CLIP, {lower_clip}},
    {GRAPH_OP_CAST, {lower_cast}},
    {GRAPH_OP_CAST_LIKE, {lower_cast}},
    {GRAPH_OP_IDENTITY, {lower_identity}},
    {GRAPH_OP_DROPOUT, {lower_identity}},
    {0, {NULL}},
};
