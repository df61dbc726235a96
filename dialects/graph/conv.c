/*
** conv.c - type inference of the windowed graph ops: Conv, ConvTranspose,
** DeformConv, MaxPool, AveragePool and LpPool, over 1 to 3 (or more) spatial
** dimensions, following the shape formulas of the ONNX operator docs:
**
**   NOTSET      out = floor_or_ceil((in + pad_b + pad_e - ek) / s) + 1
**   SAME_*      out = ceil(in / s)
**   VALID       out = floor_or_ceil((in - ek) / s) + 1
**   transposed  out = s * (in - 1) + output_padding + ek - pad_b - pad_e
**               (in * s under SAME_*, or output_shape when given)
**
** with ek = (k - 1) * dilation + 1; pools round up under ceil_mode and
** drop a last window that would start in the end padding. Every per-axis
** attribute must have one entry per spatial dimension (pads two), and the
** messages name the attribute. Not here: the padding amounts SAME_* implies
** (the lowering computes them), nor the layout packing passes.
*/
#include "dialects/graph/graph.h"

#include <string.h>

#include "ir/support/checked_math.h"

typedef enum AutoPad { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID } AutoPad;

/* The window attributes of one op, defaults filled in. */
typedef struct Window {
  size_t n; /* spatial dimensions */
  int64_t kernel[GRAPH_MAX_RANK], strides[GRAPH_MAX_RANK];
  int64_t dilations[GRAPH_MAX_RANK], pads[2 * GRAPH_MAX_RANK];
  AutoPad auto_pad;
  bool ceil_mode;
} Window;

static bool dyn(int64_t d)
{
  return d == GILT_DYNAMIC;
}

/* Reads attribute `name` with `want` entries into out, or fills `def`. */
static GiltStatus read_list(const GraphOpView *v, const char *name,
                            size_t want, int64_t def, int64_t *out,
                            size_t spatial, bool positive)
{
  size_t n = 0;
  if (!graph_dict_ints(v->attrs, name, out, 2 * GRAPH_MAX_RANK, &n)) {
    for (size_t i = 0; i < want; i++)
      out[i] = def;
    return GILT_SUCCESS;
  }
  if (n != want && want == spatial)
    return graph_error(v, "attribute '%s' has %zu entries but the input has "
                       "%zu spatial dimensions", name, n, spatial);
  if (n != want)
    return graph_error(v, "attribute '%s' has %zu entries but the input has "
                       "%zu spatial dimensions (expected %zu)", name, n,
                       spatial, want);
  for (size_t i = 0; i < n; i++)
    if (positive ? out[i] < 1 : out[i] < 0)
      return graph_error(v, "attribute '%s' entry %zu (%lld) must be %s",
                         name, i, (long long)out[i],
                         positive ? "positive" : "non-negative");
  return GILT_SUCCESS;
}

static GiltStatus read_auto_pad(const GraphOpView *v, AutoPad *out)
{
  static const char *const names[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER",
                                      "VALID"};
  const char *s = graph_dict_string(v->attrs, "auto_pad", "NOTSET");
  for (size_t i = 0; i < 4; i++)
    if (!strcmp(s, names[i])) {
      *out = (AutoPad)i;
      return GILT_SUCCESS;
    }
  return graph_error(v, "attribute 'auto_pad' is '%s', expected NOTSET, "
                     "SAME_UPPER, SAME_LOWER or VALID", s);
}

/* Reads the window of an op whose input has n spatial dimensions; the
** kernel defaults to `kernel` (Conv: W's trailing dims) when given. */
static GiltStatus read_window(const GraphOpView *v, size_t n,
                              const int64_t *kernel, Window *w)
{
  memset(w, 0, sizeof *w);
  w->n = n;
  if (read_auto_pad(v, &w->auto_pad))
    return GILT_FAILURE;
  w->ceil_mode = graph_dict_int(v->attrs, "ceil_mode", 0) != 0;
  size_t k;
  if (graph_dict_ints(v->attrs, "kernel_shape", w->kernel, GRAPH_MAX_RANK,
                      &k)) {
    if (read_list(v, "kernel_shape", n, 1, w->kernel, n, true))
      return GILT_FAILURE;
    for (size_t i = 0; kernel && i < n; i++)
      if (!dyn(kernel[i]) && kernel[i] != w->kernel[i])
        return graph_error(v, "attribute 'kernel_shape' entry %zu (%lld) "
                           "differs from the weight's %lld", i,
                           (long long)w->kernel[i], (long long)kernel[i]);
  } else if (kernel) {
    memcpy(w->kernel, kernel, n * sizeof *kernel);
  } else {
    return graph_error(v, "requires attribute 'kernel_shape'");
  }
  return read_list(v, "strides", n, 1, w->strides, n, true) ||
                 read_list(v, "dilations", n, 1, w->dilations, n, true) ||
                 read_list(v, "pads", 2 * n, 0, w->pads, n, false)
             ? GILT_FAILURE
             : GILT_SUCCESS;
}

