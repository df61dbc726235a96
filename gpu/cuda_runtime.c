/*
** cuda_runtime.c - what compiled host code calls to run kernels (the
** gilt_cuda_* functions of gpu/cuda.h), over the driver cuda_driver.c
** loads, and the sessions the JIT keeps them in.
**
** A session is one compiled module's use of the GPU: device 0's primary
** context (shared with anything else in the process that uses the
** driver, as the CUDA runtime shares it), one stream every launch goes
** to, and what is worth keeping between calls: the loaded PTX modules
** and their kernels, keyed by the addresses of the module's static
** strings, the device copies of the weights, keyed by their host
** addresses, and the device buffers calls freed, kept for the next
** allocation of the same size (PyTorch's caching allocator, in its
** simplest form): a model's calls allocate the same buffers each time,
** and cuMemAlloc and cuMemFree cost tens of microseconds each, cuMemFree
** waiting for the device besides. Reusing a buffer at once is safe: the
** kernels that used it and those that will are on the one stream, in
** order. A mutex guards them, since calls may run in several threads.
**
** Per thread: the current session (set around each call by the JIT, as
** jit/runtime.c's thread pool), the device buffers the call holds, given
** back to the session when the call ends whatever path it took, and the
** text of the last failure, which gilt_rt_fail records by address.
**
** Copies are synchronous (cuMemcpy*_v2, after cuStreamSynchronize): the
** host buffer may be freed as soon as the call returns, and a kernel's
** asynchronous failure surfaces at the copy that waited for it, which
** names the call that reported it.
*/
#include "gpu/cuda.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda_driver.h"
#include "jit/abi.h"

typedef struct CudaModule {
  const char *ptx;
  CUmodule module;
} CudaModule;

typedef struct CudaFunction {
  const char *ptx, *name;
  CUfunction function;
} CudaFunction;

typedef struct CudaGlobal {
  const void *host;
  CUdeviceptr device;
} CudaGlobal;

/* A device buffer and its size, as cuMemAlloc gave it. */
typedef struct CudaBlock {
  CUdeviceptr p;
  size_t bytes;
} CudaBlock;

struct CudaSession {
  const CudaDriver *d;
  GiltLocation *loc;
  CUdevice device;
  CUcontext context;
  CUstream stream;
  CUevent start, end; /* the timer's, created on first use */
  pthread_mutex_t mu; /* guards the arrays below */
  CudaModule *modules;
  size_t num_modules, cap_modules;
  CudaFunction *functions;
  size_t num_functions, cap_functions;
  CudaGlobal *globals;
  size_t num_globals, cap_globals;
  CudaBlock *cached; /* freed by calls, for the next of their size */
  size_t num_cached, cap_cached;
};

static _Thread_local CudaSession *current;
static _Thread_local CudaBlock *held;
static _Thread_local size_t num_held, cap_held;
/* The last failure's text: gilt_rt_fail keeps its address. */
static _Thread_local char message[1024];

/* Grows an array of `size`-byte elements to hold one more; false when out
** of memory. */
static bool reserve(void **array, size_t num, size_t *cap, size_t size)
{
  if (num < *cap)
    return true;
  size_t n = *cap ? 2 * *cap : 16;
  void *grown = realloc(*array, n * size);
  if (!grown)
    return false;
  *array = grown;
  *cap = n;
  return true;
}

/* ---- failures of compiled code --------------------------------------------- */

