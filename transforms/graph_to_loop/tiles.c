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
** loaded vectors plus one broadcast must fit in the target's vector
** registers: callers take the shape from lower_tile_vectors and
** lower_tile_rows, 6 to 8 x 2 with AVX-512's 32 registers of 16 lanes,
** 5 to 6 x 1 with AVX2's 16 of 8 lanes (each vector of 16 two registers;
** BLIS's Haswell kernel is the same 6 x 16). A tile too large for the
** registers spills its accumulators on every step: AVX2 ran the AVX-512
** shape at less than half the speed.
**
** A vector is 16 columns, or 8 where the caller's columns are NCHW8c's
** blocks of channels (LowerTiles.lanes), a tile then twice as many of
** them in the same registers.
**
** Rows past M (the last tile of rows) compute on the last row and are not
** stored, so that the inner loop has no conditions; columns past N are
** masked lanes. Only the last tile of columns can pass N, and it is
** emitted apart from the others, which load and store whole vectors: a
** mask costs AVX2 two of its 16 registers, which a tile's 15 leave no
** room for, and LLVM rebuilt the masks at every step of the reduction
** (SqueezeNet's 128 channels into 16 at 55x55, 3025 columns, ran 27%
** slower per column than at 56x56, 3136, before). Where the last tile
** can hold 16 columns or fewer (N static, or the caller says so), it
** computes one vector of columns instead of NV: SqueezeNet's classifier,
** 169 columns, would else compute 192. The
** reduction keeps its order per output element (the caller's loops,
** outermost first), so results are the untiled kernel's bit for bit.
**
** Rows outer, the tiles of rows go by groups whose rows of A over the
** whole reduction fit in L1, each group through every column of tiles
** before the next (row_group):
**
**   parallel (group g, nb, i < G):     the tile of rows g * G + i
**
** so that each column of tiles stores a group's rows as one run, where
** tile by tile the columns' stores (NCHW16c: one block of channels H * W
** * 16 floats from the next) were as many streams, a few rows each.
**
** Where B is read where it lies with its rows far apart and the caller
** asks (copy_panels: a 1x1 convolution reading X as [C, H * W]), each
** column of tiles keeps its panel of B, [reduction, NV * 16], in a
** buffer of its own, which the first tile of rows fills as it reads B:
**
**   parallel nb:
**     tile of rows 0, each b[v] loaded also stored: panel[r] = b[v]
**     for each tile of rows mb >= 1: the tile, B from panel
**
** Read in place, the rows of a panel are H * W floats apart: at 112x112,
** 50176 bytes, a multiple of 1024, so every fourth row falls in the same
** sets of L1, and the 32 rows of MobileNetV2's 32-into-16 projection
** evicted each other between its three tiles of rows (0.30 ms in the
** model, 0.19 where its buffers happened to lie apart; 0.22 copied).
** A copy made before the tiles, tried first, gained less there (0.28 to
** 0.26 ms): the first tile's multiply-adds hide the filling's stores.
**
** A panel of B of more than half of L2 (ResNet's 7x7 layers of 512
** channels: a panel of 32 channels is 4608 x 32 floats, 590 KB) is
** blocked along the outermost reduction, as BLIS blocks K:
**
**   parallel nb:
**     partial[nb] = 0
**     for each block of the outermost reduction:
**       for each tile of rows mb:
**         acc = partial[nb, mb]; the block's multiply-adds; partial[nb, mb] = acc
**     store(partial[nb, mb]) for each mb
**
** Each slice of the panel then comes from memory once and serves every
** tile of rows while it is in L1, so that its stream from DRAM spreads
** over all of the column's multiply-adds, where the tiles one after the
** other read the whole panel from memory during the first and again from
** L3 for each next one. The partial sums are f32 stored and reloaded in
** the reduction's order: the results do not change.
*/
#include "transforms/graph_to_loop/tiles.h"

#include <inttypes.h>
#include <stdio.h>

#include "gilt/remarks.h"

