/*
** conv_block_tiles.c - f32 convolutions for a GPU's thread blocks: an
** implicit GEMM (cuDNN's IMPLICIT_GEMM, CUTLASS's conv2d) through the
** block tiles of block_tiles.c. Per image and group, the convolution is
** the product
**
**   Y[m, p] = sum over k of W[m, k] * X_col[k, p]
**
** of the group's m output channels by its p output positions (all
** spatial axes, row-major), k running over its input channels and taps
** (c, k_1, ..., k_n, row-major: W's own layout, so A is W read where it
** lies, seen as [M, C/group * taps]). X_col is never built: B's element (k, p) is the input at
** o_i * s_i + k_i * d_i - begin_i along each axis, 0 in the padding (its
** position clamped into the input, as the thread tiles read it), so that
** neighbouring threads, staging neighbouring p, read neighbouring
** addresses at stride 1. Each sum starts from the bias and adds the
** products in the order of k, as the thread tiles' do (the same bits);
** a residual and the activation are applied as it is stored. Any number of spatial axes, any
** group, any stride, dilation and padding; the product must fill the
** tiles (lower_block_tiles_fit: 1x1 and 3x3 layers of at least half a
** tile of channels per group; depthwise ones keep their thread tiles).
*/
#include "transforms/graph_to_loop/block_tiles.h"
#include "transforms/graph_to_loop/indexing.h"

typedef struct ImplicitGemm {
  const LowerWindow *w;
  GiltValue *x, *wt, *bias, *y;
  GiltValue *w_rows; /* wt seen as [M, C/group * taps]: A itself */
  GiltValue *mg, *cg; /* output and input channels per group */
  LowerEpilogue epilogue;
} ImplicitGemm;

/* The output channel of row m of group batch[1]'s product. */
static GiltValue *output_channel(Lower *l, const ImplicitGemm *g,
                                 GiltValue *const *batch, GiltValue *m)
{
  return ix_add(l, ix_mul(l, batch[1], g->mg), m);
}

/* k's input channel of the group (into *c) and taps, row-major. */
static void split_k(Lower *l, const ImplicitGemm *g, GiltValue *k,
                    GiltValue **c, GiltValue **taps)
{
  const LowerWindow *w = g->w;
  for (size_t i = w->n; i-- > 0;) {
    GiltValue *size = lower_index(l, w->kernel[i]);
    taps[i] = ix_rem(l, k, size);
    k = ix_div(l, k, size);
  }
  *c = k;
}

/* p's output position along each spatial axis, row-major. */
static void split_p(Lower *l, const ImplicitGemm *g, GiltValue *p,
                    GiltValue **out)
{
  const LowerWindow *w = g->w;
  for (size_t i = w->n; i-- > 0;) {
    out[i] = i ? ix_rem(l, p, w->out[i]) : p;
    if (i)
      p = ix_div(l, p, w->out[i]);
  }
}

static GiltValue *load_weight(Lower *l, GiltValue *const *batch,
                              GiltValue *m, GiltValue *k, void *user)
{
  ImplicitGemm *g = user;
  GiltValue *at[2] = {output_channel(l, g, batch, m), k};
  return lower_load(l, g->w_rows, at);
}

static GiltValue *load_input(Lower *l, GiltValue *const *batch, GiltValue *k,
                             GiltValue *p, void *user)
{
  ImplicitGemm *g = user;
  const LowerWindow *w = g->w;
  GiltValue *c, *taps[GRAPH_MAX_RANK], *out[GRAPH_MAX_RANK];
  split_k(l, g, k, &c, taps);
  split_p(l, g, p, out);
  GiltValue *at[GRAPH_MAX_RANK + 2], *inside = NULL;
  at[0] = batch[0];
  at[1] = ix_add(l, ix_mul(l, batch[1], g->cg), c);
  for (size_t i = 0; i < w->n; i++) {
    GiltValue *pos = ix_sub(
        l,
        ix_add(l, ix_mul(l, out[i], lower_index(l, w->strides[i])),
               ix_mul(l, taps[i], lower_index(l, w->dilations[i]))),
        w->begin[i]);
    GiltValue *in;
    at[2 + i] = ix_clamp_into(l, pos, w->in[i], &in);
    inside = inside ? lower_binary(l, LOOP_OP_ANDI, inside, in) : in;
  }
  return lower_select(l, inside, lower_load(l, g->x, at),
                      lower_constant(l, gilt_float_type_get(l->ctx, GILT_F32),
                                     0));
}

