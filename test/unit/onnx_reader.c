/*
** onnx_reader.c - unit test of the ONNX file reader
** (frontends/onnx/model_reader.h).
**
** Unlike the other unit tests this one includes an internal header: the
** reader has no public API of its own (embedders will get the importer),
** and its diagnostics and tensor decoding deserve tests before the
** importer exists. It checks real files, models and TensorProto test data
** from the ONNX backend suite (libonnx-testdata; GILT_ONNX_TESTDATA
** overrides the folder) and the project's reference models
** ($GILT_SRCDIR/../shared/models), skipping either with a message when it
** is absent; then models and tensors it builds and packs itself with the
** generated protobuf-c code, to reach every payload encoding and every
** diagnostic; then corrupt input: truncated and random bytes, nesting
** past the depth limit, and external data escaping the model's directory
** (written to a fresh temporary folder, removed at the end).
*/
#include "test/unit/check.h"
#include "frontends/onnx/model_reader.h"
#include "test/support/onnx_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gilt/register.h"


/* ---- diagnostics --------------------------------------------------------- */

static size_t errors_seen, errors_checked, notes_seen;
static char last_error[1024];

static void record(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  errors_seen++;
  notes_seen += gilt_diagnostic_get_num_notes(d);
  snprintf(last_error, sizeof last_error, "%s",
           gilt_diagnostic_get_message(d));
}

/* Whether exactly one error was reported since the last call, containing
** `text`. */
static bool expect_error_at(const char *text, const char *file, int line)
{
  size_t n = errors_seen - errors_checked;
  errors_checked = errors_seen;
  if (n == 1 && strstr(last_error, text))
    return true;
  fprintf(stderr,
          "%s:%d: expected one error containing \"%s\", got %zu%s%s\n", file,
          line, text, n, n ? ", the last: " : "", n ? last_error : "");
  check_failures++;
  return false;
}
#define EXPECT_ERROR(text) expect_error_at((text), __FILE__, __LINE__)
#define EXPECT_NO_NEW_ERROR() CHECK(expect_no_new_error())

static bool expect_no_new_error(void)
{
  bool ok = errors_seen == errors_checked;
  if (!ok)
    fprintf(stderr, "unexpected error: %s\n", last_error);
  errors_checked = errors_seen;
  return ok;
}

/* ---- files --------------------------------------------------------------- */

static char tmpdir[256];
static char created[32][512]; /* removed in reverse order at the end */
static size_t num_created;

static const char *tmp_path(const char *name)
{
  static char buf[4][512];
  static unsigned next;
  char *p = buf[next++ % 4];
  snprintf(p, 512, "%s/%s", tmpdir, name);
  return p;
}

static void remember(const char *path)
{
  if (num_created < 32)
    snprintf(created[num_created++], sizeof created[0], "%s", path);
}

static void write_file(const char *path, const void *data, size_t len)
{
  FILE *f = fopen(path, "wb");
  if (!f || (len && fwrite(data, 1, len, f) != len)) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
  remember(path);
}

static uint8_t *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  if (n < 0) {
    fclose(f);
    return NULL;
  }
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  *len = fread(buf, 1, (size_t)n, f);
  fclose(f);
  return buf;
}

static bool exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0;
}

/* ---- building protos ----------------------------------------------------- */

static uint8_t *pack_tensor(const Gilt__Onnx__TensorProto *t, size_t *len)
{
  *len = gilt__onnx__tensor_proto__get_packed_size(t);
  uint8_t *buf = malloc(*len ? *len : 1);
  gilt__onnx__tensor_proto__pack(t, buf);
  return buf;
}

/* A small valid model: y = Identity(x), x and y float[2, n], opset 13.
** Tests edit the parts before packing it. */
typedef struct TestModel {
  Gilt__Onnx__ModelProto model;
  Gilt__Onnx__OperatorSetIdProto opset, opset2;
  Gilt__Onnx__OperatorSetIdProto *opsets[2];
  Gilt__Onnx__GraphProto graph;
  Gilt__Onnx__NodeProto node;
  Gilt__Onnx__NodeProto *nodes[1];
  char *node_in[1], *node_out[1];
  Gilt__Onnx__ValueInfoProto x, y;
  Gilt__Onnx__ValueInfoProto *inputs[1], *outputs[1];
  Gilt__Onnx__TypeProto type;
  Gilt__Onnx__TypeProto__Tensor tensor_type;
  Gilt__Onnx__TensorShapeProto shape;
  Gilt__Onnx__TensorShapeProto__Dimension d0, d1;
  Gilt__Onnx__TensorShapeProto__Dimension *dims[2];
} TestModel;

