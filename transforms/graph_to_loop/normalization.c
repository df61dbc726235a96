/*
** normalization.c - lowering of the normalizations: BatchNormalization
** (inference), InstanceNormalization, LayerNormalization,
** GroupNormalization, MeanVarianceNormalization and LRN.
**
** BatchNormalization in inference is a per-channel affine map, in f32 by
** vectors of 16 (below), then the activation graph-fuse-epilogues gave
** it:
**   Y = act((X - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c]);
** in training mode it normalizes with the batch's own mean and variance
** per channel and also gives the updated running ones. The others
** compute the mean and the variance of groups of elements with the
** reduction nest (lowering.h): a loop.parallel over the groups, a pass for
** the mean, a second for the variance (the mean of (x - mean)^2, which
** cannot go negative as E[x^2] - E[x]^2 can), and a pass that writes.
** They compute in f32 when X is narrower (LayerNormalization and
** GroupNormalization in their stash_type, at least f32) and round once.
**
**   InstanceNormalization: per (n, c), over the spatial dimensions.
**   LayerNormalization: over the dimensions from `axis` on; Scale and B
**     broadcast to X; Mean and InvStdDev (1 / sqrt(var + epsilon)) are
**     results too when the op has them. In f32 over the last axis alone
**     the three passes go by rows of 16 lanes (rows.c).
**   GroupNormalization: per (n, group), over the group's channels and the
**     spatial dimensions: the index space is X's with the channels split
**     in two, (N, num_groups, C / num_groups, ...).
**   MeanVarianceNormalization: over `axes` (default 0, 2, 3), as the
**     ONNX function: (X - mean) / (sqrt(var) + 1e-9).
**   LRN: each element divided by (bias + alpha / size * the sum of the
**     squares of the channels around it)^beta; the window, of `size`
**     channels, holds floor((size - 1) / 2) channels before and
**     ceil((size - 1) / 2) after, clipped to the channels there are.
*/
#include "transforms/graph_to_loop/lowering.h"

#include <string.h>

static GiltType *type_of(GiltValue *v)
{
  return gilt_value_get_type(v);
}

static GiltValue *load_as(Lower *l, GiltValue *buffer,
                          GiltValue *const *idx, GiltType *t)
{
  return lower_convert(l, lower_load(l, buffer, idx), t);
}

/* 1 / x */
static GiltValue *reciprocal(Lower *l, GiltValue *x)
{
  return lower_divide(l, lower_constant(l, type_of(x), 1), x);
}

/* 1 / sqrt(var + epsilon) */
static GiltValue *inv_std(Lower *l, GiltValue *var, double epsilon)
{
  GiltValue *v = lower_plus(l, var, lower_constant(l, type_of(var), epsilon));
  return reciprocal(l, lower_unary(l, LOOP_OP_SQRT, v));
}

/* ---- BatchNormalization ------------------------------------------------------------ */

typedef struct BatchNorm {
  GiltValue *x, *scale, *bias, *mean, *var, *out;
  GiltType *ct;
  double epsilon;
  int64_t block; /* X's channel block: 1 for NCHW, b for NCHW<b>c */
  LowerEpilogue epilogue; /* graph-fuse-epilogues' activation */
} BatchNorm;

static void batch_norm_body(Lower *l, GiltValue *const *ivs, void *user)
{
  BatchNorm *b = user;
  /* Channel c of [N, C/b, H, W, b] is at [n, c / b, h, w, c % b]. */
  GiltValue *c = b->block == 1
                     ? ivs[1]
                     : lower_plus(l, lower_times(l, ivs[1],
                                                 lower_index(l, b->block)),
                                  ivs[4]);
  GiltValue *x = load_as(l, b->x, ivs, b->ct);
  GiltValue *mean = load_as(l, b->mean, &c, b->ct);
  GiltValue *var = load_as(l, b->var, &c, b->ct);
  GiltValue *scale = load_as(l, b->scale, &c, b->ct);
  GiltValue *bias = load_as(l, b->bias, &c, b->ct);
  GiltValue *inv = inv_std(l, var, b->epsilon);
  GiltValue *y = lower_times(l, lower_minus(l, x, mean), inv);
  y = lower_plus(l, lower_times(l, y, scale), bias);
  y = lower_epilogue_apply(l, &b->epilogue, y);
  lower_store(l, lower_convert(l, y, lower_result_elem(l, 0)), b->out, ivs);
}

