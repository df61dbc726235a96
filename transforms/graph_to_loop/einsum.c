/*
** einsum.c - lowering of Einsum: any equation the graph dialect accepts,
** with '...', letters repeated within an operand (diagonals, traces), the
** implicit result and numpy's broadcasting of size-1 dimensions. The
** graph dialect labels every dimension (graph_einsum_resolve); this file
** only builds loops over the labels.
**
** One nest: a loop.parallel over the result's labels, then one loop.for
** per summed label (a label the result lacks) carrying the accumulator;
** the innermost body multiplies one element of each operand, read at its
** labels' induction variables (a repeated label reads a diagonal). A
** label's size is the largest of its dimensions, the others being 1 and
** read at index 0; dynamic sizes that disagree stop the run. f16 and bf16
** accumulate in f32, rounded once when stored; integers wrap in their own
** type. Not here: a fast contraction. Einsum is rare in inference models
** and this nest is the reference; one that is a matmul is a graph
** rewrite's business.
*/
#include "transforms/graph_to_loop/indexing.h"

typedef struct Einsum {
  GraphEinsum eq;
  GiltValue *in[GRAPH_MAX_RANK + 1], *out;
  GiltType *acc; /* the accumulator's type */
  GiltValue *size[GRAPH_EINSUM_MAX_LABELS]; /* NULL: no dim has the label */
  /* Per operand dim: whether it is 1 at run time; NULL when static or
  ** when no other dim has its label. */
  GiltValue *unit[GRAPH_MAX_RANK + 1][GRAPH_MAX_RANK];
  GiltValue *iv[GRAPH_EINSUM_MAX_LABELS];
  size_t summed[GRAPH_EINSUM_MAX_LABELS], num_summed, depth;
} Einsum;

static int64_t static_dim(GiltValue *buf, size_t d)
{
  return gilt_value_get_type(buf)->shaped.shape[d];
}

/* Each label's size: a static dimension other than 1 when there is one,
** else the dynamic ones broadcast (one that is not 1 wins, so a 0 does),
** else 1; then every dynamic dimension that shares its label must be that
** size or 1. */
static void label_sizes(Lower *l, Einsum *e)
{
  const GraphEinsum *q = &e->eq;
  int64_t known[GRAPH_EINSUM_MAX_LABELS] = {0}; /* 0: none */
  int uses[GRAPH_EINSUM_MAX_LABELS] = {0};
  for (size_t i = 0; i < q->num_inputs; i++)
    for (size_t d = 0; d < q->rank[i]; d++) {
      int64_t s = static_dim(e->in[i], d);
      uses[q->label[i][d]]++;
      if (s != GILT_DYNAMIC && s != 1)
        known[q->label[i][d]] = s;
    }
  GiltValue *one = lower_index(l, 1);
  for (size_t lab = 0; lab < q->num_labels; lab++)
    if (known[lab])
      e->size[lab] = lower_index(l, known[lab]);
  for (size_t i = 0; i < q->num_inputs; i++)
    for (size_t d = 0; d < q->rank[i]; d++) {
      GiltValue **size = &e->size[q->label[i][d]];
      if (static_dim(e->in[i], d) != GILT_DYNAMIC || known[q->label[i][d]])
        continue;
      GiltValue *dim = lower_dim(l, e->in[i], d);
      *size = !*size ? dim
                     : lower_select(l, lower_cmp(l, "eq", *size, one), dim,
                                    *size);
    }
  for (size_t lab = 0; lab < q->num_labels; lab++)
    if (uses[lab] && !e->size[lab])
      e->size[lab] = one;
  for (size_t i = 0; i < q->num_inputs; i++)
    for (size_t d = 0; d < q->rank[i]; d++) {
      if (static_dim(e->in[i], d) != GILT_DYNAMIC ||
          uses[q->label[i][d]] == 1)
        continue;
      GiltValue *dim = lower_dim(l, e->in[i], d);
      e->unit[i][d] = lower_cmp(l, "eq", dim, one);
      GiltValue *fits = lower_cmp(l, "eq", dim, e->size[q->label[i][d]]);
      lower_assert(l, lower_binary(l, LOOP_OP_ORI, fits, e->unit[i][d]),
                   "the operands' dimensions of one letter disagree");
    }
}

