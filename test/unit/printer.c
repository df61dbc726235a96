/*
** printer.c - unit test of the printer through the public API only: IR
** built with the builder prints in the custom and generic forms, a nested
** op prints alone with the names it has in its module, an op that fails to
** verify falls back to the generic form (unless the caller vouches for it),
** and lone types, attributes and
** locations print as the textual IR spells them.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/unit/check.h"
#include "test/unit/text.h"
#include "gilt/ir.h"
#include "gilt/register.h"


static void expect(const char *what, const char *got, const char *want,
                   int line)
{
  if (strcmp(got, want) == 0)
    return;
  fprintf(stderr, "%s:%d: %s printed\n%s\nexpected\n%s\n", __FILE__, line,
          what, got, want);
  check_failures++;
}

#define EXPECT_OP(op, flags, want)                                           \
  do {                                                                       \
    Text t_ = {{0}, 0};                                                      \
    gilt_op_print((op), (flags), text_append, &t_);                          \
    expect("op", t_.data, (want), __LINE__);                                 \
  } while (0)

#define EXPECT_ATTR(attr, want)                                              \
  do {                                                                       \
    Text t_ = {{0}, 0};                                                      \
    gilt_attr_print((attr), text_append, &t_);                               \
    expect("attribute", t_.data, (want), __LINE__);                          \
  } while (0)

/* module { func.func @f(%arg0: f32, %arg1: i32) -> f32 { call; return } } */
static GiltOp *build_module(GiltContext *ctx, GiltOp **call_out)
{
  GiltLocation *loc = gilt_location_file_line_col_get(ctx, "t.gilt", 3, 7);
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  GiltType *ins[2] = {f32, gilt_integer_type_get(ctx, 32, GILT_SIGNLESS)};
  GiltOp *module = gilt_module_create(ctx, loc);
  GiltOp *fn = gilt_func_create(ctx, loc, "f",
                                gilt_function_type_get(ctx, 2, ins, 1, &f32));
  gilt_block_append_op(gilt_module_get_body(module), fn);
  GiltBlock *entry = gilt_func_get_entry_block(fn);
  GiltBuilder *b = gilt_builder_create(ctx);
  gilt_builder_set_insertion_point_to_end(b, entry);
  GiltValue *args[2] = {gilt_block_get_argument(entry, 0),
                        gilt_block_get_argument(entry, 1)};
  GiltNamedAttr callee = {"callee", gilt_symbol_ref_attr_get(ctx, "f", 0,
                                                            NULL)};
  GiltOpState cs = gilt_op_state_get("func.call", loc);
  cs.num_operands = 2;
  cs.operands = args;
  cs.num_results = 1;
  cs.result_types = &f32;
  cs.num_attrs = 1;
  cs.attrs = &callee;
  GiltOp *call = gilt_builder_create_op(b, &cs);
  GiltValue *result = gilt_op_get_result(call, 0);
  GiltOpState rs = gilt_op_state_get("func.return", loc);
  rs.num_operands = 1;
  rs.operands = &result;
  gilt_builder_create_op(b, &rs);
  gilt_builder_destroy(b);
  *call_out = call;
  return module;
}