static void test_model_init(TestModel *m)
{
  memset(m, 0, sizeof *m);
  gilt__onnx__model_proto__init(&m->model);
  m->model.has_ir_version = true;
  m->model.ir_version = 8;
  gilt__onnx__operator_set_id_proto__init(&m->opset);
  m->opset.domain = "";
  m->opset.has_version = true;
  m->opset.version = 13;
  gilt__onnx__operator_set_id_proto__init(&m->opset2);
  m->opsets[0] = &m->opset;
  m->opsets[1] = &m->opset2;
  m->model.n_opset_import = 1;
  m->model.opset_import = m->opsets;

  gilt__onnx__tensor_shape_proto__dimension__init(&m->d0);
  m->d0.value_case = GILT__ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
  m->d0.dim_value = 2;
  gilt__onnx__tensor_shape_proto__dimension__init(&m->d1);
  m->d1.value_case = GILT__ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
  m->d1.dim_param = "n";
  m->dims[0] = &m->d0;
  m->dims[1] = &m->d1;
  gilt__onnx__tensor_shape_proto__init(&m->shape);
  m->shape.n_dim = 2;
  m->shape.dim = m->dims;
  gilt__onnx__type_proto__tensor__init(&m->tensor_type);
  m->tensor_type.has_elem_type = true;
  m->tensor_type.elem_type = GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  m->tensor_type.shape = &m->shape;
  gilt__onnx__type_proto__init(&m->type);
  m->type.tensor_type = &m->tensor_type;
  gilt__onnx__value_info_proto__init(&m->x);
  m->x.name = "x";
  m->x.type = &m->type;
  gilt__onnx__value_info_proto__init(&m->y);
  m->y.name = "y";
  m->y.type = &m->type;
  m->inputs[0] = &m->x;
  m->outputs[0] = &m->y;

  gilt__onnx__node_proto__init(&m->node);
  m->node.name = "id0";
  m->node.op_type = "Identity";
  m->node_in[0] = "x";
  m->node_out[0] = "y";
  m->node.n_input = 1;
  m->node.input = m->node_in;
  m->node.n_output = 1;
  m->node.output = m->node_out;
  m->nodes[0] = &m->node;

  gilt__onnx__graph_proto__init(&m->graph);
  m->graph.name = "main";
  m->graph.n_node = 1;
  m->graph.node = m->nodes;
  m->graph.n_input = 1;
  m->graph.input = m->inputs;
  m->graph.n_output = 1;
  m->graph.output = m->outputs;
  m->model.graph = &m->graph;
}

static GiltOnnxReader *open_packed_model(GiltContext *ctx,
                                         const Gilt__Onnx__ModelProto *m,
                                         const char *dir)
{
  size_t len;
  uint8_t *buf = onnx_pack_model(m, &len);
  GiltOnnxReader *r =
      gilt_onnx_reader_open_model_buffer(ctx, buf, len, "t.onnx", dir);
  free(buf);
  return r;
}

/* Packs `t`, opens it as a tensor file and resolves it. */
static GiltOnnxReader *resolve_packed(GiltContext *ctx,
                                      const Gilt__Onnx__TensorProto *t,
                                      GiltOnnxTensor *out, GiltStatus *st)
{
  size_t len;
  uint8_t *buf = pack_tensor(t, &len);
  GiltOnnxReader *r =
      gilt_onnx_reader_open_tensor_buffer(ctx, buf, len, "t.pb", NULL);
  free(buf);
  *st = GILT_FAILURE;
  if (r)
    *st = gilt_onnx_reader_resolve_tensor(
        r, gilt_onnx_reader_get_tensor_proto(r), NULL, out);
  return r;
}

static void tensor_init(Gilt__Onnx__TensorProto *t, int32_t dt, size_t rank,
                        int64_t *dims)
{
  gilt__onnx__tensor_proto__init(t);
  t->name = "t";
  t->has_data_type = true;
  t->data_type = dt;
  t->n_dims = rank;
  t->dims = dims;
}

static float load_f32(const void *p, size_t i)
{
  float f;
  memcpy(&f, (const uint8_t *)p + 4 * i, 4);
  return f;
}

/* ---- the ONNX backend test data ------------------------------------------ */

static GiltOnnxReader *open_tensor_checked(GiltContext *ctx, const char *path,
                                           GiltOnnxTensor *t)
{
  GiltOnnxReader *r = gilt_onnx_reader_open_tensor(ctx, path);
  CHECK(r);
  if (!r)
    return NULL;
  CHECK(gilt_onnx_reader_get_model(r) == NULL);
  CHECK(gilt_onnx_reader_resolve_tensor(
            r, gilt_onnx_reader_get_tensor_proto(r), NULL, t) ==
        GILT_SUCCESS);
  return r;
}

static void test_backend_add(GiltContext *ctx, const char *data)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/node/test_add/model.onnx", data);
  GiltOnnxReader *r = gilt_onnx_reader_open_model(ctx, path);
  CHECK(r);
  if (!r)
    return;
  int64_t opset = gilt_onnx_reader_get_opset_version(r, "");
  CHECK(opset >= 7 && opset <= GILT_ONNX_MAX_OPSET);
  CHECK(gilt_onnx_reader_get_opset_version(r, "ai.onnx") == opset);
  CHECK(gilt_onnx_reader_get_opset_version(r, "com.example") == 0);
  const Gilt__Onnx__GraphProto *g = gilt_onnx_reader_get_graph(r);
  CHECK(g->n_node == 1 && strcmp(g->node[0]->op_type, "Add") == 0);
  CHECK(g->n_input == 2 && g->n_output == 1);
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  int64_t shape[] = {3, 4, 5};
  GiltType *expect = gilt_tensor_type_get(ctx, 3, shape, f32, NULL);
  for (size_t i = 0; i < g->n_input; i++)
    CHECK(gilt_onnx_reader_get_value_type(r, g->input[i], NULL) == expect);
  CHECK(gilt_onnx_reader_get_value_type(r, g->output[0], NULL) == expect);
  gilt_onnx_reader_destroy(r);

  /* The test data: output_0 = input_0 + input_1, exactly in float. */
  GiltOnnxTensor in[2], out;
  GiltOnnxReader *rs[3];
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/node/test_add/test_data_set_0/input_%d.pb",
             data, i);
    rs[i] = open_tensor_checked(ctx, path, &in[i]);
  }
  snprintf(path, sizeof path, "%s/node/test_add/test_data_set_0/output_0.pb",
           data);
  rs[2] = open_tensor_checked(ctx, path, &out);
  if (rs[0] && rs[1] && rs[2]) {
    CHECK(out.rank == 3 && out.dims[0] == 3 && out.dims[1] == 4 &&
          out.dims[2] == 5);
    CHECK(out.elem_type == f32 && out.elem_size == 4);
    CHECK(out.num_elements == 60 && out.nbytes == 240);
    CHECK(in[0].nbytes == 240 && in[1].nbytes == 240);
    int wrong = 0;
    for (size_t i = 0; i < 60; i++)
      wrong += load_f32(in[0].data, i) + load_f32(in[1].data, i) !=
               load_f32(out.data, i);
    CHECK(wrong == 0);
  }
  for (int i = 0; i < 3; i++)
    gilt_onnx_reader_destroy(rs[i]);
  EXPECT_NO_NEW_ERROR();
}

