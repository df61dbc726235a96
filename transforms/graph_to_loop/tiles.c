/*
** tiles.c - the register-blocked kernel the f32 contractions share
** (matmul.c, conv.c): C[m, n] = sum over the reduction of A(m, r) * B(r, n)
** computed by tiles of MR rows and NV vectors of 16 columns, the
** MR x NV accumulators carried in registers through the reduction loops:
**
**   parallel (nb, mb) or (mb, nb):     rows m0 + i, columns n0 + 16 v
**     acc[i][v] = 0
**     for r...:                        the caller's reduction loops
**       b[v] = B(r, n0 + 16 v)         NV vector loads
**       for i < MR: a = splat(A(m0 + i, r)); acc[i][v] = fma(a, b[v], acc)
**     store(m0 + i, n0 + 16 v, acc[i][v]) for the rows that exist
**
** Each step of the innermost loop does MR * NV multiply-adds for NV
** vector loads and MR broadcasts, where an untiled kernel does one for a
** load and a broadcast: that ratio is what lets the FMA units, not the
** loads, set the speed (TVM's and BLIS's micro-kernels, and oneDNN's
** direct convolution, are this shape). MR * NV accumulators plus NV
** loaded vectors plus one broadcast must fit in the 32 vector registers
** of AVX-512: callers use 6 x 2 or 4 x 3 or so.
**
** Rows past M (the last tile of rows) compute on the last row and are not
** stored, so that the inner loop has no conditions; columns past N are
** masked lanes. Where the last tile of columns can hold 16 or fewer
** (N static and a few tiles wide, or the caller says so), a tile that
** has no more than that left computes one vector of columns instead of
** NV: SqueezeNet's classifier, 169 columns, would else compute 192. The
** reduction keeps its order per output element (the caller's loops,
** outermost first), so results are the untiled kernel's bit for bit.
*/
#include "transforms/graph_to_loop/tiles.h"

#include <inttypes.h>

#include "gilt/remarks.h"

/* The most tiles of columns for which a narrow last one is emitted: it
** saves one vector of each row's multiply-adds, some 5% here, less past
** it, and each kernel it is emitted for is compiled twice over
** (MobileNetV2's 28x28 layers, 784 columns, would save 2% of their
** products for a tenth more of the model's compile time). */
#define NARROW_TAIL_MAX_TILES 10

typedef struct Tile {
  const LowerTiles *t;
  LowerLanes v;
  LowerTileAt at;
  size_t depth;
  size_t vectors;  /* of the tile being emitted: t->vectors, or 1 */
  bool rows_outer; /* the loop over tiles: rows outer (else columns) */
  /* The last tile of columns can hold 16 columns or fewer: such a tile is
  ** emitted apart, one vector wide. */
  bool narrow_tail;
  /* Whether a tile of t->vectors, and a narrow one, may pass N: their
  ** vectors need masks. */
  bool wide_masks, narrow_masks;
  GiltValue *masks[LOWER_TILE_MAX_VECTORS]; /* when they do */
} Tile;

static void reduction_level(Lower *l, GiltValue *iv, GiltValue *const *acc,
                            GiltValue **next, void *user);

/* The multiply-adds of one step of the reduction, or the loop at depth. */
static void reduce(Lower *l, Tile *tile, GiltValue *const *acc,
                   GiltValue **next)
{
  const LowerTiles *t = tile->t;
  size_t nv = tile->vectors, n = t->rows * nv;
  if (tile->depth < t->num_reductions) {
    lower_for_upto(l, t->reductions[tile->depth], n, acc, next, reduction_level,
                   tile);
    return;
  }
  GiltValue *b[LOWER_TILE_MAX_VECTORS];
  for (size_t v = 0; v < nv; v++)
    b[v] = t->load_b(l, &tile->at, v, t->user);
  for (size_t i = 0; i < t->rows; i++) {
    GiltValue *a =
        lower_lanes_splat(l, &tile->v, t->load_a(l, &tile->at, i, t->user));
    for (size_t v = 0; v < nv; v++)
      next[i * nv + v] = lower_lanes_fma(l, a, b[v], acc[i * nv + v]);
  }
}

