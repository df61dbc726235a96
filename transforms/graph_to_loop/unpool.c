/*
** unpool.c - lowering of MaxUnpool, the inverse of MaxPool: a zero result
** into which each input element is written at its index, a flat position
** of the whole unpooled tensor (batch and channel included, as MaxPool's
** Indices count), whose spatial sizes are
** (in - 1) * stride + kernel - pad_begin - pad_end. The output_shape
** operand, read at run time, only pads that tensor with zeros at the end
** of each dimension, or crops it, as ONNX Runtime and the backend tests
** have it: an index keeps its unpooled coordinates.
**
** The scatter is a sequential nest in the input's row-major order, so
** that of two elements with one index the later wins, as in ONNX Runtime;
** an index outside the result stops the run. The flat index is split into
** the result's indices by division, so the result stays a plain buffer of
** its own rank.
*/
#include "transforms/graph_to_loop/indexing.h"

typedef struct Unpool {
  GiltValue *x, *indices, *out;
  size_t rank;
  GiltValue *unpooled[GRAPH_MAX_RANK], *total;
  GiltValue *dims[GRAPH_MAX_RANK];  /* the result's */
  bool reshaped;                    /* by output_shape: test each store */
  GiltValue *at[GRAPH_MAX_RANK];    /* where an element goes */
  GiltValue *const *iv;             /* where it comes from */
} Unpool;

static void store_body(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  Unpool *u = user;
  lower_store(l, lower_load(l, u->x, u->iv), u->out, u->at);
}

static void scatter_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Unpool *u = user;
  GiltValue *flat = lower_load_index_at(l, u->indices, ivs);
  lower_assert(l, ix_in_range(l, flat, lower_index(l, 0), u->total),
               "an index lies outside the result");
  GiltValue *inside = lower_int_constant(l, lower_i1_type(l), 1);
  for (size_t d = u->rank; d-- > 0;) {
    u->at[d] = d ? ix_rem(l, flat, u->unpooled[d]) : flat;
    flat = d ? ix_div(l, flat, u->unpooled[d]) : flat;
    inside = lower_binary(l, LOOP_OP_ANDI, inside,
                          lower_cmp(l, "slt", u->at[d], u->dims[d]));
  }
  u->iv = ivs;
  if (u->reshaped)
    lower_if(l, inside, store_body, NULL, u);
  else
    store_body(l, NULL, u);
}

/* The unpooled sizes from kernel_shape, strides and pads. */
static GiltStatus unpooled_dims(Lower *l, Unpool *u)
{
  size_t n = u->rank - 2, nk, ns = n, np = 2 * n;
  int64_t k[GRAPH_MAX_RANK], s[GRAPH_MAX_RANK], p[2 * GRAPH_MAX_RANK];
  for (size_t i = 0; i < 2 * n; i++)
    s[i / 2] = 1, p[i] = 0;
  if (!graph_attr_ints(l->op, "kernel_shape", k, GRAPH_MAX_RANK, &nk) ||
      nk != n ||
      (graph_attr_ints(l->op, "strides", s, GRAPH_MAX_RANK, &ns) &&
       ns != n) ||
      (graph_attr_ints(l->op, "pads", p, 2 * GRAPH_MAX_RANK, &np) &&
       np != 2 * n))
    return lower_error(l, "kernel_shape, strides and pads must have one "
                       "entry per spatial axis (two for pads)");
  for (size_t i = 0; i < n; i++) {
    GiltValue *in = lower_dim(l, u->x, 2 + i);
    GiltValue *last = ix_sub(l, in, lower_index(l, 1));
    GiltValue *span = ix_mul(l, last, lower_index(l, s[i]));
    u->unpooled[2 + i] =
        ix_add(l, span, lower_index(l, k[i] - p[i] - p[n + i]));
  }
  u->unpooled[0] = lower_dim(l, u->x, 0);
  u->unpooled[1] = lower_dim(l, u->x, 1);
  return GILT_SUCCESS;
}

static GiltStatus lower_max_unpool(Lower *l)
{
  GiltValue *shape = lower_operand(l, 2);
  Unpool u = {.x = lower_operand(l, 0), .indices = lower_operand(l, 1),
              .reshaped = shape != NULL};
  u.rank = gilt_value_get_type(u.x)->shaped.rank;
  if (u.rank < 3)
    return lower_error(l, "the input needs a spatial dimension");
  if (shape && lower_static_length(shape) != (int64_t)u.rank)
    return lower_error(l, "output_shape must list the %zu dimensions of "
                       "the result", u.rank);
  if (unpooled_dims(l, &u))
    return GILT_FAILURE;
  for (size_t d = 0; d < u.rank; d++)
    u.dims[d] = shape ? lower_load_index(l, shape, (int64_t)d)
                      : u.unpooled[d];
  lower_result_dims(l, 0, u.dims, u.dims);
  u.out = lower_alloc_result(l, 0, u.dims);
  GiltType *elem = lower_result_elem(l, 0);
  lower_fill(l, u.out, lower_constant(l, elem, 0));
  u.total = ix_product(l, u.unpooled, 0, u.rank);
  GiltValue *in[GRAPH_MAX_RANK];
  lower_dims(l, u.x, in);
  lower_nest(l, u.rank, in, scatter_body, &u);
  return lower_replace(l, &u.out);
}

const GraphLoweringRow graph_lower_unpool[] = {
    {GRAPH_OP_MAX_UNPOOL, {lower_max_unpool}},
    {0, {NULL}},
};