/* The product of one element of each operand, in the accumulator's type. */
static GiltValue *product(Lower *l, Einsum *e)
{
  const GraphEinsum *q = &e->eq;
  GiltValue *p = NULL;
  for (size_t i = 0; i < q->num_inputs; i++) {
    GiltValue *at[GRAPH_MAX_RANK];
    for (size_t d = 0; d < q->rank[i]; d++) {
      GiltValue *iv = e->iv[q->label[i][d]];
      at[d] = static_dim(e->in[i], d) == 1 ? lower_index(l, 0)
              : e->unit[i][d] ? lower_select(l, e->unit[i][d],
                                             lower_index(l, 0), iv)
                              : iv;
    }
    GiltValue *x = lower_convert(l, lower_load(l, e->in[i], at), e->acc);
    p = p ? lower_times(l, p, x) : x;
  }
  return p;
}

static void sum_step(Lower *l, GiltValue *iv, GiltValue *const *acc,
                     GiltValue **next, void *user)
{
  Einsum *e = user;
  e->iv[e->summed[e->depth++]] = iv;
  if (e->depth < e->num_summed)
    lower_for_upto(l, e->size[e->summed[e->depth]], 1, acc, next, sum_step, e);
  else
    next[0] = lower_plus(l, acc[0], product(l, e));
  e->depth--;
}

static void einsum_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Einsum *e = user;
  const GraphEinsum *q = &e->eq;
  for (size_t k = 0; k < q->rank[q->num_inputs]; k++)
    e->iv[q->label[q->num_inputs][k]] = ivs[k];
  GiltValue *sum;
  if (e->num_summed == 0) {
    sum = product(l, e);
  } else {
    GiltValue *zero = lower_constant(l, e->acc, 0);
    e->depth = 0;
    lower_for_upto(l, e->size[e->summed[0]], 1, &zero, &sum, sum_step, e);
  }
  lower_store(l, lower_convert(l, sum, lower_result_elem(l, 0)), e->out, ivs);
}

/* The labels the result lacks, in order, into e->summed; false when the
** result repeats a label or lacks the '...' dims, which numpy refuses. */
static bool find_summed(Einsum *e)
{
  const GraphEinsum *q = &e->eq;
  bool in_result[GRAPH_EINSUM_MAX_LABELS] = {false};
  for (size_t k = 0; k < q->rank[q->num_inputs]; k++) {
    if (in_result[q->label[q->num_inputs][k]])
      return false;
    in_result[q->label[q->num_inputs][k]] = true;
  }
  for (size_t lab = 0; lab < q->num_labels; lab++) {
    if (lab < q->ellipsis && !in_result[lab])
      return false;
    if (e->size[lab] && !in_result[lab])
      e->summed[e->num_summed++] = lab;
  }
  return true;
}

static GiltStatus lower_einsum(Lower *l)
{
  Einsum *e = gilt_calloc(l->ctx, 1, sizeof *e);
  size_t n = gilt_op_get_num_operands(l->op), ranks[GRAPH_MAX_RANK + 1];
  for (size_t i = 0; i < n && i <= GRAPH_MAX_RANK; i++) {
    e->in[i] = lower_operand(l, i);
    ranks[i] = gilt_value_get_type(e->in[i])->shaped.rank;
  }
  GiltStatus st = GILT_FAILURE;
  if (graph_einsum_resolve(l->op, ranks, &e->eq))
    goto done;
  GiltType *elem = lower_result_elem(l, 0);
  unsigned width = gilt_type_get_bit_width(elem);
  e->acc = lower_is_float(elem) && width < 32
               ? gilt_float_type_get(l->ctx, GILT_F32)
               : elem;
  label_sizes(l, e);
  if (!find_summed(e)) {
    st = lower_error(l, "the result repeats a letter or drops the '...' "
                     "dimensions");
    goto done;
  }
  const GraphEinsum *q = &e->eq;
  GiltValue *dims[GRAPH_MAX_RANK];
  for (size_t k = 0; k < q->rank[q->num_inputs]; k++)
    dims[k] = e->size[q->label[q->num_inputs][k]];
  e->out = lower_alloc_result(l, 0, dims);
  lower_parallel(l, q->rank[q->num_inputs], dims, einsum_body, e);
  st = lower_replace(l, &e->out);
done:
  gilt_free(l->ctx, e);
  return st;
}

const GraphLoweringRow graph_lower_einsum[] = {
    {GRAPH_OP_EINSUM, {lower_einsum}},
    {0, {NULL}},
};
