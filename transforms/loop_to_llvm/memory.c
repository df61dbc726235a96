/*
** memory.c - buffers as descriptors: a memref is the struct {data,
** offset, sizes, strides} in SSA values, and element (i, j, ...) lies at
** data[offset + i * strides[0] + j * strides[1] + ...] (jit/abi.h's
** GiltMemRefDesc, MLIR's strided memref). Allocation calls the runtime
** (gilt_rt_alloc, failing the run when it returns NULL), views (subview,
** reshape, view) build new descriptors over the same data, copy is a loop
** nest.
**
** Weights: a loop.global becomes an llvm.global of the same name whose
** `type` is the element type in memory and whose `value` is the dense
** data, shape included; it is `constant`, aligned to 64 bytes and has no
** visibility (a symbol of the module). This keeps both choices open to
** the translation: declare it external and let the JIT define the symbol
** at an aligned copy of the data, or define it from `value` (an object
** file). The string globals of emit.c are different: private, and always
** defined from their value.
**
** In a GPU kernel (device mode) the only buffers allocated are the
** block's shared-memory tiles: see lower_shared_alloc.
*/
#include "transforms/loop_to_llvm/lowering.h"

#include <stdio.h>
#include <string.h>

#include "ir/support/alloc.h"

GiltType *l2l_descriptor_type(L2L *l, size_t rank)
{
  GiltType *fields[2 + 2 * rank];
  fields[0] = l->ptr;
  for (size_t i = 1; i < 2 + 2 * rank; i++)
    fields[i] = l->i64;
  return llvm_struct_type(l->ctx, 2 + 2 * rank, fields);
}

static size_t rank_of(GiltValue *memref)
{
  return gilt_value_get_type(memref)->shaped.rank;
}

GiltValue *l2l_descriptor(L2L *l, size_t rank, GiltValue *data,
                          GiltValue *offset, GiltValue *const *sizes,
                          GiltValue *const *strides)
{
  GiltValue *d = l2l_poison(l, l2l_descriptor_type(l, rank));
  d = l2l_insert(l, d, data, L2L_DATA);
  d = l2l_insert(l, d, offset, L2L_OFFSET);
  for (size_t i = 0; i < rank; i++) {
    d = l2l_insert(l, d, sizes[i], L2L_SIZE(rank, i));
    d = l2l_insert(l, d, strides[i], L2L_STRIDE(rank, i));
  }
  return d;
}

/* Row-major strides of `sizes`; returns the element count. */
static GiltValue *row_major(L2L *l, size_t rank, GiltValue *const *sizes,
                            GiltValue **strides)
{
  GiltValue *count = l2l_i64(l, 1);
  for (size_t i = rank; i-- > 0;) {
    strides[i] = count;
    count = l2l_binary(l, LLVM_OP_MUL, count, sizes[i]);
  }
  return count;
}

void l2l_type_sizes(L2L *l, GiltType *t, GiltValue *const *dynamic,
                    GiltValue **sizes)
{
  size_t next = 0;
  for (size_t i = 0; i < t->shaped.rank; i++)
    sizes[i] = t->shaped.shape[i] == GILT_DYNAMIC
                   ? dynamic[next++]
                   : l2l_i64(l, t->shaped.shape[i]);
}

GiltValue *l2l_element_address(L2L *l, GiltType *memref, GiltValue *desc,
                               GiltValue *const *indices)
{
  size_t rank = memref->shaped.rank;
  GiltValue *linear = l2l_extract(l, desc, L2L_OFFSET);
  for (size_t i = 0; i < rank; i++) {
    GiltValue *stride = l2l_extract(l, desc, L2L_STRIDE(rank, i));
    linear = l2l_binary(l, LLVM_OP_ADD, linear,
                        l2l_binary(l, LLVM_OP_MUL, indices[i], stride));
  }
  return l2l_gep(l, l2l_memory_type(l, memref->shaped.elem),
                 l2l_extract(l, desc, L2L_DATA), linear);
}

static void lowered_operands(L2L *l, GiltOp *op, size_t from, size_t n,
                             GiltValue **out)
{
  for (size_t i = 0; i < n; i++)
    out[i] = l2l_value(l, gilt_op_get_operand(op, from + i));
}

/* ---- allocation ------------------------------------------------------------------- */

