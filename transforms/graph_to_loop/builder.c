/*
** builder.c - the helpers graph-to-loop lowerings build loop IR with (the
** contract is in lowering.h): op creation at the rewriter's insertion
** point with the graph op's location, constants, conversions between
** element types with ONNX Cast's semantics, buffers, broadcasting indices,
** and loop nests whose bodies are callbacks.
**
** Every op goes through the conversion rewriter, so the driver sees it;
** nothing here checks what the verifier checks later.
*/
#include "transforms/graph_to_loop/lowering.h"

#include <stdarg.h>

#include <string.h>

/* ---- the op being lowered -------------------------------------------------- */

GiltValue *lower_operand(Lower *l, size_t i)
{
  if (i >= gilt_op_get_num_operands(l->op))
    return NULL;
  GiltValue *v = l->operands[i];
  return gilt_value_get_type(v)->kind == GILT_TYPE_MEMREF ? v : NULL;
}

GiltType *lower_result_type(Lower *l, size_t i)
{
  GiltType *t = gilt_value_get_type(gilt_op_get_result(l->op, i));
  return gilt_memref_type_get(l->ctx, t->shaped.rank, t->shaped.shape,
                              t->shaped.elem, NULL, NULL);
}

GiltStatus lower_replace(Lower *l, GiltValue *const *results)
{
  gilt_rewriter_replace_op(l->rw, l->op, results);
  return GILT_SUCCESS;
}

GiltStatus lower_error(Lower *l, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return gilt_op_emit_error(l->op, "cannot be lowered: %s", msg);
}

GiltType *lower_operand_elem(Lower *l, size_t i)
{
  return gilt_value_get_type(gilt_op_get_operand(l->op, i))->shaped.elem;
}

GiltType *lower_result_elem(Lower *l, size_t i)
{
  return gilt_value_get_type(gilt_op_get_result(l->op, i))->shaped.elem;
}

bool lower_is_float(GiltType *t)
{
  return t->kind == GILT_TYPE_FLOAT;
}

bool lower_is_unsigned(GiltType *t)
{
  return t->kind == GILT_TYPE_INTEGER &&
         (t->integer.sign == GILT_UNSIGNED || t->integer.width == 1);
}

/* ---- ops ------------------------------------------------------------------- */

static GiltOp *create(Lower *l, LoopOpId id, size_t num_results,
                      GiltType *const *types, size_t n,
                      GiltValue *const *operands, size_t num_attrs,
                      const GiltNamedAttr *attrs, size_t num_regions)
{
  GiltOpState st = gilt_op_state_get(loop_ops[id].name, l->loc);
  st.num_operands = n;
  st.operands = operands;
  st.num_results = num_results;
  st.result_types = types;
  st.num_attrs = num_attrs;
  st.attrs = attrs;
  st.num_regions = num_regions;
  GiltOp *op = gilt_rewriter_create_op(l->rw, &st);
  GILT_ASSERT(op); /* loop ops are registered and infer nothing */
  return op;
}

GiltValue *lower_emit_attr(Lower *l, LoopOpId id, GiltType *result, size_t n,
                           GiltValue *const *operands, const char *attr_name,
                           GiltAttr *attr)
{
  GiltNamedAttr a = {attr_name, attr};
  GiltOp *op = create(l, id, result ? 1 : 0, &result, n, operands,
                      attr ? 1 : 0, &a, 0);
  return result ? gilt_op_get_result(op, 0) : NULL;
}

GiltValue *lower_emit(Lower *l, LoopOpId id, GiltType *result, size_t n,
                      GiltValue *const *operands)
{
  return lower_emit_attr(l, id, result, n, operands, NULL, NULL);
}

GiltValue *lower_binary(Lower *l, LoopOpId id, GiltValue *a, GiltValue *b)
{
  GiltValue *ops[2] = {a, b};
  return lower_emit(l, id, gilt_value_get_type(a), 2, ops);
}

