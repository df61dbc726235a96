/*
** conv_transpose.c - lowering of ConvTranspose (any number of spatial
** axes, groups, dilations, output_padding, output_shape, auto_pad), by
** scattering: every input element adds W times itself into a window of
** the output. The output is accumulated in a zeroed, padded buffer whose
** last axis is stored by phase, position p at [p % s, p / s] (s the last
** stride), so that the targets of consecutive inputs, p = i * s + k * d,
** are consecutive: [r, i + q] with k * d = q * s + r. Then
**
**   parallel (n, m):
**     for ic < C/group, for i... (all input axes but the last), for k...:
**       w = splat(W[c, m % (M/group), k...])
**       for ib:        i0 = ib * L, mask = i < in_last
**         Yp[.., r, i0 + q] += w * X[n, c, i..., i0:i0+L]
**
** with L = 16 lanes for f32 and scalars otherwise (vector.c): about 9
** interpreted ops per L multiply-adds (two masked loads, the fma, the
** masked store, the mask and three index ops). A last nest reads Y out of
** the padded buffer at the padding offsets and adds the bias.
**
** The padding: the attribute's, or from the total
** s * (in - 1) + output_padding + ek - out when output_shape or auto_pad
** SAME_* sets the output size: SAME_UPPER puts the larger half at the
** end (begin = total / 2), otherwise at the beginning, as the ONNX
** operator doc and its backend tests say (ONNX Runtime swaps the two). A
** negative padding attribute is refused.
*/
#include "transforms/graph_to_loop/indexing.h"

#include <string.h>

typedef struct Transpose {
  LowerLanes v;
  size_t n;
  int64_t kernel[GRAPH_MAX_RANK], strides[GRAPH_MAX_RANK];
  int64_t dilations[GRAPH_MAX_RANK];
  GiltValue *x, *wt, *bias, *yp, *y;
  GiltValue *in[GRAPH_MAX_RANK], *out[GRAPH_MAX_RANK];
  GiltValue *begin[GRAPH_MAX_RANK], *extent[GRAPH_MAX_RANK];
  GiltValue *cg, *mg, *c0; /* c0: the group's first input channel */
  size_t depth; /* 0: ic; 1..n-1: input axes; n..2n-1: kernel axes */
  GiltValue *xi[GRAPH_MAX_RANK], *wi[GRAPH_MAX_RANK];
  GiltValue *yi[GRAPH_MAX_RANK + 1], *ii[GRAPH_MAX_RANK];
  GiltValue *w, *mask;
} Transpose;

static void phase(Lower *l, int64_t s, GiltValue *p, GiltValue **out)
{
  if (s == 1) {
    out[0] = lower_index(l, 0), out[1] = p;
    return;
  }
  out[0] = ix_rem(l, p, lower_index(l, s));
  out[1] = ix_div(l, p, lower_index(l, s));
}

static GiltValue *dilate(Lower *l, GiltValue *k, int64_t d)
{
  return d == 1 ? k : ix_mul(l, k, lower_index(l, d));
}

/* The innermost loop body: one block of L inputs along the last axis. */
static void block_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Transpose *t = user;
  size_t n = t->n;
  GiltValue *i0 = ivs[0];
  if (t->v.width > 1)
    i0 = ix_mul(l, i0, lower_index(l, t->v.width));
  GiltValue *mask = lower_lanes_mask(l, &t->v, ix_sub(l, t->in[n - 1], i0));
  t->xi[1 + n] = i0;
  GiltValue *q = t->yi[2 + n];
  t->yi[2 + n] = ix_add(l, q, i0);
  GiltValue *x = lower_lanes_load(l, &t->v, mask, t->x, t->xi);
  GiltValue *y = lower_lanes_load(l, &t->v, mask, t->yp, t->yi);
  lower_lanes_store(l, &t->v, mask, lower_lanes_fma(l, t->w, x, y), t->yp,
                    t->yi);
  t->yi[2 + n] = q;
}

static void scatter_level(Lower *l, GiltValue *const *ivs, void *user);

