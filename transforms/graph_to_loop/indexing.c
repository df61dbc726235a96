/*
** indexing.c - the helpers the data-movement lowerings share (contract in
** indexing.h): index arithmetic, integer operands read at compile time or
** loaded at run time, run-time checks, and the nest that computes each
** result element from its indices.
**
** Not here: the loop builder itself (builder.c), which every family uses.
*/
#include "transforms/graph_to_loop/indexing.h"

#include <stdio.h>
#include <string.h>

/* ---- index arithmetic ------------------------------------------------------- */

GiltValue *ix_add(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_binary(l, LOOP_OP_ADDI, a, b);
}

GiltValue *ix_sub(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_binary(l, LOOP_OP_SUBI, a, b);
}

GiltValue *ix_mul(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_binary(l, LOOP_OP_MULI, a, b);
}

GiltValue *ix_div(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_binary(l, LOOP_OP_DIVSI, a, b);
}

GiltValue *ix_rem(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_binary(l, LOOP_OP_REMSI, a, b);
}

GiltValue *ix_min(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_binary(l, LOOP_OP_MINSI, a, b);
}

GiltValue *ix_max(Lower *l, GiltValue *a, GiltValue *b)
{
  return lower_binary(l, LOOP_OP_MAXSI, a, b);
}

/* ---- checked size arithmetic ---------------------------------------------- */

static const char size_overflows[] = "the result's size overflows";

/* Whether v is a loop.constant, and its value. */
static bool known_index(GiltValue *v, int64_t *out)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  if (!loop_op_is(def, LOOP_OP_CONSTANT))
    return false;
  GiltAttr *a = gilt_op_get_attr(def, "value");
  if (!a || gilt_attr_get_kind(a) != GILT_ATTR_INTEGER)
    return false;
  *out = gilt_integer_attr_get_value(a);
  return true;
}

/* The op `id` of a and b, checked by `fits` unless both are constants,
** whose exact result `exact` gives. */
static GiltValue *checked(Lower *l, LoopOpId id, GiltValue *a, GiltValue *b,
                          bool (*exact)(int64_t, int64_t, int64_t *),
                          GiltValue *(*fits)(Lower *, GiltValue *,
                                             GiltValue *))
{
  int64_t x, y, r;
  if (known_index(a, &x) && known_index(b, &y) && exact(x, y, &r))
    return lower_index(l, r);
  lower_assert(l, fits(l, a, b), size_overflows);
  return lower_binary(l, id, a, b);
}

static bool exact_mul(int64_t a, int64_t b, int64_t *r)
{
  return !__builtin_mul_overflow(a, b, r);
}

static bool exact_add(int64_t a, int64_t b, int64_t *r)
{
  return !__builtin_add_overflow(a, b, r);
}

static bool exact_sub(int64_t a, int64_t b, int64_t *r)
{
  return !__builtin_sub_overflow(a, b, r);
}

/* a == 0 || MIN / a <= b <= MAX / a, for a >= 0 (the divisor made 1 where
** a is 0, so that no lane divides by zero). */
static GiltValue *mul_fits(Lower *l, GiltValue *a, GiltValue *b)
{
  GiltValue *zero = lower_index(l, 0);
  GiltValue *a_is_zero = lower_cmp(l, "eq", a, zero);
  GiltValue *d = lower_select(l, a_is_zero, lower_index(l, 1), a);
  GiltValue *hi = ix_div(l, lower_index(l, INT64_MAX), d);
  GiltValue *lo = ix_div(l, lower_index(l, INT64_MIN), d);
  GiltValue *in = lower_binary(l, LOOP_OP_ANDI, lower_cmp(l, "sle", b, hi),
                               lower_cmp(l, "sge", b, lo));
  return lower_binary(l, LOOP_OP_ORI, a_is_zero, in);
}

/* b < 0 ? a >= MIN - b : a <= MAX - b (each side computed without
** overflow where it is chosen). */
static GiltValue *add_fits(Lower *l, GiltValue *a, GiltValue *b)
{
  GiltValue *neg = lower_cmp(l, "slt", b, lower_index(l, 0));
  GiltValue *down = lower_cmp(l, "sge", a,
                              ix_sub(l, lower_index(l, INT64_MIN), b));
  GiltValue *up = lower_cmp(l, "sle", a,
                            ix_sub(l, lower_index(l, INT64_MAX), b));
  return lower_select(l, neg, down, up);
}

