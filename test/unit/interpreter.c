/*
** interpreter.c - unit test of the loop dialect's reference interpreter
** (gilt/interpreter.h) through the public API.
**
** Small loop-level modules are parsed from text and run on host tensors:
** scalar arithmetic per element type (f16 and bf16 rounded after every
** op, integers wrapping at their width, i1, saturating fptosi, NaN in
** minimumf, the two roundings), loops (for with iter_args, while,
** parallel), if, buffers (alloc, subview, reshape, dealloc), vectors with
** masks and reductions, a global, a recursive call, and the errors a run
** reports at the op: division by zero and overflow, an access out of
** bounds, a freed buffer freed again, inputs of the wrong shape.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/interpreter.h"
#include "gilt/register.h"
#include "test/unit/check.h"

static GiltContext *ctx;
static size_t errors;
static char last_error[512];
static unsigned last_line;

static void on_diag(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  errors++;
  snprintf(last_error, sizeof last_error, "%s", gilt_diagnostic_get_message(d));
  const char *file;
  unsigned col;
  last_line = 0;
  gilt_location_get_file_line_col(gilt_diagnostic_get_location(d), &file,
                                  &last_line, &col);
}

static GiltOp *parse(const char *src)
{
  GiltOp *m = gilt_parse_source(ctx, src, strlen(src), "interp.gilt");
  CHECK(m != NULL);
  return m;
}

/* The line of src holding `needle` first. */
static unsigned line_of(const char *src, const char *needle)
{
  const char *at = strstr(src, needle);
  unsigned line = 1;
  for (const char *p = src; at && p < at; p++)
    line += *p == '\n';
  return line;
}

static GiltTensor *tensor(const char *elem, size_t rank, const int64_t *shape,
                          const double *values)
{
  GiltTensor *t = gilt_tensor_create(gilt_type_parse(ctx, elem), rank, shape);
  for (int64_t i = 0; i < gilt_tensor_get_num_elements(t); i++)
    gilt_tensor_set_double(t, i, values[i]);
  return t;
}

static GiltTensor *scalar(const char *elem, double v)
{
  return tensor(elem, 0, NULL, &v);
}

/* Runs fn on the inputs (consumed); the outputs, or NULL on failure. */
static GiltTensor **run(GiltOp *m, const char *fn, size_t n,
                        GiltTensor **inputs, size_t *num_outputs)
{
  GiltTensor **out = NULL;
  errors = 0;
  GiltStatus st = gilt_interpret_function(m, fn, n, inputs, num_outputs, &out);
  for (size_t i = 0; i < n; i++)
    gilt_tensor_destroy(inputs[i]);
  CHECK((st == GILT_SUCCESS) == (out != NULL));
  CHECK((st == GILT_SUCCESS) == (errors == 0));
  return out;
}

static void destroy_all(GiltTensor **out, size_t n)
{
  for (size_t i = 0; out && i < n; i++)
    gilt_tensor_destroy(out[i]);
  free(out);
}

/* Runs a function of scalars and returns its single scalar result (NaN
** when the run fails). */
static double run1(GiltOp *m, const char *fn, size_t n, GiltTensor **inputs)
{
  size_t nout = 0;
  GiltTensor **out = run(m, fn, n, inputs, &nout);
  double v = out && nout == 1 ? gilt_tensor_get_double(out[0], 0) : NAN;
  destroy_all(out, nout);
  return v;
}

/* ---- scalars ------------------------------------------------------------------ */

