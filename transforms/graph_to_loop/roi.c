/*
** roi.c - lowering of RoiAlign and MaxRoiPool, the poolings of regions of
** interest: each box of `rois`, on the image its batch index names, is
** cut into output_height x output_width bins, each bin pooled per
** channel. Both follow ONNX Runtime step by step, which the backend tests
** were made with.
**
** RoiAlign averages (or takes the largest of) bilinear samples on a grid
** of sampling_ratio^2 points per bin, ceil(bin size) per axis when the
** ratio is 0. A sample farther than one pixel outside the image weighs 0
** on pixel (0, 0); one nearer is clamped to the edge. The max mode is
** ONNX Runtime's: the largest of the four weighted taps of every sample,
** not of the interpolated values. output_half_pixel (RoiAlign-10's only
** mode) does not shift the box by half a pixel, and makes it at least one
** pixel wide. Coordinates are computed in the rois' type, f32 for f16 and
** bf16.
**
** MaxRoiPool rounds the box to whole pixels (half away from zero), makes
** it at least 1 x 1, and takes the largest element of each bin, whose
** float borders are floored and ceiled and clipped to the image; an empty
** bin is 0, a NaN is never taken.
**
** The nest: a loop.parallel over the boxes, where the box's geometry is
** computed once, around a loop.parallel over channels and bins, around
** loop.for loops over the bin's samples or pixels. A batch index outside
** the input stops the run.
*/
#include "transforms/graph_to_loop/indexing.h"

#include <float.h>
#include <string.h>

typedef struct Roi {
  GiltValue *x, *rois, *batch, *out;
  GiltType *t;                /* the coordinates' type */
  bool max, half_pixel;
  int64_t ratio;              /* RoiAlign's sampling_ratio, 0: adaptive */
  double scale;
  GiltValue *in[2], *bins[2]; /* the image's H, W; the bins per axis */
  /* The box being pooled: its batch index; per axis (y, x), where it
  ** starts, its bin size, and (RoiAlign) the samples per bin. */
  GiltValue *box, *b, *start[2], *bin[2], *grid[2], *count;
  GiltValue *const *ivs;      /* c, then the bin (y, x) */
  GiltValue *base[2];         /* where the bin starts */
  GiltValue *first;           /* RoiAlign: in the first row of samples */
  GiltValue *row;             /* MaxRoiPool: the row being read */
  GiltValue *low[2], *high[2], *wlow[2], *whigh[2], *inside[2]; /* taps */
} Roi;

static GiltValue *larger(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_select(l, lower_cmp(l, "olt", a, b), b, a); /* std::max */
}

/* Element k of box r of rois, in the coordinates' type. */
static GiltValue *box(Lower *l, Roi *r, GiltValue *row, int64_t k)
{
  GiltValue *at[2] = {row, lower_index(l, k)};
  return lower_convert(l, lower_load(l, r->rois, at), r->t);
}

static void check_batch(Lower *l, Roi *r)
{
  GiltValue *zero = lower_index(l, 0), *batch = lower_dim(l, r->x, 0);
  lower_assert(l, ix_in_range(l, r->b, zero, batch),
               "a batch index lies outside the input");
}

/* ---- RoiAlign ---------------------------------------------------------------- */

/* The two taps along axis a of a sample at v, clamped as ONNX Runtime's
** bilinear_interpolate does; r->inside[a] when v is no farther than one
** pixel outside. */
static void sample_taps(Lower *l, Roi *r, size_t a, GiltValue *v)
{
  GiltValue *zero = lower_constant(l, r->t, 0),
            *size = lower_convert(l, r->in[a], r->t);
  GiltValue *above = lower_cmp(l, "uge", v, lower_constant(l, r->t, -1));
  GiltValue *below = lower_cmp(l, "ule", v, size);
  r->inside[a] = lower_binary(l, LOOP_OP_ANDI, above, below);
  v = lower_select(l, lower_cmp(l, "ole", v, zero), zero, v);
  GiltValue *low = lower_convert(l, v, lower_index_type(l));
  GiltValue *last = ix_sub(l, r->in[a], lower_index(l, 1));
  GiltValue *at_end = lower_cmp(l, "sge", low, last);
  r->low[a] = lower_select(l, at_end, last, low);
  r->high[a] = lower_select(l, at_end, last, ix_add(l, low, lower_index(l, 1)));
  v = lower_select(l, at_end, lower_convert(l, last, r->t), v);
  r->wlow[a] = lower_minus(l, v, lower_convert(l, r->low[a], r->t));
  r->whigh[a] = lower_minus(l, lower_constant(l, r->t, 1), r->wlow[a]);
}

