/*
** host_to_llvm.c - the host side of the gpu dialect lowered by
** `loop-to-llvm` (transforms/loop_to_llvm/): each op becomes calls of the
** CUDA runtime (gpu/cuda.h), attached to the gpu ops as loop-to-llvm's
** external lowering (l2l_lowering_interface), so the walk that lowers
** the rest of a host function lowers these in place, with its values,
** failure paths and buffer scopes, and the core walk knows nothing of
** the GPU. MLIR's gpu-to-llvm conversion in spirit.
**
**   gpu.binary @m {ptx}      the private constant llvm.global @m: the PTX
**                            text and a NUL
**   gpu.launch_func @m::@k   gilt_cuda_function(@m, "k") (the module loaded
**                            and the kernel looked up once per session),
**                            then gilt_cuda_launch(fn, grid, block, shared
**                            bytes, params)
**   gpu.alloc                gilt_cuda_alloc(bytes): a dense descriptor,
**                            sizes checked as loop.alloc's
**   gpu.dealloc              gilt_cuda_free
**   gpu.memcpy               gilt_cuda_memcpy(dst, src, bytes, direction),
**                            the direction from the memory spaces
**   gpu.device_global @w     gilt_cuda_device_global(@w, bytes): the
**                            weight's device copy, uploaded once
**
** Every runtime call gets the op's location and records its own failure
** (the driver's error, naming the call); the code only returns 1 then.
**
** Kernel parameters (what gpu-to-nvvm's kernels take, in order): a memref
** argument is its descriptor's fields, each a parameter: the data pointer,
** the offset, then the sizes and the strides (i64), as MLIR passes a
** memref (without MLIR's second, aligned pointer); index is i64; other
** scalars their llvm type. Each value sits in an 8-byte slot of one stack
** array, zero-extended (a float's bits), so that a parameter the driver
** reads wider than its type (an i1 as a byte or a word) reads zeros; the
** driver gets an array of pointers to the slots (cuLaunchKernel's
** kernelParams). Vector arguments are refused.
**
** Not lowered, and reported: gpu.launch (outline it first), gpu.module (a
** module not serialized by gpu-module-to-binary), the ops of kernels.
*/
#include "gpu/gpu.h"

#include "gilt/register.h"
#include "gpu/cuda.h"
#include "transforms/loop_to_llvm/lowering.h"

/* A runtime call that returns a pointer, NULL after recording a failure:
** the run stops there. */
static GiltValue *call_ptr(L2L *l, const char *name, size_t n,
                           GiltValue *const *args)
{
  GiltValue *p = l2l_call_extern(l, name, l->ptr, n, args);
  GiltValue *null = l2l_emit(l, LLVM_OP_ZERO, l->ptr, 0, NULL);
  GiltValue *ok = l2l_icmp(l, "ne", p, null);
  l2l_check_recorded(l, ok, l2l_int(l, l->i32, 1));
  return p;
}

/* A runtime call that returns a status, nonzero after recording a
** failure: the run stops there, returning it. */
static void call_status(L2L *l, const char *name, size_t n,
                        GiltValue *const *args)
{
  GiltValue *status = l2l_call_extern(l, name, l->i32, n, args);
  GiltValue *zero = l2l_int(l, l->i32, 0);
  l2l_check_recorded(l, l2l_icmp(l, "eq", status, zero), status);
}

/* ---- buffers ------------------------------------------------------------------------ */

static GiltStatus lower_alloc(L2L *l, GiltOp *op)
{
  GiltType *t = gilt_value_get_type(gilt_op_get_result(op, 0));
  size_t rank = t->shaped.rank, n = gilt_op_get_num_operands(op);
  GiltValue *dynamic[n + 1], *sizes[rank + 1], *strides[rank + 1];
  for (size_t i = 0; i < n; i++)
    dynamic[i] = l2l_value(l, gilt_op_get_operand(op, i));
  l2l_type_sizes(l, t, dynamic, sizes);
  GiltValue *args[2];
  args[0] = l2l_dense_bytes(l, t, sizes, strides);
  args[1] = l2l_location(l);
  GiltValue *data = call_ptr(l, "gilt_cuda_alloc", 2, args);
  l2l_map(l, gilt_op_get_result(op, 0),
          l2l_descriptor(l, rank, data, l2l_i64(l, 0), sizes, strides));
  return GILT_SUCCESS;
}

static GiltStatus lower_dealloc(L2L *l, GiltOp *op)
{
  GiltValue *args[2];
  args[0] = l2l_extract(l, l2l_value(l, gilt_op_get_operand(op, 0)), L2L_DATA);
  args[1] = l2l_location(l);
  call_status(l, "gilt_cuda_free", 2, args);
  return GILT_SUCCESS;
}