/* Panel blocking (above): for a panel of B larger than this, in bytes
** (half of a Zen core's 1 MB L2, which the panels of A share; ResNet's
** 295 KB panels at 256 channels measured no faster blocked), and by
** slices of at most this many bytes (L1 holds one with the tile's rows
** of A: 40 KB slices made those 256-channel layers slower). */
#define BLOCKED_PANEL_MIN_BYTES (512 * 1024)
#define PANEL_SLICE_MAX_BYTES (20 * 1024)
/* Blocking gives up the parallel loop over tiles of rows: only columns
** of at least this many tiles are shared among the threads well enough. */
#define BLOCKED_MIN_COLUMN_TILES 4
/* Groups of tiles of rows (row_group): a group's panel of A at most this
** many bytes, half of a Zen core's 32 KB L1. */
#define GROUP_PANEL_MAX_BYTES (16 * 1024)
/* The threads share the groups: at least this many, so that static
** chunks of them stay near even. */
#define GROUPS_MIN 8
/* The next panel of B goes to L2 (prefetcht1): L1 holds the current one. */
#define PREFETCH_LOCALITY 2
/* The f32 of a 64-byte cache line: what one prefetch brings. */
#define FLOATS_PER_LINE 16

typedef struct Tile {
  const LowerTiles *t;
  LowerLanes v;
  LowerTileAt at;
  size_t depth;
  size_t vectors;  /* of the tile being emitted: t->vectors, or 1 */
  bool rows_outer; /* the loop over tiles: rows outer (else columns) */
  /* Rows outer, the tiles of rows by groups of `group` (0: not grouped):
  ** each group's tiles for one tile of columns, then the next; whether
  ** the last group passes the last tile of rows. */
  int64_t group;
  bool ragged_group;
  /* The last tile of columns may pass N: it is emitted apart, masked;
  ** and when it can hold 16 columns or fewer, one vector wide. */
  bool ragged_tail, narrow_tail;
  /* Whether a narrow last tile may pass N too (else it ends at N). */
  bool narrow_masks;
  GiltValue *masks[LOWER_TILE_MAX_VECTORS]; /* when ragged_tail */
  /* Panel blocking: the outermost reduction by blocks of `block` (0: not
  ** blocked), the current block from `block_start`; the sums between
  ** blocks in `partial`, [column tiles, row tiles * rows, vectors * 16]. */
  int64_t block;
  GiltValue *block_start, *partial, *row_tiles;
  /* Panel copying (the caller's copy_panels, where it applies: `copied`):
  ** the current column's panel of B, [reductions..., vectors * 16], or
  ** NULL; whether the tile being emitted fills it. */
  bool copied;
  GiltValue *panel;
  bool filling;
  /* Prefetching (prefetches_panels): the panel the tile being emitted
  ** prefetches. */
  bool prefetching;
  GiltValue *next_panel;
} Tile;

static void reduction_level(Lower *l, GiltValue *iv, GiltValue *const *acc,
                            GiltValue **next, void *user);

/* The columns of one of t's vectors. */
static int64_t lanes_of(const LowerTiles *t)
{
  return t->lanes ? t->lanes : LOWER_F32_LANES;
}

/* The index of vector v at the current reduction step in tile->panel. */
static void panel_index(Lower *l, const Tile *tile, size_t v, GiltValue **idx)
{
  size_t d = tile->t->num_reductions;
  for (size_t i = 0; i < d; i++)
    idx[i] = tile->at.red[i];
  idx[d] = lower_index(l, (int64_t)v * lanes_of(tile->t));
}

/* B's vector v at the current reduction step: where it lies (kept in the
** panel too by the tile that fills it), or from the panel. */
static GiltValue *load_b(Lower *l, Tile *tile, size_t v)
{
  if (!tile->panel)
    return tile->t->load_b(l, &tile->at, v, tile->t->user);
  GiltValue *idx[LOWER_TILE_MAX_REDUCTIONS + 1];
  panel_index(l, tile, v, idx);
  if (!tile->filling)
    return lower_lanes_load(l, &tile->v, NULL, tile->panel, idx);
  GiltValue *b = tile->t->load_b(l, &tile->at, v, tile->t->user);
  lower_lanes_store(l, &tile->v, NULL, b, tile->panel, idx);
  return b;
}

/* The multiply-adds of one step of the reduction, or the loop at depth. */
static void reduce(Lower *l, Tile *tile, GiltValue *const *acc,
                   GiltValue **next)
{
  const LowerTiles *t = tile->t;
  size_t nv = tile->vectors, n = t->rows * nv;
  if (tile->depth < t->num_reductions) {
    GiltValue *upper = tile->depth == 0 && tile->block
                           ? lower_index(l, tile->block)
                           : t->reductions[tile->depth];
    lower_for_upto(l, upper, n, acc, next, reduction_level, tile);
    return;
  }
  GiltValue *b[LOWER_TILE_MAX_VECTORS];
  for (size_t v = 0; v < nv; v++)
    b[v] = load_b(l, tile, v);
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
  if (tile->depth == 0 && tile->block)
    iv = lower_plus(l, tile->block_start, iv);
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
** or quotient of them as the callers build OH * OW or C / 16), or -1. */
static int64_t constant_size(GiltValue *v)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  bool product = def && loop_op_is(def, LOOP_OP_MULI);
  if (product || (def && loop_op_is(def, LOOP_OP_DIVSI))) {
    int64_t a = constant_size(gilt_op_get_operand(def, 0));
    int64_t b = constant_size(gilt_op_get_operand(def, 1));
    if (a < 0 || b < 0 || (!product && b == 0))
      return -1;
    return product ? a * b : a / b;
  }
  GiltAttr *value = def && loop_op_is(def, LOOP_OP_CONSTANT)
                        ? gilt_op_get_attr(def, "value")
                        : NULL;
  return value ? gilt_integer_attr_get_value(value) : -1;
}