/* A bool tensor and a uint8 one from the suite: element types and bytes. */
static void test_backend_types(GiltContext *ctx, const char *data)
{
  char path[1024];
  GiltOnnxTensor t;
  snprintf(path, sizeof path, "%s/node/test_and2d/test_data_set_0/input_0.pb",
           data);
  GiltOnnxReader *r = open_tensor_checked(ctx, path, &t);
  if (r) {
    CHECK(t.elem_type == gilt_integer_type_get(ctx, 1, GILT_SIGNLESS));
    CHECK(t.elem_size == 1 && t.nbytes == (size_t)t.num_elements);
    bool all_bits = true;
    for (size_t i = 0; i < t.nbytes; i++)
      all_bits &= ((const uint8_t *)t.data)[i] <= 1;
    CHECK(all_bits);
  }
  gilt_onnx_reader_destroy(r);
  snprintf(path, sizeof path,
           "%s/node/test_cast_FLOAT_to_FLOAT16/test_data_set_0/output_0.pb",
           data);
  if (exists(path)) {
    r = open_tensor_checked(ctx, path, &t);
    if (r)
      CHECK(t.elem_type == gilt_float_type_get(ctx, GILT_F16) &&
            t.elem_size == 2);
    gilt_onnx_reader_destroy(r);
  }
  EXPECT_NO_NEW_ERROR();
}

/* ---- the project's reference models -------------------------------------- */

static void test_shared_mlp(GiltContext *ctx, const char *models)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/mlp/model.onnx", models);
  GiltOnnxReader *r = gilt_onnx_reader_open_model(ctx, path);
  CHECK(r);
  if (!r)
    return;
  CHECK(gilt_onnx_reader_get_opset_version(r, "") == 13);
  const Gilt__Onnx__GraphProto *g = gilt_onnx_reader_get_graph(r);
  bool gemm = false, relu = false, softmax = false;
  for (size_t i = 0; i < g->n_node; i++) {
    gemm |= strcmp(g->node[i]->op_type, "Gemm") == 0;
    relu |= strcmp(g->node[i]->op_type, "Relu") == 0;
    softmax |= strcmp(g->node[i]->op_type, "Softmax") == 0;
  }
  CHECK(gemm && relu && softmax);
  int64_t in_shape[] = {1, 784};
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  CHECK(g->n_input >= 1 &&
        gilt_onnx_reader_get_value_type(r, g->input[0], NULL) ==
            gilt_tensor_type_get(ctx, 2, in_shape, f32, NULL));
  size_t weights = 0;
  for (size_t i = 0; i < g->n_initializer; i++) {
    GiltOnnxTensor t;
    CHECK(gilt_onnx_reader_resolve_tensor(r, g->initializer[i], NULL, &t) ==
          GILT_SUCCESS);
    CHECK(t.nbytes == (size_t)t.num_elements * t.elem_size);
    CHECK(t.name[0] != '\0');
    weights += (size_t)t.num_elements;
  }
  CHECK(weights > 100000); /* 784x256 and more: a real model */
  gilt_onnx_reader_destroy(r);

  /* input_0.pb holds the bytes of input_0.bin. */
  snprintf(path, sizeof path, "%s/mlp/test_data_set_0/input_0.pb", models);
  GiltOnnxTensor t;
  r = open_tensor_checked(ctx, path, &t);
  snprintf(path, sizeof path, "%s/mlp/input_0.bin", models);
  size_t len = 0;
  uint8_t *bin = slurp(path, &len);
  CHECK(bin && r);
  if (bin && r) {
    CHECK(t.rank == 2 && t.dims[0] == 1 && t.dims[1] == 784);
    CHECK(t.nbytes == len && memcmp(t.data, bin, len) == 0);
  }
  free(bin);
  gilt_onnx_reader_destroy(r);
  EXPECT_NO_NEW_ERROR();
}

/* ---- payload encodings --------------------------------------------------- */