/* Where sample i of the bin lies along axis a:
** base + (i + 0.5) * bin / grid. */
static GiltValue *sample_at(Lower *l, Roi *r, size_t a, GiltValue *i)
{
  GiltValue *fi = lower_convert(l, i, r->t);
  GiltValue *half = lower_plus(l, fi, lower_constant(l, r->t, 0.5));
  GiltValue *scaled = lower_times(l, half, r->bin[a]);
  GiltValue *off =
      lower_binary(l, LOOP_OP_DIVF, scaled, lower_convert(l, r->grid[a], r->t));
  return lower_plus(l, r->base[a], off);
}

/* One sample: its four taps weighed, summed (avg) or the largest (max). */
static void sample_point(Lower *l, GiltValue *ix, GiltValue *const *acc,
                         GiltValue **next, void *user)
{
  Roi *r = user;
  sample_taps(l, r, 1, sample_at(l, r, 1, ix));
  GiltValue *inside = lower_binary(l, LOOP_OP_ANDI, r->inside[0], r->inside[1]);
  GiltValue *zero = lower_index(l, 0), *fzero = lower_constant(l, r->t, 0);
  GiltValue *ys[2] = {r->low[0], r->high[0]}, *xs[2] = {r->low[1], r->high[1]};
  GiltValue *wy[2] = {r->whigh[0], r->wlow[0]}, *wx[2] = {r->whigh[1], r->wlow[1]};
  GiltValue *sum = NULL, *best = acc[0];
  GiltValue *first = lower_binary(l, LOOP_OP_ANDI, r->first,
                                  lower_cmp(l, "eq", ix, zero));
  for (int k = 0; k < 4; k++) {
    GiltValue *at[4] = {r->b, r->ivs[0],
                        lower_select(l, inside, ys[k / 2], zero)};
    at[3] = lower_select(l, inside, xs[k % 2], zero);
    GiltValue *w = lower_select(l, inside, lower_times(l, wy[k / 2], wx[k % 2]),
                                fzero);
    GiltValue *v = lower_times(l, w, lower_convert(l, lower_load(l, r->x, at),
                                                   r->t));
    sum = sum ? lower_plus(l, sum, v) : v;
    best = k ? larger(l, best, v) : lower_select(l, first, v, larger(l, best, v));
  }
  next[0] = r->max ? best : lower_plus(l, acc[0], sum);
}

static void sample_row(Lower *l, GiltValue *iy, GiltValue *const *acc,
                       GiltValue **next, void *user)
{
  Roi *r = user;
  sample_taps(l, r, 0, sample_at(l, r, 0, iy));
  r->first = lower_cmp(l, "eq", iy, lower_index(l, 0));
  lower_for_upto(l, r->grid[1], 1, acc, next,
            sample_point, r);
}

static void align_bin(Lower *l, GiltValue *const *ivs, void *user)
{
  Roi *r = user;
  r->ivs = ivs;
  for (size_t a = 0; a < 2; a++)
    r->base[a] = lower_plus(l, r->start[a],
                            lower_times(l, lower_convert(l, ivs[1 + a], r->t),
                                        r->bin[a]));
  GiltValue *zero = lower_constant(l, r->t, 0), *v;
  lower_for_upto(l, r->grid[0], 1, &zero, &v,
            sample_row, r);
  if (!r->max)
    v = lower_binary(l, LOOP_OP_DIVF, v, r->count);
  GiltValue *at[4] = {r->box, ivs[0], ivs[1], ivs[2]};
  lower_store(l, lower_convert(l, v, lower_result_elem(l, 0)), r->out, at);
}