/* The run fails, as the interpreter's does, when a dynamic size is
** negative or the byte count overflows: wrapped, it would give a small
** buffer that the loops then overrun. Each step checks count * size <=
** MAX / bytes-per-element with count the product so far (made 1 where it
** is 0, so that no lane divides by zero). */
static void check_sizes(L2L *l, GiltType *t, GiltValue *const *sizes)
{
  size_t rank = t->shaped.rank;
  bool dynamic = false;
  for (size_t i = 0; i < rank; i++)
    dynamic |= t->shaped.shape[i] == GILT_DYNAMIC;
  if (!dynamic)
    return;
  int64_t elem = (int64_t)gilt_type_get_storage_size(t->shaped.elem);
  GiltValue *zero = l2l_i64(l, 0), *one = l2l_i64(l, 1);
  GiltValue *limit = l2l_i64(l, INT64_MAX / (elem > 0 ? elem : 1));
  GiltValue *count = one, *ok = NULL;
  for (size_t i = 0; i < rank; i++) {
    GiltValue *s = sizes[i];
    GiltValue *d = l2l_select(l, l2l_icmp(l, "eq", count, zero), one, count);
    GiltValue *fits = l2l_binary(
        l, LLVM_OP_AND, l2l_icmp(l, "sge", s, zero),
        l2l_icmp(l, "sle", s, l2l_binary(l, LLVM_OP_SDIV, limit, d)));
    ok = ok ? l2l_binary(l, LLVM_OP_AND, ok, fits) : fits;
    count = l2l_select(l, fits, l2l_binary(l, LLVM_OP_MUL, count, s), zero);
  }
  l2l_check(l, ok, "the buffer's size is negative or overflows");
}

GiltValue *l2l_dense_bytes(L2L *l, GiltType *t, GiltValue *const *sizes,
                           GiltValue **strides)
{
  check_sizes(l, t, sizes);
  GiltValue *count = row_major(l, t->shaped.rank, sizes, strides);
  size_t elem = gilt_type_get_storage_size(t->shaped.elem);
  GiltValue *bytes = l2l_binary(l, LLVM_OP_MUL, count, l2l_i64(l, (int64_t)elem));
  /* Zero bytes still get a pointer, so NULL only means out of memory. */
  GiltValue *one = l2l_i64(l, 1);
  GiltValue *umax[2] = {bytes, one};
  return l2l_intrinsic(l, "llvm.umax", l->i64, 2, umax);
}

/* A dense buffer of t's element type and these sizes, from the runtime's
** `allocator` (jit/abi.h), as a descriptor; the run fails when it gives
** NULL. */
static GiltValue *alloc_dense(L2L *l, GiltType *t, GiltValue *const *sizes,
                              int64_t align, const char *allocator)
{
  size_t rank = t->shaped.rank;
  GiltValue *strides[rank + 1];
  GiltValue *bytes = l2l_dense_bytes(l, t, sizes, strides);
  GiltValue *args[2] = {bytes, l2l_i64(l, align < 16 ? 16 : align)};
  GiltValue *data = l2l_call_extern(l, allocator, l->ptr, 2, args);
  GiltValue *null = l2l_emit(l, LLVM_OP_ZERO, l->ptr, 0, NULL);
  l2l_check(l, l2l_icmp(l, "ne", data, null), "out of memory");
  return l2l_descriptor(l, rank, data, l2l_i64(l, 0), sizes, strides);
}

/* Whether t is a buffer in a GPU block's shared memory (space 3). */
static bool is_shared(GiltType *t)
{
  GiltAttr *space = gilt_memref_type_get_memory_space(t);
  return space && space->kind == GILT_ATTR_INTEGER &&
         gilt_integer_attr_get_value(space) == LLVM_SHARED_ADDRESS_SPACE;
}

