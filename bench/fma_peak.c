/*
** fma_peak.c - the machine's fp32 FMA peak on one core, the yardstick of
** bench/matmul.sh's "percent of peak": 16 independent chains of AVX-512
** vector FMAs (more than the FMA latency times the units, so nothing
** waits), timed over a fixed count, printed as GFLOP/s (2 flops per lane).
**
**   cc -O3 -march=native bench/fma_peak.c -o fma_peak && ./fma_peak
**
** (-march=native: with -mavx512f alone GCC 12 tunes for a generic CPU and
** the chains run at a third of the speed.)
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

int main(void)
{
  __m512 acc[CHAINS];
  __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int i = 0; i < CHAINS; i++)
    acc[i] = _mm512_set1_ps((float)i);
  double best = 0;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now();
    for (long s = 0; s < STEPS / CHAINS; s++)
      for (int i = 0; i < CHAINS; i++) /* unrolled by the compiler */
        acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    double t = now() - t0;
    double gflops = 2.0 * 16 * (double)(STEPS / CHAINS) * CHAINS / t / 1e9;
    if (gflops > best)
      best = gflops;
  }
  float sink = 0;
  for (int i = 0; i < CHAINS; i++)
    sink += _mm512_reduce_add_ps(acc[i]);
  printf("fp32 FMA peak, one core: %.1f GFLOP/s (checksum %g)\n", best,
         (double)sink);
  return 0;
}
