/*
** cuda_driver.c - loading the CUDA driver (cuda_driver.h): dlopen of
** libcuda.so.1 (or the library GILT_CUDA_LIBRARY names, for tests), every
** function of the table found by dlsym, then cuInit, once per process.
** A failure is remembered as the sentence that explains it, so that every
** later attempt gives the same answer without trying again.
**
** This file only loads the driver and words its errors. Devices,
** contexts, streams and what compiled code calls are cuda_runtime.c's.
** The library is never closed: the driver keeps threads and state of its
** own for the life of the process.
*/
#define _GNU_SOURCE /* RTLD_* on every libc */
#include "gpu/cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CudaDriver driver;
static bool loaded;
static char failure[512];

/* dlsym of every function of the table into `driver`; false naming the
** first one missing in `failure`. */
static bool find_functions(void *lib, const char *path)
{
  void *sym;
#define CUDA_DRIVER_FIND(name, params)                                       \
  sym = dlsym(lib, #name);                                                   \
  if (!sym) {                                                                \
    snprintf(failure, sizeof failure,                                        \
             "cannot run on CUDA: %s has no %s (is the NVIDIA driver older " \
             "than CUDA 11?)",                                               \
             path, #name);                                                   \
    return false;                                                            \
  }                                                                          \
  /* POSIX's way from a data pointer to a function pointer. */               \
  memcpy(&driver.name, &sym, sizeof sym);
  CUDA_DRIVER_FUNCTIONS(CUDA_DRIVER_FIND)
#undef CUDA_DRIVER_FIND
  return true;
}

static void load(void)
{
  const char *path = getenv(CUDA_DRIVER_LIBRARY_ENV);
  bool fake = path && *path;
  if (!fake)
    path = "libcuda.so.1";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    if (fake)
      snprintf(failure, sizeof failure, "cannot run on CUDA: cannot load "
               "%s=%s: %s", CUDA_DRIVER_LIBRARY_ENV, path, dlerror());
    else
      snprintf(failure, sizeof failure, "cannot run on CUDA: libcuda.so.1 "
               "not found (no NVIDIA driver on this machine)");
    return;
  }
  if (!find_functions(lib, path)) {
    dlclose(lib);
    return;
  }
  CUresult r = driver.cuInit(0);
  if (r != CUDA_SUCCESS) {
    char text[400];
    cuda_driver_describe(&driver, "cuInit", r, text, sizeof text);
    snprintf(failure, sizeof failure, "cannot run on CUDA: %s", text);
    return;
  }
  loaded = true;
}

const CudaDriver *cuda_driver_get(char *why, size_t cap)
{
  pthread_once(&once, load);
  if (!loaded)
    snprintf(why, cap, "%s", failure);
  return loaded ? &driver : NULL;
}

void cuda_driver_describe(const CudaDriver *d, const char *call, CUresult r,
                          char *buf, size_t cap)
{
  const char *text = NULL, *name = NULL;
  if (d->cuGetErrorString(r, &text) != CUDA_SUCCESS || !text)
    text = "unknown error";
  if (d->cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
    snprintf(buf, cap, "%s failed: %s (CUresult %d)", call, text, r);
  else
    snprintf(buf, cap, "%s failed: %s (%s)", call, text, name);
}
