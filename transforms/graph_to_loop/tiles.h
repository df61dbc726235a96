/*
** tiles.h - the register-blocked f32 kernel of tiles.c, which MatMul,
** Gemm and Conv lower through, and the packed operands it reads best
** (pack.c): the caller says how to read an element of A and a vector of
** B and how to write a vector of C; the kernel owns the tiling, the
** accumulators and the parallel loop over tiles.
*/
#ifndef GILT_TRANSFORMS_GRAPH_TO_LOOP_TILES_H
#define GILT_TRANSFORMS_GRAPH_TO_LOOP_TILES_H

#include "transforms/graph_to_loop/lowering.h"

#define LOWER_TILE_MAX_ROWS 8
#define LOWER_TILE_MAX_VECTORS 4
#define LOWER_TILE_MAX_REDUCTIONS 4

/* Where the kernel is, for the callbacks: the tile's block indices and
** first row and column; each row of it (clamped to m - 1, so always one
** that exists) and each column of its vectors, with the vectors' masks
** (NULL where the tile cannot pass n, as a static n shows); and the
** reduction loops' induction variables. A narrow tile (tiles.c) has one
** vector: the callbacks see v = 0 only. */
typedef struct LowerTileAt {
  GiltValue *mb, *nb, *m0, *n0;
  GiltValue *rows[LOWER_TILE_MAX_ROWS];
  GiltValue *cols[LOWER_TILE_MAX_VECTORS];
  GiltValue *masks[LOWER_TILE_MAX_VECTORS];
  GiltValue *red[LOWER_TILE_MAX_REDUCTIONS];
} LowerTileAt;

typedef struct LowerTiles {
  /* What the caller computes this way, for remarks: "matmul-packed",
  ** "winograd-f2x2-3x3", ... */
  const char *algorithm;
  GiltValue *m, *n;     /* C's rows and columns (index values) */
  size_t rows, vectors; /* a tile: rows x (vectors * lanes) of C */
  /* The columns of a vector: 0 for LOWER_F32_LANES, or 8 where each
  ** vector is a block of NCHW8c's channels. */
  int64_t lanes;
  /* For an n known only at run time: whether the last tile of columns
  ** may hold 16 or fewer, so that a tile one vector wide is worth
  ** emitting for it (a static n decides that itself). */
  bool narrow_tail;
  /* B is read where it lies, its rows far apart (a 1x1 convolution's
  ** input channels, H * W floats apart): each column of tiles keeps its
  ** panel of B in a buffer of its own, which its first tile of rows fills
  ** as it reads B and the others read (tiles.c). Ignored where the tiles
  ** go rows outer or block the reduction. */
  bool copy_panels;
  /* The panels load_b reads B from, as lower_pack_cols packed them
  ** ([column tiles, K, width]), or NULL; where several products' panels
  ** lie end to end (Winograd's elements), b_first is the index of this
  ** product's first (NULL: 0). Weights packed at compile time come from
  ** memory at every call: where vectors are 256 bits or narrower and the
  ** columns go outer with two tiles of rows or more each (tiles.c,
  ** prefetches_panels), each tile of a column prefetches its share of
  ** the next panel, the next product's first after the last column. */
  GiltValue *b_panels, *b_first;
  /* The reduction: loops over [0, reductions[d]), outermost first. */
  size_t num_reductions;
  GiltValue *reductions[LOWER_TILE_MAX_REDUCTIONS];
  /* A(row i of the tile, red): an f32 scalar. */
  GiltValue *(*load_a)(Lower *l, const LowerTileAt *at, size_t i,
                       void *user);
  /* B(red, the columns of vector v) as a vector<lanes x f32>; the lanes
  ** off at->masks[v] may read anything finite, or nothing. */
  GiltValue *(*load_b)(Lower *l, const LowerTileAt *at, size_t v,
                       void *user);
  /* Writes the sums C(row i, the columns of vector v) (the lanes of
  ** at->masks[v] only). Called for rows below m only. */
  void (*store)(Lower *l, const LowerTileAt *at, size_t i, size_t v,
                GiltValue *sums, void *user);
  void *user;
} LowerTiles;

/* Emits the kernel at the insertion point: a loop.parallel over the tiles
** of C. */
GILT_INTERNAL void lower_tiles(Lower *l, const LowerTiles *t);

