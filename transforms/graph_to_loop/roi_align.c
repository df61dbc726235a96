/*
** roi_align.c - lowering of RoiAlign (modes avg and max; coordinate
** transformation half_pixel or output_half_pixel; sampling_ratio 0 for
** the adaptive grid), as ONNX Runtime's kernel computes it in the element
** type, which the ONNX reference copies.
**
** Each output bin of each region averages (or takes the maximum of) a
** grid of bilinear samples; a sample outside [-1, size] reads 0, one
** below 0 reads the border. Max mode takes the maximum of the four
** weighted corners of each sample, ONNX Runtime's reading of the
** specification, rather than of the interpolated values. The sample grid
** of the adaptive mode depends on the region, so the loops over it are
** loop.for with run-time bounds inside the parallel nest over the output.
*/
#include "transforms/graph_to_loop/lowering.h"

#include <math.h>
#include <string.h>

typedef struct RoiAlign {
  GiltValue *x, *rois, *batch_indices, *out;
  bool max_mode;
  GiltValue *height, *width;   /* X's, in the element type */
  GiltValue *h_index, *w_index; /* the same as index */
  /* Of the region and bin being computed: */
  GiltValue *batch, *channel;
  GiltValue *y0, *x0;          /* the bin's first corner */
  GiltValue *bin_y, *bin_x;    /* the bin's size */
  GiltValue *n_y, *n_x;        /* its samples, in the element type */
  GiltValue *grid_w;
  GiltValue *y;                /* the sample row's coordinate */
} RoiAlign;

static GiltValue *fc(Lower *l, GiltValue *like, double v)
{
  return lower_constant(l, gilt_value_get_type(like), v);
}

static GiltValue *fmax2(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_select(l, lower_cmp(l, "olt", a, b), b, a);
}

/* The low and high pixel of a sample coordinate and the weight of the
** high one, clamped as ONNX Runtime's bilinear precalculation does. */
static void corner(Lower *l, GiltValue *v, GiltValue *size_index,
                   GiltValue **low, GiltValue **high, GiltValue **frac)
{
  GiltValue *zero = fc(l, v, 0);
  v = lower_select(l, lower_cmp(l, "ole", v, zero), zero, v);
  GiltValue *i = lower_convert(l, v, lower_index_type(l));
  GiltValue *last = lower_minus(l, size_index, lower_index(l, 1));
  GiltValue *at_end = lower_cmp(l, "sge", i, last);
  *low = lower_select(l, at_end, last, i);
  *high = lower_select(l, at_end, last, lower_plus(l, i, lower_index(l, 1)));
  GiltValue *fv = lower_select(l, at_end,
                               lower_convert(l, last, gilt_value_get_type(v)),
                               v);
  *frac = lower_minus(l, fv, lower_convert(l, *low, gilt_value_get_type(v)));
}

/* One sample: the bilinear value (avg) or the largest weighted corner
** (max); 0 outside [-1, size]. */
static GiltValue *sample(Lower *l, RoiAlign *r, GiltValue *y, GiltValue *x)
{
  GiltValue *outside = lower_cmp(l, "olt", y, fc(l, y, -1));
  outside = lower_binary(l, LOOP_OP_ORI, outside,
                         lower_cmp(l, "ogt", y, r->height));
  outside = lower_binary(l, LOOP_OP_ORI, outside,
                         lower_cmp(l, "olt", x, fc(l, x, -1)));
  outside = lower_binary(l, LOOP_OP_ORI, outside,
                         lower_cmp(l, "ogt", x, r->width));
  GiltValue *ylo, *yhi, *ly, *xlo, *xhi, *lx;
  corner(l, y, r->h_index, &ylo, &yhi, &ly);
  corner(l, x, r->w_index, &xlo, &xhi, &lx);
  GiltValue *hy = lower_minus(l, fc(l, ly, 1), ly);
  GiltValue *hx = lower_minus(l, fc(l, lx, 1), lx);
  GiltValue *ys[2] = {ylo, yhi}, *xs[2] = {xlo, xhi};
  GiltValue *wy[2] = {hy, ly}, *wx[2] = {hx, lx};
  GiltValue *v = NULL;
  for (int k = 0; k < 4; k++) {
    GiltValue *at[4] = {r->batch, r->channel, ys[k / 2], xs[k % 2]};
    GiltValue *w = lower_times(l, wy[k / 2], wx[k % 2]);
    GiltValue *term = lower_times(l, w, lower_load(l, r->x, at));
    v = !v ? term : r->max_mode ? fmax2(l, v, term) : lower_plus(l, v, term);
  }
  return lower_select(l, outside, fc(l, v, 0), v);
}

/* Offset i of a grid of n samples across a bin: (i + 0.5) * bin / n. */
static GiltValue *sample_offset(Lower *l, GiltValue *i, GiltValue *bin,
                                GiltValue *n)
{
  GiltValue *fi = lower_convert(l, i, gilt_value_get_type(bin));
  return lower_binary(l, LOOP_OP_DIVF,
                      lower_times(l, lower_plus(l, fi, fc(l, fi, 0.5)), bin),
                      n);
}

static void sample_column(Lower *l, GiltValue *ix, GiltValue *const *acc,
                          GiltValue **next, void *user)
{
  RoiAlign *r = user;
  GiltValue *x = lower_plus(l, r->x0, sample_offset(l, ix, r->bin_x, r->n_x));
  GiltValue *v = sample(l, r, r->y, x);
  next[0] = r->max_mode ? fmax2(l, acc[0], v) : lower_plus(l, acc[0], v);
}

