/*
** resize.c - lowering of Resize: modes nearest (four rounding rules),
** linear and cubic (cubic_coeff_a, exclude_outside), with the coordinate
** transformations half_pixel, pytorch_half_pixel, align_corners,
** asymmetric, tf_half_pixel_for_nn and tf_crop_and_resize (roi and
** extrapolation_value), from scales or sizes given at run time.
**
** Each result element maps back to a real coordinate per axis, computed
** in f64 as ONNX's reference does; the axis contributes one tap
** (nearest), two (linear) or four (cubic) with weights, taps outside the
** input clamped to its edge, and the element is the weighted sum over
** every combination of the axes' taps. Axes of size 1 in and out are
** passed through: any interpolation of one value gives it back.
** Not lowered (reported): antialias, the axes attribute, a
** keep_aspect_ratio_policy other than stretch, half_pixel_symmetric.
*/
#include "transforms/graph_to_loop/indexing.h"

#include <string.h>

enum { MAX_TAPS = 4 };

typedef struct Resize {
  GiltValue *in;
  size_t rank;
  const char *mode, *coord, *nearest;
  double cubic_a;
  bool exclude_outside, crop;
  GiltValue *extrapolation; /* the result element type's */
  GiltValue *scale[GRAPH_MAX_RANK], *in_dim[GRAPH_MAX_RANK];
  GiltValue *out_dim[GRAPH_MAX_RANK];             /* index */
  GiltValue *roi_start[GRAPH_MAX_RANK], *roi_end[GRAPH_MAX_RANK]; /* f64 */
  bool identity[GRAPH_MAX_RANK];
} Resize;

/* One axis' taps for the current element: indices and weights (f64). */
typedef struct Taps {
  size_t n;
  GiltValue *index[MAX_TAPS], *weight[MAX_TAPS];
} Taps;

static GiltValue *index_to_f64(Lower *l, GiltValue *v)
{
  GiltValue *i = lower_emit(l, LOOP_OP_INDEX_CAST, lower_i64_type(l), 1, &v);
  return lower_convert(l, i, lower_f64_type(l));
}

static GiltValue *f64_to_index(Lower *l, GiltValue *v)
{
  GiltValue *i = lower_convert(l, v, gilt_integer_type_get(l->ctx, 64,
                                                           GILT_SIGNLESS));
  return lower_emit(l, LOOP_OP_INDEX_CAST, lower_index_type(l), 1, &i);
}

#define F(op, a, b) lower_binary(l, LOOP_OP_##op, (a), (b))

/* ---- coordinates ---------------------------------------------------------------- */

/* The input coordinate result index iv maps to along axis d. The result's
** length in these formulas is in * scale, unrounded, as in ONNX's
** reference (align_corners downsampling by 0.6 differs from using the
** floored size). */
static GiltValue *source_coordinate(Lower *l, Resize *r, size_t d,
                                    GiltValue *iv)
{
  GiltValue *x = index_to_f64(l, iv), *s = r->scale[d];
  GiltValue *in = index_to_f64(l, r->in_dim[d]);
  GiltValue *out = F(MULF, in, s);
  GiltValue *half = lower_f64(l, 0.5), *one = lower_f64(l, 1),
            *zero = lower_f64(l, 0);
  GiltValue *centered = F(SUBF, F(DIVF, F(ADDF, x, half), s), half);
  if (strcmp(r->coord, "half_pixel") == 0)
    return centered;
  if (strcmp(r->coord, "pytorch_half_pixel") == 0)
    return lower_select(l, lower_cmp(l, "ogt", out, one), centered, zero);
  if (strcmp(r->coord, "asymmetric") == 0)
    return F(DIVF, x, s);
  if (strcmp(r->coord, "tf_half_pixel_for_nn") == 0)
    return F(DIVF, F(ADDF, x, half), s);
  GiltValue *span = F(SUBF, in, one), *steps = F(SUBF, out, one);
  GiltValue *single = lower_cmp(l, "oeq", out, one);
  if (strcmp(r->coord, "align_corners") == 0)
    return lower_select(l, single, zero, F(DIVF, F(MULF, x, span), steps));
  /* tf_crop_and_resize */
  GiltValue *start = r->roi_start[d], *width = F(SUBF, r->roi_end[d], start);
  GiltValue *first = F(MULF, start, span);
  GiltValue *offset = F(DIVF, F(MULF, F(MULF, x, width), span), steps);
  GiltValue *many = F(ADDF, first, offset);
  GiltValue *mid = F(MULF, F(MULF, half, F(ADDF, start, r->roi_end[d])), span);
  return lower_select(l, single, mid, many);
}

/* ---- taps ------------------------------------------------------------------------ */

static GiltValue *clamp_index(Lower *l, Resize *r, size_t d, GiltValue *i)
{
  return ix_clamp_into(l, i, r->in_dim[d], NULL);
}

