/*
** select.c - lowering of the ops whose result size is how many elements
** pass a test, known only at run time: NonZero and Compress. Each runs
** twice over its input: a sequential count that sizes the result's
** loop.alloc, then a sequential pass writing the selected elements at a
** running position.
*/
#include "transforms/graph_to_loop/indexing.h"

typedef struct Select {
  GiltValue *in, *out, *cond, *counter; /* counter: a rank-0 index buffer */
  size_t rank, axis;
  GiltValue *const *ivs;
  GiltValue *slot;
} Select;

static GiltValue *is_nonzero(Lower *l, GiltValue *v)
{
  GiltType *t = gilt_value_get_type(v);
  return lower_cmp(l, lower_is_float(t) ? "une" : "ne", v,
                   lower_constant(l, t, 0));
}

static GiltValue *new_counter(Lower *l)
{
  GiltType *t = gilt_memref_type_get(l->ctx, 0, NULL, lower_index_type(l),
                                     NULL, NULL);
  GiltValue *c = lower_alloc(l, t, NULL);
  lower_store(l, lower_index(l, 0), c, NULL);
  return c;
}

/* Adds 1 to the counter when cond holds. */
static void count_if(Lower *l, GiltValue *counter, GiltValue *cond)
{
  GiltValue *n = lower_load(l, counter, NULL);
  lower_store(l, ix_add(l, n, ix_one_if(l, cond)), counter, NULL);
}

/* ---- NonZero ------------------------------------------------------------------ */

static void count_nonzero(Lower *l, GiltValue *const *ivs, void *user)
{
  Select *s = user;
  count_if(l, s->counter, is_nonzero(l, lower_load(l, s->in, ivs)));
}

static void write_coordinates(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Select *s = user;
  GiltValue *at = lower_load(l, s->counter, NULL);
  GiltType *i64 = lower_i64_type(l);
  for (size_t d = 0; d < s->rank; d++) {
    GiltValue *idx[2] = {lower_index(l, (int64_t)d), at};
    lower_store(l, lower_emit(l, LOOP_OP_INDEX_CAST, i64, 1, &s->ivs[d]),
                s->out, idx);
  }
}

static void place_nonzero(Lower *l, GiltValue *const *ivs, void *user)
{
  Select *s = user;
  GiltValue *nz = is_nonzero(l, lower_load(l, s->in, ivs));
  s->ivs = ivs;
  lower_if(l, nz, write_coordinates, NULL, s);
  count_if(l, s->counter, nz);
}

static GiltStatus lower_non_zero(Lower *l)
{
  Select s = {.in = lower_operand(l, 0)};
  s.rank = gilt_value_get_type(s.in)->shaped.rank;
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, s.in, dims);
  s.counter = new_counter(l);
  lower_nest(l, s.rank, dims, count_nonzero, &s);
  GiltValue *sizes[2] = {lower_index(l, (int64_t)s.rank)};
  sizes[1] = lower_load(l, s.counter, NULL);
  s.out = lower_alloc_result(l, 0, sizes);
  lower_store(l, lower_index(l, 0), s.counter, NULL);
  lower_nest(l, s.rank, dims, place_nonzero, &s);
  lower_emit(l, LOOP_OP_DEALLOC, NULL, 1, &s.counter);
  return lower_replace(l, &s.out);
}

/* ---- Compress ------------------------------------------------------------------ */

static GiltValue *condition_at(Lower *l, Select *s, GiltValue *j)
{
  return is_nonzero(l, lower_load(l, s->cond, &j));
}

static void count_true(Lower *l, GiltValue *j, GiltValue *const *iter,
                       GiltValue **next, void *user)
{
  Select *s = user;
  GiltValue *step = ix_one_if(l, condition_at(l, s, j));
  next[0] = ix_add(l, iter[0], step);
}

/* Copies slice s->ivs[0] (along the axis) of the input to slice s->slot. */
static void copy_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Select *s = user;
  GiltValue *from[GRAPH_MAX_RANK], *to[GRAPH_MAX_RANK];
  for (size_t d = 0; d < s->rank; d++) {
    from[d] = d == s->axis ? s->ivs[0] : ivs[d];
    to[d] = d == s->axis ? s->slot : ivs[d];
  }
  lower_store(l, lower_load(l, s->in, from), s->out, to);
}

static void copy_slice(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Select *s = user;
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, s->in, dims);
  dims[s->axis] = lower_index(l, 1);
  lower_parallel(l, s->rank, dims, copy_element, s);
}

static void place_slice(Lower *l, GiltValue *j, GiltValue *const *iter,
                        GiltValue **next, void *user)
{
  Select *s = user;
  GiltValue *keep = condition_at(l, s, j);
  s->ivs = &j;
  s->slot = iter[0];
  lower_if(l, keep, copy_slice, NULL, s);
  next[0] = ix_add(l, iter[0], ix_one_if(l, keep));
}

/* Without an axis the input is seen flat, as a loop.reshape view. */
static GiltValue *flat_view(Lower *l, GiltValue *in)
{
  GiltType *t = gilt_value_get_type(in);
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, in, dims);
  GiltValue *ops[2] = {lower_contiguous(l, in)};
  ops[1] = ix_product(l, dims, 0, t->shaped.rank);
  GiltType *flat = gilt_memref_type_get(
      l->ctx, 1, (int64_t[]){GILT_DYNAMIC}, t->shaped.elem, NULL, NULL);
  return lower_emit(l, LOOP_OP_RESHAPE, flat, 2, ops);
}

static GiltStatus lower_compress(Lower *l)
{
  Select s = {.in = lower_operand(l, 0), .cond = lower_operand(l, 1)};
  if (gilt_op_get_attr(l->op, "axis")) {
    s.rank = gilt_value_get_type(s.in)->shaped.rank;
    if (!lower_axis(l, graph_attr_int(l->op, "axis", 0), s.rank, &s.axis))
      return GILT_FAILURE;
  } else {
    s.in = flat_view(l, s.in);
    s.rank = 1;
  }
  GiltValue *zero = lower_index(l, 0), *one = lower_index(l, 1);
  GiltValue *conditions = lower_dim(l, s.cond, 0);
  GiltValue *n = ix_min(l, conditions, lower_dim(l, s.in, s.axis));
  GiltValue *count, *dims[GRAPH_MAX_RANK];
  lower_for(l, zero, n, one, 1, &zero, &count, count_true, &s);
  lower_dims(l, s.in, dims);
  dims[s.axis] = count;
  s.out = lower_alloc_result(l, 0, dims);
  lower_for(l, zero, n, one, 1, &zero, &count, place_slice, &s);
  return lower_replace(l, &s.out);
}

const GraphLoweringRow graph_lower_select[] = {
    {GRAPH_OP_NON_ZERO, {lower_non_zero}},
    {GRAPH_OP_COMPRESS, {lower_compress}},
    {0, {NULL}},
};
