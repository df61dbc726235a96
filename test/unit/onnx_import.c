/*
** onnx_import.c - unit test of the ONNX importer (include/gilt/onnx.h).
**
** The models are built with test/support/onnx_model.h (the protobuf-c
** code generated from frontends/onnx/onnx.proto), packed, and imported
** from memory or from a temporary file, so that every case is exactly
** what it claims to be without an ONNX installation. It checks what the
** importer makes (the function's signature, initializers as dense
** resources, locations, absent operands, subgraph regions, the upgrades
** of older opsets) by printing the module and looking for lines; and
** what it refuses: corrupt files, every unsupported node reported at
** once, undefined inputs, and outputs whose type nothing tells. Ops that
** the graph dialect may not have yet are imported with unregistered
** dialects allowed, which the importer supports for exactly this. Like
** onnx_reader.c, it includes internal headers, for the generated
** structures and the op-name rule.
*/
#include "test/unit/check.h"
#include "test/unit/text.h"
#include "frontends/onnx/importer.h"
#include "test/support/onnx_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>



/* ---- diagnostics: every error message, joined by newlines ------------------ */

static char errors[8192];
static size_t num_errors;

static void record(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  num_errors++;
  /* As printed: the node the location names, then the message. */
  const char *node = gilt_location_get_name(gilt_diagnostic_get_location(d));
  size_t len = strlen(errors);
  snprintf(errors + len, sizeof errors - len, "%s%s%s%s\n",
           node ? "in node '" : "", node ? node : "", node ? "': " : "",
           gilt_diagnostic_get_message(d));
}

static void reset_errors(void)
{
  errors[0] = '\0';
  num_errors = 0;
}

/* ---- printing into a buffer ------------------------------------------------- */

static Text text;

static const char *print(GiltOp *module, bool debug_info)
{
  text.len = 0;
  text.data[0] = '\0';
  GiltPrintFlags flags = {.debug_info = debug_info};
  gilt_op_print(module, &flags, text_append, &text);
  return text.data;
}

/* ---- building models (test/support/onnx_model.h) ------------------------ */

static const int64_t dims_2x3[] = {2, 3};
static const int64_t dims_3[] = {3};
static const int64_t dims_1x3x1[] = {1, 3, 1};

/* Packs the model around `g` at `opset`, imports it from memory. */
static GiltOp *import(GiltContext *ctx, const Gilt__Onnx__GraphProto *g,
                      int64_t opset)
{
  size_t len;
  uint8_t *buf = onnx_pack(g, opset, &len);
  reset_errors();
  GiltOp *module = gilt_onnx_import_buffer(ctx, buf, len, "t.onnx", NULL);
  free(buf);
  return module;
}

/* A bare context: the importer registers the dialects it produces. */
static GiltContext *context(bool allow_unregistered)
{
  GiltContext *ctx = gilt_context_create();
  gilt_context_set_diagnostic_handler(ctx, record, NULL);
  gilt_context_set_allow_unregistered_dialects(ctx, allow_unregistered);
  return ctx;
}

/* ---- the cases ----------------------------------------------------------------- */

