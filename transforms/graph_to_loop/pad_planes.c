/*
** pad_planes.c - the padded, phase-split input that the convolutions
** through the tiles read (conv_tiled.c, conv_winograd.c, conv_first.c),
** and one channel's of it, which conv_depthwise_planes.c reads:
** planes[n, py * sw + px, c, i * pitch + j] = padded pixel
** (i * sh + py, j * sw + px) of channel c, zero in the padding and past
** the input.
**
** Every element of the planes is written once, by vectors, and no fill
** goes before: one parallel loop over the phase rows py of every channel
** (or, for one channel, a loop over its phase rows), each writing its
** planes' rows in order. A vector of 16 plane columns of phase px reads
** source columns c0 + k * sw + px (k < 16): the sw vectors of source
** pixels from c0 are loaded once, whole where all their pixels exist,
** else masked to those that do (those before the row, the padding, and
** those after it read as zero; a row of padding reads none), and each
** phase's 16 lanes are picked out of them by a chain of sw - 1 shuffles
** (the first takes the lanes that lie in vectors 0 and 1, each next one
** adds those of the next vector). At stride 1 that is one load and one
** store a vector. The masks of a range take AVX2 a dozen instructions a
** vector, most of the copy's where every vector was masked.
**
** The stores are not masked at the end of a row: the lanes past the
** pitch land on the next row's first columns, which its own first store
** writes afterwards, in the same iteration. Only the vectors that reach
** past the plane's length (the next channel's, another iteration's) are
** masked, and even they go whole where they can (lower_lanes_store). A
** masked store of 8 lanes takes a Zen 3 about as long as a dozen plain
** ones: masked at every row's end as before, the copy took 8% of
** ResNet-18 (3.1 of 39 ms at one thread), and twice the product's time
** at RegNet's grouped convolutions of stride 2.
**
** A fill of the planes followed by a scalar copy of each pixel (its
** indices split by division) took a third of the time of ResNet-18's
** 64-channel 56x56 Winograd layers, the fill on one thread.
*/
#include "transforms/graph_to_loop/tiles.h"

#include <inttypes.h>

#include "gilt/remarks.h"
#include "transforms/graph_to_loop/indexing.h"

typedef struct PadPlanes {
  const LowerPlanes *p;
  LowerLanes v;
  GiltValue *length, *rows, *height, *width;
  GiltValue *vectors;      /* of 16 columns a plane row */
  GiltValue *n, *c, *py, *plane_row;
  /* Where channel (n, c) goes in the planes: (n, c) itself, or (0, 0) in
  ** one channel's planes (lower_pad_channel_planes). */
  GiltValue *at_n, *at_c;
} PadPlanes;

/* The mask of lanes [lo, hi) (none when hi <= lo): the lanes below hi
** less those below lo. */
static GiltValue *lane_range(Lower *l, const PadPlanes *pp, GiltValue *lo,
                             GiltValue *hi)
{
  /* One op per statement here and below: the order in which C evaluates
  ** arguments is unspecified, and gcc and clang would emit them
  ** differently. */
  GiltValue *below_lo = lower_lanes_mask(l, &pp->v, ix_min(l, lo, hi));
  GiltValue *below_hi = lower_lanes_mask(l, &pp->v, hi);
  return lower_binary(l, LOOP_OP_XORI, below_hi, below_lo);
}

/* The 16 source pixels from column `col` of source row `row`, those
** outside [0, end) reading 0. */
typedef struct Pixels {
  const PadPlanes *pp;
  GiltValue *row, *col, *end;
} Pixels;

static GiltValue *pixels_whole(Lower *l, void *user)
{
  Pixels *px = user;
  GiltValue *at[4] = {px->pp->n, px->pp->c, px->row, px->col};
  return lower_lanes_load(l, &px->pp->v, NULL, px->pp->p->x, at);
}

static GiltValue *pixels_masked(Lower *l, void *user)
{
  Pixels *px = user;
  const PadPlanes *pp = px->pp;
  GiltValue *lo = ix_sub(l, lower_index(l, 0), px->col);
  GiltValue *hi = ix_sub(l, px->end, px->col);
  GiltValue *exists = lane_range(l, pp, lo, hi);
  GiltValue *at[4] = {pp->n, pp->c, px->row, px->col};
  return lower_lanes_load(l, &pp->v, exists, pp->p->x, at);
}

