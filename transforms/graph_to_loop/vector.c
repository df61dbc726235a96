/*
** vector.c - the lane helpers the contraction lowerings (matmul.c,
** conv.c) write their inner loops with: one builder serves a vector width
** of 16 lanes (f32) and a width of 1, where the "vector" is a plain scalar
** and a masked access is an ordinary load or store. A nest written against
** these helpers is therefore vectorized for f32 and scalar for every other
** element type (f16, f64, integers), without a second copy of the nest.
**
** Integers multiply-accumulate with muli and addi (wrapping, as ONNX's
** integer MatMul and ConvInteger do in their accumulator type).
*/
#include "transforms/graph_to_loop/lowering.h"

#include "transforms/graph_to_loop/indexing.h"

bool lower_vectorizes(const Lower *l, GiltType *elem)
{
  return l->register_vectors > 0 && lower_is_float(elem) &&
         gilt_float_type_get_kind(elem) == GILT_F32;
}

int64_t lower_thread_tile(const Lower *l, int64_t extent)
{
  if (l->register_vectors > 0)
    return 1;
  if (extent == GILT_DYNAMIC || extent > LOWER_THREAD_TILE)
    return LOWER_THREAD_TILE;
  return extent > 1 ? extent : 1;
}

int64_t lower_lanes_width(const Lower *l, GiltType *elem)
{
  return lower_vectorizes(l, elem) ? LOWER_F32_LANES : 1;
}

bool lower_block_vectorizes(const Lower *l, GiltType *elem, int64_t block)
{
  return lower_lanes_width(l, elem) == LOWER_F32_LANES &&
         (block == LOWER_F32_LANES || block == LOWER_F32_LANES / 2);
}

int64_t lower_vectors_in_16(const Lower *l, int64_t lanes)
{
  return lanes < l->register_lanes ? 1 : LOWER_F32_LANES / lanes;
}

void lower_lanes_init(Lower *l, LowerLanes *v, GiltType *elem)
{
  lower_lanes_init_width(l, v, elem, lower_lanes_width(l, elem));
}

void lower_lanes_init_width(Lower *l, LowerLanes *v, GiltType *elem,
                            int64_t width)
{
  v->elem = elem;
  v->width = width;
  v->type = elem;
  v->mask_type = NULL;
  if (v->width > 1) {
    int64_t w = v->width;
    v->type = gilt_vector_type_get(l->ctx, 1, &w, elem);
    v->mask_type = gilt_vector_type_get(l->ctx, 1, &w, lower_i1_type(l));
  }
  v->zero = NULL;
  v->zero = lower_lanes_splat(l, v, lower_constant(l, elem, 0));
}

GiltValue *lower_lanes_splat(Lower *l, const LowerLanes *v, GiltValue *x)
{
  if (v->width == 1)
    return x;
  return lower_emit(l, LOOP_OP_BROADCAST, v->type, 1, &x);
}

GiltValue *lower_lanes_zero(const LowerLanes *v)
{
  return v->zero;
}

GiltValue *lower_lanes_mask(Lower *l, const LowerLanes *v, GiltValue *left)
{
  if (v->width == 1)
    return NULL;
  return lower_emit(l, LOOP_OP_CREATE_MASK, v->mask_type, 1, &left);
}

GiltValue *lower_lanes_mask_all(Lower *l, const LowerLanes *v,
                               GiltValue *cond)
{
  return lower_lanes_mask(
      l, v, ix_mul(l, ix_one_if(l, cond), lower_index(l, v->width)));
}

GiltValue *lower_lanes_load(Lower *l, const LowerLanes *v, GiltValue *mask,
                            GiltValue *memref, GiltValue *const *indices)
{
  if (v->width == 1)
    return lower_load(l, memref, indices);
  size_t rank = gilt_value_get_type(memref)->shaped.rank;
  GiltValue *ops[rank + 3];
  size_t n = 0;
  if (mask) {
    ops[n++] = mask;
    ops[n++] = v->zero;
  }
  ops[n++] = memref;
  for (size_t i = 0; i < rank; i++)
    ops[n++] = indices[i];
  return lower_emit(l, mask ? LOOP_OP_MASKED_LOAD : LOOP_OP_VECTOR_LOAD,
                    v->type, n, ops);
}