/* b < 0 ? a <= MAX + b : a >= MIN + b (each side computed without
** overflow where it is chosen). */
static GiltValue *sub_fits(Lower *l, GiltValue *a, GiltValue *b)
{
  GiltValue *neg = lower_cmp(l, "slt", b, lower_index(l, 0));
  GiltValue *up = lower_cmp(l, "sle", a,
                            ix_add(l, lower_index(l, INT64_MAX), b));
  GiltValue *down = lower_cmp(l, "sge", a,
                              ix_add(l, lower_index(l, INT64_MIN), b));
  return lower_select(l, neg, up, down);
}

GiltValue *ix_mul_size(Lower *l, GiltValue *a, GiltValue *b)
{
  return checked(l, LOOP_OP_MULI, a, b, exact_mul, mul_fits);
}

GiltValue *ix_add_size(Lower *l, GiltValue *a, GiltValue *b)
{
  return checked(l, LOOP_OP_ADDI, a, b, exact_add, add_fits);
}

GiltValue *ix_sub_size(Lower *l, GiltValue *a, GiltValue *b)
{
  return checked(l, LOOP_OP_SUBI, a, b, exact_sub, sub_fits);
}

GiltValue *ix_product_size(Lower *l, GiltValue *const *dims, size_t first,
                           size_t last)
{
  GiltValue *p = lower_index(l, 1);
  for (size_t i = first; i < last; i++)
    p = ix_mul_size(l, p, dims[i]);
  return p;
}

void lower_assert_nonzero(Lower *l, GiltValue *v, const char *what)
{
  lower_assert(l, lower_cmp(l, "ne", v, lower_constant_like(l, v, 0)), what);
}

GiltValue *ix_in_range(Lower *l, GiltValue *v, GiltValue *lo, GiltValue *hi)
{
  GiltValue *above = lower_cmp(l, "sge", v, lo);
  GiltValue *below = lower_cmp(l, "slt", v, hi);
  return lower_binary(l, LOOP_OP_ANDI, above, below);
}

GiltValue *ix_clamp_into(Lower *l, GiltValue *p, GiltValue *n,
                         GiltValue **inside)
{
  GiltValue *zero = lower_index(l, 0);
  if (inside)
    *inside = ix_in_range(l, p, zero, n);
  GiltValue *last = ix_sub(l, n, lower_index(l, 1));
  return ix_max(l, zero, ix_min(l, p, last));
}

void ix_tile_positions(Lower *l, GiltValue *first, int64_t count,
                       GiltValue *size, GiltValue **at)
{
  GiltValue *last = count > 1 ? ix_sub(l, size, lower_index(l, 1)) : NULL;
  at[0] = first;
  for (int64_t i = 1; i < count; i++)
    at[i] = ix_min(l, ix_add(l, first, lower_index(l, i)), last);
}

GiltValue *ix_wrap_negative(Lower *l, GiltValue *v, GiltValue *size)
{
  GiltValue *neg = lower_cmp(l, "slt", v, lower_index(l, 0));
  return lower_select(l, neg, ix_add(l, v, size), v);
}

GiltValue *ix_one_if(Lower *l, GiltValue *cond)
{
  GiltValue *one = lower_index(l, 1);
  return lower_select(l, cond, one, lower_index(l, 0));
}

GiltValue *ix_product(Lower *l, GiltValue *const *dims, size_t first,
                      size_t last)
{
  GiltValue *p = lower_index(l, 1);
  for (size_t i = first; i < last; i++)
    p = ix_mul(l, p, dims[i]);
  return p;
}

/* ---- operands -------------------------------------------------------------------- */

GiltValue *lower_load_index_at(Lower *l, GiltValue *buf,
                               GiltValue *const *indices)
{
  GiltValue *v = lower_load(l, buf, indices);
  GiltType *t = gilt_value_get_type(v);
  GiltType *i64 = lower_i64_type(l);
  if (lower_is_float(t) || lower_is_unsigned(t) ||
      gilt_type_get_bit_width(t) != 64)
    v = lower_convert(l, v, i64);
  else if (t != i64)
    v = lower_emit(l, LOOP_OP_BITCAST, i64, 1, &v);
  return lower_emit(l, LOOP_OP_INDEX_CAST, lower_index_type(l), 1, &v);
}

GiltValue *lower_load_index(Lower *l, GiltValue *buf, int64_t k)
{
  GiltAttr *c = lower_value_constant(l, buf);
  if (c && !lower_is_float(gilt_attr_get_type(c)->shaped.elem) &&
      k < gilt_dense_attr_get_num_elements(c)) /* folds what follows */
    return lower_index(l, gilt_dense_attr_get_int(c, k));
  GiltType *t = gilt_value_get_type(buf);
  GiltValue *idx[GRAPH_MAX_RANK];
  for (size_t d = t->shaped.rank; d-- > 0;) {
    int64_t size = t->shaped.shape[d];
    int64_t at = size > 0 ? k % size : k;
    idx[d] = lower_index(l, at);
    k = size > 0 ? k / size : 0;
  }
  return lower_load_index_at(l, buf, idx);
}

