/*
** matmul.c - lowering of the matrix products: MatMul (numpy batch
** broadcasting, 1-D operands), Gemm (transA, transB, alpha, beta, C
** broadcast to the result), MatMulInteger and QLinearMatMul (zero points
** per tensor, per row of A, per column of B).
**
** Every product goes through one kernel over buffers of one element type:
**
**   parallel (batch..., i, j):
**     acc = for k: fma(A[.., i, k], B[.., k, j], acc)
**     Y[.., i, j] = alpha * acc (+ Y, holding beta * C)
**
** f32, where the target has vector registers, goes through the
** register-blocked tiles of tiles.c instead. On a target without (a
** GPU's threads, graph-to-loop{vector-bits=0}) each iteration of the
** parallel loop computes a tile of up to 4 x 4 outputs
** (lower_thread_tile): each load of A serves 4 multiply-adds and each of
** B 4, where one output per thread loads both for every one; f32 there
** goes through the block tiles of block_tiles.c (shared memory) where the
** pass has them and the product fills them. The kernel
** wants B's rows contiguous along j, so a transposed operand of Gemm is
** copied transposed first (O(K*N) against the product's O(M*K*N); a
** constant one at compile time), and the integer products first copy
** their operands into i32 buffers with the zero points subtracted
** (copy.c). A MatMul of a batch of A by one matrix B is one product of
** all of A's rows.
*/
#include "transforms/graph_to_loop/block_tiles.h"
#include "transforms/graph_to_loop/indexing.h"
#include "transforms/graph_to_loop/tiles.h"

static size_t rank_of(GiltValue *v)
{
  return gilt_value_get_type(v)->shaped.rank;
}

static GiltType *elem_of(GiltValue *v)
{
  return gilt_value_get_type(v)->shaped.elem;
}

/* ---- the kernel ------------------------------------------------------------ */

/* A product; what matmul_kernel's callers fill in comes first. */
typedef struct MatMul {
  GiltValue *a, *b, *y;
  double alpha;
  bool accumulate;        /* y holds beta * C: add the product to it */
  bool a_trans, b_trans;  /* Gemm's transA, transB (f32 only: packing
                          ** reads them transposed) */
  GiltValue *bias;        /* MatMul's fused C, [N]: added to each row */
  LowerEpilogue epilogue; /* the fused residual (y's shape) and
                          ** activation, applied after the bias */
  size_t nb;              /* batch dims of y */
  LowerLanes v;
  GiltValue *k, *n;       /* the sizes of the contraction and of j */
  /* Per batch dim of a and b: the run-time "its size is 1" test for a
  ** dynamic size (read at 0 then), NULL for a static one. */
  GiltValue *a_one[GRAPH_MAX_RANK], *b_one[GRAPH_MAX_RANK];
  GiltValue *ia[GRAPH_MAX_RANK], *ib[GRAPH_MAX_RANK]; /* the body's indices */
  GiltValue *iy[GRAPH_MAX_RANK];
  GiltValue *a_panels, *b_panels; /* the f32 operands packed (tiles.h) */
  /* The generic kernel's tile of outputs per iteration: rows x cols,
  ** their indices (clamped into the result: a partial tile's extra rows
  ** and columns recompute the last one's values and store them again). */
  int64_t rows, cols;
  GiltValue *m, *row_at[LOWER_THREAD_TILE], *col_at[LOWER_THREAD_TILE];
} MatMul;

/* in's leading (batch) dims indexed by the output's batch ivs under numpy
** broadcasting: a dim of size 1 is read at 0. */
static void batch_indices(Lower *l, GiltValue *in, GiltValue *const *one,
                          size_t nb, GiltValue *const *ivs, GiltValue **idx)
{
  GiltType *t = gilt_value_get_type(in);
  size_t r = t->shaped.rank - 2;
  for (size_t d = 0; d < r; d++) {
    GiltValue *iv = ivs[nb - r + d];
    if (t->shaped.shape[d] == 1)
      idx[d] = lower_index(l, 0);
    else if (one[d])
      idx[d] = lower_select(l, one[d], lower_index(l, 0), iv);
    else
      idx[d] = iv;
  }
}

static void ones_of(Lower *l, GiltValue *in, GiltValue **one)
{
  GiltType *t = gilt_value_get_type(in);
  for (size_t d = 0; d + 2 < t->shaped.rank; d++) {
    one[d] = NULL;
    if (t->shaped.shape[d] == GILT_DYNAMIC) {
      GiltValue *dim = lower_dim(l, in, d);
      one[d] = lower_cmp(l, "eq", dim, lower_index(l, 1));
    }
  }
}