/* The address of the first element of a contiguous buffer. */
static GiltValue *first_element(L2L *l, GiltType *t, GiltValue *desc)
{
  GiltValue *data = l2l_extract(l, desc, L2L_DATA);
  GiltValue *offset = l2l_extract(l, desc, L2L_OFFSET);
  return l2l_gep(l, l2l_memory_type(l, t->shaped.elem), data, offset);
}

static GiltStatus lower_memcpy(L2L *l, GiltOp *op)
{
  GiltValue *target = gilt_op_get_operand(op, 0);
  GiltValue *source = gilt_op_get_operand(op, 1);
  GiltType *tt = gilt_value_get_type(target);
  GiltType *st = gilt_value_get_type(source);
  bool to_device = gpu_memory_space(tt) == GPU_SPACE_GLOBAL;
  bool from_device = gpu_memory_space(st) == GPU_SPACE_GLOBAL;
  int64_t direction = !from_device ? GILT_CUDA_HOST_TO_DEVICE
                      : to_device  ? GILT_CUDA_DEVICE_TO_DEVICE
                                   : GILT_CUDA_DEVICE_TO_HOST;
  /* The verifier's promise: same shape, both contiguous. */
  GiltValue *desc = l2l_value(l, source);
  size_t rank = st->shaped.rank;
  GiltType *elem = l2l_memory_type(l, st->shaped.elem);
  GiltValue *bytes =
      l2l_i64(l, (int64_t)gilt_type_get_storage_size(elem));
  for (size_t i = 0; i < rank; i++)
    bytes = l2l_binary(l, LLVM_OP_MUL, bytes,
                       l2l_extract(l, desc, L2L_SIZE(rank, i)));
  GiltValue *args[5];
  args[0] = first_element(l, tt, l2l_value(l, target));
  args[1] = first_element(l, st, desc);
  args[2] = bytes;
  args[3] = l2l_int(l, l->i32, direction);
  args[4] = l2l_location(l);
  call_status(l, "gilt_cuda_memcpy", 5, args);
  return GILT_SUCCESS;
}

static GiltStatus lower_device_global(L2L *l, GiltOp *op)
{
  GiltType *t = gilt_value_get_type(gilt_op_get_result(op, 0));
  size_t rank = t->shaped.rank;
  GiltValue *sizes[rank + 1], *strides[rank + 1];
  l2l_type_sizes(l, t, NULL, sizes);
  GiltValue *args[3];
  args[0] = l2l_emit_attr(l, LLVM_OP_ADDRESSOF, l->ptr, 0, NULL,
                          "global_name", gilt_op_get_attr(op, "name"));
  args[1] = l2l_dense_bytes(l, t, sizes, strides);
  args[2] = l2l_location(l);
  GiltValue *data = call_ptr(l, "gilt_cuda_device_global", 3, args);
  l2l_map(l, gilt_op_get_result(op, 0),
          l2l_descriptor(l, rank, data, l2l_i64(l, 0), sizes, strides));
  return GILT_SUCCESS;
}

/* ---- kernels ------------------------------------------------------------------------- */

/* The kernel parameters an argument of type t takes (above). */
static size_t num_params(GiltType *t)
{
  return t->kind == GILT_TYPE_MEMREF ? 2 + 2 * (size_t)t->shaped.rank : 1;
}

/* Kernel parameter i of the launch: its value, from the lowered args. */
static GiltValue *param(L2L *l, GiltOp *op, size_t i)
{
  for (size_t a = 6;; a++) {
    GiltValue *arg = gilt_op_get_operand(op, a);
    GiltType *t = gilt_value_get_type(arg);
    size_t n = num_params(t);
    if (i >= n) {
      i -= n;
      continue;
    }
    GiltValue *v = l2l_value(l, arg);
    return t->kind == GILT_TYPE_MEMREF ? l2l_extract(l, v, (int64_t)i) : v;
  }
}

/* v as the 64 bits of its slot: a pointer as it is, an integer
** zero-extended, a float by its bits. */
static GiltValue *widen(L2L *l, GiltValue *v)
{
  GiltType *t = gilt_value_get_type(v);
  if (t->kind == GILT_TYPE_FLOAT) {
    unsigned bits = (unsigned)gilt_type_get_storage_size(t) * 8;
    GiltType *as_int = gilt_integer_type_get(l->ctx, bits, GILT_SIGNLESS);
    v = l2l_cast(l, LLVM_OP_BITCAST, v, as_int);
    t = as_int;
  }
  if (t->kind == GILT_TYPE_INTEGER && t->integer.width < 64)
    v = l2l_cast(l, LLVM_OP_ZEXT, v, l->i64);
  return v;
}

