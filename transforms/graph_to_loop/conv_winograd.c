/*
** conv_winograd.c - 3x3 convolutions of stride 1 by Winograd's minimal
** filtering F(m x m, 3x3) (Lavin and Gray 2016; TVM's, NNPACK's,
** XNNPACK's and oneDNN's), for m = 2 or 4: each m x m block of outputs
** from an alpha x alpha block of inputs (alpha = m + 2) takes alpha^2
** multiplies per channel pair instead of 9 m^2, so the product that
** dominates costs 2.25 (F(2x2)) or 4 (F(4x4)) times fewer multiply-adds:
**
**   U[e] = (G g G^T)[e]   per filter g, at compile time (e < alpha^2)
**   V[e] = (B^T d B)[e]   per input block d and channel
**   M[e] = U[e] V[e]      alpha^2 products [OC, C] x [C, blocks] (tiles.c)
**   Y    = A^T M A        per output block and channel, bias and the
**                         fused epilogue added
**
** with winograd.c's transforms. A cost model picks the tile size per
** layer, or the direct tiles. This file lays the blocks out along
** vectors, for NCHW; conv_winograd_nchwc.c lays channels along them,
** for NCHW16c.
**
** Blocks run along the padded input's rows, as the direct path's wide
** positions do (conv_tiled.c): the input is split into m x m phase
** planes, so that block (bh, bw)'s pixel (i, j) is plane (i % m, j % m)'s
** element (bh + i / m, bw + j / m), and 16 consecutive blocks of a row
** read 16 consecutive floats of each plane.
**
** The work goes in groups of block rows, one parallel loop over them,
** each group's three steps run back to back on one thread: its V and M
** (sized by the cost model's cache budget) stay in that core's L2
** cache, where transforms split by channel and products split by
** element would pass every byte from one core to the other twice (at 2
** threads those layers ran no faster than at 1). A group's V is [C,
** alpha^2, its blocks], a row of blocks padded to whole vectors: element
** e's [C, blocks] is a B operand the tiles read with vector loads, and
** the alpha^2 vectors a transform writes or reads for one channel lie a
** row apart, not a whole product apart (those would be a multiple of 4
** KB apart and share one set of the L1 cache). M is laid out alike.
** Blocks past the output's right edge are computed and dropped.
*/
#include "transforms/graph_to_loop/tiles.h"

#include <inttypes.h>
#include <string.h>

#include "gilt/remarks.h"
#include "transforms/graph_to_loop/indexing.h"
#include "transforms/graph_to_loop/winograd.h"

typedef struct Winograd {
  const WinogradTile *f;
  LowerWindow *w;
  LowerLanes v;
  LowerEpilogue epilogue;
  GiltValue *x, *y, *bias;
  GiltValue *planes, *pitch; /* the input's m x m phase planes */
  GiltValue *u, *vt, *m;     /* transformed weights, inputs, products */
  GiltValue *row_width;      /* a row of blocks in V and M: whole vectors */
  GiltValue *groups;         /* groups of block rows */
  bool narrow_tail;          /* some group's blocks end in half a tile */
  GiltValue *block_rows, *vectors, *c, *oc;
  /* The group being emitted: batch, group, first block row, block rows
  ** in it, blocks (columns of V and M) in it; the product's element. */
  GiltValue *n, *g, *first_row, *rows, *blocks, *e;
  int64_t oc_blocks; /* ceil(OC / 6): U's panels per element */
} Winograd;

/* How a layer's blocks go in groups: rows of `row_width` blocks (a whole
** number of vectors), `groups` groups of near-equal numbers of them (group
** g's first row is g * block_rows / groups, the most any group has
** `group_rows`), each `group_width` columns wide in V and M. */
typedef struct WinogradGroups {
  int64_t block_rows, row_width, group_rows, groups, group_width;
} WinogradGroups;

/* ---- weights, at compile time ------------------------------------------- */