static void k_step(Lower *l, GiltValue *k, GiltValue *const *acc,
                   GiltValue **next, void *user)
{
  MatMul *m = user;
  size_t ra = rank_of(m->a), rb = rank_of(m->b);
  GiltValue *x[LOWER_THREAD_TILE], *y[LOWER_THREAD_TILE];
  m->ia[ra - 1] = k;
  m->ib[rb - 2] = k;
  for (int64_t r = 0; r < m->rows; r++) {
    m->ia[ra - 2] = m->row_at[r];
    x[r] = lower_load(l, m->a, m->ia);
  }
  for (int64_t c = 0; c < m->cols; c++) {
    m->ib[rb - 1] = m->col_at[c];
    y[c] = lower_load(l, m->b, m->ib);
  }
  for (int64_t r = 0; r < m->rows; r++)
    for (int64_t c = 0; c < m->cols; c++)
      next[r * m->cols + c] =
          lower_lanes_fma(l, x[r], y[c], acc[r * m->cols + c]);
}

/* The output at iy (one element, or with `lanes` a vector of them along
** j under `mask`) from its sum: alpha times it, plus what y holds (beta *
** C) when accumulating, plus the bias of its column, then the epilogue
** (the residual, the activation). Every path of the product ends here,
** so each computes the same value. */
static GiltValue *finish(Lower *l, const MatMul *m, const LowerLanes *lanes,
                         GiltValue *mask, GiltValue *sum,
                         GiltValue *const *iy)
{
  if (m->alpha != 1)
    sum = lower_binary(l, LOOP_OP_MULF, sum,
                       lower_constant_like(l, sum, m->alpha));
  GiltValue *held[2] = {m->accumulate ? m->y : NULL, m->bias};
  GiltValue *const *at[2] = {iy, &iy[m->nb + 1]};
  for (size_t i = 0; i < 2; i++)
    if (held[i])
      sum = lower_lanes_add(
          l, sum,
          lanes ? lower_lanes_load(l, lanes, mask, held[i], at[i])
                : lower_load(l, held[i], at[i]));
  return lower_epilogue_apply_at(l, &m->epilogue, lanes, mask, sum, iy);
}

static void matmul_body(Lower *l, GiltValue *const *ivs, void *user)
{
  MatMul *m = user;
  size_t nb = m->nb, tile = (size_t)(m->rows * m->cols);
  GiltValue *i0 = ivs[nb], *j0 = ivs[nb + 1];
  if (m->rows > 1)
    i0 = ix_mul(l, i0, lower_index(l, m->rows));
  if (m->cols > 1)
    j0 = ix_mul(l, j0, lower_index(l, m->cols));
  ix_tile_positions(l, i0, m->rows, m->m, m->row_at);
  ix_tile_positions(l, j0, m->cols, m->n, m->col_at);
  batch_indices(l, m->a, m->a_one, nb, ivs, m->ia);
  batch_indices(l, m->b, m->b_one, nb, ivs, m->ib);
  GiltValue *init[LOWER_THREAD_TILE * LOWER_THREAD_TILE];
  GiltValue *acc[LOWER_THREAD_TILE * LOWER_THREAD_TILE];
  for (size_t t = 0; t < tile; t++)
    init[t] = lower_lanes_zero(&m->v);
  lower_for_upto(l, m->k, tile, init, acc, k_step, m);
  /* Every read of Y before the first store: a clamped duplicate must
  ** add beta * C to the value C had, as its original does. */
  GiltValue *iy[LOWER_THREAD_TILE * LOWER_THREAD_TILE][GRAPH_MAX_RANK + 2];
  for (size_t t = 0; t < tile; t++) {
    for (size_t d = 0; d < nb; d++)
      iy[t][d] = ivs[d];
    iy[t][nb] = m->row_at[t / (size_t)m->cols];
    iy[t][nb + 1] = m->col_at[t % (size_t)m->cols];
    acc[t] = finish(l, m, NULL, NULL, acc[t], iy[t]);
  }
  for (size_t t = 0; t < tile; t++)
    lower_store(l, acc[t], m->y, iy[t]);
}

/* ---- the block tiles (a GPU's) ----------------------------------------------- */

