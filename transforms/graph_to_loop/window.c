/*
** window.c - the window of a Conv-like or pooling op as the lowerings
** need it: the attributes with ONNX's defaults, and per spatial axis the
** input size, the output size, the padding before the first element
** (what auto_pad SAME_UPPER / SAME_LOWER implies, computed at run time
** when the input size is dynamic) and the extent of a padded copy of the
** input that every window reads inside; and the outputs whose windows
** lie wholly inside the input (the depthwise nests read it unguarded
** there). dialects/graph/conv.c checks the
** attributes and infers the static sizes; this file only reads them (the
** verifier has run) and turns the formulas into index arithmetic, which
** folds to constants for static shapes.
*/
#include "transforms/graph_to_loop/indexing.h"

#include <string.h>

void lower_window_attr(Lower *l, const char *name, size_t n, int64_t def,
                       int64_t *out)
{
  size_t got = 0;
  if (!graph_attr_ints(l->op, name, out, n, &got) || got != n)
    for (size_t i = 0; i < n; i++)
      out[i] = def;
}

/* The output size of axis i from the formulas in dialects/graph/conv.c;
** `known` when the result type has it. */
static GiltValue *out_size(Lower *l, LowerWindow *w, size_t i, int64_t known)
{
  if (known != GILT_DYNAMIC)
    return lower_index(l, known);
  GiltValue *s = lower_index(l, w->strides[i]), *ek = lower_index(l, w->ek[i]);
  if (w->same)
    return lower_binary(l, LOOP_OP_CEILDIVSI, w->in[i], s);
  GiltValue *span = ix_sub(l, w->in[i], ek);
  if (!w->valid)
    span = ix_add(l, span, lower_index(l, w->pads[i] + w->pads[w->n + i]));
  LoopOpId div = w->ceil_mode ? LOOP_OP_CEILDIVSI : LOOP_OP_FLOORDIVSI;
  GiltValue *windows = lower_binary(l, div, span, s);
  GiltValue *out = ix_add(l, windows, lower_index(l, 1));
  if (!w->ceil_mode || w->valid)
    return out;
  /* A last window starting inside the end padding is dropped. */
  GiltValue *last = ix_sub(l, out, lower_index(l, 1));
  GiltValue *start = ix_mul(l, last, s);
  GiltValue *end = ix_add(l, w->in[i], lower_index(l, w->pads[i]));
  GiltValue *dropped = lower_cmp(l, "sge", start, end);
  return lower_select(l, dropped, last, out);
}

/* (out - 1) * stride + ek along axis i: where the last window ends. */
static GiltValue *reach(Lower *l, LowerWindow *w, size_t i)
{
  GiltValue *last = ix_sub(l, w->out[i], lower_index(l, 1));
  GiltValue *last_start = ix_mul(l, last, lower_index(l, w->strides[i]));
  return ix_add(l, last_start, lower_index(l, w->ek[i]));
}

/* The total padding SAME_* adds along axis i: max(0, reach - in). */
static GiltValue *same_total(Lower *l, LowerWindow *w, size_t i)
{
  GiltValue *total = ix_sub(l, reach(l, w, i), w->in[i]);
  return ix_max(l, total, lower_index(l, 0));
}

/* The padding before axis i: SAME_* pads its total evenly, the odd one at
** the end (UPPER) or the beginning (LOWER). */
static GiltValue *pad_begin(Lower *l, LowerWindow *w, size_t i)
{
  if (w->valid)
    return lower_index(l, 0);
  if (!w->same)
    return lower_index(l, w->pads[i]);
  GiltValue *total = same_total(l, w, i);
  return lower_binary(l, w->same_lower ? LOOP_OP_CEILDIVSI : LOOP_OP_DIVSI,
                      total, lower_index(l, 2));
}

/* The padding after axis i: what remains of SAME's total, the attribute
** otherwise (ceil_mode's last window may reach past it). */
static GiltValue *pad_end(Lower *l, LowerWindow *w, size_t i)
{
  if (w->valid)
    return lower_index(l, 0);
  if (!w->same)
    return lower_index(l, w->pads[w->n + i]);
  return ix_sub(l, same_total(l, w, i), w->begin[i]);
}

void lower_window_read(Lower *l, GiltValue *x, size_t n,
                       const int64_t *kernel, LowerWindow *w)
{
  GiltType *yt = lower_result_type(l, 0);
  memset(w, 0, sizeof *w);
  w->n = n;
  const char *pad = graph_attr_string(l->op, "auto_pad", "NOTSET");
  w->same = !strncmp(pad, "SAME_", 5);
  w->same_lower = !strcmp(pad, "SAME_LOWER");
  w->valid = !strcmp(pad, "VALID");
  w->ceil_mode = graph_attr_int(l->op, "ceil_mode", 0) != 0;
  if (kernel)
    memcpy(w->kernel, kernel, w->n * sizeof *kernel);
  else
    lower_window_attr(l, "kernel_shape", w->n, 1, w->kernel);
  lower_window_attr(l, "strides", w->n, 1, w->strides);
  lower_window_attr(l, "dilations", w->n, 1, w->dilations);
  lower_window_attr(l, "pads", 2 * w->n, 0, w->pads);
  for (size_t i = 0; i < w->n; i++) {
    w->ek[i] = (w->kernel[i] - 1) * w->dilations[i] + 1;
    w->in[i] = lower_dim(l, x, 2 + i);
    w->out[i] = out_size(l, w, i, yt->shaped.shape[2 + i]);
    w->begin[i] = pad_begin(l, w, i);
    w->end[i] = pad_end(l, w, i);
    GiltValue *last_end = reach(l, w, i);
    GiltValue *padded_in = ix_add(l, w->begin[i], w->in[i]);
    w->extent[i] = ix_max(l, last_end, padded_in);
  }
}

GiltValue *lower_window_first_inside(Lower *l, const LowerWindow *w, size_t i)
{
  GiltValue *s = lower_index(l, w->strides[i]);
  GiltValue *first = lower_binary(l, LOOP_OP_CEILDIVSI, w->begin[i], s);
  return ix_min(l, first, w->out[i]);
}

GiltValue *lower_window_end_inside(Lower *l, const LowerWindow *w, size_t i,
                                   GiltValue *size, int64_t reach,
                                   GiltValue *lo)
{
  GiltValue *s = lower_index(l, w->strides[i]);
  GiltValue *padded = ix_add(l, size, w->begin[i]);
  GiltValue *room = ix_sub(l, padded, lower_index(l, reach));
  GiltValue *last = lower_binary(l, LOOP_OP_FLOORDIVSI, room, s);
  GiltValue *end = ix_add(l, last, lower_index(l, 1));
  return ix_max(l, ix_min(l, end, w->out[i]), lo);
}
