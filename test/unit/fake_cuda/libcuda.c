/*
** libcuda.c - a fake CUDA driver for test/unit/cuda_runtime.c, built as
** test/unit/libfakecuda.so and loaded through GILT_CUDA_LIBRARY: every
** function gpu/cuda_driver.h needs, with canned results, so that the
** runtime's use of the driver and its error messages are tested on a
** machine with no GPU.
**
** "Device memory" is host memory (malloc), so copies really copy. The
** environment steers it: FAKE_CUDA_FAIL=NAME=CODE makes the function NAME
** return CODE (cuModuleLoadDataEx also writes a compiler log),
** FAKE_CUDA_DEVICES=N sets the device count (default 1),
** FAKE_CUDA_MEMORY=BYTES the device memory (cuMemAlloc_v2 fails with
** CUDA_ERROR_OUT_OF_MEMORY past it; default unlimited), and with
** FAKE_CUDA_TRACE set the calls that move data or launch are traced on
** stderr (`fake-cuda: cuLaunchKernel main_kernel_0 grid 1x1x1 ...`), so
** that a lit test follows a whole model's host code through gjit
** (test/lit/gjit/gpu-fake-driver.test). The fake_* counters let the unit
** test see what the runtime asked for. It is no model of the driver
** beyond that: no streams run, no kernel runs (device memory keeps what
** was copied into it).
*/
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda_driver.h"

/* The driver's table declares the fake: its definitions must match. */
#define FAKE_PROTOTYPE(name, params)                                         \
  __attribute__((visibility("default"))) CUresult name params;
CUDA_DRIVER_FUNCTIONS(FAKE_PROTOTYPE)
#undef FAKE_PROTOTYPE

/* What the test reads back (dlsym). */
int fake_live_allocations, fake_module_loads, fake_function_lookups;
int fake_launches, fake_context_retains;
unsigned fake_last_grid[3], fake_last_block[3], fake_last_shared;
int64_t fake_last_param0;

/* One line on stderr under FAKE_CUDA_TRACE. */
static void trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void trace(const char *fmt, ...)
{
  if (!getenv("FAKE_CUDA_TRACE"))
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("fake-cuda: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* CODE when FAKE_CUDA_FAIL names `fn`, else 0. */
static CUresult result(const char *fn)
{
  const char *spec = getenv("FAKE_CUDA_FAIL");
  size_t n = strlen(fn);
  if (spec && !strncmp(spec, fn, n) && spec[n] == '=')
    return atoi(spec + n + 1);
  return 0;
}

static const struct {
  CUresult code;
  const char *name, *text;
} errors[] = {
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
};

static CUresult describe(CUresult code, const char **out, int name)
{
  for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
    if (errors[i].code == code) {
      *out = name ? errors[i].name : errors[i].text;
      return 0;
    }
  *out = NULL;
  return 1;
}

CUresult cuGetErrorString(CUresult e, const char **s)
{
  return describe(e, s, 0);
}

CUresult cuGetErrorName(CUresult e, const char **s)
{
  return describe(e, s, 1);
}

CUresult cuInit(unsigned flags)
{
  (void)flags;
  return result("cuInit");
}

CUresult cuDeviceGetCount(int *count)
{
  const char *n = getenv("FAKE_CUDA_DEVICES");
  *count = n ? atoi(n) : 1;
  return result("cuDeviceGetCount");
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
  *device = ordinal;
  return result("cuDeviceGet");
}

CUresult cuDeviceGetName(char *name, int len, CUdevice device)
{
  (void)device;
  snprintf(name, (size_t)len, "Fake GPU");
  return result("cuDeviceGetName");
}

CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device)
{
  (void)device;
  *value = attribute == 75 ? 8 : 0; /* sm_80 */
  return result("cuDeviceGetAttribute");
}

static int context;

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice device)
{
  (void)device;
  *ctx = (CUcontext)&context;
  fake_context_retains++;
  return result("cuDevicePrimaryCtxRetain");
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device)
{
  (void)device;
  fake_context_retains--;
  return result("cuDevicePrimaryCtxRelease_v2");
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
  (void)ctx;
  return result("cuCtxSetCurrent");
}

