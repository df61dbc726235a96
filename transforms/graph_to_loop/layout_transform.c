/*
** layout_transform.c - lowering of graph.layout_transform: a
** loop.parallel over the result, each element read from where the source
** layout keeps the same logical element. The result is a fresh dense
** buffer, as transpose.c's.
**
** Logical dimension X of a layout that blocks it by g sits at (Xo, xi),
** X = Xo * g + xi; at X of one that does not block it. Where the two
** layouts block X alike, the result's indices pass through unchanged;
** elsewhere X is formed from them and, where the source blocks it by f,
** split into (X / f, X % f): a division only where the source is blocked.
**
** Where both layouts end in the same dimension, blocked alike (NCHW16c ->
** NHWC16c, NCHW -> CNHW), a row of the result is a row of the source,
** and f32 rows move 16 lanes at a time (vector.c), a partial last chunk
** under a mask. Between NCHW and NCHW16c in f32 (the boundaries of
** graph-layout-nchwc), a tile of 16 channels by 16 columns of a row (of
** an image's rows end to end, where they are narrower) is 16
** vector loads, a transpose in registers (4 rounds of 16 shuffles, each
** swapping the off-diagonal blocks of 8, 4, 2 and 1 lanes) and 16 vector
** stores; the scalar nest had taken four times a Relu's time on
** 1x64x56x56. NCHW8c goes by tiles of 8 x 8, 8 lanes a vector.
** Otherwise one side of the copy strides in any order, and the nest is
** of scalars in the result's order, its stores consecutive,
** which LLVM vectorizes where it finds that worthwhile.
**
** The run checks what inference could not on dynamic sizes: that an inner
** dimension of the source is its block, and that a logical dimension the
** result blocks is a multiple of the block.
*/
#include "transforms/graph_to_loop/indexing.h"

#include <stdio.h>
#include <string.h>

typedef struct LayoutTransform {
  GraphLayout src, dst;
  GiltValue *in, *out;
  bool rows;      /* by rows of v.width lanes, not by elements */
  LowerLanes v;
  GiltValue *row; /* the rows' length */
  bool masked;    /* a row may end in a partial chunk */
  bool to_blocked; /* NCHW into NCHWc, by tiles (tile_body) */
} LayoutTransform;

static char upper(char d) { return d >= 'a' ? (char)(d - 'a' + 'A') : d; }

/* The size of logical dimension d (upper case) of the source. */
static GiltValue *logical_size(Lower *l, const LayoutTransform *t, char d)
{
  GiltValue *n = lower_dim(l, t->in, (size_t)graph_layout_find(&t->src, d));
  int64_t f = graph_layout_block(&t->src, d);
  return f ? ix_mul(l, n, lower_index(l, f)) : n;
}

/* The index along logical dimension d (upper case) of the result element
** at ivs. */
static GiltValue *logical_index(Lower *l, const LayoutTransform *t, char d,
                                GiltValue *const *ivs)
{
  GiltValue *x = ivs[graph_layout_find(&t->dst, d)];
  int64_t g = graph_layout_block(&t->dst, d);
  if (!g)
    return x;
  GiltValue *inner = ivs[graph_layout_find(&t->dst, (char)(d - 'A' + 'a'))];
  return ix_add(l, ix_mul(l, x, lower_index(l, g)), inner);
}

/* The source's indices of the result element at ivs into idx. */
static void source_indices(Lower *l, const LayoutTransform *t,
                           GiltValue *const *ivs, GiltValue **idx)
{
  GiltValue *logical['Z' - 'A' + 1] = {NULL};
  for (size_t k = 0; k < t->src.rank; k++) {
    char d = t->src.dims[k], u = upper(d);
    int64_t f = graph_layout_block(&t->src, u);
    if (f == graph_layout_block(&t->dst, u)) {
      idx[k] = ivs[graph_layout_find(&t->dst, d)];
      continue;
    }
    GiltValue **x = &logical[u - 'A'];
    if (!*x)
      *x = logical_index(l, t, u, ivs);
    /* Indices are never negative, and unsigned division by a power of
    ** two is a shift. */
    idx[k] = !f ? *x
                : lower_binary(l, d == u ? LOOP_OP_DIVUI : LOOP_OP_REMUI, *x,
                               lower_index(l, f));
  }
}