/* gilt_onnx_data_type_of inverts gilt_onnx_element_type_get for every
** ONNX type gilt has, and has no answer for a type ONNX lacks. */
static void test_data_type_of(GiltContext *ctx)
{
  size_t mapped = 0;
  for (int32_t dt = 0; dt < 64; dt++) {
    GiltType *elem = gilt_onnx_element_type_get(ctx, dt);
    if (elem) {
      mapped++;
      CHECK(gilt_onnx_data_type_of(elem) == dt);
    }
  }
  CHECK(mapped == 19); /* 16 numeric types, bool, int4, uint4 */
  CHECK(gilt_onnx_data_type_of(gilt_float_type_get(ctx, GILT_F16)) ==
        GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16);
  CHECK(gilt_onnx_data_type_of(gilt_integer_type_get(ctx, 8, GILT_SIGNED)) ==
        GILT__ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED);
  CHECK(gilt_onnx_data_type_of(gilt_index_type_get(ctx)) ==
        GILT__ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED);
}

static void test_typed_fields(GiltContext *ctx)
{
  Gilt__Onnx__TensorProto t;
  GiltOnnxTensor out;
  GiltStatus st;
  GiltOnnxReader *r;
  int64_t three[] = {3}, two[] = {2}, one[] = {1};

  int32_t i8[] = {-128, 0, 127};
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 1, three);
  t.n_int32_data = 3;
  t.int32_data = i8;
  r = resolve_packed(ctx, &t, &out, &st);
  CHECK(st == GILT_SUCCESS && out.nbytes == 3 &&
        memcmp(out.data, "\x80\x00\x7f", 3) == 0);
  CHECK(out.elem_type == gilt_integer_type_get(ctx, 8, GILT_SIGNLESS));
  CHECK(strcmp(out.name, "t") == 0);
  gilt_onnx_reader_destroy(r);

  int32_t u16[] = {0, 65535, 258};
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__UINT16, 1, three);
  t.n_int32_data = 3;
  t.int32_data = u16;
  r = resolve_packed(ctx, &t, &out, &st);
  CHECK(st == GILT_SUCCESS && out.nbytes == 6 &&
        memcmp(out.data, "\x00\x00\xff\xff\x02\x01", 6) == 0);
  CHECK(out.elem_type == gilt_integer_type_get(ctx, 16, GILT_UNSIGNED));
  gilt_onnx_reader_destroy(r);

  int32_t bools[] = {0, 1, 5};
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, 1, three);
  t.n_int32_data = 3;
  t.int32_data = bools;
  r = resolve_packed(ctx, &t, &out, &st);
  CHECK(st == GILT_SUCCESS && memcmp(out.data, "\x00\x01\x01", 3) == 0);
  gilt_onnx_reader_destroy(r);

  int32_t halves[] = {0x3c00, -16384 /* 0xc000 sign-extended: -2.0 */};
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16, 1, two);
  t.n_int32_data = 2;
  t.int32_data = halves;
  r = resolve_packed(ctx, &t, &out, &st);
  CHECK(st == GILT_SUCCESS && out.nbytes == 4 &&
        memcmp(out.data, "\x00\x3c\x00\xc0", 4) == 0);
  gilt_onnx_reader_destroy(r);

  int32_t bf[] = {0x3f80};
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16, 1, one);
  t.n_int32_data = 1;
  t.int32_data = bf;
  r = resolve_packed(ctx, &t, &out, &st);
  CHECK(st == GILT_SUCCESS && memcmp(out.data, "\x80\x3f", 2) == 0);
  CHECK(out.elem_type == gilt_float_type_get(ctx, GILT_BF16));
  gilt_onnx_reader_destroy(r);

  uint64_t u32[] = {4294967295u, 1};
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__UINT32, 1, two);
  t.n_uint64_data = 2;
  t.uint64_data = u32;
  r = resolve_packed(ctx, &t, &out, &st);
  CHECK(st == GILT_SUCCESS && out.nbytes == 8 &&
        memcmp(out.data, "\xff\xff\xff\xff\x01\x00\x00\x00", 8) == 0);
  gilt_onnx_reader_destroy(r);

  uint64_t u64[] = {UINT64_MAX};
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__UINT64, 0, NULL);
  t.n_uint64_data = 1;
  t.uint64_data = u64;
  r = resolve_packed(ctx, &t, &out, &st);
  CHECK(st == GILT_SUCCESS && out.rank == 0 && out.num_elements == 1 &&
        memcmp(out.data, "\xff\xff\xff\xff\xff\xff\xff\xff", 8) == 0);
  CHECK(out.elem_type == gilt_integer_type_get(ctx, 64, GILT_UNSIGNED));
  gilt_onnx_reader_destroy(r);

  int64_t i64[] = {-2};
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1, one);
  t.n_int64_data = 1;
  t.int64_data = i64;
  r = resolve_packed(ctx, &t, &out, &st);
  CHECK(st == GILT_SUCCESS &&
        memcmp(out.data, "\xfe\xff\xff\xff\xff\xff\xff\xff", 8) == 0);
  gilt_onnx_reader_destroy(r);

  double dbl[] = {1.5};
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, 1, one);
  t.n_double_data = 1;
  t.double_data = dbl;
  r = resolve_packed(ctx, &t, &out, &st);
  CHECK(st == GILT_SUCCESS &&
        memcmp(out.data, "\x00\x00\x00\x00\x00\x00\xf8\x3f", 8) == 0);
  gilt_onnx_reader_destroy(r);

  float flt[] = {2.5f, -1.0f};
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, two);
  t.n_float_data = 2;
  t.float_data = flt;
  r = resolve_packed(ctx, &t, &out, &st);
  CHECK(st == GILT_SUCCESS && load_f32(out.data, 0) == 2.5f &&
        load_f32(out.data, 1) == -1.0f);
  gilt_onnx_reader_destroy(r);

  /* raw_data bools other than 0 and 1 read as 1. */
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, 1, two);
  t.has_raw_data = true;
  t.raw_data.len = 2;
  t.raw_data.data = (uint8_t *)"\x00\x07";
  r = resolve_packed(ctx, &t, &out, &st);
  CHECK(st == GILT_SUCCESS && memcmp(out.data, "\x00\x01", 2) == 0);
  gilt_onnx_reader_destroy(r);

  /* No elements, no data, however large the other dims. */
  int64_t zero[] = {INT64_MAX, INT64_MAX, 0};
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 3, zero);
  r = resolve_packed(ctx, &t, &out, &st);
  CHECK(st == GILT_SUCCESS && out.num_elements == 0 && out.nbytes == 0 &&
        out.data == NULL);
  gilt_onnx_reader_destroy(r);
  EXPECT_NO_NEW_ERROR();
}