/* The sums of the tile's rows, acc, through the caller's store: the rows
** that exist only. */
static void store_rows(Lower *l, Tile *tile, GiltValue *const *acc)
{
  const LowerTiles *t = tile->t;
  for (size_t i = 0; i < t->rows; i++) {
    StoreRow s = {tile, i, acc + i * tile->vectors};
    if (i == 0)
      store_row(l, NULL, &s);
    else
      lower_if(l,
               lower_cmp(l, "slt",
                         lower_plus(l, tile->at.m0, lower_index(l, (int64_t)i)),
                         t->m),
               store_row, NULL, &s);
  }
}

/* The accumulators of a tile of tile->vectors vectors, through the
** reduction, stored. */
static void emit_tile(Lower *l, Tile *tile, bool masked)
{
  const LowerTiles *t = tile->t;
  for (size_t v = 0; v < tile->vectors; v++)
    tile->at.masks[v] = masked ? tile->masks[v] : NULL;
  size_t n = t->rows * tile->vectors;
  GiltValue *init[LOWER_TILE_MAX_ROWS * LOWER_TILE_MAX_VECTORS];
  GiltValue *acc[LOWER_TILE_MAX_ROWS * LOWER_TILE_MAX_VECTORS];
  for (size_t i = 0; i < n; i++)
    init[i] = lower_lanes_zero(&tile->v);
  tile->depth = 0;
  reduce(l, tile, init, acc);
  store_rows(l, tile, acc);
}

/* A tile of whole vectors, all of whose columns exist. */
static void full_tile(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Tile *tile = user;
  tile->vectors = tile->t->vectors;
  emit_tile(l, tile, false);
}

static void narrow_tile(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Tile *tile = user;
  tile->vectors = 1;
  emit_tile(l, tile, tile->narrow_masks);
}

static void wide_masked_tile(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Tile *tile = user;
  tile->vectors = tile->t->vectors;
  emit_tile(l, tile, true);
}

/* The last tile of columns, which passes N: one vector wide where 16
** columns or fewer are left (always, when N is static and narrow_tail). */
static void last_tile(Lower *l, GiltValue *const *ivs, void *user)
{
  Tile *tile = user;
  const LowerTiles *t = tile->t;
  if (!tile->narrow_tail) {
    wide_masked_tile(l, ivs, tile);
    return;
  }
  if (constant_size(t->n) >= 0) {
    narrow_tile(l, ivs, tile);
    return;
  }
  GiltValue *left = lower_minus(l, t->n, tile->at.n0);
  lower_if(l, lower_cmp(l, "sle", left, lower_index(l, lanes_of(t))),
           narrow_tile, wide_masked_tile, tile);
}

/* The tile's rows from tile of rows mb: at->m0 and each row, clamped to
** the last. */
static void place_rows(Lower *l, Tile *tile, GiltValue *mb)
{
  const LowerTiles *t = tile->t;
  LowerTileAt *at = &tile->at;
  at->mb = mb;
  at->m0 = lower_times(l, mb, lower_index(l, (int64_t)t->rows));
  GiltValue *last = lower_minus(l, t->m, lower_index(l, 1));
  for (size_t i = 0; i < t->rows; i++)
    at->rows[i] =
        i == 0 ? at->m0
               : lower_binary(l, LOOP_OP_MINSI,
                              lower_plus(l, at->m0, lower_index(l, (int64_t)i)),
                              last);
}

/* The tile's columns from tile of columns nb: at->n0, each vector's first
** column and, where a tile may pass N, its mask. */
static void place_columns(Lower *l, Tile *tile, GiltValue *nb)
{
  const LowerTiles *t = tile->t;
  LowerTileAt *at = &tile->at;
  at->nb = nb;
  at->n0 = lower_times(l, nb,
                       lower_index(l, (int64_t)t->vectors * lanes_of(t)));
  for (size_t v = 0; v < t->vectors; v++) {
    at->cols[v] =
        lower_plus(l, at->n0, lower_index(l, (int64_t)v * lanes_of(t)));
    tile->masks[v] =
        tile->ragged_tail
            ? lower_lanes_mask(l, &tile->v, lower_minus(l, t->n, at->cols[v]))
            : NULL;
  }
}

