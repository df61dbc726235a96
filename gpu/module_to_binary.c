/*
** module_to_binary.c - `gpu-module-to-binary`: each lowered gpu.module
** becomes a gpu.binary holding the PTX of all its kernels, compiled by
** LLVM's NVPTX back end for the chip `chip` (sm_80 by default; any CUDA
** architecture LLVM 19 knows, sm_90 included), triple
** nvptx64-nvidia-cuda, at -O3. The CUDA driver compiles the PTX for the
** GPU it runs on when the module is loaded (cuModuleLoadData).
**
** Math NVPTX has no instruction for (sin, pow, tanh, ...) is a call of
** CUDA's libdevice (__nv_sinf: gpu-to-nvvm's lowering); a module that
** declares such a function is linked with libdevice.10.bc, the file of
** the option `libdevice` or else the first found of $CUDA_PATH's,
** /usr/local/cuda's and Debian's nvidia-cuda-toolkit's. What it uses is
** inlined; the PTX calls nothing.
**
** Requires gpu.module ops of llvm.func and llvm.global only (what
** gpu-to-nvvm makes). Produces gpu.binary ops in their place, of the same
** name, so the host's gpu.launch_func ops still name their kernels. Host
** code is untouched. The translation and the target machine are the llvm
** dialect's (dialects/llvm/), as for host code; what LLVM reports becomes
** a diagnostic at the module's location.
*/
#include "gpu/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gilt/llvm.h"
#include "gpu/gpu.h"
#include "ir/core.h"

/* The first libdevice function `module` declares (calls), or NULL. */
static const char *libdevice_callee(GiltOp *module)
{
  GiltBlock *body = gilt_region_get_first_block(gilt_op_get_region(module, 0));
  for (GiltOp *op = gilt_block_get_first_op(body); op;
       op = gilt_op_get_next(op)) {
    GiltAttr *name = gilt_op_get_attr(op, "sym_name");
    const char *text = name ? gilt_string_attr_get_value(name, NULL) : "";
    if (strncmp(text, "__nv_", 5) == 0 && gilt_op_get_num_regions(op) &&
        !gilt_region_get_first_block(gilt_op_get_region(op, 0)))
      return text; /* an llvm.func without a body */
  }
  return NULL;
}

/* libdevice's path: `option` if given, else the first of the toolkit's
** usual places that is readable (into `path`), else NULL. */
static const char *find_libdevice(const char *option, char *path, size_t size)
{
  if (*option)
    return option;
  const char *cuda = getenv("CUDA_PATH");
  const char *const places[] = {
      cuda && *cuda ? cuda : NULL,
      "/usr/local/cuda",
  };
  for (size_t i = 0; i < sizeof places / sizeof *places; i++) {
    if (!places[i])
      continue;
    snprintf(path, size, "%s/nvvm/libdevice/libdevice.10.bc", places[i]);
    if (access(path, R_OK) == 0)
      return path;
  }
  snprintf(path, size, "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
  return access(path, R_OK) == 0 ? path : NULL;
}

/* Replaces `module` by its gpu.binary; failure after reporting. */
static GiltStatus serialize(GiltOp *module, const char *chip,
                            const char *libdevice_option)
{
  GiltContext *ctx = gilt_op_get_context(module);
  GiltLlvmTargetOptions opts = {.opt_level = 3,
                                .triple = "nvptx64-nvidia-cuda",
                                .cpu = chip,
                                .features = ""};
  const char *callee = libdevice_callee(module);
  char path[4096];
  if (callee) {
    opts.bitcode_library = find_libdevice(libdevice_option, path, sizeof path);
    if (!opts.bitcode_library)
      return gilt_op_emit_error(module, "gpu-module-to-binary: the kernels "
                                        "call '%s' of CUDA's libdevice, "
                                        "which is not in $CUDA_PATH, "
                                        "/usr/local/cuda or "
                                        "/usr/lib/nvidia-cuda-toolkit; give "
                                        "its path as the option libdevice",
                                callee);
  }
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
  const char *libdevice = gilt_pass_get_option_string(pass, "libdevice");
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
    if (serialize(op, chip, libdevice))
      status = GILT_FAILURE;
  }
  if (!changed)
    gilt_pass_mark_unchanged(pass);
  return status;
}

static const GiltPassOptionDef options[] = {
    {"chip", GILT_OPTION_STRING, "sm_80",
     "the CUDA architecture to compile for (sm_80, sm_90, ...)"},
    {"libdevice", GILT_OPTION_STRING, "",
     "CUDA's libdevice.10.bc, for kernels that call its math (default: "
     "found in the CUDA toolkit)"},
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
