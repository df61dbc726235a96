/*
** conv_winograd_nchwc.c - 3x3 convolutions of stride 1 in NCHW16c by
** Winograd's F(m x m, 3x3) (winograd.c), with channels along the
** vectors:
**
**   U[e] = (G g G^T)[e]    per filter g, at compile time, packed as the
**                          tiles read B: [alpha^2 * panels, C, columns]
**   V[e, t, c] = (B^T d B)[e]   d the alpha x alpha pixels of block t,
**                          16 channels a vector (X's NCHW16c pixels)
**   M[e] = V[e] U[e]       alpha^2 products [T, C] x [C, OC] (tiles.c),
**                          side by side on the threads
**   Y    = A^T M A         per block and 16 output channels, the bias
**                          and the fused epilogue added, into NCHW16c
**
** for the T = ceil(OH / m) * ceil(OW / m) blocks of outputs of an image.
**
** Why a second layout of Winograd's. conv_winograd.c lays blocks of
** outputs along its vectors: the 7 blocks of a row of a 14x14 image
** fill 7 of 16 lanes there, so below 28x28 it lost to the direct tiles,
** and ResNet's layers of 256 and 512 channels at 14x14 and 7x7 kept 2.25
** times the multiply-adds F(2x2) saves. With channels along the vectors
** every lane is used whatever the image's size; the blocks are the
** products' rows instead (49 at 14x14). The cost model below weighs the
** products, the rows the tiles compute past T, the transforms, and U,
** alpha^2 / 9 times the direct layer's weights, which stream from memory
** once a run. Larger images gain too: graph-layout-nchwc blocks every
** 3x3 layer of stride 1 whose input channels fill whole blocks, and
** ResNet-18's 128-channel layers at 28x28 ran here in 0.87 ms where the
** NCHW Winograd took 1.83.
**
** Per image, three parallel loops one after the other: the input
** transform over (input channel block, block row, block column), each
** block's alpha^2 vectors loaded where they lie (0 outside X: the loads
** clamped into X, selected away); the alpha^2 products, parallel over
** the elements, each one lower_tiles run in turn in its thread; the
** output transform over (output channel block, block row, block column),
** storing the m x m pixels inside Y. The products share one parallel
** loop because each is small: run one after the other, each parallel
** over its few tiles (9 rows of ResNet-50's 28x28 blocks), they were 36
** waits a layer for the slower thread and split 9 tiles 5 to 4, and
** ResNet-50's 3x3 layers ran 1.2 to 1.45 times faster at two threads
** than at one (1.65 to 1.95 now). The threads that can share them are
** at most alpha^2, 16 or 36: enough for the cores this runs on.
*/
#include "transforms/graph_to_loop/tiles.h"

#include <inttypes.h>

#include "gilt/remarks.h"
#include "transforms/graph_to_loop/indexing.h"
#include "transforms/graph_to_loop/winograd.h"

/* The cost model's weight of one float of U streamed from memory, in
** multiply-adds of one output: what a core multiplies and adds while
** memory brings it one float. Where vectors are 256 bits, two FMA units
** do 16 multiply-adds a cycle (Zen 3, on which the model's figures
** below were measured): 8. Zen 5's two 512-bit units do 32 from much
** the same memory, and 12 is fitted to what it measured: the direct
** tiles' 9.4 MB of ResNet's 512-channel layers at 7x7 cost 12
** multiply-adds a float, and 12 predicts what F(2x2) measured against
** the direct tiles (.82 at 7x7, .53 for 256 channels at 14x14) and
** chooses it over F(4x4) at 14x14, which took .62 where 8 had predicted
** .49. */
static double weight_float_cost(const Lower *l)
{
  return l->register_lanes >= 16 ? 12.0 : 8.0;
}

/* Winograd is chosen below this share of the direct tiles' time (the
** model leaves out V's and M's trips through L2, and DenseNet's 128
** channels into 32 at 7x7, at .88, ran as fast either way). */
#define CHOSEN_BELOW 0.9