static const char scalar_src[] =
    "func.func @chain_f16(%a: f16, %b: f16) -> f16 {\n"
    "  %s = loop.addf %a, %b : f16\n"
    "  %t = loop.addf %s, %b : f16\n"
    "  return %t : f16\n"
    "}\n"
    "func.func @chain_bf16(%a: bf16, %b: bf16) -> bf16 {\n"
    "  %s = loop.addf %a, %b : bf16\n"
    "  %t = loop.addf %s, %b : bf16\n"
    "  return %t : bf16\n"
    "}\n"
    "func.func @fma_f32(%a: f32, %b: f32, %c: f32) -> f32 {\n"
    "  %r = loop.fma %a, %b, %c : f32\n"
    "  return %r : f32\n"
    "}\n"
    "func.func @wrap_i8(%a: i8, %b: i8) -> (i8, i8, i8) {\n"
    "  %s = loop.addi %a, %b : i8\n"
    "  %p = loop.muli %a, %a : i8\n"
    "  %r = loop.shrsi %s, %b : i8\n"
    "  return %s, %p, %r : i8, i8, i8\n"
    "}\n"
    "func.func @div(%a: i32, %b: i32) -> i32 {\n"
    "  %q = loop.divsi %a, %b : i32\n"
    "  return %q : i32\n"
    "}\n"
    "func.func @floordiv(%a: i32, %b: i32) -> (i32, i32) {\n"
    "  %q = loop.floordivsi %a, %b : i32\n"
    "  %r = loop.remsi %a, %b : i32\n"
    "  return %q, %r : i32, i32\n"
    "}\n"
    "func.func @compare(%a: i8, %b: i8) -> (i1, i1) {\n"
    "  %u = loop.cmpi \"ult\", %a, %b : i8\n"
    "  %s = loop.cmpi \"slt\", %a, %b : i8\n"
    "  return %u, %s : i1, i1\n"
    "}\n"
    "func.func @to_i8(%a: f32) -> i8 {\n"
    "  %r = loop.fptosi %a : f32 to i8\n"
    "  return %r : i8\n"
    "}\n"
    "func.func @rounding(%a: f32) -> (f32, f32, f32) {\n"
    "  %r = loop.round %a : f32\n"
    "  %e = loop.roundeven %a : f32\n"
    "  %m = loop.minimumf %a, %e : f32\n"
    "  return %r, %e, %m : f32, f32, f32\n"
    "}\n"
    "func.func @unordered(%a: f64, %b: f64) -> (i1, i1) {\n"
    "  %o = loop.cmpf \"olt\", %a, %b : f64\n"
    "  %u = loop.cmpf \"ult\", %a, %b : f64\n"
    "  return %o, %u : i1, i1\n"
    "}\n";

