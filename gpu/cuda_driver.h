/*
** cuda_driver.h - the part of NVIDIA's CUDA driver API gilt uses, loaded
** at run time (gpu/cuda_driver.c): the few types and constants declared
** here by hand, and a table of the driver's functions found by dlsym.
** gilt neither includes cuda.h nor links libcuda, so it builds, and
** compiles for CUDA, on a machine with no CUDA at all.
**
** The names are the exported symbols, versioned ones included
** (cuMemAlloc_v2 is what cuda.h's cuMemAlloc stands for since CUDA 3.2),
** and the signatures are cuda.h's: a CUdeviceptr is a 64-bit integer, a
** CUdevice an int, the handles opaque pointers, every call returns a
** CUresult (0 is success). Internal to gpu/.
*/
#ifndef GILT_GPU_CUDA_DRIVER_H
#define GILT_GPU_CUDA_DRIVER_H

#include <stddef.h>

#include "ir/support/alloc.h" /* GILT_INTERNAL */

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

#define CUDA_SUCCESS 0
/* cuMemAlloc found no room: the cached buffers are freed, and it is
** tried again. */
#define CUDA_ERROR_OUT_OF_MEMORY 2
/* CUjit_option: where cuModuleLoadDataEx writes the PTX compiler's
** errors, and that buffer's size (in, then the length written, out). */
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
/* CUdevice_attribute: the compute capability. */
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

/* Every driver function gilt calls: X(symbol, parameters). */
#define CUDA_DRIVER_FUNCTIONS(X)                                             \
  X(cuGetErrorString, (CUresult error, const char **text))                   \
  X(cuGetErrorName, (CUresult error, const char **name))                     \
  X(cuInit, (unsigned flags))                                                \
  X(cuDeviceGetCount, (int *count))                                          \
  X(cuDeviceGet, (CUdevice *device, int ordinal))                            \
  X(cuDeviceGetName, (char *name, int len, CUdevice device))                 \
  X(cuDeviceGetAttribute, (int *value, int attribute, CUdevice device))      \
  X(cuDevicePrimaryCtxRetain, (CUcontext *context, CUdevice device))         \
  X(cuDevicePrimaryCtxRelease_v2, (CUdevice device))                         \
  X(cuCtxSetCurrent, (CUcontext context))                                    \
  X(cuModuleLoadDataEx, (CUmodule *module, const void *image,                \
                         unsigned num_options, int *options, void **values)) \
  X(cuModuleUnload, (CUmodule module))                                       \
  X(cuModuleGetFunction, (CUfunction *function, CUmodule module,             \
                          const char *name))                                 \
  X(cuMemAlloc_v2, (CUdeviceptr *ptr, size_t bytes))                         \
  X(cuMemFree_v2, (CUdeviceptr ptr))                                         \
  X(cuMemcpyHtoD_v2, (CUdeviceptr dst, const void *src, size_t bytes))       \
  X(cuMemcpyDtoH_v2, (void *dst, CUdeviceptr src, size_t bytes))             \
  X(cuMemcpyDtoD_v2, (CUdeviceptr dst, CUdeviceptr src, size_t bytes))       \
  X(cuLaunchKernel, (CUfunction function, unsigned grid_x, unsigned grid_y,  \
                     unsigned grid_z, unsigned block_x, unsigned block_y,    \
                     unsigned block_z, unsigned shared_bytes,                \
                     CUstream stream, void **params, void **extra))          \
  X(cuStreamCreate, (CUstream *stream, unsigned flags))                      \
  X(cuStreamDestroy_v2, (CUstream stream))                                   \
  X(cuStreamSynchronize, (CUstream stream))                                  \
  X(cuEventCreate, (CUevent *event, unsigned flags))                         \
  X(cuEventDestroy_v2, (CUevent event))                                      \
  X(cuEventRecord, (CUevent event, CUstream stream))                         \
  X(cuEventSynchronize, (CUevent event))                                     \
  X(cuEventElapsedTime, (float *ms, CUevent start, CUevent end))

typedef struct CudaDriver {
#define CUDA_DRIVER_FIELD(name, params) CUresult (*name) params;
  CUDA_DRIVER_FUNCTIONS(CUDA_DRIVER_FIELD)
#undef CUDA_DRIVER_FIELD
} CudaDriver;

/* The environment variable naming the library to load instead of
** libcuda.so.1: for tests, which load a fake driver with canned results. */
#define CUDA_DRIVER_LIBRARY_ENV "GILT_CUDA_LIBRARY"

/* The driver, loaded and initialized (cuInit) on the first call, from
** any thread; later calls return the same table, or fail the same way.
** NULL when it cannot be: no libcuda.so.1 (no NVIDIA driver), a symbol
** missing (a driver too old), or cuInit failing; then `why` (of `cap`
** bytes) says so in a sentence that starts "cannot run on CUDA: ". */
GILT_INTERNAL const CudaDriver *cuda_driver_get(char *why, size_t cap);

/* Writes "CALL failed: TEXT (NAME)" for the driver's result `r` of
** `call` into buf (of cap bytes), with cuGetErrorString's text and
** cuGetErrorName's name (or the number, for a code the driver does not
** know). */
GILT_INTERNAL void cuda_driver_describe(const CudaDriver *d, const char *call,
                                        CUresult r, char *buf, size_t cap);

#endif /* GILT_GPU_CUDA_DRIVER_H */