/* In f32 the map goes by vectors of 16 in parallel over (n, channel
** group), the group's parameters read once and its 1 / sqrt(var +
** epsilon) computed once, in the scalar nest's order of operations:
**
** - NCHW16c (or NCHW8c): a group is a block of 16 (8) channels, its
**   parameters vectors, each pixel's block one vector;
** - NCHW (any rank from 2): a group is one channel, its parameters
**   splats, its H * W pixels (the product of the dimensions after C)
**   vectors of 16 along the row, the last one masked.
**
** The scalar nest took a sqrt and a division per element, its loads of
** the parameters not hoisted past its stores: DenseNet-121's 58
** normalizations took 3 ms of its 48 on a Zen 3 at two threads. */
typedef struct BatchNormVectors {
  const BatchNorm *b;
  LowerLanes v;
  bool blocked;
  GiltValue *x, *y; /* [N, C/b, H * W, b] blocked, [N, C, H * W] NCHW */
  GiltValue *pixels; /* H * W */
  GiltValue *steps;  /* the vectors of a group: pixels, or ceil(pixels / 16) */
  GiltValue *const *ivs;
  GiltValue *mean, *inv, *scale, *bias; /* the group's */
} BatchNormVectors;

static void batch_norm_step(Lower *l, GiltValue *iv, GiltValue *const *iter,
                            GiltValue **next, void *user)
{
  (void)iter;
  (void)next;
  BatchNormVectors *k = user;
  GiltValue *mask = NULL, *at[4] = {k->ivs[0], k->ivs[1], iv, NULL};
  if (k->blocked) {
    at[3] = lower_index(l, 0);
  } else {
    at[2] = lower_times(l, iv, lower_index(l, k->v.width));
    mask = lower_lanes_mask(l, &k->v, lower_minus(l, k->pixels, at[2]));
  }
  GiltValue *x = lower_lanes_load(l, &k->v, mask, k->x, at);
  GiltValue *y = lower_times(l, lower_minus(l, x, k->mean), k->inv);
  y = lower_plus(l, lower_times(l, y, k->scale), k->bias);
  y = lower_epilogue_apply_at(l, &k->b->epilogue, &k->v, mask, y, at);
  lower_lanes_store(l, &k->v, mask, y, k->y, at);
}

/* The group's parameter `p` at channel c: its block's vector, or the
** channel's splat. */
static GiltValue *group_param(Lower *l, const BatchNormVectors *k,
                              GiltValue *p, GiltValue *c)
{
  return k->blocked ? lower_lanes_load(l, &k->v, NULL, p, &c)
                    : lower_lanes_splat(l, &k->v, lower_load(l, p, &c));
}

static void batch_norm_group(Lower *l, GiltValue *const *ivs, void *user)
{
  BatchNormVectors *k = user;
  const BatchNorm *b = k->b;
  GiltValue *c = k->blocked ? lower_times(l, ivs[1], lower_index(l, k->v.width))
                            : ivs[1];
  k->ivs = ivs;
  k->mean = group_param(l, k, b->mean, c);
  k->inv = inv_std(l, group_param(l, k, b->var, c), b->epsilon);
  k->scale = group_param(l, k, b->scale, c);
  k->bias = group_param(l, k, b->bias, c);
  lower_for_upto(l, k->steps, 0, NULL, NULL, batch_norm_step, k);
}

/* Whether the map goes by vectors: X, Y and the parameters f32; X in
** blocks of 16 or 8 channels with static spatial sizes, or NCHW. */
static bool batch_norm_by_vectors(Lower *l, const BatchNorm *b)
{
  GiltType *t = type_of(b->x);
  bool blocked = lower_block_vectorizes(l, t->shaped.elem, b->block) &&
                 t->shaped.rank == 5 && t->shaped.shape[4] == b->block &&
                 t->shaped.shape[2] != GILT_DYNAMIC &&
                 t->shaped.shape[3] != GILT_DYNAMIC;
  if ((!blocked && b->block != 1) || t->shaped.rank < 2 ||
      lower_lanes_width(l, t->shaped.elem) != LOWER_F32_LANES ||
      lower_result_elem(l, 0) != t->shaped.elem)
    return false;
  GiltValue *params[4] = {b->scale, b->bias, b->mean, b->var};
  for (size_t i = 0; i < 4; i++)
    if (type_of(params[i])->shaped.elem != t->shaped.elem)
      return false;
  return true;
}

