/*
** gpu.c - the gpu dialect's op table, its registration, the memory-space
** helpers its users share, and the verifiers of its ops. The custom
** textual forms are in assembly.c; the passes in the other files of this
** folder.
**
** The verifiers check what the signature strings of gpu.def cannot say:
** where an op may stand (ids and barriers in a launch or a kernel,
** kernels in a gpu.module), which memory spaces buffers are in (device
** buffers in space 1, launched kernels taking device buffers only), and
** that a gpu.launch_func passes what its kernel takes. Not checked: that
** a barrier is reached by every thread of its block (uniform control
** flow), which only the passes that place barriers can know.
*/
#include "gpu/gpu.h"

#include <string.h>

#include "dialects/loop/loop.h"
#include "gilt/register.h"
#include "ir/core.h"
#include "ir/symbol_table.h"
#include "transforms/loop_to_llvm/lowering.h"

const GiltMemoryEffectsMethods gpu_recursive_effects = {.recursive = true};

const GiltOpDef gpu_ops[GPU_NUM_OPS] = {
#define GILT_OP GILT_OP_AS_ROW
#include "gpu/gpu.def"
#undef GILT_OP
};

const GiltDialectDef gilt_gpu_dialect = {
    .name = "gpu",
    GILT_DIALECT_OPS(gpu_ops),
};

void gilt_register_gpu_dialect(GiltContext *ctx)
{
  /* Launch bodies and kernels are loop-level code. */
  gilt_register_loop_dialect(ctx);
  gilt_context_register_dialect(ctx, &gilt_gpu_dialect);
}

GpuOpId gpu_op_id(const GiltOp *op)
{
  const GiltOpDef *def = op->info->def;
  if (def < gpu_ops || def >= gpu_ops + GPU_NUM_OPS)
    return GPU_NUM_OPS;
  return (GpuOpId)(def - gpu_ops);
}

/* ---- memory spaces ---------------------------------------------------------- */

int64_t gpu_memory_space(GiltType *memref)
{
  GiltAttr *space = gilt_memref_type_get_memory_space(memref);
  if (!space)
    return GPU_SPACE_HOST;
  return space->kind == GILT_ATTR_INTEGER ? gilt_integer_attr_get_value(space)
                                          : -1;
}

GiltType *gpu_memref_in_space(GiltContext *ctx, GiltType *memref,
                              int64_t space)
{
  GiltAttr *attr =
      space ? gilt_integer_attr_get(
                  gilt_integer_type_get(ctx, 64, GILT_SIGNLESS), space)
            : NULL;
  return gilt_memref_type_get(ctx, memref->shaped.rank, memref->shaped.shape,
                              memref->shaped.elem, memref->shaped.layout,
                              attr);
}

static GiltType *operand_type(GiltOp *op, size_t i)
{
  return gilt_value_get_type(gilt_op_get_operand(op, i));
}

static GiltType *result_type(GiltOp *op, size_t i)
{
  return gilt_value_get_type(gilt_op_get_result(op, i));
}

/* A memref in `space`, or the error naming `what`. */
static GiltStatus expect_space(GiltOp *op, const char *what, GiltType *t,
                               int64_t space)
{
  if (t->kind == GILT_TYPE_MEMREF && gpu_memory_space(t) == space)
    return GILT_SUCCESS;
  return gilt_op_emit_error(op, "%s must be a memref in memory space %lld "
                                "(%s)",
                            what, (long long)space,
                            space == GPU_SPACE_GLOBAL ? "device memory"
                                                      : "host memory");
}

/* ---- where ops stand ---------------------------------------------------------- */

/* The gpu.launch or gpu.func around op, or NULL. */
static GiltOp *enclosing_kernel(GiltOp *op)
{
  for (GiltOp *p = gilt_op_get_parent_op(op); p; p = gilt_op_get_parent_op(p)) {
    if (gpu_op_is(p, GPU_OP_LAUNCH) || gpu_op_is(p, GPU_OP_FUNC))
      return p;
    if (p->info->def && (p->info->def->traits & GILT_TRAIT_ISOLATED_FROM_ABOVE))
      return NULL;
  }
  return NULL;
}