static void transform_body(Lower *l, GiltValue *const *ivs, void *user)
{
  LayoutTransform *t = user;
  GiltValue *idx[GRAPH_MAX_RANK];
  if (!t->rows) {
    source_indices(l, t, ivs, idx);
    lower_store(l, lower_load(l, t->in, idx), t->out, ivs);
    return;
  }
  size_t r = t->dst.rank;
  GiltValue *at[GRAPH_MAX_RANK];
  for (size_t i = 0; i + 1 < r; i++)
    at[i] = ivs[i];
  at[r - 1] = ix_mul(l, ivs[r - 1], lower_index(l, t->v.width));
  GiltValue *mask =
      t->masked ? lower_lanes_mask(l, &t->v, ix_sub(l, t->row, at[r - 1]))
                : NULL;
  source_indices(l, t, at, idx);
  GiltValue *x = lower_lanes_load(l, &t->v, mask, t->in, idx);
  lower_lanes_store(l, &t->v, mask, x, t->out, at);
}

/* ---- NCHW <-> NCHWc by tiles ------------------------------------------------ */

/* Whether the pair is NCHW and NCHW<lanes>c, either way. */
static bool nchw_blocked_pair(const GraphLayout *a, const GraphLayout *b,
                              int64_t lanes)
{
  return a->rank == 4 && !memcmp(a->dims, "NCHW", 4) && b->rank == 5 &&
         !memcmp(b->dims, "NCHWc", 5) && b->factors[4] == lanes;
}

/* Rows r[0..16) transposed in place: r[i] lane j becomes r[j] lane i.
** Each round swaps the off-diagonal b x b blocks of every 2b x 2b block
** on the diagonal, for b = 8, 4, 2, 1. */
static void transpose_tile(Lower *l, const LowerLanes *v, GiltValue **r)
{
  int64_t n = v->width;
  for (int64_t b = n / 2; b >= 1; b /= 2)
    for (int64_t i = 0; i < n; i++) {
      if (i / b % 2)
        continue;
      int32_t upper[LOWER_F32_LANES], lower[LOWER_F32_LANES];
      for (int64_t j = 0; j < n; j++) {
        bool left = j / b % 2 == 0;
        upper[j] = (int32_t)(left ? j : n + j - b);
        lower[j] = (int32_t)(left ? j + b : n + j);
      }
      GiltValue *top = lower_lanes_shuffle(l, v, r[i], r[i + b], upper);
      r[i + b] = lower_lanes_shuffle(l, v, r[i], r[i + b], lower);
      r[i] = top;
    }
}

/* One tile, ivs (n, channel block, row, column block): the 16 columns
** of the tile's 16 channels as they lie in NCHW, a vector each, or its
** 16 pixels' channels as they lie in NCHW16c, a vector each. The
** columns past the row's end are masked in NCHW; in NCHW16c their
** pixels are the row's last, read again and never stored. */
static void tile_body(Lower *l, GiltValue *const *ivs, void *user)
{
  LayoutTransform *t = user;
  int64_t n = t->v.width;
  GiltValue *nchw = t->to_blocked ? t->in : t->out;
  GiltValue *blocked = t->to_blocked ? t->out : t->in;
  GiltValue *width = lower_dim(l, nchw, 3);
  GiltValue *w0 = ix_mul(l, ivs[3], lower_index(l, n));
  GiltValue *left = ix_sub(l, width, w0);
  GiltValue *row_mask = lower_lanes_mask(l, &t->v, left);
  GiltValue *last = ix_sub(l, width, lower_index(l, 1));
  /* Row k of NCHW (channel k of the tile) and pixel k of NCHW16c (clamped
  ** into the row; the whole pixel is masked off past its end). */
  GiltValue *r[LOWER_F32_LANES], *pixel_mask[LOWER_F32_LANES];
  GiltValue *plain[LOWER_F32_LANES][4], *block[LOWER_F32_LANES][5];
  for (int64_t k = 0; k < n; k++) {
    GiltValue *w = ix_add(l, w0, lower_index(l, k));
    plain[k][0] = block[k][0] = ivs[0];
    plain[k][1] = ix_add(l, ix_mul(l, ivs[1], lower_index(l, n)),
                         lower_index(l, k));
    plain[k][2] = block[k][2] = ivs[2];
    plain[k][3] = w0;
    block[k][1] = ivs[1];
    block[k][3] = ix_min(l, w, last);
    block[k][4] = lower_index(l, 0);
    if (t->to_blocked)
      pixel_mask[k] =
          lower_lanes_mask_all(l, &t->v, lower_cmp(l, "slt", w, width));
  }
  for (int64_t k = 0; k < n; k++)
    r[k] = t->to_blocked
               ? lower_lanes_load(l, &t->v, row_mask, nchw, plain[k])
               : lower_lanes_load(l, &t->v, NULL, blocked, block[k]);
  transpose_tile(l, &t->v, r);
  for (int64_t k = 0; k < n; k++) {
    if (t->to_blocked)
      lower_lanes_store(l, &t->v, pixel_mask[k], r[k], blocked, block[k]);
    else
      lower_lanes_store(l, &t->v, row_mask, r[k], nchw, plain[k]);
  }
}