/* X or Y as [N, C, H * W] (pixels: H * W). */
static GiltValue *channel_rows(Lower *l, GiltValue *m, GiltValue *const *dims,
                               GiltValue *pixels)
{
  int64_t shape[3] = {GILT_DYNAMIC, GILT_DYNAMIC, GILT_DYNAMIC};
  GiltValue *sizes[3] = {dims[0], dims[1], pixels};
  return lower_reshaped(l, m, 3, shape, sizes);
}

static void batch_norm_vectors(Lower *l, const BatchNorm *b,
                               GiltValue *const *dims)
{
  GiltType *t = type_of(b->x);
  BatchNormVectors k = {.b = b, .blocked = b->block != 1};
  if (k.blocked)
    lower_lanes_init_width(l, &k.v, t->shaped.elem, b->block);
  else
    lower_lanes_init(l, &k.v, t->shaped.elem);
  if (k.blocked) {
    int64_t hw = t->shaped.shape[2] * t->shaped.shape[3];
    k.steps = lower_index(l, hw);
    k.x = lower_block_pixels(l, b->x, dims, hw);
    k.y = lower_block_pixels(l, b->out, dims, hw);
  } else {
    k.pixels = lower_index(l, 1);
    for (size_t d = 2; d < t->shaped.rank; d++)
      k.pixels = lower_times(l, k.pixels, dims[d]);
    k.steps = lower_binary(l, LOOP_OP_CEILDIVSI, k.pixels,
                           lower_index(l, k.v.width));
    k.x = channel_rows(l, b->x, dims, k.pixels);
    k.y = channel_rows(l, b->out, dims, k.pixels);
  }
  lower_parallel(l, 2, dims, batch_norm_group, &k);
}

static GiltStatus lower_batch_norm_training(Lower *l);

static GiltStatus lower_batch_normalization(Lower *l)
{
  if (graph_attr_int(l->op, "training_mode", 0))
    return lower_batch_norm_training(l);
  if (gilt_op_get_num_results(l->op) > 1)
    return lower_error(l, "results 'running_mean' and 'running_var' exist "
                          "only in training mode");
  GiltValue *x = lower_operand(l, 0);
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, x, dims);
  BatchNorm b = {x,
                 lower_operand(l, 1),
                 lower_operand(l, 2),
                 lower_operand(l, 3),
                 lower_operand(l, 4),
                 lower_alloc_result(l, 0, dims),
                 lower_acc_type(l, type_of(x)->shaped.elem),
                 graph_attr_float(l->op, "epsilon", 1e-5),
                 graph_attr_channel_block(l->op, "layout"),
                 {0}};
  if (lower_epilogue_check(l))
    return GILT_FAILURE;
  lower_epilogue_read(l, &b.epilogue);
  if (batch_norm_by_vectors(l, &b))
    batch_norm_vectors(l, &b, dims);
  else
    lower_parallel(l, type_of(x)->shaped.rank, dims, batch_norm_body, &b);
  return lower_replace(l, &b.out);
}

/* ---- statistics over groups of elements --------------------------------------------- */

/* Maps an index of the reduction's space to one of X. */
typedef void (*MapFn)(Lower *l, GiltValue *const *space, GiltValue **x_idx,
                      void *user);

typedef struct Norm Norm;
/* Writes the result for one element: x is its value in ct, idx its index
** into X. */
typedef void (*WriteFn)(Lower *l, Norm *n, GiltValue *x,
                        GiltValue *const *idx);

struct Norm {
  GiltValue *x, *out;
  size_t rank; /* of the index space */
  GiltValue *dims[GRAPH_MAX_RANK + 1];
  bool reduced[GRAPH_MAX_RANK + 1];
  MapFn map; /* NULL: the space is X's */
  GiltType *ct;
  GiltValue *count; /* of each group, in ct */
  double epsilon;
  WriteFn write;
  bool mvn; /* MeanVarianceNormalization: 1 / (sqrt(var) + 1e-9) */
  /* per group */
  GiltValue *mean, *var, *inv; /* inv: 1 / sqrt(var + epsilon) */
  GiltValue *const *at; /* the group's position, reduced dims at 0 */
  int pass;
  /* the ops' own */
  GiltValue *scale, *bias, *mean_out, *inv_std_out;
  GiltValue *cpg; /* GroupNormalization: channels per group */
};

enum { PASS_MEAN, PASS_VAR, PASS_WRITE };