/* x[batch..., row, col] for operand x (a or b: its broadcast tests
** `one`, its index buffer idx). */
static GiltValue *load_operand(Lower *l, const MatMul *m, GiltValue *x,
                               GiltValue *const *one, GiltValue **idx,
                               GiltValue *const *batch, GiltValue *row,
                               GiltValue *col)
{
  size_t r = rank_of(x);
  batch_indices(l, x, one, m->nb, batch, idx);
  idx[r - 2] = row;
  idx[r - 1] = col;
  return lower_load(l, x, idx);
}

static GiltValue *block_load_a(Lower *l, GiltValue *const *batch,
                               GiltValue *i, GiltValue *k, void *user)
{
  MatMul *m = user;
  return load_operand(l, m, m->a, m->a_one, m->ia, batch, i, k);
}

static GiltValue *block_load_b(Lower *l, GiltValue *const *batch,
                               GiltValue *k, GiltValue *j, void *user)
{
  MatMul *m = user;
  return load_operand(l, m, m->b, m->b_one, m->ib, batch, k, j);
}

static void block_store(Lower *l, GiltValue *const *batch, GiltValue *i,
                        GiltValue *j, GiltValue *sum, void *user)
{
  MatMul *m = user;
  for (size_t d = 0; d < m->nb; d++)
    m->iy[d] = batch[d];
  m->iy[m->nb] = i;
  m->iy[m->nb + 1] = j;
  lower_store(l, finish(l, m, NULL, NULL, sum, m->iy), m->y, m->iy);
}

/* ---- the tiled f32 kernel --------------------------------------------------- */

/* The tile's callbacks (tiles.h), reading the packed panels of one
** product of the batch. */
static GiltValue *tile_load_a(Lower *l, const LowerTileAt *at, size_t i,
                              void *user)
{
  MatMul *m = user;
  return lower_packed_row(l, m->a_panels, at, i);
}

static GiltValue *tile_load_b(Lower *l, const LowerTileAt *at, size_t v,
                              void *user)
{
  MatMul *m = user;
  GiltValue *idx[3] = {at->nb, at->red[0],
                       lower_index(l, (int64_t)v * LOWER_F32_LANES)};
  return lower_lanes_load(l, &m->v, NULL, m->b_panels, idx);
}

static void tile_store(Lower *l, const LowerTileAt *at, size_t i, size_t v,
                       GiltValue *sums, void *user)
{
  MatMul *m = user;
  m->iy[m->nb] = at->rows[i];
  m->iy[m->nb + 1] = at->cols[v];
  sums = finish(l, m, &m->v, at->masks[v], sums, m->iy);
  lower_lanes_store(l, &m->v, at->masks[v], sums, m->y, m->iy);
}

/* One product of the batch: a and b packed (tiles.h), then the tiles of
** y[batch..., M, N]. */
static void tiled_batch(Lower *l, GiltValue *const *ivs, void *user)
{
  MatMul *m = user;
  batch_indices(l, m->a, m->a_one, m->nb, ivs, m->ia);
  batch_indices(l, m->b, m->b_one, m->nb, ivs, m->ib);
  for (size_t d = 0; d < m->nb; d++)
    m->iy[d] = ivs[d];
  GiltType *yt = gilt_value_get_type(m->y);
  int64_t rows_static = yt->shaped.shape[m->nb];
  int64_t cols_static = yt->shaped.shape[m->nb + 1];
  /* Two vectors of columns by six rows (12 accumulators) where there are
  ** more than 16 columns and the registers hold them
  ** (lower_tile_vectors), else one vector by as many rows as they hold
  ** (8 with AVX-512, 6 with AVX2); never more rows than M. */
  LowerTiles t = {.algorithm = "matmul-packed",
                  .m = lower_dim(l, m->y, m->nb), .n = m->n,
                  .vectors = cols_static != GILT_DYNAMIC && cols_static <= 16
                                 ? 1 : lower_tile_vectors(l),
                  .num_reductions = 1, .reductions = {m->k},
                  .load_a = tile_load_a, .load_b = tile_load_b,
                  .store = tile_store, .user = m};
  t.rows = t.vectors == 2 ? 6 : lower_tile_max_rows(l, 1);
  if (rows_static != GILT_DYNAMIC && rows_static < (int64_t)t.rows)
    t.rows = rows_static > 0 ? (size_t)rows_static : 1;
  LowerMatrix a = {m->a, m->nb ? m->ia : NULL, m->a_trans, t.m, m->k};
  LowerMatrix b = {m->b, m->nb ? m->ib : NULL, m->b_trans, m->k, m->n};
  m->a_panels = lower_pack_rows(l, &a, t.rows);
  m->b_panels = lower_pack_cols(l, &b, t.vectors * LOWER_F32_LANES);
  t.b_panels = m->b_panels;
  lower_tiles(l, &t);
}

