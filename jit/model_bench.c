/*
** model_bench.c - how long a model takes to compile and to run, and how
** much memory the process needed (gilt_model_benchmark), and that report
** as the JSON object `gjit --benchmark-format=json` prints and the Python
** package's Model.benchmark returns.
**
** Compile time is cold: the phases gilt_model_create timed. Latency is
** the wall time of one call, inputs in and outputs out, measured N times
** after one warm-up call that is not counted (first-touch page faults,
** the thread pool waking, caches); the report gives the median and the
** minimum, the two numbers that mean something on a shared machine, and
** the maximum. On CUDA a call is timed by CUDA events recorded on the
** model's stream before and after it (the GPU's clock: kernels and
** copies, not the host's work around them), as trtexec times a GPU.
** Peak memory is getrusage's ru_maxrss: the whole process,
** so it includes LLVM and the imported weights. This is a measurement,
** not a test: nothing here judges a number.
*/
#include "jit/model.h"

#include "gpu/cuda.h"
#include "jit/jit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "ir/support/json.h"

static void free_outputs(size_t n, GiltTensor **outputs)
{
  for (size_t i = 0; i < n; i++)
    gilt_tensor_destroy(outputs[i]);
  free(outputs);
}

static int compare_ms(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The report of the sorted latencies ms[0..n). */
static void fill_report(const GiltModel *m, const double *ms, size_t n,
                        GiltModelBenchmark *r)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  *r = (GiltModelBenchmark){
      .model = m->path,
      .function = m->function,
      .backend = m->jm ? "compiled" : "interpreted",
      .threads = m->jm ? gilt_jit_get_num_threads(m->jm) : 1,
      .import_ms = m->phase_ms[MODEL_PHASE_IMPORT],
      .pipeline_ms = m->phase_ms[MODEL_PHASE_PIPELINE],
      .jit_ms = m->phase_ms[MODEL_PHASE_JIT],
      .warmup_runs = 1,
      .runs = n,
      .median_ms = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2,
      .min_ms = ms[0],
      .max_ms = ms[n - 1],
      /* ru_maxrss is in KiB on Linux. */
      .peak_rss_mb = (double)ru.ru_maxrss / 1024.0,
      .device = m->device == GILT_DEVICE_CUDA ? "cuda" : "cpu",
  };
  r->compile_ms = r->import_ms + r->pipeline_ms + r->jit_ms;
}

/* One call, its time in *ms unless ms is NULL: wall time, or on CUDA the
** device time between events (the session exists after the first call,
** which is never timed). */
static GiltStatus timed_call(GiltModel *m, double *ms, size_t num_inputs,
                             GiltTensor *const *inputs, size_t *num_outputs,
                             GiltTensor ***outputs)
{
  struct CudaSession *cuda = m->jm ? jit_module_get_cuda(m->jm) : NULL;
  if (ms && cuda) {
    GiltStatus status = cuda_session_timer_start(cuda);
    if (status == GILT_SUCCESS)
      status = gilt_model_call(m, num_inputs, inputs, num_outputs, outputs);
    return status ? status : cuda_session_timer_stop(cuda, ms);
  }
  double start = model_now_ms();
  GiltStatus status =
      gilt_model_call(m, num_inputs, inputs, num_outputs, outputs);
  if (ms)
    *ms = model_now_ms() - start;
  return status;
}

GiltStatus gilt_model_benchmark(GiltModel *m, size_t num_inputs,
                                GiltTensor *const *inputs, size_t runs,
                                GiltModelBenchmark *report,
                                size_t *num_outputs, GiltTensor ***outputs)
{
  *num_outputs = 0;
  *outputs = NULL;
  double *ms = runs ? malloc(runs * sizeof *ms) : NULL;
  if (!ms) {
    gilt_emit_error(m->loc, runs ? "out of memory timing %zu runs"
                                 : "a benchmark needs at least %zu run",
                    runs ? runs : 1);
    return GILT_FAILURE;
  }
  /* The warm-up call, then the timed ones; each call's outputs are freed
  ** before the next, except the last's, which the caller gets. */
  GiltStatus status = GILT_SUCCESS;
  for (size_t i = 0; i <= runs && status == GILT_SUCCESS; i++) {
    free_outputs(*num_outputs, *outputs);
    *num_outputs = 0;
    *outputs = NULL;
    status = timed_call(m, i > 0 ? &ms[i - 1] : NULL, num_inputs, inputs,
                        num_outputs, outputs);
  }
  if (status == GILT_SUCCESS) {
    qsort(ms, runs, sizeof *ms, compare_ms);
    fill_report(m, ms, runs, report);
  }
  free(ms);
  return status;
}

/* printf into `cb`, through a buffer that holds any line of the report
** but its strings. */
static void put(GiltStringCallback cb, void *user, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void put(GiltStringCallback cb, void *user, const char *fmt, ...)
{
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  cb(buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1,
     user);
}

void gilt_model_benchmark_format_json(const GiltModelBenchmark *r,
                                      GiltStringCallback cb, void *user)
{
  put(cb, user, "{\"model\": ");
  gilt_json_put_string(cb, user, r->model);
  put(cb, user, ", \"function\": ");
  gilt_json_put_string(cb, user, r->function);
  put(cb, user,
      ", \"backend\": \"%s\", \"threads\": %zu, \"compile_ms\": %.3f, "
      "\"import_ms\": %.3f, \"pipeline_ms\": %.3f, \"jit_ms\": %.3f, "
      "\"warmup_runs\": %zu, \"runs\": %zu, \"median_ms\": %.4f, "
      "\"min_ms\": %.4f, \"max_ms\": %.4f, \"peak_rss_mb\": %.1f, "
      "\"device\": \"%s\"}\n",
      r->backend, r->threads, r->compile_ms, r->import_ms, r->pipeline_ms,
      r->jit_ms, r->warmup_runs, r->runs, r->median_ms, r->min_ms,
      r->max_ms, r->peak_rss_mb, r->device ? r->device : "cpu");
}