GiltValue *lower_unary(Lower *l, LoopOpId id, GiltValue *a)
{
  return lower_emit(l, id, gilt_value_get_type(a), 1, &a);
}

GiltType *lower_index_type(Lower *l)
{
  return gilt_index_type_get(l->ctx);
}

GiltType *lower_i1_type(Lower *l)
{
  return gilt_integer_type_get(l->ctx, 1, GILT_SIGNLESS);
}

GiltType *lower_i64_type(Lower *l)
{
  return gilt_integer_type_get(l->ctx, 64, GILT_SIGNLESS);
}

GiltType *lower_f64_type(Lower *l)
{
  return gilt_float_type_get(l->ctx, GILT_F64);
}

GiltValue *lower_int_constant(Lower *l, GiltType *t, int64_t v)
{
  return lower_emit_attr(l, LOOP_OP_CONSTANT, t, 0, NULL, "value",
                         gilt_integer_attr_get(t, v));
}

GiltValue *lower_index(Lower *l, int64_t v)
{
  return lower_int_constant(l, lower_index_type(l), v);
}

GiltValue *lower_constant(Lower *l, GiltType *t, double v)
{
  if (t->kind == GILT_TYPE_VECTOR) {
    GiltValue *lane = lower_constant(l, t->shaped.elem, v);
    return lower_emit(l, LOOP_OP_BROADCAST, t, 1, &lane);
  }
  if (t->kind == GILT_TYPE_FLOAT)
    return lower_emit_attr(l, LOOP_OP_CONSTANT, t, 0, NULL, "value",
                           gilt_float_attr_get(t, v));
  return lower_int_constant(l, t, (int64_t)v);
}

GiltValue *lower_constant_like(Lower *l, GiltValue *like, double v)
{
  return lower_constant(l, gilt_value_get_type(like), v);
}

GiltValue *lower_f64(Lower *l, double v)
{
  return lower_constant(l, lower_f64_type(l), v);
}

GiltValue *lower_cmp(Lower *l, const char *pred, GiltValue *a, GiltValue *b)
{
  GiltValue *ops[2] = {a, b};
  GiltType *t = gilt_value_get_type(a);
  return lower_emit_attr(l, loop_is_float_like(t) ? LOOP_OP_CMPF : LOOP_OP_CMPI,
                         loop_bool_like(t), 2, ops, "predicate",
                         gilt_string_attr_get(l->ctx, pred, strlen(pred)));
}

GiltValue *lower_select(Lower *l, GiltValue *c, GiltValue *a, GiltValue *b)
{
  GiltValue *ops[3] = {c, a, b};
  return lower_emit(l, LOOP_OP_SELECT, gilt_value_get_type(a), 3, ops);
}

/* Between integer types: widen by the source's signedness, narrow by
** keeping the low bits, relabel when only the signedness differs. */
static GiltValue *convert_int(Lower *l, GiltValue *v, GiltType *from,
                              GiltType *to)
{
  unsigned wf = gilt_type_get_bit_width(from), wt = gilt_type_get_bit_width(to);
  if (wf == 1 && wt > 1) /* a bool is 0 or 1, never -1 */
    return lower_emit(l, LOOP_OP_EXTUI, to, 1, &v);
  if (wt == 1) /* nonzero is true */
    return lower_cmp(l, "ne", v, lower_int_constant(l, from, 0));
  if (wt > wf)
    return lower_emit(l, lower_is_unsigned(from) ? LOOP_OP_EXTUI
                                                 : LOOP_OP_EXTSI,
                      to, 1, &v);
  if (wt < wf)
    return lower_emit(l, LOOP_OP_TRUNCI, to, 1, &v);
  return lower_emit(l, LOOP_OP_BITCAST, to, 1, &v);
}