/* U as the tiles read A: [alpha^2 * ceil(OC/6), C, 6], element e's
** panels first, rows past OC repeating the last. NULL when the weights
** are not a constant. */
static GiltValue *transform_weights(Lower *l, Winograd *t, GiltValue *weights)
{
  GiltType *wt = gilt_value_get_type(weights);
  int64_t oc = wt->shaped.shape[0], c = wt->shaped.shape[1];
  int64_t elements = t->f->alpha * t->f->alpha;
  GiltAttr *value = lower_value_constant(l, weights);
  size_t nbytes;
  const unsigned char *data =
      value && !gilt_dense_attr_is_splat(value)
          ? gilt_dense_attr_get_data(value, &nbytes)
          : NULL;
  if (!data || nbytes != (size_t)(oc * c * 9) * sizeof(float))
    return NULL;
  t->oc_blocks = (oc + 5) / 6;
  int64_t shape[3] = {elements * t->oc_blocks, c, 6};
  size_t count = (size_t)(shape[0] * c * 6);
  float *packed = gilt_blob_alloc(l->ctx, count * sizeof *packed);
  winograd_pack_filters(t->f, data, oc, c, 6, t->oc_blocks, true, packed);
  return lower_packed_global(l, 3, shape, packed);
}

/* ---- inputs ----------------------------------------------------------------- */

/* The alpha^2 input vectors of 16 consecutive blocks from (n, c, block
** row bh, first block bw), d[i * alpha + j] from plane (i % m, j % m). */
static void load_blocks(Lower *l, Winograd *t, GiltValue *const *at,
                        GiltValue **d)
{
  int m = t->f->m, alpha = t->f->alpha;
  for (int i = 0; i < alpha; i++)
    for (int j = 0; j < alpha; j++) {
      GiltValue *row = ix_add(l, at[2], lower_index(l, i / m));
      GiltValue *plane = lower_index(l, (i % m) * m + j % m);
      GiltValue *row_start = ix_mul(l, row, t->pitch);
      GiltValue *col = ix_add(l, at[3], lower_index(l, j / m));
      GiltValue *idx[4] = {at[0], plane, at[1], ix_add(l, row_start, col)};
      d[i * alpha + j] = lower_lanes_load(l, &t->v, NULL, t->planes, idx);
    }
}

/* The column of V and M where the vector of blocks (row r of the group,
** vector j) starts, and that vector's first block in its row. */
static GiltValue *group_column(Lower *l, const Winograd *t, GiltValue *r,
                               GiltValue *j, GiltValue **bw)
{
  *bw = ix_mul(l, j, lower_index(l, LOWER_F32_LANES));
  return ix_add(l, ix_mul(l, r, t->row_width), *bw);
}

/* V for one channel's vector of blocks: ivs are (c, row in the group,
** vector). */
static void input_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Winograd *t = user;
  int alpha = t->f->alpha;
  GiltValue *bw;
  GiltValue *col = group_column(l, t, ivs[1], ivs[2], &bw);
  GiltValue *at[4] = {t->n, ivs[0], ix_add(l, t->first_row, ivs[1]), bw};
  GiltValue *d[WINOGRAD_MAX_ALPHA * WINOGRAD_MAX_ALPHA];
  load_blocks(l, t, at, d);
  winograd_input(l, &t->v, t->f, d);
  for (int e = 0; e < alpha * alpha; e++) {
    GiltValue *idx[5] = {t->n, t->g, ivs[0], lower_index(l, e), col};
    lower_lanes_store(l, &t->v, NULL, d[e], t->vt, idx);
  }
}

/* ---- the alpha^2 products -------------------------------------------------- */

static GiltValue *tile_load_a(Lower *l, const LowerTileAt *at, size_t i,
                              void *user)
{
  Winograd *t = user;
  GiltValue *panel = ix_add(l, ix_mul(l, t->e, lower_index(l, t->oc_blocks)),
                            at->mb);
  GiltValue *idx[3] = {panel, at->red[0], lower_index(l, (int64_t)i)};
  return lower_load(l, t->u, idx);
}