/* Records `text` at `location`; returns 1, the compiled code's failure. */
static int32_t fail(const char *location, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int32_t fail(const char *location, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  gilt_rt_fail(message, location);
  return 1;
}

/* Records the driver's error `r` of `call`; returns 1. */
static int32_t fail_call(CudaSession *s, const char *call, CUresult r,
                         const char *location)
{
  cuda_driver_describe(s->d, call, r, message, sizeof message);
  gilt_rt_fail(message, location);
  return 1;
}

/* The current session, or NULL after recording that there is none. */
static CudaSession *session(const char *location)
{
  if (!current)
    fail(location, "no CUDA session: code compiled for CUDA runs only "
                   "through gilt's JIT");
  return current;
}

/* ---- the cache of device buffers ------------------------------------------ */

/* A cached buffer of exactly `bytes`, taken out of the cache; 0 when
** there is none. */
static CUdeviceptr take_cached(CudaSession *s, size_t bytes)
{
  CUdeviceptr p = 0;
  pthread_mutex_lock(&s->mu);
  for (size_t i = s->num_cached; i-- > 0;)
    if (s->cached[i].bytes == bytes) {
      p = s->cached[i].p;
      s->cached[i] = s->cached[--s->num_cached];
      break;
    }
  pthread_mutex_unlock(&s->mu);
  return p;
}

/* Keeps a buffer the call is done with for a later allocation; frees it
** when the cache cannot grow. */
static CUresult give_back(CudaSession *s, CudaBlock block)
{
  pthread_mutex_lock(&s->mu);
  bool kept = reserve((void **)&s->cached, s->num_cached, &s->cap_cached,
                      sizeof *s->cached);
  if (kept)
    s->cached[s->num_cached++] = block;
  pthread_mutex_unlock(&s->mu);
  return kept ? CUDA_SUCCESS : s->d->cuMemFree_v2(block.p);
}

/* Frees every cached buffer, before retrying an allocation the device
** had no room for; the first failure's result. */
static CUresult free_cached(CudaSession *s)
{
  CUresult first = CUDA_SUCCESS;
  pthread_mutex_lock(&s->mu);
  while (s->num_cached) {
    CUresult r = s->d->cuMemFree_v2(s->cached[--s->num_cached].p);
    if (first == CUDA_SUCCESS)
      first = r;
  }
  pthread_mutex_unlock(&s->mu);
  return first;
}

/* A device buffer of `bytes` (at least 1), from the cache or the driver;
** the driver's result. */
static CUresult device_alloc(CudaSession *s, CUdeviceptr *p, size_t bytes)
{
  if ((*p = take_cached(s, bytes)))
    return CUDA_SUCCESS;
  CUresult r = s->d->cuMemAlloc_v2(p, bytes);
  if (r == CUDA_ERROR_OUT_OF_MEMORY && free_cached(s) == CUDA_SUCCESS)
    r = s->d->cuMemAlloc_v2(p, bytes);
  return r;
}

/* ---- what compiled code calls ----------------------------------------------- */

void *gilt_cuda_alloc(int64_t bytes, const char *location)
{
  CudaSession *s = session(location);
  if (!s)
    return NULL;
  if (bytes < 0) {
    fail(location, "cannot allocate %lld bytes on the device",
         (long long)bytes);
    return NULL;
  }
  if (!reserve((void **)&held, num_held, &cap_held, sizeof *held)) {
    fail(location, "out of memory");
    return NULL;
  }
  CudaBlock block = {0, bytes ? (size_t)bytes : 1};
  CUresult r = device_alloc(s, &block.p, block.bytes);
  if (r != CUDA_SUCCESS) {
    fail_call(s, "cuMemAlloc_v2", r, location);
    return NULL;
  }
  held[num_held++] = block;
  return (void *)(uintptr_t)block.p;
}

int32_t gilt_cuda_free(void *buffer, const char *location)
{
  CudaSession *s = session(location);
  if (!s)
    return 1;
  if (!buffer)
    return 0;
  CudaBlock block = {(CUdeviceptr)(uintptr_t)buffer, 0};
  for (size_t i = num_held; i-- > 0;)
    if (held[i].p == block.p) {
      block = held[i];
      memmove(&held[i], &held[i + 1], (--num_held - i) * sizeof *held);
      break;
    }
  /* One the call does not hold has no size to be cached by. */
  CUresult r = block.bytes ? give_back(s, block) : s->d->cuMemFree_v2(block.p);
  return r == CUDA_SUCCESS ? 0 : fail_call(s, "cuMemFree_v2", r, location);
}

int32_t gilt_cuda_memcpy(void *dst, const void *src, int64_t bytes,
                         int32_t direction, const char *location)
{
  CudaSession *s = session(location);
  if (!s)
    return 1;
  if (bytes < 0)
    return fail(location, "cannot copy %lld bytes", (long long)bytes);
  CUresult r = s->d->cuStreamSynchronize(s->stream);
  if (r != CUDA_SUCCESS)
    return fail_call(s, "cuStreamSynchronize", r, location);
  if (bytes == 0)
    return 0;
  CUdeviceptr to = (CUdeviceptr)(uintptr_t)dst;
  CUdeviceptr from = (CUdeviceptr)(uintptr_t)src;
  switch (direction) {
  case GILT_CUDA_HOST_TO_DEVICE:
    r = s->d->cuMemcpyHtoD_v2(to, src, (size_t)bytes);
    return r ? fail_call(s, "cuMemcpyHtoD_v2", r, location) : 0;
  case GILT_CUDA_DEVICE_TO_HOST:
    r = s->d->cuMemcpyDtoH_v2(dst, from, (size_t)bytes);
    return r ? fail_call(s, "cuMemcpyDtoH_v2", r, location) : 0;
  case GILT_CUDA_DEVICE_TO_DEVICE:
    r = s->d->cuMemcpyDtoD_v2(to, from, (size_t)bytes);
    return r ? fail_call(s, "cuMemcpyDtoD_v2", r, location) : 0;
  default:
    return fail(location, "no copy direction %d", direction);
  }
}

/* The weight's device copy, uploaded now if the session has none;
** 0 after recording a failure. Called with s->mu held. */
static CUdeviceptr upload(CudaSession *s, const void *host, int64_t bytes,
                          const char *location)
{
  for (size_t i = 0; i < s->num_globals; i++)
    if (s->globals[i].host == host)
      return s->globals[i].device;
  if (!reserve((void **)&s->globals, s->num_globals, &s->cap_globals,
               sizeof *s->globals)) {
    fail(location, "out of memory");
    return 0;
  }
  CUdeviceptr p = 0;
  CUresult r = s->d->cuMemAlloc_v2(&p, bytes ? (size_t)bytes : 1);
  if (r != CUDA_SUCCESS) {
    fail_call(s, "cuMemAlloc_v2", r, location);
    return 0;
  }
  r = s->d->cuMemcpyHtoD_v2(p, host, (size_t)bytes);
  if (r != CUDA_SUCCESS) {
    fail_call(s, "cuMemcpyHtoD_v2", r, location);
    s->d->cuMemFree_v2(p); /* the copy's error is the one to report */
    return 0;
  }
  s->globals[s->num_globals++] = (CudaGlobal){host, p};
  return p;
}

void *gilt_cuda_device_global(const void *host, int64_t bytes,
                              const char *location)
{
  CudaSession *s = session(location);
  if (!s)
    return NULL;
  if (bytes < 0) {
    fail(location, "a weight of %lld bytes", (long long)bytes);
    return NULL;
  }
  pthread_mutex_lock(&s->mu);
  CUdeviceptr p = upload(s, host, bytes, location);
  pthread_mutex_unlock(&s->mu);
  return (void *)(uintptr_t)p;
}

/* The loaded module of `ptx`, loading it now if the session has none;
** NULL after recording a failure, with the PTX compiler's log. Called
** with s->mu held. */
static CUmodule load_module(CudaSession *s, const char *ptx,
                            const char *location)
{
  for (size_t i = 0; i < s->num_modules; i++)
    if (s->modules[i].ptx == ptx)
      return s->modules[i].module;
  if (!reserve((void **)&s->modules, s->num_modules, &s->cap_modules,
               sizeof *s->modules)) {
    fail(location, "out of memory");
    return NULL;
  }
  char log[512] = "";
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, (void *)(uintptr_t)sizeof log};
  CUmodule m = NULL;
  CUresult r = s->d->cuModuleLoadDataEx(&m, ptx, 2, options, values);
  if (r != CUDA_SUCCESS) {
    char what[512];
    cuda_driver_describe(s->d, "cuModuleLoadDataEx", r, what, sizeof what);
    log[sizeof log - 1] = '\0';
    fail(location, "%s%s%s", what, *log ? ": " : "", log);
    return NULL;
  }
  s->modules[s->num_modules++] = (CudaModule){ptx, m};
  return m;
}

