/*
** signal.c - type inference of the signal-processing graph ops: DFT, STFT,
** the window generators (HannWindow, HammingWindow, BlackmanWindow) and
** MelWeightMatrix.
**
** DFT has version 20's form (dft_length and axis operands).
**
** Complex tensors are real tensors with a trailing dimension of 2 (ONNX's
** convention). Lengths come from scalar operands when graph.constant ops
** define them, else `?`. Not here: the transforms' lowering.
*/
#include "dialects/graph/graph.h"

/* Scalar operand i as an integer when constant, else GILT_DYNAMIC. */
static int64_t scalar_or_dynamic(const GraphOpView *v, size_t i)
{
  int64_t n;
  return graph_operand_scalar_int(v, i, &n) ? n : GILT_DYNAMIC;
}

static GiltType *output_elem(const GraphOpView *v)
{
  int64_t dt = graph_dict_int(v->attrs, "output_datatype", 1);
  GiltType *t = graph_onnx_elem_type(v->ctx, dt);
  if (!t)
    graph_error(v, "attribute 'output_datatype' (%lld) is not a supported "
                "ONNX data type", (long long)dt);
  return t;
}

static int64_t half_plus_one(int64_t n)
{
  return n == GILT_DYNAMIC ? n : n / 2 + 1;
}

/* A scalar operand (DFT's dft_length and axis): rank 0 when ranked, or a
** one-element tensor when it is a constant (ONNX reads its value). */
static GiltStatus check_scalar(const GraphOpView *v, size_t i)
{
  GraphShape s;
  graph_operand_shape(v, i, &s);
  if (!graph_has_operand(v, i) || !s.ranked || s.rank == 0)
    return GILT_SUCCESS;
  return graph_error(v, "operand '%s' must be a scalar, got rank %zu",
                     graph_operand_name(v, i), s.rank);
}

/* DFT-20: [signal dims..., 1|2] -> [..., 2] along `axis`, an operand
** (default -2, the last signal dimension; counted over the whole rank, so
** the valid ones are [-r, -2] and [0, r - 2]). The axis' length is
** dft_length when given, halved (+1) when onesided. A non-constant axis
** leaves the signal dimensions unknown when the length changes (ONNX's
** inference does the same). onesided needs a real input and a forward
** transform. */
GiltStatus graph_infer_dft(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v) || check_scalar(v, 1) || check_scalar(v, 2))
    return GILT_FAILURE;
  if (graph_has_operand(v, 2)) {
    GiltType *e = graph_operand_elem(v, 2);
    if (!e || !gilt_type_is_integer(e, 64) ||
        gilt_integer_type_get_signedness(e) == GILT_UNSIGNED)
      return graph_error(v, "operand 'axis' must be an i64 scalar");
  }
  int64_t inverse = graph_dict_int(v->attrs, "inverse", 0);
  int64_t onesided = graph_dict_int(v->attrs, "onesided", 0);
  if ((inverse != 0 && inverse != 1) || (onesided != 0 && onesided != 1))
    return graph_error(v, "attributes 'inverse' and 'onesided' must be 0 "
                       "or 1, got %lld and %lld", (long long)inverse,
                       (long long)onesided);
  if (inverse && onesided)
    return graph_error(v, "attributes 'inverse' and 'onesided' cannot both "
                       "be 1");
  int64_t n = GILT_DYNAMIC;
  if (graph_has_operand(v, 1) && graph_operand_scalar_int(v, 1, &n) && n < 1)
    return graph_error(v, "operand 'dft_length' must be at least 1, got "
                       "%lld", (long long)n);
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  GiltType *elem = graph_operand_elem(v, 0);
  if (!x.ranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  int64_t last = x.rank ? x.dims[x.rank - 1] : GILT_DYNAMIC;
  if (x.rank < 2 || (last != GILT_DYNAMIC && last != 1 && last != 2))
    return graph_error(v, "operand 'input' must end in a dimension of 1 "
                       "(real) or 2 (complex)");
  if (onesided && last == 2)
    return graph_error(v, "attribute 'onesided' needs a real operand "
                       "'input' (last dimension 1), got a complex one");
  int64_t r = (int64_t)x.rank, axis = -2;
  bool known = !graph_has_operand(v, 2) ||
               graph_operand_scalar_int(v, 2, &axis);
  if (known && (axis < -r || axis == -1 || axis > r - 2))
    return graph_error(v, "operand 'axis' (%lld) must be in [%lld, -2] or "
                       "[0, %lld] for operand 'input' of rank %lld",
                       (long long)axis, (long long)-r, (long long)(r - 2),
                       (long long)r);
  x.dims[x.rank - 1] = 2;
  if (!known) {
    if (onesided || graph_has_operand(v, 1))
      for (size_t d = 0; d + 1 < x.rank; d++)
        x.dims[d] = GILT_DYNAMIC;
    types[0] = graph_tensor_type(v->ctx, &x, elem);
    return GILT_SUCCESS;
  }
  size_t a = (size_t)(axis < 0 ? axis + r : axis);
  if (graph_has_operand(v, 1))
    x.dims[a] = n;
  if (onesided)
    x.dims[a] = half_plus_one(x.dims[a]);
  types[0] = graph_tensor_type(v->ctx, &x, elem);
  return GILT_SUCCESS;
}

/* STFT: [batch, frames, bins, 2]. */
GiltStatus graph_infer_stft(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x, w;
  graph_operand_shape(v, 0, &x);
  graph_operand_shape(v, 2, &w);
  if (x.ranked && x.rank != 3)
    return graph_error(v, "operand 'signal' must be [batch, length, 1|2], "
                       "got rank %zu", x.rank);
  int64_t step = scalar_or_dynamic(v, 1);
  int64_t len = graph_has_operand(v, 3) ? scalar_or_dynamic(v, 3)
                : graph_has_operand(v, 2) && w.ranked && w.rank == 1
                    ? w.dims[0]
                    : GILT_DYNAMIC;
  int64_t batch = x.ranked ? x.dims[0] : GILT_DYNAMIC;
  int64_t total = x.ranked ? x.dims[1] : GILT_DYNAMIC;
  int64_t frames = GILT_DYNAMIC;
  if (step != GILT_DYNAMIC && step > 0 && len != GILT_DYNAMIC && len >= 0 &&
      total != GILT_DYNAMIC && total >= len)
    frames = (total - len) / step + 1;
  int64_t bins = graph_dict_int(v->attrs, "onesided", 1) ? half_plus_one(len)
                                                         : len;
  GraphShape out = {.ranked = true, .rank = 4,
                    .dims = {batch, frames, bins, 2}};
  types[0] = graph_tensor_type(v->ctx, &out, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}

/* HannWindow, HammingWindow, BlackmanWindow: 1-D of `size`. */
GiltStatus graph_infer_window(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GiltType *elem = output_elem(v);
  if (!elem)
    return GILT_FAILURE;
  GraphShape out = {.ranked = true, .rank = 1,
                    .dims = {scalar_or_dynamic(v, 0)}};
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins]. */
GiltStatus graph_infer_mel_weight_matrix(const GraphOpView *v,
                                         GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GiltType *elem = output_elem(v);
  if (!elem)
    return GILT_FAILURE;
  GraphShape out = {.ranked = true, .rank = 2,
                    .dims = {half_plus_one(scalar_or_dynamic(v, 1)),
                             scalar_or_dynamic(v, 0)}};
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}
