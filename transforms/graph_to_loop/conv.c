/*
** conv.c - lowering of Conv (1-D, 2-D, 3-D and more, groups and
** depthwise), ConvInteger and QLinearConv: one kernel, vectorized along
** the last output axis for f32.
**
** The input is first copied, converted to the accumulator type (f32 for
** f16/bf16/f32 inputs, f64, or i32 minus the zero point), into a zeroed
** padded buffer, so that the inner loops need no bounds checks. Its last
** axis is stored by phase: position p of the padded row sits at
** [p % s, p / s] (s the last stride), so that the inputs of consecutive
** outputs, p = ow * s + kw * d, are consecutive in memory whatever the
** stride: [r, ow + q] with kw * d = q * s + r. Then
**
**   parallel (n, m, o..., ob):     ow0 = ob * W, mask = ow < OW
**     acc = splat(B[m]) or 0
**     for ic < C/group, for k... (one loop per kernel axis):
**       acc = fma(splat(Wt[m, ic, k...]), masked_load xp[n, c, o*s + k*d
**                 ..., r, ow0 + q], acc)
**     masked_store acc to Y[n, m, o..., ow0]
**
** with W = 16 lanes for f32 and scalars (W = 1) otherwise (vector.c).
** On a target without vector registers (a GPU's threads) an iteration
** computes a tile of up to 4 output channels by 4 columns instead
** (lower_thread_tile; channels of one group): each weight it loads
** serves 4 columns and each input 4 channels. There an input of the
** accumulator's type is read where it lies, each tap's position clamped
** into the input and its value replaced by 0 in the padding: the padded
** copy serves the vector loads (and the conversion), and on a GPU it
** would cost two more kernels and a pass over memory per layer.
** The innermost loop costs 6 interpreted ops per W multiply-adds at
** stride 1 and dilation 1 (load of the weight, broadcast, addi of the
** column, masked_load, fma, the loop's step), 8 otherwise (the muli of
** the dilation, the remsi and divsi of the phase): 0.375 to 0.5 ops per
** MAC in f32. The copies cost O(input) and O(weights). A result whose
** type is not the accumulator's (f16, QLinearConv's u8) is converted by
** a last nest. Not here: ConvTranspose (conv_transpose.c), DeformConv
** (deform_conv.c), packing of weights for the compiled path, and the f32
** 2-D layers that have kernels of their own: one group (conv_tiled.c,
** conv_winograd.c, and conv_first.c for few input channels), groups of
** outputs that a tile's rows divide (conv_tiled.c) and depthwise
** (conv_depthwise.c, and conv_depthwise_planes.c beyond 3x3 taps); on
** a GPU, the f32 layers that fill its block tiles (conv_block_tiles.c).
*/
#include "gilt/remarks.h"
#include "transforms/graph_to_loop/block_tiles.h"
#include "transforms/graph_to_loop/indexing.h"
#include "transforms/graph_to_loop/tiles.h"

static size_t rank_of(GiltValue *v)
{
  return gilt_value_get_type(v)->shaped.rank;
}

/* ---- the padded input ----------------------------------------------------- */

typedef struct Pad {
  LowerWindow *w;
  GiltValue *x, *xp;
  LowerMapFn map; /* converts an element into xp's type */
  void *user;
} Pad;

/* The indices into the padded buffer of padded position p along the last
** axis: its phase and column. */
static void phase(Lower *l, int64_t s, GiltValue *p, GiltValue **out)
{
  if (s == 1) {
    out[0] = lower_index(l, 0), out[1] = p;
    return;
  }
  out[0] = ix_rem(l, p, lower_index(l, s));
  out[1] = ix_div(l, p, lower_index(l, s));
}

static void pad_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Pad *p = user;
  size_t n = p->w->n;
  GiltValue *x = lower_load(l, p->x, ivs), *at[GRAPH_MAX_RANK + 1];
  x = p->map(l, x, ivs, p->user);
  at[0] = ivs[0], at[1] = ivs[1];
  for (size_t i = 0; i < n; i++)
    at[2 + i] = ix_add(l, ivs[2 + i], p->w->begin[i]);
  phase(l, p->w->strides[n - 1], at[1 + n], &at[1 + n]);
  lower_store(l, x, p->xp, at);
}

