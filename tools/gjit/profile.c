/*
** profile.c - gjit --profile (profile.h). The timers are loop ops that
** graph-to-loop puts around each op's loops when asked; the compiled code
** adds their times per label in the runtime (jit/profile.c), which this
** resets after the warm-up and reads after the runs. A label is a node's
** name and its op; what runs between the timers (argument checks, result
** hand-over) shows as the difference between the wall time and the sum.
*/
#include "tools/gjit/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/model.h"
#include "jit/profile.h"

static int slowest_first(const void *a, const void *b)
{
  const JitProfileEntry *x = a, *y = b;
  if (x->total_ns != y->total_ns)
    return x->total_ns < y->total_ns ? 1 : -1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static void print_table(const GjitOptions *o, GiltModel *m, double wall_ms)
{
  JitProfileEntry *e;
  size_t n = jit_profile_snapshot(&e);
  qsort(e, n, sizeof *e, slowest_first);
  double runs = (double)o->profile_runs, sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += (double)e[i].total_ns / 1e6 / runs;
  printf("profile: %s @%s, compiled, %zu run%s after 1 warm-up\n", o->model,
         gilt_model_get_function(m), o->profile_runs,
         o->profile_runs == 1 ? "" : "s");
  printf("  %10s  %6s  %6s  %s\n", "ms/run", "share", "calls", "kernel");
  for (size_t i = 0; i < n; i++) {
    double ms = (double)e[i].total_ns / 1e6 / runs;
    printf("  %10.4f  %5.1f%%  %6lld  %s\n", ms, sum > 0 ? 100 * ms / sum : 0,
           (long long)(e[i].calls / (int64_t)o->profile_runs), e[i].label);
  }
  printf("  %10.4f  kernels in all; %.4f ms per run in all\n", sum,
         wall_ms / runs);
  fflush(stdout);
  free(e);
}

GiltStatus gjit_profile_run(const GjitOptions *o, GiltModel *m,
                            size_t num_inputs, GiltTensor *const *inputs,
                            size_t *num_outputs, GiltTensor ***outputs)
{
  *num_outputs = 0;
  *outputs = NULL;
  GiltStatus s = gilt_model_call(m, num_inputs, inputs, num_outputs, outputs);
  jit_profile_reset();
  double start = model_now_ms();
  for (size_t r = 0; r < o->profile_runs && s == GILT_SUCCESS; r++) {
    for (size_t i = 0; i < *num_outputs; i++)
      gilt_tensor_destroy((*outputs)[i]);
    free(*outputs);
    s = gilt_model_call(m, num_inputs, inputs, num_outputs, outputs);
  }
  if (s == GILT_SUCCESS)
    print_table(o, m, model_now_ms() - start);
  return s;
}
