/*
** vector.c - one-dimensional vectors: loads and stores of consecutive
** elements through the element's address (llvm.masked.load/store for the
** masked forms), broadcast as insertelement + a zero shufflevector,
** create_mask as a comparison of the lane numbers with the size, and
** reductions. Integer reductions are llvm.vector.reduce.* intrinsics;
** float ones are a chain from lane 0, rounding each step, because that is
** the interpreter's order (an unordered tree would differ in the last
** bits), which also matches what LLVM's ordered reductions do.
*/
#include "transforms/loop_to_llvm/lowering.h"

#include <string.h>

static GiltType *vector_of(L2L *l, GiltType *t, GiltType *elem)
{
  return gilt_vector_type_get(l->ctx, 1, t->shaped.shape, elem);
}

/* The address of the first lane of a vector access: operands from
** `first` on are the memref then its indices. */
static GiltValue *lane_address(L2L *l, GiltOp *op, size_t first,
                               GiltType **memref)
{
  GiltValue *m = gilt_op_get_operand(op, first);
  *memref = gilt_value_get_type(m);
  size_t rank = (*memref)->shaped.rank;
  GiltValue *idx[rank + 1];
  for (size_t i = 0; i < rank; i++)
    idx[i] = l2l_value(l, gilt_op_get_operand(op, first + 1 + i));
  return l2l_element_address(l, *memref, l2l_value(l, m), idx);
}

static int64_t elem_align(GiltType *memref)
{
  return (int64_t)gilt_type_get_storage_size(memref->shaped.elem);
}

/* The access's vector type in memory (i1 lanes as i8). */
static GiltType *stored(L2L *l, GiltType *memref, GiltType *v)
{
  return vector_of(l, v, l2l_memory_type(l, memref->shaped.elem));
}

static GiltStatus lower_access(L2L *l, GiltOp *op, LoopOpId id)
{
  bool masked = id == LOOP_OP_MASKED_LOAD || id == LOOP_OP_MASKED_STORE;
  bool load = id == LOOP_OP_VECTOR_LOAD || id == LOOP_OP_MASKED_LOAD;
  GiltType *memref;
  GiltValue *addr = lane_address(l, op, masked ? 2 : load ? 0 : 1, &memref);
  GiltValue *mask = masked ? l2l_value(l, gilt_op_get_operand(op, 0)) : NULL;
  GiltValue *align = l2l_int(l, l->i32, elem_align(memref));
  if (load) {
    GiltType *t = l2l_type(l, gilt_value_get_type(gilt_op_get_result(op, 0)));
    GiltType *mt = stored(l, memref, t);
    GiltValue *r;
    if (masked) {
      GiltValue *pass = l2l_value(l, gilt_op_get_operand(op, 1));
      GiltValue *args[4] = {addr, align, mask,
                            l2l_cast(l, LLVM_OP_ZEXT, pass, mt)};
      r = l2l_intrinsic(l, "llvm.masked.load", mt, 4, args);
    } else {
      r = l2l_load(l, mt, addr, elem_align(memref));
    }
    l2l_map(l, gilt_op_get_result(op, 0), l2l_cast(l, LLVM_OP_TRUNC, r, t));
    return GILT_SUCCESS;
  }
  GiltValue *v = l2l_value(l, gilt_op_get_operand(op, masked ? 1 : 0));
  v = l2l_cast(l, LLVM_OP_ZEXT, v, stored(l, memref, gilt_value_get_type(v)));
  if (masked) {
    GiltValue *args[4] = {v, addr, align, mask};
    l2l_intrinsic(l, "llvm.masked.store", NULL, 4, args);
  } else {
    l2l_store(l, v, addr, elem_align(memref));
  }
  return GILT_SUCCESS;
}

static GiltValue *broadcast(L2L *l, GiltValue *scalar, GiltType *t)
{
  GiltValue *ops[3] = {l2l_poison(l, t), scalar, l2l_i64(l, 0)};
  GiltValue *one = l2l_emit(l, LLVM_OP_INSERTELEMENT, t, 3, ops);
  int64_t n = t->shaped.shape[0];
  int32_t zeros[n + 1];
  memset(zeros, 0, sizeof zeros);
  GiltValue *pair[2] = {one, one};
  return l2l_emit_attr(l, LLVM_OP_SHUFFLEVECTOR, t, 2, pair, "mask",
                       gilt_dense_array_attr_get(l->i32, (size_t)n, zeros));
}

/* The lanes below `size` (an index): the size clamped to [0, n] and
** compared as i32, which AVX2 does in two compares of 8 lanes where i64
** lanes took four of 4 and three packs to narrow the result; the clamp
** keeps the truncation exact. */
static GiltValue *create_mask(L2L *l, GiltValue *size, GiltType *t)
{
  int64_t n = t->shaped.shape[0];
  int32_t steps[n + 1];
  for (int64_t i = 0; i < n; i++)
    steps[i] = (int32_t)i;
  GiltType *it = vector_of(l, t, l->i32);
  GiltAttr *value = gilt_dense_elements_attr_get(it, steps, (size_t)n * 4);
  GiltValue *lanes =
      l2l_emit_attr(l, LLVM_OP_CONSTANT, it, 0, NULL, "value", value);
  GiltValue *low[2] = {size, l2l_i64(l, 0)};
  GiltValue *clamped = l2l_intrinsic(l, "llvm.smax", l->i64, 2, low);
  GiltValue *high[2] = {clamped, l2l_i64(l, n)};
  clamped = l2l_intrinsic(l, "llvm.smin", l->i64, 2, high);
  GiltValue *narrow = l2l_cast(l, LLVM_OP_TRUNC, clamped, l->i32);
  return l2l_icmp(l, "slt", lanes, broadcast(l, narrow, it));
}