/* A zeroed buffer [N, C, extent..., s, extent / s rounded up] of element
** type elem holding map(x) at the window's padding offsets. */
static GiltValue *pad_input(Lower *l, LowerWindow *w, GiltValue *x,
                            GiltType *elem, LowerMapFn map, void *user)
{
  size_t n = w->n, rank = n + 3;
  int64_t shape[GRAPH_MAX_RANK + 1], s = w->strides[n - 1];
  GiltValue *dims[GRAPH_MAX_RANK + 1];
  dims[0] = lower_dim(l, x, 0), dims[1] = lower_dim(l, x, 1);
  for (size_t i = 0; i < n; i++)
    dims[2 + i] = w->extent[i];
  dims[1 + n] = lower_index(l, s);
  dims[2 + n] =
      lower_binary(l, LOOP_OP_CEILDIVSI, w->extent[n - 1], lower_index(l, s));
  for (size_t i = 0; i < rank; i++)
    shape[i] = GILT_DYNAMIC;
  shape[1 + n] = s;
  GiltType *t = gilt_memref_type_get(l->ctx, rank, shape, elem, NULL, NULL);
  Pad p = {w, x, lower_alloc(l, t, dims), map, user};
  lower_fill(l, p.xp, lower_constant(l, elem, 0));
  GiltValue *xdims[GRAPH_MAX_RANK];
  lower_dims(l, x, xdims);
  lower_parallel(l, n + 2, xdims, pad_body, &p);
  return p.xp;
}

/* ---- the kernel ---------------------------------------------------------------- */

typedef struct Conv {
  LowerWindow w;
  LowerLanes v;
  GiltValue *xp, *wt, *bias, *y; /* wt [M, C/group, k...] */
  GiltValue *cg, *mg;            /* channels per group, in and out */
  size_t depth;                  /* the loop being built: 0 ic, 1 + i k_i */
  /* The tile an iteration computes: tm output channels by tn columns of
  ** the last axis (lower_thread_tile), at these (clamped) positions. */
  int64_t tm, tn;
  GiltValue *m_at[LOWER_THREAD_TILE], *ow_at[LOWER_THREAD_TILE];
  /* The innermost tap's offset along the last axis: q in xp, or
  ** k * d - begin when the input is read in place. */
  GiltValue *column;
  /* Read in place (no xp): the input, and whether the taps of the outer
  ** spatial axes built so far lie inside it (NULL: no axis yet). */
  GiltValue *x, *inside;
  GiltValue *c0, *ow0, *mask;
  GiltValue *base[GRAPH_MAX_RANK]; /* o_i * s_i */
  GiltValue *xi[GRAPH_MAX_RANK + 1], *wi[GRAPH_MAX_RANK];
  LowerEpilogue epilogue; /* a fused activation (Conv only) */
} Conv;

static void conv_level(Lower *l, GiltValue *iv, GiltValue *const *acc,
                       GiltValue **next, void *user);

/* The input the innermost tap reaches for the tile's column j: from the
** padded copy, or read in place, 0 where it lies in the padding. */
static GiltValue *tap_input(Lower *l, Conv *c, int64_t j)
{
  size_t n = c->w.n;
  if (!c->x) {
    GiltValue *first = c->xi[2 + n];
    if (j > 0)
      c->xi[2 + n] = ix_add(l, c->ow_at[j], c->column);
    GiltValue *v = lower_lanes_load(l, &c->v, c->mask, c->xp, c->xi);
    c->xi[2 + n] = first;
    return v;
  }
  /* ow * s + k * d - begin along the last axis. */
  GiltValue *p = ix_add(
      l, ix_mul(l, c->ow_at[j], lower_index(l, c->w.strides[n - 1])),
      c->column);
  GiltValue *in;
  c->xi[1 + n] = ix_clamp_into(l, p, c->w.in[n - 1], &in);
  if (c->inside)
    in = lower_binary(l, LOOP_OP_ANDI, c->inside, in);
  return lower_select(l, in, lower_load(l, c->x, c->xi),
                      lower_constant(l, c->v.elem, 0));
}

