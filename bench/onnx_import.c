/*
** onnx_import.c - how fast the ONNX importer takes in a model with large
** weights.
**
** Builds a ModelProto with the protobuf-c generated API: a chain of N Conv
** nodes (3x3, C channels in and out, padding 1, each with a random f32
** weight and bias initializer), about 100 MB of weights with the defaults
** (N = 50, C = 240), as ResNet-50 has. Writes it to a temporary file, then
** times gilt_onnx_import_file and gilt_op_verify on it, best of three
** runs, and reports seconds, MB/s of model file and the page faults the
** import took; and the first run on its own, which is what a tool that
** imports once pays (later runs reuse memory the first one faulted in). The importer leaves weights in the mapped file, so it also
** times a first read of every weight byte after the import ("touch"):
** import plus touch is what a compiler that uses every weight pays. Not
** a test: timings are reported, never asserted.
**
**     bench/onnx_import [N [C]]
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "frontends/onnx/onnx.pb-c.h"
#include "gilt/ir.h"
#include "gilt/register.h"
#include "gilt/onnx.h"

#define DT(x) GILT__ONNX__TENSOR_PROTO__DATA_TYPE__##x
#define AT(x) GILT__ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x

static void *xcalloc(size_t n, size_t size)
{
  void *p = calloc(n ? n : 1, size);
  if (!p) {
    perror("calloc");
    exit(1);
  }
  return p;
}

/* `prefix` followed by `i`, as a new string: "w7". */
static char *numbered(const char *prefix, int i)
{
  char *s = xcalloc(32, 1);
  snprintf(s, 32, "%s%d", prefix, i);
  return s;
}

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

static Gilt__Onnx__TensorProto *random_tensor(char *name, size_t rank,
                                              int64_t *dims)
{
  Gilt__Onnx__TensorProto *t = xcalloc(1, sizeof *t);
  gilt__onnx__tensor_proto__init(t);
  t->name = name;
  t->has_data_type = true;
  t->data_type = DT(FLOAT);
  t->n_dims = rank;
  t->dims = dims;
  size_t count = 1;
  for (size_t i = 0; i < rank; i++)
    count *= (size_t)dims[i];
  float *data = xcalloc(count, sizeof *data);
  for (size_t i = 0; i < count; i++)
    data[i] = random_float();
  t->has_raw_data = true;
  t->raw_data.len = count * sizeof *data;
  t->raw_data.data = (uint8_t *)data;
  return t;
}

static Gilt__Onnx__ValueInfoProto *value(char *name, int64_t c)
{
  static int64_t dims[4];
  dims[0] = 1, dims[1] = c, dims[2] = 14, dims[3] = 14;
  Gilt__Onnx__TensorShapeProto *shape = xcalloc(1, sizeof *shape);
  gilt__onnx__tensor_shape_proto__init(shape);
  shape->n_dim = 4;
  shape->dim = xcalloc(4, sizeof *shape->dim);
  for (int i = 0; i < 4; i++) {
    Gilt__Onnx__TensorShapeProto__Dimension *d = xcalloc(1, sizeof *d);
    gilt__onnx__tensor_shape_proto__dimension__init(d);
    d->value_case = GILT__ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    d->dim_value = dims[i];
    shape->dim[i] = d;
  }
  Gilt__Onnx__TypeProto__Tensor *tt = xcalloc(1, sizeof *tt);
  gilt__onnx__type_proto__tensor__init(tt);
  tt->has_elem_type = true;
  tt->elem_type = DT(FLOAT);
  tt->shape = shape;
  Gilt__Onnx__TypeProto *type = xcalloc(1, sizeof *type);
  gilt__onnx__type_proto__init(type);
  type->tensor_type = tt;
  Gilt__Onnx__ValueInfoProto *vi = xcalloc(1, sizeof *vi);
  gilt__onnx__value_info_proto__init(vi);
  vi->name = name;
  vi->type = type;
  return vi;
}

static Gilt__Onnx__AttributeProto *ints_attr(char *name, size_t n,
                                             int64_t *values)
{
  Gilt__Onnx__AttributeProto *a = xcalloc(1, sizeof *a);
  gilt__onnx__attribute_proto__init(a);
  a->name = name;
  a->has_type = true;
  a->type = AT(INTS);
  a->n_ints = n;
  a->ints = values;
  return a;
}

/* Writes the model to `path`; returns its size in bytes. */
static size_t write_model(const char *path, int n, int64_t c)
{
  static int64_t pads[4] = {1, 1, 1, 1}, kernel[2] = {3, 3};
  int64_t *wdims = xcalloc(4, sizeof *wdims), *bdims = xcalloc(1, 8);
  wdims[0] = c, wdims[1] = c, wdims[2] = 3, wdims[3] = 3;
  bdims[0] = c;

  Gilt__Onnx__GraphProto *g = xcalloc(1, sizeof *g);
  gilt__onnx__graph_proto__init(g);
  g->name = "conv_chain";
  g->n_node = (size_t)n;
  g->node = xcalloc((size_t)n, sizeof *g->node);
  g->n_initializer = 2 * (size_t)n;
  g->initializer = xcalloc(2 * (size_t)n, sizeof *g->initializer);
  for (int i = 0; i < n; i++) {
    char *w = numbered("w", i), *b = numbered("b", i);
    g->initializer[2 * i] = random_tensor(w, 4, wdims);
    g->initializer[2 * i + 1] = random_tensor(b, 1, bdims);
    Gilt__Onnx__NodeProto *node = xcalloc(1, sizeof *node);
    gilt__onnx__node_proto__init(node);
    node->op_type = "Conv";
    node->name = numbered("conv", i);
    node->n_input = 3;
    node->input = xcalloc(3, sizeof *node->input);
    node->input[0] = numbered("x", i);
    node->input[1] = w;
    node->input[2] = b;
    node->n_output = 1;
    node->output = xcalloc(1, sizeof *node->output);
    node->output[0] = numbered("x", i + 1);
    node->n_attribute = 2;
    node->attribute = xcalloc(2, sizeof *node->attribute);
    node->attribute[0] = ints_attr("kernel_shape", 2, kernel);
    node->attribute[1] = ints_attr("pads", 4, pads);
    g->node[i] = node;
  }
  g->n_input = 1;
  g->input = xcalloc(1, sizeof *g->input);
  g->input[0] = value("x0", c);
  g->n_output = 1;
  g->output = xcalloc(1, sizeof *g->output);
  g->output[0] = value(numbered("x", n), c);

  Gilt__Onnx__OperatorSetIdProto opset;
  gilt__onnx__operator_set_id_proto__init(&opset);
  opset.domain = "";
  opset.has_version = true;
  opset.version = 17;
  Gilt__Onnx__OperatorSetIdProto *opsets[1] = {&opset};
  Gilt__Onnx__ModelProto m;
  gilt__onnx__model_proto__init(&m);
  m.has_ir_version = true;
  m.ir_version = 8;
  m.n_opset_import = 1;
  m.opset_import = opsets;
  m.graph = g;

  size_t len = gilt__onnx__model_proto__get_packed_size(&m);
  uint8_t *buf = xcalloc(len, 1);
  gilt__onnx__model_proto__pack(&m, buf);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
  free(buf);
  /* The model's strings and tensors stay allocated: this is a benchmark,
  ** and the process ends soon. */
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
