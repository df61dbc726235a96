/*
** pooling_global.c - lowering of GlobalAveragePool, GlobalMaxPool and
** GlobalLpPool: reductions over every spatial dimension (2 and on) of an
** N x C x ... input, the result keeping them as 1s. They are lower_reduce
** (reduce.c) with the mean, the maximum (NaN propagates) and
** (sum |x|^p)^(1/p), p from the attribute (default 2).
*/
#include "transforms/graph_to_loop/lowering.h"

static GiltStatus lower_global_pool(Lower *l, LowerReduceKind kind, double p)
{
  GiltValue *in = lower_operand(l, 0);
  size_t rank = gilt_value_get_type(in)->shaped.rank;
  if (rank < 2)
    return lower_error(l, "operand 'X' must have rank >= 2 (N x C x ...)");
  bool reduced[GRAPH_MAX_RANK] = {0};
  for (size_t d = 2; d < rank; d++)
    reduced[d] = true;
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_reduced_dims(l, in, reduced, true, dims);
  GiltValue *out = lower_alloc_result(l, 0, dims);
  lower_reduce(l, kind, p, in, reduced, true, out);
  return lower_replace(l, &out);
}

static GiltStatus lower_global_average_pool(Lower *l)
{
  return lower_global_pool(l, LOWER_REDUCE_MEAN, 0);
}

static GiltStatus lower_global_max_pool(Lower *l)
{
  return lower_global_pool(l, LOWER_REDUCE_MAX, 0);
}

static GiltStatus lower_global_lp_pool(Lower *l)
{
  int64_t p = graph_attr_int(l->op, "p", 2);
  if (p <= 0)
    return lower_error(l, "attribute 'p' (%lld) must be positive",
                       (long long)p);
  return lower_global_pool(l, LOWER_REDUCE_LP, (double)p);
}

const GraphLoweringRow graph_lower_global_pool[] = {
    {GRAPH_OP_GLOBAL_AVERAGE_POOL, {lower_global_average_pool}},
    {GRAPH_OP_GLOBAL_MAX_POOL, {lower_global_max_pool}},
    {GRAPH_OP_GLOBAL_LP_POOL, {lower_global_lp_pool}},
    {0, {NULL}},
};