static void test_scalars(void)
{
  GiltOp *m = parse(scalar_src);
  /* 1 + 0.0004 is 1 in f16; rounding after each op keeps it there,
  ** where one rounding of 1.0008 would give 1.000977. */
  CHECK(run1(m, "chain_f16", 2,
             (GiltTensor *[]){scalar("f16", 1.0), scalar("f16", 0.0004)}) == 1.0);
  CHECK(run1(m, "chain_bf16", 2,
             (GiltTensor *[]){scalar("bf16", 1.0), scalar("bf16", 0.003)}) == 1.0);
  CHECK(run1(m, "fma_f32", 3,
             (GiltTensor *[]){scalar("f32", 2), scalar("f32", 3),
                              scalar("f32", 1)}) == 7.0);

  size_t n;
  GiltTensor **out = run(m, "wrap_i8", 2,
                         (GiltTensor *[]){scalar("i8", 127), scalar("i8", 1)}, &n);
  CHECK(out && n == 3);
  if (out) {
    CHECK(gilt_tensor_get_double(out[0], 0) == -128);
    CHECK(gilt_tensor_get_double(out[1], 0) == 1); /* 127 * 127 mod 256 */
    CHECK(gilt_tensor_get_double(out[2], 0) == -64);
  }
  destroy_all(out, n);

  CHECK(run1(m, "div", 2, (GiltTensor *[]){scalar("i32", -7), scalar("i32", 2)}) == -3);
  CHECK(isnan(run1(m, "div", 2, (GiltTensor *[]){scalar("i32", 1), scalar("i32", 0)})));
  CHECK(strstr(last_error, "division by zero") != NULL);
  CHECK(last_line == line_of(scalar_src, "loop.divsi"));
  CHECK(isnan(run1(m, "div", 2, (GiltTensor *[]){scalar("i32", -2147483648.0),
                                                 scalar("i32", -1)})));
  CHECK(strstr(last_error, "overflows") != NULL);

  out = run(m, "floordiv", 2, (GiltTensor *[]){scalar("i32", -7), scalar("i32", 2)}, &n);
  CHECK(out && gilt_tensor_get_double(out[0], 0) == -4 &&
        gilt_tensor_get_double(out[1], 0) == -1);
  destroy_all(out, n);

  out = run(m, "compare", 2, (GiltTensor *[]){scalar("i8", -1), scalar("i8", 1)}, &n);
  CHECK(out && gilt_tensor_get_double(out[0], 0) == 0 &&
        gilt_tensor_get_double(out[1], 0) == 1);
  destroy_all(out, n);

  CHECK(run1(m, "to_i8", 1, (GiltTensor *[]){scalar("f32", 1000)}) == 127);
  CHECK(run1(m, "to_i8", 1, (GiltTensor *[]){scalar("f32", -1000)}) == -128);
  CHECK(run1(m, "to_i8", 1, (GiltTensor *[]){scalar("f32", -3.7)}) == -3);
  CHECK(run1(m, "to_i8", 1, (GiltTensor *[]){scalar("f32", NAN)}) == 0);

  out = run(m, "rounding", 1, (GiltTensor *[]){scalar("f32", -2.5)}, &n);
  CHECK(out && gilt_tensor_get_double(out[0], 0) == -3 &&
        gilt_tensor_get_double(out[1], 0) == -2 &&
        gilt_tensor_get_double(out[2], 0) == -2.5);
  destroy_all(out, n);
  out = run(m, "rounding", 1, (GiltTensor *[]){scalar("f32", NAN)}, &n);
  CHECK(out && isnan(gilt_tensor_get_double(out[2], 0)));
  destroy_all(out, n);

  out = run(m, "unordered", 2, (GiltTensor *[]){scalar("f64", NAN), scalar("f64", 1)}, &n);
  CHECK(out && gilt_tensor_get_double(out[0], 0) == 0 &&
        gilt_tensor_get_double(out[1], 0) == 1);
  destroy_all(out, n);
  gilt_op_destroy(m);
}

/* ---- control flow ----------------------------------------------------------- */