static int64_t div_round(int64_t a, int64_t b, bool up)
{
  int64_t q = a / b, r = a % b;
  if (r && ((r < 0) != (b < 0)))
    q--; /* floor */
  return up && r ? q + 1 : q;
}

/* The extent of axis i's kernel with its dilation, (k - 1) * d + 1, into
** *ek; true when it overflows. */
static bool dilated_kernel(const Window *w, size_t i, int64_t *ek)
{
  return gilt_mul_overflow(w->kernel[i] - 1, w->dilations[i], ek) ||
         gilt_add_overflow(*ek, 1, ek);
}

/* The output size of spatial axis i for an input of size in into *out;
** true when the arithmetic overflows int64. */
static bool window_out(const Window *w, size_t i, int64_t in, int64_t *out)
{
  int64_t s = w->strides[i], ek, span, start;
  *out = GILT_DYNAMIC;
  if (dyn(in) || dyn(w->kernel[i]))
    return false;
  if (dilated_kernel(w, i, &ek))
    return true;
  switch (w->auto_pad) {
  case PAD_SAME_UPPER:
  case PAD_SAME_LOWER:
    *out = div_round(in, s, true);
    return false;
  case PAD_VALID:
    return gilt_sub_overflow(in, ek, &span) ||
           gilt_add_overflow(div_round(span, s, w->ceil_mode), 1, out);
  case PAD_NOTSET:
    break;
  }
  if (gilt_add_overflow(in, w->pads[i], &start) ||
      gilt_add_overflow(start, w->pads[w->n + i], &span) ||
      gilt_sub_overflow(span, ek, &span) ||
      gilt_add_overflow(div_round(span, s, w->ceil_mode), 1, out))
    return true;
  /* A last window starting inside the end padding is dropped (a start
  ** past int64 is past the padding too). Sizes below 1 are errors. */
  int64_t last;
  if (w->ceil_mode && *out >= 1 &&
      (gilt_mul_overflow(*out - 1, s, &last) || last >= start))
    (*out)--;
  return false;
}

/* The output size of spatial axis i of a ConvTranspose for an input of
** size in, s * (in - 1) + output_padding + ek - pads (in * s under
** SAME_*), into *out; true when the arithmetic overflows int64. */
static bool transposed_out(const Window *w, size_t i, int64_t in,
                           int64_t outpad, int64_t *out)
{
  int64_t s = w->strides[i], ek;
  *out = GILT_DYNAMIC;
  if (dyn(in) || dyn(w->kernel[i]))
    return false;
  if (w->auto_pad == PAD_SAME_UPPER || w->auto_pad == PAD_SAME_LOWER)
    return gilt_mul_overflow(in, s, out);
  int64_t pads = 0;
  if (w->auto_pad != PAD_VALID &&
      gilt_add_overflow(w->pads[i], w->pads[w->n + i], &pads))
    return true;
  return dilated_kernel(w, i, &ek) || gilt_mul_overflow(s, in - 1, out) ||
         gilt_add_overflow(*out, outpad, out) ||
         gilt_add_overflow(*out, ek, out) ||
         gilt_sub_overflow(*out, pads, out);
}

/* Fills the spatial dims of out from x's through window_out (transposed:
** transposed_out with output_padding outpad); reports an overflow. */
static GiltStatus spatial_out(const GraphOpView *v, const Window *w,
                              const GraphShape *x, const int64_t *outpad,
                              GraphShape *out)
{
  for (size_t i = 0; i < w->n; i++) {
    int64_t in = x->dims[2 + i], *o = &out->dims[2 + i];
    if (outpad ? transposed_out(w, i, in, outpad[i], o)
               : window_out(w, i, in, o))
      return graph_error(v, "the output size of spatial dimension %zu of "
                         "operand '%s' overflows int64", i,
                         graph_operand_name(v, 0));
  }
  return GILT_SUCCESS;
}