GiltStatus gpu_verify_in_kernel(GiltOp *op)
{
  if (enclosing_kernel(op))
    return GILT_SUCCESS;
  return gilt_op_emit_error(op, "must be inside a gpu.launch or a gpu.func");
}

bool gpu_loop_is_mapped(GiltOp *op, const char *mapping)
{
  GiltAttr *a = loop_op_is(op, LOOP_OP_PARALLEL)
                    ? gilt_op_get_attr(op, "mapping")
                    : NULL;
  return a && a->kind == GILT_ATTR_STRING &&
         !strcmp(gilt_string_attr_get_value(a, NULL), mapping);
}

GiltStatus gpu_verify_barrier(GiltOp *op)
{
  if (enclosing_kernel(op))
    return GILT_SUCCESS;
  for (GiltOp *p = gilt_op_get_parent_op(op); p; p = gilt_op_get_parent_op(p))
    if (gpu_loop_is_mapped(p, "threads"))
      return GILT_SUCCESS;
  return gilt_op_emit_error(op, "must be inside a gpu.launch, a gpu.func "
                                "or a loop.parallel mapped to a block's "
                                "threads");
}

int gpu_id_dimension(GiltOp *op)
{
  const char *d = gilt_string_attr_get_value(gilt_op_get_attr(op, "dimension"),
                                             NULL);
  static const char *const names[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; i++)
    if (!strcmp(d, names[i]))
      return i;
  return -1;
}

GiltStatus gpu_verify_id(GiltOp *op)
{
  if (gpu_id_dimension(op) < 0)
    return gilt_op_emit_error(op, "dimension must be \"x\", \"y\" or \"z\"");
  return gpu_verify_in_kernel(op);
}

/* ---- launches ------------------------------------------------------------------ */

GiltStatus gpu_verify_launch(GiltOp *op)
{
  if (enclosing_kernel(op))
    return gilt_op_emit_error(op, "cannot be nested in another launch or "
                                  "kernel");
  GiltBlock *body = gilt_region_get_first_block(gilt_op_get_region(op, 0));
  if (!body)
    return gilt_op_emit_error(op, "needs a body");
  if (gilt_block_get_num_arguments(body))
    return gilt_op_emit_error(op, "body takes no arguments (ids are read "
                                  "with gpu.thread_id and friends)");
  if (!gpu_op_is(gilt_block_get_last_op(body), GPU_OP_TERMINATOR))
    return gilt_op_emit_error(op, "body must end in gpu.terminator");
  return GILT_SUCCESS;
}

GiltStatus gpu_verify_terminator(GiltOp *op)
{
  if (!gpu_op_is(gilt_op_get_parent_op(op), GPU_OP_LAUNCH))
    return gilt_op_emit_error(op, "expects parent op 'gpu.launch'");
  return GILT_SUCCESS;
}

/* ---- modules and kernels ----------------------------------------------------------- */

GiltStatus gpu_verify_module(GiltOp *op)
{
  GiltBlock *body = gilt_region_get_first_block(gilt_op_get_region(op, 0));
  for (GiltOp *o = body ? gilt_block_get_first_op(body) : NULL; o;
       o = gilt_op_get_next(o))
    if (!o->info->def || !(o->info->def->traits & GILT_TRAIT_SYMBOL))
      return gilt_op_emit_error(o, "a gpu.module holds only symbols "
                                   "(gpu.func; llvm.func and llvm.global "
                                   "once lowered)");
  return GILT_SUCCESS;
}

static bool is_kernel(GiltOp *func)
{
  return gilt_op_get_attr(func, GPU_KERNEL_ATTR) != NULL;
}