/* ---- packed operands (pack.c) ------------------------------------------- */

/* A matrix operand as the packers read it: element (r, c) is
** memref[prefix..., r, c], or memref[prefix..., c, r] when transposed;
** rows and cols are its sizes. */
typedef struct LowerMatrix {
  GiltValue *memref;
  GiltValue *const *prefix; /* the leading (batch) indices; NULL: none */
  bool transposed;
  GiltValue *rows, *cols;
} LowerMatrix;

/* A as the tiles read it, rows by `mr`: a new buffer [ceil(M/mr), K, mr]
** with panel[b, k, i] = A(min(b * mr + i, M - 1), k). */
GILT_INTERNAL GiltValue *lower_pack_rows(Lower *l, const LowerMatrix *a,
                                         size_t mr);
/* A(row i of the tile at `at`, the reduction's step) from panels that
** lower_pack_rows made, the tile's rows its panel's: what a load_a
** callback over packed rows returns. The reduction is one loop. */
GILT_INTERNAL GiltValue *lower_packed_row(Lower *l, GiltValue *panels,
                                          const LowerTileAt *at, size_t i);
/* B as the tiles read it, columns by `nr` (a multiple of 8): a new
** buffer [ceil(N/nr), K, nr] with panel[b, k, j] = B(k, b * nr + j), 0
** past N. */
GILT_INTERNAL GiltValue *lower_pack_cols(Lower *l, const LowerMatrix *b,
                                         size_t nr);

/* ---- convolutions (conv_tiled.c, conv_winograd.c, conv_depthwise.c,
** conv_first.c) ---- */

/* An input [N, C, H, W] padded with zeros and split by strides into phase
** planes, the rows of each laid end to end: planes[n, py * sw + px, c,
** i * pitch + j] holds padded pixel (i * sh + py, j * sw + px), the
** padding before the input being `begin`. Consecutive outputs of a
** convolution of those strides read consecutive floats of one plane. */
typedef struct LowerPlanes {
  GiltValue *x, *planes; /* planes: what lower_pad_planes makes */
  GiltValue *begin[2];
  int64_t strides[2];
  GiltValue *pitch;
} LowerPlanes;

/* Allocates p->planes, [N, sh * sw, C, length], and fills it, zeros
** included, in parallel (pad_planes.c). */
GILT_INTERNAL void lower_pad_planes(Lower *l, LowerPlanes *p,
                                    GiltValue *length);
/* Allocates p->planes as the planes of channel (n, c) alone, [1, sh * sw,
** 1, length], and fills them, in the loop being built: inside a parallel
** loop over channels, what the channel's kernel reads next while it is
** in the cache. */
GILT_INTERNAL void lower_pad_channel_planes(Lower *l, LowerPlanes *p,
                                            GiltValue *length, GiltValue *n,
                                            GiltValue *c);

/* Whether a tile of rows x vectors accumulators fits the target's
** registers (Lower's register_vectors) with the vectors it loads and a
** broadcast, all counted in vectors of 16 f32. */
GILT_INTERNAL bool lower_tile_fits(const Lower *l, size_t rows,
                                   size_t vectors);
/* The shape of a tile for the target's registers (Lower's
** register_vectors, tiles.c): its columns in vectors of 16, two where
** the registers hold six rows of them (AVX-512), else one (AVX2, whose 16
** registers of 8 lanes hold half as many floats). */
GILT_INTERNAL size_t lower_tile_vectors(const Lower *l);
/* The most rows a tile `vectors` wide may have: its rows x vectors
** accumulators, the vectors of B it loads and a broadcast fit the
** registers; never more than 8. */
GILT_INTERNAL size_t lower_tile_max_rows(const Lower *l, size_t vectors);
/* A tile's rows for a product of m rows (GILT_DYNAMIC: unknown) in tiles
** lower_tile_vectors wide: of those from three quarters of
** lower_tile_max_rows up to it (6, 7 and 8 with AVX-512, 12 to 16
** accumulators; 5 and 6 with AVX2), the one that computes the fewest
** rows past m, the larger on a tie. 6 rows waste 5 of 54 on ResNet's 7x7 outputs (49 = 7
** x 7) and 4 of 516 on 512 channels. */
GILT_INTERNAL size_t lower_tile_rows(const Lower *l, int64_t m);
/* Of the counts of rows from fewest to most, the one whose blocks cover m
** (static, > 0) with the fewest rows past it, the larger on a tie. */
GILT_INTERNAL size_t lower_rows_fewest_past(int64_t m, size_t fewest,
                                            size_t most);
