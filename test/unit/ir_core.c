/*
** ir_core.c - unit test of the IR core through the public API only:
** uniquing, element counts, dense arrays, building a function with the
** builder, walking, cloning, replacing uses, erasing, moving and
** verifying.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/unit/check.h"
#include "test/unit/text.h"
#include "gilt/ir.h"
#include "gilt/register.h"
#include "gilt/pass.h"


static size_t errors_seen;
static char last_error[512];

static void count_errors(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) == GILT_SEVERITY_ERROR) {
    errors_seen++;
    snprintf(last_error, sizeof last_error, "%s",
             gilt_diagnostic_get_message(d));
  }
}

static void test_uniquing(GiltContext *ctx)
{
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  int64_t shape[] = {4, GILT_DYNAMIC};
  GiltType *t1 = gilt_tensor_type_get(ctx, 2, shape, f32, NULL);
  GiltType *t2 = gilt_tensor_type_get(ctx, 2, shape, f32, NULL);
  CHECK(t1 == t2);
  CHECK(!gilt_shaped_type_has_static_shape(t1));
  CHECK(gilt_shaped_type_get_dim(t1, 1) == GILT_DYNAMIC);
  CHECK(gilt_integer_type_get(ctx, 8, GILT_UNSIGNED) !=
        gilt_integer_type_get(ctx, 8, GILT_SIGNLESS));

  GiltType *i32 = gilt_integer_type_get(ctx, 32, GILT_SIGNLESS);
  CHECK(gilt_integer_attr_get(i32, 7) == gilt_integer_attr_get(i32, 7));
  CHECK(gilt_integer_attr_get_value(gilt_integer_attr_get(i32, -3)) == -3);
  GiltNamedAttr entries[] = {{"b", gilt_unit_attr_get(ctx)},
                             {"a", gilt_bool_attr_get(ctx, true)}};
  GiltAttr *dict = gilt_dictionary_attr_get(ctx, 2, entries);
  CHECK(strcmp(gilt_dictionary_attr_get_entry(dict, 0).name, "a") == 0);
  CHECK(gilt_dictionary_attr_lookup(dict, "b") == gilt_unit_attr_get(ctx));
  CHECK(gilt_dictionary_attr_lookup(dict, "c") == NULL);

  float data[4] = {1, 2, 3, 4};
  int64_t vshape[] = {4};
  GiltType *v4 = gilt_tensor_type_get(ctx, 1, vshape, f32, NULL);
  GiltAttr *dense = gilt_dense_elements_attr_get(v4, data, sizeof data);
  CHECK(dense && !gilt_dense_attr_is_splat(dense));
  float same[4] = {5, 5, 5, 5};
  CHECK(gilt_dense_attr_is_splat(gilt_dense_elements_attr_get(v4, same, 16)));
  size_t before = errors_seen;
  CHECK(gilt_dense_elements_attr_get(v4, data, 8) == NULL);
  CHECK(errors_seen == before + 1);

  GiltAttr *r1 = gilt_dense_resource_attr_get(v4, "w", data, sizeof data);
  GiltAttr *r2 = gilt_dense_resource_attr_get(v4, "w", same, sizeof same);
  CHECK(r1 != r2); /* same name, other bytes: renamed, not merged */
  size_t nbytes;
  CHECK(memcmp(gilt_dense_attr_get_data(r2, &nbytes), same, 16) == 0);
}

/* File positions are uniqued per file and line (see ir/location.c): equal
** positions are one object, whatever the column order or line size. */
/* Element counts and byte sizes of huge shapes: a count that overflows
** int64 is -1, a 0 anywhere makes the count 0 whatever comes before it,
** and dense data whose byte size would wrap around size_t is refused
** (2^61 f64 elements are 2^64 bytes, which wrapped to 0). */
static void test_element_counts(GiltContext *ctx)
{
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  GiltType *f64 = gilt_float_type_get(ctx, GILT_F64);
  int64_t big = INT64_C(4611686018427387904); /* 2^62 */
  GiltType *over = gilt_tensor_type_get(ctx, 2, (int64_t[]){big, 4}, f32,
                                        NULL);
  CHECK(gilt_shaped_type_get_num_elements(over) == -1);
  GiltType *empty = gilt_tensor_type_get(ctx, 3, (int64_t[]){big, 4, 0}, f32,
                                         NULL);
  CHECK(gilt_shaped_type_get_num_elements(empty) == 0);
  GiltType *wide = gilt_tensor_type_get(
      ctx, 1, (int64_t[]){INT64_C(2305843009213693952)}, f64, NULL);
  CHECK(gilt_shaped_type_get_num_elements(wide) ==
        INT64_C(2305843009213693952));
  double one = 1;
  size_t before = errors_seen;
  CHECK(!gilt_dense_elements_attr_get(wide, &one, 0));
  CHECK(errors_seen == before + 1);
  CHECK(gilt_dense_elements_attr_get(wide, &one, sizeof one)); /* a splat */
}