GiltStatus gpu_verify_func(GiltOp *op)
{
  if (gilt_function_like_verify(op))
    return GILT_FAILURE;
  if (!gpu_op_is(gilt_op_get_parent_op(op), GPU_OP_MODULE))
    return gilt_op_emit_error(op, "expects parent op 'gpu.module'");
  if (gilt_function_like_get_type(op)->func.num_results)
    return gilt_op_emit_error(op, "a gpu.func returns nothing");
  GiltAttr *kernel = gilt_op_get_attr(op, GPU_KERNEL_ATTR);
  if (!kernel)
    return GILT_SUCCESS;
  if (kernel->kind != GILT_ATTR_UNIT)
    return gilt_op_emit_error(op, "'" GPU_KERNEL_ATTR "' is a unit "
                                  "attribute");
  GiltType *ft = gilt_function_like_get_type(op);
  for (size_t i = 0; i < ft->func.num_inputs; i++) {
    GiltType *t = ft->func.types[i];
    if (t->kind == GILT_TYPE_MEMREF
            ? gpu_memory_space(t) != GPU_SPACE_GLOBAL
            : t->kind != GILT_TYPE_INDEX && t->kind != GILT_TYPE_INTEGER &&
                  t->kind != GILT_TYPE_FLOAT)
      return gilt_op_emit_error(op, "kernel argument %zu must be a memref "
                                    "in memory space 1 or a scalar",
                                i);
  }
  return GILT_SUCCESS;
}

GiltStatus gpu_verify_return(GiltOp *op)
{
  GiltOp *func = gilt_op_get_parent_op(op);
  if (!gpu_op_is(func, GPU_OP_FUNC))
    return gilt_op_emit_error(op, "expects parent op 'gpu.func'");
  return gilt_function_like_verify_return(func, op);
}

GiltOp *gpu_launch_func_get_kernel(GiltOp *launch)
{
  GiltOp *k = gilt_symbol_lookup_nearest(launch,
                                         gilt_op_get_attr(launch, "kernel"));
  return gpu_op_is(k, GPU_OP_FUNC) ? k : NULL;
}

/* The arguments against the kernel's signature. */
static GiltStatus check_kernel_args(GiltOp *op, GiltOp *kernel)
{
  GiltType *ft = gilt_function_like_get_type(kernel);
  if (!ft) /* the kernel's own verifier reports its malformed type */
    return gilt_op_emit_error(op, "the kernel has no valid function type");
  size_t n = gilt_op_get_num_operands(op) - 6;
  if (n != ft->func.num_inputs)
    return gilt_op_emit_error(op, "passes %zu arguments to a kernel that "
                                  "takes %zu",
                              n, ft->func.num_inputs);
  for (size_t i = 0; i < n; i++)
    if (operand_type(op, 6 + i) != ft->func.types[i])
      return gilt_op_emit_error(op, "argument %zu does not have the type "
                                    "of the kernel's argument",
                                i);
  return GILT_SUCCESS;
}

GiltStatus gpu_verify_launch_func(GiltOp *op)
{
  GiltAttr *ref = gilt_op_get_attr(op, "kernel");
  if (ref->symref.n != 2)
    return gilt_op_emit_error(op, "kernel must name @module::@kernel");
  GiltAttr *shared = gilt_op_get_attr(op, "shared_bytes");
  if (shared && gilt_integer_attr_get_value(shared) < 0)
    return gilt_op_emit_error(op, "shared_bytes must not be negative");
  if (enclosing_kernel(op))
    return gilt_op_emit_error(op, "launches from the host only");
  /* Lowered (an llvm.func of the kernel ABI) or serialized (PTX text),
  ** the kernel has no loop-level signature left to check against. */
  GiltAttr *root = gilt_symbol_ref_attr_get(
      gilt_op_get_context(op), gilt_symbol_ref_attr_get_root(ref), 0, NULL);
  if (gpu_op_is(gilt_symbol_lookup_nearest(op, root), GPU_OP_BINARY) ||
      llvm_op_is(gilt_symbol_lookup_nearest(op, ref), LLVM_OP_FUNC))
    return GILT_SUCCESS;
  GiltOp *kernel = gpu_launch_func_get_kernel(op);
  if (!kernel || !is_kernel(kernel))
    return gilt_op_emit_error(op, "kernel '@%s::@%s' is not a gpu.func with "
                                  "'" GPU_KERNEL_ATTR "' in a gpu.module",
                              ref->symref.names[0]->str,
                              ref->symref.names[1]->str);
  return check_kernel_args(op, kernel);
}

