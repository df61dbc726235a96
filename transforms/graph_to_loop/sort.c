/*
** sort.c - lowering of TopK: for each slice along the axis, a selection
** sort of the slice's positions, K rounds of picking the best remaining
** one. Ties go to the lower position, as ONNX Runtime orders them, so the
** result is stable. K is loaded at run time and sizes the results.
**
** Correctness first: O(K * n) per slice, in a scratch buffer of
** positions allocated per slice. A faster sort is the loop optimizer's or
** a later lowering's business.
*/
#include "transforms/graph_to_loop/indexing.h"

typedef struct TopK {
  GiltValue *in, *values, *indices, *k;
  GiltValue *const *outer; /* the slice's indices, axis position unused */
  GiltValue *order;        /* scratch: positions, best first */
  size_t axis, rank;
  bool largest;
} TopK;

/* The input element at position p of the current slice. */
static GiltValue *slice_element(Lower *l, TopK *t, GiltValue *p)
{
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t d = 0; d < t->rank; d++)
    idx[d] = d == t->axis ? p : t->outer[d];
  return lower_load(l, t->in, idx);
}

/* Whether position a beats position b: a strictly better value, or an
** equal one at a lower position. */
static GiltValue *beats(Lower *l, TopK *t, GiltValue *a, GiltValue *b)
{
  GiltValue *va = slice_element(l, t, a), *vb = slice_element(l, t, b);
  GiltType *e = gilt_value_get_type(va);
  bool f = lower_is_float(e), u = lower_is_unsigned(e);
  const char *better = t->largest ? (f ? "ogt" : u ? "ugt" : "sgt")
                                  : (f ? "olt" : u ? "ult" : "slt");
  GiltValue *equal = lower_cmp(l, f ? "oeq" : "eq", va, vb);
  GiltValue *tie =
      lower_binary(l, LOOP_OP_ANDI, equal, lower_cmp(l, "slt", a, b));
  return lower_binary(l, LOOP_OP_ORI, lower_cmp(l, better, va, vb), tie);
}

static void init_order(Lower *l, GiltValue *iv, GiltValue *const *iter,
                       GiltValue **next, void *user)
{
  (void)iter;
  (void)next;
  lower_store(l, iv, ((TopK *)user)->order, &iv);
}

typedef struct Pick {
  TopK *t;
  GiltValue *round;
} Pick;

/* One candidate j against the best so far (iter[0], a slot of order). */
static void pick_best(Lower *l, GiltValue *j, GiltValue *const *iter,
                      GiltValue **next, void *user)
{
  TopK *t = user;
  GiltValue *cand = lower_load(l, t->order, &j);
  GiltValue *best = lower_load(l, t->order, &iter[0]);
  next[0] = lower_select(l, beats(l, t, cand, best), j, iter[0]);
}

/* Round i: moves the best remaining position to slot i, writes outputs. */
static void select_round(Lower *l, GiltValue *i, GiltValue *const *iter,
                         GiltValue **next, void *user)
{
  (void)iter;
  (void)next;
  TopK *t = user;
  GiltValue *n = lower_dim(l, t->in, t->axis), *slot;
  GiltValue *after = ix_add(l, i, lower_index(l, 1));
  lower_for(l, after, n, lower_index(l, 1), 1, &i, &slot, pick_best, t);
  GiltValue *chosen = lower_load(l, t->order, &slot);
  lower_store(l, lower_load(l, t->order, &i), t->order, &slot);
  lower_store(l, chosen, t->order, &i);
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t d = 0; d < t->rank; d++)
    idx[d] = d == t->axis ? i : t->outer[d];
  lower_store(l, slice_element(l, t, chosen), t->values, idx);
  GiltValue *pos =
      lower_emit(l, LOOP_OP_INDEX_CAST, lower_i64_type(l), 1, &chosen);
  lower_store(l, pos, t->indices, idx);
}

static void sort_slice(Lower *l, GiltValue *const *ivs, void *user)
{
  TopK *t = user;
  GiltValue *n = lower_dim(l, t->in, t->axis), *zero = lower_index(l, 0);
  GiltValue *one = lower_index(l, 1);
  GiltType *scratch = gilt_memref_type_get(
      l->ctx, 1, (int64_t[]){GILT_DYNAMIC}, lower_index_type(l), NULL, NULL);
  t->outer = ivs;
  t->order = lower_alloc(l, scratch, &n);
  lower_for(l, zero, n, one, 0, NULL, NULL, init_order, t);
  lower_for(l, zero, t->k, one, 0, NULL, NULL, select_round, t);
  lower_emit(l, LOOP_OP_DEALLOC, NULL, 1, &t->order);
}

static GiltStatus lower_top_k(Lower *l)
{
  TopK t = {.in = lower_operand(l, 0)};
  t.rank = gilt_value_get_type(t.in)->shaped.rank;
  t.largest = graph_attr_int(l->op, "largest", 1) != 0;
  if (!lower_axis(l, graph_attr_int(l->op, "axis", -1), t.rank, &t.axis))
    return GILT_FAILURE;
  GiltValue *dims[GRAPH_MAX_RANK], *n = lower_dim(l, t.in, t.axis);
  t.k = lower_load_index(l, lower_operand(l, 1), 0);
  GiltValue *zero = lower_index(l, 0);
  GiltValue *past_n = ix_add(l, n, lower_index(l, 1));
  lower_assert(l, ix_in_range(l, t.k, zero, past_n),
               "K is not in [0, the axis' size]");
  lower_dims(l, t.in, dims);
  dims[t.axis] = t.k;
  t.values = lower_alloc_result(l, 0, dims);
  t.indices = lower_alloc_result(l, 1, dims);
  dims[t.axis] = lower_index(l, 1); /* one sort per slice */
  lower_parallel(l, t.rank, dims, sort_slice, &t);
  GiltValue *results[2] = {t.values, t.indices};
  return lower_replace(l, results);
}

const GraphLoweringRow graph_lower_sort[] = {
    {GRAPH_OP_TOP_K, {lower_top_k}},
    {0, {NULL}},
};