static void test_payload_errors(GiltContext *ctx)
{
  Gilt__Onnx__TensorProto t;
  GiltOnnxTensor out;
  GiltStatus st;
  int64_t one[] = {1}, two[] = {2}, neg[] = {2, -1};
  int32_t big[] = {200};
  float flt[] = {1, 2};
  int64_t huge[] = {INT64_MAX, INT64_MAX};

  struct {
    int32_t dt;
    const char *error;
  } types[] = {
      {GILT__ONNX__TENSOR_PROTO__DATA_TYPE__STRING,
       "'t.pb': tensor 't' has element type STRING, which gilt does not "
       "support"},
      {GILT__ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64, "COMPLEX64"},
      {GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E8M0, "FLOAT8E8M0"},
      {GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT4E2M1, "FLOAT4E2M1"},
      {99, "has unknown element type 99"},
      {GILT__ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED, "has no element type"},
  };
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    tensor_init(&t, types[i].dt, 1, one);
    gilt_onnx_reader_destroy(resolve_packed(ctx, &t, &out, &st));
    CHECK(st == GILT_FAILURE);
    EXPECT_ERROR(types[i].error);
  }

  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 1, one);
  t.n_int32_data = 1;
  t.int32_data = big;
  gilt_onnx_reader_destroy(resolve_packed(ctx, &t, &out, &st));
  CHECK(st == GILT_FAILURE);
  EXPECT_ERROR("has int32_data[0] = 200, out of range for INT8");

  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__INT32, 1, two);
  t.n_float_data = 2;
  t.float_data = flt;
  gilt_onnx_reader_destroy(resolve_packed(ctx, &t, &out, &st));
  EXPECT_ERROR("stores INT32 elements in float_data");

  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, one);
  t.n_float_data = 2;
  t.float_data = flt;
  gilt_onnx_reader_destroy(resolve_packed(ctx, &t, &out, &st));
  EXPECT_ERROR("has 2 entries in float_data, its dims need 1");

  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, two);
  t.has_raw_data = true;
  t.raw_data.len = 7;
  t.raw_data.data = (uint8_t *)"1234567";
  gilt_onnx_reader_destroy(resolve_packed(ctx, &t, &out, &st));
  EXPECT_ERROR("has 7 bytes of raw_data, its dims need 8");
  t.n_float_data = 2;
  t.float_data = flt;
  gilt_onnx_reader_destroy(resolve_packed(ctx, &t, &out, &st));
  EXPECT_ERROR("stores its elements in both raw_data and float_data");

  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, two);
  gilt_onnx_reader_destroy(resolve_packed(ctx, &t, &out, &st));
  EXPECT_ERROR("tensor 't' has 2 elements but no data");

  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 2, neg);
  gilt_onnx_reader_destroy(resolve_packed(ctx, &t, &out, &st));
  EXPECT_ERROR("has negative dimension -1 (dims[1])");

  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 2, huge);
  gilt_onnx_reader_destroy(resolve_packed(ctx, &t, &out, &st));
  EXPECT_ERROR("too many elements");

  Gilt__Onnx__TensorProto__Segment seg;
  gilt__onnx__tensor_proto__segment__init(&seg);
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, one);
  t.name = NULL;
  t.segment = &seg;
  gilt_onnx_reader_destroy(resolve_packed(ctx, &t, &out, &st));
  EXPECT_ERROR("unnamed tensor is split into segments");

  Gilt__Onnx__StringStringEntryProto loc;
  gilt__onnx__string_string_entry_proto__init(&loc);
  loc.key = "location";
  loc.value = "w.bin";
  Gilt__Onnx__StringStringEntryProto *entries[] = {&loc};
  tensor_init(&t, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, one);
  t.n_external_data = 1;
  t.external_data = entries;
  gilt_onnx_reader_destroy(resolve_packed(ctx, &t, &out, &st));
  EXPECT_ERROR("has external_data entries but its data_location is not "
               "EXTERNAL");
  /* Loaded from memory, with no directory to find the file in. */
  t.has_data_location = true;
  t.data_location = GILT__ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  gilt_onnx_reader_destroy(resolve_packed(ctx, &t, &out, &st));
  EXPECT_ERROR("the model was not loaded from a file");
}

/* ---- model checks -------------------------------------------------------- */