/* gilt_cuda_function with s->mu held. */
static CUfunction find_function(CudaSession *s, const char *ptx,
                                const char *name, const char *location)
{
  for (size_t i = 0; i < s->num_functions; i++)
    if (s->functions[i].ptx == ptx && s->functions[i].name == name)
      return s->functions[i].function;
  CUmodule m = load_module(s, ptx, location);
  if (!m)
    return NULL;
  if (!reserve((void **)&s->functions, s->num_functions, &s->cap_functions,
               sizeof *s->functions)) {
    fail(location, "out of memory");
    return NULL;
  }
  CUfunction f = NULL;
  CUresult r = s->d->cuModuleGetFunction(&f, m, name);
  if (r != CUDA_SUCCESS) {
    char what[512];
    cuda_driver_describe(s->d, "cuModuleGetFunction", r, what, sizeof what);
    fail(location, "%s: no kernel '%s'", what, name);
    return NULL;
  }
  s->functions[s->num_functions++] = (CudaFunction){ptx, name, f};
  return f;
}

void *gilt_cuda_function(const char *ptx, const char *name,
                         const char *location)
{
  CudaSession *s = session(location);
  if (!s)
    return NULL;
  pthread_mutex_lock(&s->mu);
  CUfunction f = find_function(s, ptx, name, location);
  pthread_mutex_unlock(&s->mu);
  return f;
}

