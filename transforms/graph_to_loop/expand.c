/*
** expand.c - lowering of the ops whose result repeats or rearranges its
** input's elements by index arithmetic: Expand (numpy broadcasting to a
** shape given as a tensor), Tile, DepthToSpace (DCR and CRD),
** SpaceToDepth and ReverseSequence. Each is a loop.parallel over the result reading the input
** at computed indices. Expand's shape and Tile's repeats are loaded at run
** time.
*/
#include "transforms/graph_to_loop/indexing.h"

#include <string.h>

typedef struct Repeat {
  GiltValue *in;
  size_t rank;
  GiltValue *in_dims[GRAPH_MAX_RANK];
  int64_t block;
  bool crd;
  GiltValue *lens; /* ReverseSequence: the lengths, along batch_axis */
  size_t batch_axis, time_axis;
} Repeat;

/* ---- Expand ------------------------------------------------------------------ */

static GiltValue *expand_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Repeat *r = user;
  GiltValue *idx[GRAPH_MAX_RANK];
  lower_broadcast_indices(l, r->in, r->rank, ivs, idx);
  return lower_load(l, r->in, idx);
}

static GiltStatus lower_expand(Lower *l)
{
  Repeat r = {.in = lower_operand(l, 0)};
  GiltValue *shape = lower_operand(l, 1), *dims[GRAPH_MAX_RANK];
  r.rank = lower_result_type(l, 0)->shaped.rank;
  size_t in_rank = gilt_value_get_type(r.in)->shaped.rank;
  int64_t n = lower_static_length(shape);
  if (n < 0 || (size_t)n > r.rank)
    return lower_error(l, "the shape needs a static length");
  GiltValue *one = lower_index(l, 1);
  for (size_t d = 0; d < r.rank; d++) {
    GiltValue *s = d + (size_t)n >= r.rank
                       ? lower_load_index(l, shape, (int64_t)(d + n - r.rank))
                       : one;
    GiltValue *in = d + in_rank >= r.rank
                        ? lower_dim(l, r.in, d + in_rank - r.rank)
                        : one;
    GiltValue *s_one = lower_cmp(l, "eq", s, one);
    GiltValue *in_one = lower_cmp(l, "eq", in, one);
    GiltValue *agree = lower_binary(l, LOOP_OP_ORI, s_one, in_one);
    agree = lower_binary(l, LOOP_OP_ORI, agree, lower_cmp(l, "eq", s, in));
    lower_assert(l, agree, "the shape does not broadcast with the input");
    dims[d] = lower_select(l, lower_cmp(l, "eq", s, one), in, s);
  }
  GiltValue *out = lower_generate(l, 0, dims, expand_element, &r);
  return lower_replace(l, &out);
}

/* ---- Tile -------------------------------------------------------------------- */

static GiltValue *tile_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Repeat *r = user;
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t d = 0; d < r->rank; d++)
    idx[d] = ix_rem(l, ivs[d], r->in_dims[d]);
  return lower_load(l, r->in, idx);
}

static GiltStatus lower_tile(Lower *l)
{
  Repeat r = {.in = lower_operand(l, 0)};
  GiltValue *repeats = lower_operand(l, 1), *dims[GRAPH_MAX_RANK];
  r.rank = gilt_value_get_type(r.in)->shaped.rank;
  if (lower_static_length(repeats) != (int64_t)r.rank)
    return lower_error(l, "'repeats' needs one entry per dimension");
  lower_dims(l, r.in, r.in_dims);
  for (size_t d = 0; d < r.rank; d++) {
    GiltValue *times = lower_load_index(l, repeats, (int64_t)d);
    lower_assert(l, lower_cmp(l, "sge", times, lower_index(l, 0)),
                 "'repeats' must not be negative");
    dims[d] = ix_mul_size(l, r.in_dims[d], times);
  }
  GiltValue *out = lower_generate(l, 0, dims, tile_element, &r);
  return lower_replace(l, &out);
}

/* ---- DepthToSpace and SpaceToDepth --------------------------------------------- */

/* Output (n, c, h, w) reads channel ((h % b) * b + w % b) * C' + c in DCR
** mode, c * b * b + (h % b) * b + w % b in CRD mode, at (h / b, w / b). */
static GiltValue *depth_to_space_element(Lower *l, GiltValue *const *ivs,
                                         void *user)
{
  Repeat *r = user;
  GiltValue *b = lower_index(l, r->block);
  GiltValue *bb = lower_index(l, r->block * r->block);
  GiltValue *row = ix_mul(l, ix_rem(l, ivs[2], b), b);
  GiltValue *pos = ix_add(l, row, ix_rem(l, ivs[3], b));
  GiltValue *channels = ix_div(l, r->in_dims[1], bb);
  GiltValue *c = r->crd ? ix_add(l, ix_mul(l, ivs[1], bb), pos)
                        : ix_add(l, ix_mul(l, pos, channels), ivs[1]);
  GiltValue *idx[4] = {ivs[0], c, ix_div(l, ivs[2], b)};
  idx[3] = ix_div(l, ivs[3], b);
  return lower_load(l, r->in, idx);
}