static void nearest_taps(Lower *l, Resize *r, size_t d, GiltValue *x, Taps *t)
{
  GiltValue *fl = lower_unary(l, LOOP_OP_FLOOR, x), *v;
  GiltValue *is_half = lower_cmp(l, "oeq", x, F(ADDF, fl, lower_f64(l, 0.5)));
  if (strcmp(r->nearest, "floor") == 0)
    v = fl;
  else if (strcmp(r->nearest, "ceil") == 0)
    v = lower_unary(l, LOOP_OP_CEIL, x);
  else if (strcmp(r->nearest, "round_prefer_ceil") == 0) {
    GiltValue *up = lower_unary(l, LOOP_OP_CEIL, x);
    v = lower_select(l, is_half, up, lower_unary(l, LOOP_OP_ROUND, x));
  } else {
    v = lower_select(l, is_half, fl, lower_unary(l, LOOP_OP_ROUND, x));
  }
  t->n = 1;
  t->index[0] = clamp_index(l, r, d, f64_to_index(l, v));
  t->weight[0] = lower_f64(l, 1);
}

static void linear_taps(Lower *l, Resize *r, size_t d, GiltValue *x, Taps *t)
{
  GiltValue *fl = lower_unary(l, LOOP_OP_FLOOR, x);
  GiltValue *w = F(SUBF, x, fl), *i0 = f64_to_index(l, fl);
  t->n = 2;
  t->index[0] = clamp_index(l, r, d, i0);
  t->index[1] = clamp_index(l, r, d, ix_add(l, i0, lower_index(l, 1)));
  t->weight[0] = F(SUBF, lower_f64(l, 1), w);
  t->weight[1] = w;
}

/* Keys' cubic convolution weight for a tap at distance s (|s| <= 2). */
static GiltValue *cubic_weight(Lower *l, double a, GiltValue *s)
{
  GiltValue *s2 = F(MULF, s, s), *s3 = F(MULF, s2, s);
  /* near: (A + 2) s^3 - (A + 3) s^2 + 1 */
  GiltValue *near = F(MULF, lower_f64(l, a + 2), s3);
  near = F(SUBF, near, F(MULF, lower_f64(l, a + 3), s2));
  near = F(ADDF, near, lower_f64(l, 1));
  /* far: A s^3 - 5A s^2 + 8A s - 4A */
  GiltValue *far = F(MULF, lower_f64(l, a), s3);
  far = F(SUBF, far, F(MULF, lower_f64(l, 5 * a), s2));
  far = F(ADDF, far, F(MULF, lower_f64(l, 8 * a), s));
  far = F(SUBF, far, lower_f64(l, 4 * a));
  GiltValue *is_near = lower_cmp(l, "ole", s, lower_f64(l, 1));
  return lower_select(l, is_near, near, far);
}

static void cubic_taps(Lower *l, Resize *r, size_t d, GiltValue *x, Taps *t)
{
  GiltValue *fl = lower_unary(l, LOOP_OP_FLOOR, x);
  GiltValue *frac = F(SUBF, x, fl), *i0 = f64_to_index(l, fl);
  GiltValue *sum = lower_f64(l, 0);
  t->n = 4;
  for (int k = 0; k < 4; k++) {
    GiltValue *s =
        lower_unary(l, LOOP_OP_ABSF, F(SUBF, frac, lower_f64(l, k - 1)));
    GiltValue *i = ix_add(l, i0, lower_index(l, k - 1));
    GiltValue *w = cubic_weight(l, r->cubic_a, s);
    if (r->exclude_outside) {
      GiltValue *zero = lower_index(l, 0);
      GiltValue *inside = ix_in_range(l, i, zero, r->in_dim[d]);
      w = lower_select(l, inside, w, lower_f64(l, 0));
    }
    sum = F(ADDF, sum, w);
    t->index[k] = clamp_index(l, r, d, i);
    t->weight[k] = w;
  }
  if (r->exclude_outside)
    for (int k = 0; k < 4; k++)
      t->weight[k] = F(DIVF, t->weight[k], sum);
}

/* ---- the element ------------------------------------------------------------------ */

typedef struct Element {
  Resize *r;
  Taps taps[GRAPH_MAX_RANK];
} Element;

/* The weighted sum over every combination of the axes' taps from axis d
** on, idx[0..d) chosen, weight their product so far. */
static GiltValue *combine_taps(Lower *l, Element *e, size_t d,
                               GiltValue **idx, GiltValue *weight)
{
  if (d == e->r->rank) {
    GiltValue *v =
        lower_convert(l, lower_load(l, e->r->in, idx), lower_f64_type(l));
    return F(MULF, v, weight);
  }
  GiltValue *sum = NULL;
  for (size_t k = 0; k < e->taps[d].n; k++) {
    idx[d] = e->taps[d].index[k];
    GiltValue *w = F(MULF, weight, e->taps[d].weight[k]);
    GiltValue *part = combine_taps(l, e, d + 1, idx, w);
    sum = sum ? F(ADDF, sum, part) : part;
  }
  return sum;
}