int32_t gilt_cuda_launch(void *function, int64_t grid_x, int64_t grid_y,
                         int64_t grid_z, int64_t block_x, int64_t block_y,
                         int64_t block_z, int32_t shared_bytes, void **args,
                         const char *location)
{
  CudaSession *s = session(location);
  if (!s)
    return 1;
  int64_t dims[6] = {grid_x, grid_y, grid_z, block_x, block_y, block_z};
  bool empty = false;
  for (int i = 0; i < 6; i++) {
    if (dims[i] < 0 || dims[i] > UINT32_MAX)
      return fail(location, "cannot launch a %s of %lld x %lld x %lld",
                  i < 3 ? "grid" : "block", (long long)dims[i / 3 * 3],
                  (long long)dims[i / 3 * 3 + 1],
                  (long long)dims[i / 3 * 3 + 2]);
    empty |= dims[i] == 0;
  }
  if (shared_bytes < 0)
    return fail(location, "cannot launch with %d bytes of shared memory",
                shared_bytes);
  if (empty)
    return 0;
  CUresult r = s->d->cuLaunchKernel(
      (CUfunction)function, (unsigned)grid_x, (unsigned)grid_y,
      (unsigned)grid_z, (unsigned)block_x, (unsigned)block_y,
      (unsigned)block_z, (unsigned)shared_bytes, s->stream, args, NULL);
  return r == CUDA_SUCCESS ? 0 : fail_call(s, "cuLaunchKernel", r, location);
}

/* ---- sessions ------------------------------------------------------------------ */

/* Reports the driver's error `r` of `call` at loc; returns failure. */
static GiltStatus report(const CudaDriver *d, GiltLocation *loc,
                         const char *call, CUresult r)
{
  char text[512];
  cuda_driver_describe(d, call, r, text, sizeof text);
  gilt_emit_error(loc, "%s", text);
  return GILT_FAILURE;
}

/* The driver with at least one device, or NULL after reporting. */
static const CudaDriver *available(GiltLocation *loc)
{
  char why[512];
  const CudaDriver *d = cuda_driver_get(why, sizeof why);
  if (!d) {
    gilt_emit_error(loc, "%s", why);
    return NULL;
  }
  int count = 0;
  CUresult r = d->cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    report(d, loc, "cuDeviceGetCount", r);
    return NULL;
  }
  if (count < 1) {
    gilt_emit_error(loc, "cannot run on CUDA: the NVIDIA driver sees no "
                         "device");
    return NULL;
  }
  return d;
}

GiltStatus cuda_check_available(GiltLocation *loc)
{
  return available(loc) ? GILT_SUCCESS : GILT_FAILURE;
}

CudaSession *cuda_session_create(GiltLocation *loc)
{
  const CudaDriver *d = available(loc);
  if (!d)
    return NULL;
  CudaSession *s = calloc(1, sizeof *s);
  if (!s) {
    gilt_emit_error(loc, "out of memory creating a CUDA session");
    return NULL;
  }
  s->d = d;
  s->loc = loc;
  pthread_mutex_init(&s->mu, NULL);
  CUresult r;
  if ((r = d->cuDeviceGet(&s->device, 0)) != CUDA_SUCCESS) {
    report(d, loc, "cuDeviceGet", r);
  } else if ((r = d->cuDevicePrimaryCtxRetain(&s->context, s->device))) {
    s->context = NULL;
    report(d, loc, "cuDevicePrimaryCtxRetain", r);
  } else if ((r = d->cuCtxSetCurrent(s->context)) != CUDA_SUCCESS) {
    report(d, loc, "cuCtxSetCurrent", r);
  } else if ((r = d->cuStreamCreate(&s->stream, 0)) != CUDA_SUCCESS) {
    s->stream = NULL;
    report(d, loc, "cuStreamCreate", r);
  } else {
    return s;
  }
  cuda_session_destroy(s);
  return NULL;
}

