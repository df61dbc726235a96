/*
** interpreter.c - how fast the loop interpreter runs a matmul.
**
** Runs C = A x B for N x N matrices of f32 (N = 256 unless given) twice:
** a scalar version (load, load, mulf, addf per step of the k loop) and a
** vectorized one (per step of k: load of A, broadcast, vector_load of a
** row of 8 elements of B, fma into a vector carried by the k loop). It
** checks the results against a C matmul, then prints the time, GFLOP/s
** and nanoseconds per interpreted op, the ops counted as the
** instructions the interpreter dispatches (each loop.for once per
** entry, every op of its body once per iteration). Not a test: timings
** are reported, never asserted.
**
**     bench/interpreter [N]
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gilt/interpreter.h"
#include "gilt/register.h"

#define LANES 8

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char scalar_src[] =
    "func.func @matmul(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {\n"
    "  %c0 = loop.constant 0 : index\n"
    "  %c1 = loop.constant 1 : index\n"
    "  %z = loop.constant 0.0 : f32\n"
    "  %n = loop.dim %A, %c0 : (memref<?x?xf32>, index) -> index\n"
    "  loop.for %i = %c0 to %n step %c1 {\n"
    "    loop.for %j = %c0 to %n step %c1 {\n"
    "      %s = loop.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {\n"
    "        %a = loop.load %A[%i, %k] : memref<?x?xf32>\n"
    "        %b = loop.load %B[%k, %j] : memref<?x?xf32>\n"
    "        %p = loop.mulf %a, %b : f32\n"
    "        %t = loop.addf %acc, %p : f32\n"
    "        loop.yield %t : f32\n"
    "      }\n"
    "      loop.store %s, %C[%i, %j] : memref<?x?xf32>\n"
    "      loop.yield\n"
    "    }\n"
    "    loop.yield\n"
    "  }\n"
    "  return\n"
    "}\n";

static const char vector_src[] =
    "func.func @matmul(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {\n"
    "  %c0 = loop.constant 0 : index\n"
    "  %c1 = loop.constant 1 : index\n"
    "  %c8 = loop.constant 8 : index\n"
    "  %z = loop.constant dense<0.0> : vector<8xf32>\n"
    "  %n = loop.dim %A, %c0 : (memref<?x?xf32>, index) -> index\n"
    "  loop.for %i = %c0 to %n step %c1 {\n"
    "    loop.for %j = %c0 to %n step %c8 {\n"
    "      %s = loop.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (vector<8xf32>) {\n"
    "        %a = loop.load %A[%i, %k] : memref<?x?xf32>\n"
    "        %av = loop.broadcast %a : (f32) -> vector<8xf32>\n"
    "        %bv = loop.vector_load %B[%k, %j] : memref<?x?xf32>, vector<8xf32>\n"
    "        %t = loop.fma %av, %bv, %acc : vector<8xf32>\n"
    "        loop.yield %t : vector<8xf32>\n"
    "      }\n"
    "      loop.vector_store %s, %C[%i, %j] : memref<?x?xf32>, vector<8xf32>\n"
    "      loop.yield\n"
    "    }\n"
    "    loop.yield\n"
    "  }\n"
    "  return\n"
    "}\n";

static GiltTensor *matrix(GiltContext *ctx, int64_t n, unsigned seed)
{
  int64_t shape[2] = {n, n};
  GiltTensor *t = gilt_tensor_create(gilt_float_type_get(ctx, GILT_F32), 2, shape);
  float *p = gilt_tensor_get_data(t);
  for (int64_t i = 0; i < n * n; i++)
    p[i] = (float)((i * 7 + seed) % 13) - 6.0f;
  return t;
}

/* Runs the module's matmul; returns the best of three times, or -1. */
static double time_matmul(GiltContext *ctx, const char *src, int64_t n,
                          GiltTensor **in)
{
  GiltOp *m = gilt_parse_source(ctx, src, strlen(src), "matmul.gilt");
  double best = -1;
  for (int rep = 0; m && rep < 3; rep++) {
    size_t nout;
    GiltTensor **out;
    double t0 = now();
    GiltStatus st = gilt_interpret_function(m, "matmul", 3, in, &nout, &out);
    double t = now() - t0;
    if (st != GILT_SUCCESS)
      return -1;
    free(out);
    best = best < 0 || t < best ? t : best;
  }
  const float *a = gilt_tensor_get_data(in[0]), *b = gilt_tensor_get_data(in[1]);
  const float *c = gilt_tensor_get_data(in[2]);
  for (int64_t i = 0; i < n; i += 17)
    for (int64_t j = 0; j < n; j += 5) {
      float want = 0;
      for (int64_t k = 0; k < n; k++)
        want += a[i * n + k] * b[k * n + j];
      if (fabsf(want - c[i * n + j]) > 1e-3f * (1 + fabsf(want))) {
        fprintf(stderr, "interpreter: wrong C[%lld][%lld]\n", (long long)i,
                (long long)j);
        best = -1;
      }
    }
  if (m)
    gilt_op_destroy(m);
  return best;
}

static void report(const char *label, double t, int64_t n, double ops)
{
  double flops = 2.0 * (double)n * (double)n * (double)n;
  printf("%-8s %lldx%lldx%lld: %.3f s, %.3f GFLOP/s, %.2f ns per interpreted "
         "op (%.0f ops)\n",
         label, (long long)n, (long long)n, (long long)n, t, flops / t * 1e-9,
         t / ops * 1e9, ops);
}

int main(int argc, char **argv)
{
  int64_t n = argc > 1 ? atoll(argv[1]) : 256;
  if (n <= 0 || n % LANES != 0) {
    fprintf(stderr, "usage: bench/interpreter [N, a multiple of %d]\n", LANES);
    return 2;
  }
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  GiltTensor *in[3] = {matrix(ctx, n, 1), matrix(ctx, n, 2), matrix(ctx, n, 3)};
  double nn = (double)n;
  /* Scalar: 4 ops per k step; per (i, j) the k loop and a store; per i
  ** the j loop; the i loop, dim. */
  double scalar_ops = nn * nn * nn * 4 + nn * nn * 2 + nn + 2;
  double vector_ops = nn * nn / LANES * nn * 4 + nn * nn / LANES * 2 + nn + 2;
  double ts = time_matmul(ctx, scalar_src, n, in);
  double tv = time_matmul(ctx, vector_src, n, in);
  int status = 0;
  if (ts < 0 || tv < 0) {
    fprintf(stderr, "interpreter: a matmul failed\n");
    status = 1;
  } else {
    report("scalar", ts, n, scalar_ops);
    report("vector", tv, n, vector_ops);
  }
  for (int i = 0; i < 3; i++)
    gilt_tensor_destroy(in[i]);
  gilt_context_destroy(ctx);
  return status;
}