/* A tile's rows for a product whose tiles must not straddle blocks of m
** rows (a grouped convolution's groups): the largest divisor of m (static)
** up to lower_tile_max_rows, 1 where no other divides it. */
GILT_INTERNAL size_t lower_tile_rows_dividing(const Lower *l, int64_t m);
/* The tile rows of a product whose rows are a convolution's outputs, OW
** a row (GILT_DYNAMIC: unknown) and `outputs` in all: all of them when a
** tile holds them (aligned when they are one row), else a divisor of OW
** when one of lower_tile_rows's three is (*aligned: a tile's outputs then
** lie in one output row, and its reads of the input one address apart by
** constant offsets), else lower_tile_rows. */
GILT_INTERNAL size_t lower_output_rows(const Lower *l, int64_t ow,
                                       int64_t outputs, bool *aligned);

/* Whether the Conv being lowered, of window w, goes through the tiles:
** f32, 2-D, one group, or groups of a static number of outputs that
** lower_tile_rows_dividing tiles by more than one row. */
GILT_INTERNAL bool lower_conv_tiles_apply(Lower *l, const LowerWindow *w,
                                          GiltValue *weights, int64_t group);
/* Y = conv(x, weights) + bias (NULL: none) in `group` groups through
** the tiles: the new result buffer. */
GILT_INTERNAL GiltValue *lower_conv_tiles(Lower *l, LowerWindow *w,
                                          GiltValue *x, GiltValue *weights,
                                          GiltValue *bias, int64_t group);

/* Which Winograd F(m x m, 3x3) the Conv being lowered goes through
** (conv_winograd.c): m = 2 or 4 as its cost model chooses, 0 for none.
** Only f32, 3x3, stride and dilation 1, one group, constant weights and
** a static output size qualify. */
GILT_INTERNAL int lower_conv_winograd_apply(Lower *l, const LowerWindow *w,
                                            GiltValue *x, GiltValue *weights,
                                            int64_t group);
/* Y = conv(x, weights) + bias by F(m x m, 3x3): the new result buffer, or
** NULL (nothing emitted) when the weights turn out not to be usable. */
GILT_INTERNAL GiltValue *lower_conv_winograd(Lower *l, LowerWindow *w,
                                             GiltValue *x, GiltValue *weights,
                                             GiltValue *bias, int m);

/* Which Winograd F(m x m, 3x3) the graph.conv_nchwc being lowered goes
** through with channels along the vectors (conv_winograd_nchwc.c): m = 2
** or 4 as its cost model chooses, 0 for none. Only X in NCHW16c
** (in_block 16), 3x3, stride and dilation 1, static multiples of 16
** channels in and out, constant weights and a static output size
** qualify; one group (the caller's). */
GILT_INTERNAL int lower_conv_winograd_nchwc_apply(Lower *l,
                                                  const LowerWindow *w,
                                                  GiltValue *weights,
                                                  int64_t in_block);
/* Y [N, OC/16, OH, OW, 16] of dimensions ydims = conv(x, weights) + bias
** by that F(m x m, 3x3): the new result buffer. */
GILT_INTERNAL GiltValue *lower_conv_winograd_nchwc(Lower *l, LowerWindow *w,
                                                   GiltValue *x,
                                                   GiltValue *weights,
                                                   GiltValue *bias,
                                                   GiltValue *const *ydims,
                                                   int m);

/* Whether the Conv being lowered goes through the kernel of few input
** channels (conv_first.c): f32, 2-D, one group, at most 4 input
** channels, a static multiple of 8 output channels, at most 7x7 taps,
** output rows of static width, 16 or more. */
GILT_INTERNAL bool lower_conv_first_apply(Lower *l, const LowerWindow *w,
                                          GiltValue *weights, int64_t group);
/* Y = conv(x, weights) + bias by that kernel: the new result buffer. */
GILT_INTERNAL GiltValue *lower_conv_first(Lower *l, LowerWindow *w,
                                          GiltValue *x, GiltValue *weights,
                                          GiltValue *bias);