/* Calls a driver function that releases something, reporting a failure
** at the session's location. */
#define RELEASE(s, call, ...)                                                \
  do {                                                                       \
    CUresult r_ = (s)->d->call(__VA_ARGS__);                                 \
    if (r_ != CUDA_SUCCESS)                                                  \
      report((s)->d, (s)->loc, #call, r_);                                   \
  } while (0)

void cuda_session_destroy(CudaSession *s)
{
  if (!s)
    return;
  if (s->context)
    RELEASE(s, cuCtxSetCurrent, s->context);
  for (size_t i = 0; i < s->num_globals; i++)
    RELEASE(s, cuMemFree_v2, s->globals[i].device);
  for (size_t i = 0; i < s->num_cached; i++)
    RELEASE(s, cuMemFree_v2, s->cached[i].p);
  for (size_t i = 0; i < s->num_modules; i++)
    RELEASE(s, cuModuleUnload, s->modules[i].module);
  if (s->start)
    RELEASE(s, cuEventDestroy_v2, s->start);
  if (s->end)
    RELEASE(s, cuEventDestroy_v2, s->end);
  if (s->stream)
    RELEASE(s, cuStreamDestroy_v2, s->stream);
  if (s->context)
    RELEASE(s, cuDevicePrimaryCtxRelease_v2, s->device);
  free(s->globals);
  free(s->cached);
  free(s->modules);
  free(s->functions);
  pthread_mutex_destroy(&s->mu);
  free(s);
}

GiltStatus cuda_session_begin_call(CudaSession *s, CudaCall *call)
{
  *call = (CudaCall){current, num_held};
  CUresult r = s->d->cuCtxSetCurrent(s->context);
  if (r != CUDA_SUCCESS)
    return report(s->d, s->loc, "cuCtxSetCurrent", r);
  current = s;
  return GILT_SUCCESS;
}

GiltStatus cuda_session_end_call(CudaSession *s, const CudaCall *call)
{
  GiltStatus status = GILT_SUCCESS;
  CUresult r = s->d->cuStreamSynchronize(s->stream);
  if (r != CUDA_SUCCESS)
    status = report(s->d, s->loc, "cuStreamSynchronize", r);
  while (num_held > call->mark) {
    CUresult r_back = give_back(s, held[--num_held]);
    if (r_back != CUDA_SUCCESS)
      status = report(s->d, s->loc, "cuMemFree_v2", r_back);
  }
  if (!num_held) { /* the outermost call returned: give the array back */
    free(held);
    held = NULL;
    cap_held = 0;
  }
  current = call->outer;
  return status;
}

/* ---- timing ------------------------------------------------------------------- */

GiltStatus cuda_session_timer_start(CudaSession *s)
{
  CUresult r;
  const char *call = "cuEventCreate";
  if ((r = s->d->cuCtxSetCurrent(s->context)))
    call = "cuCtxSetCurrent";
  else if (!s->start && (r = s->d->cuEventCreate(&s->start, 0)))
    s->start = NULL;
  else if (!s->end && (r = s->d->cuEventCreate(&s->end, 0)))
    s->end = NULL;
  else if ((r = s->d->cuEventRecord(s->start, s->stream)))
    call = "cuEventRecord";
  return r == CUDA_SUCCESS ? GILT_SUCCESS : report(s->d, s->loc, call, r);
}

GiltStatus cuda_session_timer_stop(CudaSession *s, double *ms)
{
  float elapsed = 0;
  CUresult r;
  const char *call = "cuEventRecord";
  if (!(r = s->d->cuEventRecord(s->end, s->stream))) {
    call = "cuEventSynchronize";
    if (!(r = s->d->cuEventSynchronize(s->end))) {
      call = "cuEventElapsedTime";
      r = s->d->cuEventElapsedTime(&elapsed, s->start, s->end);
    }
  }
  *ms = elapsed;
  return r == CUDA_SUCCESS ? GILT_SUCCESS : report(s->d, s->loc, call, r);
}
