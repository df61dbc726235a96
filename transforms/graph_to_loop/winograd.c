/*
** winograd.c - Winograd's minimal filtering F(m x m, 3x3) for m = 2 and
** 4 (Lavin and Gray 2016): the standard G, B^T and A^T of F(2, 3)
** (points 0, 1, -1, inf) and of F(4, 3) (0, 1, -1, 2, -2, inf), the
** filter transform done at compile time, and the input and output
** transforms as vector operations. F(2x2)'s transforms are additions:
** its error stays within a few ulps of the direct sum's. F(4x4)'s
** constants (1/6, 1/24, 8, ...) make it larger, some 1e-6 relative on
** ResNet's layers, still well inside the models' tolerance.
**
** Not here: how a layout lays out blocks, channels and products
** (conv_winograd.c for NCHW, conv_winograd_nchwc.c for NCHW16c).
*/
#include "transforms/graph_to_loop/winograd.h"

#include <string.h>

static const double F2_G[4 * 3] = {1, 0, 0, .5, .5, .5, .5, -.5, .5, 0, 0, 1};
static const double F2_BT[4 * 4] = {1, 0, -1, 0, 0, 1,  1, 0,
                                    0, -1, 1, 0, 0, 1, 0, -1};
static const double F2_AT[2 * 4] = {1, 1, 1, 0, 0, 1, -1, -1};

static const double F4_G[6 * 3] = {
    1.0 / 4,  0,          0,          -1.0 / 6, -1.0 / 6, -1.0 / 6,
    -1.0 / 6, 1.0 / 6,    -1.0 / 6,   1.0 / 24, 1.0 / 12, 1.0 / 6,
    1.0 / 24, -1.0 / 12,  1.0 / 6,    0,        0,        1};
static const double F4_BT[6 * 6] = {
    4, 0,  -5, 0, 1, 0, 0, -4, -4, 1,  1, 0, 0, 4, -4, -1, 1, 0,
    0, -2, -1, 2, 1, 0, 0, 2,  -1, -2, 1, 0, 0, 4, 0,  -5, 0, 1};
static const double F4_AT[4 * 6] = {1, 1, 1,  1, 1, 0,  0, 1, -1, 2, -2, 0,
                                    0, 1, 1,  4, 4, 0,  0, 1, -1, 8, -8, 1};

const WinogradTile WINOGRAD_TILES[2] = {
    {2, 4, "winograd-f2x2-3x3", "F(2x2, 3x3)", F2_G, F2_BT, F2_AT},
    {4, 6, "winograd-f4x4-3x3", "F(4x4, 3x3)", F4_G, F4_BT, F4_AT},
};

/* U = G g G^T for the 3x3 filter g (row by row): alpha^2 elements. */
static void transform_filter(const WinogradTile *f, const float *g, double *u)
{
  double gg[WINOGRAD_MAX_ALPHA][3];
  for (int i = 0; i < f->alpha; i++)
    for (int j = 0; j < 3; j++)
      gg[i][j] = f->g[i * 3] * g[j] + f->g[i * 3 + 1] * g[3 + j] +
                 f->g[i * 3 + 2] * g[6 + j];
  for (int i = 0; i < f->alpha; i++)
    for (int j = 0; j < f->alpha; j++)
      u[i * f->alpha + j] = gg[i][0] * f->g[j * 3] +
                            gg[i][1] * f->g[j * 3 + 1] +
                            gg[i][2] * f->g[j * 3 + 2];
}

/* Channels transformed together: U's writes for one panel and this many
** channels (alpha^2 runs of `width` floats each) stay in L1, where going
** through all channels of one output channel wrote each float to a line
** of its own, long gone from the cache when the next output channel's
** float came (ResNet-18: the packing's share of its compile's samples
** 4.9% before, 3.8% after). */
enum { PACK_CHANNELS = 16 };