static void x_index(Lower *l, Norm *n, GiltValue *const *space,
                    GiltValue **idx)
{
  if (n->map)
    n->map(l, space, idx, n);
  else
    memcpy(idx, space, n->rank * sizeof *idx);
}

static void norm_step(Lower *l, GiltValue *const *space,
                      GiltValue *const *acc, GiltValue **next, void *user)
{
  Norm *n = user;
  GiltValue *idx[GRAPH_MAX_RANK + 1];
  x_index(l, n, space, idx);
  GiltValue *x = load_as(l, n->x, idx, n->ct);
  if (n->pass == PASS_MEAN) {
    next[0] = lower_plus(l, acc[0], x);
  } else if (n->pass == PASS_VAR) {
    GiltValue *d = lower_minus(l, x, n->mean);
    next[0] = lower_plus(l, acc[0], lower_times(l, d, d));
  } else {
    n->write(l, n, x, idx);
  }
}

/* Two partial sums (split between a GPU block's threads). */
static void norm_combine(Lower *l, GiltValue *const *acc,
                         GiltValue *const *other, GiltValue **next,
                         void *user)
{
  (void)user;
  next[0] = lower_plus(l, acc[0], other[0]);
}

/* Per group: the mean, the variance, then the writes. */
static void norm_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Norm *n = user;
  GiltValue *zero = lower_constant(l, n->ct, 0), *sum;
  n->at = ivs;
  n->pass = PASS_MEAN;
  lower_reduce_loops_split(l, n->rank, n->dims, n->reduced, ivs, 1, &zero,
                           &sum, norm_step, norm_combine, n);
  n->mean = lower_divide(l, sum, n->count);
  n->pass = PASS_VAR;
  lower_reduce_loops_split(l, n->rank, n->dims, n->reduced, ivs, 1, &zero,
                           &sum, norm_step, norm_combine, n);
  n->var = lower_divide(l, sum, n->count);
  if (n->mvn) {
    GiltValue *std = lower_unary(l, LOOP_OP_SQRT, n->var);
    n->inv = reciprocal(l, lower_plus(l, std, lower_constant(l, n->ct, 1e-9)));
  } else {
    n->inv = inv_std(l, n->var, n->epsilon);
  }
  n->pass = PASS_WRITE;
  lower_reduce_loops(l, n->rank, n->dims, n->reduced, ivs, 0, NULL, NULL,
                     norm_step, n);
}

/* Runs the normalization n describes (rank, dims, reduced, map, write
** and the ops' own fields set). */
static void normalize(Lower *l, Norm *n)
{
  n->count = lower_index_to(
      l, lower_reduced_count(l, n->rank, n->dims, n->reduced), n->ct);
  lower_parallel_kept_shared(l, n->rank, n->dims, n->reduced, norm_body, n);
}

/* A Norm over X's own index space (map NULL), nothing reduced yet, ct the
** accumulation type of `stash` (NULL: of X's element type). */
static void norm_init(Lower *l, Norm *n, GiltType *stash, WriteFn write)
{
  memset(n, 0, sizeof *n);
  n->x = lower_operand(l, 0);
  n->rank = type_of(n->x)->shaped.rank;
  lower_dims(l, n->x, n->dims);
  n->ct = lower_acc_type(l, stash ? stash : type_of(n->x)->shaped.elem);
  n->epsilon = graph_attr_float(l->op, "epsilon", 1e-5);
  n->write = write;
  n->out = lower_alloc_result(l, 0, n->dims);
}

static void store_y(Lower *l, Norm *n, GiltValue *y, GiltValue *const *idx)
{
  lower_store(l, lower_convert(l, y, type_of(n->out)->shaped.elem), n->out,
              idx);
}

/* (x - mean) / sqrt(var + epsilon) * scale[c] + bias[c], c = idx[1]. */
static void write_per_channel(Lower *l, Norm *n, GiltValue *x,
                              GiltValue *const *idx)
{
  GiltValue *c = idx[1];
  GiltValue *scale = load_as(l, n->scale, &c, n->ct);
  GiltValue *bias = load_as(l, n->bias, &c, n->ct);
  GiltValue *y = lower_times(l, lower_minus(l, x, n->mean), n->inv);
  y = lower_plus(l, lower_times(l, y, scale), bias);
  store_y(l, n, y, idx);
}

/* ---- BatchNormalization in training mode ------------------------------------------- */