/* An NCHW [N, C, H, W] buffer as [N, C, 1, H * W], or an NCHW16c one
** [N, C/16, H, W, 16] as [N, C/16, 1, H * W, 16]: its rows end to end. */
static GiltValue *rows_end_to_end(Lower *l, GiltValue *m)
{
  GiltType *t = gilt_value_get_type(m);
  size_t rank = t->shaped.rank;
  const int64_t *d = t->shaped.shape;
  int64_t shape[5] = {d[0], d[1], 1,
                      d[2] == GILT_DYNAMIC || d[3] == GILT_DYNAMIC
                          ? GILT_DYNAMIC
                          : d[2] * d[3],
                      rank == 5 ? d[4] : 0};
  GiltValue *sizes[5] = {NULL, NULL, NULL, NULL, NULL};
  sizes[0] = lower_dim(l, m, 0);
  sizes[1] = lower_dim(l, m, 1);
  GiltValue *h = lower_dim(l, m, 2);
  GiltValue *w = lower_dim(l, m, 3);
  sizes[3] = ix_mul(l, h, w);
  return lower_reshaped(l, m, rank, shape, sizes);
}

/* The tiles' nest: N, C / 16, H, and the columns by 16. Where rows are
** narrower than a tile and the input is contiguous, an image's rows are
** seen end to end, one row of H * W pixels, so that only its last tile
** is partial: at 13x13 every row's one tile had been, 13 columns of 16
** (SqueezeNet's last conversion, 512 channels: 0.032 to 0.026 ms). At
** 56x56 the rows end to end measured 0.55 ms against 0.39 by rows
** (alternated four times; not understood), so rows of a tile or more
** stay by rows. */
static void lower_tiles_nest(Lower *l, LayoutTransform *t)
{
  LayoutTransform flat = *t;
  GiltValue *plain = t->to_blocked ? t->in : t->out;
  int64_t width = gilt_value_get_type(plain)->shaped.shape[3];
  if (width != GILT_DYNAMIC && width < t->v.width &&
      loop_memref_is_contiguous(gilt_value_get_type(t->in))) {
    flat.in = rows_end_to_end(l, t->in);
    flat.out = rows_end_to_end(l, t->out);
    t = &flat;
  }
  GiltValue *nchw = t->to_blocked ? t->in : t->out;
  GiltValue *blocked = t->to_blocked ? t->out : t->in;
  GiltValue *uppers[4] = {
      lower_dim(l, nchw, 0), lower_dim(l, blocked, 1), lower_dim(l, nchw, 2),
      lower_binary(l, LOOP_OP_CEILDIVSI, lower_dim(l, nchw, 3),
                   lower_index(l, t->v.width))};
  lower_parallel(l, 4, uppers, tile_body, t);
}