static void test_file_locations(GiltContext *ctx)
{
  GiltLocation *a = gilt_location_file_line_col_get(ctx, "f.gilt", 3, 9);
  GiltLocation *b = gilt_location_file_line_col_get(ctx, "f.gilt", 3, 2);
  CHECK(a != b);
  CHECK(gilt_location_file_line_col_get(ctx, "f.gilt", 3, 9) == a);
  CHECK(gilt_location_file_line_col_get(ctx, "f.gilt", 3, 2) == b);
  CHECK(gilt_location_file_line_col_get(ctx, "g.gilt", 3, 9) != a);
  GiltLocation *far =
      gilt_location_file_line_col_get(ctx, "f.gilt", 4000000000u, 1);
  CHECK(gilt_location_file_line_col_get(ctx, "f.gilt", 4000000000u, 1) ==
        far);
  const char *file;
  unsigned line, col;
  CHECK(gilt_location_get_file_line_col(far, &file, &line, &col));
  CHECK(strcmp(file, "f.gilt") == 0 && line == 4000000000u && col == 1);
  CHECK(gilt_location_get_file_line_col(b, &file, &line, &col));
  CHECK(line == 3 && col == 2);
}

static const char *attr_text(GiltAttr *a, Text *t)
{
  t->len = 0;
  t->data[0] = '\0';
  gilt_attr_print(a, text_append, t);
  return t->data;
}

/* array<T: ...>: built from packed bytes, uniqued by contents, read back
** element by element, printed and parsed as MLIR spells it. */
static void test_dense_array(GiltContext *ctx)
{
  static Text t;
  GiltType *i32 = gilt_integer_type_get(ctx, 32, GILT_SIGNLESS);
  int32_t segs[] = {1, -2, 3};
  GiltAttr *a = gilt_dense_array_attr_get(i32, 3, segs);
  CHECK(a && gilt_attr_get_kind(a) == GILT_ATTR_DENSE_ARRAY);
  CHECK(gilt_attr_get_type(a) == i32);
  CHECK(gilt_dense_array_attr_get_size(a) == 3);
  CHECK(gilt_dense_array_attr_get_int(a, 1) == -2);
  CHECK(gilt_dense_array_attr_get_float(a, 2) == 3.0);
  size_t nbytes;
  CHECK(!memcmp(gilt_dense_array_attr_get_data(a, &nbytes), segs, 12) &&
        nbytes == 12);
  CHECK(strcmp(attr_text(a, &t), "array<i32: 1, -2, 3>") == 0);
  CHECK(gilt_attr_parse(ctx, "array<i32: 1, -2, 3>") == a);
  segs[1] = 2; /* copied: the attribute keeps its own bytes */
  CHECK(gilt_dense_array_attr_get_int(a, 1) == -2);
  CHECK(gilt_dense_array_attr_get(i32, 3, segs) != a);
  CHECK(gilt_dense_array_attr_get(i32, 2, segs) != a);

  GiltAttr *empty = gilt_dense_array_attr_get(i32, 0, NULL);
  CHECK(empty && gilt_dense_array_attr_get_size(empty) == 0);
  CHECK(strcmp(attr_text(empty, &t), "array<i32>") == 0);
  CHECK(empty != gilt_dense_array_attr_get(
                     gilt_integer_type_get(ctx, 64, GILT_SIGNLESS), 0, NULL));

  uint8_t bools[] = {1, 0};
  GiltAttr *b = gilt_dense_array_attr_get(
      gilt_integer_type_get(ctx, 1, GILT_SIGNLESS), 2, bools);
  CHECK(gilt_dense_array_attr_get_int(b, 0) == 1);
  CHECK(strcmp(attr_text(b, &t), "array<i1: true, false>") == 0);

  /* ui16 reads zero-extended, i24 (three bytes each) sign-extended. */
  uint16_t u[] = {65535};
  GiltAttr *ua = gilt_dense_array_attr_get(
      gilt_integer_type_get(ctx, 16, GILT_UNSIGNED), 1, u);
  CHECK(gilt_dense_array_attr_get_int(ua, 0) == 65535);
  uint8_t i24[] = {0xFF, 0xFF, 0xFF, 0x05, 0, 0};
  GiltAttr *ia = gilt_dense_array_attr_get(
      gilt_integer_type_get(ctx, 24, GILT_SIGNLESS), 2, i24);
  CHECK(gilt_dense_array_attr_get_int(ia, 0) == -1);
  CHECK(gilt_dense_array_attr_get_int(ia, 1) == 5);

  float f[] = {1.0f, -2.5f};
  GiltAttr *fa =
      gilt_dense_array_attr_get(gilt_float_type_get(ctx, GILT_F32), 2, f);
  CHECK(gilt_dense_array_attr_get_float(fa, 1) == -2.5);
  CHECK(strcmp(attr_text(fa, &t), "array<f32: 1.000000e+00, -2.500000e+00>") ==
        0);
  CHECK(gilt_attr_parse(ctx, "array<f32: 1.0, -2.5>") == fa);

  /* Index and odd widths are no element types: an error, not a crash. */
  size_t before = errors_seen;
  CHECK(gilt_dense_array_attr_get(gilt_index_type_get(ctx), 1, segs) == NULL);
  CHECK(gilt_dense_array_attr_get(
            gilt_integer_type_get(ctx, 7, GILT_SIGNLESS), 1, segs) == NULL);
  CHECK(errors_seen == before + 2);
}