/* Those pixels loaded whole where they all exist (every vector but those
** at a row's two ends and on rows of padding), masked elsewhere: the
** masks of a range take AVX2 a dozen instructions a vector, which made
** up most of the copy's. */
static GiltValue *load_pixels(Lower *l, const PadPlanes *pp, GiltValue *row,
                              GiltValue *col, GiltValue *end)
{
  GiltValue *starts_inside = lower_cmp(l, "sge", col, lower_index(l, 0));
  GiltValue *room = ix_sub(l, end, col);
  GiltValue *ends_inside =
      lower_cmp(l, "sge", room, lower_index(l, LOWER_F32_LANES));
  GiltValue *inside =
      lower_binary(l, LOOP_OP_ANDI, starts_inside, ends_inside);
  Pixels px = {pp, row, col, end};
  return lower_if_value(l, inside, pp->v.type, pixels_whole, pixels_masked,
                        &px);
}

/* Phase px's 16 lanes out of the sw vectors of source pixels from c0:
** lane k is pixel k * sw + px, lane (k * sw + px) % 16 of vector
** (k * sw + px) / 16. */
static GiltValue *pick_phase(Lower *l, const PadPlanes *pp,
                             GiltValue *const *pixels, int64_t px)
{
  int64_t sw = pp->p->strides[1];
  if (sw == 1)
    return pixels[0];
  GiltValue *acc = pixels[0];
  for (int64_t q = 1; q < sw; q++) {
    int32_t mask[LOWER_F32_LANES];
    for (int64_t k = 0; k < LOWER_F32_LANES; k++) {
      int64_t r = k * sw + px, from = r / LOWER_F32_LANES;
      int64_t lane = r % LOWER_F32_LANES;
      /* acc's lane k is already in place from the second step on; in the
      ** first, acc is vector 0 as loaded. */
      int32_t keep = (int32_t)(q == 1 ? lane : k);
      mask[k] = from == q  ? (int32_t)(LOWER_F32_LANES + lane)
                : from < q ? keep
                           : 0;
    }
    acc = lower_lanes_shuffle(l, &pp->v, acc, pixels[q], mask);
  }
  return acc;
}

/* The 16 plane columns from jv * 16 of plane row `plane_row` of phase
** row py, in every phase column px. */
static void vector_body(Lower *l, GiltValue *const *ivs, void *user)
{
  PadPlanes *pp = user;
  const LowerPlanes *p = pp->p;
  int64_t sw = p->strides[1];
  GiltValue *lanes = lower_index(l, LOWER_F32_LANES);
  GiltValue *j0 = ix_mul(l, ivs[0], lanes);
  /* The source row, and how far along it the pixels exist: nowhere on a
  ** row of padding. */
  GiltValue *row_step = lower_index(l, p->strides[0]);
  GiltValue *row = ix_add(l, ix_mul(l, pp->plane_row, row_step), pp->py);
  row = ix_sub(l, row, p->begin[0]);
  GiltValue *zero = lower_index(l, 0);
  GiltValue *row_exists = ix_in_range(l, row, zero, pp->height);
  GiltValue *end = lower_select(l, row_exists, pp->width, zero);
  GiltValue *col_step = lower_index(l, sw);
  GiltValue *c0 = ix_sub(l, ix_mul(l, j0, col_step), p->begin[1]);
  GiltValue *flat = ix_add(l, ix_mul(l, pp->plane_row, p->pitch), j0);
  GiltValue *pixels[sw];
  for (int64_t q = 0; q < sw; q++) {
    GiltValue *col = ix_add(l, c0, lower_index(l, q * LOWER_F32_LANES));
    pixels[q] = load_pixels(l, pp, row, col, end);
  }
  /* Masked only where the vector reaches past the channel's planes: a
  ** count of lanes, so the store goes whole elsewhere (vector.c). */
  GiltValue *store_mask =
      lower_lanes_mask(l, &pp->v, ix_sub(l, pp->length, flat));
  GiltValue *first_plane = ix_mul(l, pp->py, col_step);
  for (int64_t px = 0; px < sw; px++) {
    GiltValue *plane = ix_add(l, first_plane, lower_index(l, px));
    GiltValue *at[4] = {pp->at_n, plane, pp->at_c, flat};
    lower_lanes_store(l, &pp->v, store_mask, pick_phase(l, pp, pixels, px),
                      p->planes, at);
  }
}

/* The plane rows of phase row py of one channel, in order (their last
** vectors' lanes past the pitch are the next row's, stored after). */
static void plane_row_body(Lower *l, GiltValue *const *ivs, void *user)
{
  PadPlanes *pp = user;
  pp->plane_row = ivs[0];
  lower_nest(l, 1, &pp->vectors, vector_body, pp);
}

