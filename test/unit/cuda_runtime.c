/*
** cuda_runtime.c - unit test of the CUDA runtime (gpu/cuda.h) without a
** GPU: with no driver, the clear error; with the fake driver
** test/unit/libfakecuda.so (GILT_CUDA_LIBRARY), sessions, copies, the
** caches of modules, kernels and weights, launches and their parameters,
** buffers freed at the end of a call, CUDA-event timing, and every driver
** error turned into the message that names the call.
**
** The driver is loaded once per process, so each case runs in a child
** process (fork) with its own environment.
*/
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gilt/register.h"
#include "gpu/cuda.h"
#include "jit/abi.h"
#include "jit/runtime.h"
#include "test/unit/check.h"

static char fake_path[4096];
static char last_error[1024];
static int errors;

static void on_diag(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  errors++;
  snprintf(last_error, sizeof last_error, "%s",
           gilt_diagnostic_get_message(d));
}

/* A fake driver counter (dlsym on the library the runtime loaded). */
static int *counter(const char *name)
{
  void *lib = dlopen(fake_path, RTLD_NOW | RTLD_NOLOAD);
  int *p = lib ? dlsym(lib, name) : NULL;
  if (lib)
    dlclose(lib);
  CHECK(p != NULL);
  static int none;
  return p ? p : &none;
}

/* Runs fn in a child process with GILT_CUDA_LIBRARY=library,
** FAKE_CUDA_FAIL=fail and FAKE_CUDA_DEVICES=devices (each unset when
** NULL), at a location of a context of its own; counts a child that
** failed a check. */
static void run(const char *name, void (*fn)(GiltLocation *),
                const char *library, const char *fail, const char *devices)
{
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    check_failures = 0; /* the parent's count is the parent's */
    if (library)
      setenv("GILT_CUDA_LIBRARY", library, 1);
    if (fail)
      setenv("FAKE_CUDA_FAIL", fail, 1);
    if (devices)
      setenv("FAKE_CUDA_DEVICES", devices, 1);
    GiltContext *ctx = gilt_context_create();
    gilt_context_set_diagnostic_handler(ctx, on_diag, NULL);
    fn(gilt_location_name_get(ctx, "model.onnx", NULL));
    gilt_context_destroy(ctx);
    fflush(stderr);
    _exit(check_failures ? 1 : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "case '%s' failed\n", name);
    check_failures++;
  }
}

/* ---- no driver, no device ---------------------------------------------------- */

static void expect_unavailable(GiltLocation *loc, const char *message)
{
  CHECK(cuda_check_available(loc) == GILT_FAILURE);
  CHECK(strcmp(last_error, message) == 0);
  if (strcmp(last_error, message))
    fprintf(stderr, "got: %s\n", last_error);
  CHECK(cuda_session_create(loc) == NULL);
  CHECK(errors == 2);
}

static void no_driver(GiltLocation *loc)
{
  expect_unavailable(loc, "cannot run on CUDA: libcuda.so.1 not found (no "
                          "NVIDIA driver on this machine)");
}

static void no_library(GiltLocation *loc)
{
  CHECK(cuda_check_available(loc) == GILT_FAILURE);
  CHECK(strstr(last_error, "cannot run on CUDA: cannot load "
                           "GILT_CUDA_LIBRARY=/nonexistent/libcuda.so") ==
        last_error);
}

static void no_device(GiltLocation *loc)
{
  expect_unavailable(loc, "cannot run on CUDA: the NVIDIA driver sees no "
                          "device");
}

static void init_fails(GiltLocation *loc)
{
  expect_unavailable(loc, "cannot run on CUDA: cuInit failed: no "
                          "CUDA-capable device is detected "
                          "(CUDA_ERROR_NO_DEVICE)");
}

/* ---- a session on the fake driver --------------------------------------------- */

static const char ptx[] = "// fake PTX\n";
static const char kernel[] = "main_kernel_0";

static void round_trip(CudaSession *s)
{
  float in[4] = {1, 2, 3, 4}, out[4] = {0};
  void *d = gilt_cuda_alloc(sizeof in, "a.gilt:1:1");
  CHECK(d != NULL);
  CHECK(gilt_cuda_memcpy(d, in, sizeof in, GILT_CUDA_HOST_TO_DEVICE,
                         "a.gilt:2:1") == 0);
  void *e = gilt_cuda_alloc(sizeof in, "a.gilt:1:1");
  CHECK(gilt_cuda_memcpy(e, d, sizeof in, GILT_CUDA_DEVICE_TO_DEVICE,
                         "a.gilt:2:1") == 0);
  CHECK(gilt_cuda_memcpy(out, e, sizeof in, GILT_CUDA_DEVICE_TO_HOST,
                         "a.gilt:2:1") == 0);
  CHECK(memcmp(in, out, sizeof in) == 0);
  CHECK(gilt_cuda_free(d, "a.gilt:3:1") == 0);
  CHECK(gilt_cuda_free(NULL, "a.gilt:3:1") == 0);
  (void)s; /* e is left for the end of the call */
}