/* W's channels per group times `group` into *out (`?` when unknown). */
static GiltStatus grouped_channels(const GraphOpView *v, const GraphShape *wt,
                                   int64_t group, int64_t *out)
{
  *out = GILT_DYNAMIC;
  if (!wt->ranked || dyn(wt->dims[1]) ||
      !gilt_mul_overflow(wt->dims[1], group, out))
    return GILT_SUCCESS;
  return graph_error(v, "operand 'W' has %lld channels per group, which "
                     "times attribute 'group' (%lld) overflows int64",
                     (long long)wt->dims[1], (long long)group);
}

/* Checks X's rank (N x C x spatial...) and returns the spatial count. */
static GiltStatus spatial_dims(const GraphOpView *v, const GraphShape *x,
                               size_t *n)
{
  if (x->rank < 3)
    return graph_error(v, "operand '%s' must have rank >= 3 (N x C x "
                       "spatial...), got rank %zu",
                       graph_operand_name(v, 0), x->rank);
  *n = x->rank - 2;
  return GILT_SUCCESS;
}

static GiltStatus check_windows(const GraphOpView *v, const GraphShape *out,
                                size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!dyn(out->dims[2 + i]) && out->dims[2 + i] < 1)
      return graph_error(v, "the window does not fit spatial dimension %zu "
                         "of operand '%s'", i, graph_operand_name(v, 0));
  return GILT_SUCCESS;
}

/* What Conv and ConvTranspose check alike: the operands, the ranks of X
** and W, the spatial dimensions and `group`. Sets *done (with types[0]
** unranked) when X has no rank and nothing more can be said. */
static GiltStatus conv_common(const GraphOpView *v, GraphShape *x,
                              GraphShape *wt, size_t *n, int64_t *group,
                              GiltType **types, bool *done)
{
  *done = false;
  if (graph_check_operands(v))
    return GILT_FAILURE;
  graph_operand_shape(v, 0, x);
  graph_operand_shape(v, 1, wt);
  if (!x->ranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, graph_operand_elem(v, 0));
    *done = true;
    return GILT_SUCCESS;
  }
  if (spatial_dims(v, x, n))
    return GILT_FAILURE;
  if (wt->ranked && wt->rank != x->rank)
    return graph_error(v, "operand 'W' has rank %zu but operand 'X' has "
                       "rank %zu", wt->rank, x->rank);
  *group = graph_dict_int(v->attrs, "group", 1);
  if (*group < 1)
    return graph_error(v, "attribute 'group' (%lld) must be positive",
                       (long long)*group);
  return GILT_SUCCESS;
}

/* What Conv and DeformConv share once conv_common has read X and W: the
** channel counts against `group`, the window, and the bias (operand
** `bias`, one entry per output channel). Sets *m to the output channels
** and *w to the window. */
static GiltStatus conv_channels_window(const GraphOpView *v,
                                       const GraphShape *x,
                                       const GraphShape *wt, size_t n,
                                       int64_t group, size_t bias,
                                       int64_t *m, Window *w)
{
  int64_t c;
  *m = wt->ranked ? wt->dims[0] : GILT_DYNAMIC;
  if (grouped_channels(v, wt, group, &c))
    return GILT_FAILURE;
  if (!dyn(x->dims[1]) && !dyn(c) && x->dims[1] != c)
    return graph_error(v, "operand 'X' has %lld channels but operand 'W' "
                       "expects %lld (%lld per group x %lld groups)",
                       (long long)x->dims[1], (long long)c,
                       (long long)wt->dims[1], (long long)group);
  if (!dyn(*m) && *m % group)
    return graph_error(v, "operand 'W' has %lld output channels, not a "
                       "multiple of attribute 'group' (%lld)",
                       (long long)*m, (long long)group);
  int64_t kernel[GRAPH_MAX_RANK];
  for (size_t i = 0; i < n; i++)
    kernel[i] = wt->ranked ? wt->dims[2 + i] : GILT_DYNAMIC;
  if (read_window(v, n, kernel, w))
    return GILT_FAILURE;
  if (graph_has_operand(v, bias)) {
    GraphShape b;
    graph_operand_shape(v, bias, &b);
    if (b.ranked && (b.rank != 1 || (!dyn(*m) && !dyn(b.dims[0]) &&
                                     b.dims[0] != *m)))
      return graph_error(v, "operand 'B' must be 1-D with one entry per "
                         "output channel (%lld)", (long long)*m);
  }
  return GILT_SUCCESS;
}

