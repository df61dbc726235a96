/*
** fma_peak.c - the machine's fp32 FMA peak on one core, the yardstick of
** the "percent of peak" figures in docs/performance.md: independent
** chains of vector FMAs (more than the FMA latency times the units, so
** nothing waits), timed over a fixed count, printed as GFLOP/s (2 flops
** per lane). AVX-512 where the CPU has it (16 chains of 16 lanes), else
** AVX2 with FMA (12 chains of 8 lanes, which with the two operands fill
** AVX2's 16 registers).
**
**   make bench/fma_peak && bench/fma_peak
**
** The kernels are compiled for their instruction sets by target
** attributes, so `make bench` builds them with the project's flags; a
** CPU with neither says so instead of running.
*/
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

enum { STEPS = 48 * 1000 * 1000 };

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The best of 5 timings of `chains` chains of `Vec` (`lanes` floats,
** multiplied and added by `fmadd`, set by `set1`), in GFLOP/s; the sum of
** the chains' first lanes into *checksum, so that the work is not
** optimized away. (Written `acc * a + b`, C11 would not contract it into
** an FMA.) */
#define DEFINE_PEAK(name, target_features, Vec, lanes, chains, fmadd, set1)  \
  __attribute__((target(target_features))) static double name(              \
      float *checksum)                                                      \
  {                                                                         \
    Vec acc[chains];                                                        \
    Vec a = set1(0.999999f), b = set1(1e-7f);                               \
    for (int i = 0; i < (chains); i++)                                      \
      acc[i] = set1((float)i);                                              \
    double best = 0;                                                        \
    for (int rep = 0; rep < 5; rep++) {                                     \
      double t0 = now();                                                    \
      for (long s = 0; s < STEPS / (chains); s++)                           \
        /* Unrolled, so that the chains live in registers. */               \
        _Pragma("GCC unroll 16") for (int i = 0; i < (chains); i++)         \
            acc[i] = fmadd(acc[i], a, b);                                   \
      double t = now() - t0;                                                \
      double gflops = 2.0 * (lanes) * (double)(STEPS / (chains)) *          \
                      (chains) / t / 1e9;                                   \
      if (gflops > best)                                                    \
        best = gflops;                                                      \
    }                                                                       \
    float sink = 0;                                                         \
    for (int i = 0; i < (chains); i++)                                      \
      sink += acc[i][0];                                                    \
    *checksum = sink;                                                       \
    return best;                                                            \
  }

DEFINE_PEAK(peak_avx512, "avx512f,fma", __m512, 16, 16, _mm512_fmadd_ps,
            _mm512_set1_ps)
DEFINE_PEAK(peak_avx2, "avx2,fma", __m256, 8, 12, _mm256_fmadd_ps,
            _mm256_set1_ps)

int main(void)
{
  float sink;
  const char *isa;
  double best;
  if (__builtin_cpu_supports("avx512f")) {
    isa = "AVX-512";
    best = peak_avx512(&sink);
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    isa = "AVX2";
    best = peak_avx2(&sink);
  } else {
    puts("fp32 FMA peak: this CPU has neither AVX-512 nor AVX2 with FMA");
    return 0;
  }
  printf("fp32 FMA peak, one core, %s: %.1f GFLOP/s (checksum %g)\n", isa,
         best, (double)sink);
  return 0;
}