/* The tile at the placed rows and columns: whole, or the last one. */
static void tile_columns(Lower *l, Tile *tile)
{
  const LowerTiles *t = tile->t;
  if (!tile->ragged_tail) {
    full_tile(l, NULL, tile);
    return;
  }
  GiltValue *width = lower_index(l, (int64_t)t->vectors * lanes_of(t));
  lower_if(l, lower_cmp(l, "sle", lower_plus(l, tile->at.n0, width), t->n),
           full_tile, last_tile, tile);
}

/* ---- prefetching the next panel of B ------------------------------------------ */

/* Whether B's panels are weights packed at compile time, which come from
** memory at every call, and each column's tiles read its panel one after
** the other (columns outer, neither blocked nor copied), at least two
** tiles of rows of them, M known. The first tile of a column waited on
** memory for every step of its reduction (a line of the panel each) while
** the others left memory idle. A column of one tile reads the panels end
** to end, one stream that the hardware's prefetchers follow: there the
** prefetches only cost (RegNetY-400MF's squeeze-and-excitation layers, a
** row each, made the model 2 to 3% slower); so they would for a product
** whose M, unknown here, turns out to be a tile's rows or fewer (a
** transformer decoding a token at a time). Nor does a single panel have
** a next one. And only where vectors are 256 bits or narrower: on the
** Zen 3 host (AVX2) where this was measured, GoogLeNet, the encoders,
** EfficientNet-B0 and SqueezeNet ran 3 to 7% faster for it; on the Zen 5
** host (AVX-512), whose prefetchers follow the panels of every column,
** the prefetches only cost: MnasNet ran 0.91 to 0.92 of the time without
** them, ResNet-18, ResNet-50 and the 512-wide encoder 0.94, GoogLeNet
** 0.95 (bench/ab_aot.py, 1 and 2 threads). row_tiles: the tiles of rows,
** -1 where M is unknown. */
static bool prefetches_panels(const Lower *l, const Tile *tile,
                              int64_t row_tiles)
{
  const LowerTiles *t = tile->t;
  if (l->register_lanes >= 16)
    return false;
  GiltOp *def = t->b_panels ? gilt_value_get_defining_op(t->b_panels) : NULL;
  if (!def || !loop_op_is(def, LOOP_OP_GET_GLOBAL) || tile->rows_outer ||
      tile->block || tile->copied)
    return false;
  GiltType *panels = gilt_value_get_type(t->b_panels);
  GILT_ASSERT(panels->shaped.rank == 3 &&
              panels->shaped.shape[2] ==
                  (int64_t)t->vectors * lanes_of(t));
  return row_tiles >= 2 && (t->b_first || panels->shaped.shape[0] > 1);
}

/* Line k of the next panel: a prefetch for each 16 floats of its width
** (a cache line of 64 bytes, FLOATS_PER_LINE). */
static void prefetch_line(Lower *l, GiltValue *k, GiltValue *const *iter,
                          GiltValue **next, void *user)
{
  (void)iter, (void)next;
  Tile *tile = user;
  GiltValue *panels = tile->t->b_panels;
  int64_t width = gilt_value_get_type(panels)->shaped.shape[2];
  for (int64_t c = 0; c < width; c += FLOATS_PER_LINE) {
    GiltValue *idx[3] = {tile->next_panel, k, lower_index(l, c)};
    lower_prefetch(l, panels, idx, PREFETCH_LOCALITY);
  }
}

/* The placed tile's share of the next panel, issued before its own
** multiply-adds: the lines [mb * share, (mb + 1) * share) of its K, share
** = ceil(K / tiles of rows), so that the next panel's reads from memory
** are spread over the column's tiles rather than all in its first. The
** next panel is the next column's, or after the last the next product's
** first (b_first); the very last prefetches its own again, which the
** caches hold. */
static void prefetch_next_panel(Lower *l, Tile *tile)
{
  const LowerTiles *t = tile->t;
  GiltValue *one = lower_index(l, 1);
  GiltValue *next = lower_plus(l, tile->at.nb, one);
  if (t->b_first)
    next = lower_plus(l, t->b_first, next);
  GiltValue *last = lower_minus(l, lower_dim(l, t->b_panels, 0), one);
  tile->next_panel = lower_binary(l, LOOP_OP_MINSI, next, last);
  GiltValue *k = lower_dim(l, t->b_panels, 1);
  GiltValue *share = lower_binary(l, LOOP_OP_CEILDIVSI, k, tile->row_tiles);
  GiltValue *first = lower_times(l, tile->at.mb, share);
  GiltValue *end =
      lower_binary(l, LOOP_OP_MINSI, lower_plus(l, first, share), k);
  lower_for(l, first, end, one, 0, NULL, NULL, prefetch_line, tile);
}