static void test_model_checks(GiltContext *ctx)
{
  TestModel m;
  GiltOnnxReader *r;

  test_model_init(&m);
  r = open_packed_model(ctx, &m.model, NULL);
  CHECK(r);
  if (r) {
    CHECK(gilt_onnx_reader_get_opset_version(r, "ai.onnx") == 13);
    CHECK(strcmp(gilt_onnx_reader_get_file_name(r), "t.onnx") == 0);
    GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
    int64_t shape[] = {2, GILT_DYNAMIC};
    CHECK(gilt_onnx_reader_get_value_type(r, &m.x, NULL) ==
          gilt_tensor_type_get(ctx, 2, shape, f32, NULL));
    /* Value types: no shape, negative dim, no type, a sequence. */
    m.tensor_type.shape = NULL;
    CHECK(gilt_onnx_reader_get_value_type(r, &m.x, NULL) ==
          gilt_unranked_tensor_type_get(ctx, f32));
    m.tensor_type.shape = &m.shape;
    m.d0.dim_value = -3;
    CHECK(!gilt_onnx_reader_get_value_type(r, &m.x, NULL));
    EXPECT_ERROR("'t.onnx': value 'x' has negative dimension -3");
    m.d0.dim_value = 2;
    m.tensor_type.elem_type = GILT__ONNX__TENSOR_PROTO__DATA_TYPE__STRING;
    CHECK(!gilt_onnx_reader_get_value_type(r, &m.x, NULL));
    EXPECT_ERROR("value 'x' has element type STRING");
    m.tensor_type.elem_type = GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    m.x.type = NULL;
    CHECK(!gilt_onnx_reader_get_value_type(r, &m.x, NULL));
    EXPECT_ERROR("'t.onnx': value 'x' has no type");
    m.x.type = &m.type;
    gilt_onnx_reader_destroy(r);
  }
  EXPECT_NO_NEW_ERROR();

  /* A sequence type arrives as an unknown field (TypeProto.sequence_type
  ** = 4), and so does a sparse initializer (GraphProto field 15). */
  /* protobuf-c keeps a length-delimited unknown field's length prefix in
  ** its data: here a 2-byte message holding one empty field 1. */
  uint8_t payload[] = {0x02, 0x0a, 0x00};
  ProtobufCMessageUnknownField seq = {4, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED,
                                      3, payload};
  test_model_init(&m);
  m.type.tensor_type = NULL;
  m.type.base.n_unknown_fields = 1;
  m.type.base.unknown_fields = &seq;
  r = open_packed_model(ctx, &m.model, NULL);
  CHECK(r);
  if (r) {
    CHECK(!gilt_onnx_reader_get_value_type(r, &m.x, NULL));
    EXPECT_ERROR("value 'x' has a sequence type; gilt supports tensors only");
    gilt_onnx_reader_destroy(r);
  }
  test_model_init(&m);
  ProtobufCMessageUnknownField sparse = {
      15, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, 3, payload};
  m.graph.base.n_unknown_fields = 1;
  m.graph.base.unknown_fields = &sparse;
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("'t.onnx': graph 'main' has sparse initializers");

  test_model_init(&m);
  m.model.n_opset_import = 0;
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("'t.onnx': the model imports no operator set");

  test_model_init(&m);
  m.opset.version = 22;
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("'t.onnx': opset version 22 of domain 'ai.onnx' is not "
               "supported (gilt supports versions 1 to 21)");
  m.opset.version = 0;
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("opset version 0 of domain 'ai.onnx' is not supported");

  test_model_init(&m);
  m.opset.domain = "ai.onnx";
  m.opset2.domain = "";
  m.opset2.has_version = true;
  m.opset2.version = 12;
  m.model.n_opset_import = 2;
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("imports domain '' twice, at versions 13 and 12");

  /* Another domain may be imported if no node uses it. */
  test_model_init(&m);
  m.opset2.domain = "ai.onnx.ml";
  m.opset2.has_version = true;
  m.opset2.version = 3;
  m.model.n_opset_import = 2;
  r = open_packed_model(ctx, &m.model, NULL);
  CHECK(r);
  if (r)
    CHECK(gilt_onnx_reader_get_opset_version(r, "ai.onnx.ml") == 3);
  gilt_onnx_reader_destroy(r);
  EXPECT_NO_NEW_ERROR();
  m.node.domain = "ai.onnx.ml";
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("'t.onnx': node 'id0' (Identity) is in domain 'ai.onnx.ml', "
               "which gilt does not support");
  m.node.domain = "com.example";
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("is in domain 'com.example', which the model does not import");

  /* A model-local function (ModelProto field 25) earns a note. */
  ProtobufCMessageUnknownField fn = {25, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED,
                                     3, payload};
  m.model.base.n_unknown_fields = 1;
  m.model.base.unknown_fields = &fn;
  size_t notes = notes_seen;
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("which the model does not import");
  CHECK(notes_seen == notes + 1);

  /* Nodes in subgraphs (an If's branch) are checked too. */
  test_model_init(&m);
  TestModel inner;
  test_model_init(&inner);
  inner.node.domain = "com.example";
  Gilt__Onnx__AttributeProto attr;
  gilt__onnx__attribute_proto__init(&attr);
  attr.name = "then_branch";
  attr.has_type = true;
  attr.type = GILT__ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
  attr.g = &inner.graph;
  Gilt__Onnx__AttributeProto *attrs[] = {&attr};
  m.node.op_type = "If";
  m.node.n_attribute = 1;
  m.node.attribute = attrs;
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("node 'id0' (Identity) is in domain 'com.example'");

  /* A model made only of a node of an unknown domain: the domain is named
  ** rather than the missing default import. */
  test_model_init(&m);
  m.opset.domain = "ai.onnx.preview.training";
  m.node.domain = "ai.onnx.preview.training";
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("is in domain 'ai.onnx.preview.training', which gilt does not "
               "support");
  m.node.domain = "";
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("does not import the default ONNX operator set");

  test_model_init(&m);
  m.model.graph = NULL;
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("'t.onnx': the model has no graph");
  m.model.graph = &m.graph;
  m.graph.n_output = 0;
  CHECK(!open_packed_model(ctx, &m.model, NULL));
  EXPECT_ERROR("'t.onnx': graph 'main' is empty: it has no outputs");
}