/* index converts through i64, the integer it casts to and from. */
static GiltValue *convert_index(Lower *l, GiltValue *v, GiltType *to)
{
  GiltType *i64 = lower_i64_type(l);
  if (to->kind == GILT_TYPE_INDEX) {
    v = lower_convert(l, v, i64);
    return lower_emit(l, LOOP_OP_INDEX_CAST, to, 1, &v);
  }
  v = lower_emit(l, LOOP_OP_INDEX_CAST, i64, 1, &v);
  return lower_convert(l, v, to);
}

GiltValue *lower_convert(Lower *l, GiltValue *v, GiltType *to)
{
  GiltType *from = gilt_value_get_type(v);
  if (from == to)
    return v;
  if (from->kind == GILT_TYPE_INDEX || to->kind == GILT_TYPE_INDEX)
    return convert_index(l, v, to);
  bool ff = lower_is_float(from), ft = lower_is_float(to);
  if (!ff && !ft)
    return convert_int(l, v, from, to);
  if (ff && ft) {
    unsigned wf = gilt_type_get_bit_width(from);
    unsigned wt = gilt_type_get_bit_width(to);
    if (wf == wt) /* f16 <-> bf16: through f32, rounding once at the end */
      v = lower_emit(l, LOOP_OP_EXTF,
                     gilt_float_type_get(l->ctx, GILT_F32), 1, &v),
      from = gilt_value_get_type(v), wf = 32;
    if (from == to)
      return v;
    return lower_emit(l, wt > wf ? LOOP_OP_EXTF : LOOP_OP_TRUNCF, to, 1, &v);
  }
  if (ff) { /* float to integer: to bool is nonzero, else toward zero */
    if (gilt_type_get_bit_width(to) == 1)
      return lower_cmp(l, "une", v, lower_constant(l, from, 0));
    return lower_emit(l, lower_is_unsigned(to) ? LOOP_OP_FPTOUI
                                               : LOOP_OP_FPTOSI,
                      to, 1, &v);
  }
  return lower_emit(l, lower_is_unsigned(from) ? LOOP_OP_UITOFP
                                               : LOOP_OP_SITOFP,
                    to, 1, &v);
}

/* The float or integer op, picked by a's type. */
static GiltValue *arith(Lower *l, LoopOpId fop, LoopOpId iop, GiltValue *a,
                        GiltValue *b)
{
  return lower_binary(l, loop_is_float_like(gilt_value_get_type(a)) ? fop : iop,
                      a, b);
}

GiltValue *lower_plus(Lower *l, GiltValue *a, GiltValue *b)
{
  return arith(l, LOOP_OP_ADDF, LOOP_OP_ADDI, a, b);
}

GiltValue *lower_minus(Lower *l, GiltValue *a, GiltValue *b)
{
  return arith(l, LOOP_OP_SUBF, LOOP_OP_SUBI, a, b);
}

GiltValue *lower_times(Lower *l, GiltValue *a, GiltValue *b)
{
  return arith(l, LOOP_OP_MULF, LOOP_OP_MULI, a, b);
}

GiltValue *lower_divide(Lower *l, GiltValue *a, GiltValue *b)
{
  if (lower_is_unsigned(gilt_value_get_type(a)))
    return lower_binary(l, LOOP_OP_DIVUI, a, b);
  return arith(l, LOOP_OP_DIVF, LOOP_OP_DIVSI, a, b);
}

/* ---- buffers ------------------------------------------------------------------ */

GiltValue *lower_dim(Lower *l, GiltValue *memref, size_t i)
{
  GiltType *t = gilt_value_get_type(memref);
  if (t->shaped.shape[i] != GILT_DYNAMIC)
    return lower_index(l, t->shaped.shape[i]);
  GiltValue *ops[2] = {memref, lower_index(l, (int64_t)i)};
  return lower_emit(l, LOOP_OP_DIM, lower_index_type(l), 2, ops);
}