/* The loop at c->depth around the multiply-adds, carrying the tile's
** sums acc into out. */
static void conv_loop(Lower *l, Conv *c, GiltValue *const *acc,
                      GiltValue **out)
{
  size_t n = c->w.n;
  if (c->depth == n + 1) {
    GiltValue *wv[LOWER_THREAD_TILE], *xv[LOWER_THREAD_TILE];
    for (int64_t i = 0; i < c->tm; i++) {
      c->wi[0] = c->m_at[i];
      wv[i] = lower_lanes_splat(l, &c->v, lower_load(l, c->wt, c->wi));
    }
    for (int64_t j = 0; j < c->tn; j++)
      xv[j] = tap_input(l, c, j);
    for (int64_t i = 0; i < c->tm; i++)
      for (int64_t j = 0; j < c->tn; j++)
        out[i * c->tn + j] =
            lower_lanes_fma(l, wv[i], xv[j], acc[i * c->tn + j]);
    return;
  }
  GiltValue *upper =
      c->depth == 0 ? c->cg : lower_index(l, c->w.kernel[c->depth - 1]);
  lower_for_upto(l, upper, (size_t)(c->tm * c->tn), acc, out, conv_level, c);
}

static void conv_level(Lower *l, GiltValue *iv, GiltValue *const *acc,
                       GiltValue **next, void *user)
{
  Conv *c = user;
  size_t n = c->w.n, d = c->depth;
  GiltValue *outer_inside = c->inside;
  c->wi[1 + d] = iv;
  if (d == 0) {
    c->xi[1] = ix_add(l, c->c0, iv);
  } else {
    size_t i = d - 1;
    GiltValue *kd = c->w.dilations[i] == 1
                        ? iv
                        : ix_mul(l, iv, lower_index(l, c->w.dilations[i]));
    if (c->x && i + 1 < n) { /* in place: o * s + k * d - begin */
      GiltValue *p = ix_sub(l, ix_add(l, c->base[i], kd), c->w.begin[i]);
      GiltValue *in;
      c->xi[2 + i] = ix_clamp_into(l, p, c->w.in[i], &in);
      c->inside =
          c->inside ? lower_binary(l, LOOP_OP_ANDI, c->inside, in) : in;
    } else if (c->x) {
      c->column = ix_sub(l, kd, c->w.begin[i]);
    } else if (i + 1 < n) {
      c->xi[2 + i] = ix_add(l, c->base[i], kd);
    } else {
      phase(l, c->w.strides[i], kd, &c->xi[1 + n]);
      c->column = c->xi[2 + n];
      c->xi[2 + n] = ix_add(l, c->ow0, c->column);
    }
  }
  c->depth++;
  conv_loop(l, c, acc, next);
  c->depth--;
  c->inside = outer_inside;
}

static void conv_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Conv *c = user;
  size_t n = c->w.n, tile = (size_t)(c->tm * c->tn);
  GiltValue *m0 = ivs[1];
  if (c->tm > 1)
    m0 = ix_mul(l, m0, lower_index(l, c->tm));
  ix_tile_positions(l, m0, c->tm, c->tm > 1 ? lower_dim(l, c->wt, 0) : NULL,
                    c->m_at);
  c->c0 = ix_mul(l, ix_div(l, m0, c->mg), c->cg);
  c->ow0 = ivs[1 + n];
  if (c->v.width * c->tn > 1)
    c->ow0 = ix_mul(l, c->ow0, lower_index(l, c->v.width * c->tn));
  ix_tile_positions(l, c->ow0, c->tn, c->w.out[n - 1], c->ow_at);
  c->mask = lower_lanes_mask(l, &c->v, ix_sub(l, c->w.out[n - 1], c->ow0));
  c->xi[0] = ivs[0];
  c->wi[0] = m0;
  for (size_t i = 0; i + 1 < n; i++)
    c->base[i] = ix_mul(l, ivs[2 + i], lower_index(l, c->w.strides[i]));
  GiltValue *acc[LOWER_THREAD_TILE * LOWER_THREAD_TILE];
  for (size_t t = 0; t < tile; t++) {
    acc[t] = lower_lanes_zero(&c->v);
    if (c->bias)
      acc[t] = lower_lanes_splat(
          l, &c->v,
          lower_convert(l, lower_load(l, c->bias, &c->m_at[t / c->tn]),
                        c->v.elem));
  }
  c->depth = 0;
  conv_loop(l, c, acc, acc);
  /* Every value, a fused residual's reads included, before the first
  ** store: a clamped duplicate must read what its original read. */
  GiltValue *yi[LOWER_THREAD_TILE * LOWER_THREAD_TILE][GRAPH_MAX_RANK];
  for (size_t t = 0; t < tile; t++) {
    for (size_t i = 0; i < n + 1; i++)
      yi[t][i] = ivs[i];
    yi[t][1] = c->m_at[t / c->tn];
    yi[t][1 + n] = c->ow_at[t % c->tn];
    acc[t] = lower_epilogue_apply_at(l, &c->epilogue, &c->v, c->mask, acc[t],
                                     yi[t]);
  }
  for (size_t t = 0; t < tile; t++)
    lower_lanes_store(l, &c->v, c->mask, acc[t], c->y, yi[t]);
}