/* In a kernel, a buffer of static shape in shared memory is an
** llvm.global of that space (a vector of its elements, contents
** undefined, one per allocation), used through a generic pointer as
** every other buffer. Any other allocation would need the runtime. */
static GiltStatus lower_shared_alloc(L2L *l, GiltOp *op, GiltType *t)
{
  if (!is_shared(t) || !gilt_shaped_type_has_static_shape(t))
    return l2l_error(l, "a kernel allocates only buffers of static shape "
                        "in shared memory (memory space 3)");
  int64_t count = gilt_shaped_type_get_num_elements(t);
  count = count > 0 ? count : 1;
  char name[32];
  snprintf(name, sizeof name, "__gilt_shared_%u", l->num_shared++);
  GiltType *elems = gilt_vector_type_get(l->ctx, 1, &count,
                                         l2l_memory_type(l, t->shaped.elem));
  GiltNamedAttr attrs[] = {
      {"addr_space", gilt_integer_attr_get(l->i64, LLVM_SHARED_ADDRESS_SPACE)},
      {"alignment", gilt_integer_attr_get(l->i64, 16)},
      {"sym_name", gilt_string_attr_get(l->ctx, name, strlen(name))},
      {"sym_visibility", gilt_string_attr_get(l->ctx, "private", 7)},
      {"type", gilt_type_attr_get(elems)},
  };
  GiltOpState st = gilt_op_state_get("llvm.global", l->loc);
  st.num_attrs = 5;
  st.attrs = attrs;
  l2l_add_symbol(l, gilt_op_create(l->ctx, &st));
  GiltValue *shared = l2l_emit_attr(
      l, LLVM_OP_ADDRESSOF, llvm_ptr_type(l->ctx, LLVM_SHARED_ADDRESS_SPACE),
      0, NULL, "global_name", gilt_symbol_ref_attr_get(l->ctx, name, 0, NULL));
  size_t rank = t->shaped.rank;
  GiltValue *sizes[rank + 1], *strides[rank + 1];
  l2l_type_sizes(l, t, NULL, sizes);
  row_major(l, rank, sizes, strides);
  GiltValue *data = l2l_cast(l, LLVM_OP_ADDRSPACECAST, shared, l->ptr);
  GiltValue *offset = l2l_i64(l, 0);
  l2l_map(l, gilt_op_get_result(op, 0),
          l2l_descriptor(l, rank, data, offset, sizes, strides));
  return GILT_SUCCESS;
}

static GiltStatus lower_alloc(L2L *l, GiltOp *op)
{
  GiltType *t = gilt_value_get_type(gilt_op_get_result(op, 0));
  if (t->shaped.layout)
    return l2l_error(l, "allocates a buffer with a non-identity layout");
  if (l->device)
    return lower_shared_alloc(l, op, t);
  size_t rank = t->shaped.rank, n = gilt_op_get_num_operands(op);
  GiltValue *dynamic[n + 1], *sizes[rank + 1];
  lowered_operands(l, op, 0, n, dynamic);
  l2l_type_sizes(l, t, dynamic, sizes);
  GiltAttr *align = gilt_op_get_attr(op, "alignment");
  l2l_map(l, gilt_op_get_result(op, 0),
          alloc_dense(l, t, sizes,
                      align ? gilt_integer_attr_get_value(align) : 64,
                      "gilt_rt_alloc"));
  return GILT_SUCCESS;
}

static GiltStatus lower_dealloc(L2L *l, GiltOp *op)
{
  if (l->device && is_shared(gilt_value_get_type(gilt_op_get_operand(op, 0))))
    return GILT_SUCCESS; /* shared memory lives as long as the block */
  GiltValue *data =
      l2l_extract(l, l2l_value(l, gilt_op_get_operand(op, 0)), L2L_DATA);
  l2l_call_extern(l, "gilt_rt_free", NULL, 1, &data);
  return GILT_SUCCESS;
}

/* ---- elements --------------------------------------------------------------------- */

static GiltStatus lower_load(L2L *l, GiltOp *op)
{
  GiltValue *m = gilt_op_get_operand(op, 0);
  size_t rank = rank_of(m);
  GiltValue *idx[rank + 1];
  lowered_operands(l, op, 1, rank, idx);
  GiltType *mt = gilt_value_get_type(m);
  GiltValue *addr = l2l_element_address(l, mt, l2l_value(l, m), idx);
  GiltType *result = l2l_type(l, mt->shaped.elem);
  GiltType *stored = l2l_memory_type(l, mt->shaped.elem);
  GiltValue *v = l2l_load(l, stored, addr, 0);
  l2l_map(l, gilt_op_get_result(op, 0), l2l_cast(l, LLVM_OP_TRUNC, v, result));
  return GILT_SUCCESS;
}

