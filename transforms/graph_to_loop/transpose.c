/*
** transpose.c - lowering of Transpose: a loop.parallel over the result
** reading the input at the permuted indices. The result is a fresh dense
** buffer, not a strided view: what reads it later (a matmul, a function
** result) wants the identity layout, and the copy is the memory planner's
** to remove.
*/
#include "transforms/graph_to_loop/indexing.h"

typedef struct Transpose {
  GiltValue *in;
  int64_t perm[GRAPH_MAX_RANK];
  size_t rank;
} Transpose;

static GiltValue *transposed_element(Lower *l, GiltValue *const *ivs,
                                     void *user)
{
  Transpose *t = user;
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t i = 0; i < t->rank; i++)
    idx[t->perm[i]] = ivs[i];
  return lower_load(l, t->in, idx);
}

static GiltStatus lower_transpose(Lower *l)
{
  Transpose t = {.in = lower_operand(l, 0)};
  t.rank = gilt_value_get_type(t.in)->shaped.rank;
  size_t n;
  if (!graph_attr_ints(l->op, "perm", t.perm, GRAPH_MAX_RANK, &n)) {
    n = t.rank;
    for (size_t i = 0; i < t.rank; i++)
      t.perm[i] = (int64_t)(t.rank - 1 - i);
  }
  if (n != t.rank)
    return lower_error(l, "'perm' does not list every axis");
  GiltValue *dims[GRAPH_MAX_RANK];
  for (size_t i = 0; i < t.rank; i++) {
    if (t.perm[i] < 0 || t.perm[i] >= (int64_t)t.rank)
      return lower_error(l, "'perm' is out of range");
    dims[i] = lower_dim(l, t.in, (size_t)t.perm[i]);
  }
  GiltValue *out = lower_generate(l, 0, dims, transposed_element, &t);
  return lower_replace(l, &out);
}

const GraphLoweringRow graph_lower_transpose[] = {
    {GRAPH_OP_TRANSPOSE, {lower_transpose}},
    {0, {NULL}},
};
