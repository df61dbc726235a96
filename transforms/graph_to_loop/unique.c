/*
** unique.c - lowering of Unique, with or without an axis, sorted or in
** order of first occurrence, and all four outputs (the unique values, the
** first occurrence of each, the inverse map and the counts).
**
** The input is seen as [outer, n, inner] (flat when there is no axis), so
** the items compared are the n slices x[:, j, :], ordered
** lexicographically as numpy's unique orders them. Pass 1 keeps the first
** occurrence of each distinct slice in a scratch list, whose length sizes
** the results at run time; pass 2 (sorted) selection-sorts that list;
** the outputs are then read off it. Correctness first: O(n^2) slice
** comparisons.
*/
#include "transforms/graph_to_loop/indexing.h"

typedef struct Unique {
  GiltValue *x;               /* the input as [outer, n, inner] */
  GiltValue *outer, *n, *inner;
  GiltValue *first;           /* scratch: first occurrences, then sorted */
  GiltValue *count;           /* how many distinct slices */
  GiltValue *a, *b;           /* the slices being compared */
  GiltValue *y3, *out;        /* outputs being written */
} Unique;

/* ---- comparing two slices ------------------------------------------------------ */

/* -1, 0 or 1 as element m of slice a is below, equal to or above b's. */
static GiltValue *compare_at(Lower *l, Unique *u, GiltValue *m)
{
  GiltValue *o = ix_div(l, m, u->inner), *i = ix_rem(l, m, u->inner);
  GiltValue *va = lower_load(l, u->x, (GiltValue *[]){o, u->a, i});
  GiltValue *vb = lower_load(l, u->x, (GiltValue *[]){o, u->b, i});
  GiltType *t = gilt_value_get_type(va);
  bool f = lower_is_float(t), un = lower_is_unsigned(t);
  GiltValue *lt = lower_cmp(l, f ? "olt" : un ? "ult" : "slt", va, vb);
  GiltValue *gt = lower_cmp(l, f ? "ogt" : un ? "ugt" : "sgt", va, vb);
  GiltValue *above = ix_one_if(l, gt);
  return lower_select(l, lt, lower_index(l, -1), above);
}

static void compare_step(Lower *l, GiltValue *m, GiltValue *const *iter,
                         GiltValue **next, void *user)
{
  GiltValue *decided = lower_cmp(l, "ne", iter[0], lower_index(l, 0));
  next[0] = lower_select(l, decided, iter[0], compare_at(l, user, m));
}

/* The lexicographic order of slices a and b: -1, 0 or 1. */
static GiltValue *compare_slices(Lower *l, Unique *u, GiltValue *a,
                                 GiltValue *b)
{
  GiltValue *zero = lower_index(l, 0), *r;
  u->a = a, u->b = b;
  GiltValue *n = ix_mul(l, u->outer, u->inner);
  lower_for(l, zero, n, lower_index(l, 1), 1, &zero, &r, compare_step, u);
  return r;
}

static GiltValue *same_slices(Lower *l, Unique *u, GiltValue *a, GiltValue *b)
{
  GiltValue *order = compare_slices(l, u, a, b);
  return lower_cmp(l, "eq", order, lower_index(l, 0));
}

/* The first p < count whose listed slice equals slice j (its position). */
typedef struct Find {
  Unique *u;
  GiltValue *j;
} Find;

static void find_step(Lower *l, GiltValue *p, GiltValue *const *iter,
                      GiltValue **next, void *user)
{
  Find *f = user;
  GiltValue *listed = lower_load(l, f->u->first, &p);
  GiltValue *same = same_slices(l, f->u, f->j, listed);
  GiltValue *none_yet = lower_cmp(l, "slt", iter[0], lower_index(l, 0));
  GiltValue *hit = lower_binary(l, LOOP_OP_ANDI, same, none_yet);
  next[0] = lower_select(l, hit, p, iter[0]);
}

