/*
** conv_winograd.c - 3x3 convolutions of stride 1 by Winograd's minimal
** filtering F(2x2, 3x3) (Lavin and Gray 2016; TVM's, NNPACK's and
** oneDNN's): each 2x2 block of outputs from a 4x4 block of inputs takes 16
** multiplies per channel pair instead of 36, so the product that
** dominates costs 2.25 times fewer multiply-adds:
**
**   U[e] = (G g G^T)[e]   per filter g, at compile time (e one of 16)
**   V[e] = (B^T d B)[e]   per input block d and channel
**   M[e] = U[e] V[e]      16 products [OC, C] x [C, blocks] (tiles.c)
**   Y    = A^T M A        per output block and channel, bias and the
**                         fused activation added
**
** with the standard G, B^T and A^T of F(2, 3). Its error stays within a
** few ulps of the direct sum's for these small integers in the
** transforms, well inside the models' tolerance.
**
** Blocks run along the padded input's rows, as the direct path's wide
** positions do (conv_tiled.c): the input is split into 2x2 phase planes,
** so that block (bh, bw)'s pixel (i, j) is plane (i % 2, j % 2)'s
** element (bh + i / 2, bw + j / 2): 16 consecutive blocks of a row read
** 16 consecutive floats of each plane, and V[e] is [C, rows of blocks
** end to end], a B operand the tiles read with vector loads. Blocks past
** the output's right edge are computed and dropped.
*/
#include "transforms/graph_to_loop/tiles.h"

#include <inttypes.h>
#include <string.h>

#include "gilt/remarks.h"
#include "transforms/graph_to_loop/indexing.h"

typedef struct Winograd {
  LowerWindow *w;
  LowerLanes v;
  LowerEpilogue epilogue;
  GiltValue *x, *y, *bias;
  GiltValue *planes, *pitch; /* the input's 2x2 phase planes */
  GiltValue *u, *vt, *m;     /* transformed weights, inputs, products */
  GiltValue *blocks;         /* block rows * pitch: the products' width */
  GiltValue *n, *e;          /* the batch and transform-element indices */
  int64_t oc_blocks;         /* ceil(OC / 6): U's panels per element */
} Winograd;

/* ---- weights, at compile time ------------------------------------------- */

/* U = G g G^T for the 3x3 filter g, G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1]. */
static void transform_filter(const float *g, double *u)
{
  static const double G[4][3] = {
      {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  double gg[4][3];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++)
      gg[i][j] = G[i][0] * g[j] + G[i][1] * g[3 + j] + G[i][2] * g[6 + j];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      u[i * 4 + j] = gg[i][0] * G[j][0] + gg[i][1] * G[j][1] +
                     gg[i][2] * G[j][2];
}

/* U as the tiles read A: [16 * ceil(OC/6), C, 6], element e's panels
** first, rows past OC repeating the last. NULL when the weights are not
** a constant. */
static GiltValue *transform_weights(Lower *l, Winograd *t, GiltValue *weights)
{
  GiltType *wt = gilt_value_get_type(weights);
  int64_t oc = wt->shaped.shape[0], c = wt->shaped.shape[1];
  GiltAttr *value = lower_value_constant(l, weights);
  size_t nbytes;
  const unsigned char *data =
      value && !gilt_dense_attr_is_splat(value)
          ? gilt_dense_attr_get_data(value, &nbytes)
          : NULL;
  if (!data || nbytes != (size_t)(oc * c * 9) * sizeof(float))
    return NULL;
  t->oc_blocks = (oc + 5) / 6;
  int64_t shape[3] = {16 * t->oc_blocks, c, 6};
  size_t count = (size_t)(shape[0] * c * 6);
  float *packed = gilt_malloc(l->ctx, count * sizeof *packed);
  for (int64_t o = 0; o < t->oc_blocks * 6; o++)
    for (int64_t k = 0; k < c; k++) {
      float g[9];
      int64_t src = o < oc ? o : oc - 1;
      memcpy(g, data + (size_t)((src * c + k) * 9) * sizeof(float), sizeof g);
      double u[16];
      transform_filter(g, u);
      for (int e = 0; e < 16; e++)
        packed[((e * t->oc_blocks + o / 6) * c + k) * 6 + o % 6] = (float)u[e];
    }
  GiltType *type = gilt_tensor_type_get(l->ctx, 3, shape, t->v.elem, NULL);
  GiltValue *g = lower_global(
      l, gilt_dense_elements_attr_get(type, packed, count * sizeof *packed));
  gilt_free(l->ctx, packed);
  return g;
}

/* ---- inputs ----------------------------------------------------------------- */

/* The 16 input vectors of 16 consecutive blocks from (n, c, block row bh,
** first block bw), d[i * 4 + j] from plane (i % 2, j % 2). */
static void load_blocks(Lower *l, Winograd *t, GiltValue *const *at,
                        GiltValue **d)
{
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      GiltValue *row = ix_add(l, at[2], lower_index(l, i / 2));
      GiltValue *plane = lower_index(l, (i % 2) * 2 + j % 2);
      GiltValue *row_start = ix_mul(l, row, t->pitch);
      GiltValue *col = ix_add(l, at[3], lower_index(l, j / 2));
      GiltValue *idx[4] = {at[0], plane, at[1], ix_add(l, row_start, col)};
      d[i * 4 + j] = lower_lanes_load(l, &t->v, NULL, t->planes, idx);
    }
}