GiltValue *lower_reshaped(Lower *l, GiltValue *src, size_t rank,
                         const int64_t *shape, GiltValue *const *sizes)
{
  GiltType *t = gilt_memref_type_get(l->ctx, rank, shape,
                                     gilt_value_get_type(src)->shaped.elem,
                                     NULL, NULL);
  GiltValue *ops[GRAPH_MAX_RANK + 1];
  size_t n = 0;
  ops[n++] = src;
  for (size_t d = 0; d < rank; d++)
    if (shape[d] == GILT_DYNAMIC)
      ops[n++] = sizes[d];
  return lower_emit(l, LOOP_OP_RESHAPE, t, n, ops);
}

GiltValue *lower_block_pixels(Lower *l, GiltValue *m, GiltValue *const *dims,
                              int64_t pixels)
{
  GiltType *t = gilt_value_get_type(m);
  int64_t block = t->shaped.shape[4];
  int64_t shape[4] = {t->shaped.shape[0], t->shaped.shape[1], pixels, block};
  GiltValue *sizes[4] = {dims[0], dims[1], lower_index(l, pixels),
                         lower_index(l, block)};
  return lower_reshaped(l, m, 4, shape, sizes);
}

void lower_dims(Lower *l, GiltValue *memref, GiltValue **dims)
{
  GiltType *t = gilt_value_get_type(memref);
  for (size_t i = 0; i < t->shaped.rank; i++)
    dims[i] = lower_dim(l, memref, i);
}

GiltValue *lower_alloc(Lower *l, GiltType *type, GiltValue *const *sizes)
{
  GiltValue *dynamic[type->shaped.rank + 1];
  size_t n = 0;
  for (size_t i = 0; i < type->shaped.rank; i++)
    if (type->shaped.shape[i] == GILT_DYNAMIC)
      dynamic[n++] = sizes[i];
  return lower_emit(l, LOOP_OP_ALLOC, type, n, dynamic);
}

GiltValue *lower_alloc_result(Lower *l, size_t i, GiltValue *const *dims)
{
  return lower_alloc(l, lower_result_type(l, i), dims);
}

/* The operands of an access into ops (rank + 2 of them at most): the
** value stored, if any, then the buffer and its indices; their count. */
static size_t access_operands(GiltValue *value, GiltValue *memref,
                              GiltValue *const *indices, GiltValue **ops)
{
  size_t n = 0, rank = gilt_value_get_type(memref)->shaped.rank;
  if (value)
    ops[n++] = value;
  ops[n++] = memref;
  for (size_t i = 0; i < rank; i++)
    ops[n++] = indices[i];
  return n;
}

GiltValue *lower_load(Lower *l, GiltValue *memref, GiltValue *const *indices)
{
  GiltType *t = gilt_value_get_type(memref);
  GiltValue *ops[t->shaped.rank + 1];
  size_t n = access_operands(NULL, memref, indices, ops);
  return lower_emit(l, LOOP_OP_LOAD, t->shaped.elem, n, ops);
}

void lower_store(Lower *l, GiltValue *value, GiltValue *memref,
                 GiltValue *const *indices)
{
  GiltValue *ops[gilt_value_get_type(memref)->shaped.rank + 2];
  size_t n = access_operands(value, memref, indices, ops);
  lower_emit(l, LOOP_OP_STORE, NULL, n, ops);
}

void lower_prefetch(Lower *l, GiltValue *memref, GiltValue *const *indices,
                    int64_t locality)
{
  GiltValue *ops[gilt_value_get_type(memref)->shaped.rank + 1];
  size_t n = access_operands(NULL, memref, indices, ops);
  lower_emit_attr(l, LOOP_OP_PREFETCH, NULL, n, ops, "locality",
                  gilt_integer_attr_get(lower_i64_type(l), locality));
}

void lower_broadcast_indices(Lower *l, GiltValue *in, size_t out_rank,
                             GiltValue *const *ivs, GiltValue **indices)
{
  GiltType *t = gilt_value_get_type(in);
  size_t rank = t->shaped.rank, skip = out_rank - rank;
  for (size_t i = 0; i < rank; i++) {
    int64_t dim = t->shaped.shape[i];
    GiltValue *iv = ivs[skip + i];
    if (dim == 1) {
      indices[i] = lower_index(l, 0);
    } else if (dim == GILT_DYNAMIC) {
      GiltValue *size = lower_dim(l, in, i);
      GiltValue *one = lower_cmp(l, "eq", size, lower_index(l, 1));
      indices[i] = lower_select(l, one, lower_index(l, 0), iv);
    } else {
      indices[i] = iv;
    }
  }
}

