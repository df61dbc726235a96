/*
** gilt/register.h - choosing what a context knows: dialects and passes.
**
** A new context knows only the builtin dialect (builtin.module, the
** container every parse and import produces), as in MLIR. Everything else
** is registered by whoever creates the context: a tool or an embedder that
** wants all of gilt calls gilt_register_everything (MLIR's
** RegisterEverything.h); one that wants less registers each piece.
**
**     GiltContext *ctx = gilt_context_create();
**     gilt_register_everything(ctx);
**
** Registering a dialect twice is harmless; a pass name registered twice
** by different definitions is an error reported by
** gilt_context_register_pass. The ONNX importer registers the dialects it
** produces by itself.
*/
#ifndef GILT_REGISTER_H
#define GILT_REGISTER_H

#include "gilt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One dialect each. */
GILT_API void gilt_register_func_dialect(GiltContext *ctx);
GILT_API void gilt_register_graph_dialect(GiltContext *ctx);
GILT_API void gilt_register_loop_dialect(GiltContext *ctx);
GILT_API void gilt_register_llvm_dialect(GiltContext *ctx);
GILT_API void gilt_register_gpu_dialect(GiltContext *ctx);

/* The passes of one level: the dialect-independent ones of transforms/
** (canonicalize, cse, dce, symbol-dce, inline, loop-invariant-code-motion)
** and those of the graph, loop and llvm levels. */
GILT_API void gilt_register_transforms_passes(GiltContext *ctx);
GILT_API void gilt_register_graph_passes(GiltContext *ctx);
GILT_API void gilt_register_loop_passes(GiltContext *ctx);
GILT_API void gilt_register_llvm_passes(GiltContext *ctx);
/* The lowerings between levels (graph-to-loop, loop-to-llvm), with the dialects they
** produce and the interfaces they attach. */
GILT_API void gilt_register_conversion_passes(GiltContext *ctx);
/* The GPU path (gpu-map-parallel, gpu-outline-kernels, gpu-to-nvvm,
** gpu-module-to-binary), with the gpu dialect. */
GILT_API void gilt_register_gpu_passes(GiltContext *ctx);

/* Makes loop-to-llvm lower the gpu dialect's host ops (gpu.launch_func,
** gpu.alloc, gpu.memcpy, ..., gpu.binary) to calls of the CUDA runtime,
** by attaching its lowering to them (MLIR's gpu-to-llvm, as an external
** model); registers the gpu dialect. */
GILT_API void gilt_register_gpu_host_lowering(GiltContext *ctx);

/* Every dialect, every pass, and both. */
GILT_API void gilt_register_all_dialects(GiltContext *ctx);
GILT_API void gilt_register_all_passes(GiltContext *ctx);
GILT_API void gilt_register_everything(GiltContext *ctx);

#ifdef __cplusplus
}
#endif

#endif /* GILT_REGISTER_H */