/* B^T x B's rows or columns: (x0 - x2, x1 + x2, x2 - x1, x1 - x3). */
static void bt(Lower *l, GiltValue *const *x, size_t step, GiltValue **out)
{
  out[0] = lower_minus(l, x[0], x[2 * step]);
  out[step] = lower_plus(l, x[step], x[2 * step]);
  out[2 * step] = lower_minus(l, x[2 * step], x[step]);
  out[3 * step] = lower_minus(l, x[step], x[3 * step]);
}

static void input_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Winograd *t = user;
  GiltValue *bw = ix_mul(l, ivs[3], lower_index(l, LOWER_F32_LANES));
  GiltValue *at[4] = {ivs[0], ivs[1], ivs[2], bw};
  GiltValue *d[16], *rows[16], *v[16];
  load_blocks(l, t, at, d);
  for (int j = 0; j < 4; j++)
    bt(l, d + j, 4, rows + j);
  for (int i = 0; i < 4; i++)
    bt(l, rows + i * 4, 1, v + i * 4);
  GiltValue *col = ix_add(l, ix_mul(l, ivs[2], t->pitch), bw);
  for (int e = 0; e < 16; e++) {
    GiltValue *idx[4] = {ivs[0], lower_index(l, e), ivs[1], col};
    lower_lanes_store(l, &t->v, NULL, v[e], t->vt, idx);
  }
}

/* ---- the 16 products ------------------------------------------------------- */

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
  GiltValue *idx[4] = {t->n, t->e, at->red[0], at->cols[v]};
  return lower_lanes_load(l, &t->v, NULL, t->vt, idx);
}

static void tile_store(Lower *l, const LowerTileAt *at, size_t i, size_t v,
                       GiltValue *sums, void *user)
{
  Winograd *t = user;
  GiltValue *idx[4] = {t->n, t->e, at->rows[i], at->cols[v]};
  lower_lanes_store(l, &t->v, at->masks[v], sums, t->m, idx);
}

static void product_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Winograd *t = user;
  t->n = ivs[0];
  t->e = ivs[1];
  LowerTiles tiles = {
      .algorithm = "winograd-f2x2-3x3",
      .m = lower_dim(l, t->y, 1),
      .n = t->blocks,
      .rows = 6,
      .vectors = 2,
      .num_reductions = 1,
      .reductions = {lower_dim(l, t->x, 1)},
      .load_a = tile_load_a,
      .load_b = tile_load_b,
      .store = tile_store,
      .user = t,
  };
  lower_tiles(l, &tiles);
}

/* ---- outputs ------------------------------------------------------------------ */

/* A^T x A's rows or columns: (x0 + x1 + x2, x1 - x2 - x3). */
static void at_(Lower *l, GiltValue *const *x, size_t step, GiltValue **out)
{
  out[0] = lower_plus(l, lower_plus(l, x[0], x[step]), x[2 * step]);
  out[step] = lower_minus(l, lower_minus(l, x[step], x[2 * step]),
                          x[3 * step]);
}

typedef struct StoreIf {
  const Winograd *t;
  GiltValue *value;
  GiltValue *const *at;
} StoreIf;

/* The epilogue reads the residual at the output, so it is applied only
** where there is one. */
static void store_then(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  const StoreIf *s = user;
  GiltValue *v =
      lower_epilogue_apply_at(l, &s->t->epilogue, NULL, NULL, s->value, s->at);
  lower_store(l, v, s->t->y, s->at);
}