typedef struct BlockedWinograd {
  const WinogradTile *f;
  LowerWindow *w;
  LowerLanes v;
  LowerEpilogue epilogue;
  GiltValue *x, *y, *bias;
  GiltValue *u, *vt, *m; /* U, V and M above */
  GiltValue *c, *oc, *blocks, *block_cols;
  int64_t block_count;   /* T, the products' rows */
  int64_t panels;        /* U's panels of columns per element */
  bool partial;          /* blocks may pass Y's last row or column */
  GiltValue *n, *e;      /* the image, and the product's element */
  GiltValue *first_panel; /* e's first panel in U: e * panels */
} BlockedWinograd;

/* ---- weights, at compile time --------------------------------------------- */

/* U as the tiles read B: [alpha^2 * panels, C, columns], element e's
** panels first, columns past OC zero. */
static GiltValue *transform_weights(Lower *l, BlockedWinograd *t,
                                    GiltValue *weights, int64_t columns)
{
  GiltType *wt = gilt_value_get_type(weights);
  int64_t oc = wt->shaped.shape[0], c = wt->shaped.shape[1];
  int64_t elements = t->f->alpha * t->f->alpha;
  size_t nbytes;
  const unsigned char *data =
      gilt_dense_attr_get_data(lower_value_constant(l, weights), &nbytes);
  t->panels = (oc + columns - 1) / columns;
  int64_t shape[3] = {elements * t->panels, c, columns};
  size_t count = (size_t)(shape[0] * c * columns);
  float *packed = gilt_blob_alloc(l->ctx, count * sizeof *packed);
  winograd_pack_filters(t->f, data, oc, c, columns, t->panels, false, packed);
  return lower_packed_global(l, 3, shape, packed);
}

/* ---- the input transform ------------------------------------------------------ */

/* V of block (bh, bw) and channel block cb: ivs are (cb, bh, bw). */
static void input_body(Lower *l, GiltValue *const *ivs, void *user)
{
  BlockedWinograd *t = user;
  const LowerWindow *w = t->w;
  int m = t->f->m, alpha = t->f->alpha;
  GiltValue *zero = lower_index(l, 0);
  GiltValue *first[2], *in[2][WINOGRAD_MAX_ALPHA], *at[2][WINOGRAD_MAX_ALPHA];
  for (size_t d = 0; d < 2; d++) {
    first[d] = ix_sub(l, ix_mul(l, ivs[1 + d], lower_index(l, m)),
                      w->begin[d]);
    for (int i = 0; i < alpha; i++)
      at[d][i] = ix_clamp_into(l, ix_add(l, first[d], lower_index(l, i)),
                               w->in[d], &in[d][i]);
  }
  GiltValue *d[WINOGRAD_MAX_ALPHA * WINOGRAD_MAX_ALPHA];
  GiltValue *none = lower_lanes_zero(&t->v);
  for (int i = 0; i < alpha; i++)
    for (int j = 0; j < alpha; j++) {
      GiltValue *idx[5] = {t->n, ivs[0], at[0][i], at[1][j], zero};
      GiltValue *xv = lower_lanes_load(l, &t->v, NULL, t->x, idx);
      GiltValue *inside = lower_binary(l, LOOP_OP_ANDI, in[0][i], in[1][j]);
      d[i * alpha + j] = lower_select(l, inside, xv, none);
    }
  winograd_input(l, &t->v, t->f, d);
  GiltValue *block = ix_add(l, ix_mul(l, ivs[1], t->block_cols), ivs[2]);
  GiltValue *c0 = ix_mul(l, ivs[0], lower_index(l, LOWER_F32_LANES));
  for (int e = 0; e < alpha * alpha; e++) {
    GiltValue *idx[3] = {lower_index(l, e), block, c0};
    lower_lanes_store(l, &t->v, NULL, d[e], t->vt, idx);
  }
}

/* ---- the alpha^2 products ------------------------------------------------------- */

static GiltValue *tile_load_a(Lower *l, const LowerTileAt *at, size_t i,
                              void *user)
{
  BlockedWinograd *t = user;
  GiltValue *idx[3] = {t->e, at->rows[i], at->red[0]};
  return lower_load(l, t->vt, idx);
}