static GiltValue *tile_load_b(Lower *l, const LowerTileAt *at, size_t v,
                              void *user)
{
  Winograd *t = user;
  GiltValue *idx[5] = {t->n, t->g, at->red[0], t->e, at->cols[v]};
  return lower_lanes_load(l, &t->v, NULL, t->vt, idx);
}

static void tile_store(Lower *l, const LowerTileAt *at, size_t i, size_t v,
                       GiltValue *sums, void *user)
{
  Winograd *t = user;
  GiltValue *idx[5] = {t->n, t->g, at->rows[i], t->e, at->cols[v]};
  lower_lanes_store(l, &t->v, at->masks[v], sums, t->m, idx);
}

/* The group's product of element ivs[0]: [OC, C] x [C, its blocks]. */
static void product_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Winograd *t = user;
  t->e = ivs[0];
  LowerTiles tiles = {
      .algorithm = t->f->algorithm,
      .m = t->oc,
      .n = t->blocks,
      .narrow_tail = t->narrow_tail,
      .rows = 6,
      .vectors = lower_tile_vectors(l),
      .num_reductions = 1,
      .reductions = {t->c},
      .load_a = tile_load_a,
      .load_b = tile_load_b,
      .store = tile_store,
      .user = t,
  };
  lower_tiles(l, &tiles);
}

/* ---- outputs ------------------------------------------------------------------ */

/* lo and hi: a and b interleaved lane by lane, from their first and
** their middle lane (a0 b0 a1 b1 ... and a8 b8 a9 b9 ...). */
static void zip(Lower *l, const Winograd *t, GiltValue *a, GiltValue *b,
                GiltValue **lo, GiltValue **hi)
{
  GiltValue **out[2] = {lo, hi};
  for (int half = 0; half < 2; half++) {
    int32_t mask[LOWER_F32_LANES];
    for (int i = 0; i < LOWER_F32_LANES; i++)
      mask[i] = (i % 2) * LOWER_F32_LANES + half * LOWER_F32_LANES / 2 + i / 2;
    *out[half] = lower_lanes_shuffle(l, &t->v, a, b, mask);
  }
}

/* Row a of 16 blocks' outputs, 16 m consecutive pixels, from the m
** vectors y[a * m + b] whose lane k is block k's output (a, b): their
** lanes interleaved, by log2(m) rounds of zips of vector i with vector i
** + m / 2, make those pixels in order, m vectors of them. */
static void interleave(Lower *l, const Winograd *t, GiltValue **row)
{
  int m = t->f->m;
  for (int width = 1; width < m; width *= 2) {
    GiltValue *next[WINOGRAD_MAX_ALPHA];
    for (int i = 0; i < m / 2; i++)
      zip(l, t, row[i], row[i + m / 2], &next[2 * i], &next[2 * i + 1]);
    memcpy(row, next, (size_t)m * sizeof *row);
  }
}