/* DeformConv's offset (channels offset_group * prod(kernel) * n) or mask
** (offset_group * prod(kernel)), or Conv's fused residual Z (the output's
** channels), operand i: [N, channels, output spatial...]. Output spatial
** dims still unknown are taken from it. */
static GiltStatus check_sampling_operand(const GraphOpView *v, size_t i,
                                         int64_t channels, GraphShape *out)
{
  if (!graph_has_operand(v, i))
    return GILT_SUCCESS;
  GraphShape s;
  graph_operand_shape(v, i, &s);
  const char *name = graph_operand_name(v, i);
  if (!s.ranked)
    return GILT_SUCCESS;
  if (s.rank != out->rank)
    return graph_error(v, "operand '%s' has rank %zu but operand 'X' has "
                       "rank %zu", name, s.rank, out->rank);
  if (!dyn(s.dims[0]) && !dyn(out->dims[0]) && s.dims[0] != out->dims[0])
    return graph_error(v, "operand '%s' has batch size %lld but operand "
                       "'X' has %lld", name, (long long)s.dims[0],
                       (long long)out->dims[0]);
  if (!dyn(s.dims[1]) && !dyn(channels) && s.dims[1] != channels)
    return graph_error(v, "operand '%s' has %lld channels, expected %lld",
                       name, (long long)s.dims[1], (long long)channels);
  for (size_t d = 2; d < s.rank; d++) {
    if (dyn(out->dims[d]))
      out->dims[d] = s.dims[d];
    else if (!dyn(s.dims[d]) && s.dims[d] != out->dims[d])
      return graph_error(v, "operand '%s' has size %lld in spatial "
                         "dimension %zu, but the output has %lld", name,
                         (long long)s.dims[d], d - 2,
                         (long long)out->dims[d]);
  }
  if (dyn(out->dims[0]))
    out->dims[0] = s.dims[0];
  return GILT_SUCCESS;
}