static GiltValue *resized_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Element e = {.r = user};
  Resize *r = e.r;
  GiltValue *outside = lower_int_constant(l, lower_i1_type(l), 0);
  for (size_t d = 0; d < r->rank; d++) {
    Taps *t = &e.taps[d];
    if (r->identity[d]) {
      *t = (Taps){1, {ivs[d]}, {lower_f64(l, 1)}};
      continue;
    }
    GiltValue *x = source_coordinate(l, r, d, ivs[d]);
    GiltValue *last = index_to_f64(l, ix_sub(l, r->in_dim[d], lower_index(l, 1)));
    GiltValue *below = lower_cmp(l, "olt", x, lower_f64(l, 0));
    GiltValue *above = lower_cmp(l, "ogt", x, last);
    outside = F(ORI, outside, F(ORI, below, above));
    if (r->mode[0] == 'n')
      nearest_taps(l, r, d, x, t);
    else if (r->mode[0] == 'l')
      linear_taps(l, r, d, x, t);
    else
      cubic_taps(l, r, d, x, t);
  }
  GiltValue *idx[GRAPH_MAX_RANK];
  GiltValue *v = combine_taps(l, &e, 0, idx, lower_f64(l, 1));
  v = lower_convert(l, v, lower_result_elem(l, 0));
  return r->crop ? lower_select(l, outside, r->extrapolation, v) : v;
}

/* ---- sizes and attributes ---------------------------------------------------------- */

static GiltValue *load_f64(Lower *l, GiltValue *buf, int64_t k)
{
  GiltValue *at = lower_index(l, k);
  return lower_convert(l, lower_load(l, buf, &at), lower_f64_type(l));
}

/* Scales and output sizes per axis, from whichever operand is given. */
static GiltStatus read_sizes(Lower *l, Resize *r)
{
  GiltValue *scales = lower_operand(l, 2), *sizes = lower_operand(l, 3);
  GiltValue *given = sizes ? sizes : scales;
  if (!given || lower_static_length(given) != (int64_t)r->rank)
    return lower_error(l, "needs scales or sizes for every axis");
  for (size_t d = 0; d < r->rank; d++) {
    GiltValue *in = index_to_f64(l, r->in_dim[d]);
    if (sizes) {
      r->out_dim[d] = lower_load_index(l, sizes, (int64_t)d);
      r->scale[d] = F(DIVF, index_to_f64(l, r->out_dim[d]), in);
    } else {
      r->scale[d] = load_f64(l, scales, (int64_t)d);
      r->out_dim[d] = f64_to_index(l, lower_unary(l, LOOP_OP_FLOOR,
                                                  F(MULF, in, r->scale[d])));
    }
  }
  return GILT_SUCCESS;
}

static GiltStatus read_attrs(Lower *l, Resize *r)
{
  r->mode = graph_attr_string(l->op, "mode", "nearest");
  r->coord = graph_attr_string(l->op, "coordinate_transformation_mode",
                               "half_pixel");
  r->nearest = graph_attr_string(l->op, "nearest_mode", "round_prefer_floor");
  r->cubic_a = graph_attr_float(l->op, "cubic_coeff_a", -0.75);
  r->exclude_outside = graph_attr_int(l->op, "exclude_outside", 0) != 0;
  r->crop = strcmp(r->coord, "tf_crop_and_resize") == 0;
  if (graph_attr_int(l->op, "antialias", 0))
    return lower_error(l, "antialias is not supported");
  if (gilt_op_get_attr(l->op, "axes"))
    return lower_error(l, "the axes attribute is not supported");
  if (strcmp(graph_attr_string(l->op, "keep_aspect_ratio_policy", "stretch"),
             "stretch") != 0)
    return lower_error(l, "keep_aspect_ratio_policy other than stretch is "
                          "not supported");
  if (strcmp(r->coord, "half_pixel_symmetric") == 0)
    return lower_error(l, "half_pixel_symmetric is not supported");
  return GILT_SUCCESS;
}

static GiltStatus lower_resize(Lower *l)
{
  Resize r = {.in = lower_operand(l, 0)};
  GiltType *t = gilt_value_get_type(r.in), *out_t = lower_result_type(l, 0);
  r.rank = t->shaped.rank;
  if (read_attrs(l, &r))
    return GILT_FAILURE;
  lower_dims(l, r.in, r.in_dim);
  if (read_sizes(l, &r))
    return GILT_FAILURE;
  GiltValue *roi = lower_operand(l, 1);
  if (r.crop && (!roi || lower_static_length(roi) != 2 * (int64_t)r.rank))
    return lower_error(l, "tf_crop_and_resize needs a roi for every axis");
  for (size_t d = 0; d < r.rank; d++) {
    r.identity[d] = !r.crop && t->shaped.shape[d] == 1 &&
                    out_t->shaped.shape[d] == 1;
    if (r.crop) {
      r.roi_start[d] = load_f64(l, roi, (int64_t)d);
      r.roi_end[d] = load_f64(l, roi, (int64_t)(d + r.rank));
    }
  }
  r.extrapolation = lower_constant(
      l, lower_result_elem(l, 0),
      graph_attr_float(l->op, "extrapolation_value", 0));
  GiltValue *out = lower_generate(l, 0, r.out_dim, resized_element, &r);
  return lower_replace(l, &out);
}

#undef F

const GraphLoweringRow graph_lower_resize[] = {
    {GRAPH_OP_RESIZE, {lower_resize}},
    {0, {NULL}},
};
