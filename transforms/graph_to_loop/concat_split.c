/*
** concat_split.c - lowering of Concat and Split: copies between a whole
** tensor and consecutive slabs of another along one axis. The offsets and
** sizes along the axis are run-time index values (dims of the inputs, or
** Split's `split` operand), so dynamic sizes work.
**
** A Concat of static shapes whose slabs are contiguous (every dimension
** before the axis 1: NCHW channels at batch 1) allocates its result as
** bytes, seen through loop.view, and copies an operand that a lowering
** before it allocated for this Concat alone with loop.copy into a view
** of its slab: loop-elide-copies then makes that operand's buffer the
** slab itself, so its producer writes the result directly.
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

/* Whether the Concat's slabs along `axis` are contiguous in its result,
** every shape static: its bytes then, else 0. */
static size_t contiguous_slabs(Lower *l, size_t axis)
{
  GiltType *t = lower_result_type(l, 0);
  size_t bytes;
  for (size_t i = 0; i < axis; i++)
    if (t->shaped.shape[i] != 1)
      return 0;
  for (size_t k = 0; k < gilt_op_get_num_operands(l->op); k++)
    if (!gilt_shaped_type_has_static_shape(
            gilt_value_get_type(gilt_op_get_operand(l->op, k))))
      return 0;
  return gilt_shaped_type_get_byte_size(t, &bytes) ? bytes : 0;
}

/* Whether operand k is a buffer a lowering allocated for this Concat
** alone (a static loop.alloc, the graph value used once). */
static bool owned_operand(Lower *l, size_t k)
{
  GiltOp *def = gilt_value_get_defining_op(lower_operand(l, k));
  return gilt_value_get_num_uses(gilt_op_get_operand(l->op, k)) == 1 && def &&
         loop_op_is(def, LOOP_OP_ALLOC) && gilt_op_get_num_operands(def) == 0;
}

/* A loop.view of `bytes` at `offset` with the static shape of `type`. */
static GiltValue *view_of(Lower *l, GiltValue *bytes, GiltType *type,
                          int64_t offset)
{
  GiltType *view = gilt_memref_type_get(l->ctx, type->shaped.rank,
                                        type->shaped.shape, type->shaped.elem,
                                        NULL, NULL);
  return lower_emit_attr(l, LOOP_OP_VIEW, view, 1, &bytes, "offset",
                         gilt_integer_attr_get(lower_i64_type(l), offset));
}

static GiltStatus lower_concat(Lower *l)
{
  size_t n = gilt_op_get_num_operands(l->op), axis;
  GiltType *t = lower_result_type(l, 0);
  if (!lower_axis(l, graph_attr_int(l->op, "axis", 0), t->shaped.rank, &axis))
    return GILT_FAILURE;
  GiltValue *dims[GRAPH_MAX_RANK], *in_dims[GRAPH_MAX_RANK];
  size_t bytes = contiguous_slabs(l, axis);
  GiltValue *dst, *slabs = NULL;
  if (bytes) {
    int64_t size = (int64_t)bytes;
    GiltType *i8 = gilt_integer_type_get(l->ctx, 8, GILT_SIGNLESS);
    slabs = lower_alloc(l, gilt_memref_type_get(l->ctx, 1, &size, i8, NULL,
                                                NULL),
                        NULL);
    dst = view_of(l, slabs, t, 0);
  } else {
    lower_dims(l, lower_operand(l, 0), dims);
    dims[axis] = lower_index(l, 0);
    for (size_t k = 0; k < n; k++)
      dims[axis] = ix_add_size(l, dims[axis],
                               lower_dim(l, lower_operand(l, k), axis));
    dst = lower_alloc(l, t, dims);
  }
  Slab s = {.dst = dst, .offset = lower_index(l, 0), .axis = axis};
  int64_t offset = 0;
  for (size_t k = 0; k < n; k++) {
    s.src = lower_operand(l, k);
    GiltType *src_type = gilt_value_get_type(s.src);
    lower_dims(l, s.src, in_dims);
    if (bytes) {
      /* Each operand through its own slab, so that what writes one slab
      ** is seen to leave the others alone. */
      GiltValue *slab = view_of(l, slabs, src_type, offset);
      GiltValue *ops[2] = {s.src, slab};
      Slab whole = {.src = s.src, .dst = slab, .offset = lower_index(l, 0),
                    .axis = axis};
      if (owned_operand(l, k))
        lower_emit(l, LOOP_OP_COPY, NULL, 2, ops);
      else
        lower_parallel(l, t->shaped.rank, in_dims, store_shifted, &whole);
    } else {
      lower_parallel(l, t->shaped.rank, in_dims, store_shifted, &s);
    }
    s.offset = ix_add(l, s.offset, in_dims[axis]);
    size_t slab_bytes = 0;
    if (bytes)
      gilt_shaped_type_get_byte_size(src_type, &slab_bytes);
    offset += (int64_t)slab_bytes;
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
