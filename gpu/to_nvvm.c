/*
** to_nvvm.c - `gpu-to-nvvm`: lowers the kernels of each gpu.module to
** llvm.func ops for NVPTX, with the loop-to-llvm walk in its device mode
** (transforms/loop_to_llvm/lowering.h says what that mode changes), so
** that loop-level code means the same thing on either side.
**
** Requires gpu.module ops of gpu.func kernels at the loop level (what
** gpu-outline-kernels makes). Produces, in each gpu.module, one llvm.func
** per gpu.func, of the same name, with the PTX kernel calling convention
** (`cconv = "ptx_kernel"`: a `.entry` in PTX); host code is untouched.
**
** The kernel ABI, which the host's launches follow (MLIR's bare
** descriptor expansion, without the allocated pointer): a memref argument
** of rank r is 2 + 2r parameters, its data pointer (a generic pointer to
** device memory), its offset, its r sizes and its r strides (i64, in
** elements); an index argument is an i64, any other scalar its llvm type.
**
** The gpu ops become NVVM intrinsics (MLIR's gpu-to-nvvm): thread_id,
** block_id, block_dim, grid_dim read the special registers tid, ctaid,
** ntid, nctaid (i32, zero-extended to index); gpu.barrier is
** llvm.nvvm.barrier0 (bar.sync 0); gpu.shuffle_xor is
** llvm.nvvm.shfl.sync.bfly of the full warp. A failed run-time check
** (loop.assert, a division by zero) traps.
*/
#include "gpu/passes.h"

#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"
#include "transforms/loop_to_llvm/lowering.h"

/* ---- the gpu ops ------------------------------------------------------------- */

/* The special register `reg` (tid, ctaid, ...) of op's dimension. */
static GiltValue *special_register(L2L *l, GiltOp *op, const char *reg)
{
  static const char *const dims[3] = {"x", "y", "z"};
  char name[64];
  snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s.%s", reg,
           dims[gpu_id_dimension(op)]);
  GiltValue *v = l2l_intrinsic(l, name, l->i32, 0, NULL);
  return l2l_cast(l, LLVM_OP_ZEXT, v, l->i64);
}

static GiltStatus lower_shuffle(L2L *l, GiltOp *op)
{
  GiltValue *value = l2l_value(l, gilt_op_get_operand(op, 0));
  GiltType *t = gilt_value_get_type(value);
  /* One op built per statement: C leaves an initializer's order open. */
  GiltValue *offset = l2l_value(l, gilt_op_get_operand(op, 1));
  GiltValue *all_lanes = l2l_int(l, l->i32, -1);
  GiltValue *clamp = l2l_int(l, l->i32, 31);
  GiltValue *args[4] = {all_lanes, value, offset, clamp};
  const char *name = t == l->f32 ? "llvm.nvvm.shfl.sync.bfly.f32"
                                 : "llvm.nvvm.shfl.sync.bfly.i32";
  l2l_map(l, gilt_op_get_result(op, 0), l2l_intrinsic(l, name, t, 4, args));
  return GILT_SUCCESS;
}

static GiltStatus lower_gpu_op(L2L *l, GiltOp *op)
{
  GiltValue *v;
  if (!l->device) /* a block tile's barrier in host code: not mapped */
    return l2l_error(l, "'%s' is device code, which the host cannot run "
                        "(gpu-map-parallel and gpu-outline-kernels make it "
                        "a kernel's)",
                     gilt_op_get_name(op));
  switch (gpu_op_id(op)) {
  case GPU_OP_THREAD_ID: v = special_register(l, op, "tid"); break;
  case GPU_OP_BLOCK_ID: v = special_register(l, op, "ctaid"); break;
  case GPU_OP_BLOCK_DIM: v = special_register(l, op, "ntid"); break;
  case GPU_OP_GRID_DIM: v = special_register(l, op, "nctaid"); break;
  case GPU_OP_BARRIER:
    l2l_intrinsic(l, "llvm.nvvm.barrier0", NULL, 0, NULL);
    return GILT_SUCCESS;
  case GPU_OP_SHUFFLE_XOR: return lower_shuffle(l, op);
  default:
    return l2l_error(l, "'%s' is not device code", gilt_op_get_name(op));
  }
  l2l_map(l, gilt_op_get_result(op, 0), v);
  return GILT_SUCCESS;
}

const L2LLoweringMethods gpu_nvvm_lowering = {lower_gpu_op};

/* ---- kernels -------------------------------------------------------------------- */

/* The parameters of the kernel ABI for `t`, appended at types[*n]. */
static bool abi_parameters(L2L *l, GiltType *t, GiltType **types, size_t *n)
{
  GiltType *lowered = l2l_type(l, t);
  if (!lowered)
    return false;
  if (t->kind != GILT_TYPE_MEMREF) {
    types[(*n)++] = lowered;
    return true;
  }
  for (size_t i = 0; i < llvm_struct_num_fields(lowered); i++)
    types[(*n)++] = llvm_struct_field(lowered, i);
  return true;
}