/* Conv: X (N x C x D...), W (M x C/group x k...), B? (M), and Z? (the
** output's shape) when graph-fuse-epilogues gave it one. */
GiltStatus graph_infer_conv(const GraphOpView *v, GiltType **types)
{
  GraphShape x, wt;
  size_t n = 0;
  int64_t group = 1, m;
  bool done;
  Window w;
  if (conv_common(v, &x, &wt, &n, &group, types, &done))
    return GILT_FAILURE;
  if (done)
    return GILT_SUCCESS;
  GiltType *elem = graph_operand_elem(v, 0);
  if (conv_channels_window(v, &x, &wt, n, group, 2, &m, &w))
    return GILT_FAILURE;
  GraphShape out = x;
  out.dims[1] = m;
  if (spatial_out(v, &w, &x, NULL, &out) || check_windows(v, &out, n) ||
      check_sampling_operand(v, 3, m, &out))
    return GILT_FAILURE;
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* The channel block of activation layout s: 1 for "NCHW", b for
** "NCHW<b>c", 0 for anything else. */
int64_t graph_channel_block(const char *s)
{
  GraphLayout l;
  char why[96];
  if (!graph_layout_parse(s, strlen(s), &l, why, sizeof why) ||
      strncmp(l.dims, "NCHW", 4))
    return 0;
  if (l.rank == 4)
    return 1;
  return l.rank == 5 && l.dims[4] == 'c' ? l.factors[4] : 0;
}

int64_t graph_attr_channel_block(GiltOp *op, const char *name)
{
  return graph_channel_block(graph_attr_string(op, name, "NCHW"));
}

/* One of conv_nchwc's layouts, its channel block into *block; `out`: the
** result's, which must be blocked. */
static GiltStatus read_channel_layout(const GraphOpView *v, const char *name,
                                      bool out, int64_t *block)
{
  const char *s = graph_dict_string(v->attrs, name, NULL);
  if (!s)
    return graph_error(v, "requires attribute '%s'", name);
  *block = graph_channel_block(s);
  if (*block > 1 || (*block == 1 && !out))
    return GILT_SUCCESS;
  return graph_error(v, "attribute '%s' is \"%s\", expected %s", name, s,
                     out ? "NCHW<b>c (such as \"NCHW16c\")"
                         : "\"NCHW\" or NCHW<b>c (such as \"NCHW16c\")");
}

/* The NCHW shape of a tensor of channel block b (s itself for b = 1): C
** the blocks times b; fails when s has not the layout's rank or its last
** dimension is not b (static: the kernels read whole blocks). */
static GiltStatus unblocked(const GraphOpView *v, size_t i, int64_t b,
                            const GraphShape *s, GraphShape *out)
{
  *out = *s;
  if (!s->ranked || b == 1)
    return GILT_SUCCESS;
  if (s->rank != 5 || s->dims[4] != b)
    return graph_error(v, "operand '%s' must be [N, C/%lld, H, W, %lld] "
                       "for its layout", graph_operand_name(v, i),
                       (long long)b, (long long)b);
  out->rank = 4;
  if (!dyn(s->dims[1]) && gilt_mul_overflow(s->dims[1], b, &out->dims[1]))
    return graph_error(v, "operand '%s' has too many channels",
                       graph_operand_name(v, i));
  return GILT_SUCCESS;
}

/* graph.conv_nchwc (graph-layout-nchwc's Conv): a 2-D Conv of one group,
** or depthwise, whose X is NCHW or NCHW<b>c (data_layout) and whose Y,
** and residual Z, are NCHW<o>c (out_layout); W [M, C / group, KH, KW]
** and B [M] as Conv's. */
GiltStatus graph_infer_conv_nchwc(const GraphOpView *v, GiltType **types)
{
  int64_t in_block, out_block, m;
  if (graph_check_operands(v) ||
      read_channel_layout(v, "data_layout", false, &in_block) ||
      read_channel_layout(v, "out_layout", true, &out_block))
    return GILT_FAILURE;
  int64_t group = graph_dict_int(v->attrs, "group", 1);
  GraphShape xb, x, wt;
  graph_operand_shape(v, 0, &xb);
  graph_operand_shape(v, 1, &wt);
  if (!xb.ranked || !wt.ranked)
    return graph_error(v, "operands 'X' and 'W' must be ranked");
  if (unblocked(v, 0, in_block, &xb, &x))
    return GILT_FAILURE;
  if (x.rank != 4 || wt.rank != 4)
    return graph_error(v, "operands 'X' and 'W' must be 2-D convolutions' "
                       "(X in its layout, W [M, C, KH, KW])");
  /* The kernels take the reduction's length from W: X's must be known to
  ** match it. */
  if (dyn(x.dims[1]))
    return graph_error(v, "operand 'X' must have a static number of "
                       "channels");
  Window w;
  /* One group, or depthwise: one channel a group, in one layout. */
  if (group != 1 && (in_block != out_block || x.dims[1] != group ||
                     wt.dims[0] != group || wt.dims[1] != 1))
    return graph_error(v, "attribute 'group' must be 1, or the channels "
                       "of X and of W [C, 1, KH, KW] (depthwise) with "
                       "data_layout the same as out_layout");
  if (conv_channels_window(v, &x, &wt, 2, group, 2, &m, &w))
    return GILT_FAILURE;
  if (dyn(m) || m % out_block)
    return graph_error(v, "operand 'W' must have a static multiple of %lld "
                       "output channels for out_layout",
                       (long long)out_block);
  GraphShape out = x;
  if (spatial_out(v, &w, &x, NULL, &out) || check_windows(v, &out, 2))
    return GILT_FAILURE;
  out.rank = 5;
  out.dims[1] = m / out_block;
  out.dims[4] = out_block;
  if (graph_has_operand(v, 3)) {
    GraphShape z;
    graph_operand_shape(v, 3, &z);
    for (size_t d = 0; z.ranked && d < 5; d++)
      if (z.rank != 5 || (!dyn(out.dims[d]) && z.dims[d] != out.dims[d]))
        return graph_error(v, "operand 'Z' must have the result's shape");
  }
  types[0] = graph_tensor_type(v->ctx, &out, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}

/* DeformConv-19: X (N x C x D...), W (M x C/group x k...), offset (N x
** offset_group * prod(k) * n x out...), B? (M), mask? (N x offset_group *
** prod(k) x out...); the output as Conv's without auto_pad. Types f16,
** f32, f64 (bf16 came with version 22). */
GiltStatus graph_infer_deform_conv(const GraphOpView *v, GiltType **types)
{
  GraphShape x, wt;
  size_t n = 0;
  int64_t group = 1;
  bool done;
  if (conv_common(v, &x, &wt, &n, &group, types, &done))
    return GILT_FAILURE;
  GiltType *elem = graph_operand_elem(v, 0);
  if (gilt_float_type_get_kind(elem) == GILT_BF16)
    return graph_error(v, "operand 'X' must not be bf16 (DeformConv-19)");
  if (done)
    return GILT_SUCCESS;
  /* read_window reads these, which DeformConv does not have. */
  static const char *const foreign[] = {"auto_pad", "ceil_mode"};
  for (size_t i = 0; i < 2; i++)
    if (v->attrs && gilt_dictionary_attr_lookup(v->attrs, foreign[i]))
      return graph_error(v, "has no attribute '%s' (DeformConv-19 pads "
                         "explicitly)", foreign[i]);
  int64_t og = graph_dict_int(v->attrs, "offset_group", 1);
  if (og < 1)
    return graph_error(v, "attribute 'offset_group' (%lld) must be "
                       "positive", (long long)og);
  if (!dyn(x.dims[1]) && x.dims[1] % og)
    return graph_error(v, "operand 'X' has %lld channels, not a multiple "
                       "of attribute 'offset_group' (%lld)",
                       (long long)x.dims[1], (long long)og);
  int64_t m;
  Window w;
  if (conv_channels_window(v, &x, &wt, n, group, 3, &m, &w))
    return GILT_FAILURE;
  /* offset_group * prod(kernel): the mask's channels; the offset has n
  ** coordinates for each. */
  int64_t points = og;
  for (size_t i = 0; i < n && !dyn(points); i++)
    if (dyn(w.kernel[i]) || gilt_mul_overflow(points, w.kernel[i], &points))
      points = GILT_DYNAMIC;
  int64_t coords = GILT_DYNAMIC;
  if (!dyn(points) && gilt_mul_overflow(points, (int64_t)n, &coords))
    coords = GILT_DYNAMIC;
  GraphShape out = x;
  out.dims[1] = m;
  if (spatial_out(v, &w, &x, NULL, &out) || check_windows(v, &out, n) ||
      check_sampling_operand(v, 2, coords, &out) ||
      check_sampling_operand(v, 4, points, &out))
    return GILT_FAILURE;
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* ConvTranspose: X (N x C x D...), W (C x M/group x k...), B? (M). */
GiltStatus graph_infer_conv_transpose(const GraphOpView *v, GiltType **types)
{
  GraphShape x, wt;
  size_t n = 0;
  int64_t group = 1;
  bool done;
  if (conv_common(v, &x, &wt, &n, &group, types, &done))
    return GILT_FAILURE;
  if (done)
    return GILT_SUCCESS;
  GiltType *elem = graph_operand_elem(v, 0);
  if (wt.ranked && !dyn(x.dims[1]) && !dyn(wt.dims[0]) &&
      x.dims[1] != wt.dims[0])
    return graph_error(v, "operand 'X' has %lld channels but operand 'W' "
                       "expects %lld", (long long)x.dims[1],
                       (long long)wt.dims[0]);
  Window w;
  int64_t kernel[GRAPH_MAX_RANK], outpad[GRAPH_MAX_RANK];
  int64_t shape[2 * GRAPH_MAX_RANK];
  for (size_t i = 0; i < n; i++)
    kernel[i] = wt.ranked ? wt.dims[2 + i] : GILT_DYNAMIC;
  if (read_window(v, n, kernel, &w) ||
      read_list(v, "output_padding", n, 0, outpad, n, false))
    return GILT_FAILURE;
  size_t ns = 0;
  bool has_shape = graph_dict_ints(v->attrs, "output_shape", shape,
                                   2 * GRAPH_MAX_RANK, &ns);
  if (has_shape && ns != n && ns != n + 2)
    return graph_error(v, "attribute 'output_shape' has %zu entries but the "
                       "input has %zu spatial dimensions", ns, n);
  GraphShape out = x;
  if (grouped_channels(v, &wt, group, &out.dims[1]))
    return GILT_FAILURE;
  if (has_shape)
    for (size_t i = 0; i < n; i++)
      out.dims[2 + i] = shape[ns - n + i];
  else if (spatial_out(v, &w, &x, outpad, &out))
    return GILT_FAILURE;
  if (check_windows(v, &out, n))
    return GILT_FAILURE;
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* Whether the op's row declares attribute `name`. */
static bool declares(const GiltOpInfo *info, const char *name)
{
  for (size_t i = 0; i < info->num_attr_specs; i++)
    if (!strcmp(info->attr_specs[i].name->str, name))
      return true;
  return false;
}

GiltStatus graph_x_layout(const GraphOpView *v, GraphShape *x, int64_t *block)
{
  const char *s = graph_dict_string(v->attrs, "layout", NULL);
  *block = 1;
  if (!s)
    return GILT_SUCCESS;
  /* An op that shares the inference but not the attribute (LpPool,
  ** InstanceNormalization) would compute as NCHW: not silently. */
  if (!declares(v->info, "layout"))
    return graph_error(v, "does not take attribute 'layout'");
  *block = graph_channel_block(s);
  if (*block == 1)
    return GILT_SUCCESS;
  if (*block == 0)
    return graph_error(v, "attribute 'layout' is \"%s\", expected \"NCHW\" "
                       "or NCHW<b>c (such as \"NCHW16c\")", s);
  if (v->num_results > 1)
    return graph_error(v, "has results besides 'Y', which need layout "
                          "NCHW");
  if (!x->ranked || x->rank != 5 || x->dims[4] != *block)
    return graph_error(v, "operand '%s' must be [N, C/%lld, H, W, %lld] for "
                       "its layout", graph_operand_name(v, 0),
                       (long long)*block, (long long)*block);
  x->rank = 4;
  return GILT_SUCCESS;
}

/* MaxPool (Y, Indices?), AveragePool, LpPool; MaxPool and AveragePool
** in a `layout` that blocks channels too, the window over H and W. */
GiltStatus graph_infer_pool(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  int64_t block;
  graph_operand_shape(v, 0, &x);
  if (graph_x_layout(v, &x, &block))
    return GILT_FAILURE;
  GiltType *elem = graph_operand_elem(v, 0);
  GraphShape out = x;
  if (x.ranked) {
    size_t n = 0;
    Window w;
    if (spatial_dims(v, &x, &n) || read_window(v, n, NULL, &w) ||
        spatial_out(v, &w, &x, NULL, &out) || check_windows(v, &out, n))
      return GILT_FAILURE;
  }
  if (block > 1)
    out.dims[out.rank++] = block;
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  if (v->num_results > 1)
    types[1] = graph_tensor_type(
        v->ctx, &out, gilt_integer_type_get(v->ctx, 64, GILT_SIGNLESS));
  return GILT_SUCCESS;
}

/* Col2Im: [N, C * prod(block_shape), L] -> [N, C, image_shape...], L the
** number of block positions in the padded image. */
static GiltStatus col2im_lengths(const GraphOpView *v, int64_t *k)
{
  *k = -1;
  for (size_t i = 1; i < 3; i++) {
    GraphShape s;
    graph_operand_shape(v, i, &s);
    if (!s.ranked)
      continue;
    if (s.rank != 1)
      return graph_error(v, "operand '%s' must be 1-D, got rank %zu",
                         graph_operand_name(v, i), s.rank);
    if (s.dims[0] == GILT_DYNAMIC)
      continue;
    if (*k >= 0 && *k != s.dims[0])
      return graph_error(v, "operands 'image_shape' and 'block_shape' must "
                         "have the same length, got %lld and %lld",
                         (long long)*k, (long long)s.dims[0]);
    *k = s.dims[0];
  }
  if (*k > GRAPH_MAX_RANK - 2)
    return graph_error(v, "%lld spatial dims exceed the supported rank",
                       (long long)*k);
  return GILT_SUCCESS;
}

GiltStatus graph_infer_col2im(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  if (x.ranked && x.rank != 3)
    return graph_error(v, "operand 'input' must be 3-D [N, C * "
                       "prod(block_shape), L], got rank %zu", x.rank);
  int64_t k;
  if (col2im_lengths(v, &k))
    return GILT_FAILURE;
  GiltType *elem = graph_operand_elem(v, 0);
  if (k < 0) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  int64_t pads[2 * GRAPH_MAX_RANK] = {0}, strides[GRAPH_MAX_RANK],
          dil[GRAPH_MAX_RANK];
  size_t n;
  for (int64_t i = 0; i < k; i++)
    strides[i] = dil[i] = 1;
  if (graph_dict_ints(v->attrs, "pads", pads, 2 * GRAPH_MAX_RANK, &n) &&
      n != (size_t)(2 * k))
    return graph_error(v, "attribute 'pads' must have %lld entries (2 per "
                       "spatial axis), got %zu", (long long)(2 * k), n);
  for (int64_t i = 0; i < 2 * k; i++)
    if (pads[i] < 0)
      return graph_error(v, "attribute 'pads' entry %lld must not be "
                         "negative", (long long)i);
  const char *names[2] = {"strides", "dilations"};
  int64_t *lists[2] = {strides, dil};
  for (size_t j = 0; j < 2; j++) {
    if (graph_dict_ints(v->attrs, names[j], lists[j], GRAPH_MAX_RANK, &n) &&
        n != (size_t)k)
      return graph_error(v, "attribute '%s' must have %lld entries, got %zu",
                         names[j], (long long)k, n);
    for (int64_t i = 0; i < k; i++)
      if (lists[j][i] <= 0)
        return graph_error(v, "attribute '%s' entry %lld must be positive",
                           names[j], (long long)i);
  }
  int64_t image[GRAPH_MAX_RANK], block[GRAPH_MAX_RANK];
  bool has_image = graph_operand_ints(v, 1, image, GRAPH_MAX_RANK, &n) &&
                   n == (size_t)k;
  bool has_block = graph_operand_ints(v, 2, block, GRAPH_MAX_RANK, &n) &&
                   n == (size_t)k;
  int64_t block_size = 1, blocks = 1;
  for (int64_t i = 0; has_block && i < k; i++) {
    if (block[i] <= 0)
      return graph_error(v, "operand 'block_shape' entry %lld must be "
                         "positive", (long long)i);
    if (gilt_mul_overflow(block_size, block[i], &block_size))
      return graph_error(v, "operand 'block_shape' overflows int64");
  }
  int64_t c = GILT_DYNAMIC;
  if (x.ranked && has_block && x.dims[1] != GILT_DYNAMIC) {
    if (x.dims[1] % block_size)
      return graph_error(v, "operand 'input' dimension 1 (%lld) is not a "
                         "multiple of the block size %lld",
                         (long long)x.dims[1], (long long)block_size);
    c = x.dims[1] / block_size;
  }
  for (int64_t i = 0; has_image && has_block && i < k; i++) {
    int64_t span, room;
    if (gilt_mul_overflow(dil[i], block[i] - 1, &span) ||
        gilt_add_overflow(span, 1, &span) ||
        gilt_add_overflow(image[i], pads[i], &room) ||
        gilt_add_overflow(room, pads[i + k], &room) ||
        gilt_sub_overflow(room, span, &room))
      return graph_error(v, "the image or block of axis %lld overflows "
                         "int64", (long long)i);
    if (image[i] < 0 || room < 0)
      return graph_error(v, "the block of axis %lld (%lld with dilation) "
                         "does not fit the padded image", (long long)i,
                         (long long)span);
    if (gilt_mul_overflow(blocks, room / strides[i] + 1, &blocks))
      return graph_error(v, "the block count overflows int64");
  }
  if (x.ranked && has_image && has_block && x.dims[2] != GILT_DYNAMIC &&
      x.dims[2] != blocks)
    return graph_error(v, "operand 'input' has %lld blocks (dimension 2) "
                       "but the padded image holds %lld",
                       (long long)x.dims[2], (long long)blocks);
  GraphShape out = {.ranked = true, .rank = (size_t)k + 2,
                    .dims = {x.ranked ? x.dims[0] : GILT_DYNAMIC, c}};
  for (int64_t i = 0; i < k; i++)
    out.dims[2 + i] = has_image ? image[i] : GILT_DYNAMIC;
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}