/* Y (elem, [N, M, out...]) of the convolution of xp (padded) with wt,
** plus bias when given; group from the attribute. */
static GiltValue *conv_kernel(Lower *l, Conv *c, GiltValue *x, GiltType *elem)
{
  size_t n = c->w.n;
  int64_t group = graph_attr_int(l->op, "group", 1);
  GiltValue *dims[GRAPH_MAX_RANK], *uppers[GRAPH_MAX_RANK];
  int64_t shape[GRAPH_MAX_RANK];
  GiltType *rt = lower_result_type(l, 0);
  dims[0] = lower_dim(l, x, 0);
  dims[1] = lower_dim(l, c->wt, 0);
  for (size_t i = 0; i < n; i++)
    dims[2 + i] = c->w.out[i];
  for (size_t i = 0; i < n + 2; i++)
    shape[i] = rt->shaped.shape[i], uppers[i] = dims[i];
  lower_lanes_init(l, &c->v, elem);
  lower_epilogue_read(l, &c->epilogue);
  c->y = lower_alloc(l, gilt_memref_type_get(l->ctx, n + 2, shape, elem, NULL,
                                             NULL),
                     dims);
  c->cg = lower_dim(l, c->wt, 1);
  c->mg = ix_div(l, dims[1], lower_index(l, group));
  /* A tile's channels are of one group. */
  int64_t outputs = gilt_value_get_type(c->wt)->shaped.shape[0];
  int64_t per_group = outputs == GILT_DYNAMIC ? 1 : outputs / group;
  c->tm = lower_thread_tile(l, group == 1 ? outputs : per_group);
  while (group != 1 && per_group % c->tm)
    c->tm--;
  c->tn = lower_thread_tile(l, shape[1 + n]);
  if (c->tm > 1)
    uppers[1] = lower_binary(l, LOOP_OP_CEILDIVSI, dims[1],
                             lower_index(l, c->tm));
  if (c->v.width * c->tn > 1)
    uppers[1 + n] = lower_binary(l, LOOP_OP_CEILDIVSI, dims[1 + n],
                                 lower_index(l, c->v.width * c->tn));
  lower_parallel(l, n + 2, uppers, conv_body, c);
  return c->y;
}

/* ---- the result ----------------------------------------------------------------- */

/* QLinearConv's scales and output zero point (w_scale per tensor or
** per output channel). */
typedef struct Quantized {
  GiltValue *x_scale, *w_scale, *y_scale, *y_zp;
} Quantized;

typedef struct Finish {
  GiltValue *acc, *out;
  const Quantized *q; /* NULL: convert */
} Finish;

static void finish_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Finish *f = user;
  GiltType *to = gilt_value_get_type(f->out)->shaped.elem;
  GiltValue *v = lower_load(l, f->acc, ivs);
  if (f->q) {
    GiltValue *x_scale = lower_per_axis(l, f->q->x_scale, 0, 0, ivs);
    GiltValue *w_scale = lower_per_axis(l, f->q->w_scale, 0, 1, ivs);
    GiltValue *s = lower_times(l, x_scale, w_scale);
    s = lower_binary(l, LOOP_OP_DIVF, s,
                     lower_per_axis(l, f->q->y_scale, 0, 0, ivs));
    v = lower_requantize(l, v, s, lower_per_axis(l, f->q->y_zp, 0, 0, ivs),
                         to);
  } else
    v = lower_convert(l, v, to);
  lower_store(l, v, f->out, ivs);
}

/* The result from the accumulator buffer: itself when its type is the
** result's, else a new buffer converted (or requantized by q). */
static GiltStatus finish(Lower *l, GiltValue *acc, const Quantized *q)
{
  if (!q && gilt_value_get_type(acc)->shaped.elem == lower_result_elem(l, 0))
    return lower_replace(l, &acc);
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, acc, dims);
  Finish f = {acc, lower_alloc_result(l, 0, dims), q};
  lower_parallel(l, rank_of(acc), dims, finish_body, &f);
  return lower_replace(l, &f.out);
}