static void align_box(Lower *l, GiltValue *const *ivs, void *user)
{
  Roi *r = user;
  GiltValue *idx = r->box = ivs[0];
  r->b = lower_load_index_at(l, r->batch, &idx);
  check_batch(l, r);
  GiltValue *off = lower_constant(l, r->t, r->half_pixel ? 0.5 : 0);
  GiltValue *scale = lower_constant(l, r->t, r->scale);
  GiltValue *grids = lower_index(l, 1);
  for (size_t a = 0; a < 2; a++) { /* rois list x1, y1, x2, y2 */
    r->start[a] = lower_minus(l, lower_times(l, box(l, r, idx, 1 - a), scale),
                              off);
    GiltValue *end = lower_minus(l, lower_times(l, box(l, r, idx, 3 - a),
                                                scale), off);
    GiltValue *len = lower_minus(l, end, r->start[a]);
    if (!r->half_pixel)
      len = larger(l, len, lower_constant(l, r->t, 1));
    GiltValue *bins = lower_convert(l, r->bins[a], r->t);
    r->bin[a] = lower_binary(l, LOOP_OP_DIVF, len, bins);
    r->grid[a] = r->ratio > 0
                     ? lower_index(l, r->ratio)
                     : lower_convert(l, lower_unary(l, LOOP_OP_CEIL,
                                                    lower_binary(l, LOOP_OP_DIVF,
                                                                 len, bins)),
                                     lower_index_type(l));
    grids = ix_mul(l, grids, r->grid[a]);
  }
  r->count = lower_convert(l, ix_max(l, grids, lower_index(l, 1)), r->t);
  GiltValue *dims[3] = {lower_dim(l, r->x, 1), r->bins[0], r->bins[1]};
  lower_parallel(l, 3, dims, align_bin, r);
}

/* ---- MaxRoiPool ---------------------------------------------------------------- */

/* The lowest finite value of a float type: MaxRoiPool's start. */
static double lowest(GiltType *t)
{
  switch (gilt_float_type_get_kind(t)) {
  case GILT_F16: return -65504.0;
  case GILT_BF16: return -3.3895313892515355e38;
  case GILT_F64: return -DBL_MAX;
  default: return -FLT_MAX;
  }
}

static void pool_column(Lower *l, GiltValue *w, GiltValue *const *acc,
                        GiltValue **next, void *user)
{
  Roi *r = user;
  GiltValue *at[4] = {r->b, r->ivs[0], r->row, w};
  GiltValue *v = lower_load(l, r->x, at);
  next[0] = lower_select(l, lower_cmp(l, "ogt", v, acc[0]), v, acc[0]);
}

static void pool_row(Lower *l, GiltValue *h, GiltValue *const *acc,
                     GiltValue **next, void *user)
{
  Roi *r = user;
  r->row = h;
  lower_for(l, r->low[1], r->high[1], lower_index(l, 1), 1, acc, next,
            pool_column, r);
}

/* Bin i's border along axis a: floor(i * bin) or ceil((i + 1) * bin),
** shifted by the box's start and clipped to the image. */
static GiltValue *bin_border(Lower *l, Roi *r, size_t a, GiltValue *i,
                             bool end)
{
  GiltType *f32 = gilt_float_type_get(l->ctx, GILT_F32);
  GiltValue *at = end ? ix_add(l, i, lower_index(l, 1)) : i;
  GiltValue *p = lower_times(l, lower_convert(l, at, f32), r->bin[a]);
  p = lower_unary(l, end ? LOOP_OP_CEIL : LOOP_OP_FLOOR, p);
  GiltValue *v = ix_add(l, lower_convert(l, p, lower_index_type(l)),
                        r->start[a]);
  return ix_min(l, ix_max(l, v, lower_index(l, 0)), r->in[a]);
}

static void pool_bin(Lower *l, GiltValue *const *ivs, void *user)
{
  Roi *r = user;
  r->ivs = ivs;
  GiltValue *empty = lower_int_constant(l, lower_i1_type(l), 0);
  for (size_t a = 0; a < 2; a++) {
    r->low[a] = bin_border(l, r, a, ivs[1 + a], false);
    r->high[a] = bin_border(l, r, a, ivs[1 + a], true);
    empty = lower_binary(l, LOOP_OP_ORI, empty,
                         lower_cmp(l, "sle", r->high[a], r->low[a]));
  }
  GiltType *elem = lower_result_elem(l, 0);
  GiltValue *zero = lower_constant(l, elem, 0);
  GiltValue *init =
      lower_select(l, empty, zero, lower_constant(l, elem, lowest(elem)));
  GiltValue *v;
  lower_for(l, r->low[0], r->high[0], lower_index(l, 1), 1, &init, &v,
            pool_row, r);
  GiltValue *at[4] = {r->box, ivs[0], ivs[1], ivs[2]};
  lower_store(l, v, r->out, at);
}

