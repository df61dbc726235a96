/*
** parse_api.c - unit test of parsing through the public API only:
** gilt_parse_source on a small module, gilt_type_parse and gilt_attr_parse,
** and the diagnostics (message, location, nothing returned) of bad input.
*/
#include <stdio.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/ir.h"
#include "gilt/register.h"


static size_t errors_seen;
static char last_error[512];
static char last_loc[512];

static void collect(const char *data, size_t len, void *user)
{
  char *buf = user;
  size_t used = strlen(buf);
  if (used + len < sizeof last_loc) {
    memcpy(buf + used, data, len);
    buf[used + len] = 0;
  }
}

static void on_diag(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  errors_seen++;
  snprintf(last_error, sizeof last_error, "%s",
           gilt_diagnostic_get_message(d));
  last_loc[0] = 0;
  gilt_location_print(gilt_diagnostic_get_location(d), collect, last_loc);
}

static const char source[] =
    "%0 = \"demo.const\"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : "
    "() -> tensor<2xf32>\n"
    "%1:2 = \"demo.split\"(%0) : (tensor<2xf32>) -> (f32, f32)\n"
    "\"demo.region\"(%1#1) ({\n"
    "^bb0(%a: i32):\n"
    "  \"demo.use\"(%a, %1#0) : (i32, f32) -> ()\n"
    "}) : (f32) -> () loc(\"model.onnx\":3:7)\n";

static void test_parse_module(GiltContext *ctx)
{
  GiltOp *m = gilt_parse_source(ctx, source, strlen(source), "demo.gilt");
  CHECK(m != NULL);
  if (!m)
    return;
  CHECK(strcmp(gilt_op_get_name(m), "builtin.module") == 0);
  GiltOp *c = gilt_block_get_first_op(gilt_module_get_body(m));
  CHECK(strcmp(gilt_op_get_name(c), "demo.const") == 0);
  GiltType *t = gilt_value_get_type(gilt_op_get_result(c, 0));
  CHECK(t == gilt_type_parse(ctx, "tensor<2xf32>"));
  GiltAttr *v = gilt_op_get_attr(c, "value");
  CHECK(v && gilt_attr_get_kind(v) == GILT_ATTR_DENSE_ELEMENTS);
  size_t nbytes = 0;
  const float *data = v ? gilt_dense_attr_get_data(v, &nbytes) : NULL;
  CHECK(nbytes == 8 && data && data[0] == 1.0f && data[1] == 2.0f);

  GiltOp *split = gilt_op_get_next(c);
  CHECK(gilt_op_get_num_results(split) == 2);
  CHECK(gilt_op_get_operand(split, 0) == gilt_op_get_result(c, 0));
  GiltOp *region_op = gilt_op_get_next(split);
  CHECK(gilt_op_get_operand(region_op, 0) == gilt_op_get_result(split, 1));
  GiltBlock *entry = gilt_region_get_first_block(
      gilt_op_get_region(region_op, 0));
  CHECK(gilt_block_get_num_arguments(entry) == 1);
  GiltOp *use = gilt_block_get_first_op(entry);
  CHECK(gilt_op_get_operand(use, 0) == gilt_block_get_argument(entry, 0));
  CHECK(gilt_op_get_operand(use, 1) == gilt_op_get_result(split, 0));
  CHECK(gilt_op_get_location(region_op) ==
        gilt_location_file_line_col_get(ctx, "model.onnx", 3, 7));
  /* Without loc(...), an op is located at its first token. */
  CHECK(gilt_op_get_location(split) ==
        gilt_location_file_line_col_get(ctx, "demo.gilt", 2, 1));
  gilt_op_destroy(m);
}

static void test_types_and_attrs(GiltContext *ctx)
{
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  int64_t shape[] = {4, GILT_DYNAMIC};
  CHECK(gilt_type_parse(ctx, "tensor<4x?xf32>") ==
        gilt_tensor_type_get(ctx, 2, shape, f32, NULL));
  GiltType *ins[] = {gilt_integer_type_get(ctx, 32, GILT_SIGNLESS), f32};
  CHECK(gilt_type_parse(ctx, "(i32, f32) -> f32") ==
        gilt_function_type_get(ctx, 2, ins, 1, &f32));
  CHECK(gilt_type_parse(ctx, "ui8") ==
        gilt_integer_type_get(ctx, 8, GILT_UNSIGNED));

  GiltAttr *a = gilt_attr_parse(ctx, "42 : i32");
  CHECK(a == gilt_integer_attr_get(ins[0], 42));
  CHECK(gilt_attr_parse(ctx, "255 : i8") ==
        gilt_integer_attr_get(gilt_integer_type_get(ctx, 8, GILT_SIGNLESS),
                              -1));
  a = gilt_attr_parse(ctx, "1.5 : f16");
  CHECK(a && gilt_float_attr_get_value(a) == 1.5);
  a = gilt_attr_parse(ctx, "{b = [1, \"x\"], a}");
  CHECK(a && gilt_dictionary_attr_get_size(a) == 2);
  CHECK(a && gilt_attr_get_kind(gilt_dictionary_attr_lookup(a, "a")) ==
                 GILT_ATTR_UNIT);
  a = gilt_attr_parse(ctx, "@root::@leaf");
  CHECK(a && strcmp(gilt_symbol_ref_attr_get_root(a), "root") == 0);
}

static void test_errors(GiltContext *ctx)
{
  static const char bad[] = "\"demo.a\"() : () -> i32\n\"demo.b\"(%x";
  size_t before = errors_seen;
  CHECK(gilt_parse_source(ctx, bad, strlen(bad), "bad.gilt") == NULL);
  CHECK(errors_seen == before + 1);
  CHECK(strcmp(last_error, "expected ')' to end operand list") == 0);
  /* At the end of the input, errors point at its last character. */
  CHECK(strcmp(last_loc, "loc(\"bad.gilt\":2:11)") == 0);

  static const char undef[] = "\"demo.use\"(%nope) : (i32) -> ()";
  CHECK(gilt_parse_source(ctx, undef, strlen(undef), "u.gilt") == NULL);
  CHECK(strcmp(last_error, "use of undeclared SSA value name '%nope'") == 0);

  CHECK(gilt_type_parse(ctx, "tensor<4xf32") == NULL);
  CHECK(strcmp(last_error, "expected '>' in tensor type") == 0);
  CHECK(gilt_attr_parse(ctx, "1 : i32 trailing") == NULL);
  CHECK(strstr(last_error, "found trailing characters") != NULL);
  /* Binary garbage and NUL bytes are errors, never crashes. */
  static const char garbage[] = "\"demo.a\"(\x01\xff\x00) :";
  CHECK(gilt_parse_source(ctx, garbage, sizeof garbage - 1, "g") == NULL);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_allow_unregistered_dialects(ctx, true);
  gilt_context_set_diagnostic_handler(ctx, on_diag, NULL);
  test_parse_module(ctx);
  test_types_and_attrs(ctx);
  test_errors(ctx);
  gilt_context_destroy(ctx);
  if (check_failures)
    fprintf(stderr, "parse_api: %d checks failed\n", check_failures);
  return check_failures != 0;
}