/* Stores the outputs of 16 blocks from (oc, block row bh, first block
** bw), y[a * m + b] lane k being block k's output (a, b): row by row,
** each row's 16 m pixels as m vectors, with the bias and the fused
** epilogue, masked past the output's right edge and below its last row
** (the blocks past the edges are computed and dropped). */
static void store_blocks(Lower *l, Winograd *t, GiltValue *oc, GiltValue *bh,
                         GiltValue *bw, GiltValue *const *y)
{
  int m = t->f->m;
  GiltValue *bias =
      t->bias ? lower_lanes_splat(l, &t->v, lower_load(l, t->bias, &oc))
              : NULL;
  GiltValue *first_col = ix_mul(l, bw, lower_index(l, m));
  GiltValue *none = lower_index(l, 0);
  for (int a = 0; a < m; a++) {
    GiltValue *row[WINOGRAD_MAX_ALPHA];
    for (int b = 0; b < m; b++)
      row[b] = bias ? lower_plus(l, y[a * m + b], bias) : y[a * m + b];
    interleave(l, t, row);
    GiltValue *oh = ix_add(l, ix_mul(l, bh, lower_index(l, m)),
                           lower_index(l, a));
    GiltValue *row_inside = lower_cmp(l, "slt", oh, t->w->out[0]);
    for (int q = 0; q < m; q++) {
      GiltValue *ow =
          ix_add(l, first_col, lower_index(l, q * LOWER_F32_LANES));
      GiltValue *left =
          lower_select(l, row_inside, ix_sub(l, t->w->out[1], ow), none);
      GiltValue *mask = lower_lanes_mask(l, &t->v, left);
      GiltValue *at[4] = {t->n, oc, oh, ow};
      GiltValue *v =
          lower_epilogue_apply_at(l, &t->epilogue, &t->v, mask, row[q], at);
      lower_lanes_store(l, &t->v, mask, v, t->y, at);
    }
  }
}

/* Y for one output channel's vector of blocks: ivs are (oc, row in the
** group, vector). */
static void output_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Winograd *t = user;
  int alpha = t->f->alpha;
  GiltValue *bw;
  GiltValue *col = group_column(l, t, ivs[1], ivs[2], &bw);
  GiltValue *mv[WINOGRAD_MAX_ALPHA * WINOGRAD_MAX_ALPHA];
  GiltValue *y[WINOGRAD_MAX_ALPHA * WINOGRAD_MAX_ALPHA];
  for (int e = 0; e < alpha * alpha; e++) {
    GiltValue *idx[5] = {t->n, t->g, ivs[0], lower_index(l, e), col};
    mv[e] = lower_lanes_load(l, &t->v, NULL, t->m, idx);
  }
  winograd_output(l, &t->v, t->f, mv, y);
  store_blocks(l, t, ivs[0], ix_add(l, t->first_row, ivs[1]), bw, y);
}

/* One group, start to end: its V for every input channel, its alpha^2
** products, its outputs for every output channel. ivs are (n, group). */
static void group_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Winograd *t = user;
  t->n = ivs[0];
  t->g = ivs[1];
  t->first_row = ix_div(l, ix_mul(l, ivs[1], t->block_rows), t->groups);
  GiltValue *next = ix_add(l, ivs[1], lower_index(l, 1));
  t->rows = ix_sub(l, ix_div(l, ix_mul(l, next, t->block_rows), t->groups),
                   t->first_row);
  t->blocks = ix_mul(l, t->rows, t->row_width);
  GiltValue *in_dims[3] = {t->c, t->rows, t->vectors};
  lower_nest(l, 3, in_dims, input_body, t);
  GiltValue *elements = lower_index(l, t->f->alpha * t->f->alpha);
  lower_nest(l, 1, &elements, product_body, t);
  GiltValue *out_dims[3] = {t->oc, t->rows, t->vectors};
  lower_nest(l, 3, out_dims, output_body, t);
}

/* ---- the cost model ------------------------------------------------------------ */

/* The direct tiles keep some 90% of their lanes busy. */
#define DIRECT_EFFICIENCY 0.9
/* A vector of outputs stored with its mask (the mask, the store) costs
** about as much as this many vector operations. */
#define MASKED_STORE_COST 2.0

/* The bytes of V and M a group may take: most of a Zen 4 or Zen 5
** core's 1 MB L2 cache, the rest left to the panels of U streaming
** through. */
#define GROUP_BYTES (768 * 1024)

