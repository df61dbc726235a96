/*
** slice.c - lowering of the ops that take a window of their input:
** Slice (negative starts and ends, clamping, negative steps), Pad (modes
** constant, reflect, edge and wrap, negative pads cropping, the axes
** operand) and CenterCropPad. Each result element reads the input at
** start + index * step along each dimension; where that falls outside the
** input, Pad's mode says what it reads instead.
**
** Starts, ends, axes, steps, pads and CenterCropPad's shape are loaded at
** run time, so computed ones work (the backend suite passes them as
** inputs); constant ones fold away under canonicalize.
*/
#include "transforms/graph_to_loop/indexing.h"

#include <string.h>

typedef enum PadMode { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE, PAD_WRAP } PadMode;

/* Result element at ivs reads input index start[d] + ivs[d] * step[d]. */
typedef struct Window {
  GiltValue *in;
  size_t rank;
  GiltValue *start[GRAPH_MAX_RANK], *step[GRAPH_MAX_RANK];
  GiltValue *dims[GRAPH_MAX_RANK]; /* the result's */
  PadMode mode;
  GiltValue *value; /* PAD_CONSTANT: what lies outside */
} Window;

/* The axes operand i (0..n-1 when absent) as n index values, negative
** ones wrapped; they may be known only at run time, so each axis a
** dimension takes its parameters from is chosen with selects. */
static void read_axes(Lower *l, size_t i, size_t n, size_t rank,
                      GiltValue **axis)
{
  GiltValue *axes = lower_operand(l, i), *r = lower_index(l, (int64_t)rank);
  for (size_t k = 0; k < n; k++) {
    if (!axes) {
      axis[k] = lower_index(l, (int64_t)k);
      continue;
    }
    axis[k] = ix_wrap_negative(l, lower_load_index(l, axes, (int64_t)k), r);
    lower_assert(l, ix_in_range(l, axis[k], lower_index(l, 0), r),
                 "an axis is out of range");
  }
}

/* Whether entry k of the axes names dimension d. */
static GiltValue *names(Lower *l, GiltValue *axis, size_t d)
{
  return lower_cmp(l, "eq", axis, lower_index(l, (int64_t)d));
}

/* The whole of every dimension, for the axes an op leaves alone. */
static void init_window(Lower *l, Window *w, GiltValue *in)
{
  w->in = in;
  w->rank = gilt_value_get_type(in)->shaped.rank;
  w->mode = PAD_CONSTANT;
  w->value = NULL;
  for (size_t d = 0; d < w->rank; d++) {
    w->start[d] = lower_index(l, 0);
    w->step[d] = lower_index(l, 1);
    w->dims[d] = lower_dim(l, in, d);
  }
}

static GiltValue *clamp(Lower *l, GiltValue *v, GiltValue *lo, GiltValue *hi)
{
  return ix_min(l, ix_max(l, v, lo), hi);
}

/* The input index a result index maps to, folded back inside the input
** as the pad mode says (PAD_CONSTANT leaves it outside). */
static GiltValue *source_index(Lower *l, Window *w, size_t d, GiltValue *iv)
{
  GiltValue *c = ix_add(l, w->start[d], ix_mul(l, iv, w->step[d]));
  GiltValue *dim = lower_dim(l, w->in, d), *zero = lower_index(l, 0);
  GiltValue *last = ix_sub(l, dim, lower_index(l, 1));
  switch (w->mode) {
  case PAD_CONSTANT:
    return c;
  case PAD_EDGE:
    return clamp(l, c, zero, last);
  case PAD_WRAP:
    return ix_rem(l, ix_add(l, ix_rem(l, c, dim), dim), dim);
  case PAD_REFLECT: {
    GiltValue *below = lower_cmp(l, "slt", c, zero);
    c = lower_select(l, below, ix_sub(l, zero, c), c);
    GiltValue *above = lower_cmp(l, "sgt", c, last);
    return lower_select(l, above, ix_sub(l, ix_add(l, last, last), c), c);
  }
  }
  return c;
}

static GiltValue *window_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Window *w = user;
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t d = 0; d < w->rank; d++)
    idx[d] = source_index(l, w, d, ivs[d]);
  if (w->mode == PAD_CONSTANT && w->value)
    return lower_load_or(l, w->in, idx, w->value);
  return lower_load(l, w->in, idx);
}

static GiltStatus emit_window(Lower *l, Window *w)
{
  GiltValue *out = lower_generate(l, 0, w->dims, window_element, w);
  return lower_replace(l, &out);
}

/* ---- Slice ------------------------------------------------------------------ */

/* Start, step and size along dimension d from the raw operand values,
** where `on` holds (the entry names d). */
static void slice_axis(Lower *l, Window *w, size_t d, GiltValue *on,
                       GiltValue *s, GiltValue *e, GiltValue *step)
{
  GiltValue *dim = w->dims[d], *zero = lower_index(l, 0);
  GiltValue *last = ix_sub(l, dim, lower_index(l, 1));
  GiltValue *forward = lower_cmp(l, "sgt", step, zero);
  lower_assert(l, lower_cmp(l, "ne", step, zero), "a step is 0");
  s = ix_wrap_negative(l, s, dim);
  e = ix_wrap_negative(l, e, dim);
  s = clamp(l, s, zero, lower_select(l, forward, dim, last));
  GiltValue *e_forward = clamp(l, e, zero, dim);
  GiltValue *e_backward = clamp(l, e, lower_index(l, -1), last);
  e = lower_select(l, forward, e_forward, e_backward);
  GiltValue *n = lower_binary(l, LOOP_OP_CEILDIVSI, ix_sub(l, e, s), step);
  w->start[d] = lower_select(l, on, s, w->start[d]);
  w->step[d] = lower_select(l, on, step, w->step[d]);
  w->dims[d] = lower_select(l, on, ix_max(l, n, zero), w->dims[d]);
}

