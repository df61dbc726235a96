/*
** deform_conv.c - lowering of DeformConv-19 (2-D, the only rank ONNX
** defines): a convolution whose every kernel tap reads X not at its grid
** place but there moved by `offset`, bilinearly interpolated between the
** four neighbours (those outside X count as 0, as padding does), and
** weighted by `mask` when present:
**
**   parallel (n, m, oh, ow):     g = m / (M / group)
**     acc = B[m] or 0
**     for ic < C / group, kh < KH, kw < KW:
**       c = g * C / group + ic,  t = (c / (C / offset_group)) * KH * KW
**           + kh * KW + kw
**       h = oh * sh - pad_top + kh * dh + offset[n, 2t, oh, ow]
**       w = ow * sw - pad_left + kw * dw + offset[n, 2t + 1, oh, ow]
**       acc += W[m, ic, kh, kw] * mask[n, t, oh, ow] * bilinear(X[n, c], h, w)
**     Y[n, m, oh, ow] = acc
**
** as ONNX's reference implementation computes it, in f32 for f16 inputs.
** The scalar nest costs some 60 interpreted ops per multiply-add: the
** sampling positions differ at every output, so Conv's padded copy and
** vector lanes do not apply. Not here: an im2col form for speed.
*/
#include "transforms/graph_to_loop/indexing.h"

typedef struct Deform {
  LowerWindow w;
  GiltValue *x, *wt, *offset, *bias, *mask;
  GiltType *acc;
  GiltValue *per_group;   /* input channels per group: W's dimension 1 */
  GiltValue *out_group;   /* output channels per group */
  GiltValue *per_offset;  /* input channels per offset group */
  GiltValue *const *ivs;  /* the output element: n, m, oh, ow */
  GiltValue *first;       /* the group's first input channel */
} Deform;

static GiltValue *convert(Lower *l, Deform *d, GiltValue *v)
{
  return lower_convert(l, v, d->acc);
}

/* The element of a [N, channels, OH, OW] operand at channel ch of the
** output element being computed, in the accumulator type. */
static GiltValue *at_output(Lower *l, Deform *d, GiltValue *buf,
                            GiltValue *ch)
{
  GiltValue *at[4] = {d->ivs[0], ch, d->ivs[2], d->ivs[3]};
  GiltValue *v = lower_load(l, buf, at);
  return convert(l, d, v);
}

/* X[n, c, h, w] in the accumulator type, 0 outside X. */
static GiltValue *corner(Lower *l, Deform *d, GiltValue *c, GiltValue *h,
                         GiltValue *w)
{
  GiltType *elem = gilt_value_get_type(d->x)->shaped.elem;
  GiltValue *zero = lower_constant(l, elem, 0);
  GiltValue *at[4] = {d->ivs[0], c, h, w};
  GiltValue *v = lower_load_or(l, d->x, at, zero);
  return convert(l, d, v);
}

/* a + (b - a) t */
static GiltValue *lerp(Lower *l, GiltValue *a, GiltValue *b, GiltValue *t)
{
  GiltValue *diff = lower_binary(l, LOOP_OP_SUBF, b, a);
  GiltValue *part = lower_binary(l, LOOP_OP_MULF, diff, t);
  return lower_binary(l, LOOP_OP_ADDF, a, part);
}

/* The floor of a float position as an index, and its fraction. */
static GiltValue *split(Lower *l, GiltValue *pos, GiltValue **fraction)
{
  GiltValue *low = lower_unary(l, LOOP_OP_FLOOR, pos);
  *fraction = lower_binary(l, LOOP_OP_SUBF, pos, low);
  return lower_convert(l, low, lower_index_type(l));
}

/* X[n, c] bilinearly at (h, w), float positions. */
static GiltValue *bilinear(Lower *l, Deform *d, GiltValue *c, GiltValue *h,
                           GiltValue *w)
{
  GiltValue *lh, *lw;
  GiltValue *h0 = split(l, h, &lh);
  GiltValue *w0 = split(l, w, &lw);
  GiltValue *one = lower_index(l, 1);
  GiltValue *h1 = ix_add(l, h0, one);
  GiltValue *w1 = ix_add(l, w0, one);
  GiltValue *x00 = corner(l, d, c, h0, w0);
  GiltValue *x01 = corner(l, d, c, h0, w1);
  GiltValue *x10 = corner(l, d, c, h1, w0);
  GiltValue *x11 = corner(l, d, c, h1, w1);
  GiltValue *top = lerp(l, x00, x01, lw);
  GiltValue *bottom = lerp(l, x10, x11, lw);
  return lerp(l, top, bottom, lh);
}

/* The sampling position along spatial axis i for kernel index k: the
** grid place, as a float, plus the offset at channel ch. */
static GiltValue *position(Lower *l, Deform *d, size_t i, GiltValue *k,
                           GiltValue *ch)
{
  GiltValue *stride = lower_index(l, d->w.strides[i]);
  GiltValue *dilation = lower_index(l, d->w.dilations[i]);
  GiltValue *place = ix_mul(l, d->ivs[2 + i], stride);
  place = ix_sub(l, place, d->w.begin[i]);
  GiltValue *tap = ix_mul(l, k, dilation);
  place = ix_add(l, place, tap);
  GiltValue *base = convert(l, d, place);
  GiltValue *moved = at_output(l, d, d->offset, ch);
  return lower_binary(l, LOOP_OP_ADDF, base, moved);
}