/* The run-time checks of the sizes inference saw as dynamic. A logical
** dimension the source blocks by a multiple of the result's block
** divides by it whatever its size. */
static void check_sizes(Lower *l, const LayoutTransform *t)
{
  GiltType *in = gilt_value_get_type(t->in);
  char what[160];
  for (size_t k = 0; k < t->src.rank; k++) {
    int64_t f = t->src.factors[k];
    if (!f || in->shaped.shape[k] != GILT_DYNAMIC)
      continue;
    snprintf(what, sizeof what, "dimension %zu of the input is not %lld, "
             "the block of src_layout", k, (long long)f);
    lower_assert(l, lower_cmp(l, "eq", lower_dim(l, t->in, k),
                              lower_index(l, f)), what);
  }
  for (size_t i = 0; i < t->dst.rank; i++) {
    char d = t->dst.dims[i];
    if (t->dst.factors[i] ||
        in->shaped.shape[graph_layout_find(&t->src, d)] != GILT_DYNAMIC)
      continue;
    int64_t g = graph_layout_block(&t->dst, d);
    int64_t f = graph_layout_block(&t->src, d);
    if (!g || (f && f % g == 0))
      continue;
    snprintf(what, sizeof what, "dimension '%c' of the input is not a "
             "multiple of %lld, the block of dst_layout", d, (long long)g);
    GiltValue *rem = ix_rem(l, logical_size(l, t, d), lower_index(l, g));
    lower_assert(l, lower_cmp(l, "eq", rem, lower_index(l, 0)), what);
  }
}

static GiltStatus lower_layout_transform(Lower *l)
{
  LayoutTransform t = {.in = lower_operand(l, 0)};
  GiltType *in = t.in ? gilt_value_get_type(t.in) : NULL;
  GiltType *rt = lower_result_type(l, 0);
  if (!graph_attr_layout(l->op, "src_layout", &t.src) ||
      !graph_attr_layout(l->op, "dst_layout", &t.dst) || !in ||
      in->shaped.rank != t.src.rank || rt->shaped.rank != t.dst.rank)
    return lower_error(l, "needs an input and a result ranked as their "
                       "layouts");
  check_sizes(l, &t);
  size_t r = t.dst.rank;
  GiltValue *dims[GRAPH_MAX_RANK], *sizes[GRAPH_MAX_RANK];
  for (size_t i = 0; i < r; i++) {
    dims[i] = NULL;
    if (rt->shaped.shape[i] != GILT_DYNAMIC)
      continue;
    if (t.dst.factors[i]) {
      dims[i] = lower_index(l, t.dst.factors[i]);
      continue;
    }
    int64_t g = graph_layout_block(&t.dst, t.dst.dims[i]);
    dims[i] = logical_size(l, &t, t.dst.dims[i]);
    if (g)
      dims[i] = ix_div(l, dims[i], lower_index(l, g));
  }
  lower_result_dims(l, 0, dims, sizes);
  t.out = lower_alloc(l, rt, sizes);
  char last = t.dst.dims[r - 1];
  t.rows = t.src.dims[t.src.rank - 1] == last &&
           graph_layout_block(&t.src, upper(last)) ==
               graph_layout_block(&t.dst, upper(last)) &&
           lower_lanes_width(l, rt->shaped.elem) > 1 &&
           loop_memref_is_contiguous(in);
  int64_t block = t.dst.rank == 5 ? t.dst.factors[4] : t.src.factors[4];
  if (lower_block_vectorizes(l, rt->shaped.elem, block) &&
      (nchw_blocked_pair(&t.src, &t.dst, block) ||
       nchw_blocked_pair(&t.dst, &t.src, block))) {
    t.to_blocked = t.src.rank == 4;
    lower_lanes_init_width(l, &t.v, rt->shaped.elem, block);
    lower_tiles_nest(l, &t);
    return lower_replace(l, &t.out);
  }
  GiltValue *uppers[GRAPH_MAX_RANK];
  for (size_t i = 0; i < r; i++)
    uppers[i] = sizes[i];
  if (t.rows) {
    lower_lanes_init(l, &t.v, rt->shaped.elem);
    int64_t n = rt->shaped.shape[r - 1], w = t.v.width;
    t.row = sizes[r - 1];
    t.masked = n == GILT_DYNAMIC || n % w;
    uppers[r - 1] =
        n == GILT_DYNAMIC
            ? lower_binary(l, LOOP_OP_CEILDIVSI, t.row, lower_index(l, w))
            : lower_index(l, (n + w - 1) / w);
  }
  lower_parallel(l, r, uppers, transform_body, &t);
  return lower_replace(l, &t.out);
}

const GraphLoweringRow graph_lower_layout_transform[] = {
    {GRAPH_OP_LAYOUT_TRANSFORM, {lower_layout_transform}},
    {0, {NULL}},
};