/* ---- reductions ------------------------------------------------------------------ */

static GiltValue *reduce_floats(L2L *l, const char *kind, GiltValue *v)
{
  GiltType *t = gilt_value_get_type(v), *elem = t->shaped.elem;
  bool small = gilt_type_get_bit_width(elem) == 16;
  GiltType *work = small ? l->f32 : elem;
  GiltValue *acc = NULL;
  for (int64_t i = 0; i < t->shaped.shape[0]; i++) {
    GiltValue *ops[2] = {v, l2l_i64(l, i)};
    GiltValue *x = l2l_emit(l, LLVM_OP_EXTRACTELEMENT, elem, 2, ops);
    x = l2l_cast(l, LLVM_OP_FPEXT, x, work);
    if (!acc) {
      acc = x;
      continue;
    }
    GiltValue *pair[2] = {acc, x};
    if (strcmp(kind, "add") == 0)
      acc = l2l_binary(l, LLVM_OP_FADD, acc, x);
    else if (strcmp(kind, "mul") == 0)
      acc = l2l_binary(l, LLVM_OP_FMUL, acc, x);
    else
      acc = l2l_intrinsic(l, strcmp(kind, "minimumf") == 0 ? "llvm.minimum"
                                                           : "llvm.maximum",
                          work, 2, pair);
    if (small) /* round each step, as the interpreter */
      acc = l2l_cast(l, LLVM_OP_FPEXT, l2l_cast(l, LLVM_OP_FPTRUNC, acc, elem),
                     work);
  }
  return l2l_cast(l, LLVM_OP_FPTRUNC, acc, elem);
}

static GiltValue *reduce_ints(L2L *l, const char *kind, GiltValue *v)
{
  static const char *const kinds[][2] = {
      {"add", "add"},   {"mul", "mul"},   {"minsi", "smin"}, {"maxsi", "smax"},
      {"minui", "umin"}, {"maxui", "umax"}, {"and", "and"},  {"or", "or"},
      {"xor", "xor"}};
  const char *op = "add";
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (strcmp(kind, kinds[i][0]) == 0)
      op = kinds[i][1];
  char name[40];
  snprintf(name, sizeof name, "llvm.vector.reduce.%s", op);
  return l2l_intrinsic(l, name, gilt_value_get_type(v)->shaped.elem, 1, &v);
}

GiltStatus l2l_lower_vector(L2L *l, GiltOp *op)
{
  LoopOpId id = loop_op_id(op);
  GiltValue *r = NULL;
  GiltType *t = gilt_op_get_num_results(op)
                    ? l2l_type(l, gilt_value_get_type(gilt_op_get_result(op, 0)))
                    : NULL;
  GiltValue *a = gilt_op_get_num_operands(op)
                     ? l2l_value(l, gilt_op_get_operand(op, 0))
                     : NULL;
  switch (id) {
  case LOOP_OP_CREATE_MASK: r = create_mask(l, a, t); break;
  case LOOP_OP_BROADCAST: r = broadcast(l, a, t); break;
  case LOOP_OP_EXTRACT: {
    GiltValue *ops[2] = {a, l2l_value(l, gilt_op_get_operand(op, 1))};
    r = l2l_emit(l, LLVM_OP_EXTRACTELEMENT, t, 2, ops);
    break;
  }
  case LOOP_OP_INSERT: {
    GiltValue *ops[3] = {l2l_value(l, gilt_op_get_operand(op, 1)), a,
                         l2l_value(l, gilt_op_get_operand(op, 2))};
    r = l2l_emit(l, LLVM_OP_INSERTELEMENT, t, 3, ops);
    break;
  }
  case LOOP_OP_SHUFFLE: {
    GiltValue *ops[2] = {a, l2l_value(l, gilt_op_get_operand(op, 1))};
    r = l2l_emit_attr(l, LLVM_OP_SHUFFLEVECTOR, t, 2, ops, "mask",
                      gilt_op_get_attr(op, "mask"));
    break;
  }
  case LOOP_OP_REDUCTION: {
    const char *kind =
        gilt_string_attr_get_value(gilt_op_get_attr(op, "kind"), NULL);
    r = t->kind == GILT_TYPE_FLOAT ? reduce_floats(l, kind, a)
                                   : reduce_ints(l, kind, a);
    break;
  }
  default:
    return lower_access(l, op, id);
  }
  l2l_map(l, gilt_op_get_result(op, 0), r);
  return GILT_SUCCESS;
}
