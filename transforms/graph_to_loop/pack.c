/*
** pack.c - the operands of a tiled f32 product (tiles.c) copied into the
** order the tiles read them, BLIS's packing: A by panels of MR rows,
** [ceil(M/MR), K, MR], so that a tile's MR broadcasts of one step of the
** reduction are consecutive floats; B by panels of NR columns,
** [ceil(N/NR), K, NR], so that its vector loads stream through one
** contiguous panel instead of striding by a row of B (4 KB apart for
** N = 1024, which also defeats the caches' associativity).
**
** An operand known at compile time (a weight) is packed here, in C, into
** a new loop.global: the run never pays for it, and the packed weight is
** what the JIT links. Any other operand is packed at run time by a
** parallel nest, O(M * K) or O(K * N) against the product's O(M * K * N).
** Past the last row a panel repeats the last row (its results are never
** stored); past the last column it holds zeros.
*/
#include "transforms/graph_to_loop/tiles.h"

#include <stdlib.h>
#include <string.h>

#include "gilt/remarks.h"

/* What was packed and when, for --explain=layout. */
static void remark_packed(Lower *l, size_t width, bool by_rows,
                          bool at_compile_time)
{
  const char *when = at_compile_time ? "compile time" : "run time";
  GiltRemarkArg args[3] = {{"operand", by_rows ? "A" : "B", 0},
                           {"panel", NULL, (int64_t)width},
                           {"packed_at", when, 0}};
  gilt_remark(l->op, "layout", by_rows ? "packed-rows" : "packed-columns",
              3, args,
              "packed: %s by panels of %zu %s%s, [ceil(%s / %zu), K, %zu], "
              "at %s",
              by_rows ? "A" : "B", width, by_rows ? "row" : "column",
              width == 1 ? "" : "s",
              by_rows ? "M" : "N", width, width, when);
}

/* ---- at compile time ------------------------------------------------------ */

/* The f32 data of m when it is a constant 2-D matrix of static sizes,
** else NULL; *rows and *cols get its sizes as A(r, c) reads them. */
static const unsigned char *constant_matrix(Lower *l, const LowerMatrix *m,
                                            int64_t *rows, int64_t *cols)
{
  const unsigned char *data =
      m->prefix ? NULL : lower_constant_f32_matrix(l, m->memref);
  if (!data)
    return NULL;
  GiltType *t = gilt_value_get_type(m->memref);
  int64_t r = t->shaped.shape[0], c = t->shaped.shape[1];
  *rows = m->transposed ? c : r;
  *cols = m->transposed ? r : c;
  return data;
}

/* Element (r, c) of the constant matrix m whose stored rows are `stride`
** floats long. */
static float constant_at(const LowerMatrix *m, const unsigned char *data,
                         int64_t stride, int64_t r, int64_t c)
{
  float f;
  int64_t at = m->transposed ? c * stride + r : r * stride + c;
  memcpy(&f, data + at * (int64_t)sizeof f, sizeof f);
  return f;
}

/* Packs a constant matrix into panels of `width` rows (rows_major) or
** columns; NULL when m is not a constant. */
static GiltValue *pack_constant(Lower *l, const LowerMatrix *m, size_t width,
                                bool by_rows)
{
  int64_t rows, cols;
  const unsigned char *data = constant_matrix(l, m, &rows, &cols);
  if (!data || rows == 0 || cols == 0)
    return NULL;
  int64_t stride = gilt_value_get_type(m->memref)->shaped.shape[1];
  int64_t w = (int64_t)width;
  int64_t outer = by_rows ? rows : cols, k = by_rows ? cols : rows;
  int64_t blocks = (outer + w - 1) / w;
  float *packed =
      gilt_blob_alloc(l->ctx, (size_t)(blocks * k * w) * sizeof *packed);
  for (int64_t b = 0; b < blocks; b++)
    for (int64_t kk = 0; kk < k; kk++)
      for (int64_t j = 0; j < w; j++) {
        int64_t o = b * w + j;
        float *to = &packed[(b * k + kk) * w + j];
        if (by_rows)
          *to = constant_at(m, data, stride, o < rows ? o : rows - 1, kk);
        else
          *to = o < cols ? constant_at(m, data, stride, kk, o) : 0.0f;
      }
  int64_t shape[3] = {blocks, k, w};
  return lower_packed_global(l, 3, shape, packed);
}

/* ---- at run time ----------------------------------------------------------- */

typedef struct Packer {
  const LowerMatrix *m;
  GiltValue *panels;
  size_t width;
  LowerLanes v;
} Packer;

/* Element (r, c) of the matrix. */
static GiltValue *matrix_load(Lower *l, const LowerMatrix *m, GiltValue *r,
                              GiltValue *c)
{
  size_t rank = gilt_value_get_type(m->memref)->shaped.rank;
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t d = 0; d + 2 < rank; d++)
    idx[d] = m->prefix[d];
  idx[rank - 2] = m->transposed ? c : r;
  idx[rank - 1] = m->transposed ? r : c;
  return lower_load(l, m->memref, idx);
}

