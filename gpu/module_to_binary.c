/*
** module_to_binary.c - `gpu-module-to-binary`: each lowered gpu.module
** becomes a gpu.binary holding the PTX of all its kernels, compiled by
** LLVM's NVPTX back end for the chip `chip` (sm_80 by default; any CUDA
** architecture LLVM 19 knows, sm_90 included), triple
** nvptx64-nvidia-cuda, at -O3. The CUDA driver compiles the PTX for the
** GPU it runs on when the module is loaded (cuModuleLoadData).
**
** Requires gpu.module ops of llvm.func and llvm.global only (what
** gpu-to-nvvm makes). Produces gpu.binary ops in their place, of the same
** name, so the host's gpu.launch_func ops still name their kernels. Host
** code is untouched. The translation and the target machine are the llvm
** dialect's (dialects/llvm/), as for host code; what LLVM reports becomes
** a diagnostic at the module's location.
*/
#include "gpu/passes.h"

#include <string.h>

#include "gilt/llvm.h"
#include "gpu/gpu.h"
#include "ir/core.h"

/* Replaces `module` by its gpu.binary; failure after reporting. */
static GiltStatus serialize(GiltOp *module, const char *chip)
{
  GiltContext *ctx = gilt_op_get_context(module);
  GiltLlvmTargetOptions opts = {.opt_level = 3,
                                .triple = "nvptx64-nvidia-cuda",
                                .cpu = chip,
                                .features = ""};
  GiltStrBuf ptx;
  gilt_strbuf_init(&ptx, ctx);
  GiltStatus s = gilt_llvm_emit(module, &opts, GILT_LLVM_OUTPUT_ASSEMBLY,
                                gilt_strbuf_callback, &ptx);
  if (s == GILT_SUCCESS) {
    GiltNamedAttr attrs[] = {
        {"chip", gilt_string_attr_get(ctx, chip, strlen(chip))},
        {"ptx", gilt_string_attr_get(ctx, ptx.data ? ptx.data : "", ptx.len)},
        {"sym_name", gilt_op_get_attr(module, "sym_name")},
    };
    GiltOpState st = gilt_op_state_get("gpu.binary", gilt_op_get_location(module));
    st.num_attrs = 3;
    st.attrs = attrs;
    gilt_block_insert_op_before(module, gilt_op_create(ctx, &st));
    gilt_op_destroy(module);
  }
  gilt_strbuf_free(&ptx);
  return s;
}

static GiltStatus run(GiltPass *pass, GiltOp *module)
{
  const char *chip = gilt_pass_get_option_string(pass, "chip");
  if (strncmp(chip, "sm_", 3) != 0 || !chip[3])
    return gilt_op_emit_error(module, "gpu-module-to-binary: chip '%s' is "
                                      "not a CUDA architecture such as "
                                      "sm_80",
                              chip);
  GiltStatus status = GILT_SUCCESS;
  bool changed = false;
  GiltOp *next;
  for (GiltOp *op = gilt_block_get_first_op(gilt_module_get_body(module)); op;
       op = next) {
    next = gilt_op_get_next(op);
    if (!gpu_op_is(op, GPU_OP_MODULE))
      continue;
    changed = true;
    if (serialize(op, chip))
      status = GILT_FAILURE;
  }
  if (!changed)
    gilt_pass_mark_unchanged(pass);
  return status;
}

static const GiltPassOptionDef options[] = {
    {"chip", GILT_OPTION_STRING, "sm_80",
     "the CUDA architecture to compile for (sm_80, sm_90, ...)"},
    {0},
};

const GiltPassDef gilt_gpu_module_to_binary_pass = {
    .name = "gpu-module-to-binary",
    .description = "Compile each lowered gpu.module to PTX with LLVM's "
                   "NVPTX back end, as a gpu.binary",
    .anchor = "builtin.module",
    .options = options,
    .run = run,
};
