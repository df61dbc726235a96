/*
** gpu.h - the gpu dialect: launches of thread grids, device modules of
** kernels, thread ids and barriers, device buffers, and modules
** serialized to PTX. The ops are listed in gpu.def; this header is the
** contract between the dialect's files (gpu.c verifiers, assembly.c
** custom forms) and the passes of this folder (mapping, outlining, NVVM
** lowering, serialization) and the host lowering.
*/
#ifndef GILT_GPU_GPU_H
#define GILT_GPU_GPU_H

#include "gilt/asm.h"
#include "gilt/interfaces.h"
#include "ir/asm/function_asm.h"
#include "ir/op_def.h"

GILT_INTERNAL extern const GiltDialectDef gilt_gpu_dialect;
GILT_INTERNAL extern const GiltMemoryEffectsMethods gpu_recursive_effects;
/* How the device ops lower in gpu-to-nvvm (to_nvvm.c). */
GILT_INTERNAL extern const struct L2LLoweringMethods gpu_nvvm_lowering;

/* The hooks the rows of gpu.def name. */
#define GPU_HOOKS(X)                                                         \
  X(GiltStatus, verify_id, (GiltOp *))                                       \
  X(GiltStatus, verify_launch, (GiltOp *))                                   \
  X(GiltStatus, verify_terminator, (GiltOp *))                               \
  X(GiltStatus, verify_module, (GiltOp *))                                   \
  X(GiltStatus, verify_func, (GiltOp *))                                     \
  X(GiltStatus, verify_return, (GiltOp *))                                   \
  X(GiltStatus, verify_launch_func, (GiltOp *))                              \
  X(GiltStatus, verify_in_kernel, (GiltOp *))                                \
  X(GiltStatus, verify_barrier, (GiltOp *))                                  \
  X(GiltStatus, verify_shuffle, (GiltOp *))                                  \
  X(GiltStatus, verify_alloc, (GiltOp *))                                    \
  X(GiltStatus, verify_dealloc, (GiltOp *))                                  \
  X(GiltStatus, verify_memcpy, (GiltOp *))                                   \
  X(GiltStatus, verify_device_global, (GiltOp *))                            \
  X(GiltStatus, verify_binary, (GiltOp *))                                   \
  X(void, print_bare, (GiltOp *, GiltAsmPrinter *))                          \
  X(GiltStatus, parse_bare, (GiltAsmParser *, GiltOpBuild *))                \
  X(void, print_id, (GiltOp *, GiltAsmPrinter *))                            \
  X(GiltStatus, parse_id, (GiltAsmParser *, GiltOpBuild *))                  \
  X(void, print_launch, (GiltOp *, GiltAsmPrinter *))                        \
  X(GiltStatus, parse_launch, (GiltAsmParser *, GiltOpBuild *))              \
  X(void, print_module, (GiltOp *, GiltAsmPrinter *))                        \
  X(GiltStatus, parse_module, (GiltAsmParser *, GiltOpBuild *))              \
  X(void, print_launch_func, (GiltOp *, GiltAsmPrinter *))                   \
  X(GiltStatus, parse_launch_func, (GiltAsmParser *, GiltOpBuild *))         \
  X(void, print_binary, (GiltOp *, GiltAsmPrinter *))                        \
  X(GiltStatus, parse_binary, (GiltAsmParser *, GiltOpBuild *))

#define GPU_DECLARE_HOOK(ret, name, args) GILT_INTERNAL ret gpu_##name args;
GPU_HOOKS(GPU_DECLARE_HOOK)
#undef GPU_DECLARE_HOOK

typedef enum GpuOpId {
#define GILT_OP(sym, ...) GPU_OP_##sym,
#include "gpu/gpu.def"
#undef GILT_OP
  GPU_NUM_OPS
} GpuOpId;

GILT_INTERNAL extern const GiltOpDef gpu_ops[GPU_NUM_OPS];

