/*
** rows.c - passes along the last dimension of f32 buffers, 16 lanes at a
** time: the vectorized form of the reductions whose group is one row
** (Softmax and LogSoftmax on the last axis, LayerNormalization over the
** last axis, Reduce* over it).
**
** The scalar reduction nest (reduce.c) carries a float accumulator
** through a loop.for, which LLVM may not vectorize (it would reorder the
** additions), so a softmax of rows of 64 ran exp one element at a time.
** Here the accumulators are vectors: lane i sums the elements i, i + 16,
** i + 32, ... of the row, and loop.reduction combines the lanes after the
** loop (or, for a maximum that may pass a NaN over, a butterfly of
** shuffles: lower_row_max_in_every_lane). The order of the additions is
** fixed by the IR, so the interpreter and the compiled code agree bit
** for bit; it differs from the scalar nest's, which is why only f32 rows
** take this path (the results stay within the ONNX suite's tolerances,
** not bit-identical to the scalar path). The last chunk of a row of a
** length that is not a static multiple of 16 is masked: lanes past the
** row read what the caller passes (its identity, or the accumulator
** itself) and are not stored.
**
** Not here: the element-wise work inside a row (the callers' steps), and
** groups over more than the last dimension (they keep the scalar nest).
*/
#include "transforms/graph_to_loop/lowering.h"

#include <string.h>

bool lower_row_apply(Lower *l, size_t rank, const bool *reduced,
                     GiltType *elem)
{
  if (rank == 0 || !lower_vectorizes(l, elem))
    return false;
  for (size_t d = 0; d < rank; d++)
    if (reduced[d] != (d == rank - 1))
      return false;
  return true;
}

void lower_row_init(Lower *l, LowerRow *r, size_t rank, GiltValue *const *at,
                    GiltValue *len)
{
  lower_lanes_init(l, &r->v, gilt_float_type_get(l->ctx, GILT_F32));
  r->rank = rank;
  r->len = len;
  for (size_t d = 0; d < rank; d++)
    r->idx[d] = at[d];
  GiltOp *def = gilt_value_get_defining_op(len);
  GiltAttr *n = def && loop_op_is(def, LOOP_OP_CONSTANT)
                    ? gilt_op_get_attr(def, "value")
                    : NULL;
  r->full = n && gilt_integer_attr_get_value(n) % LOWER_F32_LANES == 0;
  r->mask = NULL;
}

typedef struct RowLoop {
  LowerRow *r;
  LowerRowFn step;
  void *user;
} RowLoop;

static void chunk(Lower *l, GiltValue *j0, GiltValue *const *acc,
                  GiltValue **next, void *user)
{
  RowLoop *s = user;
  LowerRow *r = s->r;
  r->idx[r->rank - 1] = j0;
  r->mask = r->full ? NULL
                    : lower_lanes_mask(l, &r->v, lower_minus(l, r->len, j0));
  s->step(l, r, acc, next, s->user);
}

void lower_row_loop(Lower *l, LowerRow *r, size_t n, GiltValue *const *inits,
                    GiltValue **results, LowerRowFn step, void *user)
{
  RowLoop s = {r, step, user};
  GiltValue *zero = lower_index(l, 0);
  GiltValue *width = lower_index(l, LOWER_F32_LANES);
  lower_for(l, zero, r->len, width, n, inits, results, chunk, &s);
}

GiltValue *lower_row_load(Lower *l, const LowerRow *r, GiltValue *memref,
                          GiltValue *const *idx, GiltValue *passthru)
{
  if (!idx)
    idx = r->idx;
  if (!r->mask || !passthru)
    return lower_lanes_load(l, &r->v, r->mask, memref, idx);
  size_t rank = gilt_value_get_type(memref)->shaped.rank;
  GiltValue *ops[rank + 3];
  ops[0] = r->mask;
  ops[1] = passthru;
  ops[2] = memref;
  for (size_t i = 0; i < rank; i++)
    ops[3 + i] = idx[i];
  return lower_emit(l, LOOP_OP_MASKED_LOAD, r->v.type, rank + 3, ops);
}

void lower_row_store(Lower *l, const LowerRow *r, GiltValue *value,
                     GiltValue *memref)
{
  lower_lanes_store(l, &r->v, r->mask, value, memref, r->idx);
}

GiltValue *lower_row_combine(Lower *l, const char *kind, GiltValue *lanes)
{
  GiltType *t = gilt_value_get_type(lanes);
  GiltAttr *attr = gilt_string_attr_get(l->ctx, kind, strlen(kind));
  return lower_emit_attr(l, LOOP_OP_REDUCTION, t->shaped.elem, 1, &lanes,
                         "kind", attr);
}

GiltValue *lower_row_max_in_every_lane(Lower *l, const LowerRow *r,
                                       GiltValue *lanes)
{
  int32_t mask[LOWER_F32_LANES];
  GILT_ASSERT(r->v.width <= LOWER_F32_LANES &&
              (r->v.width & (r->v.width - 1)) == 0);
  for (int64_t half = r->v.width / 2; half >= 1; half /= 2) {
    for (int64_t i = 0; i < r->v.width; i++)
      mask[i] = (int32_t)(i ^ half);
    GiltValue *other = lower_lanes_shuffle(l, &r->v, lanes, lanes, mask);
    lanes = lower_keep_max(l, lanes, other);
  }
  return lanes;
}