/* The groups of F(m x m) at a layer of c channels in and oc out, output
** oh x ow: as many block rows a group as fit GROUP_BYTES, and an even
** number of groups where there are several, so that two threads, each
** taking half of them, get the same number of rows (ResNet-18's 14 block
** rows in 7 groups of 2 gave one thread 8 and the other 6). */
static WinogradGroups winograd_groups(const WinogradTile *f, int64_t c,
                                      int64_t oc, int64_t oh, int64_t ow)
{
  WinogradGroups g;
  int64_t block_cols = (ow + f->m - 1) / f->m;
  g.block_rows = (oh + f->m - 1) / f->m;
  g.row_width =
      (block_cols + LOWER_F32_LANES - 1) / LOWER_F32_LANES * LOWER_F32_LANES;
  int64_t row_bytes =
      (c + oc) * f->alpha * f->alpha * g.row_width * (int64_t)sizeof(float);
  int64_t rows = GROUP_BYTES / row_bytes;
  if (rows < 1)
    rows = 1;
  g.groups = (g.block_rows + rows - 1) / rows;
  if (g.groups > 1 && g.groups % 2 && g.groups < g.block_rows)
    g.groups++;
  g.group_rows = (g.block_rows + g.groups - 1) / g.groups;
  /* Whole tiles, and a line of slack: a channel's alpha^2 vectors lie a
  ** group's width apart, which at a multiple of 4 KB would put them all
  ** in one set of the L1 cache (12 ways for 36 vectors). */
  int64_t tile = 2 * LOWER_F32_LANES;
  g.group_width = (g.group_rows * g.row_width + tile - 1) / tile * tile +
                  LOWER_F32_LANES;
  return g;
}

/* The block rows of group i (group_body computes the same in the IR). */
static int64_t rows_of_group(const WinogradGroups *g, int64_t i)
{
  return (i + 1) * g->block_rows / g->groups - i * g->block_rows / g->groups;
}

/* Whether some group's blocks end in half a tile: an odd number of rows
** of one vector each. */
static bool ends_in_half_tile(const WinogradGroups *g)
{
  for (int64_t i = 0; i < g->groups; i++)
    if (rows_of_group(g, i) * g->row_width % (2 * LOWER_F32_LANES))
      return true;
  return false;
}

/* The vectors of blocks the products compute, each group's rounded up
** to whole tiles of 32: a narrow last tile of 16 does half the
** multiply-adds, but loads as many broadcasts of U a step, which then
** bound it (counted as half a tile, the model chose F(2x2) for
** ResNet-18's 256x14x14 layers, which ran 1.55 times the direct tiles'
** time). */
static double block_vectors(const WinogradGroups *g)
{
  int64_t tile = 2 * LOWER_F32_LANES, vectors = 0;
  for (int64_t i = 0; i < g->groups; i++)
    vectors += (rows_of_group(g, i) * g->row_width + tile - 1) / tile * 2;
  return (double)vectors;
}

/* F(m x m)'s time at the layer as a share of the direct tiles': vector
** operations of the products (alpha^2 multiply-adds per channel pair per
** vector of blocks, padding included), of the input transform (alpha^2
** loads and stores and B^T's combinations per input channel) and of the
** output transform (alpha^2 loads, A^T's combinations, the zips and m^2
** masked stores per output channel), against 9 per channel pair per 16
** outputs at the direct tiles' efficiency. It leaves out the memory
** traffic of V and M, so it says less than the measured share, but it
** ranks the three the same way. Measured on a Zen 5 core (one thread,
** tile size forced; direct, F(2x2), F(4x4) as a share of the direct
** time, model in brackets, some 5% noise): ResNet-18's 64x56x56 .9
** [.51], .55 [.31]; 128x28x28 .75 [.48], .93 [.65]; 256x14x14 1.6
** [1.07], 2.3 [1.24]; SqueezeNet's 16->64 at 55x55 1.1 [.60], .70 [.40];
** 32->128 at 27x27 .68 [.56], .83 [.79]; 64->256 at 13x13 1.55 [1.29],
** 1.5 [1.53]: the choice is the fastest at each. */
static double winograd_cost(const WinogradTile *f, int64_t c, int64_t oc,
                            int64_t oh, int64_t ow)
{
  double a2 = f->alpha * f->alpha;
  double bt_ops = winograd_input_ops(f), at_ops = winograd_output_ops(f);
  double input = (double)c * (2 * a2 + bt_ops);
  double zips = f->m * (f->m == 4 ? 2 : 1); /* m log2(m) shuffles */
  double output =
      (double)oc * (a2 + at_ops + zips + f->m * f->m * MASKED_STORE_COST);
  WinogradGroups g = winograd_groups(f, c, oc, oh, ow);
  double winograd = block_vectors(&g) *
                    (a2 * (double)c * (double)oc + input + output);
  double direct = 9.0 * (double)c * (double)oc * (double)(oh * ow) /
                  LOWER_F32_LANES / DIRECT_EFFICIENCY;
  return winograd / direct;
}