typedef struct Fill {
  GiltValue *memref, *value;
} Fill;

static void fill_body(Lower *l, GiltValue *const *ivs, void *user)
{
  Fill *f = user;
  lower_store(l, f->value, f->memref, ivs);
}

void lower_fill(Lower *l, GiltValue *memref, GiltValue *value)
{
  GiltValue *dims[GRAPH_MAX_RANK];
  Fill f = {memref, value};
  lower_dims(l, memref, dims);
  lower_parallel(l, gilt_value_get_type(memref)->shaped.rank, dims, fill_body,
                 &f);
}

/* ---- loops ---------------------------------------------------------------------- */

/* A new block with `n` arguments of the given types, as region 0 of op,
** ending in an empty loop.yield; the insertion point moves before it. */
static GiltBlock *open_body(Lower *l, GiltRegion *region, size_t n,
                            GiltType *const *types)
{
  GiltBlock *block = gilt_block_create(l->ctx, n, types, NULL);
  gilt_region_append_block(region, block);
  GiltBuilder *b = gilt_rewriter_get_builder(l->rw);
  gilt_builder_set_insertion_point_to_end(b, block);
  return block;
}

/* Ends a body with loop.yield of these values and moves the insertion
** point after the op that owns it. */
static void close_body(Lower *l, GiltOp *owner, size_t n,
                       GiltValue *const *values)
{
  lower_emit(l, LOOP_OP_YIELD, NULL, n, values);
  gilt_builder_set_insertion_point_after(gilt_rewriter_get_builder(l->rw),
                                         owner);
}

bool lower_in_parallel(Lower *l)
{
  GiltBuilder *b = gilt_rewriter_get_builder(l->rw);
  GiltBlock *block = gilt_builder_get_insertion_block(b);
  for (GiltOp *op = gilt_block_get_parent_op(block); op;
       op = gilt_op_get_parent_op(op))
    if (loop_op_is(op, LOOP_OP_PARALLEL))
      return true;
  return false;
}

void lower_parallel_mapped(Lower *l, size_t rank, GiltValue *const *uppers,
                           const char *mapping, LowerBodyFn body, void *user)
{
  if (rank == 0) {
    body(l, NULL, user);
    return;
  }
  GiltValue *ops[3 * rank];
  GiltType *types[rank];
  for (size_t i = 0; i < rank; i++) {
    ops[i] = lower_index(l, 0);
    ops[rank + i] = uppers[i];
    ops[2 * rank + i] = lower_index(l, 1);
    types[i] = lower_index_type(l);
  }
  int32_t sizes[3] = {(int32_t)rank, (int32_t)rank, (int32_t)rank};
  GiltNamedAttr attrs[2] = {
      {"operandSegmentSizes",
       gilt_dense_array_attr_get(
           gilt_integer_type_get(l->ctx, 32, GILT_SIGNLESS), 3, sizes)},
      {"mapping", mapping ? gilt_string_attr_get(l->ctx, mapping,
                                                 strlen(mapping))
                          : NULL},
  };
  GiltOp *par = create(l, LOOP_OP_PARALLEL, 0, NULL, 3 * rank, ops,
                       mapping ? 2 : 1, attrs, 1);
  GiltBlock *block = open_body(l, gilt_op_get_region(par, 0), rank, types);
  GiltValue *ivs[rank];
  for (size_t i = 0; i < rank; i++)
    ivs[i] = gilt_block_get_argument(block, i);
  body(l, ivs, user);
  close_body(l, par, 0, NULL);
}

