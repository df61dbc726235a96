/*
** signal.c - type inference of the signal-processing graph ops: DFT, STFT,
** the window generators (HannWindow, HammingWindow, BlackmanWindow) and
** MelWeightMatrix.
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

/* DFT: [batch, n..., 1|2] -> [..., 2], the axis' length from dft_length,
** halved (+1) when onesided. */
GiltStatus graph_infer_dft(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  GiltType *elem = graph_operand_elem(v, 0);
  if (!x.ranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  if (x.rank < 2 || (x.dims[x.rank - 1] != GILT_DYNAMIC &&
                     x.dims[x.rank - 1] != 1 && x.dims[x.rank - 1] != 2))
    return graph_error(v, "operand 'input' must end in a dimension of 1 "
                       "(real) or 2 (complex)");
  int64_t axis = graph_dict_int(v->attrs, "axis", 1), a;
  if (!graph_normalize_axis(axis, x.rank - 1, &a) || a == 0)
    return graph_error(v, "attribute 'axis' (%lld) must name a signal "
                       "dimension", (long long)axis);
  int64_t n = graph_has_operand(v, 1) ? scalar_or_dynamic(v, 1) : x.dims[a];
  if (graph_dict_int(v->attrs, "onesided", 0))
    n = half_plus_one(n);
  x.dims[a] = n;
  x.dims[x.rank - 1] = 2;
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
