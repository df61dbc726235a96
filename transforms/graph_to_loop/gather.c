/*
** gather.c - lowering of the indexed reads and writes: Gather,
** GatherElements, GatherND (with batch_dims), and ScatterElements (and its
** old name Scatter) and ScatterND with their reductions (none, add, mul,
** max, min).
**
** Indices may be negative (counted from the end) and are checked at run
** time: an index out of range stops the run with a loop.assert instead of
** reading or writing outside a buffer. A gather is a loop.parallel over
** its result. A scatter copies the data, then writes the updates in a
** sequential nest in index order, so duplicate indices reduce (or, without
** reduction, the last one wins) as in ONNX's reference.
*/
#include "transforms/graph_to_loop/indexing.h"

#include <string.h>

typedef struct Indexed {
  GiltValue *data, *indices, *updates, *out;
  size_t axis, rank, batch;
  const char *reduction;
} Indexed;

/* An index loaded from `indices` at idx, made non-negative against dim
** and checked to lie inside it. */
static GiltValue *checked_index(Lower *l, GiltValue *indices,
                                GiltValue *const *idx, GiltValue *dim)
{
  GiltValue *i = ix_wrap_negative(l, lower_load_index_at(l, indices, idx), dim);
  lower_assert(l, ix_in_range(l, i, lower_index(l, 0), dim),
               "an index is out of range");
  return i;
}

static size_t rank_of(GiltValue *v)
{
  return gilt_value_get_type(v)->shaped.rank;
}

/* ---- gathers -------------------------------------------------------------------- */

static GiltValue *gather_element(Lower *l, GiltValue *const *ivs, void *user)
{
  Indexed *g = user;
  size_t q = rank_of(g->indices);
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t d = 0; d < g->axis; d++)
    idx[d] = ivs[d];
  idx[g->axis] = checked_index(l, g->indices, ivs + g->axis,
                               lower_dim(l, g->data, g->axis));
  for (size_t d = g->axis + 1; d < g->rank; d++)
    idx[d] = ivs[d + q - 1];
  return lower_load(l, g->data, idx);
}

static GiltStatus lower_gather(Lower *l)
{
  Indexed g = {.data = lower_operand(l, 0), .indices = lower_operand(l, 1)};
  g.rank = rank_of(g.data);
  if (!lower_axis(l, graph_attr_int(l->op, "axis", 0), g.rank, &g.axis))
    return GILT_FAILURE;
  size_t q = rank_of(g.indices), n = 0;
  GiltValue *dims[GRAPH_MAX_RANK];
  for (size_t d = 0; d < g.axis; d++)
    dims[n++] = lower_dim(l, g.data, d);
  for (size_t d = 0; d < q; d++)
    dims[n++] = lower_dim(l, g.indices, d);
  for (size_t d = g.axis + 1; d < g.rank; d++)
    dims[n++] = lower_dim(l, g.data, d);
  GiltValue *out = lower_generate(l, 0, dims, gather_element, &g);
  return lower_replace(l, &out);
}

static GiltValue *gather_elements_element(Lower *l, GiltValue *const *ivs,
                                          void *user)
{
  Indexed *g = user;
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t d = 0; d < g->rank; d++)
    idx[d] = ivs[d];
  idx[g->axis] = checked_index(l, g->indices, ivs,
                               lower_dim(l, g->data, g->axis));
  return lower_load(l, g->data, idx);
}

static GiltStatus lower_gather_elements(Lower *l)
{
  Indexed g = {.data = lower_operand(l, 0), .indices = lower_operand(l, 1)};
  g.rank = rank_of(g.data);
  if (!lower_axis(l, graph_attr_int(l->op, "axis", 0), g.rank, &g.axis))
    return GILT_FAILURE;
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, g.indices, dims);
  GiltValue *out = lower_generate(l, 0, dims, gather_elements_element, &g);
  return lower_replace(l, &out);
}

/* The data indices an index tuple of GatherND/ScatterND names: `lead`
** leading ivs locate the tuple in `indices` (the batch ones also index the
** data), its k entries index the next data dims, and the ivs after the
** lead index the rest. */
static void nd_indices(Lower *l, Indexed *g, GiltValue *const *ivs,
                       size_t lead, GiltValue **idx)
{
  size_t q = rank_of(g->indices);
  int64_t k = gilt_value_get_type(g->indices)->shaped.shape[q - 1];
  GiltValue *at[GRAPH_MAX_RANK];
  for (size_t d = 0; d < q - 1; d++)
    at[d] = ivs[d];
  for (size_t d = 0; d < g->batch; d++)
    idx[d] = ivs[d];
  for (int64_t j = 0; j < k; j++) {
    at[q - 1] = lower_index(l, j);
    size_t d = g->batch + (size_t)j;
    idx[d] = checked_index(l, g->indices, at, lower_dim(l, g->data, d));
  }
  for (size_t d = g->batch + (size_t)k; d < g->rank; d++)
    idx[d] = ivs[lead + d - g->batch - (size_t)k];
}

static GiltValue *gather_nd_element(Lower *l, GiltValue *const *ivs,
                                    void *user)
{
  Indexed *g = user;
  GiltValue *idx[GRAPH_MAX_RANK];
  nd_indices(l, g, ivs, rank_of(g->indices) - 1, idx);
  return lower_load(l, g->data, idx);
}