/* The empty llvm.func of the kernel `func`; NULL after reporting. */
static GiltOp *kernel_function(L2L *l, GiltOp *func, size_t max_params)
{
  GiltType *ft = gilt_function_like_get_type(func);
  GiltType *params[max_params + 1];
  size_t n = 0;
  for (size_t i = 0; i < ft->func.num_inputs; i++)
    if (!abi_parameters(l, ft->func.types[i], params, &n)) {
      l2l_error(l, "argument %zu has a type without an llvm form", i);
      return NULL;
    }
  GiltType *fn_type = gilt_function_type_get(l->ctx, n, params, 0, NULL);
  GiltNamedAttr attrs[] = {
      {"cconv", gilt_string_attr_get(l->ctx, "ptx_kernel", 10)},
      {"function_type", gilt_type_attr_get(fn_type)},
      {"sym_name", gilt_op_get_attr(func, "sym_name")},
  };
  GiltOpState st = gilt_op_state_get("llvm.func", l->loc);
  st.num_attrs = 3;
  st.attrs = attrs;
  st.num_regions = 1;
  return gilt_op_create(l->ctx, &st);
}

/* The descriptor of a memref argument from its parameters, from *p on. */
static GiltValue *descriptor(L2L *l, GiltType *t, GiltBlock *entry, size_t *p)
{
  GiltType *desc_type = l2l_type(l, t);
  GiltValue *d = l2l_poison(l, desc_type);
  for (size_t i = 0; i < llvm_struct_num_fields(desc_type); i++)
    d = l2l_insert(l, d, gilt_block_get_argument(entry, (*p)++), (int64_t)i);
  return d;
}

static void lower_kernel(L2L *l, GiltOp *func)
{
  GiltType *ft = gilt_function_like_get_type(func);
  size_t max_params = 0;
  for (size_t i = 0; i < ft->func.num_inputs; i++) {
    GiltType *t = ft->func.types[i];
    max_params += t->kind == GILT_TYPE_MEMREF ? 2 + 2 * t->shaped.rank : 1;
  }
  GiltOp *fn = kernel_function(l, func, max_params);
  if (!fn) {
    l->num_errors++;
    return;
  }
  l2l_add_symbol(l, fn);
  GiltType *llvm_ft =
      gilt_type_attr_get_value(gilt_op_get_attr(fn, "function_type"));
  l->func_name = gilt_symbol_get_name(func);
  l->status = NULL;
  l->body = gilt_op_get_region(fn, 0);
  l->entry = l2l_block(l, llvm_ft->func.num_inputs, llvm_ft->func.types);
  l2l_set_block(l, l->entry);
  GiltBlock *block = gilt_function_like_get_entry_block(func);
  size_t p = 0;
  for (size_t i = 0; i < ft->func.num_inputs; i++) {
    GiltType *t = ft->func.types[i];
    GiltValue *v = t->kind == GILT_TYPE_MEMREF
                       ? descriptor(l, t, l->entry, &p)
                       : gilt_block_get_argument(l->entry, p++);
    l2l_map(l, gilt_block_get_argument(block, i), v);
  }
  l2l_lower_block(l, block);
  l2l_emit(l, LLVM_OP_RETURN, NULL, 0, NULL);
}

/* ---- the pass ---------------------------------------------------------------------- */

static GiltStatus lower_module(GiltContext *ctx, GiltOp *module)
{
  L2L l;
  l2l_init(&l, ctx, module);
  l.device = true;
  GiltBlock *body = gpu_body(module);
  for (GiltOp *op = gilt_block_get_first_op(body); op;
       op = gilt_op_get_next(op)) {
    l.op = op;
    l.loc = gilt_op_get_location(op);
    if (gpu_op_is(op, GPU_OP_FUNC) && gilt_function_like_get_entry_block(op))
      lower_kernel(&l, op);
    else if (llvm_op_id(op) == LLVM_NUM_OPS) {
      l2l_error(&l, "a gpu.module lowers only gpu.func ops with a body");
      l.num_errors++;
    }
  }
  GiltStatus status = l.num_errors ? GILT_FAILURE : GILT_SUCCESS;
  if (status == GILT_SUCCESS)
    l2l_swap_in(&l, body);
  l2l_finish(&l);
  return status;
}

static GiltStatus run(GiltPass *pass, GiltOp *module)
{
  GiltStatus status = GILT_SUCCESS;
  bool changed = false;
  for (GiltOp *op = gilt_block_get_first_op(gilt_module_get_body(module)); op;
       op = gilt_op_get_next(op))
    if (gpu_op_is(op, GPU_OP_MODULE)) {
      changed = true;
      if (lower_module(gilt_pass_get_context(pass), op))
        status = GILT_FAILURE;
    }
  if (!changed)
    gilt_pass_mark_unchanged(pass);
  return status;
}

const GiltPassDef gilt_gpu_to_nvvm_pass = {
    .name = "gpu-to-nvvm",
    .description = "Lower the kernels of each gpu.module to llvm.func ops "
                   "with NVVM intrinsics (the PTX kernel ABI)",
    .anchor = "builtin.module",
    .run = run,
};