static GiltWalkResult count_op(GiltOp *op, void *user)
{
  (void)op;
  ++*(int *)user;
  return GILT_WALK_ADVANCE;
}

/* Builds func.func @f(%a: f32) -> f32 { "test.id"(%a); return } with
** unregistered ops, then exercises the mutation API. */
static void test_build_and_mutate(GiltContext *ctx)
{
  GiltLocation *loc = gilt_location_file_line_col_get(ctx, "t.gilt", 1, 1);
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  GiltType *fnty = gilt_function_type_get(ctx, 1, &f32, 1, &f32);
  GiltOp *module = gilt_module_create(ctx, loc);
  GiltOp *fn = gilt_func_create(ctx, loc, "f", fnty);
  CHECK(fn != NULL);
  gilt_block_append_op(gilt_module_get_body(module), fn);
  GiltBlock *entry = gilt_func_get_entry_block(fn);
  GiltValue *arg = gilt_block_get_argument(entry, 0);

  GiltBuilder *b = gilt_builder_create(ctx);
  gilt_builder_set_insertion_point_to_end(b, entry);
  GiltOpState st = gilt_op_state_get("test.id", loc);
  st.num_operands = 1;
  st.operands = &arg;
  st.num_results = 1;
  st.result_types = &f32;
  GiltOp *id1 = gilt_builder_create_op(b, &st);
  GiltValue *v1 = gilt_op_get_result(id1, 0);
  st.operands = &v1;
  GiltOp *id2 = gilt_builder_create_op(b, &st);
  GiltValue *v2 = gilt_op_get_result(id2, 0);
  GiltOpState ret = gilt_op_state_get("func.return", loc);
  ret.num_operands = 1;
  ret.operands = &v2;
  GiltOp *retop = gilt_builder_create_op(b, &ret);
  CHECK(retop != NULL);
  CHECK(gilt_op_verify(module) == GILT_SUCCESS);

  int n = 0;
  gilt_op_walk(module, GILT_WALK_PRE_ORDER, count_op, &n);
  CHECK(n == 5);
  CHECK(gilt_value_get_num_uses(v1) == 1);
  CHECK(gilt_operand_get_owner(gilt_value_get_first_use(v1)) == id2);

  /* Replace uses of id2 by id1, erase id2. */
  gilt_value_replace_all_uses_with(v2, v1);
  CHECK(!gilt_value_has_uses(v2));
  CHECK(gilt_op_get_operand(retop, 0) == v1);
  gilt_op_destroy(id2);
  n = 0;
  gilt_op_walk(module, GILT_WALK_PRE_ORDER, count_op, &n);
  CHECK(n == 4);

  /* Clone the function under a new name: same structure, fresh values. */
  GiltOp *copy = gilt_op_clone(fn);
  gilt_op_set_attr(copy, "sym_name", gilt_string_attr_get(ctx, "g", 1));
  gilt_block_append_op(gilt_module_get_body(module), copy);
  CHECK(gilt_symbol_table_lookup(module, "g") == copy);
  GiltBlock *centry = gilt_func_get_entry_block(copy);
  GiltOp *cid = gilt_block_get_first_op(centry);
  CHECK(gilt_op_get_operand(cid, 0) == gilt_block_get_argument(centry, 0));
  CHECK(gilt_op_verify(module) == GILT_SUCCESS);

  /* Move the return before its operand's definition: dominance breaks. */
  gilt_op_move_before(retop, id1);
  size_t before = errors_seen;
  CHECK(gilt_op_verify(module) == GILT_FAILURE);
  CHECK(errors_seen > before);
  gilt_op_move_after(retop, id1);
  CHECK(gilt_op_verify(module) == GILT_SUCCESS);

  /* A detached op is the caller's; destroying it is enough. */
  GiltOp *lonely = gilt_op_clone(id1);
  CHECK(gilt_op_get_block(lonely) == NULL);
  gilt_op_destroy(lonely);

  gilt_builder_destroy(b);
  gilt_op_destroy(module);
}