static void test_ops(GiltContext *ctx)
{
  GiltOp *call;
  GiltOp *module = build_module(ctx, &call);
  EXPECT_OP(module, NULL,
            "module {\n"
            "  func.func @f(%arg0: f32, %arg1: i32) -> f32 {\n"
            "    %0 = call @f(%arg0, %arg1) : (f32, i32) -> f32\n"
            "    return %0 : f32\n"
            "  }\n"
            "}\n");
  GiltPrintFlags generic = {.generic = true};
  EXPECT_OP(module, &generic,
            "\"builtin.module\"() ({\n"
            "  \"func.func\"() ({\n"
            "  ^bb0(%arg0: f32, %arg1: i32):\n"
            "    %0 = \"func.call\"(%arg0, %arg1) {callee = @f} : "
            "(f32, i32) -> f32\n"
            "    \"func.return\"(%0) : (f32) -> ()\n"
            "  }) {function_type = (f32, i32) -> f32, sym_name = \"f\"} : "
            "() -> ()\n"
            "}) : () -> ()\n");
  GiltPrintFlags debug = {.debug_info = true};
  EXPECT_OP(call, &debug,
            "%0 = func.call @f(%arg0, %arg1) : (f32, i32) -> f32 "
            "loc(\"t.gilt\":3:7)");

  /* A call whose result type no longer matches fails to verify, so the
  ** printer falls back to the generic form, as mlir-opt does. */
  gilt_value_set_type(gilt_op_get_result(call, 0),
                      gilt_integer_type_get(ctx, 8, GILT_SIGNLESS));
  EXPECT_OP(call, NULL,
            "%0 = \"func.call\"(%arg0, %arg1) {callee = @f} : "
            "(f32, i32) -> i8");
  /* assume_verified takes the caller's word and skips that check. */
  GiltPrintFlags trusted = {.assume_verified = true};
  EXPECT_OP(call, &trusted,
            "%0 = func.call @f(%arg0, %arg1) : (f32, i32) -> i8");
  gilt_op_destroy(module);
}

static void test_attributes(GiltContext *ctx)
{
  GiltType *i64 = gilt_integer_type_get(ctx, 64, GILT_SIGNLESS);
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  GiltType *f64 = gilt_float_type_get(ctx, GILT_F64);
  EXPECT_ATTR(gilt_integer_attr_get(i64, -5), "-5 : i64");
  EXPECT_ATTR(gilt_float_attr_get(f32, 0.1), "1.000000e-01 : f32");
  EXPECT_ATTR(gilt_float_attr_get(f32, 1e-5), "9.99999974E-6 : f32");
  EXPECT_ATTR(gilt_float_attr_get(f64, 1.0 / 3), "0.33333333333333331 : f64");
  EXPECT_ATTR(gilt_float_attr_get(f32, 16777216.0), "0x4B800000 : f32");
  GiltAttr *elems[2] = {gilt_integer_attr_get(i64, 1),
                        gilt_float_attr_get(f64, 2.0)};
  EXPECT_ATTR(gilt_array_attr_get(ctx, 2, elems), "[1, 2.000000e+00]");
  EXPECT_ATTR(gilt_string_attr_get(ctx, "a\"b\n", 4), "\"a\\22b\\0A\"");
  int64_t shape[2] = {2, 2};
  int32_t data[4] = {1, 2, 3, 4};
  GiltType *t = gilt_tensor_type_get(
      ctx, 2, shape, gilt_integer_type_get(ctx, 32, GILT_SIGNLESS), NULL);
  EXPECT_ATTR(gilt_dense_elements_attr_get(t, data, sizeof data),
              "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>");
  int64_t strides[2] = {GILT_DYNAMIC, 1};
  EXPECT_ATTR(gilt_strided_layout_attr_get(ctx, 0, 2, strides),
              "strided<[?, 1]>");
}

static void test_types_and_locations(GiltContext *ctx)
{
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  int64_t shape[2] = {4, GILT_DYNAMIC};
  GiltType *t = gilt_tensor_type_get(ctx, 2, shape,
                                     f32, gilt_string_attr_get(ctx, "NC", 2));
  Text a = {{0}, 0};
  gilt_type_print(t, text_append, &a);
  expect("type", a.data, "tensor<4x?xf32, \"NC\">", __LINE__);
  GiltLocation *file = gilt_location_file_line_col_get(ctx, "m.onnx", 1, 2);
  GiltLocation *locs[2] = {gilt_location_name_get(ctx, "conv", file),
                           gilt_location_unknown_get(ctx)};
  Text b = {{0}, 0};
  gilt_location_print(gilt_location_fused_get(ctx, 2, locs, NULL), text_append,
                      &b);
  expect("location", b.data, "loc(fused[\"conv\"(\"m.onnx\":1:2), unknown])",
         __LINE__);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  test_ops(ctx);
  test_attributes(ctx);
  test_types_and_locations(ctx);
  gilt_context_destroy(ctx);
  if (check_failures) {
    fprintf(stderr, "printer: %d check_failures\n", check_failures);
    return 1;
  }
  return 0;
}