GiltStatus gpu_verify_shuffle(GiltOp *op)
{
  GiltType *t = operand_type(op, 0);
  bool f32 = t->kind == GILT_TYPE_FLOAT && t->fkind == GILT_F32;
  bool i32 = t->kind == GILT_TYPE_INTEGER && t->integer.width == 32;
  if (!f32 && !i32)
    return gilt_op_emit_error(op, "shuffles f32 or i32 values");
  if (result_type(op, 0) != t)
    return gilt_op_emit_error(op, "result must have the value's type");
  if (gilt_type_get_bit_width(operand_type(op, 1)) != 32)
    return gilt_op_emit_error(op, "offset must be an i32");
  return gpu_verify_in_kernel(op);
}

/* ---- device memory ---------------------------------------------------------------- */

/* loop.alloc's checks, on device memory, from the host. */
GiltStatus gpu_verify_alloc(GiltOp *op)
{
  if (expect_space(op, "the result", result_type(op, 0), GPU_SPACE_GLOBAL))
    return GILT_FAILURE;
  if (enclosing_kernel(op))
    return gilt_op_emit_error(op, "allocates from the host only");
  return loop_verify_alloc(op);
}

GiltStatus gpu_verify_dealloc(GiltOp *op)
{
  if (expect_space(op, "the operand", operand_type(op, 0), GPU_SPACE_GLOBAL))
    return GILT_FAILURE;
  if (enclosing_kernel(op))
    return gilt_op_emit_error(op, "frees from the host only");
  return GILT_SUCCESS;
}

static bool same_shape(GiltType *a, GiltType *b)
{
  if (a->shaped.rank != b->shaped.rank || a->shaped.elem != b->shaped.elem)
    return false;
  for (size_t i = 0; i < a->shaped.rank; i++)
    if (a->shaped.shape[i] != b->shaped.shape[i] &&
        a->shaped.shape[i] != GILT_DYNAMIC && b->shaped.shape[i] != GILT_DYNAMIC)
      return false;
  return true;
}

GiltStatus gpu_verify_memcpy(GiltOp *op)
{
  GiltType *dst = operand_type(op, 0), *src = operand_type(op, 1);
  int64_t ds = gpu_memory_space(dst), ss = gpu_memory_space(src);
  bool spaces_ok = (ds == GPU_SPACE_HOST || ds == GPU_SPACE_GLOBAL) &&
                   (ss == GPU_SPACE_HOST || ss == GPU_SPACE_GLOBAL);
  if (!spaces_ok || (ds == GPU_SPACE_HOST && ss == GPU_SPACE_HOST))
    return gilt_op_emit_error(op, "copies between host memory (no memory "
                                  "space) and device memory (space 1), at "
                                  "least one side on the device");
  if (!same_shape(dst, src))
    return gilt_op_emit_error(op, "target and source must have the same "
                                  "shape and element type");
  if (!loop_memref_is_contiguous(dst) || !loop_memref_is_contiguous(src))
    return gilt_op_emit_error(op, "copies contiguous buffers only");
  if (enclosing_kernel(op))
    return gilt_op_emit_error(op, "copies from the host only");
  return GILT_SUCCESS;
}

GiltStatus gpu_verify_device_global(GiltOp *op)
{
  GiltType *t = result_type(op, 0);
  if (expect_space(op, "the result", t, GPU_SPACE_GLOBAL))
    return GILT_FAILURE;
  GiltAttr *name = gilt_op_get_attr(op, "name");
  GiltType *gt = loop_global_type(gilt_symbol_lookup_nearest(op, name));
  if (!gt)
    return gilt_op_emit_error(op, "'%s' is not a valid loop.global",
                              gilt_symbol_ref_attr_get_root(name));
  if (gpu_memref_in_space(gilt_op_get_context(op), gt, GPU_SPACE_GLOBAL) != t)
    return gilt_op_emit_error(op, "result must be the global's type in "
                                  "memory space 1");
  return GILT_SUCCESS;
}

/* ---- serialized ------------------------------------------------------------------ */

GiltStatus gpu_verify_binary(GiltOp *op)
{
  const char *chip =
      gilt_string_attr_get_value(gilt_op_get_attr(op, "chip"), NULL);
  if (strncmp(chip, "sm_", 3) != 0 || !chip[3])
    return gilt_op_emit_error(op, "chip must be a CUDA architecture such as "
                                  "\"sm_80\"");
  return GILT_SUCCESS;
}