/* Output (n, c', h, w) with c' = ((bh * b) + bw) * C + c reads
** (n, c, h * b + bh, w * b + bw). */
static GiltValue *space_to_depth_element(Lower *l, GiltValue *const *ivs,
                                         void *user)
{
  Repeat *r = user;
  GiltValue *b = lower_index(l, r->block);
  GiltValue *pos = ix_div(l, ivs[1], r->in_dims[1]);
  GiltValue *idx[4] = {ivs[0], ix_rem(l, ivs[1], r->in_dims[1])};
  GiltValue *row = ix_mul(l, ivs[2], b);
  idx[2] = ix_add(l, row, ix_div(l, pos, b));
  GiltValue *column = ix_mul(l, ivs[3], b);
  idx[3] = ix_add(l, column, ix_rem(l, pos, b));
  return lower_load(l, r->in, idx);
}

static GiltStatus rearrange(Lower *l, bool to_space)
{
  Repeat r = {.in = lower_operand(l, 0), .rank = 4};
  r.block = graph_attr_int(l->op, "blocksize", 0);
  r.crd = strcmp(graph_attr_string(l->op, "mode", "DCR"), "CRD") == 0;
  if (gilt_value_get_type(r.in)->shaped.rank != 4 || r.block <= 0)
    return lower_error(l, "needs a 4-d input and a positive blocksize");
  lower_dims(l, r.in, r.in_dims);
  GiltValue *b = lower_index(l, r.block), *bb = lower_index(l, r.block * r.block);
  GiltValue *dims[4] = {r.in_dims[0], NULL, NULL, NULL};
  if (to_space) {
    dims[1] = ix_div(l, r.in_dims[1], bb);
    dims[2] = ix_mul(l, r.in_dims[2], b);
    dims[3] = ix_mul(l, r.in_dims[3], b);
  } else {
    dims[1] = ix_mul(l, r.in_dims[1], bb);
    dims[2] = ix_div(l, r.in_dims[2], b);
    dims[3] = ix_div(l, r.in_dims[3], b);
  }
  GiltValue *out = lower_generate(
      l, 0, dims, to_space ? depth_to_space_element : space_to_depth_element,
      &r);
  return lower_replace(l, &out);
}

static GiltStatus lower_depth_to_space(Lower *l)
{
  return rearrange(l, true);
}

static GiltStatus lower_space_to_depth(Lower *l)
{
  return rearrange(l, false);
}

/* ---- ReverseSequence ------------------------------------------------------------ */

/* Time step t of batch b reads len - 1 - t while t < len = lens[b]. */
static GiltValue *reversed_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Repeat *r = user;
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t d = 0; d < r->rank; d++)
    idx[d] = ivs[d];
  GiltValue *t = ivs[r->time_axis];
  GiltValue *len = lower_load_index_at(l, r->lens, &ivs[r->batch_axis]);
  len = ix_min(l, len, lower_dim(l, r->in, r->time_axis));
  GiltValue *back = ix_sub(l, ix_sub(l, len, lower_index(l, 1)), t);
  idx[r->time_axis] = lower_select(l, lower_cmp(l, "slt", t, len), back, t);
  return lower_load(l, r->in, idx);
}

static GiltStatus lower_reverse_sequence(Lower *l)
{
  Repeat r = {.in = lower_operand(l, 0), .lens = lower_operand(l, 1)};
  r.rank = gilt_value_get_type(r.in)->shaped.rank;
  if (!lower_axis(l, graph_attr_int(l->op, "batch_axis", 1), r.rank,
                  &r.batch_axis) ||
      !lower_axis(l, graph_attr_int(l->op, "time_axis", 0), r.rank,
                  &r.time_axis))
    return GILT_FAILURE;
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, r.in, dims);
  GiltValue *out = lower_generate(l, 0, dims, reversed_element, &r);
  return lower_replace(l, &out);
}

const GraphLoweringRow graph_lower_expand[] = {
    {GRAPH_OP_EXPAND, {lower_expand}},
    {GRAPH_OP_TILE, {lower_tile}},
    {GRAPH_OP_DEPTH_TO_SPACE, {lower_depth_to_space}},
    {GRAPH_OP_SPACE_TO_DEPTH, {lower_space_to_depth}},
    {GRAPH_OP_REVERSE_SEQUENCE, {lower_reverse_sequence}},
    {0, {NULL}},
};