/* Whether y = a b (nb batch dims) is a batch of small products, which
** then run side by side, each on one thread, instead of one after the
** other, each split across the threads: at least two products, each of at
** most 2^22 multiply-adds (about 40 us on one core). Splitting so small a
** product's packing and tiles costs more in hand-offs to the threads
** (microseconds each, three per product) than it saves: the heads of an
** attention are such a batch. */
static bool small_products(GiltValue *y, GiltValue *a, size_t nb)
{
  GiltType *yt = gilt_value_get_type(y), *at = gilt_value_get_type(a);
  int64_t count = 1, k = at->shaped.shape[at->shaped.rank - 1];
  for (size_t d = 0; d < nb; d++)
    if (yt->shaped.shape[d] == GILT_DYNAMIC)
      return false;
    else
      count *= yt->shaped.shape[d];
  int64_t m = yt->shaped.shape[nb], n = yt->shaped.shape[nb + 1];
  return count >= 2 && m != GILT_DYNAMIC && n != GILT_DYNAMIC &&
         k != GILT_DYNAMIC && m * n * k <= ((int64_t)1 << 22);
}

/* y[.., M, N] (+)= alpha * a[.., M, K] b[.., K, N] (+ bias, epilogue),
** all of one element type, y's batch dims the broadcast of a's and b's,
** as the caller filled in m. f32 goes through the register-blocked tiles
** (tiles.c), one product of the batch after the other; the other types
** through the kernel above. */
static void matmul_kernel(Lower *l, MatMul *m)
{
  GiltValue *a = m->a, *b = m->b, *y = m->y;
  m->nb = rank_of(y) - 2;
  lower_lanes_init(l, &m->v, elem_of(y));
  GILT_ASSERT(m->v.width > 1 || (!m->a_trans && !m->b_trans));
  m->k = lower_dim(l, a, rank_of(a) - (m->a_trans ? 2 : 1));
  m->n = lower_dim(l, y, m->nb + 1);
  ones_of(l, a, m->a_one);
  ones_of(l, b, m->b_one);
  GiltValue *uppers[GRAPH_MAX_RANK + 2];
  lower_dims(l, y, uppers);
  if (m->v.width > 1 && small_products(y, a, m->nb)) {
    lower_parallel(l, m->nb, uppers, tiled_batch, m);
    return;
  }
  if (m->v.width > 1) {
    lower_nest(l, m->nb, uppers, tiled_batch, m);
    return;
  }
  GiltType *yt = gilt_value_get_type(y);
  if (m->v.elem->kind == GILT_TYPE_FLOAT && m->v.elem->fkind == GILT_F32 &&
      lower_block_tiles_fit(l, yt->shaped.shape[m->nb],
                            yt->shaped.shape[m->nb + 1])) {
    LowerBlockTiles t = {.algorithm = "matmul-blocks",
                         .batch_rank = m->nb, .m = uppers[m->nb], .n = m->n,
                         .k = m->k, .load_a = block_load_a,
                         .load_b = block_load_b, .store = block_store,
                         .user = m};
    for (size_t d = 0; d < m->nb; d++)
      t.batch[d] = uppers[d];
    lower_block_tiles(l, &t);
    return;
  }
  m->m = uppers[m->nb];
  m->rows = lower_thread_tile(l, yt->shaped.shape[m->nb]);
  m->cols = lower_thread_tile(l, yt->shaped.shape[m->nb + 1]);
  if (m->rows > 1)
    uppers[m->nb] = lower_binary(l, LOOP_OP_CEILDIVSI, uppers[m->nb],
                                lower_index(l, m->rows));
  if (m->cols > 1)
    uppers[m->nb + 1] = lower_binary(l, LOOP_OP_CEILDIVSI, uppers[m->nb + 1],
                                    lower_index(l, m->cols));
  lower_parallel(l, m->nb + 2, uppers, matmul_body, m);
}

/* ---- operand preparation ------------------------------------------------------ */