static void tile_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Tile *tile = user;
  place_columns(l, tile, ivs[tile->rows_outer]);
  place_rows(l, tile, ivs[!tile->rows_outer]);
  if (tile->prefetching)
    prefetch_next_panel(l, tile);
  tile_columns(l, tile);
}

/* ---- groups of tiles of rows ---------------------------------------------- */

static void grouped_tile(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  tile_columns(l, user);
}

/* Tile (group g, columns nb, row tile i of the group); the last group may
** pass the last tile of rows. */
static void grouped_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Tile *tile = user;
  GiltValue *mb = lower_plus(
      l, lower_times(l, ivs[0], lower_index(l, tile->group)), ivs[2]);
  place_columns(l, tile, ivs[1]);
  place_rows(l, tile, mb);
  if (!tile->ragged_group)
    tile_columns(l, tile);
  else
    lower_if(l, lower_cmp(l, "slt", mb, tile->row_tiles), grouped_tile,
             NULL, tile);
}

/* Tiles of rows per group, or 0. Rows outer, each tile of rows walks every
** tile of columns, and each stores its few rows in a place of its own:
** in NCHW16c, one block of 16 channels is H * W * 16 floats from the
** next, so a 1x1 layer into 256 channels kept 16 streams of stores (and
** 16 of its residual's loads) advancing a few hundred bytes each, and
** ran ResNet-50's 64-into-256 layers at 56x56 at 47 GFLOP/s (ONNX
** Runtime: 81). By groups whose panel of A (rows by the whole reduction)
** stays in L1 between the tiles of columns, each tile of columns writes
** a group's rows as one run. */
static int64_t row_group(const Tile *tile, int64_t row_tiles)
{
  const LowerTiles *t = tile->t;
  if (!tile->rows_outer || row_tiles < 0)
    return 0;
  int64_t reduction = 1;
  for (size_t d = 0; d < t->num_reductions; d++) {
    int64_t r = constant_size(t->reductions[d]);
    if (r <= 0 || reduction > GROUP_PANEL_MAX_BYTES / r)
      return 0; /* unknown, or past the panel's bytes already */
    reduction *= r;
  }
  int64_t group = GROUP_PANEL_MAX_BYTES / (reduction * 4 * (int64_t)t->rows);
  if (group > row_tiles / GROUPS_MIN)
    group = row_tiles / GROUPS_MIN;
  return group >= 2 ? group : 0;
}

/* ---- panel copying ---------------------------------------------------------- */

static void panel_row_step(Lower *l, GiltValue *mb, GiltValue *const *iter,
                           GiltValue **next, void *user)
{
  (void)iter, (void)next;
  Tile *tile = user;
  place_rows(l, tile, mb);
  tile_columns(l, tile);
}

/* The column of tiles nb: its tiles of rows, the first filling the
** column's panel of B, the others reading it. */
static void panel_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Tile *tile = user;
  const LowerTiles *t = tile->t;
  place_columns(l, tile, ivs[0]);
  size_t d = t->num_reductions;
  int64_t shape[LOWER_TILE_MAX_REDUCTIONS + 1];
  GiltValue *dims[LOWER_TILE_MAX_REDUCTIONS + 1];
  for (size_t i = 0; i < d; i++) {
    shape[i] = GILT_DYNAMIC;
    dims[i] = t->reductions[i];
  }
  shape[d] = (int64_t)t->vectors * lanes_of(t);
  dims[d] = NULL;
  tile->panel = lower_alloc(
      l, gilt_memref_type_get(l->ctx, d + 1, shape, tile->v.elem, NULL, NULL),
      dims);
  /* The first tile of rows fills the panel as it reads B (its loads and
  ** multiply-adds hide the stores); the others read it. Lanes past N
  ** hold what the last tile's masked loads gave, which only lanes never
  ** stored see. */
  tile->filling = true;
  panel_row_step(l, lower_index(l, 0), NULL, NULL, tile);
  tile->filling = false;
  GiltValue *one = lower_index(l, 1);
  lower_for(l, one, tile->row_tiles, one, 0, NULL, NULL, panel_row_step,
            tile);
  tile->panel = NULL;
}