/* ---- the ops ------------------------------------------------------------------------ */

/* Reads the window with W's kernel sizes, which must be static. */
static GiltStatus read_window(Lower *l, GiltValue *x, GiltValue *wt,
                              LowerWindow *w)
{
  GiltType *t = gilt_value_get_type(wt);
  for (size_t i = 2; i < t->shaped.rank; i++)
    if (t->shaped.shape[i] == GILT_DYNAMIC)
      return lower_error(l, "the kernel's spatial sizes must be static");
  if (rank_of(x) < 3)
    return lower_error(l, "the input needs a spatial dimension");
  lower_window_read(l, x, rank_of(x) - 2, t->shaped.shape + 2, w);
  return GILT_SUCCESS;
}

static GiltValue *convert_to(Lower *l, GiltValue *x, GiltValue *const *ivs,
                             void *user)
{
  (void)ivs;
  return lower_convert(l, x, user);
}

/* The accumulator type of a float convolution: f32 for the 16-bit floats,
** whose sums would lose too much, else the type itself. */
static GiltType *float_acc(Lower *l, GiltType *t)
{
  if (gilt_type_get_bit_width(t) < 32)
    return gilt_float_type_get(l->ctx, GILT_F32);
  return t;
}

/* What conv_depthwise.c does, for --explain=tiling,vectorize. */
static void remark_depthwise(Lower *l)
{
  GiltRemarkArg lanes[1] = {{"lanes", NULL, LOWER_F32_LANES}};
  gilt_remark(l->op, "tiling", "depthwise", 0, NULL,
              "depthwise: each channel's taps over vectors of output "
              "columns, the input read where it lies, parallel over "
              "channels");
  gilt_remark(l->op, "vectorize", "vectorized", 1, lanes,
              "vectorized: %d f32 lanes of output columns", LOWER_F32_LANES);
  gilt_remark(l->op, "layout", "nchw-in-place", 0, NULL,
              "computes NCHW in place: X read where it lies, Y written "
              "directly, nothing copied");
}

/* Why a Conv takes the generic nest, for --explain=tiling,vectorize: the
** kernels of their own take 2-D f32 convolutions of one group or
** depthwise ones, on a target with vector registers. */
static void remark_generic(Lower *l, int64_t group)
{
  GiltType *elem = lower_result_elem(l, 0);
  const char *why =
      group != 1 ? "grouped, and no kernel of its own takes it"
      : elem != gilt_float_type_get(l->ctx, GILT_F32) ? "it is not f32"
      : !lower_vectorizes(l, elem) ? "the target has no vector registers"
                                   : "it is not 2-D";
  GiltRemarkArg args[1] = {{"group", NULL, group}};
  gilt_remark(l->op, "tiling", "generic-nest", 1, args,
              "not tiled (%s): one loop nest over the outputs", why);
  gilt_remark(l->op, "vectorize", "left-to-llvm", 0, NULL,
              "scalar loop nest (%s); vectorizing it is left to LLVM", why);
}

static GiltStatus lower_conv(Lower *l)
{
  GiltValue *x = lower_operand(l, 0);
  Conv c = {.wt = lower_operand(l, 1), .bias = lower_operand(l, 2)};
  if (lower_epilogue_check(l) || read_window(l, x, c.wt, &c.w))
    return GILT_FAILURE;
  int64_t group = graph_attr_int(l->op, "group", 1);
  int block = lower_conv_winograd_apply(l, &c.w, x, c.wt, group);
  if (block) {
    GiltValue *y = lower_conv_winograd(l, &c.w, x, c.wt, c.bias, block);
    if (y)
      return lower_replace(l, &y);
  }
  if (lower_conv_first_apply(l, &c.w, c.wt, group)) {
    GiltValue *y = lower_conv_first(l, &c.w, x, c.wt, c.bias);
    return lower_replace(l, &y);
  }
  if (lower_conv_tiles_apply(l, &c.w, c.wt, group)) {
    GiltValue *y = lower_conv_tiles(l, &c.w, x, c.wt, c.bias, group);
    return lower_replace(l, &y);
  }
  if (lower_conv_depthwise_planes_apply(l, &c.w, x, c.wt, group)) {
    GiltValue *y = lower_conv_depthwise_planes(l, &c.w, x, c.wt, c.bias);
    return lower_replace(l, &y);
  }
  if (lower_conv_depthwise_apply(l, &c.w, x, c.wt, group)) {
    remark_depthwise(l);
    GiltValue *y = lower_conv_depthwise(l, &c.w, x, c.wt, c.bias);
    return lower_replace(l, &y);
  }
  if (lower_conv_block_tiles_apply(l, &c.w, x, c.wt, group)) {
    GiltValue *y = lower_conv_block_tiles(l, &c.w, x, c.wt, c.bias, group);
    return lower_replace(l, &y);
  }
  remark_generic(l, group);
  GiltType *acc = float_acc(l, lower_result_elem(l, 0));
  /* The residual is added to the accumulator, before any conversion. */
  if (lower_operand(l, 3) && acc != lower_result_elem(l, 0))
    return lower_error(l, "a fused residual 'Z' needs an f32 or f64 result");
  /* Without vector loads to serve, an input that needs no conversion is
  ** read where it lies. */
  if (lower_thread_tile(l, GILT_DYNAMIC) > 1 &&
      gilt_value_get_type(x)->shaped.elem == acc)
    c.x = x;
  else
    c.xp = pad_input(l, &c.w, x, acc, convert_to, acc);
  if (lower_operand_elem(l, 1) != acc)
    c.wt = lower_copy_map(l, c.wt, acc, false, NULL, NULL);
  return finish(l, conv_kernel(l, &c, x, acc), NULL);
}