static void test_op_names(void)
{
  static const char *const cases[][2] = {
      {"Conv", "graph.conv"},
      {"MatMul", "graph.mat_mul"},
      {"BatchNormalization", "graph.batch_normalization"},
      {"GlobalAveragePool", "graph.global_average_pool"},
      {"LRN", "graph.lrn"},
      {"QLinearConv", "graph.q_linear_conv"},
      {"ReduceL1", "graph.reduce_l1"},
      {"ArgMax", "graph.arg_max"},
      {"DFT", "graph.dft"},
      {"Relu", "graph.relu"},
      {"MatMulInteger", "graph.mat_mul_integer"},
      {"NonMaxSuppression", "graph.non_max_suppression"},
      {"If", "graph.if"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char buf[128];
    CHECK(gilt_onnx_op_name(cases[i][0], buf, sizeof buf));
    if (strcmp(buf, cases[i][1])) {
      fprintf(stderr, "op name of %s: got %s, want %s\n", cases[i][0], buf,
              cases[i][1]);
      check_failures++;
    }
  }
  char tiny[8];
  CHECK(!gilt_onnx_op_name("GlobalAveragePool", tiny, sizeof tiny));
}

/* y = Relu(x + w), w an initializer also listed as an input (as exporters
** of IR version 3 did). */
static void test_basic(void)
{
  GiltContext *ctx = context(false);
  static const float w[6] = {1, 2, 3, 4, 5, 6};
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  onnx_add_input(g, onnx_value("w/0:weights", 2, dims_2x3));
  onnx_add_initializer(g, "w/0:weights", 2, dims_2x3, w);
  onnx_add_node(g, onnx_node("Add", "add0", "x,w/0:weights", "s"));
  onnx_add_node(g, onnx_node("Relu", "", "s", "y"));
  onnx_add_output(g, onnx_value("y", 2, dims_2x3));
  GiltOp *module = import(ctx, g, 13);
  CHECK(module && num_errors == 0);
  if (module) {
    CHECK(gilt_op_verify(module) == GILT_SUCCESS);
    const char *t = print(module, true);
    CHECK(strstr(t, "func.func @main(%arg0: tensor<2x3xf32> loc(\"x\")) -> "
                    "tensor<2x3xf32>"));
    CHECK(strstr(t, "graph.constant dense_resource<w_0_weights> : "
                    "tensor<2x3xf32> loc(\"w/0:weights\")"));
    CHECK(strstr(t, "graph.add(%arg0, %0)"));
    CHECK(strstr(t, "loc(\"add0\"(\"t.onnx\":1:1))"));
    CHECK(strstr(t, "loc(\"Relu_1\"(\"t.onnx\":2:1))"));
    gilt_op_destroy(module);
  }
  gilt_context_destroy(ctx);
}

/* Every unsupported node is reported, subgraph nodes included, before
** anything is built. */
static void test_unsupported(void)
{
  GiltContext *ctx = context(false);
  Gilt__Onnx__GraphProto *body = onnx_graph("then");
  onnx_add_node(body, onnx_node("NoSuchOpInside", "inner", "x", "t"));
  onnx_add_output(body, onnx_value("t", 2, dims_2x3));
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  onnx_add_node(g, onnx_node("NoSuchOp", "first", "x", "a"));
  onnx_add_node(g, onnx_node("Relu", "fine", "a", "b"));
  Gilt__Onnx__NodeProto *n = onnx_node("AnotherMissingOp", "", "b", "y");
  Gilt__Onnx__AttributeProto *attr = onnx_attr(n, "branch", ONNX_AT(GRAPH));
  attr->g = body;
  onnx_add_node(g, n);
  onnx_add_output(g, onnx_value("y", 2, dims_2x3));
  GiltOp *module = import(ctx, g, 13);
  CHECK(!module);
  CHECK(num_errors == 3);
  CHECK(strstr(errors, "in node 'first': unsupported ONNX operator "
                       "'NoSuchOp' (version 13)\n"));
  CHECK(strstr(errors, "in node 'AnotherMissingOp_2': unsupported ONNX "
                       "operator 'AnotherMissingOp' (version 13)\n"));
  CHECK(strstr(errors, "in node 'inner': unsupported ONNX operator "
                       "'NoSuchOpInside' (version 13)\n"));
  gilt_context_destroy(ctx);
}

/* A conv net at opsets 18 to 21 that uses only operators unchanged since
** 17 imports exactly as at 17; an opset past 21 is refused naming the
** versions gilt reads; a version gilt does not read is refused by name. */
static void test_newer_opsets(void)
{
  static const int64_t dims_x[] = {1, 3, 8, 8}, dims_w[] = {4, 3, 3, 3},
                       dims_y[] = {1, 4, 6, 6};
  static float w[4 * 3 * 3 * 3];
  GiltContext *ctx = context(false);
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 4, dims_x));
  onnx_add_initializer(g, "w", 4, dims_w, w);
  onnx_add_node(g, onnx_node("Conv", "conv", "x,w", "c"));
  onnx_add_node(g, onnx_node("Relu", "relu", "c", "y"));
  onnx_add_output(g, onnx_value("y", 4, dims_y));
  GiltOp *at17 = import(ctx, g, 17);
  CHECK(at17 && num_errors == 0);
  char *text17 = strdup(at17 ? print(at17, true) : "");
  for (int64_t opset = 18; opset <= 21; opset++) {
    GiltOp *m = import(ctx, g, opset);
    CHECK(m && num_errors == 0);
    CHECK(m && strcmp(print(m, true), text17) == 0);
    if (m)
      gilt_op_destroy(m);
  }
  free(text17);
  if (at17)
    gilt_op_destroy(at17);

  CHECK(!import(ctx, g, 22));
  CHECK(num_errors == 1 &&
        strstr(errors, "opset version 22 of domain 'ai.onnx' is not "
                       "supported (gilt supports versions 1 to 21)"));
  gilt_context_destroy(ctx);

  /* Every version of opsets 18 to 21 that has a graph op imports; what is
  ** left (optional and string operators) has none. With unregistered
  ** dialects allowed such a node would become an opaque op, but its
  ** version is one gilt is known not to read, so it is refused by name,
  ** every node at once. */
  ctx = context(true);
  Gilt__Onnx__GraphProto *r = onnx_graph("r");
  onnx_add_input(r, onnx_value("x", 2, dims_2x3));
  onnx_add_node(r, onnx_node("StringConcat", "cat", "x,x", "m"));
  onnx_add_node(r, onnx_node("Relu", "relu", "m", "a"));
  onnx_add_node(r, onnx_node("OptionalHasElement", "", "a", "y"));
  onnx_add_output(r, onnx_value("y", 2, dims_2x3));
  CHECK(!import(ctx, r, 20));
  CHECK(num_errors == 2);
  CHECK(strstr(errors, "in node 'cat': unsupported version 20 of ONNX "
                       "operator 'StringConcat' (opset 20)\n"));
  CHECK(strstr(errors, "in node 'OptionalHasElement_2': unsupported version "
                       "18 of ONNX operator 'OptionalHasElement' (opset "
                       "20)\n"));
  gilt_context_destroy(ctx);
}

/* A string attribute of node `n`. */
static void attr_string(Gilt__Onnx__NodeProto *n, const char *name,
                        const char *value)
{
  Gilt__Onnx__AttributeProto *a = onnx_attr(n, name, ONNX_AT(STRING));
  a->has_s = true;
  a->s.data = (uint8_t *)value;
  a->s.len = strlen(value);
}