/* Searches the first `upto` entries of the list; -1 when absent. */
static GiltValue *find_listed(Lower *l, Unique *u, GiltValue *j,
                              GiltValue *upto)
{
  Find f = {u, j};
  GiltValue *none = lower_index(l, -1), *r;
  lower_for_upto(l, upto, 1, &none, &r,
            find_step, &f);
  return r;
}

/* ---- pass 1: first occurrences; pass 2: sorting ---------------------------------- */

static void list_first(Lower *l, GiltValue *j, GiltValue *const *iter,
                       GiltValue **next, void *user)
{
  Unique *u = user;
  GiltValue *at = find_listed(l, u, j, iter[0]);
  GiltValue *seen = lower_cmp(l, "sge", at, lower_index(l, 0));
  lower_store(l, j, u->first, &iter[0]); /* kept only when unseen */
  GiltValue *zero = lower_index(l, 0);
  GiltValue *step = lower_select(l, seen, zero, lower_index(l, 1));
  next[0] = ix_add(l, iter[0], step);
}

static void pick_least(Lower *l, GiltValue *j, GiltValue *const *iter,
                       GiltValue **next, void *user)
{
  Unique *u = user;
  GiltValue *cand = lower_load(l, u->first, &j);
  GiltValue *best = lower_load(l, u->first, &iter[0]);
  GiltValue *order = compare_slices(l, u, cand, best);
  GiltValue *below = lower_cmp(l, "slt", order, lower_index(l, 0));
  next[0] = lower_select(l, below, j, iter[0]);
}

static void sort_round(Lower *l, GiltValue *i, GiltValue *const *iter,
                       GiltValue **next, void *user)
{
  (void)iter;
  (void)next;
  Unique *u = user;
  GiltValue *slot;
  GiltValue *after = ix_add(l, i, lower_index(l, 1));
  lower_for(l, after, u->count, lower_index(l, 1), 1, &i, &slot, pick_least, u);
  GiltValue *chosen = lower_load(l, u->first, &slot);
  lower_store(l, lower_load(l, u->first, &i), u->first, &slot);
  lower_store(l, chosen, u->first, &i);
}

/* ---- the outputs -------------------------------------------------------------------- */

static GiltValue *as_i64(Lower *l, GiltValue *v)
{
  return lower_emit(l, LOOP_OP_INDEX_CAST, lower_i64_type(l), 1, &v);
}

static void copy_unique(Lower *l, GiltValue *const *ivs, void *user)
{
  Unique *u = user;
  GiltValue *j = lower_load(l, u->first, &ivs[1]);
  GiltValue *v = lower_load(l, u->x, (GiltValue *[]){ivs[0], j, ivs[2]});
  lower_store(l, v, u->y3, ivs);
}

static GiltValue *first_index(Lower *l, GiltValue *const *ivs, void *user)
{
  return as_i64(l, lower_load(l, ((Unique *)user)->first, ivs));
}

static GiltValue *inverse_index(Lower *l, GiltValue *const *ivs, void *user)
{
  Unique *u = user;
  return as_i64(l, find_listed(l, u, ivs[0], u->count));
}

typedef struct Count {
  Unique *u;
  GiltValue *listed;
} Count;

static void count_step(Lower *l, GiltValue *j, GiltValue *const *iter,
                       GiltValue **next, void *user)
{
  Count *c = user;
  GiltValue *same = same_slices(l, c->u, j, c->listed);
  next[0] = ix_add(l, iter[0], ix_one_if(l, same));
}

static GiltValue *occurrences(Lower *l, GiltValue *const *ivs, void *user)
{
  Unique *u = user;
  Count c = {u, lower_load(l, u->first, ivs)};
  GiltValue *zero = lower_index(l, 0), *r;
  lower_for(l, zero, u->n, lower_index(l, 1), 1, &zero, &r, count_step, &c);
  return as_i64(l, r);
}