GiltValue *lower_load_first(Lower *l, GiltValue *buf)
{
  GiltValue *zeros[GRAPH_MAX_RANK];
  for (size_t d = 0; d < gilt_value_get_type(buf)->shaped.rank; d++)
    zeros[d] = lower_index(l, 0);
  return lower_load(l, buf, zeros);
}

int64_t lower_static_length(GiltValue *buf)
{
  return gilt_shaped_type_get_num_elements(gilt_value_get_type(buf));
}

bool lower_axis(Lower *l, int64_t axis, size_t rank, size_t *out)
{
  int64_t a;
  if (!graph_normalize_axis(axis, rank, &a)) {
    lower_error(l, "axis %lld is out of range for rank %zu", (long long)axis,
                rank);
    return false;
  }
  *out = (size_t)a;
  return true;
}

/* ---- checks and buffers -------------------------------------------------------- */

void lower_assert(Lower *l, GiltValue *cond, const char *what)
{
  char msg[256];
  snprintf(msg, sizeof msg, "'%s': %s", gilt_op_get_name(l->op), what);
  lower_emit_attr(l, LOOP_OP_ASSERT, NULL, 1, &cond, "message",
                  gilt_string_attr_get(l->ctx, msg, strlen(msg)));
}

GiltValue *lower_contiguous(Lower *l, GiltValue *buf)
{
  GiltType *t = gilt_value_get_type(buf);
  if (loop_memref_is_contiguous(t))
    return buf;
  GiltValue *dims[GRAPH_MAX_RANK];
  lower_dims(l, buf, dims);
  GiltType *dense = gilt_memref_type_get(l->ctx, t->shaped.rank,
                                         t->shaped.shape, t->shaped.elem,
                                         NULL, NULL);
  GiltValue *copy = lower_alloc(l, dense, dims);
  GiltValue *ops[2] = {buf, copy};
  lower_emit(l, LOOP_OP_COPY, NULL, 2, ops);
  return copy;
}

void lower_result_dims(Lower *l, size_t i, GiltValue *const *computed,
                       GiltValue **dims)
{
  GiltType *t = lower_result_type(l, i);
  for (size_t d = 0; d < t->shaped.rank; d++)
    dims[d] = t->shaped.shape[d] != GILT_DYNAMIC
                  ? lower_index(l, t->shaped.shape[d])
                  : computed[d];
}

/* ---- generating a result ---------------------------------------------------------- */

typedef struct Generate {
  GiltValue *out;
  LowerElementFn fn;
  void *user;
} Generate;

static void generate_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Generate *g = user;
  lower_store(l, g->fn(l, ivs, g->user), g->out, ivs);
}

GiltValue *lower_generate(Lower *l, size_t i, GiltValue *const *dims,
                          LowerElementFn fn, void *user)
{
  GiltType *t = lower_result_type(l, i);
  GiltValue *sizes[GRAPH_MAX_RANK];
  lower_result_dims(l, i, dims, sizes);
  Generate g = {lower_alloc(l, t, sizes), fn, user};
  lower_parallel(l, t->shaped.rank, sizes, generate_body, &g);
  return g.out;
}

typedef struct LoadOr {
  GiltValue *in, *outside;
  GiltValue *const *indices;
} LoadOr;

static GiltValue *load_inside(Lower *l, void *user)
{
  LoadOr *s = user;
  return lower_load(l, s->in, s->indices);
}

static GiltValue *give_outside(Lower *l, void *user)
{
  (void)l;
  return ((LoadOr *)user)->outside;
}

GiltValue *lower_load_or(Lower *l, GiltValue *in, GiltValue *const *indices,
                         GiltValue *outside)
{
  size_t rank = gilt_value_get_type(in)->shaped.rank;
  GiltValue *inside = lower_int_constant(l, lower_i1_type(l), 1);
  for (size_t d = 0; d < rank; d++) {
    GiltValue *zero = lower_index(l, 0), *dim = lower_dim(l, in, d);
    GiltValue *in_dim = ix_in_range(l, indices[d], zero, dim);
    inside = lower_binary(l, LOOP_OP_ANDI, inside, in_dim);
  }
  LoadOr s = {in, outside, indices};
  return lower_if_value(l, inside, gilt_value_get_type(outside), load_inside,
                        give_outside, &s);
}