/* Whether the layer is one F(m x m, 3x3) computes: 3x3, stride and
** dilation 1, one group, f32, static channels and constant weights, each
** stored (a splat, one value for all, is not transformed: the layer is
** then reported as the direct tiles, which it goes through). */
static bool winograd_shape(Lower *l, const LowerWindow *w, GiltType *xt,
                           GiltType *wt, GiltValue *weights, int64_t group)
{
  GiltAttr *value = lower_value_constant(l, weights);
  return w->n == 2 && group == 1 && w->strides[0] == 1 &&
         w->strides[1] == 1 && w->dilations[0] == 1 &&
         w->dilations[1] == 1 && wt->shaped.shape[2] == 3 &&
         wt->shaped.shape[3] == 3 && wt->shaped.shape[0] != GILT_DYNAMIC &&
         xt->shaped.shape[1] != GILT_DYNAMIC &&
         lower_vectorizes(l, lower_result_elem(l, 0)) && value &&
         !gilt_dense_attr_is_splat(value);
}

int lower_conv_winograd_apply(Lower *l, const LowerWindow *w, GiltValue *x,
                              GiltValue *weights, int64_t group)
{
  GiltType *wt = gilt_value_get_type(weights);
  GiltType *xt = gilt_value_get_type(x);
  if (!winograd_shape(l, w, xt, wt, weights, group))
    return 0;
  GiltType *yt = lower_result_type(l, 0);
  int64_t oh = yt->shaped.shape[2], ow = yt->shaped.shape[3];
  int64_t c = xt->shaped.shape[1], oc = wt->shaped.shape[0];
  /* Without a static output size the waste is unknown: the direct tiles
  ** then, as their loss is the smaller. */
  if (oh == GILT_DYNAMIC || ow == GILT_DYNAMIC || oh <= 0 || ow <= 0)
    return 0;
  double cost[2];
  int best = -1;
  for (int i = 0; i < 2; i++) {
    cost[i] = winograd_cost(&WINOGRAD_TILES[i], c, oc, oh, ow);
    if (cost[i] < 1 && (best < 0 || cost[i] < cost[best]))
      best = i;
  }
  int m = best < 0 ? 0 : WINOGRAD_TILES[best].m;
  GiltRemarkArg args[5] = {{"block", NULL, m},
                           {"cost_f2x2_per_mille", NULL,
                            (int64_t)(cost[0] * 1000)},
                           {"cost_f4x4_per_mille", NULL,
                            (int64_t)(cost[1] * 1000)},
                           {"channels_in", NULL, c},
                           {"channels_out", NULL, oc}};
  gilt_remark(l->op, "tiling", m ? "winograd" : "no-winograd", 5, args,
              "%s%s: F(2x2, 3x3) would take %.2f and F(4x4, 3x3) %.2f of "
              "the direct tiles' time (useful lanes, %" PRId64
              " channels in and %" PRId64 " out, transforms)",
              m ? "chose Winograd " : "did not choose Winograd",
              m ? WINOGRAD_TILES[best].name : "", cost[0], cost[1], c, oc);
  return m;
}