/* A 1-D operand of MatMul as a matrix: [1, K] for A (row), [K, 1] for B. */
static GiltValue *as_matrix(Lower *l, GiltValue *x, bool row)
{
  if (rank_of(x) != 1)
    return x;
  GiltValue *k = lower_dim(l, x, 0), *one = lower_index(l, 1);
  int64_t kk = gilt_value_get_type(x)->shaped.shape[0];
  int64_t shape[2] = {row ? 1 : kk, row ? kk : 1};
  GiltValue *sizes[2] = {row ? one : k, row ? k : one};
  return lower_reshaped(l, x, 2, shape, sizes);
}

/* The size of batch dim d of the product of a and b (nb batch dims):
** static from the result type, else the broadcast of theirs. */
static GiltValue *batch_dim(Lower *l, GiltValue *a, GiltValue *b, size_t nb,
                            size_t d, int64_t known)
{
  if (known != GILT_DYNAMIC)
    return lower_index(l, known);
  GiltValue *size = lower_index(l, 1), *one = size;
  GiltValue *ops[2] = {a, b};
  for (size_t i = 0; i < 2; i++) {
    size_t r = rank_of(ops[i]) - 2;
    if (r + d < nb)
      continue;
    GiltValue *s = lower_dim(l, ops[i], r + d - nb);
    size = lower_select(l, lower_cmp(l, "eq", s, one), size, s);
  }
  return size;
}

/* Allocates the result of a product of matrices a and b (1-D operands
** already reshaped: a_vec/b_vec say which were) and returns it seen as
** [batch..., M, N] in *full. */
static GiltValue *alloc_product(Lower *l, GiltValue *a, GiltValue *b,
                                bool a_vec, bool b_vec, GiltType *result,
                                GiltValue **full)
{
  size_t ra = rank_of(a), rb = rank_of(b);
  size_t nb = (ra > rb ? ra : rb) - 2, rank = result->shaped.rank;
  GiltValue *dims[GRAPH_MAX_RANK + 2], *rdims[GRAPH_MAX_RANK];
  int64_t shape[GRAPH_MAX_RANK + 2];
  for (size_t d = 0; d < nb; d++) {
    shape[d] = result->shaped.shape[d];
    dims[d] = batch_dim(l, a, b, nb, d, shape[d]);
  }
  dims[nb] = lower_dim(l, a, ra - 2);
  dims[nb + 1] = lower_dim(l, b, rb - 1);
  shape[nb] = gilt_value_get_type(a)->shaped.shape[ra - 2];
  shape[nb + 1] = gilt_value_get_type(b)->shaped.shape[rb - 1];
  size_t n = 0;
  for (size_t d = 0; d < nb + 2; d++)
    if (!(d == nb && a_vec) && !(d == nb + 1 && b_vec))
      rdims[n++] = dims[d];
  GILT_ASSERT(n == rank);
  GiltValue *y = lower_alloc(l, result, rdims);
  *full = rank == nb + 2 ? y : lower_reshaped(l, y, nb + 2, shape, dims);
  return y;
}

/* A contiguous buffer [d0, ..., dr-2, K] seen as the matrix
** [d0 * ... * dr-2, K]. */
static GiltValue *as_rows(Lower *l, GiltValue *x)
{
  GiltType *t = gilt_value_get_type(x);
  size_t r = t->shaped.rank;
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, x, dims);
  int64_t shape[2] = {1, t->shaped.shape[r - 1]};
  for (size_t d = 0; d + 1 < r; d++)
    shape[0] = t->shaped.shape[d] == GILT_DYNAMIC || shape[0] == GILT_DYNAMIC
                   ? GILT_DYNAMIC
                   : shape[0] * t->shaped.shape[d];
  GiltValue *sizes[2] = {ix_product_size(l, dims, 0, r - 1), dims[r - 1]};
  return lower_reshaped(l, x, 2, shape, sizes);
}

/* ---- the ops -------------------------------------------------------------------- */