/* Per channel: the batch's statistics normalize Y, and the running ones
** move toward them: input * momentum + current * (1 - momentum). */
static void batch_norm_training_body(Lower *l, GiltValue *const *ivs,
                                     void *user)
{
  Norm *n = user;
  norm_body(l, ivs, user);
  GiltValue *c = ivs[1];
  GiltValue *m = lower_constant(l, n->ct, graph_attr_float(l->op, "momentum",
                                                            0.9));
  GiltValue *keep = lower_minus(l, lower_constant(l, n->ct, 1), m);
  GiltValue *stats[2] = {n->mean, n->var};
  GiltValue *outs[2] = {n->mean_out, n->inv_std_out};
  for (size_t i = 0; i < 2; i++) {
    if (!outs[i])
      continue;
    GiltValue *input = load_as(l, lower_operand(l, 3 + i), &c, n->ct);
    GiltValue *updated = lower_times(l, input, m);
    GiltValue *kept = lower_times(l, stats[i], keep);
    GiltValue *r = lower_plus(l, updated, kept);
    lower_store(l, lower_convert(l, r, type_of(outs[i])->shaped.elem), outs[i],
                &c);
  }
}

static GiltStatus lower_batch_norm_training(Lower *l)
{
  Norm n;
  norm_init(l, &n, NULL, write_per_channel);
  for (size_t d = 0; d < n.rank; d++)
    n.reduced[d] = d != 1;
  n.scale = lower_operand(l, 1);
  n.bias = lower_operand(l, 2);
  /* mean_out and inv_std_out carry running_mean and running_var here. */
  GiltValue *c = n.dims[1];
  size_t results = gilt_op_get_num_results(l->op);
  if (results > 1)
    n.mean_out = lower_alloc_result(l, 1, &c);
  if (results > 2)
    n.inv_std_out = lower_alloc_result(l, 2, &c);
  n.count = lower_index_to(
      l, lower_reduced_count(l, n.rank, n.dims, n.reduced), n.ct);
  lower_parallel_kept(l, n.rank, n.dims, n.reduced, batch_norm_training_body,
                      &n);
  GiltValue *out[3] = {n.out, n.mean_out, n.inv_std_out};
  return lower_replace(l, out);
}

/* ---- InstanceNormalization --------------------------------------------------------- */

static GiltStatus lower_instance_normalization(Lower *l)
{
  Norm n;
  norm_init(l, &n, NULL, write_per_channel);
  for (size_t d = 2; d < n.rank; d++)
    n.reduced[d] = true;
  n.scale = lower_operand(l, 1);
  n.bias = lower_operand(l, 2);
  normalize(l, &n);
  return lower_replace(l, &n.out);
}

/* ---- LayerNormalization ------------------------------------------------------------ */

static void write_layer_norm(Lower *l, Norm *n, GiltValue *x,
                             GiltValue *const *idx)
{
  GiltValue *sidx[GRAPH_MAX_RANK];
  GiltValue *y = lower_times(l, lower_minus(l, x, n->mean), n->inv);
  lower_broadcast_indices(l, n->scale, n->rank, idx, sidx);
  y = lower_times(l, y, load_as(l, n->scale, sidx, n->ct));
  if (n->bias) {
    lower_broadcast_indices(l, n->bias, n->rank, idx, sidx);
    y = lower_plus(l, y, load_as(l, n->bias, sidx, n->ct));
  }
  store_y(l, n, y, idx);
}

/* ---- LayerNormalization by rows (rows.c) ---- */

/* Whether Scale or B (p, NULL: absent) can be read by rows of X: f32, and
** along the row either one scalar (rank 0, last dimension 1) or a vector
** (the same static length as X's rows). */
static bool row_operand_ok(GiltValue *x, GiltValue *p)
{
  if (!p)
    return true;
  GiltType *t = type_of(p), *xt = type_of(x);
  if (t->shaped.elem != xt->shaped.elem)
    return false;
  if (t->shaped.rank == 0)
    return true;
  int64_t last = t->shaped.shape[t->shaped.rank - 1];
  return last == 1 ||
         (last != GILT_DYNAMIC && last == xt->shaped.shape[xt->shaped.rank - 1]);
}

static GiltValue *row_operand(Lower *l, Norm *n, LowerRow *r, GiltValue *p)
{
  GiltValue *idx[GRAPH_MAX_RANK];
  lower_broadcast_indices(l, p, n->rank, r->idx, idx);
  size_t rank = type_of(p)->shaped.rank;
  if (rank == 0 || type_of(p)->shaped.shape[rank - 1] == 1)
    return lower_lanes_splat(l, &r->v, lower_load(l, p, idx));
  return lower_row_load(l, r, p, idx, NULL);
}

