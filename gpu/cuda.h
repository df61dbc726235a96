/*
** cuda.h - running compiled models on an NVIDIA GPU through the CUDA
** driver (gpu/cuda_runtime.c): the functions the host code of a model
** calls (what the gpu dialect's host ops lower to, gpu/host_to_llvm.c),
** and the session the JIT keeps per compiled module for them.
**
** The calling side mirrors jit/abi.h. Device buffers are plain pointers
** in the compiled code (a CUdeviceptr is 64 bits, as a host pointer), so
** a device memref keeps the descriptor of a host one. Each function takes
** the location of the op it stands for (a static string of the module,
** as gilt_rt_fail's) and, when it fails, records the driver's error there
** with gilt_rt_fail and returns NULL or 1: the compiled function then
** returns 1, and gjit prints "LOCATION: error: cuMemAlloc_v2 failed: out
** of memory (CUDA_ERROR_OUT_OF_MEMORY)".
**
** They act on the calling thread's current session, which the JIT makes
** current around each call of a module that needs one (as it installs
** its thread pool): a compiled CUDA model runs only through gilt's JIT,
** never ahead of time. All work goes to the session's one stream.
*/
#ifndef GILT_GPU_CUDA_H
#define GILT_GPU_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "gilt/ir.h"
#include "ir/support/alloc.h" /* GILT_INTERNAL */

/* ---- what compiled host code calls ------------------------------------- */

/* gilt_cuda_memcpy's directions. */
enum {
  GILT_CUDA_HOST_TO_DEVICE = 0,
  GILT_CUDA_DEVICE_TO_HOST = 1,
  GILT_CUDA_DEVICE_TO_DEVICE = 2,
};

/* A device buffer of `bytes` bytes (at least one is allocated), which the
** current call holds: gilt_cuda_free frees it, and the end of the call
** frees it if nothing did (a failed run returns early). NULL on failure. */
void *gilt_cuda_alloc(int64_t bytes, const char *location);
/* Frees a buffer of gilt_cuda_alloc; NULL is ignored. */
int32_t gilt_cuda_free(void *buffer, const char *location);
/* Copies `bytes` bytes in `direction`, once the kernels launched before
** have finished (so a kernel's failure is reported here if not before). */
int32_t gilt_cuda_memcpy(void *dst, const void *src, int64_t bytes,
                         int32_t direction, const char *location);
/* The device copy of the `bytes` bytes of the weight at `host`: uploaded
** on the first call of the session, then the same buffer every time,
** until the compiled module is destroyed. NULL on failure. */
void *gilt_cuda_device_global(const void *host, int64_t bytes,
                              const char *location);
/* The kernel `name` of the PTX text `ptx`: the module is loaded (the
** driver compiles the PTX for the device) on the first call for that
** text of the session, the function looked up on the first call for that
** name; both are kept. NULL on failure, with the PTX compiler's log. */
void *gilt_cuda_function(const char *ptx, const char *name,
                         const char *location);
/* Launches `function` (gilt_cuda_function's) on a grid of blocks with
** `shared_bytes` of dynamic shared memory, on the session's stream.
** args[i] points at the value of the kernel's parameter i (the driver's
** kernelParams). A grid or block with a zero dimension has nothing to do
** and launches nothing; a negative one or one past the driver's 32 bits
** is a failure. */
int32_t gilt_cuda_launch(void *function, int64_t grid_x, int64_t grid_y,
                         int64_t grid_z, int64_t block_x, int64_t block_y,
                         int64_t block_z, int32_t shared_bytes, void **args,
                         const char *location);

/* ---- the JIT's side ------------------------------------------------------ */

/* The prefix of every function above: a module that calls one needs a
** session. */
#define GILT_CUDA_PREFIX "gilt_cuda_"

typedef struct CudaSession CudaSession;

/* Whether this process can run on CUDA: the driver loads and there is a
** device. Reports at loc why not ("cannot run on CUDA: libcuda.so.1 not
** found (no NVIDIA driver on this machine)"). */
GILT_INTERNAL GiltStatus cuda_check_available(GiltLocation *loc);

/* A session on device 0: its primary context and a stream. NULL after
** reporting at loc (its context must outlive the session). */
GILT_INTERNAL CudaSession *cuda_session_create(GiltLocation *loc);
/* Frees what the session holds on the device (weights, modules) and the
** session; NULL is ignored. Reports driver errors at the session's
** location. No call may be in flight. */
GILT_INTERNAL void cuda_session_destroy(CudaSession *s);

/* One call of compiled code on a session: what ends it restores. */
typedef struct CudaCall {
  CudaSession *outer; /* the session current before (NULL, usually) */
  size_t mark;        /* the device buffers held before */
} CudaCall;

/* Makes s the calling thread's current session, with its context current
** in the driver, for one call of compiled code. Fails after reporting at
** the session's location when the context cannot be made current. */
GILT_INTERNAL GiltStatus cuda_session_begin_call(CudaSession *s,
                                                 CudaCall *call);
/* Ends the call: frees the device buffers it still holds, waits for the
** stream, and makes the session before current again. Fails after
** reporting at the session's location when the stream reports an error
** (a kernel's, that no copy waited for). */
GILT_INTERNAL GiltStatus cuda_session_end_call(CudaSession *s,
                                               const CudaCall *call);

/* Records the start of a timed interval on the session's stream (its
** context made current in the calling thread first). */
GILT_INTERNAL GiltStatus cuda_session_timer_start(CudaSession *s);
/* Records its end, waits for it and gives the device time in between in
** *ms (CUDA events: the GPU's clock, what the stream did). */
GILT_INTERNAL GiltStatus cuda_session_timer_stop(CudaSession *s, double *ms);

#endif /* GILT_GPU_CUDA_H */