/* Versions from opset 19 on that only added element types: float 8 at 19,
** int4 and uint4 at 21 (which gilt has), string for Equal-19 (which it has
** not, and refuses, naming it, wherever it appears). */
static void test_new_element_types(void)
{
  GiltContext *ctx = context(false);
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  Gilt__Onnx__ValueInfoProto *x = onnx_value("x", 2, dims_2x3);
  x->type->tensor_type->elem_type = ONNX_DT(STRING);
  onnx_add_input(g, x);
  onnx_add_node(g, onnx_node("Shape", "op", "x", "y"));
  onnx_add_output(g, onnx_untyped("y"));
  CHECK(!import(ctx, g, 19));
  CHECK(num_errors == 1 && strstr(errors, "value 'x' has element type "
                                          "STRING, which gilt does not "
                                          "support"));

  /* int4 and uint4 values become i4 and ui4. */
  static const int32_t types[] = {ONNX_DT(INT4), ONNX_DT(UINT4)};
  static const char *const want[] = {"tensor<3x2xi4>", "tensor<3x2xui4>"};
  for (size_t i = 0; i < 2; i++) {
    g = onnx_graph("g");
    x = onnx_value("x", 2, dims_2x3);
    x->type->tensor_type->elem_type = types[i];
    onnx_add_input(g, x);
    onnx_add_node(g, onnx_node("Transpose", "op", "x", "y"));
    onnx_add_output(g, onnx_untyped("y"));
    GiltOp *module = import(ctx, g, 21);
    CHECK(module && num_errors == 0);
    if (module) {
      CHECK(strstr(print(module, false), want[i]));
      gilt_op_destroy(module);
    }
  }

  /* An initializer of int4, two values a byte, low nibble first, feeding
  ** Reshape-21: 5 values in 3 bytes, the last high nibble padding. */
  static const int64_t dims_5[] = {5}, dims_2[] = {2};
  static const float w[5];
  static uint8_t packed[3] = {0x81, 0x7F, 0xA0};
  g = onnx_graph("g");
  onnx_add_input(g, onnx_value("s", 1, dims_2));
  g->input[0]->type->tensor_type->elem_type = ONNX_DT(INT64);
  Gilt__Onnx__TensorProto *t = onnx_add_initializer(g, "w", 1, dims_5, w);
  t->data_type = ONNX_DT(INT4);
  t->raw_data.data = packed;
  t->raw_data.len = 3;
  onnx_add_node(g, onnx_node("Reshape", "reshape", "w,s", "y"));
  onnx_add_output(g, onnx_untyped("y"));
  GiltOp *module = import(ctx, g, 21);
  CHECK(module && num_errors == 0);
  if (module) {
    /* Resource blobs print a 4-byte alignment, then the bytes. */
    const char *out = print(module, false);
    CHECK(strstr(out, "dense_resource<w> : tensor<5xi4>"));
    CHECK(strstr(out, "w: \"0x0100000001F8FF0700\""));
    gilt_op_destroy(module);
  }
  /* One byte short of the 3 that 5 values need. */
  t->raw_data.len = 2;
  CHECK(!import(ctx, g, 21));
  CHECK(num_errors == 1 && strstr(errors, "tensor 'w' has 2 bytes of "
                                          "raw_data, its dims need 3"));
  /* The same values as uint4, in int32_data: one byte per entry. */
  static int32_t entries[3] = {0x81, 0x7F, 0xA0};
  t->data_type = ONNX_DT(UINT4);
  t->has_raw_data = false;
  t->raw_data.len = 0;
  t->n_int32_data = 3;
  t->int32_data = entries;
  module = import(ctx, g, 21);
  CHECK(module && num_errors == 0);
  if (module) {
    const char *out = print(module, false);
    /* The context holds blob `w` already: this one is `w_1`. */
    CHECK(strstr(out, "dense_resource<w_1> : tensor<5xui4>"));
    CHECK(strstr(out, "w_1: \"0x0100000001080F0700\""));
    gilt_op_destroy(module);
  }
  t->n_int32_data = 0;

  /* Cast-19 to float 8, `saturate` kept; a float 8 initializer in
  ** int32_data, one bit pattern per entry (448, -0, NaN, 2^-9). */
  static const int64_t dims_4[] = {4};
  static const float w4[4];
  static int32_t f8_entries[4] = {0x7E, 0x80, 0x7F, 0x01};
  g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  Gilt__Onnx__NodeProto *cast = onnx_node("Cast", "cast", "x", "y");
  onnx_attr_int(cast, "to", ONNX_DT(FLOAT8E5M2));
  onnx_attr_int(cast, "saturate", 0);
  onnx_add_node(g, cast);
  onnx_add_output(g, onnx_untyped("y"));
  t = onnx_add_initializer(g, "c", 1, dims_4, w4);
  t->data_type = ONNX_DT(FLOAT8E4M3FN);
  t->has_raw_data = false;
  t->raw_data.len = 0;
  t->n_int32_data = 4;
  t->int32_data = f8_entries;
  onnx_add_node(g, onnx_node("Identity", "id", "c", "z"));
  onnx_add_output(g, onnx_untyped("z"));
  module = import(ctx, g, 19);
  CHECK(module && num_errors == 0);
  if (module) {
    const char *out = print(module, false);
    CHECK(strstr(out, "graph.cast(%arg0) {saturate = 0 : i64, to = 19 : "
                      "i64} : (tensor<2x3xf32>) -> tensor<2x3xf8E5M2>"));
    CHECK(strstr(out, "dense_resource<c> : tensor<4xf8E4M3FN>"));
    CHECK(strstr(out, "c: \"0x010000007E807F01\""));
    gilt_op_destroy(module);
  }
  t->n_int32_data = 0;
  gilt_context_destroy(ctx);
}

/* QuantizeLinear-21 and DequantizeLinear-21: blocked scales and
** output_dtype import into the graph ops; at opset 20 they are refused, as
** is QuantizeLinear's saturate at 18. */
static void test_quantize_versions(void)
{
  static const int64_t dims_2x4[] = {2, 4}, dims_2x2[] = {2, 2};
  static const float s[4] = {1, 1, 1, 1};
  GiltContext *ctx = context(false);
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x4));
  onnx_add_initializer(g, "s", 2, dims_2x2, s);
  Gilt__Onnx__NodeProto *q = onnx_node("QuantizeLinear", "q", "x,s", "y");
  onnx_attr_int(q, "block_size", 2);
  onnx_attr_int(q, "output_dtype", ONNX_DT(INT4));
  onnx_add_node(g, q);
  Gilt__Onnx__NodeProto *dq = onnx_node("DequantizeLinear", "dq", "y,s", "z");
  onnx_attr_int(dq, "block_size", 2);
  onnx_add_node(g, dq);
  onnx_add_output(g, onnx_untyped("z"));
  GiltOp *module = import(ctx, g, 21);
  CHECK(module && num_errors == 0);
  if (module) {
    const char *out = print(module, false);
    CHECK(strstr(out, "graph.quantize_linear(%arg0, %0) {block_size = 2 : "
                      "i64, output_dtype = 22 : i64} : (tensor<2x4xf32>, "
                      "tensor<2x2xf32>) -> tensor<2x4xi4>"));
    CHECK(strstr(out, "-> tensor<2x4xf32>"));
    gilt_op_destroy(module);
  }
  CHECK(!import(ctx, g, 20));
  CHECK(strstr(errors, "node 'q' (QuantizeLinear, opset 20) uses attribute "
                       "'block_size', which QuantizeLinear has only from "
                       "opset 21 on"));

  g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x4));
  onnx_add_initializer(g, "s", 0, NULL, s);
  q = onnx_node("QuantizeLinear", "q", "x,s", "y");
  onnx_attr_int(q, "saturate", 0);
  onnx_add_node(g, q);
  onnx_add_output(g, onnx_untyped("y"));
  module = import(ctx, g, 19);
  CHECK(module && num_errors == 0);
  if (module)
    gilt_op_destroy(module);
  CHECK(!import(ctx, g, 18));
  CHECK(num_errors == 1 && strstr(errors, "uses attribute 'saturate', which "
                                          "QuantizeLinear has only from "
                                          "opset 19 on"));
  gilt_context_destroy(ctx);
}

