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
** NHWC16c, NCHW -> NCHW4h), a row of the result is a row of the source,
** and f32 rows move 16 lanes at a time (vector.c), a partial last chunk
** under a mask. Otherwise (NCHW <-> NCHW16c) one side of the copy strides
** in any order, and the nest is of scalars in the result's order, its
** stores consecutive: on 1x64x56x56 f32, about four times a Relu's time.
** Not here: transposing 16 x 16 tiles in registers (loop.shuffle), which
** would vectorize those too.
**
** The run checks what inference could not on dynamic sizes: that an inner
** dimension of the source is its block, and that a logical dimension the
** result blocks is a multiple of the block.
*/
#include "transforms/graph_to_loop/indexing.h"

#include <stdio.h>

typedef struct LayoutTransform {
  GraphLayout src, dst;
  GiltValue *in, *out;
  bool rows;      /* by rows of v.width lanes, not by elements */
  LowerLanes v;
  GiltValue *row; /* the rows' length */
  bool masked;    /* a row may end in a partial chunk */
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
           lower_lanes_width(rt->shaped.elem) > 1 &&
           loop_memref_is_contiguous(in);
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