static void scatter_loop(Lower *l, Transpose *t)
{
  size_t n = t->n, d = t->depth;
  GiltValue *upper;
  if (d == 2 * n) {
    t->w = lower_lanes_splat(l, &t->v, lower_load(l, t->wt, t->wi));
    upper = t->in[n - 1];
    if (t->v.width > 1)
      upper =
          lower_binary(l, LOOP_OP_CEILDIVSI, upper, lower_index(l, t->v.width));
    lower_nest(l, 1, &upper, block_body, t);
    return;
  }
  upper = d == 0  ? t->cg
          : d < n ? t->in[d - 1]
                  : lower_index(l, t->kernel[d - n]);
  lower_nest(l, 1, &upper, scatter_level, t);
}

static void scatter_level(Lower *l, GiltValue *const *ivs, void *user)
{
  Transpose *t = user;
  size_t n = t->n, d = t->depth;
  GiltValue *iv = ivs[0];
  if (d == 0) {
    t->xi[1] = t->wi[0] = ix_add(l, t->c0, iv);
  } else if (d < n) {
    t->xi[1 + d] = t->ii[d - 1] = iv;
  } else {
    size_t a = d - n;
    t->wi[2 + a] = iv;
    GiltValue *kd = dilate(l, iv, t->dilations[a]);
    if (a + 1 < n)
      t->yi[2 + a] =
          ix_add(l, ix_mul(l, t->ii[a], lower_index(l, t->strides[a])), kd);
    else
      phase(l, t->strides[a], kd, &t->yi[1 + n]);
  }
  t->depth++;
  scatter_loop(l, t);
  t->depth--;
}

static void scatter_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Transpose *t = user;
  GiltValue *m = ivs[1];
  t->xi[0] = t->yi[0] = ivs[0];
  t->yi[1] = m;
  t->wi[1] = ix_rem(l, m, t->mg);
  t->c0 = ix_mul(l, ix_div(l, m, t->mg), t->cg);
  t->depth = 0;
  scatter_loop(l, t);
}

/* ---- the result ------------------------------------------------------------ */

static void gather_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Transpose *t = user;
  size_t n = t->n;
  GiltValue *at[GRAPH_MAX_RANK + 1];
  at[0] = ivs[0], at[1] = ivs[1];
  for (size_t a = 0; a < n; a++)
    at[2 + a] = ix_add(l, ivs[2 + a], t->begin[a]);
  phase(l, t->strides[n - 1], at[1 + n], &at[1 + n]);
  GiltValue *v = lower_load(l, t->yp, at);
  if (t->bias)
    v = lower_lanes_add(l, v, lower_convert(l, lower_load(l, t->bias, &ivs[1]),
                                            t->v.elem));
  lower_store(l, lower_convert(l, v, lower_result_elem(l, 0)), t->y, ivs);
}

/* ---- sizes ------------------------------------------------------------------ */

/* Output size and padding of axis a, into t->out[a] and t->begin[a],
** and the extent of the accumulation buffer. */
static void axis_sizes(Lower *l, Transpose *t, size_t a, int64_t known,
                       const int64_t *pads, const int64_t *outpad,
                       const char *auto_pad, bool set_by_size)
{
  int64_t ek = (t->kernel[a] - 1) * t->dilations[a] + 1, s = t->strides[a];
  GiltValue *last = ix_sub(l, t->in[a], lower_index(l, 1));
  GiltValue *last_start = ix_mul(l, last, lower_index(l, s));
  GiltValue *full = ix_add(l, last_start, lower_index(l, outpad[a] + ek));
  bool same = !strncmp(auto_pad, "SAME_", 5);
  if (!set_by_size && !same) {
    t->begin[a] = lower_index(l, pads[a]);
    t->out[a] = known != GILT_DYNAMIC
                    ? lower_index(l, known)
                    : ix_sub(l, full, lower_index(l, pads[a] + pads[t->n + a]));
  } else {
    t->out[a] = known != GILT_DYNAMIC ? lower_index(l, known)
                                      : ix_mul(l, t->in[a], lower_index(l, s));
    /* An output larger than the scatter's reach pads nothing and is
    ** zero (plus bias) at the end, as ONNX Runtime does. */
    GiltValue *excess = ix_sub(l, full, t->out[a]);
    GiltValue *total = ix_max(l, excess, lower_index(l, 0));
    GiltValue *half = ix_div(l, total, lower_index(l, 2));
    t->begin[a] =
        !strcmp(auto_pad, "SAME_UPPER") ? half : ix_sub(l, total, half);
  }
  /* The scatter reaches (in - 1) * s + ek; the result begin + out. */
  GiltValue *reach = ix_sub(l, full, lower_index(l, outpad[a]));
  GiltValue *result_end = ix_add(l, t->begin[a], t->out[a]);
  t->extent[a] = ix_max(l, reach, result_end);
}