/* graph.pad, graph.resize and graph.cast have the forms of Pad-19,
** Resize-19 and Cast-19; a node of an older opset that uses what only the
** newer versions have is refused, not read with their meaning. */
static void test_newer_forms_in_older_opsets(void)
{
  static const int64_t dims_pads[] = {2}, dims_axes[] = {1};
  GiltContext *ctx = context(false);
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  onnx_add_input(g, onnx_value("pads", 1, dims_pads));
  g->input[1]->type->tensor_type->elem_type = ONNX_DT(INT64);
  onnx_add_input(g, onnx_value("axes", 1, dims_axes));
  g->input[2]->type->tensor_type->elem_type = ONNX_DT(INT64);
  onnx_add_node(g, onnx_node("Pad", "pad", "x,pads,,axes", "y"));
  onnx_add_output(g, onnx_untyped("y"));
  CHECK(!import(ctx, g, 17));
  CHECK(num_errors == 1 &&
        strstr(errors, "node 'pad' (Pad, opset 17) uses input 'axes', which "
                       "Pad has only from opset 18 on"));
  GiltOp *m = import(ctx, g, 18);
  CHECK(m && num_errors == 0);
  if (m) {
    CHECK(gilt_op_verify(m) == GILT_SUCCESS);
    gilt_op_destroy(m);
  }

  g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  onnx_add_input(g, onnx_value("pads", 1, dims_3));
  g->input[1]->type->tensor_type->elem_type = ONNX_DT(INT64);
  Gilt__Onnx__NodeProto *pad = onnx_node("Pad", "pad", "x,pads", "y");
  attr_string(pad, "mode", "wrap");
  onnx_add_node(g, pad);
  onnx_add_output(g, onnx_untyped("y"));
  CHECK(!import(ctx, g, 18));
  CHECK(num_errors == 1 &&
        strstr(errors, "node 'pad' (Pad, opset 18) uses mode 'wrap', which "
                       "Pad has only from opset 19 on"));

  g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  onnx_add_input(g, onnx_value("scales", 1, dims_axes));
  Gilt__Onnx__NodeProto *resize = onnx_node("Resize", "r", "x,,scales", "y");
  static const int64_t last[] = {-1};
  onnx_attr_ints(resize, "axes", 1, last);
  onnx_add_node(g, resize);
  onnx_add_output(g, onnx_untyped("y"));
  CHECK(!import(ctx, g, 13));
  CHECK(num_errors == 1 &&
        strstr(errors, "node 'r' (Resize, opset 13) uses attribute 'axes', "
                       "which Resize has only from opset 18 on"));

  g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  onnx_add_input(g, onnx_value("scales", 1, dims_pads));
  resize = onnx_node("Resize", "r", "x,,scales", "y");
  attr_string(resize, "coordinate_transformation_mode",
              "half_pixel_symmetric");
  onnx_add_node(g, resize);
  onnx_add_output(g, onnx_untyped("y"));
  CHECK(!import(ctx, g, 18));
  CHECK(num_errors == 1 &&
        strstr(errors, "uses coordinate_transformation_mode "
                       "'half_pixel_symmetric', which Resize has only from "
                       "opset 19 on"));
  m = import(ctx, g, 19);
  CHECK(m && num_errors == 0);
  if (m)
    gilt_op_destroy(m);

  g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  Gilt__Onnx__NodeProto *cast = onnx_node("CastLike", "c", "x,x", "y");
  onnx_attr_int(cast, "saturate", 1);
  onnx_add_node(g, cast);
  onnx_add_output(g, onnx_untyped("y"));
  CHECK(!import(ctx, g, 15));
  CHECK(num_errors == 1 &&
        strstr(errors, "node 'c' (CastLike, opset 15) uses attribute "
                       "'saturate', which CastLike has only from opset 19 "
                       "on"));
  gilt_context_destroy(ctx);
}

/* LpPool-18 added `ceil_mode` and `dilations`, AveragePool-19
** `dilations`; graph.lp_pool and graph.average_pool have those versions'
** forms, so an older node that uses them is refused, a newer one kept. */
static void test_pool_attrs_by_opset(void)
{
  static const int64_t dims_x[] = {1, 1, 4, 4}, two[] = {2, 2};
  static const struct {
    const char *op_type, *attr;
    int64_t opset;
    int since;
  } cases[] = {
      {"LpPool", "ceil_mode", 17, 18},
      {"LpPool", "dilations", 11, 18},
      {"AveragePool", "dilations", 18, 19},
  };
  GiltContext *ctx = context(false);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Gilt__Onnx__GraphProto *g = onnx_graph("g");
    onnx_add_input(g, onnx_value("x", 4, dims_x));
    Gilt__Onnx__NodeProto *pool = onnx_node(cases[i].op_type, "p", "x", "y");
    onnx_attr_ints(pool, "kernel_shape", 2, two);
    if (!strcmp(cases[i].attr, "ceil_mode"))
      onnx_attr_int(pool, "ceil_mode", 1);
    else
      onnx_attr_ints(pool, "dilations", 2, two);
    onnx_add_node(g, pool);
    onnx_add_output(g, onnx_untyped("y"));
    char expected[160];
    snprintf(expected, sizeof expected,
             "node 'p' (%s, opset %lld) uses attribute '%s', which %s has "
             "only from opset %d on",
             cases[i].op_type, (long long)cases[i].opset, cases[i].attr,
             cases[i].op_type, cases[i].since);
    CHECK(!import(ctx, g, cases[i].opset));
    CHECK(num_errors == 1 && strstr(errors, expected));
    GiltOp *m = import(ctx, g, cases[i].since);
    CHECK(m && num_errors == 0);
    if (m) {
      CHECK(gilt_op_verify(m) == GILT_SUCCESS);
      gilt_op_destroy(m);
    }
  }
  gilt_context_destroy(ctx);
}

/* Resize-18 dropped the coordinate mode tf_half_pixel_for_nn, which
** graph.resize keeps for Resize-11 to 17: from opset 18 on a node using
** it is refused, not read with the old meaning. */
static void test_resize_dropped_mode(void)
{
  static const int64_t dims_scales[] = {2};
  GiltContext *ctx = context(false);
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  onnx_add_input(g, onnx_value("scales", 1, dims_scales));
  Gilt__Onnx__NodeProto *resize = onnx_node("Resize", "r", "x,,scales", "y");
  attr_string(resize, "coordinate_transformation_mode",
              "tf_half_pixel_for_nn");
  onnx_add_node(g, resize);
  onnx_add_output(g, onnx_untyped("y"));
  GiltOp *m = import(ctx, g, 17);
  CHECK(m && num_errors == 0);
  if (m)
    gilt_op_destroy(m);
  for (int64_t opset = 18; opset <= 19; opset++) {
    CHECK(!import(ctx, g, opset));
    char expected[160];
    snprintf(expected, sizeof expected,
             "node 'r' (Resize, opset %lld) uses "
             "coordinate_transformation_mode 'tf_half_pixel_for_nn', which "
             "Resize has only up to opset 17",
             (long long)opset);
    CHECK(num_errors == 1 && strstr(errors, expected));
  }
  gilt_context_destroy(ctx);
}