static GiltStatus lower_slice(Lower *l)
{
  Window w;
  init_window(l, &w, lower_operand(l, 0));
  int64_t n = lower_static_length(lower_operand(l, 1));
  GiltValue *axis[GRAPH_MAX_RANK];
  if (n < 0 || n > (int64_t)w.rank ||
      lower_static_length(lower_operand(l, 2)) != n)
    return lower_error(l, "starts and ends must have one static length");
  read_axes(l, 3, (size_t)n, w.rank, axis);
  GiltValue *steps = lower_operand(l, 4);
  for (int64_t k = 0; k < n; k++) {
    GiltValue *step = steps ? lower_load_index(l, steps, k) : lower_index(l, 1);
    GiltValue *s = lower_load_index(l, lower_operand(l, 1), k);
    GiltValue *e = lower_load_index(l, lower_operand(l, 2), k);
    for (size_t d = 0; d < w.rank; d++)
      slice_axis(l, &w, d, names(l, axis[k], d), s, e, step);
  }
  return emit_window(l, &w);
}

/* ---- Pad and CenterCropPad ----------------------------------------------------- */

static bool pad_mode(Lower *l, PadMode *mode)
{
  static const char *const names[] = {"constant", "reflect", "edge", "wrap"};
  const char *m = graph_attr_string(l->op, "mode", "constant");
  for (size_t i = 0; i < 4; i++)
    if (strcmp(m, names[i]) == 0) {
      *mode = (PadMode)i;
      return true;
    }
  lower_error(l, "pad mode '%s' is unknown", m);
  return false;
}

/* Pads dimension d by `before` and `after` (negative ones crop) where
** `on` holds. */
static void pad_axis(Lower *l, Window *w, size_t d, GiltValue *on,
                     GiltValue *before, GiltValue *after)
{
  GiltValue *size = ix_add_size(l, ix_add_size(l, w->dims[d], before), after);
  w->start[d] = lower_select(l, on, ix_sub(l, lower_index(l, 0), before),
                             w->start[d]);
  w->dims[d] = lower_select(l, on, size, w->dims[d]);
}

static GiltStatus lower_pad(Lower *l)
{
  Window w;
  init_window(l, &w, lower_operand(l, 0));
  if (!pad_mode(l, &w.mode))
    return GILT_FAILURE;
  GiltValue *pads = lower_operand(l, 1), *value = lower_operand(l, 2);
  int64_t len = lower_static_length(pads);
  GiltValue *axis[GRAPH_MAX_RANK];
  if (len < 0 || len % 2 || len / 2 > (int64_t)w.rank)
    return lower_error(l, "'pads' must have a static even length");
  size_t n = (size_t)len / 2;
  read_axes(l, 3, n, w.rank, axis);
  GiltType *elem = lower_operand_elem(l, 0);
  w.value = value ? lower_load_first(l, value) : lower_constant(l, elem, 0);
  for (size_t k = 0; k < n; k++) {
    GiltValue *before = lower_load_index(l, pads, (int64_t)k);
    GiltValue *after = lower_load_index(l, pads, (int64_t)(k + n));
    for (size_t d = 0; d < w.rank; d++)
      pad_axis(l, &w, d, names(l, axis[k], d), before, after);
  }
  return emit_window(l, &w);
}

static GiltStatus lower_center_crop_pad(Lower *l)
{
  Window w;
  init_window(l, &w, lower_operand(l, 0));
  w.value = lower_constant(l, lower_operand_elem(l, 0), 0);
  GiltValue *shape = lower_operand(l, 1);
  int64_t axes[GRAPH_MAX_RANK];
  size_t n = (size_t)lower_static_length(shape), count;
  if (!graph_attr_ints(l->op, "axes", axes, GRAPH_MAX_RANK, &count)) {
    count = n;
    for (size_t k = 0; k < n; k++)
      axes[k] = (int64_t)k;
  }
  if (count != n || n > w.rank)
    return lower_error(l, "'shape' does not give one size per axis");
  for (size_t k = 0; k < n; k++) {
    size_t d;
    if (!lower_axis(l, axes[k], w.rank, &d))
      return GILT_FAILURE;
    GiltValue *to = lower_load_index(l, shape, (int64_t)k);
    GiltValue *two = lower_index(l, 2), *from = w.dims[d];
    /* crop by (from - to) / 2 before, or pad by (to - from) / 2 */
    GiltValue *crop = ix_div(l, ix_sub(l, from, to), two);
    GiltValue *pad = ix_div(l, ix_sub(l, to, from), two);
    GiltValue *grows = lower_cmp(l, "sgt", to, from);
    w.start[d] = lower_select(l, grows, ix_sub(l, lower_index(l, 0), pad), crop);
    w.dims[d] = to;
  }
  return emit_window(l, &w);
}

const GraphLoweringRow graph_lower_slice[] = {
    {GRAPH_OP_SLICE, {lower_slice}},
    {GRAPH_OP_PAD, {lower_pad}},
    {GRAPH_OP_CENTER_CROP_PAD, {lower_center_crop_pad}},
    {0, {NULL}},
};