static void row_step(Lower *l, LowerRow *r, GiltValue *const *acc,
                     GiltValue **next, void *user)
{
  Norm *n = user;
  GiltValue *x = lower_row_load(l, r, n->x, NULL, NULL);
  if (n->pass == PASS_MEAN) {
    next[0] = lower_plus(l, acc[0], x); /* the lanes past the row read 0 */
    return;
  }
  GiltValue *d = lower_minus(l, x, lower_lanes_splat(l, &r->v, n->mean));
  if (n->pass == PASS_VAR) {
    if (r->mask)
      d = lower_select(l, r->mask, d, lower_lanes_zero(&r->v));
    next[0] = lower_plus(l, acc[0], lower_times(l, d, d));
    return;
  }
  GiltValue *y = lower_times(l, d, lower_lanes_splat(l, &r->v, n->inv));
  y = lower_times(l, y, row_operand(l, n, r, n->scale));
  if (n->bias)
    y = lower_plus(l, y, row_operand(l, n, r, n->bias));
  lower_row_store(l, r, y, n->out);
}

static void layer_norm_row(Lower *l, Norm *n, GiltValue *const *ivs)
{
  LowerRow r;
  lower_row_init(l, &r, n->rank, ivs, n->dims[n->rank - 1]);
  GiltValue *zero = lower_lanes_zero(&r.v), *lanes;
  n->pass = PASS_MEAN;
  lower_row_loop(l, &r, 1, &zero, &lanes, row_step, n);
  n->mean = lower_divide(l, lower_row_combine(l, "add", lanes), n->count);
  n->pass = PASS_VAR;
  lower_row_loop(l, &r, 1, &zero, &lanes, row_step, n);
  n->var = lower_divide(l, lower_row_combine(l, "add", lanes), n->count);
  n->inv = inv_std(l, n->var, n->epsilon);
  n->pass = PASS_WRITE;
  lower_row_loop(l, &r, 0, NULL, NULL, row_step, n);
}

/* Whether this LayerNormalization goes by rows: f32 throughout, over the
** last axis alone, Scale and B readable by rows. */
static bool layer_norm_rows(Lower *l, Norm *n)
{
  GiltType *xt = type_of(n->x);
  return lower_row_apply(l, n->rank, n->reduced, xt->shaped.elem) &&
         n->ct == xt->shaped.elem &&
         type_of(n->out)->shaped.elem == xt->shaped.elem &&
         row_operand_ok(n->x, n->scale) && row_operand_ok(n->x, n->bias);
}

/* LayerNormalization's group: norm_body (or its rows), then Mean and
** InvStdDev at the group's position (the normalized dimensions at 0). */
static void layer_norm_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Norm *n = user;
  if (layer_norm_rows(l, n))
    layer_norm_row(l, n, ivs);
  else
    norm_body(l, ivs, user);
  if (n->mean_out)
    lower_store(l, lower_convert(l, n->mean, type_of(n->mean_out)->shaped.elem),
                n->mean_out, ivs);
  if (n->inv_std_out)
    lower_store(l, lower_convert(l, n->inv, type_of(n->inv_std_out)->shaped.elem),
                n->inv_std_out, ivs);
}