static inline bool gpu_op_is(const GiltOp *op, GpuOpId id)
{
  return gilt_op_is(op, &gpu_ops[id]);
}

/* Which gpu op `op` is; GPU_NUM_OPS for any other op. */
GILT_INTERNAL GpuOpId gpu_op_id(const GiltOp *op);

/* The memory spaces of memrefs (their `memory_space`, an integer). */
enum {
  GPU_SPACE_HOST = 0,   /* no memory space: host memory */
  GPU_SPACE_GLOBAL = 1, /* device global memory */
  GPU_SPACE_SHARED = 3  /* a block's shared memory */
};

/* The unit attribute that marks a gpu.func as a kernel. */
#define GPU_KERNEL_ATTR "gpu.kernel"

/* The memory space of a memref type: its integer attribute, 0 when it
** has none; -1 for an attribute that is not an integer. */
GILT_INTERNAL int64_t gpu_memory_space(GiltType *memref);
/* The memref type `memref` in memory space `space` (0: none). */
GILT_INTERNAL GiltType *gpu_memref_in_space(GiltContext *ctx,
                                            GiltType *memref, int64_t space);
/* The x, y, z dimension an id op's `dimension` names: 0, 1, 2; -1 when
** it names none. */
GILT_INTERNAL int gpu_id_dimension(GiltOp *op);
/* Whether op is a loop.parallel of attribute `mapping` "blocks" (its
** iterations are a grid's blocks) or "threads" (a block's threads, which
** may wait for each other at gpu.barrier): graph-to-loop's block tiles,
** which gpu-map-parallel launches. */
GILT_INTERNAL bool gpu_loop_is_mapped(GiltOp *op, const char *mapping);
/* The gpu.func a gpu.launch_func launches, or NULL. */
GILT_INTERNAL GiltOp *gpu_launch_func_get_kernel(GiltOp *launch);

/* ---- build.c: building the loop and gpu ops the passes emit ------------- */

/* Where new ops go (g->b) and the location they get. */
typedef struct GpuBuilder {
  GiltContext *ctx;
  GiltBuilder *b;
  GiltLocation *loc;
  GiltType *index;
} GpuBuilder;

GILT_INTERNAL void gpu_builder_init(GpuBuilder *g, GiltContext *ctx);
GILT_INTERNAL void gpu_builder_free(GpuBuilder *g);
/* The op `name` at the insertion point; it must verify as built (the
** passes build only well-formed ops), so it is never NULL. */
GILT_INTERNAL GiltOp *gpu_build(GpuBuilder *g, const char *name,
                                GiltType *result, size_t n,
                                GiltValue *const *operands, size_t num_attrs,
                                const GiltNamedAttr *attrs,
                                size_t num_regions);
GILT_INTERNAL GiltValue *gpu_build_index(GpuBuilder *g, int64_t v);
/* `name` (loop.addi, loop.muli, ...) of two index values. */
GILT_INTERNAL GiltValue *gpu_build_arith(GpuBuilder *g, const char *name,
                                         GiltValue *a, GiltValue *b);
/* gpu.thread_id and friends (`id`) of dimension x. */
GILT_INTERNAL GiltValue *gpu_build_id_x(GpuBuilder *g, GpuOpId id);
/* A gpu.launch of grid x, y, z and block x, y, z (`sizes`) whose body is
** only its gpu.terminator. */
GILT_INTERNAL GiltOp *gpu_build_launch(GpuBuilder *g,
                                       GiltValue *const *sizes);
/* A loop.for over [lower, upper) by step, no results, with an empty body
** (its terminator only) whose argument is the induction variable. */
GILT_INTERNAL GiltOp *gpu_build_for(GpuBuilder *g, GiltValue *lower,
                                    GiltValue *upper, GiltValue *step);
/* The block of region 0 of `op`. */
GILT_INTERNAL GiltBlock *gpu_body(GiltOp *op);

#endif /* GILT_GPU_GPU_H */