/* ivs are (n, one phase row of one channel): c and py, flattened, so
** that the threads share the phase rows too (the first layer of a CNN
** has 3 channels). */
static void phase_row_body(Lower *l, GiltValue *const *ivs, void *user)
{
  PadPlanes *pp = user;
  pp->n = pp->at_n = ivs[0];
  GiltValue *phase_rows = lower_index(l, pp->p->strides[0]);
  pp->c = pp->at_c = ix_div(l, ivs[1], phase_rows);
  pp->py = ix_rem(l, ivs[1], phase_rows);
  lower_nest(l, 1, &pp->rows, plane_row_body, pp);
}

/* The plane rows of phase row ivs[0] of channel (pp->n, pp->c). */
static void channel_phase_row_body(Lower *l, GiltValue *const *ivs, void *user)
{
  PadPlanes *pp = user;
  pp->py = ivs[0];
  lower_nest(l, 1, &pp->rows, plane_row_body, pp);
}

/* What every fill shares: the vectors' type, the input's sizes, the
** planes' rows. */
static void pad_init(Lower *l, PadPlanes *pp)
{
  const LowerPlanes *p = pp->p;
  GiltType *elem = gilt_value_get_type(p->x)->shaped.elem;
  lower_lanes_init(l, &pp->v, elem);
  GILT_ASSERT(pp->v.width == LOWER_F32_LANES); /* the kernels' inputs: f32 */
  pp->rows = lower_binary(l, LOOP_OP_CEILDIVSI, pp->length, p->pitch);
  pp->height = lower_dim(l, p->x, 2);
  pp->width = lower_dim(l, p->x, 3);
  pp->vectors = lower_binary(l, LOOP_OP_CEILDIVSI, p->pitch,
                             lower_index(l, LOWER_F32_LANES));
}

/* A new buffer [n, sh * sw, c, length] for the planes. */
static GiltValue *alloc_planes(Lower *l, const LowerPlanes *p, GiltValue *n,
                               GiltValue *c, GiltValue *length)
{
  int64_t planes = p->strides[0] * p->strides[1];
  GiltValue *dims[4] = {n, lower_index(l, planes), c, length};
  int64_t shape[4] = {GILT_DYNAMIC, planes, GILT_DYNAMIC, GILT_DYNAMIC};
  GiltType *elem = gilt_value_get_type(p->x)->shaped.elem;
  return lower_alloc(
      l, gilt_memref_type_get(l->ctx, 4, shape, elem, NULL, NULL), dims);
}

void lower_pad_planes(Lower *l, LowerPlanes *p, GiltValue *length)
{
  int64_t planes = p->strides[0] * p->strides[1];
  GiltRemarkArg args[1] = {{"planes", NULL, planes}};
  if (planes == 1)
    gilt_remark(l->op, "layout", "padded-rows", 1, args,
                "copied: X zero-padded, [N, 1, C, rows * pitch], its rows "
                "end to end");
  else
    gilt_remark(l->op, "layout", "phase-planes", 1, args,
                "copied: X zero-padded and split by phases of (%" PRId64
                ", %" PRId64 ") into %" PRId64 " planes, [N, %" PRId64
                ", C, rows * pitch], each plane's rows end to end",
                p->strides[0], p->strides[1], planes, planes);
  GiltValue *batch = lower_dim(l, p->x, 0), *channels = lower_dim(l, p->x, 1);
  p->planes = alloc_planes(l, p, batch, channels, length);
  PadPlanes pp = {.p = p, .length = length};
  pad_init(l, &pp);
  GiltValue *phase_rows[2] = {
      batch, ix_mul(l, channels, lower_index(l, p->strides[0]))};
  lower_parallel(l, 2, phase_rows, phase_row_body, &pp);
}

void lower_pad_channel_planes(Lower *l, LowerPlanes *p, GiltValue *length,
                              GiltValue *n, GiltValue *c)
{
  GiltValue *one = lower_index(l, 1);
  p->planes = alloc_planes(l, p, one, one, length);
  GiltValue *zero = lower_index(l, 0);
  PadPlanes pp = {.p = p, .length = length, .n = n, .c = c,
                  .at_n = zero, .at_c = zero};
  pad_init(l, &pp);
  GiltValue *phase_rows = lower_index(l, p->strides[0]);
  lower_nest(l, 1, &phase_rows, channel_phase_row_body, &pp);
}
