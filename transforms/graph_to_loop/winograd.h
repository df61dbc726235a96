/*
** winograd.h - the arithmetic of Winograd's minimal filtering F(m x m,
** 3x3) (winograd.c), which both Winograd convolutions share: NCHW's,
** blocks of outputs along a vector (conv_winograd.c), and NCHW16c's,
** channels along a vector (conv_winograd_nchwc.c).
*/
#ifndef GILT_TRANSFORMS_GRAPH_TO_LOOP_WINOGRAD_H
#define GILT_TRANSFORMS_GRAPH_TO_LOOP_WINOGRAD_H

#include "transforms/graph_to_loop/lowering.h"

#define WINOGRAD_MAX_ALPHA 6

/* One tile size: F(m x m, 3x3) reads blocks of alpha = m + 2 inputs a
** side and multiplies alpha^2 products per channel pair for m^2
** outputs, through G (alpha x 3), B^T (alpha x alpha) and A^T (m x
** alpha), row by row. */
typedef struct WinogradTile {
  int m, alpha;
  const char *algorithm; /* the tiles' remark names it */
  const char *name;      /* the cost model's remark names it */
  const double *g, *bt, *at;
} WinogradTile;

/* F(2x2, 3x3) and F(4x4, 3x3), in that order. */
GILT_INTERNAL extern const WinogradTile WINOGRAD_TILES[2];

/* U = G g G^T for each 3x3 filter of w (floats [OC, C, 3, 3], at any
** alignment), laid out as the products read it: u[((e * panels + o /
** width) * c + k) * width + o % width] for element e of alpha^2, filter o
** and channel k. Filters of the panels past OC repeat the last one when
** `repeat_last`, else are left as they are (zeros from gilt_blob_alloc). */
GILT_INTERNAL void winograd_pack_filters(const WinogradTile *f,
                                         const void *w, int64_t oc,
                                         int64_t c, int64_t width,
                                         int64_t panels, bool repeat_last,
                                         float *u);

/* out[r * step] = the sum over k of mat[r][k] * x[k * step] for each of
** the `rows` rows of a matrix of `cols` columns, vectors of v: a term of
** coefficient 1 first, then the others added, subtracted or
** multiply-added. */
GILT_INTERNAL void winograd_combine(Lower *l, const LowerLanes *v,
                                    const double *mat, int rows, int cols,
                                    GiltValue *const *x, size_t step,
                                    GiltValue **out);

/* The alpha^2 vectors d (d[i * alpha + j], row i, column j of a block)
** transformed in place to V = B^T d B; and the alpha^2 vectors mv of a
** block's products back to its m^2 outputs y = A^T mv A (y[a * m + b]). */
GILT_INTERNAL void winograd_input(Lower *l, const LowerLanes *v,
                                  const WinogradTile *f, GiltValue **d);
GILT_INTERNAL void winograd_output(Lower *l, const LowerLanes *v,
                                   const WinogradTile *f,
                                   GiltValue *const *mv, GiltValue **y);
/* The vector operations (additions, subtractions, multiply-adds) that
** winograd_input and winograd_output emit for one block: the cost
** models'. */
GILT_INTERNAL int winograd_input_ops(const WinogradTile *f);
GILT_INTERNAL int winograd_output_ops(const WinogradTile *f);

#endif /* GILT_TRANSFORMS_GRAPH_TO_LOOP_WINOGRAD_H */