/* Split-18 takes a `split` input or `num_outputs`, not both; each alone
** imports. */
static void test_split_18_both(void)
{
  static const int64_t dims_2[] = {2}, split[] = {1, 2};
  GiltContext *ctx = context(false);
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  onnx_add_input(g, onnx_value("split", 1, dims_2));
  Gilt__Onnx__TensorProto *t =
      onnx_add_initializer(g, "split", 1, dims_2, NULL);
  t->data_type = ONNX_DT(INT64);
  t->has_raw_data = true;
  t->raw_data.len = sizeof split;
  t->raw_data.data = (uint8_t *)split;
  Gilt__Onnx__NodeProto *n = onnx_node("Split", "s", "x,split", "a,b");
  onnx_attr_int(n, "axis", 1);
  onnx_attr_int(n, "num_outputs", 2);
  onnx_add_node(g, n);
  onnx_add_output(g, onnx_untyped("a"));
  onnx_add_output(g, onnx_untyped("b"));
  CHECK(!import(ctx, g, 18));
  CHECK(num_errors == 1 &&
        strstr(errors, "node 's' (Split, opset 18) has both a 'split' input "
                       "and 'num_outputs'; Split-18 takes one of them"));
  n->n_attribute = 1; /* axis only */
  GiltOp *m = import(ctx, g, 18);
  CHECK(m && num_errors == 0);
  if (m)
    gilt_op_destroy(m);
  gilt_context_destroy(ctx);
}

/* A GroupNormalization-18 of `rank` dims (`dims`) and `elem_type`, with
** scale and bias of 2 entries (one per group), num_groups 2 given as a
** float when `float_groups`. */
static Gilt__Onnx__GraphProto *group_norm_graph(size_t rank,
                                                const int64_t *dims,
                                                int elem_type,
                                                bool float_groups)
{
  static const int64_t dims_2[] = {2};
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", rank, dims));
  onnx_add_input(g, onnx_value("scale", 1, dims_2));
  onnx_add_input(g, onnx_value("bias", 1, dims_2));
  for (size_t i = 0; i < 3; i++)
    g->input[i]->type->tensor_type->elem_type = elem_type;
  Gilt__Onnx__NodeProto *gn =
      onnx_node("GroupNormalization", "gn", "x,scale,bias", "y");
  if (float_groups)
    onnx_attr_float(gn, "num_groups", 2.0f);
  else
    onnx_attr_int(gn, "num_groups", 2);
  onnx_add_node(g, gn);
  onnx_add_output(g, onnx_untyped("y"));
  return g;
}

/* GroupNormalization-18 becomes version 21: scale and bias repeated per
** channel, stash_type X's element type (float16 here: 10). A malformed
** node is reported as what it is, not by the verifier of the rewritten
** node, which would blame the per-channel scale. */
static void test_group_norm_18(void)
{
  static const int64_t dims_1x4x2[] = {1, 4, 2}, dims_4[] = {4};
  GiltContext *ctx = context(false);
  GiltOp *m = import(
      ctx, group_norm_graph(3, dims_1x4x2, ONNX_DT(FLOAT16), false), 18);
  CHECK(m && num_errors == 0);
  if (m) {
    CHECK(gilt_op_verify(m) == GILT_SUCCESS);
    const char *out = print(m, false);
    CHECK(strstr(out, "stash_type = 10 : i64"));
    CHECK(strstr(out, "graph.expand"));
    gilt_op_destroy(m);
  }

  CHECK(!import(ctx, group_norm_graph(3, dims_1x4x2, ONNX_DT(FLOAT), true),
                18));
  CHECK(num_errors == 1 &&
        strstr(errors, "node 'gn' (GroupNormalization, opset 18): attribute "
                       "'num_groups' must be an integer"));

  CHECK(!import(ctx, group_norm_graph(1, dims_4, ONNX_DT(FLOAT), false), 18));
  CHECK(num_errors == 1 &&
        strstr(errors, "node 'gn' (GroupNormalization, opset 18): input 'X' "
                       "has rank 1; it needs at least 2 (batch and "
                       "channels)"));
  gilt_context_destroy(ctx);
}

static void test_corrupt_file(void)
{
  GiltContext *ctx = context(false);
  char path[] = "/tmp/gilt-onnx-import-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0) {
    CHECK(write(fd, "\xff\xff\xff\xff", 4) == 4);
    close(fd);
    reset_errors();
    CHECK(!gilt_onnx_import_file(ctx, path));
    CHECK(num_errors == 1 && strstr(errors, "not a valid ONNX model"));
    unlink(path);
  }
  reset_errors();
  CHECK(!gilt_onnx_import_file(ctx, "/nonexistent/model.onnx"));
  CHECK(num_errors == 1 && strstr(errors, "cannot open"));
  gilt_context_destroy(ctx);
}

static void test_bad_graphs(void)
{
  GiltContext *ctx = context(true);
  /* An input nobody defines. */
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  onnx_add_node(g, onnx_node("Relu", "r", "nope", "y"));
  onnx_add_output(g, onnx_value("y", 2, dims_2x3));
  CHECK(!import(ctx, g, 13));
  CHECK(num_errors == 1 &&
        strstr(errors, "node 'r' (Relu) reads 'nope', which no graph input"));
  /* An intermediate value of an op that infers nothing (unregistered),
  ** with no value_info. */
  g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  onnx_add_node(g, onnx_node("Mystery", "m", "x", "t"));
  onnx_add_node(g, onnx_node("Relu", "r", "t", "y"));
  onnx_add_output(g, onnx_value("y", 2, dims_2x3));
  CHECK(!import(ctx, g, 13));
  CHECK(num_errors == 1 &&
        strstr(errors, "cannot tell the type of output 0 ('t') of node 'm' "
                       "(Mystery)"));
  gilt_context_destroy(ctx);
}