static GiltValue *tile_load_b(Lower *l, const LowerTileAt *at, size_t v,
                              void *user)
{
  BlockedWinograd *t = user;
  GiltValue *panel = ix_add(l, t->first_panel, at->nb);
  GiltValue *idx[3] = {panel, at->red[0],
                       lower_index(l, (int64_t)v * LOWER_F32_LANES)};
  return lower_lanes_load(l, &t->v, NULL, t->u, idx);
}

static void tile_store(Lower *l, const LowerTileAt *at, size_t i, size_t v,
                       GiltValue *sums, void *user)
{
  BlockedWinograd *t = user;
  GiltValue *idx[3] = {t->e, at->rows[i], at->cols[v]};
  lower_lanes_store(l, &t->v, at->masks[v], sums, t->m, idx);
}

/* Element ivs[0]'s product: [T, C] x [C, OC]. */
static void product_body(Lower *l, GiltValue *const *ivs, void *user)
{
  BlockedWinograd *t = user;
  t->e = ivs[0];
  t->first_panel = ix_mul(l, t->e, lower_index(l, t->panels));
  LowerTiles tiles = {
      .algorithm = t->f->algorithm,
      .m = t->blocks,
      .n = t->oc,
      .rows = lower_tile_rows(l, t->block_count),
      .vectors = lower_tile_vectors(l),
      .num_reductions = 1,
      .reductions = {t->c},
      .b_panels = t->u,
      .b_first = t->first_panel,
      .load_a = tile_load_a,
      .load_b = tile_load_b,
      .store = tile_store,
      .user = t,
  };
  lower_tiles(l, &tiles);
}

/* ---- the output transform ------------------------------------------------------ */

/* Y of block (bh, bw) and output channel block ob: ivs are (ob, bh, bw). */
static void output_body(Lower *l, GiltValue *const *ivs, void *user)
{
  BlockedWinograd *t = user;
  const LowerWindow *w = t->w;
  int m = t->f->m, alpha = t->f->alpha;
  GiltValue *block = ix_add(l, ix_mul(l, ivs[1], t->block_cols), ivs[2]);
  GiltValue *c0 = ix_mul(l, ivs[0], lower_index(l, LOWER_F32_LANES));
  GiltValue *mv[WINOGRAD_MAX_ALPHA * WINOGRAD_MAX_ALPHA];
  for (int e = 0; e < alpha * alpha; e++) {
    GiltValue *idx[3] = {lower_index(l, e), block, c0};
    mv[e] = lower_lanes_load(l, &t->v, NULL, t->m, idx);
  }
  GiltValue *y[WINOGRAD_MAX_ALPHA * WINOGRAD_MAX_ALPHA];
  winograd_output(l, &t->v, t->f, mv, y);
  GiltValue *bias =
      t->bias ? lower_lanes_load(l, &t->v, NULL, t->bias, &c0) : NULL;
  GiltValue *zero = lower_index(l, 0);
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++) {
      GiltValue *p[2], *inside = NULL;
      int offset[2] = {a, b};
      for (size_t d = 0; d < 2; d++) {
        p[d] = ix_add(l, ix_mul(l, ivs[1 + d], lower_index(l, m)),
                      lower_index(l, offset[d]));
        if (!t->partial)
          continue;
        /* A pixel past Y's edge is not stored: its store and the
        ** residual's load are masked off, at a position clamped into Y. */
        GiltValue *in = lower_cmp(l, "slt", p[d], w->out[d]);
        inside = inside ? lower_binary(l, LOOP_OP_ANDI, inside, in) : in;
        p[d] = ix_min(l, p[d], ix_sub(l, w->out[d], lower_index(l, 1)));
      }
      GiltValue *mask = inside ? lower_lanes_mask_all(l, &t->v, inside) : NULL;
      GiltValue *sum = y[a * m + b];
      if (bias)
        sum = lower_lanes_add(l, sum, bias);
      GiltValue *idx[5] = {t->n, ivs[0], p[0], p[1], zero};
      sum = lower_epilogue_apply_at(l, &t->epilogue, &t->v, mask, sum, idx);
      lower_lanes_store(l, &t->v, mask, sum, t->y, idx);
    }
}