/* Whether the Conv being lowered goes through the depthwise kernel
** (conv_depthwise.c): f32, 2-D, one input and one output channel per
** group, at most 7x7 taps, a column stride of at most 4. */
GILT_INTERNAL bool lower_conv_depthwise_apply(Lower *l, const LowerWindow *w,
                                              GiltValue *x, GiltValue *weights,
                                              int64_t group);
/* Y = conv(x, weights) + bias by the depthwise kernel: the new result
** buffer. */
GILT_INTERNAL GiltValue *lower_conv_depthwise(Lower *l, LowerWindow *w,
                                              GiltValue *x, GiltValue *weights,
                                              GiltValue *bias);
/* Channel c's taps of depthwise weights [C, 1, KH, KW] loaded (into
** scalars[kh * KW + kw], unless scalars is NULL) and splat (into
** splats[...]), at most LOWER_DEPTHWISE_MAX_TAPS of them. */
GILT_INTERNAL void lower_depthwise_taps(Lower *l, const LowerLanes *v,
                                        GiltValue *weights, GiltValue *c,
                                        GiltValue **scalars,
                                        GiltValue **splats);
/* Whether the depthwise Conv being lowered goes through the kernel that
** reads each channel's padded phase planes (conv_depthwise_planes.c):
** lower_conv_depthwise_apply's, a filter of more than 3x3 taps and a row
** stride of at most 4. */
GILT_INTERNAL bool lower_conv_depthwise_planes_apply(Lower *l,
                                                     const LowerWindow *w,
                                                     GiltValue *x,
                                                     GiltValue *weights,
                                                     int64_t group);
/* Y = conv(x, weights) + bias by that kernel: the new result buffer. */
GILT_INTERNAL GiltValue *lower_conv_depthwise_planes(Lower *l, LowerWindow *w,
                                                     GiltValue *x,
                                                     GiltValue *weights,
                                                     GiltValue *bias);
/* Whether the MaxPool being lowered, of window w, goes through the same
** kernel: f32, 2-D, no Indices result, at most 7x7 taps, a column stride
** of at most 4. */
GILT_INTERNAL bool lower_max_pool_vector_apply(Lower *l, const LowerWindow *w,
                                               GiltValue *x);
/* Y = MaxPool(x) by that kernel: the new result buffer. */
GILT_INTERNAL GiltValue *lower_max_pool_vector(Lower *l, LowerWindow *w,
                                               GiltValue *x);

/* What the windows of conv_nchwc.c's blocked depthwise nest compute: a
** depthwise convolution, or a 2-D pool in NCHW16c, the taps' maximum or
** mean (counting the taps in the padding, or not). */
typedef enum LowerBlockedPool {
  LOWER_BLOCKED_CONV,
  LOWER_BLOCKED_MAX,
  LOWER_BLOCKED_AVERAGE,
  LOWER_BLOCKED_AVERAGE_WITH_PAD,
} LowerBlockedPool;
/* Whether the MaxPool or AveragePool being lowered, of window w, goes
** through that nest: f32, 2-D, x [N, C/16, H, W, 16], at most 7x7 taps. */
GILT_INTERNAL bool lower_pool_nchwc_apply(Lower *l, const LowerWindow *w,
                                          GiltValue *x);
/* Y = the pool of x by that nest: the new result buffer. */
GILT_INTERNAL GiltValue *lower_pool_nchwc(Lower *l, LowerWindow *w,
                                          GiltValue *x, LowerBlockedPool pool);

/* The most taps a depthwise kernel unrolls (7x7): conv_depthwise.c's
** splats, held through a row, or conv_nchwc.c's taps. */
#define LOWER_DEPTHWISE_MAX_TAPS 49
/* The most output pixels conv_nchwc.c's depthwise rows compute side by
** side. */
#define LOWER_DEPTHWISE_PIXELS LOWER_TILE_MAX_ROWS

/* Whether a kh x kw window (sizes from the weights' type or the op's
** attributes: dynamic, or absurd in a malformed model) has at most `max`
** taps, without overflowing. */
static inline bool lower_taps_fit(int64_t kh, int64_t kw, int64_t max)
{
  return kh >= 1 && kw >= 1 && kh <= max && kw <= max / kh;
}

#endif /* GILT_TRANSFORMS_GRAPH_TO_LOOP_TILES_H */