/* Absent inputs: graph.none in the middle, nothing at the end. */
static void test_absent_inputs(void)
{
  GiltContext *ctx = context(true);
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  onnx_add_input(g, onnx_value("c", 0, NULL));
  onnx_add_node(g, onnx_node("Opt", "o", "x,,c,,", "y"));
  onnx_add_output(g, onnx_value("y", 2, dims_2x3));
  GiltOp *module = import(ctx, g, 13);
  CHECK(module);
  if (module) {
    const char *t = print(module, false);
    CHECK(strstr(t, "%0 = graph.none"));
    CHECK(strstr(t, "\"graph.opt\"(%arg0, %0, %arg1) : (tensor<2x3xf32>, "
                    "none, tensor<f32>) -> tensor<2x3xf32>"));
    gilt_op_destroy(module);
  }
  gilt_context_destroy(ctx);
}

/* Squeeze-11's axes attribute becomes an operand; Clip-6's min and max
** too, as scalars of the input's type. */
static void test_upgrades(void)
{
  GiltContext *ctx = context(true);
  static const int64_t axes[] = {0, 2};
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 3, dims_1x3x1));
  Gilt__Onnx__NodeProto *sq = onnx_node("Squeeze", "sq", "x", "s");
  onnx_attr_ints(sq, "axes", 2, axes);
  onnx_add_node(g, sq);
  Gilt__Onnx__NodeProto *clip = onnx_node("Clip", "clip", "s", "y");
  onnx_attr_float(clip, "max", 6.0f);
  onnx_add_node(g, clip);
  onnx_add_value_info(g, onnx_value("s", 1, dims_3));
  onnx_add_output(g, onnx_value("y", 1, dims_3));
  GiltOp *module = import(ctx, g, 6);
  CHECK(module);
  if (module) {
    const char *t = print(module, false);
    CHECK(strstr(t, "graph.constant dense<[0, 2]> : tensor<2xi64>"));
    /* Generic form while the dialect lacks graph.squeeze, custom after. */
    CHECK(strstr(t, "graph.squeeze") &&
          strstr(t, "(%arg0, %0) : (tensor<1x3x1xf32>, tensor<2xi64>) -> "
                    "tensor<3xf32>"));
    CHECK(strstr(t, "graph.constant dense<6.000000e+00> : tensor<f32>"));
    CHECK(strstr(t, "graph.clip(%1, %3, %2) : (tensor<3xf32>, none, "
                    "tensor<f32>) -> tensor<3xf32>"));
    CHECK(!strstr(t, "axes ="));
    gilt_op_destroy(module);
  }
  gilt_context_destroy(ctx);
}

/* If: two regions in then/else order, reading an outer value, ending in
** graph.yield. */
static void test_subgraphs(void)
{
  GiltContext *ctx = context(true);
  Gilt__Onnx__GraphProto *then_g = onnx_graph("then");
  onnx_add_node(then_g, onnx_node("Relu", "r", "x", "t"));
  onnx_add_output(then_g, onnx_value("t", 2, dims_2x3));
  Gilt__Onnx__GraphProto *else_g = onnx_graph("else");
  onnx_add_node(else_g, onnx_node("Neg", "n", "x", "e"));
  onnx_add_output(else_g, onnx_value("e", 2, dims_2x3));
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  Gilt__Onnx__ValueInfoProto *c = onnx_value("c", 0, NULL);
  /* If's condition is a bool; graph.if's verifier insists. */
  c->type->tensor_type->elem_type = ONNX_DT(BOOL);
  onnx_add_input(g, c);
  Gilt__Onnx__NodeProto *n = onnx_node("If", "if", "c", "y");
  /* Listed in the other order on purpose: regions follow the op's order. */
  onnx_attr(n, "else_branch", ONNX_AT(GRAPH))->g = else_g;
  onnx_attr(n, "then_branch", ONNX_AT(GRAPH))->g = then_g;
  onnx_add_node(g, n);
  onnx_add_output(g, onnx_value("y", 2, dims_2x3));
  GiltOp *module = import(ctx, g, 13);
  CHECK(module);
  if (module) {
    const char *t = print(module, false);
    const char *relu = strstr(t, "graph.relu(%arg0)");
    const char *neg = strstr(t, "graph.neg(%arg0)");
    CHECK(relu && neg && relu < neg);
    CHECK(strstr(t, "graph.yield"));
    gilt_op_destroy(module);
  }
  gilt_context_destroy(ctx);
}

/* Split before opset 18 without `split` has as many equal parts as the
** node has outputs; the importer used to ask graph.split's inference for
** none (pytorch-converted/test_GLU). */
static void test_split_equal_parts(void)
{
  GiltContext *ctx = context(false);
  static const int64_t dims_1x3[] = {1, 3};
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  Gilt__Onnx__NodeProto *split = onnx_node("Split", "split", "x", "a,b");
  onnx_attr_int(split, "axis", 0);
  onnx_add_node(g, split);
  onnx_add_node(g, onnx_node("Add", "add", "a,b", "y"));
  onnx_add_output(g, onnx_value("y", 2, dims_1x3));
  GiltOp *module = import(ctx, g, 6);
  CHECK(module && num_errors == 0);
  if (module) {
    CHECK(gilt_op_verify(module) == GILT_SUCCESS);
    CHECK(strstr(print(module, false),
                 "graph.split(%arg0) {axis = 0 : i64, num_outputs = 2 : i64} "
                 ": (tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>)"));
    gilt_op_destroy(module);
  }
  gilt_context_destroy(ctx);
}