/* The kernelParams array of the launch: n pointers, each at an 8-byte
** slot holding parameter i. */
static GiltValue *params(L2L *l, GiltOp *op, size_t n)
{
  GiltType *words[n], *ptrs[n];
  for (size_t i = 0; i < n; i++) {
    words[i] = l->i64;
    ptrs[i] = l->ptr;
  }
  GiltValue *values = l2l_entry_alloca(l, llvm_struct_type(l->ctx, n, words));
  GiltValue *array = l2l_entry_alloca(l, llvm_struct_type(l->ctx, n, ptrs));
  for (size_t i = 0; i < n; i++) {
    GiltValue *slot = l2l_gep(l, l->i64, values, l2l_i64(l, (int64_t)i));
    GiltValue *value = widen(l, param(l, op, i));
    l2l_store(l, value, slot, 8);
    GiltValue *at = l2l_gep(l, l->ptr, array, l2l_i64(l, (int64_t)i));
    l2l_store(l, slot, at, 8);
  }
  return array;
}

/* The kernel the launch names, as gilt_cuda_function gives it. */
static GiltValue *kernel(L2L *l, GiltOp *op, GiltOp *binary)
{
  GiltAttr *ref = gilt_op_get_attr(op, "kernel");
  GiltValue *args[3];
  args[0] = l2l_emit_attr(
      l, LLVM_OP_ADDRESSOF, l->ptr, 0, NULL, "global_name",
      gilt_symbol_ref_attr_get(l->ctx, gilt_symbol_get_name(binary), 0,
                               NULL));
  args[1] = l2l_string(l, ref->symref.names[1]->str);
  args[2] = l2l_location(l);
  return call_ptr(l, "gilt_cuda_function", 3, args);
}

static GiltStatus lower_launch_func(L2L *l, GiltOp *op)
{
  GiltAttr *ref = gilt_op_get_attr(op, "kernel");
  const char *module = gilt_symbol_ref_attr_get_root(ref);
  GiltOp *binary = gilt_symbol_table_lookup(l->module, module);
  if (!gpu_op_is(binary, GPU_OP_BINARY))
    return l2l_error(l, "'@%s' is not a gpu.binary: run gpu-to-nvvm and "
                        "gpu-module-to-binary first", module);
  size_t n = 0;
  for (size_t i = 6; i < gilt_op_get_num_operands(op); i++) {
    GiltType *t = gilt_value_get_type(gilt_op_get_operand(op, i));
    if (t->kind == GILT_TYPE_VECTOR)
      return l2l_error(l, "kernel argument %zu is a vector", i - 6);
    n += num_params(t);
  }
  GiltAttr *shared = gilt_op_get_attr(op, "shared_bytes");
  GiltValue *fn = kernel(l, op, binary);
  GiltValue *args[10];
  args[0] = fn;
  for (size_t i = 0; i < 6; i++)
    args[1 + i] = l2l_value(l, gilt_op_get_operand(op, i));
  args[7] = l2l_int(l, l->i32,
                    shared ? gilt_integer_attr_get_value(shared) : 0);
  args[8] = n ? params(l, op, n) : l2l_emit(l, LLVM_OP_ZERO, l->ptr, 0, NULL);
  args[9] = l2l_location(l);
  call_status(l, "gilt_cuda_launch", 10, args);
  return GILT_SUCCESS;
}

/* ---- module level ------------------------------------------------------------------------ */

static GiltStatus lower_binary(L2L *l, GiltOp *op)
{
  l2l_string_global(l, gilt_symbol_get_name(op),
                    gilt_string_attr_get_value(gilt_op_get_attr(op, "ptx"),
                                               NULL));
  return GILT_SUCCESS;
}

static GiltStatus refuse_module(L2L *l, GiltOp *op)
{
  return l2l_error(l, "gpu.module '@%s' is not serialized: run gpu-to-nvvm "
                      "and gpu-module-to-binary first",
                   gilt_symbol_get_name(op));
}

static GiltStatus refuse_launch(L2L *l, GiltOp *op)
{
  (void)op;
  return l2l_error(l, "a gpu.launch runs only once outlined: run "
                      "gpu-outline-kernels first");
}

/* ---- registration ------------------------------------------------------------------------ */

static const struct {
  GpuOpId op;
  L2LLoweringMethods methods;
} lowerings[] = {
    {GPU_OP_BINARY, {lower_binary}},
    {GPU_OP_LAUNCH_FUNC, {lower_launch_func}},
    {GPU_OP_ALLOC, {lower_alloc}},
    {GPU_OP_DEALLOC, {lower_dealloc}},
    {GPU_OP_MEMCPY, {lower_memcpy}},
    {GPU_OP_DEVICE_GLOBAL, {lower_device_global}},
    {GPU_OP_MODULE, {refuse_module}},
    {GPU_OP_LAUNCH, {refuse_launch}},
};

void gilt_register_gpu_host_lowering(GiltContext *ctx)
{
  gilt_register_gpu_dialect(ctx);
  for (size_t i = 0; i < sizeof lowerings / sizeof *lowerings; i++) {
    const char *name = gpu_ops[lowerings[i].op].name;
    if (!gilt_context_op_implements(ctx, name, &l2l_lowering_interface))
      gilt_context_attach_interface(ctx, name, &l2l_lowering_interface,
                                    &lowerings[i].methods);
  }
}