static void caches_and_launch(void)
{
  static const float weight[8] = {1};
  void *w = gilt_cuda_device_global(weight, sizeof weight, "a.gilt:4:1");
  CHECK(w != NULL);
  CHECK(gilt_cuda_device_global(weight, sizeof weight, "a.gilt:4:1") == w);
  void *f = gilt_cuda_function(ptx, kernel, "a.gilt:5:1");
  CHECK(f != NULL);
  CHECK(gilt_cuda_function(ptx, kernel, "a.gilt:5:1") == f);
  CHECK(*counter("fake_module_loads") == 1);
  CHECK(*counter("fake_function_lookups") == 1);
  /* kernelParams: one pointer per parameter, at its value. */
  int64_t n = 1000;
  void *params[1] = {&n};
  CHECK(gilt_cuda_launch(f, 4, 1, 1, 256, 1, 1, 0, params, "a.gilt:6:1") ==
        0);
  CHECK(*counter("fake_launches") == 1);
  CHECK(counter("fake_last_grid")[0] == 4);
  CHECK(counter("fake_last_block")[0] == 256);
  int64_t *param0 = (int64_t *)counter("fake_last_param0");
  CHECK(*param0 == 1000);
  /* An empty grid launches nothing; a grid past 32 bits is refused. */
  CHECK(gilt_cuda_launch(f, 0, 1, 1, 256, 1, 1, 0, params, "a.gilt:6:1") ==
        0);
  CHECK(*counter("fake_launches") == 1);
  CHECK(gilt_cuda_launch(f, 1LL << 33, 1, 1, 1, 1, 1, 0, params,
                         "a.gilt:6:1") == 1);
  CHECK(strcmp(gilt_rt_last_error(), "a.gilt:6:1: cannot launch a grid of "
                                     "8589934592 x 1 x 1") == 0);
}

static void session(GiltLocation *loc)
{
  CudaSession *s = cuda_session_create(loc);
  CHECK(s != NULL);
  if (!s)
    return;
  CudaCall call;
  CHECK(cuda_session_begin_call(s, &call) == GILT_SUCCESS);
  round_trip(s);
  caches_and_launch();
  /* The weight, the buffer left over and the one freed, which the
  ** session keeps for the next allocation of its size. */
  CHECK(*counter("fake_live_allocations") == 3);
  CHECK(cuda_session_end_call(s, &call) == GILT_SUCCESS);
  CHECK(*counter("fake_live_allocations") == 3);
  /* The next call's buffers of those sizes are the cached ones; another
  ** size is a new one. */
  CHECK(cuda_session_begin_call(s, &call) == GILT_SUCCESS);
  CHECK(gilt_cuda_alloc(4 * sizeof(float), "a.gilt:1:1") != NULL);
  CHECK(gilt_cuda_alloc(4 * sizeof(float), "a.gilt:1:1") != NULL);
  CHECK(*counter("fake_live_allocations") == 3);
  CHECK(gilt_cuda_alloc(8 * sizeof(float), "a.gilt:1:1") != NULL);
  CHECK(*counter("fake_live_allocations") == 4);
  CHECK(cuda_session_end_call(s, &call) == GILT_SUCCESS);
  CHECK(*counter("fake_live_allocations") == 4);
  /* Outside a call there is no current session. */
  CHECK(gilt_cuda_alloc(4, "a.gilt:7:1") == NULL);
  CHECK(strstr(gilt_rt_last_error(), "a.gilt:7:1: no CUDA session") != NULL);
  double ms = 0;
  CHECK(cuda_session_timer_start(s) == GILT_SUCCESS);
  CHECK(cuda_session_timer_stop(s, &ms) == GILT_SUCCESS);
  CHECK(ms == 1.5);
  cuda_session_destroy(s);
  CHECK(*counter("fake_live_allocations") == 0);
  CHECK(*counter("fake_module_loads") == 0);
  CHECK(*counter("fake_context_retains") == 0);
  CHECK(errors == 0);
}

/* ---- driver errors become messages ------------------------------------------- */

static CudaSession *begin(GiltLocation *loc, CudaCall *call)
{
  CudaSession *s = cuda_session_create(loc);
  CHECK(s && cuda_session_begin_call(s, call) == GILT_SUCCESS);
  jit_runtime_clear_error();
  return s;
}

static void expect_failure(const char *text)
{
  const char *got = gilt_rt_last_error();
  CHECK(got && strcmp(got, text) == 0);
  if (got && strcmp(got, text))
    fprintf(stderr, "got: %s\n", got);
}

static void alloc_fails(GiltLocation *loc)
{
  CudaCall call;
  CudaSession *s = begin(loc, &call);
  CHECK(gilt_cuda_alloc(64, "m.onnx:3:5") == NULL);
  expect_failure("m.onnx:3:5: cuMemAlloc_v2 failed: out of memory "
                 "(CUDA_ERROR_OUT_OF_MEMORY)");
  CHECK(gilt_cuda_device_global(loc, 8, "m.onnx:4:5") == NULL);
  expect_failure("m.onnx:4:5: cuMemAlloc_v2 failed: out of memory "
                 "(CUDA_ERROR_OUT_OF_MEMORY)");
  cuda_session_end_call(s, &call);
  cuda_session_destroy(s);
}