static GiltStatus lower_mat_mul(Lower *l)
{
  if (lower_epilogue_check(l))
    return GILT_FAILURE;
  GiltValue *a = lower_operand(l, 0), *b = lower_operand(l, 1), *full;
  bool a_vec = rank_of(a) == 1, b_vec = rank_of(b) == 1;
  a = as_matrix(l, a, true);
  b = as_matrix(l, b, false);
  GiltValue *y = alloc_product(l, a, b, a_vec, b_vec, lower_result_type(l, 0),
                               &full);
  MatMul m = {.a = a, .b = b, .y = full, .alpha = 1,
              .bias = lower_operand(l, 2)};
  lower_epilogue_read(l, &m.epilogue);
  /* A batch of products with one matrix B is one product of all the rows
  ** of A: B packed and read once, tiles of rows across the batch
  ** (PyTorch's attention projections are [seq, 1, d] times [d, 3d], one
  ** row per product of the batch), the residual read as the same rows.
  ** Each element sums in the same order. */
  if (rank_of(b) == 2 && rank_of(a) > 2) {
    m.a = as_rows(l, lower_contiguous(l, a));
    m.y = as_rows(l, full);
    if (m.epilogue.residual)
      m.epilogue.residual =
          as_rows(l, lower_contiguous(l, m.epilogue.residual));
  }
  matmul_kernel(l, &m);
  return lower_replace(l, &y);
}

typedef struct GemmC {
  GiltValue *c, *y, *beta;
} GemmC;

static void gemm_c_body(Lower *l, GiltValue *const *ivs, void *user)
{
  GemmC *g = user;
  GiltValue *idx[2];
  lower_broadcast_indices(l, g->c, 2, ivs, idx);
  GiltValue *c = lower_load(l, g->c, idx);
  if (g->beta)
    c = lower_binary(l, LOOP_OP_MULF, c, g->beta);
  lower_store(l, c, g->y, ivs);
}

static GiltStatus lower_gemm(Lower *l)
{
  if (lower_epilogue_check(l))
    return GILT_FAILURE;
  GiltValue *a = lower_operand(l, 0), *b = lower_operand(l, 1);
  GiltValue *c = lower_operand(l, 2);
  GiltType *elem = lower_result_elem(l, 0);
  double alpha = graph_attr_float(l->op, "alpha", 1);
  double beta = graph_attr_float(l->op, "beta", 1);
  if (!lower_is_float(elem) && (alpha != 1 || (c && beta != 1)))
    return lower_error(l, "alpha and beta other than 1 need a float type");
  /* The tiles pack the operands and read them transposed as they go (a
  ** transposed weight is packed at compile time); the scalar kernel wants
  ** them copied. */
  bool tiled = lower_vectorizes(l, elem);
  bool ta = graph_attr_int(l->op, "transA", 0) != 0;
  bool tb = graph_attr_int(l->op, "transB", 0) != 0;
  if (ta && !tiled)
    a = lower_copy_map(l, a, elem, true, NULL, NULL);
  if (tb && !tiled)
    b = lower_copy_map(l, b, elem, true, NULL, NULL);
  GiltValue *dims[2];
  dims[0] = lower_dim(l, a, tiled && ta ? 1 : 0);
  dims[1] = lower_dim(l, b, tiled && tb ? 0 : 1);
  GiltValue *y = lower_alloc_result(l, 0, dims);
  if (c) {
    GemmC g = {c, y, beta != 1 ? lower_constant(l, elem, beta) : NULL};
    lower_parallel(l, 2, dims, gemm_c_body, &g);
  }
  MatMul m = {.a = a, .b = b, .y = y, .alpha = alpha, .accumulate = c != NULL,
              .a_trans = tiled && ta, .b_trans = tiled && tb};
  lower_epilogue_read(l, &m.epilogue);
  matmul_kernel(l, &m);
  return lower_replace(l, &y);
}

/* ---- integer products ------------------------------------------------------------ */

/* The i32 product of A - a_zero_point and B - b_zero_point (operands at
** a, b, a_zp, b_zp of the op) into a new [batch..., M, N] buffer; *y gets
** the buffer of the result's shape (1-D operands drop their dim). */
static GiltStatus integer_product(Lower *l, const size_t *at, GiltType *result,
                                  GiltValue **y, GiltValue **full)
{
  GiltValue *a = lower_operand(l, at[0]), *b = lower_operand(l, at[1]);
  GiltValue *azp = lower_operand(l, at[2]), *bzp = lower_operand(l, at[3]);
  size_t ra = rank_of(a), rb = rank_of(b);
  if (!lower_per_axis_ok(azp, ra) || !lower_per_axis_ok(bzp, rb))
    return lower_error(l, "a zero point must be a scalar, 1-D, or of its "
                          "operand's rank");
  GiltType *i32 = gilt_integer_type_get(l->ctx, 32, GILT_SIGNLESS);
  bool a_vec = ra == 1, b_vec = rb == 1;
  a = as_matrix(l, a, true);
  b = as_matrix(l, b, false);
  LowerZeroPoint za = {azp, rank_of(a), rank_of(a) - 2};
  LowerZeroPoint zb = {bzp, rank_of(b), rank_of(b) - 1};
  a = lower_copy_map(l, a, i32, false, lower_minus_zero_point, &za);
  b = lower_copy_map(l, b, i32, false, lower_minus_zero_point, &zb);
  *y = alloc_product(l, a, b, a_vec, b_vec, result, full);
  matmul_kernel(l, &(MatMul){.a = a, .b = b, .y = *full, .alpha = 1});
  return GILT_SUCCESS;
}