static void output_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Winograd *t = user;
  GiltValue *bw = ix_mul(l, ivs[3], lower_index(l, LOWER_F32_LANES));
  GiltValue *col = ix_add(l, ix_mul(l, ivs[2], t->pitch), bw);
  GiltValue *m[16], *rows[8], *y[4];
  for (int e = 0; e < 16; e++) {
    GiltValue *idx[4] = {ivs[0], lower_index(l, e), ivs[1], col};
    m[e] = lower_lanes_load(l, &t->v, NULL, t->m, idx);
  }
  for (int j = 0; j < 4; j++) /* rows[a * 4 + j] */
    at_(l, m + j, 4, rows + j);
  for (int a = 0; a < 2; a++)
    at_(l, rows + a * 4, 1, y + a * 2);
  GiltValue *bias = t->bias ? lower_load(l, t->bias, &ivs[1]) : NULL;
  /* Each lane is one block: its 2x2 outputs go one by one, those past
  ** the output's edges not at all. */
  for (int k = 0; k < LOWER_F32_LANES; k++) {
    GiltValue *bwk = ix_add(l, bw, lower_index(l, k));
    for (int a = 0; a < 2; a++)
      for (int b = 0; b < 2; b++) {
        GiltValue *oh = ix_mul(l, ivs[2], lower_index(l, 2));
        oh = ix_add(l, oh, lower_index(l, a));
        GiltValue *ow = ix_mul(l, bwk, lower_index(l, 2));
        ow = ix_add(l, ow, lower_index(l, b));
        GiltValue *ops[2] = {y[a * 2 + b], lower_index(l, k)};
        GiltValue *v = lower_emit(l, LOOP_OP_EXTRACT, t->v.elem, 2, ops);
        if (bias)
          v = lower_plus(l, v, bias);
        GiltValue *row_inside = lower_cmp(l, "slt", oh, t->w->out[0]);
        GiltValue *inside = lower_binary(l, LOOP_OP_ANDI, row_inside,
                                         lower_cmp(l, "slt", ow, t->w->out[1]));
        GiltValue *to[4] = {ivs[0], ivs[1], oh, ow};
        StoreIf store = {t, v, to};
        lower_if(l, inside, store_then, NULL, &store);
      }
  }
}

/* ---- the convolution --------------------------------------------------------- */

/* The share of the products' columns that are blocks of real outputs:
** rows of blocks are padded to whole vectors and the products to whole
** panels of 32; 0 when the output's size is not static. */
static double block_efficiency(Lower *l)
{
  GiltType *yt = lower_result_type(l, 0);
  int64_t oh = yt->shaped.shape[2], ow = yt->shaped.shape[3];
  if (oh == GILT_DYNAMIC || ow == GILT_DYNAMIC || oh <= 0 || ow <= 0)
    return 0;
  int64_t rows = (oh + 1) / 2, cols = (ow + 1) / 2;
  int64_t pitch = (cols + LOWER_F32_LANES - 1) / LOWER_F32_LANES *
                      LOWER_F32_LANES + 1;
  int64_t width = (rows * pitch + 31) / 32 * 32;
  return (double)(rows * cols) / (double)width;
}

/* Whether the layer is one F(2x2, 3x3) computes: 3x3, stride and
** dilation 1, one group, f32, static channels and constant weights. */
static bool winograd_shape(Lower *l, const LowerWindow *w, GiltType *xt,
                           GiltType *wt, GiltValue *weights, int64_t group)
{
  return w->n == 2 && group == 1 && w->strides[0] == 1 &&
         w->strides[1] == 1 && w->dilations[0] == 1 &&
         w->dilations[1] == 1 && wt->shaped.shape[2] == 3 &&
         wt->shaped.shape[3] == 3 && wt->shaped.shape[0] != GILT_DYNAMIC &&
         xt->shaped.shape[1] != GILT_DYNAMIC &&
         lower_result_elem(l, 0) == gilt_float_type_get(l->ctx, GILT_F32) &&
         lower_value_constant(l, weights);
}

bool lower_conv_winograd_apply(Lower *l, const LowerWindow *w, GiltValue *x,
                               GiltValue *weights, int64_t group)
{
  GiltType *wt = gilt_value_get_type(weights);
  GiltType *xt = gilt_value_get_type(x);
  if (!winograd_shape(l, w, xt, wt, weights, group))
    return false;
  /* The cost model: F(2x2, 3x3) does 16 multiply-adds where the direct
  ** tiles do 36, but on fewer useful lanes when the output is small (7x7
  ** at ResNet's end: a third), and its transforms cost some 30% of its
  ** products; the direct tiles keep over 90% of theirs. Below some 32
  ** channels in and out the transforms cost more than the multiplies
  ** they save. */
  int64_t c = xt->shaped.shape[1], oc = wt->shaped.shape[0];
  double gain = block_efficiency(l) * 36.0 / 16.0;
  bool pays = c >= 32 && oc >= 32 && gain > 0.9 * 1.3;
  GiltRemarkArg args[3] = {{"gain_per_mille", NULL, (int64_t)(gain * 1000)},
                           {"channels_in", NULL, c},
                           {"channels_out", NULL, oc}};
  gilt_remark(l->op, "tiling", pays ? "winograd" : "no-winograd", 3, args,
              "%s Winograd F(2x2, 3x3): useful lanes x 36/16 multiply-adds "
              "gives %.2f (it pays above 1.17), %" PRId64 " channels in and "
              "%" PRId64 " out (it needs 32)",
              pays ? "chose" : "did not choose", gain, c, oc);
  return pays;
}

