/*
** block_tiles.h - the f32 product for a GPU's thread blocks
** (block_tiles.c): each block computes a square tile of C, its threads
** staging tiles of A and B through shared memory. The caller says how to
** read an element of A and of B and how to write one of C; the kernel
** owns the tiling, the staging, the barriers and the accumulators.
*/
#ifndef GILT_TRANSFORMS_GRAPH_TO_LOOP_BLOCK_TILES_H
#define GILT_TRANSFORMS_GRAPH_TO_LOOP_BLOCK_TILES_H

#include "transforms/graph_to_loop/lowering.h"

/* The depth of the tiles of A and B one step of the reduction stages. */
#define LOWER_BLOCK_DEPTH 16

typedef struct LowerBlockTiles {
  /* What the caller computes this way, for remarks: "matmul-blocks",
  ** "conv-implicit-gemm". */
  const char *algorithm;
  /* Products side by side: C(batch..., i, j) for each index of the
  ** leading dims, of sizes batch[0..batch_rank). */
  size_t batch_rank;
  GiltValue *batch[GRAPH_MAX_RANK];
  GiltValue *m, *n, *k; /* C's rows and columns, the reduction */
  /* A(batch, i, k) and B(batch, k, j), in bounds: f32 scalars. */
  GiltValue *(*load_a)(Lower *l, GiltValue *const *batch, GiltValue *i,
                       GiltValue *k, void *user);
  GiltValue *(*load_b)(Lower *l, GiltValue *const *batch, GiltValue *k,
                       GiltValue *j, void *user);
  /* The value C(batch, i) starts from before the products are added (a
  ** convolution's bias, so that each sum rounds as the thread tiles'
  ** does), for i < m; NULL: 0. */
  GiltValue *(*init)(Lower *l, GiltValue *const *batch, GiltValue *i,
                     void *user);
  /* Writes the sum C(batch, i, j), for i < m and j < n only. */
  void (*store)(Lower *l, GiltValue *const *batch, GiltValue *i,
                GiltValue *j, GiltValue *sum, void *user);
  void *user;
} LowerBlockTiles;

/* Whether a product of m x n outputs (static extents, or GILT_DYNAMIC)
** takes the block tiles: the target has them (Lower's block_tile) and the
** tiles would be at least half full. */
GILT_INTERNAL bool lower_block_tiles_fit(const Lower *l, int64_t m,
                                         int64_t n);
/* The product in tiles of Lower's block_tile. */
GILT_INTERNAL void lower_block_tiles(Lower *l, const LowerBlockTiles *t);

/* Whether the Conv being lowered (window w, input x, weights wt) takes
** the block tiles (conv_block_tiles.c): f32, and its product per image
** and group fills them. */
GILT_INTERNAL bool lower_conv_block_tiles_apply(Lower *l,
                                                const LowerWindow *w,
                                                GiltValue *x, GiltValue *wt,
                                                int64_t group);
/* Y = conv(x, wt) + bias (NULL: none), with the op's epilogue, as an
** implicit GEMM per image and group in the block tiles: the new result
** buffer. */
GILT_INTERNAL GiltValue *lower_conv_block_tiles(Lower *l,
                                                const LowerWindow *w,
                                                GiltValue *x, GiltValue *wt,
                                                GiltValue *bias,
                                                int64_t group);

#endif /* GILT_TRANSFORMS_GRAPH_TO_LOOP_BLOCK_TILES_H */