static void test_pipeline(GiltContext *ctx)
{
  const char *src = "func.func private @dead() -> ()\n"
                    "func.func @live() {\n  return\n}\n";
  GiltOp *module = gilt_parse_source(ctx, src, strlen(src), "p.gilt");
  CHECK(module != NULL);
  if (!module)
    return;
  GiltPassManager *pm = gilt_pass_manager_create(ctx);
  CHECK(gilt_pass_manager_add_pipeline(pm, "symbol-dce,canonicalize") ==
        GILT_SUCCESS);
  CHECK(gilt_pass_manager_run(pm, module) == GILT_SUCCESS);
  CHECK(gilt_symbol_table_lookup(module, "dead") == NULL);
  CHECK(gilt_symbol_table_lookup(module, "live") != NULL);
  size_t before = errors_seen;
  CHECK(gilt_pass_manager_add_pipeline(pm, "no-such-pass") == GILT_FAILURE);
  CHECK(errors_seen == before + 1);
  gilt_pass_manager_destroy(pm);
  gilt_op_destroy(module);
}

/* A module body is a graph region: a use may come before its definition.
** The clone's use must refer to the clone's definition, not the
** original's (a bug once: operands were mapped in one pass). */
static void test_clone_use_before_def(GiltContext *ctx)
{
  const char *src = "%0 = \"unreg.use\"(%1) : (i32) -> i32\n"
                    "%1 = \"unreg.def\"() : () -> i32\n";
  GiltOp *module = gilt_parse_source(ctx, src, strlen(src), "c.gilt");
  CHECK(module != NULL);
  if (!module)
    return;
  GiltOp *copy = gilt_op_clone(module);
  GiltBlock *body = gilt_module_get_body(copy);
  GiltOp *use = gilt_block_get_first_op(body);
  GiltOp *def = gilt_op_get_next(use);
  CHECK(gilt_op_get_operand(use, 0) == gilt_op_get_result(def, 0));
  gilt_op_destroy(module); /* the copy must not refer to it */
  CHECK(gilt_op_verify(copy) == GILT_SUCCESS);
  gilt_op_destroy(copy);
}

/* IR the caller forgets is freed with the context (LeakSanitizer checks). */
static void test_forgotten_ir(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  GiltOp *module = gilt_module_create(ctx, gilt_location_unknown_get(ctx));
  (void)module;
  gilt_block_create(ctx, 0, NULL, NULL);
  gilt_context_destroy(ctx);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_diagnostic_handler(ctx, count_errors, NULL);
  gilt_context_set_allow_unregistered_dialects(ctx, true);
  test_uniquing(ctx);
  test_element_counts(ctx);
  test_file_locations(ctx);
  test_dense_array(ctx);
  test_build_and_mutate(ctx);
  test_pipeline(ctx);
  test_clone_use_before_def(ctx);
  gilt_context_destroy(ctx);
  test_forgotten_ir();
  if (check_failures)
    fprintf(stderr, "%d checks failed (last error: %s)\n", check_failures,
            last_error);
  return check_failures != 0;
}
