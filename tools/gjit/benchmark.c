/*
** benchmark.c - gjit --benchmark=N: how long a model takes to compile and
** to run, and how much memory the process needed.
**
** Compile time is cold: from reading the model to code ready to call,
** the sum of the phases main.c times (benchmark.h). Latency is the wall
** time of one call, inputs in and outputs out, measured N times after one
** warm-up call that is not counted (first-touch page faults, the thread
** pool waking, caches); the report gives the median and the minimum, the
** two numbers that mean something on a shared machine, and the maximum.
** Peak memory is getrusage's ru_maxrss: the whole process, so it
** includes LLVM and, for an ONNX model, the imported weights.
**
** --benchmark-format=json prints the report as one JSON object on one
** line of stdout, for scripts. Its keys are stable (docs/gjit.md): add
** keys, never rename or drop them. This is a measurement, not a test:
** nothing here judges a number.
*/
#include "tools/gjit/benchmark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gilt/interpreter.h"

double gjit_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void gjit_phase_begin(GjitTimes *t)
{
  t->begun_ms = gjit_now_ms();
}

void gjit_phase_end(GjitTimes *t, GjitPhase p)
{
  t->phase_ms[p] += gjit_now_ms() - t->begun_ms;
}

GiltStatus gjit_callee_call(const GjitCallee *c, size_t *num_outputs,
                            GiltTensor ***outputs)
{
  if (c->jm)
    return gilt_jit_call(c->jm, c->name, c->num_inputs, c->inputs,
                         num_outputs, outputs);
  return gilt_interpret_function(c->module, c->name, c->num_inputs, c->inputs,
                                 num_outputs, outputs);
}

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

typedef struct Report {
  const char *backend; /* "compiled" or "interpreted" */
  size_t threads;
  double compile_ms, median_ms, min_ms, max_ms;
  double peak_rss_mb;
} Report;

/* `s` as a JSON string: quoted, with quotes, backslashes and control
** characters escaped. */
static void print_json_string(const char *s)
{
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      printf("\\%c", *p);
    else if (*p < 0x20)
      printf("\\u%04x", *p);
    else
      putchar(*p);
  }
  putchar('"');
}

static void print_json(const GjitOptions *o, const GjitTimes *t,
                       const GjitCallee *c, const Report *r)
{
  printf("{\"model\": ");
  print_json_string(o->model);
  printf(", \"function\": ");
  print_json_string(c->name);
  printf(", \"backend\": \"%s\", \"threads\": %zu, \"compile_ms\": %.3f, "
         "\"import_ms\": %.3f, \"pipeline_ms\": %.3f, \"jit_ms\": %.3f, "
         "\"warmup_runs\": 1, \"runs\": %zu, \"median_ms\": %.4f, "
         "\"min_ms\": %.4f, \"max_ms\": %.4f, \"peak_rss_mb\": %.1f}\n",
         r->backend, r->threads, r->compile_ms,
         t->phase_ms[GJIT_PHASE_IMPORT], t->phase_ms[GJIT_PHASE_PIPELINE],
         t->phase_ms[GJIT_PHASE_JIT], o->benchmark_runs, r->median_ms,
         r->min_ms, r->max_ms, r->peak_rss_mb);
}

static void print_text(const GjitOptions *o, const GjitTimes *t,
                       const GjitCallee *c, const Report *r)
{
  printf("benchmark: %s @%s, %s, %zu thread%s\n", o->model, c->name,
         r->backend, r->threads, r->threads == 1 ? "" : "s");
  printf("  compile   %10.3f ms  (import %.3f, pipeline %.3f, jit %.3f)\n",
         r->compile_ms, t->phase_ms[GJIT_PHASE_IMPORT],
         t->phase_ms[GJIT_PHASE_PIPELINE], t->phase_ms[GJIT_PHASE_JIT]);
  printf("  median    %10.4f ms  over %zu run%s after 1 warm-up\n",
         r->median_ms, o->benchmark_runs,
         o->benchmark_runs == 1 ? "" : "s");
  printf("  min       %10.4f ms\n", r->min_ms);
  printf("  max       %10.4f ms\n", r->max_ms);
  printf("  peak RSS  %10.1f MB\n", r->peak_rss_mb);
}

GiltStatus gjit_benchmark_run(const GjitOptions *o, const GjitTimes *t,
                              const GjitCallee *c, size_t *num_outputs,
                              GiltTensor ***outputs)
{
  size_t n = o->benchmark_runs;
  double *ms = malloc(n * sizeof *ms);
  if (!ms) {
    fputs("gjit: out of memory\n", stderr);
    return GILT_FAILURE;
  }
  /* The warm-up call, then the timed ones; each call's outputs are
  ** freed before the next, except the last's, which the caller gets. */
  GiltStatus status = GILT_SUCCESS;
  for (size_t i = 0; i <= n && status == GILT_SUCCESS; i++) {
    free_outputs(*num_outputs, *outputs);
    *num_outputs = 0;
    *outputs = NULL;
    double start = gjit_now_ms();
    status = gjit_callee_call(c, num_outputs, outputs);
    if (i > 0)
      ms[i - 1] = gjit_now_ms() - start;
  }
  if (status == GILT_SUCCESS) {
    qsort(ms, n, sizeof *ms, compare_ms);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    Report r = {
        .backend = c->jm ? "compiled" : "interpreted",
        .threads = c->jm ? gilt_jit_get_num_threads(c->jm) : 1,
        .median_ms = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2,
        .min_ms = ms[0],
        .max_ms = ms[n - 1],
        /* ru_maxrss is in KiB on Linux. */
        .peak_rss_mb = (double)ru.ru_maxrss / 1024.0,
    };
    for (int p = 0; p < GJIT_NUM_PHASES; p++)
      r.compile_ms += t->phase_ms[p];
    if (o->benchmark_json)
      print_json(o, t, c, &r);
    else
      print_text(o, t, c, &r);
    fflush(stdout);
  }
  free(ms);
  return status;
}