static const char control_src[] =
    "func.func @sum(%a: memref<?xf32>) -> f32 {\n"
    "  %c0 = loop.constant 0 : index\n"
    "  %c1 = loop.constant 1 : index\n"
    "  %z = loop.constant 0.0 : f32\n"
    "  %n = loop.dim %a, %c0 : (memref<?xf32>, index) -> index\n"
    "  %r = loop.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {\n"
    "    %v = loop.load %a[%i] : memref<?xf32>\n"
    "    %s = loop.addf %acc, %v : f32\n"
    "    loop.yield %s : f32\n"
    "  }\n"
    "  return %r : f32\n"
    "}\n"
    "func.func @swap(%n: index) -> (i32, i32) {\n"
    "  %c0 = loop.constant 0 : index\n"
    "  %c1 = loop.constant 1 : index\n"
    "  %x = loop.constant 1 : i32\n"
    "  %y = loop.constant 2 : i32\n"
    "  %r:2 = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x, %b = %y) -> (i32, i32) {\n"
    "    loop.yield %b, %a : i32, i32\n"
    "  }\n"
    "  return %r#0, %r#1 : i32, i32\n"
    "}\n"
    "func.func @count(%n: index) -> index {\n"
    "  %c0 = loop.constant 0 : index\n"
    "  %c3 = loop.constant 3 : index\n"
    "  %w = \"loop.while\"(%c0) ({\n"
    "  ^bb0(%x: index):\n"
    "    %p = loop.cmpi \"slt\", %x, %n : index\n"
    "    \"loop.condition\"(%p, %x) : (i1, index) -> ()\n"
    "  }, {\n"
    "  ^bb0(%x: index):\n"
    "    %y = loop.addi %x, %c3 : index\n"
    "    loop.yield %y : index\n"
    "  }) : (index) -> index\n"
    "  return %w : index\n"
    "}\n"
    "func.func @abs(%a: f64) -> f64 {\n"
    "  %z = loop.constant 0.0 : f64\n"
    "  %p = loop.cmpf \"olt\", %a, %z : f64\n"
    "  %r = loop.if %p -> (f64) {\n"
    "    %n = loop.negf %a : f64\n"
    "    loop.yield %n : f64\n"
    "  } else {\n"
    "    loop.yield %a : f64\n"
    "  }\n"
    "  return %r : f64\n"
    "}\n"
    "func.func @grid() -> memref<2x3xi64> {\n"
    "  %c0 = loop.constant 0 : index\n"
    "  %c1 = loop.constant 1 : index\n"
    "  %c2 = loop.constant 2 : index\n"
    "  %c3 = loop.constant 3 : index\n"
    "  %ten = loop.constant 10 : index\n"
    "  %m = loop.alloc() : memref<2x3xi64>\n"
    "  loop.parallel (%i, %j) = (%c0, %c0) to (%c2, %c3) step (%c1, %c1) {\n"
    "    %t = loop.muli %i, %ten : index\n"
    "    %s = loop.addi %t, %j : index\n"
    "    %v = loop.index_cast %s : index to i64\n"
    "    loop.store %v, %m[%i, %j] : memref<2x3xi64>\n"
    "    loop.yield\n"
    "  }\n"
    "  return %m : memref<2x3xi64>\n"
    "}\n"
    "func.func @fact(%n: i64) -> i64 {\n"
    "  %one = loop.constant 1 : i64\n"
    "  %p = loop.cmpi \"sle\", %n, %one : i64\n"
    "  %r = loop.if %p -> (i64) {\n"
    "    loop.yield %one : i64\n"
    "  } else {\n"
    "    %m = loop.subi %n, %one : i64\n"
    "    %f = func.call @fact(%m) : (i64) -> i64\n"
    "    %x = loop.muli %n, %f : i64\n"
    "    loop.yield %x : i64\n"
    "  }\n"
    "  return %r : i64\n"
    "}\n"
    "func.func @check(%n: index) {\n"
    "  %c0 = loop.constant 0 : index\n"
    "  %p = loop.cmpi \"sgt\", %n, %c0 : index\n"
    "  loop.assert %p {message = \"n must be positive\"} : (i1) -> ()\n"
    "  return\n"
    "}\n";

static void test_control(void)
{
  GiltOp *m = parse(control_src);
  int64_t four = 4;
  CHECK(run1(m, "sum", 1,
             (GiltTensor *[]){tensor("f32", 1, &four, (double[]){1, 2, 3, 4.5})}) == 10.5);
  size_t n;
  GiltTensor **out = run(m, "swap", 1, (GiltTensor *[]){scalar("index", 3)}, &n);
  CHECK(out && gilt_tensor_get_double(out[0], 0) == 2 &&
        gilt_tensor_get_double(out[1], 0) == 1);
  destroy_all(out, n);
  CHECK(run1(m, "count", 1, (GiltTensor *[]){scalar("index", 10)}) == 12);
  CHECK(run1(m, "count", 1, (GiltTensor *[]){scalar("index", -1)}) == 0);
  CHECK(run1(m, "abs", 1, (GiltTensor *[]){scalar("f64", -2.5)}) == 2.5);
  CHECK(run1(m, "abs", 1, (GiltTensor *[]){scalar("f64", 3)}) == 3);
  out = run(m, "grid", 0, NULL, &n);
  CHECK(out && n == 1 && gilt_tensor_get_rank(out[0]) == 2);
  if (out)
    for (int64_t i = 0; i < 6; i++)
      CHECK(gilt_tensor_get_double(out[0], i) == (double)(i / 3 * 10 + i % 3));
  destroy_all(out, n);
  CHECK(run1(m, "fact", 1, (GiltTensor *[]){scalar("i64", 10)}) == 3628800);

  GiltTensor **none = run(m, "check", 1, (GiltTensor *[]){scalar("index", 1)}, &n);
  CHECK(none != NULL && n == 0);
  free(none);
  CHECK(run(m, "check", 1, (GiltTensor *[]){scalar("index", 0)}, &n) == NULL);
  CHECK(strstr(last_error, "n must be positive") != NULL);
  CHECK(last_line == line_of(control_src, "loop.assert"));
  gilt_op_destroy(m);
}

