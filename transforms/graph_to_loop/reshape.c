/*
** reshape.c - lowering of the ops that only change a tensor's shape:
** Reshape (with 0 copying an input dim unless allowzero, and -1 inferred),
** Flatten, Squeeze and Unsqueeze. Each becomes a loop.reshape view of its
** input, no copy (a non-contiguous input is copied first): buffers are
** never written after the op that made them, so sharing the elements is
** safe.
**
** The result's dynamic sizes are computed at run time: from the input's
** dims, and for Reshape from the values of its shape operand, so a shape
** computed by the model works; a run-time check then asserts the element
** counts agree.
*/
#include "transforms/graph_to_loop/indexing.h"

/* A loop.reshape of `in` to result 0, computed[d] giving each dynamic
** dimension d. */
static GiltStatus view_as_result(Lower *l, GiltValue *in,
                                 GiltValue *const *computed)
{
  GiltType *t = lower_result_type(l, 0);
  GiltValue *ops[GRAPH_MAX_RANK + 1];
  size_t n = 0;
  ops[n++] = lower_contiguous(l, in);
  for (size_t d = 0; d < t->shaped.rank; d++)
    if (t->shaped.shape[d] == GILT_DYNAMIC)
      ops[n++] = computed[d];
  GiltValue *view = lower_emit(l, LOOP_OP_RESHAPE, t, n, ops);
  return lower_replace(l, &view);
}

static bool has_dynamic(GiltType *t)
{
  for (size_t d = 0; d < t->shaped.rank; d++)
    if (t->shaped.shape[d] == GILT_DYNAMIC)
      return true;
  return false;
}

/* Reshape's sizes from the shape values: 0 copies the input's dim (unless
** allowzero), -1 takes what the others leave of the element count. */
static void reshape_sizes(Lower *l, GiltValue *in, size_t rank,
                          GiltValue **dims)
{
  GiltValue *shape = lower_operand(l, 1), *in_dims[GRAPH_MAX_RANK];
  size_t in_rank = gilt_value_get_type(in)->shaped.rank;
  bool allowzero = graph_attr_int(l->op, "allowzero", 0) != 0;
  lower_dims(l, in, in_dims);
  GiltValue *total = ix_product_size(l, in_dims, 0, in_rank);
  GiltValue *zero = lower_index(l, 0), *one = lower_index(l, 1);
  GiltValue *minus_one = lower_index(l, -1), *known = one;
  GiltValue *infer[GRAPH_MAX_RANK];
  for (size_t k = 0; k < rank; k++) {
    GiltValue *v = lower_load_index(l, shape, (int64_t)k);
    if (!allowzero && k < in_rank)
      v = lower_select(l, lower_cmp(l, "eq", v, zero), in_dims[k], v);
    infer[k] = lower_cmp(l, "eq", v, minus_one);
    lower_assert(l, lower_cmp(l, "sge", v, minus_one),
                 "the new shape has a negative size other than -1");
    known = ix_mul_size(l, known, lower_select(l, infer[k], one, v));
    dims[k] = v;
  }
  GiltValue *rest = ix_div(l, total, ix_max(l, known, one));
  for (size_t k = 0; k < rank; k++)
    dims[k] = lower_select(l, infer[k], rest, dims[k]);
  lower_assert(l, lower_cmp(l, "eq", ix_product_size(l, dims, 0, rank), total),
               "the new shape does not hold the input's elements");
}

static GiltStatus lower_reshape(Lower *l)
{
  GiltValue *in = lower_operand(l, 0), *dims[GRAPH_MAX_RANK];
  GiltType *t = lower_result_type(l, 0);
  if (has_dynamic(t)) {
    if (lower_static_length(lower_operand(l, 1)) != (int64_t)t->shaped.rank)
      return lower_error(l, "the shape operand's length is not the result's "
                            "rank");
    reshape_sizes(l, in, t->shaped.rank, dims);
  }
  return view_as_result(l, in, dims);
}