/* The tap's channel t of offset (2t, 2t + 1) and mask (t). */
static GiltValue *tap_channel(Lower *l, Deform *d, GiltValue *c,
                              GiltValue *kh, GiltValue *kw)
{
  GiltValue *og = ix_div(l, c, d->per_offset);
  GiltValue *kernel = lower_index(l, d->w.kernel[0] * d->w.kernel[1]);
  GiltValue *t = ix_mul(l, og, kernel);
  GiltValue *row = ix_mul(l, kh, lower_index(l, d->w.kernel[1]));
  t = ix_add(l, t, row);
  return ix_add(l, t, kw);
}

/* idx: ic, kh, kw. */
static void tap_step(Lower *l, GiltValue *const *idx, GiltValue *const *acc,
                     GiltValue **next, void *user)
{
  Deform *d = user;
  GiltValue *c = ix_add(l, d->first, idx[0]);
  GiltValue *t = tap_channel(l, d, c, idx[1], idx[2]);
  GiltValue *two = lower_index(l, 2);
  GiltValue *ch_h = ix_mul(l, t, two);
  GiltValue *ch_w = ix_add(l, ch_h, lower_index(l, 1));
  GiltValue *h = position(l, d, 0, idx[1], ch_h);
  GiltValue *w = position(l, d, 1, idx[2], ch_w);
  GiltValue *v = bilinear(l, d, c, h, w);
  if (d->mask) {
    GiltValue *m = at_output(l, d, d->mask, t);
    v = lower_binary(l, LOOP_OP_MULF, v, m);
  }
  GiltValue *at[4] = {d->ivs[1], idx[0], idx[1], idx[2]};
  GiltValue *weight = lower_load(l, d->wt, at);
  weight = convert(l, d, weight);
  GiltValue *product = lower_binary(l, LOOP_OP_MULF, weight, v);
  next[0] = lower_binary(l, LOOP_OP_ADDF, acc[0], product);
}

static GiltValue *output_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Deform *d = user;
  d->ivs = ivs;
  GiltValue *g = ix_div(l, ivs[1], d->out_group);
  d->first = ix_mul(l, g, d->per_group);
  GiltValue *init;
  if (d->bias) {
    GiltValue *b = lower_load(l, d->bias, &ivs[1]);
    init = convert(l, d, b);
  } else {
    init = lower_constant(l, d->acc, 0);
  }
  GiltValue *dims[3] = {d->per_group, lower_index(l, d->w.kernel[0]), NULL};
  dims[2] = lower_index(l, d->w.kernel[1]);
  bool reduced[3] = {true, true, true};
  GiltValue *at[3] = {NULL, NULL, NULL}, *sum;
  lower_reduce_loops(l, 3, dims, reduced, at, 1, &init, &sum, tap_step, d);
  return lower_convert(l, sum, lower_result_elem(l, 0));
}

/* Reads the window with W's kernel sizes, else kernel_shape's. */
static GiltStatus read_window(Lower *l, Deform *d)
{
  GiltType *t = gilt_value_get_type(d->wt);
  if (gilt_value_get_type(d->x)->shaped.rank != 4)
    return lower_error(l, "only 2-D DeformConv is defined (X of rank 4)");
  bool static_kernel = t->shaped.shape[2] != GILT_DYNAMIC &&
                       t->shaped.shape[3] != GILT_DYNAMIC;
  if (!static_kernel && !gilt_op_get_attr(l->op, "kernel_shape"))
    return lower_error(l, "the kernel's spatial sizes must be static");
  lower_window_read(l, d->x, 2, static_kernel ? t->shaped.shape + 2 : NULL,
                    &d->w);
  return GILT_SUCCESS;
}

static GiltStatus lower_deform_conv(Lower *l)
{
  Deform d = {.x = lower_operand(l, 0), .wt = lower_operand(l, 1),
              .offset = lower_operand(l, 2), .bias = lower_operand(l, 3),
              .mask = lower_operand(l, 4)};
  if (read_window(l, &d))
    return GILT_FAILURE;
  d.acc = lower_acc_type(l, lower_result_elem(l, 0));
  GiltValue *out_channels = lower_dim(l, d.wt, 0);
  GiltValue *group = lower_index(l, graph_attr_int(l->op, "group", 1));
  d.out_group = ix_div(l, out_channels, group);
  d.per_group = lower_dim(l, d.wt, 1);
  GiltValue *in_channels = lower_dim(l, d.x, 1);
  GiltValue *offset_group =
      lower_index(l, graph_attr_int(l->op, "offset_group", 1));
  d.per_offset = ix_div(l, in_channels, offset_group);
  GiltValue *dims[4] = {lower_dim(l, d.x, 0), out_channels, d.w.out[0],
                        d.w.out[1]};
  GiltValue *out = lower_generate(l, 0, dims, output_element, &d);
  return lower_replace(l, &out);
}

const GraphLoweringRow graph_lower_deform_conv[] = {
    {GRAPH_OP_DEFORM_CONV, {lower_deform_conv}},
    {0, {NULL}},
};