/* ---- buffers ------------------------------------------------------------------ */

static const char buffer_src[] =
    "\"loop.global\"() {sym_name = \"w\", type = memref<2x2xi16>, "
    "value = dense<[[1, -2], [3, 4]]> : tensor<2x2xi16>} : () -> ()\n"
    "\"loop.global\"() {sym_name = \"s\", type = memref<3xf32>, "
    "value = dense<1.5> : tensor<3xf32>} : () -> ()\n"
    "func.func @at(%a: memref<4xf32>, %i: index) -> f32 {\n"
    "  %v = loop.load %a[%i] : memref<4xf32>\n"
    "  return %v : f32\n"
    "}\n"
    "func.func @window(%a: memref<4x4xf32>) -> memref<2x2xf32, strided<[8, 1], offset: 5>> {\n"
    "  %c1 = loop.constant 1 : index\n"
    "  %c2 = loop.constant 2 : index\n"
    "  %v = loop.subview %a, %c1, %c1, %c2, %c2, %c2, %c1 "
    "{operandSegmentSizes = array<i32: 1, 2, 2, 2>} : (memref<4x4xf32>, index, "
    "index, index, index, index, index) -> memref<2x2xf32, strided<[8, 1], offset: 5>>\n"
    "  return %v : memref<2x2xf32, strided<[8, 1], offset: 5>>\n"
    "}\n"
    "func.func @flat(%a: memref<2x3xf32>, %n: index) -> memref<?xf32> {\n"
    "  %r = loop.reshape %a, %n : (memref<2x3xf32>, index) -> memref<?xf32>\n"
    "  return %r : memref<?xf32>\n"
    "}\n"
    "func.func @same(%a: memref<2xf32>) -> memref<2xf32> {\n"
    "  return %a : memref<2xf32>\n"
    "}\n"
    "func.func @globals() -> (memref<2x2xi16>, memref<3xf32>) {\n"
    "  %w = loop.get_global {name = @w} : () -> memref<2x2xi16>\n"
    "  %s = loop.get_global {name = @s} : () -> memref<3xf32>\n"
    "  return %w, %s : memref<2x2xi16>, memref<3xf32>\n"
    "}\n"
    "func.func @twice(%n: index) {\n"
    "  %m = loop.alloc(%n) : memref<?xf32>\n"
    "  loop.dealloc %m : memref<?xf32>\n"
    "  loop.dealloc %m : memref<?xf32>\n"
    "  return\n"
    "}\n";