static GiltStatus lower_layer_normalization(Lower *l)
{
  int64_t stash = graph_attr_int(l->op, "stash_type", 1);
  GiltType *st = graph_onnx_elem_type(l->ctx, stash);
  if (!st || !lower_is_float(st))
    return lower_error(l, "attribute 'stash_type' (%lld) is not a float type",
                       (long long)stash);
  GiltValue *x = lower_operand(l, 0);
  size_t rank = type_of(x)->shaped.rank;
  int64_t axis;
  if (!graph_normalize_axis(graph_attr_int(l->op, "axis", -1), rank, &axis))
    return lower_error(l, "attribute 'axis' is out of range for rank %zu",
                       rank);
  GiltValue *scale = lower_operand(l, 1), *bias = lower_operand(l, 2);
  if (type_of(scale)->shaped.rank > rank ||
      (bias && type_of(bias)->shaped.rank > rank))
    return lower_error(l, "operands 'Scale' and 'B' must not have a higher "
                          "rank than 'X'");
  Norm n;
  norm_init(l, &n, st, write_layer_norm);
  for (size_t d = (size_t)axis; d < n.rank; d++)
    n.reduced[d] = true;
  n.scale = scale;
  n.bias = bias;
  size_t results = gilt_op_get_num_results(l->op);
  if (results > 1) {
    GiltValue *stat_dims[GRAPH_MAX_RANK];
    lower_reduced_dims(l, x, n.reduced, true, stat_dims);
    n.mean_out = lower_alloc_result(l, 1, stat_dims);
    if (results > 2)
      n.inv_std_out = lower_alloc_result(l, 2, stat_dims);
  }
  n.count = lower_index_to(
      l, lower_reduced_count(l, n.rank, n.dims, n.reduced), n.ct);
  if (layer_norm_rows(l, &n))
    lower_parallel_kept(l, n.rank, n.dims, n.reduced, layer_norm_body, &n);
  else
    lower_parallel_kept_shared(l, n.rank, n.dims, n.reduced, layer_norm_body,
                               &n);
  GiltValue *out[3] = {n.out, n.mean_out, n.inv_std_out};
  return lower_replace(l, out);
}

/* ---- GroupNormalization ------------------------------------------------------------ */

/* (n, g, k, spatial...) -> (n, g * channels_per_group + k, spatial...) */
static void group_map(Lower *l, GiltValue *const *space, GiltValue **idx,
                      void *user)
{
  Norm *n = user;
  idx[0] = space[0];
  idx[1] = lower_binary(l, LOOP_OP_ADDI,
                        lower_binary(l, LOOP_OP_MULI, space[1], n->cpg),
                        space[2]);
  for (size_t d = 3; d < n->rank; d++)
    idx[d - 1] = space[d];
}

static GiltStatus lower_group_normalization(Lower *l)
{
  int64_t stash = graph_attr_int(l->op, "stash_type", 1);
  GiltType *st = graph_onnx_elem_type(l->ctx, stash);
  if (!st || !lower_is_float(st))
    return lower_error(l, "attribute 'stash_type' (%lld) is not a float type",
                       (long long)stash);
  int64_t groups = graph_attr_int(l->op, "num_groups", 1);
  if (groups <= 0)
    return lower_error(l, "attribute 'num_groups' must be positive");
  Norm n;
  norm_init(l, &n, st, write_per_channel);
  GiltValue *g = lower_index(l, groups);
  if (type_of(n.x)->shaped.shape[1] == GILT_DYNAMIC) {
    /* the verifier checks a static count */
    GiltValue *rest = lower_binary(l, LOOP_OP_REMUI, n.dims[1], g);
    GiltValue *ok = lower_cmp(l, "eq", rest, lower_index(l, 0));
    static const char msg[] = "num_groups does not divide the channels";
    lower_emit_attr(l, LOOP_OP_ASSERT, NULL, 1, &ok, "message",
                    gilt_string_attr_get(l->ctx, msg, sizeof msg - 1));
  }
  n.cpg = lower_binary(l, LOOP_OP_DIVUI, n.dims[1], g);
  /* the space: N, groups, channels per group, spatial dims */
  for (size_t d = n.rank; d > 2; d--)
    n.dims[d] = n.dims[d - 1];
  n.dims[1] = g;
  n.dims[2] = n.cpg;
  n.rank++;
  for (size_t d = 2; d < n.rank; d++)
    n.reduced[d] = true;
  n.map = group_map;
  n.scale = lower_operand(l, 1);
  n.bias = lower_operand(l, 2);
  normalize(l, &n);
  return lower_replace(l, &n.out);
}

/* ---- MeanVarianceNormalization ------------------------------------------------------- */

static void write_mvn(Lower *l, Norm *n, GiltValue *x, GiltValue *const *idx)
{
  store_y(l, n, lower_times(l, lower_minus(l, x, n->mean), n->inv), idx);
}