static GiltValue *bias_of(Lower *l, GiltValue *const *batch, GiltValue *m,
                          void *user)
{
  ImplicitGemm *g = user;
  GiltValue *oc = output_channel(l, g, batch, m);
  return lower_load(l, g->bias, &oc);
}

static void store_output(Lower *l, GiltValue *const *batch, GiltValue *m,
                         GiltValue *p, GiltValue *sum, void *user)
{
  ImplicitGemm *g = user;
  GiltValue *at[GRAPH_MAX_RANK + 2];
  at[0] = batch[0];
  at[1] = output_channel(l, g, batch, m);
  split_p(l, g, p, &at[2]);
  sum = lower_epilogue_apply_at(l, &g->epilogue, NULL, NULL, sum, at);
  lower_store(l, sum, g->y, at);
}

bool lower_conv_block_tiles_apply(Lower *l, const LowerWindow *w,
                                  GiltValue *x, GiltValue *wt, int64_t group)
{
  GiltType *f32 = gilt_float_type_get(l->ctx, GILT_F32);
  GiltType *rt = lower_result_type(l, 0);
  if (l->block_tile == 0 || rt->shaped.elem != f32 ||
      gilt_value_get_type(x)->shaped.elem != f32 ||
      gilt_value_get_type(wt)->shaped.elem != f32 ||
      (lower_operand(l, 2) && lower_operand_elem(l, 2) != f32))
    return false;
  int64_t outputs = gilt_value_get_type(wt)->shaped.shape[0];
  int64_t positions = 1;
  for (size_t i = 0; i < w->n; i++) {
    int64_t extent = rt->shaped.shape[2 + i];
    positions = extent == GILT_DYNAMIC || positions == GILT_DYNAMIC
                    ? GILT_DYNAMIC
                    : positions * extent;
  }
  return outputs != GILT_DYNAMIC &&
         lower_block_tiles_fit(l, outputs / group, positions);
}

GiltValue *lower_conv_block_tiles(Lower *l, const LowerWindow *w, GiltValue *x,
                                  GiltValue *wt, GiltValue *bias,
                                  int64_t group)
{
  ImplicitGemm g = {.w = w, .x = x, .wt = wt, .bias = bias};
  lower_epilogue_read(l, &g.epilogue);
  GiltValue *groups = lower_index(l, group);
  GiltValue *dims[GRAPH_MAX_RANK + 2];
  dims[0] = lower_dim(l, x, 0);
  dims[1] = lower_dim(l, wt, 0);
  for (size_t i = 0; i < w->n; i++)
    dims[2 + i] = w->out[i];
  g.y = lower_alloc_result(l, 0, dims);
  g.mg = ix_div(l, dims[1], groups);
  g.cg = lower_dim(l, wt, 1);
  int64_t taps = 1;
  for (size_t i = 0; i < w->n; i++)
    taps *= w->kernel[i];
  GiltType *wtt = gilt_value_get_type(wt);
  int64_t cg = wtt->shaped.shape[1];
  int64_t rows_shape[2] = {wtt->shaped.shape[0],
                           cg == GILT_DYNAMIC ? GILT_DYNAMIC : cg * taps};
  GiltValue *k = ix_mul(l, g.cg, lower_index(l, taps));
  GiltValue *rows_sizes[2] = {dims[1], k};
  g.w_rows = lower_reshaped(l, wt, 2, rows_shape, rows_sizes);
  LowerBlockTiles t = {.algorithm = "conv-implicit-gemm",
                       .batch_rank = 2,
                       .batch = {dims[0], groups},
                       .m = g.mg,
                       .n = ix_product(l, w->out, 0, w->n),
                       .k = k,
                       .load_a = load_weight,
                       .load_b = load_input,
                       .init = bias ? bias_of : NULL,
                       .store = store_output,
                       .user = &g};
  lower_block_tiles(l, &t);
  return g.y;
}