static GiltStatus lower_store(L2L *l, GiltOp *op)
{
  GiltValue *m = gilt_op_get_operand(op, 1);
  size_t rank = rank_of(m);
  GiltValue *idx[rank + 1];
  lowered_operands(l, op, 2, rank, idx);
  GiltType *mt = gilt_value_get_type(m);
  GiltValue *addr = l2l_element_address(l, mt, l2l_value(l, m), idx);
  GiltValue *v = l2l_value(l, gilt_op_get_operand(op, 0));
  v = l2l_cast(l, LLVM_OP_ZEXT, v, l2l_memory_type(l, mt->shaped.elem));
  l2l_store(l, v, addr, 0);
  return GILT_SUCCESS;
}

/* llvm.prefetch of the element's address: a read (0), of data (1). */
static GiltStatus lower_prefetch(L2L *l, GiltOp *op)
{
  GiltValue *m = gilt_op_get_operand(op, 0);
  size_t rank = rank_of(m);
  GiltValue *idx[rank + 1];
  lowered_operands(l, op, 1, rank, idx);
  int64_t locality =
      gilt_integer_attr_get_value(gilt_op_get_attr(op, "locality"));
  GiltValue *args[4] = {
      l2l_element_address(l, gilt_value_get_type(m), l2l_value(l, m), idx),
      l2l_int(l, l->i32, 0), l2l_int(l, l->i32, locality),
      l2l_int(l, l->i32, 1)};
  l2l_intrinsic(l, "llvm.prefetch", NULL, 4, args);
  return GILT_SUCCESS;
}

/* dim with a constant index reads the field; otherwise a select chain. */
static GiltStatus lower_dim(L2L *l, GiltOp *op)
{
  GiltValue *m = gilt_op_get_operand(op, 0);
  GiltValue *desc = l2l_value(l, m);
  size_t rank = rank_of(m);
  GiltValue *result;
  int64_t dim;
  if (loop_constant_int(gilt_op_get_operand(op, 1), &dim)) {
    if (dim < 0 || (size_t)dim >= rank)
      return l2l_error(l, "dimension %lld of a buffer of rank %zu",
                       (long long)dim, rank);
    result = l2l_extract(l, desc, L2L_SIZE(rank, dim));
  } else {
    GiltValue *index = l2l_value(l, gilt_op_get_operand(op, 1));
    result = l2l_i64(l, 0);
    for (size_t i = 0; i < rank; i++) {
      GiltValue *is = l2l_icmp(l, "eq", index, l2l_i64(l, (int64_t)i));
      result = l2l_select(l, is, l2l_extract(l, desc, L2L_SIZE(rank, i)),
                          result);
    }
  }
  l2l_map(l, gilt_op_get_result(op, 0), result);
  return GILT_SUCCESS;
}

/* ---- views ---------------------------------------------------------------------------- */

static GiltStatus lower_subview(L2L *l, GiltOp *op)
{
  GiltValue *src = l2l_value(l, gilt_op_get_operand(op, 0));
  size_t rank = rank_of(gilt_op_get_operand(op, 0));
  GiltValue *offsets[rank + 1], *sizes[rank + 1], *steps[rank + 1];
  GiltValue *strides[rank + 1];
  lowered_operands(l, op, 1, rank, offsets);
  lowered_operands(l, op, 1 + rank, rank, sizes);
  lowered_operands(l, op, 1 + 2 * rank, rank, steps);
  GiltValue *offset = l2l_extract(l, src, L2L_OFFSET);
  for (size_t i = 0; i < rank; i++) {
    GiltValue *stride = l2l_extract(l, src, L2L_STRIDE(rank, i));
    offset = l2l_binary(l, LLVM_OP_ADD, offset,
                        l2l_binary(l, LLVM_OP_MUL, offsets[i], stride));
    strides[i] = l2l_binary(l, LLVM_OP_MUL, steps[i], stride);
  }
  l2l_map(l, gilt_op_get_result(op, 0),
          l2l_descriptor(l, rank, l2l_extract(l, src, L2L_DATA), offset,
                         sizes, strides));
  return GILT_SUCCESS;
}