void lower_parallel(Lower *l, size_t rank, GiltValue *const *uppers,
                    LowerBodyFn body, void *user)
{
  lower_parallel_mapped(l, rank, uppers, NULL, body, user);
}

void lower_barrier(Lower *l)
{
  GiltOpState st = gilt_op_state_get("gpu.barrier", l->loc);
  GiltOp *barrier = gilt_rewriter_create_op(l->rw, &st);
  GILT_ASSERT(barrier); /* the gpu dialect is registered with graph-to-loop */
}

typedef struct NestState {
  size_t rank, depth;
  GiltValue *const *uppers;
  GiltValue **ivs;
  LowerBodyFn body;
  void *user;
} NestState;

static void nest_level(Lower *l, GiltValue *iv, GiltValue *const *iter,
                       GiltValue **next, void *user)
{
  (void)iter;
  (void)next;
  NestState *s = user;
  s->ivs[s->depth++] = iv;
  if (s->depth == s->rank)
    s->body(l, s->ivs, s->user);
  else
    lower_for_upto(l, s->uppers[s->depth], 0, NULL, NULL, nest_level, s);
  s->depth--;
}

void lower_nest(Lower *l, size_t rank, GiltValue *const *uppers,
                LowerBodyFn body, void *user)
{
  if (rank == 0) {
    body(l, NULL, user);
    return;
  }
  GiltValue *ivs[rank];
  NestState s = {rank, 0, uppers, ivs, body, user};
  lower_for_upto(l, uppers[0], 0, NULL, NULL, nest_level, &s);
}

void lower_for(Lower *l, GiltValue *lb, GiltValue *ub, GiltValue *step,
               size_t n, GiltValue *const *inits, GiltValue **results,
               LowerIterFn body, void *user)
{
  GiltValue *ops[3 + n];
  GiltType *types[1 + n];
  ops[0] = lb, ops[1] = ub, ops[2] = step;
  types[0] = lower_index_type(l);
  for (size_t i = 0; i < n; i++) {
    ops[3 + i] = inits[i];
    types[1 + i] = gilt_value_get_type(inits[i]);
  }
  GiltOp *loop = create(l, LOOP_OP_FOR, n, types + 1, 3 + n, ops, 0, NULL, 1);
  GiltBlock *block = open_body(l, gilt_op_get_region(loop, 0), 1 + n, types);
  GiltValue *iter[n + 1], *next[n + 1];
  for (size_t i = 0; i < n; i++)
    iter[i] = gilt_block_get_argument(block, 1 + i);
  body(l, gilt_block_get_argument(block, 0), iter, next, user);
  close_body(l, loop, n, next);
  for (size_t i = 0; i < n; i++)
    results[i] = gilt_op_get_result(loop, i);
}

void lower_for_upto(Lower *l, GiltValue *ub, size_t n,
                    GiltValue *const *inits, GiltValue **results,
                    LowerIterFn body, void *user)
{
  GiltValue *zero = lower_index(l, 0);
  lower_for(l, zero, ub, lower_index(l, 1), n, inits, results, body, user);
}

void lower_if(Lower *l, GiltValue *cond, LowerBodyFn then,
              LowerBodyFn otherwise, void *user)
{
  GiltOp *op = create(l, LOOP_OP_IF, 0, NULL, 1, &cond, 0, NULL, 2);
  open_body(l, gilt_op_get_region(op, 0), 0, NULL);
  then(l, NULL, user);
  close_body(l, op, 0, NULL);
  if (!otherwise)
    return;
  open_body(l, gilt_op_get_region(op, 1), 0, NULL);
  otherwise(l, NULL, user);
  close_body(l, op, 0, NULL);
}

GiltValue *lower_if_value(Lower *l, GiltValue *cond, GiltType *type,
                          LowerValueFn then, LowerValueFn otherwise,
                          void *user)
{
  GiltOp *op = create(l, LOOP_OP_IF, 1, &type, 1, &cond, 0, NULL, 2);
  open_body(l, gilt_op_get_region(op, 0), 0, NULL);
  GiltValue *v = then(l, user);
  close_body(l, op, 1, &v);
  open_body(l, gilt_op_get_region(op, 1), 0, NULL);
  v = otherwise(l, user);
  close_body(l, op, 1, &v);
  return gilt_op_get_result(op, 0);
}

