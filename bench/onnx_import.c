/*
** onnx_import.c - how fast the ONNX importer takes in a model with large
** weights.
**
** Builds a ModelProto with test/support/onnx_model.h: a chain of N Conv
** nodes (3x3, C channels in and out, padding 1, each with a random f32
** weight and bias initializer), about 100 MB of weights with the defaults
** (N = 50, C = 240), as ResNet-50 has. Writes it to a temporary file, then
** times gilt_onnx_import_file and gilt_op_verify on it, best of three
** runs, and reports seconds, MB/s of model file and the page faults the
** import took; and the first run on its own, which is what a tool that
** imports once pays (later runs reuse memory the first one faulted in).
** The importer leaves weights in the mapped file, so it also times a
** first read of every weight byte after the import ("touch"): import
** plus touch is what a compiler that uses every weight pays. Not a test:
** timings are reported, never asserted.
**
**     bench/onnx_import [N [C]]
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "gilt/ir.h"
#include "gilt/register.h"
#include "gilt/onnx.h"
#include "test/support/onnx_model.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* xorshift64: weights need only be incompressible, not good random. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static float random_float(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (float)(rng_state >> 40) / (float)(1 << 24) - 0.5f;
}

static const float *random_floats(size_t count)
{
  float *data = onnx_alloc(count, sizeof *data);
  for (size_t i = 0; i < count; i++)
    data[i] = random_float();
  return data;
}

/* Writes the model to `path`; returns its size in bytes. */
static size_t write_model(const char *path, int n, int64_t c)
{
  static const int64_t pads[4] = {1, 1, 1, 1}, kernel[2] = {3, 3};
  const int64_t wdims[4] = {c, c, 3, 3}, bdims[1] = {c},
                xdims[4] = {1, c, 14, 14};
  size_t wcount = (size_t)(c * c * 9);

  Gilt__Onnx__GraphProto *g = onnx_graph("conv_chain");
  for (int i = 0; i < n; i++) {
    char w[32], b[32], name[32], ins[128], out[32];
    snprintf(w, sizeof w, "w%d", i);
    snprintf(b, sizeof b, "b%d", i);
    onnx_add_initializer(g, w, 4, wdims, random_floats(wcount));
    onnx_add_initializer(g, b, 1, bdims, random_floats((size_t)c));
    snprintf(name, sizeof name, "conv%d", i);
    snprintf(ins, sizeof ins, "x%d,%s,%s", i, w, b);
    snprintf(out, sizeof out, "x%d", i + 1);
    Gilt__Onnx__NodeProto *node = onnx_node("Conv", name, ins, out);
    onnx_attr_ints(node, "kernel_shape", 2, kernel);
    onnx_attr_ints(node, "pads", 4, pads);
    onnx_add_node(g, node);
  }
  char out[32];
  snprintf(out, sizeof out, "x%d", n);
  onnx_add_input(g, onnx_value("x0", 4, xdims));
  onnx_add_output(g, onnx_value(out, 4, xdims));

  size_t len = onnx_write(g, 17, path);
  if (!len) {
    perror(path);
    exit(1);
  }
  onnx_free_all();
  return len;
}

static long page_faults(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt + ru.ru_majflt;
}

/* Reads every byte of every dense resource once. */
static GiltWalkResult touch(GiltOp *op, void *user)
{
  GiltAttr *value = gilt_op_get_attr(op, "value");
  if (!value || gilt_attr_get_kind(value) != GILT_ATTR_DENSE_RESOURCE)
    return GILT_WALK_ADVANCE;
  size_t nbytes;
  const unsigned char *p = gilt_dense_attr_get_data(value, &nbytes);
  unsigned sum = 0;
  for (size_t i = 0; i < nbytes; i += 64)
    sum += p[i];
  *(unsigned *)user += sum;
  return GILT_WALK_ADVANCE;
}

static void report(const GiltDiagnostic *d, void *user)
{
  (void)user;
  gilt_diagnostic_print(d, stderr);
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 50;
  int64_t c = argc > 2 ? atol(argv[2]) : 240;
  if (n < 1 || c < 1) {
    fprintf(stderr, "usage: bench/onnx_import [N [C]]\n");
    return 2;
  }
  char path[64];
  snprintf(path, sizeof path, "/tmp/gilt-bench-onnx-%ld.onnx", (long)getpid());
  double t0 = now();
  size_t bytes = write_model(path, n, c);
  double mb = (double)bytes / 1e6;
  printf("model: %d Conv nodes, %ld channels, %.1f MB, written in %.2f s\n",
         n, (long)c, mb, now() - t0);

  double best_import = 1e9, best_verify = 1e9, best_touch = 1e9;
  long best_faults = 0, first_faults = 0;
  double first_import = 0;
  unsigned sum = 0;
  for (int run = 0; run < 3; run++) {
    GiltContext *ctx = gilt_context_create();
    gilt_register_everything(ctx);
    gilt_context_set_diagnostic_handler(ctx, report, NULL);
    long faults = page_faults();
    t0 = now();
    GiltOp *module = gilt_onnx_import_file(ctx, path);
    double t1 = now();
    faults = page_faults() - faults;
    if (run == 0)
      first_import = t1 - t0, first_faults = faults;
    if (!module || gilt_op_verify(module) != GILT_SUCCESS) {
      fprintf(stderr, "bench/onnx_import: the model did not import\n");
      remove(path);
      return 1;
    }
    double t2 = now();
    gilt_op_walk(module, GILT_WALK_PRE_ORDER, touch, &sum);
    double t3 = now();
    if (t1 - t0 < best_import) {
      best_import = t1 - t0;
      best_faults = faults;
    }
    if (t2 - t1 < best_verify)
      best_verify = t2 - t1;
    if (t3 - t2 < best_touch)
      best_touch = t3 - t2;
    gilt_op_destroy(module);
    gilt_context_destroy(ctx);
  }
  remove(path);
  printf("import: %.3f s (%.0f MB/s, %ld page faults), verify: %.4f s, "
         "touch: %.3f s, best of 3 (checksum %u)\n",
         best_import, mb / best_import, best_faults, best_verify, best_touch,
         sum);
  printf("first import: %.3f s, %ld page faults\n", first_import,
         first_faults);
  return 0;
}