static int module;

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n,
                            int *options, void **values)
{
  (void)image;
  CUresult r = result("cuModuleLoadDataEx");
  for (unsigned i = 0; r && i + 1 < n; i++)
    if (options[i] == 5 && options[i + 1] == 6)
      snprintf(values[i], (size_t)(uintptr_t)values[i + 1],
               "ptxas fatal: fake compiler error");
  if (!r) {
    *m = (CUmodule)&module;
    fake_module_loads++;
    trace("cuModuleLoadDataEx %s", strstr(image, ".entry") ? "(kernels)"
                                                           : "(no kernel)");
  }
  return r;
}

CUresult cuModuleUnload(CUmodule m)
{
  (void)m;
  fake_module_loads--;
  return result("cuModuleUnload");
}

/* A function handle is its name's slot, so a launch can name it. */
static char functions[256][64];

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
  (void)m;
  char *slot = functions[fake_function_lookups % 256];
  snprintf(slot, sizeof functions[0], "%s", name);
  *f = (CUfunction)slot;
  fake_function_lookups++;
  return result("cuModuleGetFunction");
}

/* The bytes allocated and not freed, against FAKE_CUDA_MEMORY. Each
** allocation's size sits in a header before it. */
static size_t live_bytes;
#define HEADER 16

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
  CUresult r = result("cuMemAlloc_v2");
  if (r)
    return r;
  const char *memory = getenv("FAKE_CUDA_MEMORY");
  if (memory && live_bytes + bytes > strtoull(memory, NULL, 10))
    return CUDA_ERROR_OUT_OF_MEMORY;
  char *block = malloc(HEADER + bytes);
  memcpy(block, &bytes, sizeof bytes);
  *p = (CUdeviceptr)(uintptr_t)(block + HEADER);
  live_bytes += bytes;
  fake_live_allocations++;
  trace("cuMemAlloc_v2 %zu bytes", bytes);
  return 0;
}

CUresult cuMemFree_v2(CUdeviceptr p)
{
  char *block = (char *)(uintptr_t)p - HEADER;
  size_t bytes;
  memcpy(&bytes, block, sizeof bytes);
  live_bytes -= bytes;
  free(block);
  fake_live_allocations--;
  trace("cuMemFree_v2");
  return result("cuMemFree_v2");
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
  memcpy((void *)(uintptr_t)dst, src, n);
  trace("cuMemcpyHtoD_v2 %zu bytes", n);
  return result("cuMemcpyHtoD_v2");
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
  memcpy(dst, (void *)(uintptr_t)src, n);
  trace("cuMemcpyDtoH_v2 %zu bytes", n);
  return result("cuMemcpyDtoH_v2");
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
  memcpy((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
  trace("cuMemcpyDtoD_v2 %zu bytes", n);
  return result("cuMemcpyDtoD_v2");
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream stream, void **params,
                        void **extra)
{
  (void)stream, (void)extra;
  CUresult r = result("cuLaunchKernel");
  if (r)
    return r;
  fake_launches++;
  fake_last_grid[0] = gx, fake_last_grid[1] = gy, fake_last_grid[2] = gz;
  fake_last_block[0] = bx, fake_last_block[1] = by, fake_last_block[2] = bz;
  fake_last_shared = shared;
  if (params)
    memcpy(&fake_last_param0, params[0], sizeof fake_last_param0);
  trace("cuLaunchKernel %s grid %ux%ux%u block %ux%ux%u shared %u",
        (const char *)f, gx, gy, gz, bx, by, bz, shared);
  return 0;
}

static int stream, event;

CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
  (void)flags;
  *s = (CUstream)&stream;
  return result("cuStreamCreate");
}

CUresult cuStreamDestroy_v2(CUstream s)
{
  (void)s;
  return result("cuStreamDestroy_v2");
}

CUresult cuStreamSynchronize(CUstream s)
{
  (void)s;
  return result("cuStreamSynchronize");
}

CUresult cuEventCreate(CUevent *e, unsigned flags)
{
  (void)flags;
  *e = (CUevent)&event;
  return result("cuEventCreate");
}

CUresult cuEventDestroy_v2(CUevent e)
{
  (void)e;
  return result("cuEventDestroy_v2");
}

CUresult cuEventRecord(CUevent e, CUstream s)
{
  (void)e, (void)s;
  return result("cuEventRecord");
}

CUresult cuEventSynchronize(CUevent e)
{
  (void)e;
  return result("cuEventSynchronize");
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
  (void)start, (void)end;
  *ms = 1.5f;
  return result("cuEventElapsedTime");
}