/* The unique slices, written through an [outer, count, inner] view. */
static GiltValue *unique_values(Lower *l, Unique *u, GiltValue *in,
                                size_t axis, bool flat)
{
  GiltValue *dims[GRAPH_MAX_RANK];
  if (flat) {
    dims[0] = u->count;
  } else {
    lower_dims(l, in, dims);
    dims[axis] = u->count;
  }
  GiltValue *y = lower_alloc_result(l, 0, dims);
  GiltType *t3 = gilt_memref_type_get(
      l->ctx, 3, (int64_t[]){GILT_DYNAMIC, GILT_DYNAMIC, GILT_DYNAMIC},
      lower_result_elem(l, 0), NULL, NULL);
  GiltValue *sizes[3] = {u->outer, u->count, u->inner};
  u->y3 = lower_emit(l, LOOP_OP_RESHAPE, t3, 4,
                     (GiltValue *[]){y, u->outer, u->count, u->inner});
  lower_parallel(l, 3, sizes, copy_unique, u);
  return y;
}

/* The input as [outer, n, inner] around `axis` (flat: [1, all, 1]). */
static void view_3d(Lower *l, Unique *u, GiltValue *in, size_t axis, bool flat)
{
  GiltValue *dims[GRAPH_MAX_RANK];
  size_t rank = gilt_value_get_type(in)->shaped.rank;
  lower_dims(l, in, dims);
  u->outer = flat ? lower_index(l, 1) : ix_product(l, dims, 0, axis);
  u->n = flat ? ix_product(l, dims, 0, rank) : dims[axis];
  u->inner = flat ? lower_index(l, 1) : ix_product(l, dims, axis + 1, rank);
  GiltType *t3 = gilt_memref_type_get(
      l->ctx, 3, (int64_t[]){GILT_DYNAMIC, GILT_DYNAMIC, GILT_DYNAMIC},
      gilt_value_get_type(in)->shaped.elem, NULL, NULL);
  u->x = lower_emit(l, LOOP_OP_RESHAPE, t3, 4,
                    (GiltValue *[]){lower_contiguous(l, in), u->outer, u->n,
                                    u->inner});
}

static GiltStatus lower_unique(Lower *l)
{
  Unique u = {0};
  GiltValue *in = lower_operand(l, 0);
  size_t rank = gilt_value_get_type(in)->shaped.rank, axis = 0;
  bool flat = !gilt_op_get_attr(l->op, "axis");
  if (!flat && !lower_axis(l, graph_attr_int(l->op, "axis", 0), rank, &axis))
    return GILT_FAILURE;
  view_3d(l, &u, in, axis, flat);
  GiltType *list = gilt_memref_type_get(
      l->ctx, 1, (int64_t[]){GILT_DYNAMIC}, lower_index_type(l), NULL, NULL);
  GiltValue *zero = lower_index(l, 0), *one = lower_index(l, 1);
  u.first = lower_alloc(l, list, &u.n);
  lower_for(l, zero, u.n, one, 1, &zero, &u.count, list_first, &u);
  if (graph_attr_int(l->op, "sorted", 1))
    lower_for(l, zero, u.count, one, 0, NULL, NULL, sort_round, &u);
  size_t num = gilt_op_get_num_results(l->op);
  GiltValue *results[4] = {unique_values(l, &u, in, axis, flat), NULL, NULL,
                           NULL};
  LowerElementFn fns[4] = {NULL, first_index, inverse_index, occurrences};
  GiltValue *sizes[4] = {NULL, u.count, u.n, u.count};
  for (size_t r = 1; r < num; r++)
    results[r] = lower_generate(l, r, &sizes[r], fns[r], &u);
  lower_emit(l, LOOP_OP_DEALLOC, NULL, 1, &u.first);
  return lower_replace(l, results);
}

const GraphLoweringRow graph_lower_unique[] = {
    {GRAPH_OP_UNIQUE, {lower_unique}},
    {0, {NULL}},
};