/* ---- panel blocking --------------------------------------------------------- */

/* The index of vector v of row i of the current tile in tile->partial. */
static void partial_index(Lower *l, Tile *tile, size_t i, size_t v,
                          GiltValue **idx)
{
  const LowerTiles *t = tile->t;
  idx[0] = tile->at.nb;
  idx[1] = lower_plus(l, lower_times(l, tile->at.mb,
                                     lower_index(l, (int64_t)t->rows)),
                      lower_index(l, (int64_t)i));
  idx[2] = lower_index(l, (int64_t)v * lanes_of(t));
}

/* The current tile's partial sums into acc, or acc into them. */
static void partial_sums(Lower *l, Tile *tile, GiltValue **acc, bool save)
{
  const LowerTiles *t = tile->t;
  for (size_t i = 0; i < t->rows; i++)
    for (size_t v = 0; v < t->vectors; v++) {
      GiltValue *idx[3];
      partial_index(l, tile, i, v, idx);
      GiltValue **sum = &acc[i * t->vectors + v];
      if (save)
        lower_lanes_store(l, &tile->v, NULL, *sum, tile->partial, idx);
      else
        *sum = lower_lanes_load(l, &tile->v, NULL, tile->partial, idx);
    }
}

static void zero_step(Lower *l, GiltValue *mb, GiltValue *const *iter,
                      GiltValue **next, void *user)
{
  (void)iter, (void)next;
  Tile *tile = user;
  tile->at.mb = mb;
  GiltValue *zero[LOWER_TILE_MAX_ROWS * LOWER_TILE_MAX_VECTORS];
  for (size_t k = 0; k < tile->t->rows * tile->t->vectors; k++)
    zero[k] = lower_lanes_zero(&tile->v);
  partial_sums(l, tile, zero, true);
}

/* One block of the reduction on the tile of rows mb. */
static void block_tile_step(Lower *l, GiltValue *mb, GiltValue *const *iter,
                            GiltValue **next, void *user)
{
  (void)iter, (void)next;
  Tile *tile = user;
  place_rows(l, tile, mb);
  GiltValue *acc[LOWER_TILE_MAX_ROWS * LOWER_TILE_MAX_VECTORS];
  GiltValue *sums[LOWER_TILE_MAX_ROWS * LOWER_TILE_MAX_VECTORS];
  partial_sums(l, tile, acc, false);
  tile->depth = 0;
  reduce(l, tile, acc, sums);
  partial_sums(l, tile, sums, true);
}

static void block_step(Lower *l, GiltValue *kb, GiltValue *const *iter,
                       GiltValue **next, void *user)
{
  (void)iter, (void)next;
  Tile *tile = user;
  tile->block_start = lower_times(l, kb, lower_index(l, tile->block));
  lower_for_upto(l, tile->row_tiles, 0, NULL, NULL, block_tile_step, tile);
}

static void store_step(Lower *l, GiltValue *mb, GiltValue *const *iter,
                       GiltValue **next, void *user)
{
  (void)iter, (void)next;
  Tile *tile = user;
  place_rows(l, tile, mb);
  GiltValue *acc[LOWER_TILE_MAX_ROWS * LOWER_TILE_MAX_VECTORS];
  partial_sums(l, tile, acc, false);
  store_rows(l, tile, acc);
}

/* The column of tiles nb, its reduction by blocks. */
static void blocked_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Tile *tile = user;
  const LowerTiles *t = tile->t;
  place_columns(l, tile, ivs[0]);
  tile->vectors = t->vectors;
  for (size_t v = 0; v < t->vectors; v++)
    tile->at.masks[v] = tile->masks[v];
  lower_for_upto(l, tile->row_tiles, 0, NULL, NULL, zero_step, tile);
  GiltValue *blocks = lower_binary(l, LOOP_OP_DIVSI, t->reductions[0],
                                   lower_index(l, tile->block));
  lower_for_upto(l, blocks, 0, NULL, NULL, block_step, tile);
  lower_for_upto(l, tile->row_tiles, 0, NULL, NULL, store_step, tile);
}