/* A vector store, masked or not (mask NULL). */
static void emit_store(Lower *l, GiltValue *mask, GiltValue *value,
                       GiltValue *memref, GiltValue *const *indices)
{
  size_t rank = gilt_value_get_type(memref)->shaped.rank;
  GiltValue *ops[rank + 3];
  size_t n = 0;
  if (mask)
    ops[n++] = mask;
  ops[n++] = value;
  ops[n++] = memref;
  for (size_t i = 0; i < rank; i++)
    ops[n++] = indices[i];
  lower_emit(l, mask ? LOOP_OP_MASKED_STORE : LOOP_OP_VECTOR_STORE, NULL, n,
             ops);
}

typedef struct SplitStore {
  GiltValue *mask, *value, *memref;
  GiltValue *const *indices;
} SplitStore;

static void store_whole(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  SplitStore *s = user;
  emit_store(l, NULL, s->value, s->memref, s->indices);
}

static void store_masked(Lower *l, GiltValue *const *ivs, void *user)
{
  (void)ivs;
  SplitStore *s = user;
  emit_store(l, s->mask, s->value, s->memref, s->indices);
}

/* A store masked to the lanes below a count (loop.create_mask) goes
** whole when the count covers every lane, which it does everywhere but
** at the ends of rows: AVX2's masked store (vmaskmovps) takes a Zen 3 as
** long as about a dozen plain ones, and the compare and branch cost
** nearly nothing where AVX-512 masks stores for free. */
void lower_lanes_store(Lower *l, const LowerLanes *v, GiltValue *mask,
                       GiltValue *value, GiltValue *memref,
                       GiltValue *const *indices)
{
  if (v->width == 1) {
    lower_store(l, value, memref, indices);
    return;
  }
  GiltOp *counted = mask ? gilt_value_get_defining_op(mask) : NULL;
  if (!counted || !loop_op_is(counted, LOOP_OP_CREATE_MASK)) {
    emit_store(l, mask, value, memref, indices);
    return;
  }
  SplitStore s = {mask, value, memref, indices};
  GiltValue *whole = lower_cmp(l, "sge", gilt_op_get_operand(counted, 0),
                               lower_index(l, v->width));
  lower_if(l, whole, store_whole, store_masked, &s);
}

GiltValue *lower_lanes_fma(Lower *l, GiltValue *a, GiltValue *b, GiltValue *c)
{
  if (loop_is_float_like(gilt_value_get_type(a))) {
    GiltValue *ops[3] = {a, b, c};
    return lower_emit(l, LOOP_OP_FMA, gilt_value_get_type(a), 3, ops);
  }
  return lower_binary(l, LOOP_OP_ADDI, lower_binary(l, LOOP_OP_MULI, a, b), c);
}

GiltValue *lower_lanes_add(Lower *l, GiltValue *a, GiltValue *b)
{
  bool f = loop_is_float_like(gilt_value_get_type(a));
  return lower_binary(l, f ? LOOP_OP_ADDF : LOOP_OP_ADDI, a, b);
}

GiltValue *lower_lanes_shuffle(Lower *l, const LowerLanes *v, GiltValue *a,
                               GiltValue *b, const int32_t *mask)
{
  GiltType *i32 = gilt_integer_type_get(l->ctx, 32, GILT_SIGNLESS);
  GiltValue *ops[2] = {a, b};
  return lower_emit_attr(l, LOOP_OP_SHUFFLE, v->type, 2, ops, "mask",
                         gilt_dense_array_attr_get(i32, (size_t)v->width,
                                                   mask));
}
