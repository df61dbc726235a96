/*
** fma_peak.c - the machine's fp32 FMA peak on one core, the yardstick of
** bench/matmul.sh's "percent of peak": 16 independent chains of AVX-512
** vector FMAs (more than the FMA latency times the units, so nothing
** waits), timed over a fixed count, printed as GFLOP/s (2 flops per lane).
**
**   make bench/fma_peak && bench/fma_peak
**
** The kernel is compiled for AVX-512 and tuned for Zen 4 by a target
** attribute, so `make bench` builds it with the project's flags; on a CPU
** without AVX-512 it says so instead of running.
*/
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

enum { CHAINS = 16, STEPS = 50 * 1000 * 1000 };

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The best of 5 timings of the chains, in GFLOP/s. */
__attribute__((target("avx512f,fma"))) static double peak(
    float *checksum)
{
  __m512 acc[CHAINS];
  __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int i = 0; i < CHAINS; i++)
    acc[i] = _mm512_set1_ps((float)i);
  double best = 0;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now();
    for (long s = 0; s < STEPS / CHAINS; s++)
      /* Unrolled, so that the chains live in registers, not in acc[]. */
#pragma GCC unroll 16
      for (int i = 0; i < CHAINS; i++)
        acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    double t = now() - t0;
    double gflops = 2.0 * 16 * (double)(STEPS / CHAINS) * CHAINS / t / 1e9;
    if (gflops > best)
      best = gflops;
  }
  float sink = 0;
  for (int i = 0; i < CHAINS; i++)
    sink += _mm512_reduce_add_ps(acc[i]);
  *checksum = sink;
  return best;
}

int main(void)
{
  if (!__builtin_cpu_supports("avx512f")) {
    puts("fp32 FMA peak: this CPU has no AVX-512");
    return 0;
  }
  float sink;
  double best = peak(&sink);
  printf("fp32 FMA peak, one core: %.1f GFLOP/s (checksum %g)\n", best,
         (double)sink);
  return 0;
}