/* The static length of the index tuples (indices' last dim), or -1. */
static int64_t tuple_length(Indexed *g)
{
  GiltType *t = gilt_value_get_type(g->indices);
  if (t->shaped.rank == 0)
    return -1;
  int64_t k = t->shaped.shape[t->shaped.rank - 1];
  return k != GILT_DYNAMIC && g->batch + (size_t)k <= g->rank ? k : -1;
}

static GiltStatus lower_gather_nd(Lower *l)
{
  Indexed g = {.data = lower_operand(l, 0), .indices = lower_operand(l, 1)};
  g.rank = rank_of(g.data);
  g.batch = (size_t)graph_attr_int(l->op, "batch_dims", 0);
  int64_t k = tuple_length(&g);
  if (k < 0)
    return lower_error(l, "the index tuples need a static length");
  size_t q = rank_of(g.indices), n = 0;
  GiltValue *dims[GRAPH_MAX_RANK];
  for (size_t d = 0; d + 1 < q; d++)
    dims[n++] = lower_dim(l, g.indices, d);
  for (size_t d = g.batch + (size_t)k; d < g.rank; d++)
    dims[n++] = lower_dim(l, g.data, d);
  GiltValue *out = lower_generate(l, 0, dims, gather_nd_element, &g);
  return lower_replace(l, &out);
}

/* ---- scatters -------------------------------------------------------------------- */

/* The value a reduction leaves from the old element and an update. */
static GiltValue *combine(Lower *l, const char *reduction, GiltValue *old,
                          GiltValue *update)
{
  GiltType *t = gilt_value_get_type(old);
  bool f = lower_is_float(t), u = lower_is_unsigned(t);
  if (strcmp(reduction, "add") == 0)
    return lower_binary(l, f ? LOOP_OP_ADDF : LOOP_OP_ADDI, old, update);
  if (strcmp(reduction, "mul") == 0)
    return lower_binary(l, f ? LOOP_OP_MULF : LOOP_OP_MULI, old, update);
  if (strcmp(reduction, "max") == 0)
    return lower_binary(l, f ? LOOP_OP_MAXIMUMF
                             : u ? LOOP_OP_MAXUI : LOOP_OP_MAXSI,
                        old, update);
  if (strcmp(reduction, "min") == 0)
    return lower_binary(l, f ? LOOP_OP_MINIMUMF
                             : u ? LOOP_OP_MINUI : LOOP_OP_MINSI,
                        old, update);
  return update;
}

static bool known_reduction(const char *r)
{
  static const char *const names[] = {"none", "add", "mul", "max", "min"};
  for (size_t i = 0; i < 5; i++)
    if (strcmp(r, names[i]) == 0)
      return true;
  return false;
}

static void scatter_at(Lower *l, Indexed *s, GiltValue *const *ivs,
                       GiltValue *const *idx)
{
  GiltValue *update = lower_load(l, s->updates, ivs);
  if (strcmp(s->reduction, "none") != 0)
    update = combine(l, s->reduction, lower_load(l, s->out, idx), update);
  lower_store(l, update, s->out, idx);
}

static void scatter_elements_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Indexed *s = user;
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t d = 0; d < s->rank; d++)
    idx[d] = ivs[d];
  idx[s->axis] = checked_index(l, s->indices, ivs,
                               lower_dim(l, s->data, s->axis));
  scatter_at(l, s, ivs, idx);
}

static void scatter_nd_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Indexed *s = user;
  GiltValue *idx[GRAPH_MAX_RANK];
  nd_indices(l, s, ivs, rank_of(s->indices) - 1, idx);
  scatter_at(l, s, ivs, idx);
}

/* Copies the data into the result, then runs body over the updates. */
static GiltStatus scatter(Lower *l, Indexed *s, LowerBodyFn body)
{
  if (!known_reduction(s->reduction))
    return lower_error(l, "reduction '%s' is unknown", s->reduction);
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, s->data, dims);
  s->out = lower_alloc_result(l, 0, dims);
  GiltValue *ops[2] = {s->data, s->out};
  lower_emit(l, LOOP_OP_COPY, NULL, 2, ops);
  lower_dims(l, s->updates, dims);
  lower_nest(l, rank_of(s->updates), dims, body, s);
  return lower_replace(l, &s->out);
}

static Indexed scatter_operands(Lower *l)
{
  Indexed s = {.data = lower_operand(l, 0), .indices = lower_operand(l, 1),
               .updates = lower_operand(l, 2)};
  s.rank = rank_of(s.data);
  s.reduction = graph_attr_string(l->op, "reduction", "none");
  return s;
}

static GiltStatus lower_scatter_elements(Lower *l)
{
  Indexed s = scatter_operands(l);
  if (!lower_axis(l, graph_attr_int(l->op, "axis", 0), s.rank, &s.axis))
    return GILT_FAILURE;
  return scatter(l, &s, scatter_elements_body);
}

static GiltStatus lower_scatter_nd(Lower *l)
{
  Indexed s = scatter_operands(l);
  if (tuple_length(&s) < 0)
    return lower_error(l, "the index tuples need a static length");
  return scatter(l, &s, scatter_nd_body);
}

const GraphLoweringRow graph_lower_gather[] = {
    {GRAPH_OP_GATHER, {lower_gather}},
    {GRAPH_OP_GATHER_ELEMENTS, {lower_gather_elements}},
    {GRAPH_OP_GATHER_ND, {lower_gather_nd}},
    {GRAPH_OP_SCATTER_ELEMENTS, {lower_scatter_elements}},
    {GRAPH_OP_SCATTER, {lower_scatter_elements}},
    {GRAPH_OP_SCATTER_ND, {lower_scatter_nd}},
    {0, {NULL}},
};