/* A device without room for a new buffer frees the cached ones and
** tries again. */
static void alloc_frees_cache(GiltLocation *loc)
{
  CudaCall call;
  CudaSession *s = begin(loc, &call);
  CHECK(gilt_cuda_free(gilt_cuda_alloc(32, "m.onnx:3:5"), "m.onnx:3:5") == 0);
  CHECK(*counter("fake_live_allocations") == 1);
  setenv("FAKE_CUDA_MEMORY", "64", 1);
  CHECK(gilt_cuda_alloc(48, "m.onnx:3:5") != NULL);
  CHECK(*counter("fake_live_allocations") == 1);
  CHECK(gilt_cuda_alloc(48, "m.onnx:3:5") == NULL);
  expect_failure("m.onnx:3:5: cuMemAlloc_v2 failed: out of memory "
                 "(CUDA_ERROR_OUT_OF_MEMORY)");
  unsetenv("FAKE_CUDA_MEMORY");
  cuda_session_end_call(s, &call);
  cuda_session_destroy(s);
  CHECK(*counter("fake_live_allocations") == 0);
}

static void ptx_fails(GiltLocation *loc)
{
  CudaCall call;
  CudaSession *s = begin(loc, &call);
  CHECK(gilt_cuda_function(ptx, kernel, "m.onnx:1:1") == NULL);
  expect_failure("m.onnx:1:1: cuModuleLoadDataEx failed: a PTX JIT "
                 "compilation failed (CUDA_ERROR_INVALID_PTX): ptxas fatal: "
                 "fake compiler error");
  cuda_session_end_call(s, &call);
  cuda_session_destroy(s);
}

static void kernel_missing(GiltLocation *loc)
{
  CudaCall call;
  CudaSession *s = begin(loc, &call);
  CHECK(gilt_cuda_function(ptx, kernel, "m.onnx:1:1") == NULL);
  expect_failure("m.onnx:1:1: cuModuleGetFunction failed: named symbol not "
                 "found (CUDA_ERROR_NOT_FOUND): no kernel 'main_kernel_0'");
  cuda_session_end_call(s, &call);
  cuda_session_destroy(s);
}

/* A kernel's fault surfaces at the next copy, and at the end of a call. */
static void stream_fails(GiltLocation *loc)
{
  CudaCall call;
  CudaSession *s = begin(loc, &call);
  float x = 0;
  CHECK(gilt_cuda_memcpy(&x, &x, 4, GILT_CUDA_DEVICE_TO_HOST,
                         "m.onnx:9:1") == 1);
  expect_failure("m.onnx:9:1: cuStreamSynchronize failed: an illegal memory "
                 "access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS)");
  CHECK(cuda_session_end_call(s, &call) == GILT_FAILURE);
  CHECK(strcmp(last_error, "cuStreamSynchronize failed: an illegal memory "
                           "access was encountered "
                           "(CUDA_ERROR_ILLEGAL_ADDRESS)") == 0);
  cuda_session_destroy(s);
}

/* A code the driver has no words for is given by number. */
static void unknown_code(GiltLocation *loc)
{
  CudaCall call;
  CudaSession *s = begin(loc, &call);
  int64_t n = 0;
  void *params[1] = {&n};
  CHECK(gilt_cuda_launch(s, 1, 1, 1, 1, 1, 1, 0, params, "m.onnx:2:2") == 1);
  expect_failure("m.onnx:2:2: cuLaunchKernel failed: unknown error "
                 "(CUresult 9999)");
  cuda_session_end_call(s, &call);
  cuda_session_destroy(s);
}

int main(int argc, char **argv)
{
  (void)argc;
  char self[4096];
  snprintf(self, sizeof self, "%s", argv[0]);
  snprintf(fake_path, sizeof fake_path, "%s/libfakecuda.so", dirname(self));
  void *real = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (real)
    dlclose(real); /* a machine with a driver: its own errors differ */
  else
    run("no driver", no_driver, NULL, NULL, NULL);
  run("no library", no_library, "/nonexistent/libcuda.so", NULL, NULL);
  if (access(fake_path, R_OK) != 0) {
    fprintf(stderr, "%s: not built (make test/unit/libfakecuda.so)\n",
            fake_path);
    return 1;
  }
  run("no device", no_device, fake_path, NULL, "0");
  run("cuInit fails", init_fails, fake_path, "cuInit=100", NULL);
  run("session", session, fake_path, NULL, NULL);
  run("cuMemAlloc fails", alloc_fails, fake_path, "cuMemAlloc_v2=2", NULL);
  run("cache freed for room", alloc_frees_cache, fake_path, NULL, NULL);
  run("PTX fails", ptx_fails, fake_path, "cuModuleLoadDataEx=218", NULL);
  run("no kernel", kernel_missing, fake_path, "cuModuleGetFunction=500",
      NULL);
  run("stream fails", stream_fails, fake_path, "cuStreamSynchronize=700",
      NULL);
  run("unknown code", unknown_code, fake_path, "cuLaunchKernel=9999", NULL);
  return check_failures != 0;
}
