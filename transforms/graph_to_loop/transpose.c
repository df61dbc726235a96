/*
** transpose.c - lowering of Transpose: a loop.parallel over the result
** reading the input at the permuted indices. The result is a fresh dense
** buffer, not a strided view: what reads it later (a matmul, a function
** result) wants the identity layout, and the copy is the memory planner's
** to remove.
**
** A permutation that moves the input's last dimension (an attention's
** keys, [S, heads, D] to [heads, D, S]) goes by tiles of TILE x TILE
** elements of the result's two dimensions involved, the one the input
** runs along and the result's last. Element by element, consecutive
** results read the input a row apart: 2 KB apart in a 512-wide encoder,
** every read in one of two sets of the L1 cache, which held 16 of the
** 128 lines a row of results touched, so each line was fetched again for
** each of its 16 floats (0.17 ms for 256 KB, some 8 cycles an element).
** In a tile, the TILE input lines the inner loop reads serve the next
** TILE results of the outer loop from L1. Other permutations keep the
** input's rows whole and need no tiles.
*/
#include "transforms/graph_to_loop/indexing.h"

/* Elements of a tile's side: a line of 16 floats. */
#define TILE 16

typedef struct Transpose {
  GiltValue *in, *out;
  int64_t perm[GRAPH_MAX_RANK];
  size_t rank;
  size_t along; /* the result's dimension that is the input's last */
  GiltValue *dims[GRAPH_MAX_RANK]; /* the result's */
  GiltValue *tile_ivs[GRAPH_MAX_RANK]; /* the tile's, while it is built */
  GiltValue *first[2], *count[2]; /* its start and extent in `along` and last */
} Transpose;

static GiltValue *transposed_element(Lower *l, GiltValue *const *ivs,
                                     void *user)
{
  Transpose *t = user;
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t i = 0; i < t->rank; i++)
    idx[t->perm[i]] = ivs[i];
  return lower_load(l, t->in, idx);
}

/* Result element (first[0] + ivs[0] in `along`, first[1] + ivs[1] in the
** last dimension) of the tile. */
static void tile_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Transpose *t = user;
  size_t last = t->rank - 1;
  GiltValue *at[GRAPH_MAX_RANK];
  for (size_t i = 0; i < t->rank; i++)
    at[i] = t->tile_ivs[i];
  at[t->along] = ix_add(l, t->first[0], ivs[0]);
  at[last] = ix_add(l, t->first[1], ivs[1]);
  lower_store(l, transposed_element(l, at, t), t->out, at);
}

/* One tile: ivs index the result, but by tiles in `along` and the last
** dimension. */
static void tile_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Transpose *t = user;
  size_t dims[2] = {t->along, t->rank - 1};
  GiltValue *side = lower_index(l, TILE);
  for (size_t i = 0; i < t->rank; i++)
    t->tile_ivs[i] = ivs[i];
  for (size_t k = 0; k < 2; k++) {
    t->first[k] = ix_mul(l, ivs[dims[k]], side);
    t->count[k] = ix_min(l, side, ix_sub(l, t->dims[dims[k]], t->first[k]));
  }
  lower_nest(l, 2, t->count, tile_element, t);
}

/* The result's dimension the input's last one becomes, where tiles pay:
** it is not the result's last, and both it and the result's last hold a
** tile's side at least (static); else rank. */
static size_t tiled_dimension(const Transpose *t)
{
  GiltType *it = gilt_value_get_type(t->in);
  size_t last = t->rank - 1;
  if (t->rank < 2 || t->perm[last] == (int64_t)last)
    return t->rank;
  size_t along = 0;
  while (t->perm[along] != (int64_t)last)
    along++;
  int64_t a = it->shaped.shape[last], b = it->shaped.shape[t->perm[last]];
  return a != GILT_DYNAMIC && b != GILT_DYNAMIC && a >= TILE && b >= TILE
             ? along
             : t->rank;
}

static GiltStatus lower_transpose(Lower *l)
{
  Transpose t = {.in = lower_operand(l, 0)};
  t.rank = gilt_value_get_type(t.in)->shaped.rank;
  size_t n;
  if (!graph_attr_ints(l->op, "perm", t.perm, GRAPH_MAX_RANK, &n)) {
    n = t.rank;
    for (size_t i = 0; i < t.rank; i++)
      t.perm[i] = (int64_t)(t.rank - 1 - i);
  }
  if (n != t.rank)
    return lower_error(l, "'perm' does not list every axis");
  for (size_t i = 0; i < t.rank; i++) {
    if (t.perm[i] < 0 || t.perm[i] >= (int64_t)t.rank)
      return lower_error(l, "'perm' is out of range");
    t.dims[i] = lower_dim(l, t.in, (size_t)t.perm[i]);
  }
  t.along = tiled_dimension(&t);
  if (t.along == t.rank) {
    GiltValue *out = lower_generate(l, 0, t.dims, transposed_element, &t);
    return lower_replace(l, &out);
  }
  t.out = lower_alloc_result(l, 0, t.dims);
  GiltValue *tiles[GRAPH_MAX_RANK];
  for (size_t i = 0; i < t.rank; i++)
    tiles[i] = t.dims[i];
  for (size_t k = 0; k < 2; k++) {
    size_t d = k ? t.rank - 1 : t.along;
    tiles[d] = lower_binary(l, LOOP_OP_CEILDIVSI, t.dims[d],
                            lower_index(l, TILE));
  }
  lower_parallel(l, t.rank, tiles, tile_body, &t);
  return lower_replace(l, &t.out);
}

const GraphLoweringRow graph_lower_transpose[] = {
    {GRAPH_OP_TRANSPOSE, {lower_transpose}},
    {0, {NULL}},
};