static void test_buffers(void)
{
  GiltOp *m = parse(buffer_src);
  int64_t four = 4;
  const double a4[] = {1, 2, 3, 4};
  CHECK(run1(m, "at", 2, (GiltTensor *[]){tensor("f32", 1, &four, a4),
                                          scalar("index", 3)}) == 4);
  CHECK(isnan(run1(m, "at", 2, (GiltTensor *[]){tensor("f32", 1, &four, a4),
                                                scalar("index", 4)})));
  CHECK(strcmp(last_error, "'loop.load' op accesses [4] outside [4]") == 0);
  CHECK(last_line == line_of(buffer_src, "loop.load"));

  /* Rows 1 and 3, columns 1 and 2 of a 4x4 matrix of 0..15. */
  double grid[16];
  for (int i = 0; i < 16; i++)
    grid[i] = i;
  size_t n;
  GiltTensor **out = run(m, "window", 1,
                         (GiltTensor *[]){tensor("f32", 2, (int64_t[]){4, 4}, grid)}, &n);
  CHECK(out && gilt_tensor_get_double(out[0], 0) == 5 &&
        gilt_tensor_get_double(out[0], 1) == 6 &&
        gilt_tensor_get_double(out[0], 2) == 13 &&
        gilt_tensor_get_double(out[0], 3) == 14);
  destroy_all(out, n);

  out = run(m, "flat", 2, (GiltTensor *[]){tensor("f32", 2, (int64_t[]){2, 3}, grid),
                                           scalar("index", 6)}, &n);
  CHECK(out && gilt_tensor_get_shape(out[0])[0] == 6 &&
        gilt_tensor_get_double(out[0], 5) == 5);
  destroy_all(out, n);
  CHECK(run(m, "flat", 2, (GiltTensor *[]){tensor("f32", 2, (int64_t[]){2, 3}, grid),
                                           scalar("index", 5)}, &n) == NULL);
  CHECK(strstr(last_error, "cannot view 6 elements as 5") != NULL);

  /* A returned argument is copied: the output outlives the input. */
  out = run(m, "same", 1, (GiltTensor *[]){tensor("f32", 1, (int64_t[]){2}, a4)}, &n);
  CHECK(out && gilt_tensor_get_double(out[0], 1) == 2);
  destroy_all(out, n);

  out = run(m, "globals", 0, NULL, &n);
  CHECK(out && n == 2);
  if (out) {
    CHECK(gilt_tensor_get_double(out[0], 1) == -2);
    CHECK(gilt_tensor_get_double(out[1], 2) == 1.5);
  }
  destroy_all(out, n);

  CHECK(run(m, "twice", 1, (GiltTensor *[]){scalar("index", 3)}, &n) == NULL);
  CHECK(strstr(last_error, "use of a buffer after loop.dealloc") != NULL);

  /* Inputs that do not match the signature. */
  CHECK(run(m, "at", 2, (GiltTensor *[]){tensor("f32", 1, (int64_t[]){5}, grid),
                                         scalar("index", 0)}, &n) == NULL);
  CHECK(strstr(last_error, "input 0 is a tensor of 5xf32, where argument 0 "
                           "is memref<4xf32>") != NULL);
  CHECK(run(m, "at", 1, (GiltTensor *[]){scalar("index", 0)}, &n) == NULL);
  CHECK(strstr(last_error, "takes 2 inputs, got 1") != NULL);
  CHECK(run(m, "at", 2, (GiltTensor *[]){tensor("f64", 1, &four, a4),
                                         scalar("index", 0)}, &n) == NULL);
  CHECK(strstr(last_error, "input 0 is a tensor of 4xf64") != NULL);
  gilt_op_destroy(m);
}

/* ---- vectors ------------------------------------------------------------------- */