/* The block of the outermost reduction for panel blocking: the largest
** divisor of its length whose slice of the panel fits
** PANEL_SLICE_MAX_BYTES, when the panel exceeds BLOCKED_PANEL_MIN_BYTES,
** the tiles are columns outer, two or more tiles of rows share each
** panel, and every size is static; else 0. */
static int64_t panel_block(const Tile *tile, int64_t m, int64_t n)
{
  const LowerTiles *t = tile->t;
  if (tile->rows_outer || tile->narrow_tail || m < 0 || n < 0 ||
      t->num_reductions == 0 ||
      (m + (int64_t)t->rows - 1) / (int64_t)t->rows < 2)
    return 0;
  int64_t width = (int64_t)t->vectors * lanes_of(t);
  if ((n + width - 1) / width < BLOCKED_MIN_COLUMN_TILES)
    return 0;
  int64_t outer = constant_size(t->reductions[0]), step_bytes = width * 4;
  for (size_t d = 1; d < t->num_reductions; d++) {
    int64_t r = constant_size(t->reductions[d]);
    if (r <= 0)
      return 0;
    step_bytes *= r;
  }
  if (outer <= 1 || outer * step_bytes <= BLOCKED_PANEL_MIN_BYTES)
    return 0;
  for (int64_t b = PANEL_SLICE_MAX_BYTES / step_bytes; b >= 1; b--)
    if (outer % b == 0)
      return b;
  return 0;
}

/* ---- the shape of a tile ------------------------------------------------ */

bool lower_tile_fits(const Lower *l, size_t rows, size_t vectors)
{
  return (int64_t)(rows * vectors + vectors + 1) <= l->register_vectors;
}

size_t lower_tile_vectors(const Lower *l)
{
  return lower_tile_fits(l, 6, 2) ? 2 : 1;
}

size_t lower_tile_max_rows(const Lower *l, size_t vectors)
{
  size_t rows = LOWER_TILE_MAX_ROWS;
  while (rows > 1 && !lower_tile_fits(l, rows, vectors))
    rows--;
  return rows;
}

/* The most rows of a tile lower_tile_vectors wide, and the fewest that
** lower_tile_rows weighs: three quarters of the most, rounded up (6 of
** 8 with AVX-512, 5 of 6 with AVX2). A tile of fewer rows spends more of
** each step on its loads and its loop than the rows it does not waste
** save: AVX2's tiles of 4 rows (8 registers of accumulators, as many
** as two FMA units of latency 4 keep in flight) ran ResNet-50 4% and
** DenseNet-121 2% slower on a Zen 3 than tiles of 5 or 6, which compute
** a few rows past the product's. */
static size_t most_rows(const Lower *l)
{
  return lower_tile_max_rows(l, lower_tile_vectors(l));
}

static size_t fewest_rows(const Lower *l)
{
  return (most_rows(l) * 3 + 3) / 4;
}

size_t lower_rows_fewest_past(int64_t m, size_t fewest, size_t most)
{
  size_t best = fewest;
  for (int64_t r = (int64_t)best + 1; r <= (int64_t)most; r++)
    if ((m + r - 1) / r * r <= (m + (int64_t)best - 1) / (int64_t)best *
                                    (int64_t)best)
      best = (size_t)r;
  return best;
}

size_t lower_tile_rows(const Lower *l, int64_t m)
{
  if (m == GILT_DYNAMIC || m <= 0)
    return fewest_rows(l);
  return lower_rows_fewest_past(m, fewest_rows(l), most_rows(l));
}

size_t lower_tile_rows_dividing(const Lower *l, int64_t m)
{
  size_t rows = most_rows(l);
  while (rows > 1 && (m <= 0 || m % (int64_t)rows))
    rows--;
  return rows;
}

size_t lower_output_rows(const Lower *l, int64_t ow, int64_t outputs,
                         bool *aligned)
{
  *aligned = true;
  /* Outputs that one tile holds: as many rows, none computed twice; in
  ** one output row when they are one (a squeeze-and-excitation's 1x1). */
  if (outputs != GILT_DYNAMIC && outputs > 0 &&
      outputs <= (int64_t)most_rows(l)) {
    *aligned = outputs == ow;
    return (size_t)outputs;
  }
  size_t fewest = fewest_rows(l);
  for (size_t r = most_rows(l); r >= fewest; r--)
    if (ow != GILT_DYNAMIC && ow % (int64_t)r == 0)
      return r;
  *aligned = false;
  return lower_tile_rows(l, outputs);
}

