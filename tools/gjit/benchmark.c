/*
** benchmark.c - gjit --benchmark=N's report: the figures
** gilt_model_benchmark measured (docs/gjit.md says what each means),
** printed for a person or, with --benchmark-format=json, as the one JSON
** line the library formats, for scripts.
*/
#include "tools/gjit/benchmark.h"

#include <stdio.h>
#include <string.h>

static void print_text(const GiltModelBenchmark *r)
{
  printf("benchmark: %s @%s, %s, %zu thread%s%s\n", r->model, r->function,
         r->backend, r->threads, r->threads == 1 ? "" : "s",
         r->device && !strcmp(r->device, "cuda")
             ? ", on cuda (device times from CUDA events)"
             : "");
  printf("  compile   %10.3f ms  (import %.3f, pipeline %.3f, jit %.3f)\n",
         r->compile_ms, r->import_ms, r->pipeline_ms, r->jit_ms);
  printf("  median    %10.4f ms  over %zu run%s after %zu warm-up\n",
         r->median_ms, r->runs, r->runs == 1 ? "" : "s", r->warmup_runs);
  printf("  min       %10.4f ms\n", r->min_ms);
  printf("  max       %10.4f ms\n", r->max_ms);
  printf("  peak RSS  %10.1f MB\n", r->peak_rss_mb);
}

void gjit_benchmark_print(const GjitOptions *o, const GiltModelBenchmark *r)
{
  if (o->benchmark_json)
    gilt_model_benchmark_format_json(r, gilt_print_to_file, stdout);
  else
    print_text(r);
  fflush(stdout);
}