static void pack_rows_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Packer *p = user;
  GiltValue *last = lower_minus(l, p->m->rows, lower_index(l, 1));
  GiltValue *r0 = lower_times(l, ivs[0], lower_index(l, (int64_t)p->width));
  for (size_t i = 0; i < p->width; i++) {
    GiltValue *r = lower_binary(
        l, LOOP_OP_MINSI, lower_plus(l, r0, lower_index(l, (int64_t)i)), last);
    GiltValue *at[3] = {ivs[0], ivs[1], lower_index(l, (int64_t)i)};
    lower_store(l, matrix_load(l, p->m, r, ivs[1]), p->panels, at);
  }
}

static void pack_cols_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Packer *p = user;
  GiltValue *c0 = lower_times(l, ivs[0], lower_index(l, (int64_t)p->width));
  size_t rank = gilt_value_get_type(p->m->memref)->shaped.rank;
  for (size_t j = 0; j < p->width; j += (size_t)p->v.width) {
    GiltValue *c = lower_plus(l, c0, lower_index(l, (int64_t)j));
    GiltValue *at[3] = {ivs[0], ivs[1], lower_index(l, (int64_t)j)};
    GiltValue *lanes;
    if (!p->m->transposed) {
      GiltValue *idx[GRAPH_MAX_RANK];
      for (size_t d = 0; d + 2 < rank; d++)
        idx[d] = p->m->prefix[d];
      idx[rank - 2] = ivs[1];
      idx[rank - 1] = c;
      lanes = lower_lanes_load(
          l, &p->v, lower_lanes_mask(l, &p->v, lower_minus(l, p->m->cols, c)),
          p->m->memref, idx);
    } else { /* a column of B is a row of its transpose: one by one */
      lanes = lower_lanes_zero(&p->v);
      GiltValue *last = lower_minus(l, p->m->cols, lower_index(l, 1));
      for (int64_t k = 0; k < p->v.width; k++) {
        GiltValue *col = lower_plus(l, c, lower_index(l, k));
        GiltValue *x = matrix_load(l, p->m, ivs[1],
                                   lower_binary(l, LOOP_OP_MINSI, col, last));
        GiltValue *inside = lower_cmp(l, "slt", col, p->m->cols);
        x = lower_select(l, inside, x, lower_constant(l, p->v.elem, 0));
        GiltValue *ops[3] = {x, lanes, lower_index(l, k)};
        lanes = lower_emit(l, LOOP_OP_INSERT, p->v.type, 3, ops);
      }
    }
    lower_lanes_store(l, &p->v, NULL, lanes, p->panels, at);
  }
}

/* A new [ceil(outer/width), k, width] buffer filled by body. */
static GiltValue *pack_at_run_time(Lower *l, const LowerMatrix *m,
                                   size_t width, bool by_rows,
                                   LowerBodyFn body)
{
  GiltValue *outer = by_rows ? m->rows : m->cols;
  GiltValue *k = by_rows ? m->cols : m->rows;
  GiltValue *dims[3] = {
      lower_binary(l, LOOP_OP_CEILDIVSI, outer, lower_index(l, (int64_t)width)),
      k, lower_index(l, (int64_t)width)};
  int64_t shape[3] = {GILT_DYNAMIC, GILT_DYNAMIC, (int64_t)width};
  GiltType *t = gilt_memref_type_get(l->ctx, 3, shape,
                                     gilt_float_type_get(l->ctx, GILT_F32),
                                     NULL, NULL);
  Packer p = {m, lower_alloc(l, t, dims), width, {0}};
  /* Columns go by vectors of 16, or of 8 into panels of NCHW8c blocks. */
  lower_lanes_init_width(l, &p.v, gilt_float_type_get(l->ctx, GILT_F32),
                         width % LOWER_F32_LANES ? LOWER_F32_LANES / 2
                                                 : LOWER_F32_LANES);
  lower_parallel(l, 2, dims, body, &p);
  return p.panels;
}

GiltValue *lower_pack_rows(Lower *l, const LowerMatrix *a, size_t mr)
{
  GiltValue *g = pack_constant(l, a, mr, true);
  remark_packed(l, mr, true, g != NULL);
  return g ? g : pack_at_run_time(l, a, mr, true, pack_rows_body);
}

GiltValue *lower_packed_row(Lower *l, GiltValue *panels,
                            const LowerTileAt *at, size_t i)
{
  GiltValue *idx[3] = {at->mb, at->red[0], lower_index(l, (int64_t)i)};
  return lower_load(l, panels, idx);
}

GiltValue *lower_pack_cols(Lower *l, const LowerMatrix *b, size_t nr)
{
  GILT_ASSERT(nr % (LOWER_F32_LANES / 2) == 0);
  GiltValue *g = pack_constant(l, b, nr, false);
  remark_packed(l, nr, false, g != NULL);
  return g ? g : pack_at_run_time(l, b, nr, false, pack_cols_body);
}