/* The remarks `--explain=tiling,vectorize` print at the op. */
static void remark(Lower *l, const Tile *tile)
{
  const LowerTiles *t = tile->t;
  int64_t cols = (int64_t)t->vectors * lanes_of(t);
  bool nested = lower_in_parallel(l);
  GiltRemarkArg args[5] = {{"algorithm", t->algorithm, 0},
                           {"tile_rows", NULL, (int64_t)t->rows},
                           {"tile_cols", NULL, cols},
                           {"reduction_block", NULL, tile->block},
                           {"prefetch", NULL, tile->prefetching}};
  char order[128] = "", narrow[64] = "";
  if (tile->narrow_tail)
    snprintf(narrow, sizeof narrow,
             "; a last tile of %" PRId64 " columns or fewer is one vector "
             "wide",
             lanes_of(t));
  if (tile->block)
    snprintf(order, sizeof order,
             "; the panels of B by slices of %" PRId64 " of the outermost "
             "reduction, each serving every tile of rows",
             tile->block);
  else if (tile->group)
    snprintf(order, sizeof order,
             "; tiles of rows by groups of %" PRId64 ", each group through "
             "every column of tiles in turn",
             tile->group);
  gilt_remark(l->op, "tiling", t->algorithm, 5, args,
              "%s: register tiles of %zu x %" PRId64 " (%zu vector "
              "accumulators) over packed operands, %s%s%s%s%s%s%s",
              t->algorithm, t->rows, cols, t->rows * t->vectors,
              nested ? "" : "parallel over ",
              tile->block || tile->copied ? "columns of tiles" : "tiles",
              nested ? " in turn inside an enclosing parallel loop" : "",
              tile->copied ? "; each column's panel of B copied first" : "",
              narrow,
              order,
              tile->prefetching ? "; each tile prefetches its share of the "
                                  "next column's panel of B (weights, "
                                  "from memory at every call)"
                                : "");
  GiltRemarkArg lanes[1] = {{"lanes", NULL, lanes_of(t)}};
  gilt_remark(l->op, "vectorize", "vectorized", 1, lanes,
              "vectorized: %d f32 lanes, a broadcast of A times a vector of "
              "B per fused multiply-add",
              (int)lanes_of(t));
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
  /* A last tile past N, which only a static N rules out. */
  int64_t width = (int64_t)t->vectors * lanes_of(t);
  int64_t rem = n >= 0 ? n % width : -1;
  tile.ragged_tail = rem != 0;
  tile.narrow_tail =
      t->vectors > 1 &&
      (n >= 0 ? rem > 0 && rem <= lanes_of(t) : t->narrow_tail);
  tile.narrow_masks = n < 0 || rem % lanes_of(t) != 0;
  tile.block = panel_block(&tile, m, n);
  tile.copied = t->copy_panels && !tile.rows_outer && !tile.block;
  int64_t row_tiles = m >= 0 ? (m + (int64_t)t->rows - 1) / (int64_t)t->rows
                             : -1;
  tile.group = row_group(&tile, row_tiles);
  tile.ragged_group = tile.group && row_tiles % tile.group != 0;
  tile.prefetching = prefetches_panels(l, &tile, row_tiles);
  remark(l, &tile);
  lower_lanes_init_width(l, &tile.v, gilt_float_type_get(l->ctx, GILT_F32),
                         lanes_of(t));
  GiltValue *col_tiles =
      lower_binary(l, LOOP_OP_CEILDIVSI, t->n, lower_index(l, width));
  tile.row_tiles = lower_binary(l, LOOP_OP_CEILDIVSI, t->m,
                                lower_index(l, (int64_t)t->rows));
  if (tile.block) {
    int64_t partial_shape[3] = {GILT_DYNAMIC, GILT_DYNAMIC, width};
    GiltValue *partial_dims[3] = {
        col_tiles, lower_times(l, tile.row_tiles,
                               lower_index(l, (int64_t)t->rows)),
        NULL};
    tile.partial = lower_alloc(
        l,
        gilt_memref_type_get(l->ctx, 3, partial_shape, tile.v.elem, NULL,
                             NULL),
        partial_dims);
    lower_parallel(l, 1, &col_tiles, blocked_body, &tile);
    return;
  }
  if (tile.copied) {
    lower_parallel(l, 1, &col_tiles, panel_body, &tile);
    return;
  }
  if (tile.group) {
    GiltValue *uppers[3] = {
        lower_binary(l, LOOP_OP_CEILDIVSI, tile.row_tiles,
                     lower_index(l, tile.group)),
        col_tiles, lower_index(l, tile.group)};
    lower_parallel(l, 3, uppers, grouped_body, &tile);
    return;
  }
  GiltValue *uppers[2] = {tile.rows_outer ? tile.row_tiles : col_tiles,
                          tile.rows_outer ? col_tiles : tile.row_tiles};
  lower_parallel(l, 2, uppers, tile_body, &tile);
}