/* The source is contiguous (the verifier's and graph-to-loop's promise);
** the run checks that the element counts agree, as the interpreter. */
static GiltStatus lower_reshape(L2L *l, GiltOp *op)
{
  GiltValue *src = l2l_value(l, gilt_op_get_operand(op, 0));
  size_t src_rank = rank_of(gilt_op_get_operand(op, 0));
  GiltType *t = gilt_value_get_type(gilt_op_get_result(op, 0));
  size_t rank = t->shaped.rank, n = gilt_op_get_num_operands(op) - 1;
  GiltValue *dynamic[n + 1], *sizes[rank + 1], *strides[rank + 1];
  lowered_operands(l, op, 1, n, dynamic);
  l2l_type_sizes(l, t, dynamic, sizes);
  GiltValue *count = row_major(l, rank, sizes, strides);
  GiltValue *src_count = l2l_i64(l, 1);
  for (size_t i = 0; i < src_rank; i++)
    src_count = l2l_binary(l, LLVM_OP_MUL, src_count,
                           l2l_extract(l, src, L2L_SIZE(src_rank, i)));
  l2l_check(l, l2l_icmp(l, "eq", count, src_count), "reshape changes the number of elements");
  l2l_map(l, gilt_op_get_result(op, 0),
          l2l_descriptor(l, rank, l2l_extract(l, src, L2L_DATA),
                     l2l_extract(l, src, L2L_OFFSET), sizes, strides));
  return GILT_SUCCESS;
}

/* A view's data starts at its byte, offset 0 as its identity layout
** says; it is never freed itself (loop.dealloc of the source frees it). */
static GiltStatus lower_view(L2L *l, GiltOp *op)
{
  GiltValue *source = gilt_op_get_operand(op, 0);
  GiltValue *src = l2l_value(l, source);
  GiltType *t = gilt_value_get_type(gilt_op_get_result(op, 0));
  size_t rank = t->shaped.rank;
  GiltValue *sizes[rank + 1], *strides[rank + 1];
  l2l_type_sizes(l, t, NULL, sizes);
  row_major(l, rank, sizes, strides);
  int64_t offset =
      gilt_integer_attr_get_value(gilt_op_get_attr(op, "offset"));
  GiltValue *src_offset = l2l_extract(l, src, L2L_OFFSET);
  GiltValue *first = l2l_binary(l, LLVM_OP_ADD, src_offset, l2l_i64(l, offset));
  GiltType *byte =
      l2l_memory_type(l, gilt_value_get_type(source)->shaped.elem);
  GiltValue *data = l2l_gep(l, byte, l2l_extract(l, src, L2L_DATA), first);
  l2l_map(l, gilt_op_get_result(op, 0),
          l2l_descriptor(l, rank, data, l2l_i64(l, 0), sizes, strides));
  return GILT_SUCCESS;
}

/* ---- copy ---------------------------------------------------------------------------- */

typedef struct Copy {
  GiltType *source_type, *target_type;
  GiltValue *source, *target;
  size_t rank;
  GiltValue **ivs;
} Copy;

static void copy_level(L2L *l, GiltValue *iv, GiltValue *const *current,
                       GiltValue **next, void *user);

/* The loop over dimension `dim` and those inside it. */
static void copy_from(L2L *l, Copy *c, size_t dim)
{
  if (dim == c->rank) {
    GiltType *stored = l2l_memory_type(l, c->source_type->shaped.elem);
    GiltValue *v = l2l_load(
        l, stored, l2l_element_address(l, c->source_type, c->source, c->ivs), 0);
    l2l_store(l, v, l2l_element_address(l, c->target_type, c->target, c->ivs),
              0);
    return;
  }
  GiltValue *ub = l2l_extract(l, c->source, L2L_SIZE(c->rank, dim));
  c->ivs[dim] = NULL; /* copy_level fills it */
  l2l_loop(l, l2l_i64(l, 0), ub, l2l_i64(l, 1), 0, NULL, NULL, copy_level, c);
}

static void copy_level(L2L *l, GiltValue *iv, GiltValue *const *current,
                       GiltValue **next, void *user)
{
  (void)current, (void)next;
  Copy *c = user;
  size_t dim = 0;
  while (c->ivs[dim])
    dim++;
  c->ivs[dim] = iv;
  copy_from(l, c, dim + 1);
  c->ivs[dim] = NULL;
}

static GiltStatus lower_copy(L2L *l, GiltOp *op)
{
  size_t rank = rank_of(gilt_op_get_operand(op, 0));
  GiltValue *ivs[rank + 1];
  memset(ivs, 0, sizeof ivs);
  Copy c = {gilt_value_get_type(gilt_op_get_operand(op, 0)),
            gilt_value_get_type(gilt_op_get_operand(op, 1)),
            l2l_value(l, gilt_op_get_operand(op, 0)),
            l2l_value(l, gilt_op_get_operand(op, 1)), rank, ivs};
  copy_from(l, &c, 0);
  return GILT_SUCCESS;
}