/* ---- the convolution --------------------------------------------------------- */

GiltValue *lower_conv_winograd(Lower *l, LowerWindow *w, GiltValue *x,
                               GiltValue *weights, GiltValue *bias, int m)
{
  Winograd t = {.f = &WINOGRAD_TILES[m == 4], .w = w, .x = x, .bias = bias};
  lower_lanes_init(l, &t.v, gilt_float_type_get(l->ctx, GILT_F32));
  lower_epilogue_read(l, &t.epilogue);
  t.u = transform_weights(l, &t, weights);
  if (!t.u)
    return NULL;
  /* lower_conv_winograd_apply saw static channels and output sizes. */
  GiltType *yt = lower_result_type(l, 0);
  int64_t c = gilt_value_get_type(x)->shaped.shape[1];
  int64_t oc = gilt_value_get_type(weights)->shaped.shape[0];
  WinogradGroups g = winograd_groups(t.f, c, oc, yt->shaped.shape[2],
                                     yt->shaped.shape[3]);
  int64_t elements = t.f->alpha * t.f->alpha;
  GiltRemarkArg args[1] = {{"elements", NULL, elements}};
  gilt_remark(l->op, "layout", "winograd-domain", 1, args,
              "computes in Winograd's domain: U, the weights transformed at "
              "compile time, packed as the tiles read A, [%" PRId64 " * ceil(OC / "
              "6), C, 6]; per group of block rows, V, X's blocks "
              "transformed, [C, %" PRId64 ", blocks], and the products M alike, "
              "transformed back into Y's NCHW",
              elements, elements);
  GiltValue *mi = lower_index(l, m);
  t.block_rows = lower_index(l, g.block_rows);
  t.row_width = lower_index(l, g.row_width);
  t.groups = lower_index(l, g.groups);
  t.narrow_tail = ends_in_half_tile(&g);
  t.vectors = lower_index(l, g.row_width / LOWER_F32_LANES);
  t.c = lower_index(l, c);
  t.oc = lower_index(l, oc);
  /* A plane's row: every block of a row and its right neighbour's
  ** pixels, the whole padded row, and room for the last vector of
  ** blocks. */
  t.pitch = ix_max(l, t.row_width,
                   lower_binary(l, LOOP_OP_CEILDIVSI, w->extent[1], mi));
  t.pitch = ix_add(l, t.pitch, lower_index(l, 1));
  GiltValue *plane_rows = ix_max(
      l, t.block_rows, lower_binary(l, LOOP_OP_CEILDIVSI, w->extent[0], mi));
  plane_rows = ix_add(l, plane_rows, lower_index(l, 1));
  LowerPlanes planes = {x, NULL, {w->begin[0], w->begin[1]}, {m, m}, t.pitch};
  lower_pad_planes(l, &planes, ix_mul(l, plane_rows, t.pitch));
  t.planes = planes.planes;

  GiltValue *batch = lower_dim(l, x, 0);
  int64_t n = gilt_value_get_type(x)->shaped.shape[0];
  int64_t vshape[5] = {n, g.groups, c, elements, g.group_width};
  GiltValue *vdims[5] = {batch};
  t.vt = lower_alloc(
      l, gilt_memref_type_get(l->ctx, 5, vshape, t.v.elem, NULL, NULL), vdims);
  int64_t mshape[5] = {n, g.groups, oc, elements, g.group_width};
  t.m = lower_alloc(
      l, gilt_memref_type_get(l->ctx, 5, mshape, t.v.elem, NULL, NULL), vdims);
  GiltValue *ydims[4] = {batch, t.oc, w->out[0], w->out[1]};
  t.y = lower_alloc_result(l, 0, ydims);
  GiltValue *group_dims[2] = {batch, t.groups};
  lower_parallel(l, 2, group_dims, group_body, &t);
  return t.y;
}
