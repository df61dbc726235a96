/*
** concat_split.c - lowering of Concat and Split: copies between a whole
** tensor and consecutive slabs of another along one axis. The offsets and
** sizes along the axis are run-time index values (dims of the inputs, or
** Split's `split` operand), so dynamic sizes work.
*/
#include "transforms/graph_to_loop/indexing.h"

typedef struct Slab {
  GiltValue *src, *dst, *offset;
  size_t axis;
} Slab;

/* Concat: one input element stored into the result, shifted along axis. */
static void store_shifted(Lower *l, GiltValue *const *ivs, void *user)
{
  Slab *s = user;
  size_t rank = gilt_value_get_type(s->dst)->shaped.rank;
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t i = 0; i < rank; i++)
    idx[i] = i == s->axis ? ix_add(l, ivs[i], s->offset) : ivs[i];
  lower_store(l, lower_load(l, s->src, ivs), s->dst, idx);
}

static GiltStatus lower_concat(Lower *l)
{
  size_t n = gilt_op_get_num_operands(l->op), axis;
  GiltType *t = lower_result_type(l, 0);
  if (!lower_axis(l, graph_attr_int(l->op, "axis", 0), t->shaped.rank, &axis))
    return GILT_FAILURE;
  GiltValue *dims[GRAPH_MAX_RANK], *in_dims[GRAPH_MAX_RANK];
  lower_dims(l, lower_operand(l, 0), dims);
  dims[axis] = lower_index(l, 0);
  for (size_t k = 0; k < n; k++)
    dims[axis] = ix_add_size(l, dims[axis],
                             lower_dim(l, lower_operand(l, k), axis));
  GiltValue *dst = lower_alloc(l, t, dims);
  Slab s = {.dst = dst, .offset = lower_index(l, 0), .axis = axis};
  for (size_t k = 0; k < n; k++) {
    s.src = lower_operand(l, k);
    lower_dims(l, s.src, in_dims);
    lower_parallel(l, t->shaped.rank, in_dims, store_shifted, &s);
    s.offset = ix_add(l, s.offset, in_dims[axis]);
  }
  return lower_replace(l, &s.dst);
}

/* Split: one result element read from the input, shifted along axis. */
static GiltValue *load_shifted(Lower *l, GiltValue *const *ivs, void *user)
{
  Slab *s = user;
  size_t rank = gilt_value_get_type(s->src)->shaped.rank;
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t i = 0; i < rank; i++)
    idx[i] = i == s->axis ? ix_add(l, ivs[i], s->offset) : ivs[i];
  return lower_load(l, s->src, idx);
}

/* The size of part k: the `split` operand's entry, or else equal parts of
** ceil(dim / n) with the last one taking what is left (num_outputs). */
static GiltValue *part_size(Lower *l, size_t k, size_t n, GiltValue *dim)
{
  GiltValue *split = lower_operand(l, 1);
  if (split)
    return lower_load_index(l, split, (int64_t)k);
  GiltValue *chunk = lower_binary(l, LOOP_OP_CEILDIVSI, dim,
                                  lower_index(l, (int64_t)n));
  GiltValue *left = ix_sub(l, dim, ix_mul(l, chunk, lower_index(l, (int64_t)k)));
  return ix_min(l, chunk, ix_max(l, left, lower_index(l, 0)));
}

static GiltStatus lower_split(Lower *l)
{
  size_t n = gilt_op_get_num_results(l->op), axis;
  Slab s = {.src = lower_operand(l, 0), .offset = lower_index(l, 0)};
  size_t rank = gilt_value_get_type(s.src)->shaped.rank;
  if (!lower_axis(l, graph_attr_int(l->op, "axis", 0), rank, &axis))
    return GILT_FAILURE;
  s.axis = axis;
  if (lower_operand(l, 1) && lower_static_length(lower_operand(l, 1)) != (int64_t)n)
    return lower_error(l, "'split' does not give one size per output");
  GiltValue *dims[GRAPH_MAX_RANK], *results[n + 1], *parts[n + 1];
  lower_dims(l, s.src, dims);
  GiltValue *whole = dims[axis], *sum = lower_index(l, 0);
  for (size_t k = 0; k < n; k++)
    parts[k] = part_size(l, k, n, whole);
  /* Checked before any part is read: equal parts always add up. */
  if (lower_operand(l, 1)) {
    for (size_t k = 0; k < n; k++) {
      lower_assert(l, lower_cmp(l, "sge", parts[k], lower_index(l, 0)),
                   "a part's size is negative");
      sum = ix_add_size(l, sum, parts[k]);
    }
    lower_assert(l, lower_cmp(l, "eq", sum, whole),
                 "the parts do not add up to the input");
  }
  for (size_t k = 0; k < n; k++) {
    dims[axis] = parts[k];
    results[k] = lower_generate(l, k, dims, load_shifted, &s);
    s.offset = ix_add(l, s.offset, dims[axis]);
  }
  return lower_replace(l, results);
}

const GraphLoweringRow graph_lower_concat_split[] = {
    {GRAPH_OP_CONCAT, {lower_concat}},
    {GRAPH_OP_SPLIT, {lower_split}},
    {0, {NULL}},
};