/* ---- corrupt input ------------------------------------------------------- */

static void test_corrupt(GiltContext *ctx, const char *data)
{
  char path[1024];
  uint8_t *bytes = NULL;
  size_t len = 0;
  TestModel m;
  test_model_init(&m);
  if (data) {
    snprintf(path, sizeof path, "%s/node/test_add/model.onnx", data);
    bytes = slurp(path, &len);
  }
  if (!bytes)
    bytes = onnx_pack_model(&m.model, &len);

  /* Cut in half, mid-graph: the length prefixes no longer fit. */
  const char *cut = tmp_path("truncated.onnx");
  write_file(cut, bytes, len / 2);
  CHECK(!gilt_onnx_reader_open_model(ctx, cut));
  char expect[1024];
  snprintf(expect, sizeof expect,
           "'%s': not a valid ONNX model (protobuf parse failed)", cut);
  if (EXPECT_ERROR(expect))
    CHECK(strcmp(last_error, expect) == 0);
  free(bytes);

  /* Random bytes (a fixed xorshift sequence). */
  uint8_t noise[4096];
  uint32_t x = 2463534242u;
  for (size_t i = 0; i < sizeof noise; i++) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    noise[i] = (uint8_t)x;
  }
  const char *rnd = tmp_path("random.onnx");
  write_file(rnd, noise, sizeof noise);
  CHECK(!gilt_onnx_reader_open_model(ctx, rnd));
  EXPECT_ERROR("not a valid ONNX model");
  CHECK(!gilt_onnx_reader_open_tensor(ctx, rnd));
  EXPECT_ERROR("not a valid ONNX tensor");

  /* An empty file decodes as an empty ModelProto. */
  const char *empty = tmp_path("empty.onnx");
  write_file(empty, "", 0);
  CHECK(!gilt_onnx_reader_open_model(ctx, empty));
  EXPECT_ERROR("the model has no graph");

  CHECK(!gilt_onnx_reader_open_model(ctx, tmp_path("missing.onnx")));
  EXPECT_ERROR("missing.onnx': cannot open: ");
  CHECK(!gilt_onnx_reader_open_model(ctx, tmpdir));
  EXPECT_ERROR("': read error: ");

  /* Graphs nested in If attributes 150 deep, built inside out:
  ** GraphProto.node (1) > NodeProto.attribute (5) > AttributeProto.g (6). */
  static uint8_t nest[8192];
  size_t n = 0;
  for (int level = 0; level < 150; level++) {
    static const uint8_t tags[] = {0x32 /* g */, 0x2a /* attribute */,
                                   0x0a /* node */};
    for (int k = 0; k < 3; k++) {
      uint8_t head[6];
      size_t h = 0;
      head[h++] = tags[k];
      size_t v = n;
      do {
        head[h] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
          head[h] |= 0x80;
        h++;
      } while (v);
      memmove(nest + h, nest, n);
      memcpy(nest, head, h);
      n += h;
    }
  }
  /* ModelProto.graph (7) around it all. */
  uint8_t model[8200];
  size_t mlen = 0;
  model[mlen++] = 0x3a;
  for (size_t v = n;; v >>= 7) {
    model[mlen++] = (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
    if (!(v >> 7))
      break;
  }
  memcpy(model + mlen, nest, n);
  mlen += n;
  CHECK(!gilt_onnx_reader_open_model_buffer(ctx, model, mlen, "deep.onnx",
                                            NULL));
  EXPECT_ERROR("'deep.onnx': not a valid ONNX model (messages nested deeper "
               "than 100 levels)");
}

/* ---- external data ------------------------------------------------------- */

typedef struct ExternalCase {
  const char *kv[8]; /* key, value pairs, NULL-terminated */
  const char *error; /* NULL: must succeed */
} ExternalCase;

/* Writes a model whose initializer `w` (float[4]) has the given external
** data entries next to the files already in tmpdir, opens it from its
** path, and resolves `w`. */
static void check_external(GiltContext *ctx, const ExternalCase *c,
                           const float *expect)
{
  TestModel m;
  test_model_init(&m);
  Gilt__Onnx__StringStringEntryProto kv[4];
  Gilt__Onnx__StringStringEntryProto *entries[4];
  size_t n = 0;
  for (; c->kv[2 * n]; n++) {
    gilt__onnx__string_string_entry_proto__init(&kv[n]);
    kv[n].key = (char *)c->kv[2 * n];
    kv[n].value = (char *)c->kv[2 * n + 1];
    entries[n] = &kv[n];
  }
  int64_t dims[] = {4};
  Gilt__Onnx__TensorProto w;
  tensor_init(&w, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, dims);
  w.name = "w";
  w.has_data_location = true;
  w.data_location = GILT__ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  w.n_external_data = n;
  w.external_data = entries;
  Gilt__Onnx__TensorProto *inits[] = {&w};
  m.graph.n_initializer = 1;
  m.graph.initializer = inits;

  size_t len;
  uint8_t *buf = onnx_pack_model(&m.model, &len);
  const char *path = tmp_path("ext.onnx");
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(buf, 1, len, f) == len);
  if (f)
    fclose(f);
  free(buf);
  GiltOnnxReader *r = gilt_onnx_reader_open_model(ctx, path);
  CHECK(r);
  if (!r)
    return;
  GiltOnnxTensor t;
  GiltStatus st = gilt_onnx_reader_resolve_tensor(
      r, gilt_onnx_reader_get_graph(r)->initializer[0], NULL, &t);
  if (c->error) {
    CHECK(st == GILT_FAILURE);
    EXPECT_ERROR(c->error);
  } else {
    CHECK(st == GILT_SUCCESS);
    EXPECT_NO_NEW_ERROR();
    if (st == GILT_SUCCESS) {
      CHECK(t.nbytes == 16 && strcmp(t.name, "w") == 0);
      for (size_t i = 0; i < 4; i++)
        CHECK(load_f32(t.data, i) == expect[i]);
    }
  }
  gilt_onnx_reader_destroy(r);
}