/* A Loop body whose inputs and outputs have no types: ONNX implies them
** from the node (node/test_range_*_expanded), and the loop's results,
** which nothing declares, come from what its body yields. A loop-carried
** value may change shape between iterations, so its argument gets only
** v_initial's element type, as in ONNX's inference: it used to get
** v_initial's whole type, and the body's types held for the first
** iteration only. */
static void test_loop_body_types(void)
{
  GiltContext *ctx = context(false);
  Gilt__Onnx__GraphProto *body = onnx_graph("body");
  onnx_add_input(body, onnx_untyped("i"));
  onnx_add_input(body, onnx_untyped("cond"));
  onnx_add_input(body, onnx_untyped("prev"));
  onnx_add_node(body, onnx_node("Identity", "keep", "cond", "cond_out"));
  onnx_add_node(body, onnx_node("Add", "next", "prev,prev", "cur"));
  onnx_add_output(body, onnx_untyped("cond_out"));
  onnx_add_output(body, onnx_untyped("cur"));
  onnx_add_output(body, onnx_untyped("prev"));
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  Gilt__Onnx__ValueInfoProto *m = onnx_value("m", 0, NULL);
  m->type->tensor_type->elem_type = ONNX_DT(INT64);
  onnx_add_input(g, m);
  onnx_add_input(g, onnx_value("x", 1, dims_3));
  Gilt__Onnx__NodeProto *loop = onnx_node("Loop", "loop", "m,,x", "last,all");
  onnx_attr(loop, "body", ONNX_AT(GRAPH))->g = body;
  onnx_add_node(g, loop);
  onnx_add_node(g, onnx_node("Identity", "out", "last", "y"));
  onnx_add_output(g, onnx_value("y", 1, dims_3));
  GiltOp *module = import(ctx, g, 11);
  CHECK(module && num_errors == 0);
  if (module) {
    CHECK(gilt_op_verify(module) == GILT_SUCCESS);
    const char *t = print(module, false);
    CHECK(strstr(t, "^bb0(%arg2: tensor<i64>, %arg3: tensor<i1>, "
                    "%arg4: tensor<*xf32>):"));
    CHECK(strstr(t, "-> (tensor<*xf32>, tensor<*xf32>)"));
    gilt_op_destroy(module);
  }
  gilt_context_destroy(ctx);
}

/* Scan-8 (node/test_scan_sum, batched): a loop over the batch around a
** Scan-9 on each element's slices, whose body's untyped inputs get the
** slices' types. sequence_lens has no such mapping. */
static void test_scan_8(void)
{
  GiltContext *ctx = context(false);
  static const int64_t dims_2x4x3[] = {2, 4, 3}, reverse[] = {1};
  Gilt__Onnx__GraphProto *body = onnx_graph("body");
  onnx_add_input(body, onnx_untyped("sum_in"));
  onnx_add_input(body, onnx_untyped("next"));
  onnx_add_node(body, onnx_node("Add", "add", "sum_in,next", "sum_out"));
  onnx_add_node(body, onnx_node("Identity", "id", "sum_out", "scan_out"));
  onnx_add_output(body, onnx_untyped("sum_out"));
  onnx_add_output(body, onnx_untyped("scan_out"));
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("init", 2, dims_2x3));
  onnx_add_input(g, onnx_value("x", 3, dims_2x4x3));
  Gilt__Onnx__NodeProto *scan = onnx_node("Scan", "scan", ",init,x", "y,z");
  onnx_attr(scan, "body", ONNX_AT(GRAPH))->g = body;
  onnx_attr_int(scan, "num_scan_inputs", 1);
  onnx_attr_ints(scan, "directions", 1, reverse);
  onnx_add_node(g, scan);
  onnx_add_output(g, onnx_value("y", 2, dims_2x3));
  onnx_add_output(g, onnx_value("z", 3, dims_2x4x3));
  GiltOp *module = import(ctx, g, 8);
  CHECK(module && num_errors == 0);
  if (module) {
    CHECK(gilt_op_verify(module) == GILT_SUCCESS);
    const char *t = print(module, false);
    const char *loop = strstr(t, "graph.loop(%2, %3)");
    const char *slice = strstr(t, "graph.gather(%arg1, %arg2) : "
                                  "(tensor<2x4x3xf32>, tensor<i64>) -> "
                                  "tensor<4x3xf32>");
    const char *inner = strstr(t, "^bb0(%arg4: tensor<3xf32>, "
                                  "%arg5: tensor<3xf32>):");
    CHECK(loop && slice && inner && loop < slice && slice < inner);
    CHECK(strstr(t, "{num_scan_inputs = 1 : i64, scan_input_directions = "
                    "[1]} : (tensor<3xf32>, tensor<4x3xf32>) -> "
                    "(tensor<3xf32>, tensor<4x3xf32>)"));
    CHECK(strstr(t, ": (tensor<i64>, none) -> (tensor<2x3xf32>, "
                    "tensor<2x4x3xf32>)"));
    gilt_op_destroy(module);
  }
  scan->input[0] = "init";
  CHECK(!import(ctx, g, 8));
  CHECK(strstr(errors, "node 'scan' (Scan, opset 8) uses Scan-8's "
                       "sequence_lens input, which gilt does not support"));
  gilt_context_destroy(ctx);
}

/* Found by onnx_import_fuzzer: a Constant's value_int with type FLOAT
** (or value_floats with type INTS) reached the shorthand conversion,
** which asserted on the attribute's kind. */
static void test_constant_shorthand_types(void)
{
  GiltContext *ctx = context(false);
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  Gilt__Onnx__NodeProto *c = onnx_node("Constant", "c", "", "y");
  onnx_attr_float(c, "value_int", 1.5f);
  onnx_add_node(g, c);
  onnx_add_output(g, onnx_value("y", 0, NULL));
  CHECK(!import(ctx, g, 13));
  CHECK(num_errors == 1 &&
        strstr(errors, "attribute 'value_int' of node 'c' (Constant) must "
                       "have type INT"));

  static const int64_t ints[] = {1, 2};
  g = onnx_graph("g");
  c = onnx_node("Constant", "c", "", "y");
  onnx_attr_ints(c, "value_floats", 2, ints);
  onnx_add_node(g, c);
  onnx_add_output(g, onnx_value("y", 1, dims_3));
  CHECK(!import(ctx, g, 13));
  CHECK(num_errors == 1 &&
        strstr(errors, "attribute 'value_floats' of node 'c' (Constant) "
                       "must have type FLOATS"));
  gilt_context_destroy(ctx);
}