static void pool_box(Lower *l, GiltValue *const *ivs, void *user)
{
  Roi *r = user;
  GiltValue *idx = r->box = ivs[0], *one = lower_index(l, 1);
  GiltType *f32 = gilt_float_type_get(l->ctx, GILT_F32);
  r->b = lower_convert(l, box(l, r, idx, 0), lower_index_type(l));
  check_batch(l, r);
  GiltValue *scale = lower_constant(l, r->t, r->scale);
  for (size_t a = 0; a < 2; a++) { /* rois list batch, x1, y1, x2, y2 */
    GiltValue *c[2];
    for (int e = 0; e < 2; e++)
      c[e] = lower_convert(
          l, lower_unary(l, LOOP_OP_ROUND,
                         lower_times(l, box(l, r, idx, 2 - (int64_t)a + 2 * e),
                                     scale)),
          lower_index_type(l));
    r->start[a] = c[0];
    GiltValue *len = ix_max(l, ix_add(l, ix_sub(l, c[1], c[0]), one), one);
    GiltValue *flen = lower_convert(l, len, f32);
    r->bin[a] =
        lower_binary(l, LOOP_OP_DIVF, flen, lower_convert(l, r->bins[a], f32));
  }
  GiltValue *dims[3] = {lower_dim(l, r->x, 1), r->bins[0], r->bins[1]};
  lower_parallel(l, 3, dims, pool_bin, r);
}

/* ---- the ops ------------------------------------------------------------------------ */

/* Reads the operands and allocates the result, [boxes, C, bins]. */
static GiltStatus roi_setup(Lower *l, Roi *r, const int64_t *bins)
{
  r->x = lower_operand(l, 0), r->rois = lower_operand(l, 1);
  r->batch = lower_operand(l, 2);
  int64_t fields = r->batch ? 4 : 5; /* MaxRoiPool's lead with the batch */
  int64_t given = gilt_value_get_type(r->rois)->shaped.shape[1];
  if (given != GILT_DYNAMIC && given != fields)
    return lower_error(l, "each box must have %lld numbers",
                       (long long)fields);
  if (given == GILT_DYNAMIC) {
    GiltValue *numbers = lower_dim(l, r->rois, 1);
    lower_assert(l, lower_cmp(l, "eq", numbers, lower_index(l, fields)),
                 "each box must have 4 numbers (5 for MaxRoiPool)");
  }
  r->scale = graph_attr_float(l->op, "spatial_scale", 1.0);
  GiltType *elem = lower_operand_elem(l, 1);
  if (!lower_is_float(elem))
    return lower_error(l, "the boxes must be floats");
  r->t = gilt_type_get_bit_width(elem) < 32
             ? gilt_float_type_get(l->ctx, GILT_F32)
             : elem;
  for (size_t a = 0; a < 2; a++) {
    if (bins[a] < 1)
      return lower_error(l, "the output must have at least one bin per "
                         "axis");
    r->in[a] = lower_dim(l, r->x, 2 + a);
    r->bins[a] = lower_index(l, bins[a]);
  }
  GiltValue *dims[4] = {lower_dim(l, r->rois, 0)};
  dims[1] = lower_dim(l, r->x, 1);
  dims[2] = r->bins[0], dims[3] = r->bins[1];
  r->out = lower_alloc_result(l, 0, dims);
  lower_parallel(l, 1, dims, r->batch ? align_box : pool_box, r);
  return lower_replace(l, &r->out);
}

static GiltStatus lower_roi_align(Lower *l)
{
  Roi r = {.ratio = graph_attr_int(l->op, "sampling_ratio", 0)};
  const char *mode = graph_attr_string(l->op, "mode", "avg");
  const char *ctm = graph_attr_string(l->op, "coordinate_transformation_mode",
                                      "half_pixel");
  r.max = !strcmp(mode, "max");
  r.half_pixel = !strcmp(ctm, "half_pixel");
  if ((!r.max && strcmp(mode, "avg")) ||
      (!r.half_pixel && strcmp(ctm, "output_half_pixel")))
    return lower_error(l, "unknown mode '%s' or coordinate mode '%s'", mode,
                       ctm);
  int64_t bins[2] = {graph_attr_int(l->op, "output_height", 1),
                     graph_attr_int(l->op, "output_width", 1)};
  return roi_setup(l, &r, bins);
}

static GiltStatus lower_max_roi_pool(Lower *l)
{
  Roi r = {.max = true};
  int64_t bins[2] = {0, 0};
  size_t n;
  if (!graph_attr_ints(l->op, "pooled_shape", bins, 2, &n) || n != 2)
    return lower_error(l, "pooled_shape must have two entries");
  return roi_setup(l, &r, bins);
}

const GraphLoweringRow graph_lower_roi[] = {
    {GRAPH_OP_ROI_ALIGN, {lower_roi_align}},
    {GRAPH_OP_MAX_ROI_POOL, {lower_max_roi_pool}},
    {0, {NULL}},
};