/* One image: its V, its alpha^2 products, its Y. ivs are (n). */
static void image_body(Lower *l, GiltValue *const *ivs, void *user)
{
  BlockedWinograd *t = user;
  t->n = ivs[0];
  GiltValue *lanes = lower_index(l, LOWER_F32_LANES);
  GiltValue *block_rows = ix_div(l, t->blocks, t->block_cols);
  GiltValue *in_dims[3] = {ix_div(l, t->c, lanes), block_rows,
                           t->block_cols};
  lower_parallel(l, 3, in_dims, input_body, t);
  GiltValue *elements = lower_index(l, t->f->alpha * t->f->alpha);
  lower_parallel(l, 1, &elements, product_body, t);
  GiltValue *out_dims[3] = {ix_div(l, t->oc, lanes), block_rows,
                            t->block_cols};
  lower_parallel(l, 3, out_dims, output_body, t);
}

/* ---- the cost model ----------------------------------------------------------- */

/* F(m x m)'s time at the layer as a share of the direct tiles', both in
** multiply-adds of one output and one channel pair: the products' over
** the rows the tiles compute (T, or OH * OW, rounded up to whole tiles);
** the transforms' vector operations, 16 lanes each; and the weights'
** floats, streamed from memory once a run, weight_float_cost each.
** Measured on a Zen 3 core, one thread (the direct tiles' time, then
** Winograd's share of it, model in brackets): ResNet's 256 channels at
** 14x14, 2.60 ms, F(2x2) .53 [.51], F(4x4) .51 [.52]; 512 at 7x7, 2.90
** ms, F(2x2) .75 [.80], F(4x4) .77 [.90]. */
static double winograd_cost(const Lower *l, const WinogradTile *f, int64_t c,
                            int64_t oc, int64_t oh, int64_t ow)
{
  double a2 = f->alpha * f->alpha;
  int64_t blocks = (oh + f->m - 1) / f->m * ((ow + f->m - 1) / f->m);
  int64_t rows = (int64_t)lower_tile_rows(l, blocks);
  double computed = (double)((blocks + rows - 1) / rows * rows);
  double bt_ops = winograd_input_ops(f), at_ops = winograd_output_ops(f);
  /* Per block and 16 channels: loads, selects and stores; per block and
  ** 16 output channels: loads and the m^2 stores. */
  double input = (double)c / LOWER_F32_LANES * (3 * a2 + bt_ops);
  double output = (double)oc / LOWER_F32_LANES * (a2 + at_ops + f->m * f->m);
  double winograd = a2 * (double)c * (double)oc * computed +
                    LOWER_F32_LANES * (double)blocks * (input + output) +
                    weight_float_cost(l) * a2 * (double)c * (double)oc;
  int64_t outputs = oh * ow;
  int64_t direct_rows = (int64_t)lower_tile_rows(l, outputs);
  double direct_computed =
      (double)((outputs + direct_rows - 1) / direct_rows * direct_rows);
  double direct = 9.0 * (double)c * (double)oc * direct_computed +
                  weight_float_cost(l) * 9.0 * (double)c * (double)oc;
  return winograd / direct;
}