GiltValue *l2l_copy(L2L *l, GiltValue *desc, GiltType *t)
{
  size_t rank = t->shaped.rank;
  GiltValue *sizes[rank + 1], *ivs[rank + 1];
  for (size_t i = 0; i < rank; i++)
    sizes[i] = l2l_extract(l, desc, L2L_SIZE(rank, i));
  memset(ivs, 0, sizeof ivs);
  GiltType *dense = gilt_memref_type_get(l->ctx, rank, t->shaped.shape,
                                         t->shaped.elem, NULL, NULL);
  GiltValue *copy = alloc_dense(l, dense, sizes, 64, "gilt_rt_alloc");
  Copy c = {t, dense, desc, copy, rank, ivs};
  copy_from(l, &c, 0);
  return copy;
}

/* ---- globals --------------------------------------------------------------------------- */

void l2l_lower_global(L2L *l, GiltOp *op)
{
  GiltType *t = gilt_type_attr_get_value(gilt_op_get_attr(op, "type"));
  GiltType *elem = l2l_memory_type(l, t->shaped.elem);
  if (!elem) {
    l2l_error(l, "a weight of 8-bit floats has no llvm form");
    l->num_errors++;
    return;
  }
  GiltAttr *value = gilt_op_get_attr(op, "value");
  if (elem != t->shaped.elem) { /* i1 weights are bytes in memory */
    size_t nbytes;
    const void *data = gilt_dense_attr_get_data(value, &nbytes);
    GiltType *vt = gilt_attr_get_type(value);
    value = gilt_dense_elements_attr_get(
        gilt_tensor_type_get(l->ctx, vt->shaped.rank, vt->shaped.shape, elem,
                             NULL),
        data, nbytes);
  }
  GiltNamedAttr attrs[] = {
      {"alignment", gilt_integer_attr_get(l->i64, 64)},
      {"constant", gilt_unit_attr_get(l->ctx)},
      {"sym_name", gilt_op_get_attr(op, "sym_name")},
      {"type", gilt_type_attr_get(elem)},
      {"value", value},
  };
  GiltOpState st = gilt_op_state_get("llvm.global", l->loc);
  st.num_attrs = 5;
  st.attrs = attrs;
  l2l_add_symbol(l, gilt_op_create(l->ctx, &st));
}

static GiltStatus lower_get_global(L2L *l, GiltOp *op)
{
  if (l->device)
    return l2l_error(l, "a kernel reads weights through its arguments "
                        "(gpu-map-parallel makes them gpu.device_global)");
  GiltType *t = gilt_value_get_type(gilt_op_get_result(op, 0));
  size_t rank = t->shaped.rank;
  GiltValue *sizes[rank + 1], *strides[rank + 1];
  l2l_type_sizes(l, t, NULL, sizes);
  row_major(l, rank, sizes, strides);
  GiltValue *data = l2l_emit_attr(l, LLVM_OP_ADDRESSOF, l->ptr, 0, NULL,
                                  "global_name", gilt_op_get_attr(op, "name"));
  l2l_map(l, gilt_op_get_result(op, 0),
          l2l_descriptor(l, rank, data, l2l_i64(l, 0), sizes, strides));
  return GILT_SUCCESS;
}

GiltStatus l2l_lower_memory(L2L *l, GiltOp *op)
{
  switch (loop_op_id(op)) {
  case LOOP_OP_ALLOC: return lower_alloc(l, op);
  case LOOP_OP_DEALLOC: return lower_dealloc(l, op);
  case LOOP_OP_LOAD: return lower_load(l, op);
  case LOOP_OP_STORE: return lower_store(l, op);
  case LOOP_OP_PREFETCH: return lower_prefetch(l, op);
  case LOOP_OP_DIM: return lower_dim(l, op);
  case LOOP_OP_SUBVIEW: return lower_subview(l, op);
  case LOOP_OP_RESHAPE: return lower_reshape(l, op);
  case LOOP_OP_VIEW: return lower_view(l, op);
  case LOOP_OP_COPY: return lower_copy(l, op);
  default: return lower_get_global(l, op);
  }
}