static GiltStatus lower_mat_mul_integer(Lower *l)
{
  static const size_t at[4] = {0, 1, 2, 3};
  GiltValue *y, *full;
  if (integer_product(l, at, lower_result_type(l, 0), &y, &full))
    return GILT_FAILURE;
  return lower_replace(l, &y);
}

typedef struct QLinear {
  GiltValue *acc, *out, *a_scale, *b_scale, *y_scale, *y_zp;
} QLinear;

static void qlinear_body(Lower *l, GiltValue *const *ivs, void *user)
{
  QLinear *q = user;
  size_t r = rank_of(q->acc);
  GiltValue *a_scale = lower_per_axis(l, q->a_scale, r, r - 2, ivs);
  GiltValue *b_scale = lower_per_axis(l, q->b_scale, r, r - 1, ivs);
  GiltValue *scale = lower_binary(l, LOOP_OP_MULF, a_scale, b_scale);
  scale = lower_binary(l, LOOP_OP_DIVF, scale,
                       lower_per_axis(l, q->y_scale, 0, 0, ivs));
  GiltValue *zp = lower_per_axis(l, q->y_zp, 0, 0, ivs);
  GiltValue *y = lower_requantize(l, lower_load(l, q->acc, ivs), scale, zp,
                                  elem_of(q->out));
  lower_store(l, y, q->out, ivs);
}

/* QLinearMatMul: the integer product requantized with
** a_scale * b_scale / y_scale into y's type. */
static GiltStatus lower_q_linear_mat_mul(Lower *l)
{
  static const size_t at[4] = {0, 3, 2, 5};
  GiltType *result = lower_result_type(l, 0);
  GiltType *i32 = gilt_integer_type_get(l->ctx, 32, GILT_SIGNLESS);
  if (lower_is_float(result->shaped.elem))
    return lower_error(l, "float8 outputs are not supported");
  GiltValue *scales[3] = {lower_operand(l, 1), lower_operand(l, 4),
                          lower_operand(l, 6)};
  if (result->shaped.rank < 2 || rank_of(lower_operand(l, 0)) < 2 ||
      rank_of(lower_operand(l, 3)) < 2)
    return lower_error(l, "1-D operands are not supported");
  if (rank_of(scales[2]) > 1 ||
      !lower_per_axis_ok(scales[0], rank_of(lower_operand(l, 0))) ||
      !lower_per_axis_ok(scales[1], rank_of(lower_operand(l, 3))))
    return lower_error(l, "a scale must be a scalar, 1-D, or of its "
                          "operand's rank");
  GiltType *acc_t = gilt_memref_type_get(l->ctx, result->shaped.rank,
                                         result->shaped.shape, i32, NULL, NULL);
  GiltValue *acc, *full;
  if (integer_product(l, at, acc_t, &acc, &full))
    return GILT_FAILURE;
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, acc, dims);
  QLinear q = {acc, lower_alloc(l, result, dims), scales[0], scales[1],
               scales[2], lower_operand(l, 7)};
  lower_parallel(l, result->shaped.rank, dims, qlinear_body, &q);
  return lower_replace(l, &q.out);
}

const GraphLoweringRow graph_lower_matmul[] = {
    {GRAPH_OP_MAT_MUL, {lower_mat_mul}},
    {GRAPH_OP_GEMM, {lower_gemm}},
    {GRAPH_OP_MAT_MUL_INTEGER, {lower_mat_mul_integer}},
    {GRAPH_OP_Q_LINEAR_MAT_MUL, {lower_q_linear_mat_mul}},
    {0, {NULL}},
};