/* ---- scalar operands ------------------------------------------------------------ */

GiltValue *lower_scalar_operand(Lower *l, size_t i, GiltType *to)
{
  GiltValue *in = lower_operand(l, i);
  size_t rank = gilt_value_get_type(in)->shaped.rank;
  GiltValue *zeros[GRAPH_MAX_RANK];
  for (size_t k = 0; k < rank; k++)
    zeros[k] = lower_index(l, 0);
  return lower_convert(l, lower_load(l, in, zeros), to);
}

/* ---- constant operands --------------------------------------------------------- */

GiltAttr *lower_value_constant(Lower *l, GiltValue *v)
{
  GiltOp *def = v ? gilt_value_get_defining_op(v) : NULL;
  /* Casts and reshapes keep the elements and their order. */
  while (def && ((gilt_op_get_num_operands(def) == 1 &&
                  strcmp(gilt_op_get_name(def),
                         "builtin.unrealized_conversion_cast") == 0) ||
                 loop_op_is(def, LOOP_OP_RESHAPE)))
    def = gilt_value_get_defining_op(gilt_op_get_operand(def, 0));
  if (graph_op_is(def, GRAPH_OP_CONSTANT))
    return graph_value_constant(gilt_op_get_result(def, 0));
  if (!loop_op_is(def, LOOP_OP_GET_GLOBAL))
    return NULL;
  GiltAttr *name = gilt_op_get_attr(def, "name");
  GiltOp *global =
      gilt_symbol_table_lookup(l->module, gilt_symbol_ref_attr_get_root(name));
  GiltAttr *value = global ? gilt_op_get_attr(global, "value") : NULL;
  size_t nbytes;
  if (!value || (value->kind != GILT_ATTR_DENSE_ELEMENTS &&
                 value->kind != GILT_ATTR_DENSE_RESOURCE) ||
      !gilt_dense_attr_get_data(value, &nbytes))
    return NULL;
  return value;
}

const void *lower_constant_f32_matrix(Lower *l, GiltValue *v)
{
  GiltType *t = gilt_value_get_type(v);
  if (t->shaped.rank != 2 ||
      t->shaped.elem != gilt_float_type_get(l->ctx, GILT_F32) ||
      t->shaped.shape[0] == GILT_DYNAMIC || t->shaped.shape[1] == GILT_DYNAMIC)
    return NULL;
  GiltAttr *value = lower_value_constant(l, v);
  if (!value || gilt_dense_attr_is_splat(value))
    return NULL;
  size_t nbytes;
  const void *data = gilt_dense_attr_get_data(value, &nbytes);
  int64_t count = t->shaped.shape[0] * t->shaped.shape[1];
  return nbytes == (size_t)count * sizeof(float) ? data : NULL;
}

bool lower_constant_ints(Lower *l, size_t i, int64_t *out, size_t max,
                         size_t *n)
{
  if (i >= gilt_op_get_num_operands(l->op))
    return false;
  GiltAttr *c = lower_value_constant(l, l->operands[i]);
  if (!c)
    c = lower_value_constant(l, gilt_op_get_operand(l->op, i));
  if (!c || lower_is_float(gilt_attr_get_type(c)->shaped.elem))
    return false;
  int64_t count = gilt_dense_attr_get_num_elements(c);
  if (count < 0 || (size_t)count > max)
    return false;
  for (int64_t k = 0; k < count; k++)
    out[k] = gilt_dense_attr_get_int(c, k);
  *n = (size_t)count;
  return true;
}

bool lower_constant_operand_int(Lower *l, size_t i, int64_t *out)
{
  size_t n;
  return lower_constant_ints(l, i, out, 1, &n) && n == 1;
}