/* ConvInteger and QLinearConv: x - x_zero_point and w - w_zero_point (per
** tensor, or per output channel) in i32; `at` gives the op's operands x,
** x_zero_point, w, w_zero_point, bias. */
static GiltStatus integer_conv(Lower *l, const size_t *at, GiltValue **y)
{
  GiltValue *x = lower_operand(l, at[0]), *xzp = lower_operand(l, at[1]);
  GiltValue *wzp = lower_operand(l, at[3]);
  Conv c = {.wt = lower_operand(l, at[2]),
            .bias = at[4] ? lower_operand(l, at[4]) : NULL};
  if (xzp && rank_of(xzp) > 1)
    return lower_error(l, "x_zero_point must be a scalar");
  if (wzp && rank_of(wzp) > 1)
    return lower_error(l, "w_zero_point must be a scalar or 1-D");
  if (read_window(l, x, c.wt, &c.w))
    return GILT_FAILURE;
  GiltType *i32 = gilt_integer_type_get(l->ctx, 32, GILT_SIGNLESS);
  LowerZeroPoint zx = {xzp, rank_of(x), 1}, zw = {wzp, rank_of(c.wt), 0};
  c.xp = pad_input(l, &c.w, x, i32, lower_minus_zero_point, &zx);
  c.wt = lower_copy_map(l, c.wt, i32, false, lower_minus_zero_point, &zw);
  *y = conv_kernel(l, &c, x, i32);
  return GILT_SUCCESS;
}

static GiltStatus lower_conv_integer(Lower *l)
{
  static const size_t at[5] = {0, 2, 1, 3, 0};
  GiltValue *y;
  if (integer_conv(l, at, &y))
    return GILT_FAILURE;
  return lower_replace(l, &y);
}

/* QLinearConv: the integer convolution plus the i32 bias, requantized
** with x_scale * w_scale[m] / y_scale into y's type. */
static GiltStatus lower_q_linear_conv(Lower *l)
{
  static const size_t at[5] = {0, 2, 3, 5, 8};
  GiltValue *y;
  Quantized q = {lower_operand(l, 1), lower_operand(l, 4),
                 lower_operand(l, 6), lower_operand(l, 7)};
  if (lower_is_float(lower_result_elem(l, 0)))
    return lower_error(l, "float8 outputs are not supported");
  if (rank_of(q.x_scale) > 1 || rank_of(q.y_scale) > 1 ||
      rank_of(q.w_scale) > 1 || rank_of(q.y_zp) > 1)
    return lower_error(l, "scales and zero points must be scalars (or 1-D "
                          "per output channel: w_scale)");
  if (integer_conv(l, at, &y))
    return GILT_FAILURE;
  return finish(l, y, &q);
}

const GraphLoweringRow graph_lower_conv[] = {
    {GRAPH_OP_CONV, {lower_conv}},
    {GRAPH_OP_CONV_INTEGER, {lower_conv_integer}},
    {GRAPH_OP_Q_LINEAR_CONV, {lower_q_linear_conv}},
    {0, {NULL}},
};