/* Found by onnx_import_fuzzer: ConstantOfShape of a shape operand with
** more elements than the graph dialect's largest rank wrote that many
** dims into a fixed array. The result is now unranked. */
static void test_constant_of_shape_huge_rank(void)
{
  GiltContext *ctx = context(false);
  static const int64_t dims_40[] = {40};
  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  Gilt__Onnx__ValueInfoProto *shape = onnx_value("s", 1, dims_40);
  shape->type->tensor_type->elem_type = ONNX_DT(INT64);
  onnx_add_input(g, shape);
  onnx_add_node(g, onnx_node("ConstantOfShape", "c", "s", "y"));
  onnx_add_output(g, onnx_value("y", 0, NULL));
  g->output[0]->type->tensor_type->shape = NULL;
  GiltOp *module = import(ctx, g, 13);
  CHECK(module);
  if (module) {
    CHECK(strstr(print(module, false), "-> tensor<*xf32>"));
    gilt_op_destroy(module);
  }
  /* Also found: a 'value' attribute of type INT, not TENSOR, was read as
  ** a tensor attribute. */
  g = onnx_graph("g");
  onnx_add_input(g, onnx_value("s", 1, dims_3));
  g->input[0]->type->tensor_type->elem_type = ONNX_DT(INT64);
  Gilt__Onnx__NodeProto *c = onnx_node("ConstantOfShape", "c", "s", "y");
  Gilt__Onnx__AttributeProto *a = onnx_attr(c, "value", ONNX_AT(INT));
  a->has_i = true;
  a->i = 1;
  onnx_add_node(g, c);
  onnx_add_output(g, onnx_value("y", 0, NULL));
  g->output[0]->type->tensor_type->shape = NULL;
  CHECK(!import(ctx, g, 13));
  CHECK(strstr(errors, "attribute 'value' must hold one element"));
  gilt_context_destroy(ctx);
}

/* ---- weights borrowed from the mapped files ----------------------------------- */

/* How many mappings of `path` the process has (/proc/self/maps). */
static int mappings_of(const char *path)
{
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return -1;
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    char *end = strchr(line, '\n');
    if (end)
      *end = '\0';
    size_t len = strlen(line), plen = strlen(path);
    n += len >= plen && strcmp(line + len - plen, path) == 0;
  }
  fclose(f);
  return n;
}

typedef struct Resources {
  GiltAttr *attrs[4];
  size_t n;
} Resources;

static GiltWalkResult collect_resource(GiltOp *op, void *user)
{
  Resources *r = user;
  GiltAttr *value = gilt_op_get_attr(op, "value");
  if (value && gilt_attr_get_kind(value) == GILT_ATTR_DENSE_RESOURCE &&
      r->n < 4)
    r->attrs[r->n++] = value;
  return GILT_WALK_ADVANCE;
}

static bool holds(GiltAttr *a, const float *want, size_t n)
{
  size_t nbytes;
  const void *data = gilt_dense_attr_get_data(a, &nbytes);
  return nbytes == n * sizeof *want && memcmp(data, want, nbytes) == 0;
}

/* Initializers in raw_data and in an external file (at an odd offset)
** become resources that borrow the mapped files: the mappings outlive the
** import, a second import of the same model shares the first one's blobs
** (its own mappings go), and destroying the context unmaps everything. */
static void test_weights_stay_mapped(void)
{
  char dir[] = "/tmp/gilt-onnx-import-XXXXXX";
  CHECK(mkdtemp(dir));
  char model[64], ext[64];
  snprintf(model, sizeof model, "%s/m.onnx", dir);
  snprintf(ext, sizeof ext, "%s/w.bin", dir);
  static const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {-1, -2, -3, -4, -5,
                                                        -6};
  FILE *f = fopen(ext, "wb");
  CHECK(f && fwrite("12345", 1, 5, f) == 5 && fwrite(b, 4, 6, f) == 6);
  if (f)
    fclose(f);

  Gilt__Onnx__GraphProto *g = onnx_graph("g");
  onnx_add_input(g, onnx_value("x", 2, dims_2x3));
  onnx_add_initializer(g, "a", 2, dims_2x3, a);
  onnx_add_initializer(g, "b", 2, dims_2x3, NULL);
  Gilt__Onnx__TensorProto *tb = g->initializer[1];
  tb->has_raw_data = false;
  tb->has_data_location = true;
  tb->data_location = GILT__ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  static const char *const entries[3][2] = {
      {"location", "w.bin"}, {"offset", "5"}, {"length", "24"}};
  tb->n_external_data = 3;
  tb->external_data = onnx_alloc(3, sizeof *tb->external_data);
  for (size_t i = 0; i < 3; i++) {
    tb->external_data[i] = onnx_alloc(1, sizeof **tb->external_data);
    gilt__onnx__string_string_entry_proto__init(tb->external_data[i]);
    tb->external_data[i]->key = (char *)entries[i][0];
    tb->external_data[i]->value = (char *)entries[i][1];
  }
  onnx_add_node(g, onnx_node("Add", "", "x,a", "s"));
  onnx_add_node(g, onnx_node("Add", "", "s,b", "y"));
  onnx_add_output(g, onnx_value("y", 2, dims_2x3));
  CHECK(onnx_write(g, 13, model));

  GiltContext *ctx = context(false);
  reset_errors();
  GiltOp *first = gilt_onnx_import_file(ctx, model);
  GiltOp *second = gilt_onnx_import_file(ctx, model);
  CHECK(first && second && num_errors == 0);
  Resources r1 = {0}, r2 = {0};
  if (first && second) {
    gilt_op_walk(first, GILT_WALK_PRE_ORDER, collect_resource, &r1);
    gilt_op_walk(second, GILT_WALK_PRE_ORDER, collect_resource, &r2);
    CHECK(r1.n == 2 && holds(r1.attrs[0], a, 6) && holds(r1.attrs[1], b, 6));
    CHECK(r2.n == 2 && r2.attrs[0] == r1.attrs[0] &&
          r2.attrs[1] == r1.attrs[1]);
  }
  gilt_op_destroy(first);
  gilt_op_destroy(second);
  CHECK(mappings_of(model) == 1 && mappings_of(ext) == 1);
  gilt_context_destroy(ctx);
  CHECK(mappings_of(model) == 0 && mappings_of(ext) == 0);
  unlink(model);
  unlink(ext);
  rmdir(dir);
}

int main(void)
{
  test_op_names();
  test_basic();
  test_unsupported();
  test_newer_opsets();
  test_new_element_types();
  test_newer_forms_in_older_opsets();
  test_pool_attrs_by_opset();
  test_resize_dropped_mode();
  test_split_18_both();
  test_group_norm_18();
  test_quantize_versions();
  test_corrupt_file();
  test_bad_graphs();
  test_absent_inputs();
  test_upgrades();
  test_subgraphs();
  test_split_equal_parts();
  test_loop_body_types();
  test_scan_8();
  test_constant_shorthand_types();
  test_constant_of_shape_huge_rank();
  test_weights_stay_mapped();
  onnx_free_all();
  if (check_failures)
    fprintf(stderr, "%d checks failed\n", check_failures);
  return check_failures != 0;
}