static void reduction_level(Lower *l, GiltValue *iv, GiltValue *const *acc,
                            GiltValue **next, void *user)
{
  Tile *tile = user;
  tile->at.red[tile->depth++] = iv;
  reduce(l, tile, acc, next);
  tile->depth--;
}

typedef struct StoreRow {
  Tile *tile;
  size_t i;
  GiltValue *const *sums;
} StoreRow;

static void store_row(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  StoreRow *s = user;
  const LowerTiles *t = s->tile->t;
  for (size_t v = 0; v < s->tile->vectors; v++)
    t->store(l, &s->tile->at, s->i, v, s->sums[v], t->user);
}

/* The value of a size known at compile time (a constant, or a product
** of them as the callers build OH * OW), or -1. */
static int64_t constant_size(GiltValue *v)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  if (def && loop_op_is(def, LOOP_OP_MULI)) {
    int64_t a = constant_size(gilt_op_get_operand(def, 0));
    int64_t b = constant_size(gilt_op_get_operand(def, 1));
    return a >= 0 && b >= 0 ? a * b : -1;
  }
  GiltAttr *value = def && loop_op_is(def, LOOP_OP_CONSTANT)
                        ? gilt_op_get_attr(def, "value")
                        : NULL;
  return value ? gilt_integer_attr_get_value(value) : -1;
}

/* The accumulators of a tile of tile->vectors vectors, through the
** reduction, stored. */
static void emit_tile(Lower *l, Tile *tile, bool masked)
{
  const LowerTiles *t = tile->t;
  LowerTileAt *at = &tile->at;
  for (size_t v = 0; v < tile->vectors; v++)
    at->masks[v] = masked ? tile->masks[v] : NULL;
  size_t n = t->rows * tile->vectors;
  GiltValue *init[LOWER_TILE_MAX_ROWS * LOWER_TILE_MAX_VECTORS];
  GiltValue *acc[LOWER_TILE_MAX_ROWS * LOWER_TILE_MAX_VECTORS];
  for (size_t i = 0; i < n; i++)
    init[i] = lower_lanes_zero(&tile->v);
  tile->depth = 0;
  reduce(l, tile, init, acc);
  for (size_t i = 0; i < t->rows; i++) {
    StoreRow s = {tile, i, acc + i * tile->vectors};
    if (i == 0)
      store_row(l, NULL, &s);
    else
      lower_if(l,
               lower_cmp(l, "slt",
                         lower_plus(l, at->m0, lower_index(l, (int64_t)i)),
                         t->m),
               store_row, NULL, &s);
  }
}

static void narrow_tile(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Tile *tile = user;
  tile->vectors = 1;
  emit_tile(l, tile, tile->narrow_masks);
}

static void wide_tile(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Tile *tile = user;
  tile->vectors = tile->t->vectors;
  emit_tile(l, tile, tile->wide_masks);
}

static void tile_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Tile *tile = user;
  const LowerTiles *t = tile->t;
  LowerTileAt *at = &tile->at;
  at->nb = ivs[tile->rows_outer];
  at->mb = ivs[!tile->rows_outer];
  at->m0 = lower_times(l, at->mb, lower_index(l, (int64_t)t->rows));
  at->n0 = lower_times(l, at->nb,
                       lower_index(l, (int64_t)(t->vectors * LOWER_F32_LANES)));
  GiltValue *last = lower_minus(l, t->m, lower_index(l, 1));
  for (size_t i = 0; i < t->rows; i++)
    at->rows[i] =
        i == 0 ? at->m0
               : lower_binary(l, LOOP_OP_MINSI,
                              lower_plus(l, at->m0, lower_index(l, (int64_t)i)),
                              last);
  bool masks = tile->wide_masks || tile->narrow_masks;
  for (size_t v = 0; v < t->vectors; v++) {
    at->cols[v] =
        lower_plus(l, at->n0, lower_index(l, (int64_t)(v * LOWER_F32_LANES)));
    tile->masks[v] =
        masks ? lower_lanes_mask(l, &tile->v, lower_minus(l, t->n, at->cols[v]))
              : NULL;
  }
  if (!tile->narrow_tail) {
    wide_tile(l, NULL, tile);
    return;
  }
  GiltValue *left = lower_minus(l, t->n, at->n0);
  lower_if(l, lower_cmp(l, "sle", left, lower_index(l, LOWER_F32_LANES)),
           narrow_tile, wide_tile, tile);
}