static void test_external_data(GiltContext *ctx)
{
  /* weights.bin: 2 floats of padding, then 1 2 3 4; sub/w2.bin: 5 6 7 8. */
  float weights[] = {-1, -1, 1, 2, 3, 4};
  float w2[] = {5, 6, 7, 8};
  write_file(tmp_path("weights.bin"), weights, sizeof weights);
  char sub[512];
  snprintf(sub, sizeof sub, "%s/sub", tmpdir);
  mkdir(sub, 0700);
  remember(sub); /* before its file: removal goes in reverse */
  write_file(tmp_path("sub/w2.bin"), w2, sizeof w2);

  const ExternalCase ok[] = {
      {{"location", "weights.bin", "offset", "8", "length", "16", NULL},
       NULL},
      {{"location", "./sub/w2.bin", "checksum", "ignored", NULL}, NULL},
  };
  check_external(ctx, &ok[0], weights + 2);
  check_external(ctx, &ok[1], w2);

  const ExternalCase bad[] = {
      {{"location", "../secret.bin", NULL},
       "'w' has external data location '../secret.bin', which leaves the "
       "model's directory"},
      {{"location", "sub/../../x.bin", NULL}, "leaves the model's directory"},
      {{"location", "sub\\..\\..\\x.bin", NULL},
       "leaves the model's directory"},
      {{"location", "/etc/passwd", NULL},
       "has absolute external data location '/etc/passwd'"},
      {{"location", "weights.bin", "offset", "25", NULL},
       "has external data offset 25 beyond the end of 'weights.bin' (24 "
       "bytes)"},
      {{"location", "weights.bin", "offset", "8", "length", "64", NULL},
       "has external data range [8, 72) beyond the end of 'weights.bin' (24 "
       "bytes)"},
      {{"location", "weights.bin", NULL},
       "has 24 bytes of external data, its dims need 16"},
      {{"offset", "0", NULL}, "has external data without a location"},
      {{"location", "weights.bin", "offset", "8x", NULL},
       "has external data offset '8x', not a number"},
      {{"location", "weights.bin", "length", "-16", NULL},
       "has external data length '-16', not a number"},
      {{"location", "weights.bin", "location", "weights.bin", NULL},
       "has external data key 'location' twice"},
      {{"location", "nothere.bin", NULL},
       "needs external data file"},
      {{"location", "sub", NULL}, "which is not a regular file"},
      {{"location", "link.bin", NULL},
       "which leaves the model's directory through a symbolic link"},
  };
  /* link.bin -> "..": inside by name, outside once resolved. */
  const char *link = tmp_path("link.bin");
  CHECK(symlink("..", link) == 0);
  remember(link);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    check_external(ctx, &bad[i], NULL);
  remember(tmp_path("ext.onnx"));
}

/* ---- main ---------------------------------------------------------------- */

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_diagnostic_handler(ctx, record, NULL);

  const char *tmp = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/gilt-onnx-XXXXXX",
           tmp && tmp[0] ? tmp : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }

  const char *data = getenv("GILT_ONNX_TESTDATA");
  if (!data || !data[0])
    data = "/usr/share/libonnx-testdata/data";
  char probe[1024];
  snprintf(probe, sizeof probe, "%s/node/test_add/model.onnx", data);
  if (exists(probe)) {
    test_backend_add(ctx, data);
    test_backend_types(ctx, data);
  } else {
    printf("skipped: no ONNX backend test data at %s (libonnx-testdata)\n",
           data);
    data = NULL;
  }

  const char *srcdir = getenv("GILT_SRCDIR");
  char models[768];
  snprintf(models, sizeof models, "%s/../shared/models",
           srcdir && srcdir[0] ? srcdir : ".");
  snprintf(probe, sizeof probe, "%s/mlp/model.onnx", models);
  if (srcdir && exists(probe))
    test_shared_mlp(ctx, models);
  else
    printf("skipped: no reference models at %s\n", models);

  test_data_type_of(ctx);
  test_typed_fields(ctx);
  test_payload_errors(ctx);
  test_model_checks(ctx);
  test_corrupt(ctx, data);
  test_external_data(ctx);

  while (num_created)
    remove(created[--num_created]);
  rmdir(tmpdir);
  gilt_context_destroy(ctx);
  if (check_failures)
    fprintf(stderr, "%d check(s) failed\n", check_failures);
  return check_failures ? 1 : 0;
}