static void sample_row(Lower *l, GiltValue *iy, GiltValue *const *acc,
                       GiltValue **next, void *user)
{
  RoiAlign *r = user;
  r->y = lower_plus(l, r->y0, sample_offset(l, iy, r->bin_y, r->n_y));
  lower_for(l, lower_index(l, 0), r->grid_w, lower_index(l, 1), 1, acc, next,
            sample_column, r);
}

/* The region's corner and size along one axis (k: 0 for x, 1 for y). */
static void region_axis(Lower *l, RoiAlign *r, GiltValue *roi, size_t k,
                        GiltValue **start, GiltValue **extent)
{
  GiltValue *scale = lower_constant(l, lower_operand_elem(l, 1),
                                    graph_attr_float(l->op, "spatial_scale",
                                                     1));
  bool half = strcmp(graph_attr_string(l->op, "coordinate_transformation_mode",
                                       "half_pixel"), "half_pixel") == 0;
  GiltValue *at[2] = {roi, lower_index(l, (int64_t)k)};
  GiltValue *offset = fc(l, scale, half ? 0.5 : 0);
  *start = lower_minus(l, lower_times(l, lower_load(l, r->rois, at), scale),
                       offset);
  at[1] = lower_index(l, (int64_t)k + 2);
  GiltValue *end = lower_minus(
      l, lower_times(l, lower_load(l, r->rois, at), scale), offset);
  *extent = lower_minus(l, end, *start);
  if (!half)
    *extent = fmax2(l, *extent, fc(l, *extent, 1));
}

/* The bin's first corner, its size and its sample count (in the element
** type, and returned as index) along one axis, for output position p of
** `pooled`. */
static GiltValue *bin_axis(Lower *l, GiltValue *start, GiltValue *extent,
                           GiltValue *p, int64_t pooled, GiltValue **first,
                           GiltValue **size, GiltValue **count)
{
  int64_t ratio = graph_attr_int(l->op, "sampling_ratio", 0);
  GiltValue *bin = lower_binary(l, LOOP_OP_DIVF, extent,
                                fc(l, extent, (double)pooled));
  GiltValue *n = ratio > 0 ? lower_index(l, ratio)
                           : lower_convert(l, lower_unary(l, LOOP_OP_CEIL, bin),
                                           lower_index_type(l));
  *first = lower_plus(l, start,
                      lower_times(l, lower_convert(l, p, gilt_value_get_type(bin)),
                                  bin));
  *size = bin;
  *count = lower_convert(l, n, gilt_value_get_type(bin));
  return n;
}

static void bin_body(Lower *l, GiltValue *const *ivs, void *user)
{
  RoiAlign *r = user;
  GiltValue *roi = ivs[0];
  r->channel = ivs[1];
  r->batch = lower_convert(l, lower_load(l, r->batch_indices, &roi),
                           lower_index_type(l));
  GiltValue *sx, *ex, *sy, *ey;
  region_axis(l, r, roi, 0, &sx, &ex);
  region_axis(l, r, roi, 1, &sy, &ey);
  GiltValue *grid_h =
      bin_axis(l, sy, ey, ivs[2], graph_attr_int(l->op, "output_height", 1),
               &r->y0, &r->bin_y, &r->n_y);
  r->grid_w =
      bin_axis(l, sx, ex, ivs[3], graph_attr_int(l->op, "output_width", 1),
               &r->x0, &r->bin_x, &r->n_x);
  GiltValue *init = fc(l, sx, r->max_mode ? -INFINITY : 0), *acc;
  lower_for(l, lower_index(l, 0), grid_h, lower_index(l, 1), 1, &init, &acc,
            sample_row, r);
  GiltValue *count = lower_times(l, grid_h, r->grid_w);
  GiltValue *none = lower_cmp(l, "eq", count, lower_index(l, 0));
  GiltValue *v = r->max_mode
                     ? acc
                     : lower_binary(l, LOOP_OP_DIVF, acc,
                                    lower_convert(l, count,
                                                  gilt_value_get_type(acc)));
  lower_store(l, lower_select(l, none, fc(l, acc, 0), v), r->out, ivs);
}

static GiltStatus lower_roi_align(Lower *l)
{
  RoiAlign r = {.x = lower_operand(l, 0),
                .rois = lower_operand(l, 1),
                .batch_indices = lower_operand(l, 2)};
  GiltType *t = lower_operand_elem(l, 0);
  if (t != lower_operand_elem(l, 1))
    return lower_error(l, "operands 'X' and 'rois' must have one element "
                          "type");
  r.max_mode = strcmp(graph_attr_string(l->op, "mode", "avg"), "max") == 0;
  r.h_index = lower_dim(l, r.x, 2);
  r.w_index = lower_dim(l, r.x, 3);
  r.height = lower_convert(l, r.h_index, t);
  r.width = lower_convert(l, r.w_index, t);
  GiltValue *dims[4] = {
      lower_dim(l, r.rois, 0), lower_dim(l, r.x, 1),
      lower_index(l, graph_attr_int(l->op, "output_height", 1)),
      lower_index(l, graph_attr_int(l->op, "output_width", 1))};
  r.out = lower_alloc_result(l, 0, dims);
  lower_parallel(l, 4, dims, bin_body, &r);
  return lower_replace(l, &r.out);
}

const GraphLoweringRow graph_lower_roi[] = {
    {GRAPH_OP_ROI_ALIGN, {lower_roi_align}},
    {0, {NULL}},
};