static const char vector_src[] =
    "func.func @tail(%a: memref<10xf32>, %i: index) -> (vector<4xf32>, f32) {\n"
    "  %c10 = loop.constant 10 : index\n"
    "  %left = loop.subi %c10, %i : index\n"
    "  %mask = loop.create_mask %left : (index) -> vector<4xi1>\n"
    "  %neg = loop.constant -1.0 : f32\n"
    "  %pass = loop.broadcast %neg : (f32) -> vector<4xf32>\n"
    "  %v = loop.masked_load %mask, %pass, %a, %i : (vector<4xi1>, vector<4xf32>, "
    "memref<10xf32>, index) -> vector<4xf32>\n"
    "  %d = loop.addf %v, %v : vector<4xf32>\n"
    "  loop.masked_store %mask, %d, %a, %i : (vector<4xi1>, vector<4xf32>, "
    "memref<10xf32>, index) -> ()\n"
    "  %s = loop.reduction %d {kind = \"add\"} : (vector<4xf32>) -> f32\n"
    "  return %d, %s : vector<4xf32>, f32\n"
    "}\n"
    "func.func @lanes(%a: memref<8xi32>) -> (i32, i32) {\n"
    "  %c0 = loop.constant 0 : index\n"
    "  %c2 = loop.constant 2 : index\n"
    "  %v = loop.vector_load %a[%c0] : memref<8xi32>, vector<8xi32>\n"
    "  %k = loop.constant 100 : i32\n"
    "  %w = loop.insert %k, %v, %c2 : (i32, vector<8xi32>, index) -> vector<8xi32>\n"
    "  %m = loop.reduction %w {kind = \"maxsi\"} : (vector<8xi32>) -> i32\n"
    "  %e = loop.extract %w, %c2 : (vector<8xi32>, index) -> i32\n"
    "  return %m, %e : i32, i32\n"
    "}\n"
    "func.func @over(%a: memref<10xf32>, %i: index) -> vector<4xf32> {\n"
    "  %v = loop.vector_load %a[%i] : memref<10xf32>, vector<4xf32>\n"
    "  return %v : vector<4xf32>\n"
    "}\n";

static void test_vectors(void)
{
  GiltOp *m = parse(vector_src);
  double ten[10];
  for (int i = 0; i < 10; i++)
    ten[i] = i;
  size_t n;
  /* At 8 only two lanes are inside: the others keep the passthru and
  ** are neither read nor written. */
  GiltTensor **out = run(m, "tail", 2,
                         (GiltTensor *[]){tensor("f32", 1, (int64_t[]){10}, ten),
                                          scalar("index", 8)}, &n);
  CHECK(out && n == 2);
  if (out) {
    CHECK(gilt_tensor_get_double(out[0], 0) == 16 &&
          gilt_tensor_get_double(out[0], 1) == 18 &&
          gilt_tensor_get_double(out[0], 2) == -2 &&
          gilt_tensor_get_double(out[0], 3) == -2);
    CHECK(gilt_tensor_get_double(out[1], 0) == 30);
  }
  destroy_all(out, n);

  double eight[8] = {3, -9, 4, 7, 1, 0, 2, 5};
  out = run(m, "lanes", 1, (GiltTensor *[]){tensor("i32", 1, (int64_t[]){8}, eight)}, &n);
  CHECK(out && gilt_tensor_get_double(out[0], 0) == 100 &&
        gilt_tensor_get_double(out[1], 0) == 100);
  destroy_all(out, n);

  CHECK(run(m, "over", 2, (GiltTensor *[]){tensor("f32", 1, (int64_t[]){10}, ten),
                                           scalar("index", 7)}, &n) == NULL);
  CHECK(strstr(last_error, "accesses 4 elements from [7] outside [10]") != NULL);
  gilt_op_destroy(m);
}

/* Ops the interpreter does not know are reported before anything runs. */
static void test_unsupported(void)
{
  gilt_context_set_allow_unregistered_dialects(ctx, true);
  GiltOp *m = parse("func.func @f() {\n"
                    "  \"x.y\"() : () -> ()\n"
                    "  return\n"
                    "}\n");
  size_t n;
  CHECK(run(m, "f", 0, NULL, &n) == NULL);
  CHECK(strstr(last_error, "'x.y' op is not supported") != NULL);
  CHECK(last_line == 2);
  CHECK(run(m, "g", 0, NULL, &n) == NULL);
  gilt_op_destroy(m);
  gilt_context_set_allow_unregistered_dialects(ctx, false);
}

int main(void)
{
  ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_diagnostic_handler(ctx, on_diag, NULL);
  test_scalars();
  test_control();
  test_buffers();
  test_vectors();
  test_unsupported();
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