static GiltStatus lower_mean_variance_normalization(Lower *l)
{
  int64_t axes[GRAPH_MAX_RANK];
  size_t count;
  size_t rank = type_of(lower_operand(l, 0))->shaped.rank;
  if (!graph_attr_ints(l->op, "axes", axes, GRAPH_MAX_RANK, &count)) {
    axes[0] = 0, axes[1] = 2, axes[2] = 3;
    count = 3;
  } else if (count > GRAPH_MAX_RANK) {
    return lower_error(l, "attribute 'axes' has too many entries");
  }
  bool reduced[GRAPH_MAX_RANK] = {0};
  for (size_t i = 0; i < count; i++) {
    int64_t a;
    if (!graph_normalize_axis(axes[i], rank, &a))
      return lower_error(l, "attribute 'axes' names axis %lld, out of range "
                            "for rank %zu", (long long)axes[i], rank);
    reduced[a] = true;
  }
  Norm n;
  norm_init(l, &n, NULL, write_mvn);
  memcpy(n.reduced, reduced, sizeof reduced);
  n.mvn = true;
  normalize(l, &n);
  return lower_replace(l, &n.out);
}

/* ---- LRN --------------------------------------------------------------------------- */

typedef struct Lrn {
  GiltValue *x, *out, *channels;
  GiltType *ct;
  int64_t before, after;
  double alpha, beta, bias, size;
  GiltValue *const *ivs;
} Lrn;

static void lrn_step(Lower *l, GiltValue *iv, GiltValue *const *acc,
                     GiltValue **next, void *user)
{
  Lrn *r = user;
  GiltValue *const *ivs = r->ivs;
  size_t rank = type_of(r->x)->shaped.rank;
  GiltValue *idx[GRAPH_MAX_RANK];
  memcpy(idx, ivs, rank * sizeof *idx);
  idx[1] = iv;
  GiltValue *v = load_as(l, r->x, idx, r->ct);
  next[0] = lower_plus(l, acc[0], lower_times(l, v, v));
}

static void lrn_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Lrn *r = user;
  r->ivs = ivs;
  GiltValue *lo = lower_binary(l, LOOP_OP_SUBI, ivs[1],
                               lower_index(l, r->before));
  lo = lower_binary(l, LOOP_OP_MAXSI, lo, lower_index(l, 0));
  GiltValue *hi = lower_binary(l, LOOP_OP_ADDI, ivs[1],
                               lower_index(l, r->after + 1));
  hi = lower_binary(l, LOOP_OP_MINSI, hi, r->channels);
  GiltValue *zero = lower_constant(l, r->ct, 0), *sum;
  lower_for(l, lo, hi, lower_index(l, 1), 1, &zero, &sum, lrn_step, r);
  GiltValue *scaled =
      lower_times(l, lower_constant(l, r->ct, r->alpha / r->size), sum);
  GiltValue *base = lower_plus(l, lower_constant(l, r->ct, r->bias), scaled);
  GiltValue *x = load_as(l, r->x, ivs, r->ct);
  GiltValue *y = lower_divide(
      l, x,
      lower_binary(l, LOOP_OP_POWF, base, lower_constant(l, r->ct, r->beta)));
  lower_store(l, lower_convert(l, y, type_of(r->out)->shaped.elem), r->out,
              ivs);
}

static GiltStatus lower_lrn(Lower *l)
{
  GiltValue *x = lower_operand(l, 0);
  size_t rank = type_of(x)->shaped.rank;
  if (rank < 2)
    return lower_error(l, "operand 'X' must have rank >= 2 (N x C x ...)");
  int64_t size = graph_attr_int(l->op, "size", 1);
  if (size <= 0)
    return lower_error(l, "attribute 'size' must be positive");
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, x, dims);
  Lrn r = {x,
           lower_alloc_result(l, 0, dims),
           dims[1],
           lower_acc_type(l, type_of(x)->shaped.elem),
           (size - 1) / 2,
           size / 2, /* ceil((size - 1) / 2) */
           graph_attr_float(l->op, "alpha", 1e-4),
           graph_attr_float(l->op, "beta", 0.75),
           graph_attr_float(l->op, "bias", 1.0),
           (double)size,
           NULL};
  lower_parallel(l, rank, dims, lrn_body, &r);
  return lower_replace(l, &r.out);
}

const GraphLoweringRow graph_lower_normalization[] = {
    {GRAPH_OP_BATCH_NORMALIZATION, {lower_batch_normalization}},
    {GRAPH_OP_INSTANCE_NORMALIZATION, {lower_instance_normalization}},
    {GRAPH_OP_LAYER_NORMALIZATION, {lower_layer_normalization}},
    {GRAPH_OP_GROUP_NORMALIZATION, {lower_group_normalization}},
    {GRAPH_OP_MEAN_VARIANCE_NORMALIZATION,
     {lower_mean_variance_normalization}},
    {GRAPH_OP_LRN, {lower_lrn}},
    {0, {NULL}},
};