/* The remarks `--explain=tiling,vectorize` print at the op. */
static void remark(Lower *l, const LowerTiles *t, bool narrow_tail)
{
  int64_t cols = (int64_t)(t->vectors * LOWER_F32_LANES);
  GiltRemarkArg tile[3] = {{"algorithm", t->algorithm, 0},
                           {"tile_rows", NULL, (int64_t)t->rows},
                           {"tile_cols", NULL, cols}};
  gilt_remark(l->op, "tiling", t->algorithm, 3, tile,
              "%s: register tiles of %zu x %" PRId64 " (%zu vector "
              "accumulators) over packed operands, parallel over tiles%s",
              t->algorithm, t->rows, cols, t->rows * t->vectors,
              narrow_tail ? "; a last tile of 16 columns or fewer is one "
                            "vector wide"
                          : "");
  GiltRemarkArg lanes[1] = {{"lanes", NULL, LOWER_F32_LANES}};
  gilt_remark(l->op, "vectorize", "vectorized", 1, lanes,
              "vectorized: %d f32 lanes, a broadcast of A times a vector of "
              "B per fused multiply-add",
              LOWER_F32_LANES);
}

void lower_tiles(Lower *l, const LowerTiles *t)
{
  GILT_ASSERT(t->rows >= 1 && t->rows <= LOWER_TILE_MAX_ROWS);
  GILT_ASSERT(t->vectors >= 1 && t->vectors <= LOWER_TILE_MAX_VECTORS);
  GILT_ASSERT(t->num_reductions <= LOWER_TILE_MAX_REDUCTIONS);
  /* The larger operand streams once and the smaller is read again from
  ** the caches: columns outer, the tiles of one panel of B follow each
  ** other, so that it stays in L2 while the panels of A, a few KB each,
  ** stream past; rows outer when A has more rows than B has columns (a
  ** 1x1 convolution of many channels on a 7x7 or 13x13 image, whose
  ** weights would else come from L3 once per panel of B). The outer loop
  ** is also the one the threads share. */
  int64_t m = constant_size(t->m), n = constant_size(t->n);
  Tile tile = {.t = t, .rows_outer = m >= 0 && n >= 0 && m > n};
  /* Masks wherever a tile may pass N, which only a static N rules out. */
  int64_t width = (int64_t)(t->vectors * LOWER_F32_LANES);
  int64_t rem = n >= 0 ? n % width : -1;
  tile.narrow_tail =
      t->vectors > 1 &&
      (n >= 0 ? rem > 0 && rem <= LOWER_F32_LANES &&
                    (n + width - 1) / width <= NARROW_TAIL_MAX_TILES
              : t->narrow_tail);
  tile.wide_masks = n < 0 || (rem != 0 && !tile.narrow_tail);
  tile.narrow_masks = n < 0 || rem % LOWER_F32_LANES != 0;
  remark(l, t, tile.narrow_tail);
  lower_lanes_init(l, &tile.v, gilt_float_type_get(l->ctx, GILT_F32));
  GiltValue *col_tiles =
      lower_binary(l, LOOP_OP_CEILDIVSI, t->n,
                   lower_index(l, (int64_t)(t->vectors * LOWER_F32_LANES)));
  GiltValue *row_tiles = lower_binary(l, LOOP_OP_CEILDIVSI, t->m,
                                      lower_index(l, (int64_t)t->rows));
  GiltValue *uppers[2] = {tile.rows_outer ? row_tiles : col_tiles,
                          tile.rows_outer ? col_tiles : row_tiles};
  lower_parallel(l, 2, uppers, tile_body, &tile);
}
