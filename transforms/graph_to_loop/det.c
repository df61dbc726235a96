/*
** det.c - lowering of Det: the determinant of each M x M matrix of the
** last two dimensions, by LU decomposition with partial pivoting.
**
** The matrices are copied into a scratch buffer (in f32 when the element
** type is narrower) and decomposed in place, one loop.parallel iteration
** per matrix. Column k: the row from k down with the largest |a[i][k]|
** (the first such) is swapped into row k, which flips the sign; the
** determinant is multiplied by the pivot a[k][k]; the rows below subtract
** their multiple of row k. A zero pivot (the whole column below is zero)
** makes the determinant 0 and the elimination skips it. An empty matrix
** (M = 0) has determinant 1.
*/
#include "transforms/graph_to_loop/lowering.h"

typedef struct Det {
  GiltValue *x, *a, *out;
  size_t batch; /* number of batch dimensions: rank - 2 */
  GiltValue *m;
  GiltType *ct;
  GiltValue *const *b; /* the matrix's batch indices */
  GiltValue *k, *p, *pivot, *f, *i;
} Det;

/* The index of element (row, col) of the current matrix. */
static void at(Det *d, GiltValue *row, GiltValue *col, GiltValue **idx)
{
  for (size_t i = 0; i < d->batch; i++)
    idx[i] = d->b[i];
  idx[d->batch] = row;
  idx[d->batch + 1] = col;
}

static GiltValue *get(Lower *l, Det *d, GiltValue *row, GiltValue *col)
{
  GiltValue *idx[GRAPH_MAX_RANK];
  at(d, row, col, idx);
  return lower_load(l, d->a, idx);
}

static void put(Lower *l, Det *d, GiltValue *v, GiltValue *row,
                GiltValue *col)
{
  GiltValue *idx[GRAPH_MAX_RANK];
  at(d, row, col, idx);
  lower_store(l, v, d->a, idx);
}

static GiltValue *one_index(Lower *l)
{
  return lower_index(l, 1);
}

/* ---- the copy ------------------------------------------------------------------------ */

static void copy_col(Lower *l, GiltValue *j, GiltValue *const *iter,
                     GiltValue **next, void *user)
{
  (void)iter;
  (void)next;
  Det *d = user;
  GiltValue *idx[GRAPH_MAX_RANK];
  at(d, d->i, j, idx);
  lower_store(l, lower_convert(l, lower_load(l, d->x, idx), d->ct), d->a,
              idx);
}

static void copy_row(Lower *l, GiltValue *i, GiltValue *const *iter,
                     GiltValue **next, void *user)
{
  (void)iter;
  (void)next;
  Det *d = user;
  d->i = i;
  lower_for_upto(l, d->m, 0, NULL, NULL, copy_col, d);
}

/* ---- one column -------------------------------------------------------------------- */

/* acc: the largest |a[i][k]| so far and its row. */
static void pivot_row(Lower *l, GiltValue *i, GiltValue *const *acc,
                      GiltValue **next, void *user)
{
  Det *d = user;
  GiltValue *v = lower_unary(l, LOOP_OP_ABSF, get(l, d, i, d->k));
  GiltValue *better = lower_cmp(l, "ogt", v, acc[0]);
  next[0] = lower_select(l, better, v, acc[0]);
  next[1] = lower_select(l, better, i, acc[1]);
}

static void swap_col(Lower *l, GiltValue *j, GiltValue *const *iter,
                     GiltValue **next, void *user)
{
  (void)iter;
  (void)next;
  Det *d = user;
  GiltValue *top = get(l, d, d->k, j), *other = get(l, d, d->p, j);
  put(l, d, other, d->k, j);
  put(l, d, top, d->p, j);
}

static void eliminate_col(Lower *l, GiltValue *j, GiltValue *const *iter,
                          GiltValue **next, void *user)
{
  (void)iter;
  (void)next;
  Det *d = user;
  GiltValue *v = get(l, d, d->i, j);
  GiltValue *f = lower_binary(l, LOOP_OP_MULF, d->f, get(l, d, d->k, j));
  put(l, d, lower_binary(l, LOOP_OP_SUBF, v, f), d->i, j);
}

static void eliminate_row(Lower *l, GiltValue *i, GiltValue *const *iter,
                          GiltValue **next, void *user)
{
  (void)iter;
  (void)next;
  Det *d = user;
  GiltValue *zero = lower_constant(l, d->ct, 0);
  GiltValue *singular = lower_cmp(l, "oeq", d->pivot, zero);
  GiltValue *f =
      lower_binary(l, LOOP_OP_DIVF, get(l, d, i, d->k), d->pivot);
  d->i = i;
  d->f = lower_select(l, singular, zero, f);
  GiltValue *after = lower_binary(l, LOOP_OP_ADDI, d->k, one_index(l));
  lower_for(l, after, d->m, one_index(l), 0, NULL, NULL, eliminate_col, d);
}

/* acc[0]: the determinant of the columns before k. */
static void column(Lower *l, GiltValue *k, GiltValue *const *acc,
                   GiltValue **next, void *user)
{
  Det *d = user;
  d->k = k;
  GiltValue *inits[2] = {lower_constant(l, d->ct, -1), k}, *best[2];
  lower_for(l, k, d->m, one_index(l), 2, inits, best, pivot_row, d);
  d->p = best[1];
  lower_for_upto(l, d->m, 0, NULL, NULL, swap_col, d);
  d->pivot = get(l, d, k, k);
  GiltValue *det = lower_binary(l, LOOP_OP_MULF, acc[0], d->pivot);
  GiltValue *swapped = lower_cmp(l, "ne", d->p, k);
  next[0] = lower_select(l, swapped, lower_unary(l, LOOP_OP_NEGF, det), det);
  GiltValue *below = lower_binary(l, LOOP_OP_ADDI, k, one_index(l));
  lower_for(l, below, d->m, one_index(l), 0, NULL, NULL, eliminate_row, d);
}

static void matrix(Lower *l, GiltValue *const *ivs, void *user)
{
  Det *d = user;
  d->b = ivs;
  lower_for_upto(l, d->m, 0, NULL, NULL, copy_row, d);
  GiltValue *one = lower_constant(l, d->ct, 1), *det;
  lower_for_upto(l, d->m, 1, &one, &det, column, d);
  lower_store(l, lower_convert(l, det, lower_result_elem(l, 0)), d->out, ivs);
}

static GiltStatus lower_det(Lower *l)
{
  GiltValue *x = lower_operand(l, 0);
  GiltType *t = gilt_value_get_type(x);
  size_t rank = t->shaped.rank;
  if (rank < 2)
    return lower_error(l, "operand 'X' must have rank >= 2 (... x M x M)");
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, x, dims);
  Det d = {0};
  d.x = x;
  d.batch = rank - 2;
  d.m = dims[rank - 1];
  d.ct = lower_acc_type(l, t->shaped.elem);
  d.out = lower_alloc_result(l, 0, dims);
  d.a = lower_alloc(l,
                    gilt_memref_type_get(l->ctx, rank, t->shaped.shape, d.ct,
                                         NULL, NULL),
                    dims);
  lower_parallel(l, d.batch, dims, matrix, &d);
  return lower_replace(l, &d.out);
}

const GraphLoweringRow graph_lower_det[] = {
    {GRAPH_OP_DET, {lower_det}},
    {0, {NULL}},
};