/* The zeroed accumulation buffer [N, M, extent..., s, extent / s]. */
static GiltValue *alloc_padded(Lower *l, Transpose *t, GiltValue *const *nm)
{
  size_t n = t->n, rank = n + 3;
  int64_t shape[GRAPH_MAX_RANK + 1], s = t->strides[n - 1];
  GiltValue *dims[GRAPH_MAX_RANK + 1];
  dims[0] = nm[0], dims[1] = nm[1];
  for (size_t a = 0; a < n; a++)
    dims[2 + a] = t->extent[a];
  dims[1 + n] = lower_index(l, s);
  dims[2 + n] =
      lower_binary(l, LOOP_OP_CEILDIVSI, t->extent[n - 1], lower_index(l, s));
  for (size_t i = 0; i < rank; i++)
    shape[i] = GILT_DYNAMIC;
  shape[1 + n] = s;
  GiltValue *yp = lower_alloc(
      l, gilt_memref_type_get(l->ctx, rank, shape, t->v.elem, NULL, NULL),
      dims);
  lower_fill(l, yp, lower_constant(l, t->v.elem, 0));
  return yp;
}

static GiltStatus lower_conv_transpose(Lower *l)
{
  Transpose t = {.x = lower_operand(l, 0), .wt = lower_operand(l, 1),
                 .bias = lower_operand(l, 2)};
  GiltType *wt = gilt_value_get_type(t.wt), *rt = lower_result_type(l, 0);
  t.n = wt->shaped.rank - 2;
  for (size_t a = 0; a < t.n; a++)
    if ((t.kernel[a] = wt->shaped.shape[2 + a]) == GILT_DYNAMIC)
      return lower_error(l, "the kernel's spatial sizes must be static");
  int64_t pads[2 * GRAPH_MAX_RANK], outpad[GRAPH_MAX_RANK];
  int64_t shape[2 * GRAPH_MAX_RANK];
  size_t ns = 0;
  lower_window_attr(l, "strides", t.n, 1, t.strides);
  lower_window_attr(l, "dilations", t.n, 1, t.dilations);
  lower_window_attr(l, "pads", 2 * t.n, 0, pads);
  lower_window_attr(l, "output_padding", t.n, 0, outpad);
  bool by_size = graph_attr_ints(l->op, "output_shape", shape,
                                 2 * GRAPH_MAX_RANK, &ns);
  const char *auto_pad = graph_attr_string(l->op, "auto_pad", "NOTSET");
  if (!strcmp(auto_pad, "VALID"))
    auto_pad = "NOTSET", memset(pads, 0, sizeof pads);
  int64_t group = graph_attr_int(l->op, "group", 1);
  for (size_t a = 0; a < t.n; a++)
    if (pads[a] < 0 || pads[t.n + a] < 0)
      return lower_error(l, "negative padding is not supported");
  lower_lanes_init(l, &t.v, lower_result_elem(l, 0));
  for (size_t a = 0; a < t.n; a++) {
    t.in[a] = lower_dim(l, t.x, 2 + a);
    axis_sizes(l, &t, a, rt->shaped.shape[2 + a], pads, outpad, auto_pad,
               by_size);
  }
  GiltValue *dims[GRAPH_MAX_RANK];
  dims[0] = lower_dim(l, t.x, 0);
  t.mg = lower_dim(l, t.wt, 1);
  dims[1] = ix_mul(l, t.mg, lower_index(l, group));
  GiltValue *channels = lower_dim(l, t.x, 1);
  t.cg = ix_div(l, channels, lower_index(l, group));
  t.yp = alloc_padded(l, &t, dims);
  lower_parallel(l, 2, dims, scatter_body, &t);
  for (size_t a = 0; a < t.n; a++)
    dims[2 + a] = t.out[a];
  t.y = lower_alloc_result(l, 0, dims);
  lower_parallel(l, t.n + 2, dims, gather_body, &t);
  return lower_replace(l, &t.y);
}

const GraphLoweringRow graph_lower_conv_transpose[] = {
    {GRAPH_OP_CONV_TRANSPOSE, {lower_conv_transpose}},
    {0, {NULL}},
};