GiltValue *lower_conv_winograd(Lower *l, LowerWindow *w, GiltValue *x,
                               GiltValue *weights, GiltValue *bias)
{
  Winograd t = {.w = w, .x = x, .bias = bias};
  lower_lanes_init(l, &t.v, gilt_float_type_get(l->ctx, GILT_F32));
  lower_epilogue_read(l, &t.epilogue);
  t.u = transform_weights(l, &t, weights);
  if (!t.u)
    return NULL;
  GiltValue *two = lower_index(l, 2), *lanes = lower_index(l, LOWER_F32_LANES);
  GiltValue *block_rows = lower_binary(l, LOOP_OP_CEILDIVSI, w->out[0], two);
  GiltValue *block_cols = lower_binary(l, LOOP_OP_CEILDIVSI, w->out[1], two);
  /* A plane's row: every block of a row and its right neighbour's pixel,
  ** the whole padded row, and room for the last vector of blocks. */
  GiltValue *whole_vectors =
      ix_mul(l, lower_binary(l, LOOP_OP_CEILDIVSI, block_cols, lanes), lanes);
  t.pitch = ix_max(l, whole_vectors,
                   lower_binary(l, LOOP_OP_CEILDIVSI, w->extent[1], two));
  t.pitch = ix_add(l, t.pitch, lower_index(l, 1));
  GiltValue *plane_rows = ix_max(
      l, block_rows, lower_binary(l, LOOP_OP_CEILDIVSI, w->extent[0], two));
  plane_rows = ix_add(l, plane_rows, lower_index(l, 1));
  LowerPlanes planes = {x, NULL, {w->begin[0], w->begin[1]}, {2, 2}, t.pitch};
  lower_pad_planes(l, &planes, ix_mul(l, plane_rows, t.pitch));
  t.planes = planes.planes;

  /* The products' width: whole rows of blocks, rounded to the tiles'. */
  GiltValue *nr = lower_index(l, 2 * LOWER_F32_LANES);
  t.blocks = ix_mul(l, block_rows, t.pitch);
  GiltValue *width =
      ix_mul(l, lower_binary(l, LOOP_OP_CEILDIVSI, t.blocks, nr), nr);
  GiltValue *batch = lower_dim(l, x, 0), *c = lower_dim(l, x, 1);
  GiltValue *oc = lower_dim(l, weights, 0);
  int64_t dyn4[4] = {GILT_DYNAMIC, 16, GILT_DYNAMIC, GILT_DYNAMIC};
  GiltValue *vdims[4] = {batch, lower_index(l, 16), c, width};
  t.vt = lower_alloc(
      l, gilt_memref_type_get(l->ctx, 4, dyn4, t.v.elem, NULL, NULL), vdims);
  GiltValue *mdims[4] = {batch, lower_index(l, 16), oc, width};
  t.m = lower_alloc(
      l, gilt_memref_type_get(l->ctx, 4, dyn4, t.v.elem, NULL, NULL), mdims);
  GiltValue *ydims[4] = {batch, oc, w->out[0], w->out[1]};
  t.y = lower_alloc_result(l, 0, ydims);

  /* Blocks of a row go by vectors; the last vector runs past the row
  ** into its padding, which the pitch leaves room for. */
  GiltValue *vectors = lower_binary(l, LOOP_OP_CEILDIVSI, block_cols, lanes);
  GiltValue *in_dims[4] = {batch, c, block_rows, vectors};
  lower_parallel(l, 4, in_dims, input_body, &t);
  GiltValue *prod_dims[2] = {batch, lower_index(l, 16)};
  lower_nest(l, 2, prod_dims, product_body, &t);
  GiltValue *out_dims[4] = {batch, oc, block_rows, vectors};
  lower_parallel(l, 4, out_dims, output_body, &t);
  return t.y;
}