static GiltStatus lower_flatten(Lower *l)
{
  GiltValue *in = lower_operand(l, 0), *in_dims[GRAPH_MAX_RANK];
  size_t rank = gilt_value_get_type(in)->shaped.rank;
  int64_t axis = graph_attr_int(l->op, "axis", 1);
  if (axis < 0)
    axis += (int64_t)rank;
  if (axis < 0 || axis > (int64_t)rank)
    return lower_error(l, "axis is out of range");
  lower_dims(l, in, in_dims);
  GiltValue *dims[2];
  dims[0] = ix_product(l, in_dims, 0, (size_t)axis);
  dims[1] = ix_product(l, in_dims, (size_t)axis, rank);
  return view_as_result(l, in, dims);
}

/* Marks the axes operand's entries in axis[0..rank); false after an error
** when they are not constant or out of range. */
static bool mark_axes(Lower *l, size_t rank, bool *axis)
{
  int64_t axes[GRAPH_MAX_RANK];
  size_t n;
  if (!lower_constant_ints(l, 1, axes, GRAPH_MAX_RANK, &n)) {
    lower_error(l, "the axes are not constant");
    return false;
  }
  for (size_t i = 0; i < rank; i++)
    axis[i] = false;
  for (size_t i = 0; i < n; i++) {
    size_t a;
    if (!lower_axis(l, axes[i], rank, &a))
      return false;
    axis[a] = true;
  }
  return true;
}

/* Axes known only at run time leave nothing to compute when the result's
** shape is static: the view needs no sizes, and the interpreter checks the
** element counts agree. */
static bool static_result(Lower *l)
{
  size_t n;
  int64_t axes[GRAPH_MAX_RANK];
  return !lower_constant_ints(l, 1, axes, GRAPH_MAX_RANK, &n) &&
         !has_dynamic(lower_result_type(l, 0));
}

static GiltStatus lower_squeeze(Lower *l)
{
  GiltValue *in = lower_operand(l, 0), *dims[GRAPH_MAX_RANK];
  GiltType *t = gilt_value_get_type(in);
  bool squeezed[GRAPH_MAX_RANK];
  if (lower_operand(l, 1) && static_result(l))
    return view_as_result(l, in, NULL);
  if (lower_operand(l, 1)) {
    if (!mark_axes(l, t->shaped.rank, squeezed))
      return GILT_FAILURE;
  } else {
    for (size_t i = 0; i < t->shaped.rank; i++)
      squeezed[i] = t->shaped.shape[i] == 1;
  }
  size_t n = 0;
  for (size_t i = 0; i < t->shaped.rank; i++)
    if (!squeezed[i])
      dims[n++] = lower_dim(l, in, i);
  if (n != lower_result_type(l, 0)->shaped.rank)
    return lower_error(l, "a squeezed dimension is not known to be 1");
  return view_as_result(l, in, dims);
}

static GiltStatus lower_unsqueeze(Lower *l)
{
  GiltValue *in = lower_operand(l, 0), *dims[GRAPH_MAX_RANK];
  size_t rank = lower_result_type(l, 0)->shaped.rank, next = 0;
  bool inserted[GRAPH_MAX_RANK];
  if (static_result(l))
    return view_as_result(l, in, NULL);
  if (!mark_axes(l, rank, inserted))
    return GILT_FAILURE;
  for (size_t i = 0; i < rank; i++)
    dims[i] = inserted[i] ? lower_index(l, 1) : lower_dim(l, in, next++);
  return view_as_result(l, in, dims);
}

const GraphLoweringRow graph_lower_reshape[] = {
    {GRAPH_OP_RESHAPE, {lower_reshape}},
    {GRAPH_OP_FLATTEN, {lower_flatten}},
    {GRAPH_OP_SQUEEZE, {lower_squeeze}},
    {GRAPH_OP_UNSQUEEZE, {lower_unsqueeze}},
    {0, {NULL}},
};