void winograd_pack_filters(const WinogradTile *f, const void *w, int64_t oc,
                           int64_t c, int64_t width, int64_t panels,
                           bool repeat_last, float *u)
{
  int64_t elements = f->alpha * f->alpha;
  int64_t filters = repeat_last ? panels * width : oc;
  for (int64_t first = 0; first < filters; first += width)
    for (int64_t k0 = 0; k0 < c; k0 += PACK_CHANNELS)
      for (int64_t o = first; o < first + width && o < filters; o++)
        for (int64_t k = k0; k < k0 + PACK_CHANNELS && k < c; k++) {
          float g[9];
          int64_t src = o < oc ? o : oc - 1;
          memcpy(g, (const char *)w + (size_t)((src * c + k) * 9) * sizeof *g,
                 sizeof g);
          double v[WINOGRAD_MAX_ALPHA * WINOGRAD_MAX_ALPHA];
          transform_filter(f, g, v);
          for (int64_t e = 0; e < elements; e++)
            u[((e * panels + o / width) * c + k) * width + o % width] =
                (float)v[e];
        }
}

void winograd_combine(Lower *l, const LowerLanes *v, const double *mat,
                      int rows, int cols, GiltValue *const *x, size_t step,
                      GiltValue **out)
{
  for (int r = 0; r < rows; r++) {
    const double *c = mat + r * cols;
    int first = -1;
    for (int k = 0; k < cols && first < 0; k++)
      if (c[k] == 1)
        first = k;
    GiltValue *sum = first >= 0 ? x[(size_t)first * step] : NULL;
    for (int k = 0; k < cols; k++) {
      GiltValue *xk = x[(size_t)k * step];
      if (c[k] == 0 || k == first)
        continue;
      if (c[k] == 1 && sum)
        sum = lower_plus(l, sum, xk);
      else if (c[k] == -1 && sum)
        sum = lower_minus(l, sum, xk);
      else {
        GiltValue *coef = lower_constant(l, v->type, c[k]);
        sum = sum ? lower_lanes_fma(l, coef, xk, sum)
                  : lower_times(l, coef, xk);
      }
    }
    out[(size_t)r * step] = sum;
  }
}

/* The vector operations winograd_combine emits for mat. */
static int combine_ops(const double *mat, int rows, int cols)
{
  int terms = 0;
  for (int i = 0; i < rows * cols; i++)
    terms += mat[i] != 0;
  return terms - rows;
}

void winograd_input(Lower *l, const LowerLanes *v, const WinogradTile *f,
                    GiltValue **d)
{
  int alpha = f->alpha;
  GiltValue *rows[WINOGRAD_MAX_ALPHA * WINOGRAD_MAX_ALPHA];
  for (int j = 0; j < alpha; j++) /* B^T d, column by column */
    winograd_combine(l, v, f->bt, alpha, alpha, d + j, (size_t)alpha,
                     rows + j);
  for (int i = 0; i < alpha; i++) /* then times B, row by row */
    winograd_combine(l, v, f->bt, alpha, alpha, rows + i * alpha, 1,
                     d + i * alpha);
}

void winograd_output(Lower *l, const LowerLanes *v, const WinogradTile *f,
                     GiltValue *const *mv, GiltValue **y)
{
  int m = f->m, alpha = f->alpha;
  GiltValue *rows[WINOGRAD_MAX_ALPHA * WINOGRAD_MAX_ALPHA];
  for (int j = 0; j < alpha; j++) /* A^T M, column by column */
    winograd_combine(l, v, f->at, m, alpha, mv + j, (size_t)alpha, rows + j);
  for (int a = 0; a < m; a++) /* then times A, row by row */
    winograd_combine(l, v, f->at, m, alpha, rows + a * alpha, 1, y + a * m);
}

int winograd_input_ops(const WinogradTile *f)
{
  return 2 * f->alpha * combine_ops(f->bt, f->alpha, f->alpha);
}

int winograd_output_ops(const WinogradTile *f)
{
  return (f->alpha + f->m) * combine_ops(f->at, f->m, f->alpha);
}