int lower_conv_winograd_nchwc_apply(Lower *l, const LowerWindow *w,
                                    GiltValue *weights, int64_t in_block)
{
  GiltType *wt = gilt_value_get_type(weights);
  GiltType *yt = lower_result_type(l, 0);
  const int64_t *k = wt->shaped.shape;
  int64_t oh = yt->shaped.shape[2], ow = yt->shaped.shape[3];
  GiltAttr *value = lower_value_constant(l, weights);
  if (w->n != 2 || in_block != LOWER_F32_LANES || w->strides[0] != 1 ||
      w->strides[1] != 1 || w->dilations[0] != 1 || w->dilations[1] != 1 ||
      k[2] != 3 || k[3] != 3 || k[0] == GILT_DYNAMIC ||
      k[0] % LOWER_F32_LANES || k[1] == GILT_DYNAMIC ||
      k[1] % LOWER_F32_LANES || oh == GILT_DYNAMIC || ow == GILT_DYNAMIC ||
      oh <= 0 || ow <= 0 || !value || gilt_dense_attr_is_splat(value))
    return 0;
  size_t nbytes;
  gilt_dense_attr_get_data(value, &nbytes);
  if (nbytes != (size_t)(k[0] * k[1] * 9) * sizeof(float))
    return 0;
  double cost[2];
  int best = -1;
  for (int i = 0; i < 2; i++) {
    cost[i] = winograd_cost(l, &WINOGRAD_TILES[i], k[1], k[0], oh, ow);
    if (cost[i] < CHOSEN_BELOW && (best < 0 || cost[i] < cost[best]))
      best = i;
  }
  int m = best < 0 ? 0 : WINOGRAD_TILES[best].m;
  GiltRemarkArg args[3] = {{"block", NULL, m},
                           {"cost_f2x2_per_mille", NULL,
                            (int64_t)(cost[0] * 1000)},
                           {"cost_f4x4_per_mille", NULL,
                            (int64_t)(cost[1] * 1000)}};
  gilt_remark(l->op, "tiling", m ? "winograd-nchwc" : "no-winograd-nchwc", 3,
              args,
              "%s%s in NCHW16c: F(2x2, 3x3) would take %.2f and F(4x4, 3x3) "
              "%.2f of the direct tiles' time (rows of blocks, transforms, "
              "weights streamed)",
              m ? "chose Winograd " : "did not choose Winograd",
              m ? WINOGRAD_TILES[best].name : "", cost[0], cost[1]);
  return m;
}

/* ---- the convolution --------------------------------------------------------- */

GiltValue *lower_conv_winograd_nchwc(Lower *l, LowerWindow *w, GiltValue *x,
                                     GiltValue *weights, GiltValue *bias,
                                     GiltValue *const *ydims, int m)
{
  BlockedWinograd t = {.f = &WINOGRAD_TILES[m == 4], .w = w, .x = x,
                       .bias = bias};
  lower_lanes_init(l, &t.v, gilt_float_type_get(l->ctx, GILT_F32));
  lower_epilogue_read(l, &t.epilogue);
  int64_t columns = (int64_t)lower_tile_vectors(l) * LOWER_F32_LANES;
  t.u = transform_weights(l, &t, weights, columns);
  GiltType *wt = gilt_value_get_type(weights);
  GiltType *yt = lower_result_type(l, 0);
  int64_t oc = wt->shaped.shape[0], c = wt->shaped.shape[1];
  int64_t oh = yt->shaped.shape[2], ow = yt->shaped.shape[3];
  int64_t block_rows = (oh + m - 1) / m, block_cols = (ow + m - 1) / m;
  int64_t blocks = block_rows * block_cols;
  int64_t elements = t.f->alpha * t.f->alpha;
  t.partial = oh % m || ow % m;
  t.c = lower_index(l, c);
  t.oc = lower_index(l, oc);
  t.block_count = blocks;
  t.blocks = lower_index(l, blocks);
  t.block_cols = lower_index(l, block_cols);
  GiltRemarkArg args[1] = {{"elements", NULL, elements}};
  gilt_remark(l->op, "layout", "winograd-domain-nchwc", 1, args,
              "computes in Winograd's domain with channels along the "
              "vectors: U, the weights transformed at compile time, packed "
              "as the tiles read B, [%" PRId64 " * ceil(OC / %" PRId64
              "), C, %" PRId64 "]; V, X's blocks transformed, [%" PRId64
              ", blocks, C], and the products M, [%" PRId64
              ", blocks, OC], transformed back into Y's NCHW16c",
              elements, columns, columns, elements, elements);
  int64_t vshape[3] = {elements, blocks, c};
  t.vt = lower_alloc(
      l, gilt_memref_type_get(l->ctx, 3, vshape, t.v.elem, NULL, NULL), NULL);
  int64_t mshape[3] = {elements, blocks, oc};
  t.m = lower_alloc(
      l, gilt_memref_type_get(l->ctx, 3, mshape, t.v.elem, NULL, NULL), NULL);
  t.y = lower_alloc_result(l, 0, ydims);
  lower_nest(l, 1, ydims, image_body, &t);
  return t.y;
}
