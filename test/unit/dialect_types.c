/*
** dialect_types.c - unit test of types and attributes that dialects
** define, through the public API only (gilt/ir.h).
**
** Uses the test dialect's `!test.ptr`, `!test.struct` and `#test.pair`
** (test/lib/test_types.c) and the graph dialect's `#graph.layout`: getting
** them by dialect and mnemonic uniques them (equal parameters, one
** pointer); their parts read back; they print as the parser reads them
** and parse to the same pointer; and each way of asking for one that
** cannot be (unknown dialect or mnemonic, a NULL parameter, parameters
** the verify hook rejects) returns NULL with one error at the location
** given.
*/
#include <stdio.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/ir.h"
#include "gilt/register.h"
#include "test/lib/test_lib.h"

typedef struct Seen {
  size_t errors;
  char message[256];
  GiltLocation *loc;
} Seen;

static void collect(const GiltDiagnostic *d, void *user)
{
  Seen *seen = user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  seen->errors++;
  snprintf(seen->message, sizeof seen->message, "%s",
           gilt_diagnostic_get_message(d));
  seen->loc = gilt_diagnostic_get_location(d);
}

/* Whether exactly one error was seen since the last call, with this
** message; resets. */
static bool one_error(Seen *seen, const char *message)
{
  bool ok = seen->errors == 1 && !strcmp(seen->message, message);
  if (!ok)
    fprintf(stderr, "  %zu errors, last: %s\n", seen->errors, seen->message);
  seen->errors = 0;
  seen->message[0] = '\0';
  return ok;
}

typedef struct Text {
  char buf[256];
  size_t len;
} Text;

static void append(const char *data, size_t len, void *user)
{
  Text *t = user;
  if (t->len + len < sizeof t->buf) {
    memcpy(t->buf + t->len, data, len);
    t->len += len;
    t->buf[t->len] = '\0';
  }
}

static bool type_prints_as(GiltType *type, const char *expected)
{
  Text t = {{0}, 0};
  gilt_type_print(type, append, &t);
  if (strcmp(t.buf, expected))
    fprintf(stderr, "  printed %s, expected %s\n", t.buf, expected);
  return !strcmp(t.buf, expected);
}

static bool attr_prints_as(GiltAttr *attr, const char *expected)
{
  Text t = {{0}, 0};
  gilt_attr_print(attr, append, &t);
  if (strcmp(t.buf, expected))
    fprintf(stderr, "  printed %s, expected %s\n", t.buf, expected);
  return !strcmp(t.buf, expected);
}

static void test_types(GiltContext *ctx, Seen *seen)
{
  GiltType *i64 = gilt_integer_type_get(ctx, 64, GILT_SIGNLESS);
  GiltType *i32 = gilt_integer_type_get(ctx, 32, GILT_SIGNLESS);
  GiltAttr *three = gilt_integer_attr_get(i64, 3);
  GiltType *ptr3 = gilt_dialect_type_get(ctx, "test", "ptr", 1, &three, NULL);
  CHECK(ptr3 && gilt_type_get_kind(ptr3) == GILT_TYPE_DIALECT);
  CHECK(gilt_type_is_dialect(ptr3));
  CHECK(gilt_type_is_dialect_type(ptr3, "test", "ptr"));
  CHECK(!gilt_type_is_dialect_type(ptr3, "test", "struct"));
  CHECK(!gilt_type_is_dialect(i32) &&
        !gilt_type_is_dialect_type(i32, "test", "ptr"));
  CHECK(!strcmp(gilt_dialect_type_get_dialect(ptr3), "test"));
  CHECK(!strcmp(gilt_dialect_type_get_mnemonic(ptr3), "ptr"));
  CHECK(gilt_dialect_type_get_num_params(ptr3) == 1);
  CHECK(gilt_dialect_type_get_param(ptr3, 0) == three);
  CHECK(type_prints_as(ptr3, "!test.ptr<3>"));

  /* Uniqued by definition and parameters. */
  GiltAttr *zero = gilt_integer_attr_get(i64, 0);
  GiltType *ptr0 = gilt_dialect_type_get(ctx, "test", "ptr", 1, &zero, NULL);
  CHECK(gilt_dialect_type_get(ctx, "test", "ptr", 1, &three, NULL) == ptr3);
  CHECK(ptr0 && ptr0 != ptr3 && type_prints_as(ptr0, "!test.ptr"));
  CHECK(gilt_type_parse(ctx, "!test.ptr<3>") == ptr3);
  CHECK(gilt_type_parse(ctx, "!test<ptr<3>>") == ptr3);
  CHECK(gilt_type_parse(ctx, "!test.ptr") == ptr0);

  GiltAttr *fields[2] = {gilt_type_attr_get(i32), gilt_type_attr_get(ptr3)};
  GiltType *st = gilt_dialect_type_get(ctx, "test", "struct", 2, fields, NULL);
  CHECK(st && type_prints_as(st, "!test.struct<i32, !test.ptr<3>>"));
  CHECK(gilt_type_parse(ctx, "!test.struct<i32, !test.ptr<3>>") == st);
  GiltType *empty = gilt_dialect_type_get(ctx, "test", "struct", 0, NULL, NULL);
  CHECK(empty && empty != st && type_prints_as(empty, "!test.struct<>"));
  int64_t shape[1] = {4};
  GiltType *tensor = gilt_tensor_type_get(ctx, 1, shape, st, NULL);
  CHECK(type_prints_as(tensor, "tensor<4x!test.struct<i32, !test.ptr<3>>>"));
  CHECK(seen->errors == 0);

  /* What cannot be: NULL, and one error where the caller said. */
  GiltLocation *loc = gilt_location_file_line_col_get(ctx, "api.c", 7, 3);
  CHECK(!gilt_dialect_type_get(ctx, "nope", "ptr", 1, &three, loc));
  CHECK(one_error(seen, "type of unregistered dialect 'nope'"));
  CHECK(seen->loc == loc);
  CHECK(!gilt_dialect_type_get(ctx, "test", "pointer", 1, &three, loc));
  CHECK(one_error(seen, "unknown type 'pointer' in dialect 'test'"));
  GiltAttr *minus = gilt_integer_attr_get(i64, -1);
  CHECK(!gilt_dialect_type_get(ctx, "test", "ptr", 1, &minus, loc));
  CHECK(one_error(seen, "address space -1 of 'test.ptr' is not in "
                        "[0, 16777215]"));
  CHECK(seen->loc == loc);
  CHECK(!gilt_dialect_type_get(ctx, "test", "ptr", 0, NULL, NULL));
  CHECK(one_error(seen, "'test.ptr' takes one integer parameter, the "
                        "address space"));
  GiltAttr *with_null[2] = {gilt_type_attr_get(i32), NULL};
  CHECK(!gilt_dialect_type_get(ctx, "test", "struct", 2, with_null, loc));
  CHECK(one_error(seen, "parameter 1 of 'test.struct' is null"));
  CHECK(!gilt_dialect_type_get(ctx, "test", "struct", 1, &three, loc));
  CHECK(one_error(seen, "field 0 of 'test.struct' is not a type"));
  /* The parser reports the hook's errors through the context too. */
  CHECK(!gilt_type_parse(ctx, "!test.ptr<-1>"));
  CHECK(one_error(seen, "address space -1 of 'test.ptr' is not in "
                        "[0, 16777215]"));
}

static void test_attrs(GiltContext *ctx, Seen *seen)
{
  GiltType *i64 = gilt_integer_type_get(ctx, 64, GILT_SIGNLESS);
  GiltAttr *params[2] = {gilt_integer_attr_get(i64, 1),
                         gilt_string_attr_get(ctx, "x", 1)};
  GiltAttr *pair = gilt_dialect_attr_get(ctx, "test", "pair", 2, params, NULL);
  CHECK(pair && gilt_attr_get_kind(pair) == GILT_ATTR_DIALECT);
  CHECK(gilt_attr_is_dialect(pair) &&
        gilt_attr_is_dialect_attr(pair, "test", "pair"));
  CHECK(!gilt_attr_is_dialect(params[0]));
  CHECK(!strcmp(gilt_dialect_attr_get_dialect(pair), "test"));
  CHECK(!strcmp(gilt_dialect_attr_get_mnemonic(pair), "pair"));
  CHECK(gilt_dialect_attr_get_num_params(pair) == 2);
  CHECK(gilt_dialect_attr_get_param(pair, 1) == params[1]);
  CHECK(attr_prints_as(pair, "#test.pair<1, \"x\">"));
  CHECK(gilt_attr_parse(ctx, "#test.pair<1, \"x\">") == pair);
  CHECK(gilt_dialect_attr_get(ctx, "test", "pair", 2, params, NULL) == pair);

  GiltAttr *nchw16c = gilt_string_attr_get(ctx, "NCHW16c", 7);
  GiltAttr *layout =
      gilt_dialect_attr_get(ctx, "graph", "layout", 1, &nchw16c, NULL);
  CHECK(layout && gilt_attr_is_dialect_attr(layout, "graph", "layout"));
  CHECK(attr_prints_as(layout, "#graph.layout<\"NCHW16c\">"));
  CHECK(gilt_attr_parse(ctx, "#graph.layout<\"NCHW16c\">") == layout);
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  int64_t shape[5] = {1, 4, 8, 8, 16};
  GiltType *blocked = gilt_tensor_type_get(ctx, 5, shape, f32, layout);
  CHECK(gilt_tensor_type_get_encoding(blocked) == layout);
  CHECK(type_prints_as(blocked,
                       "tensor<1x4x8x8x16xf32, #graph.layout<\"NCHW16c\">>"));
  CHECK(gilt_type_parse(ctx, "tensor<1x4x8x8x16xf32, "
                             "#graph.layout<\"NCHW16c\">>") == blocked);
  CHECK(seen->errors == 0);

  GiltLocation *loc = gilt_location_name_get(ctx, "conv0", NULL);
  GiltAttr *bad = gilt_string_attr_get(ctx, "NCHW16C", 7);
  CHECK(!gilt_dialect_attr_get(ctx, "graph", "layout", 1, &bad, loc));
  CHECK(one_error(seen, "invalid layout \"NCHW16C\": it blocks 'C', but "
                        "only lower-case (inner) dimensions take a block "
                        "factor"));
  CHECK(seen->loc == loc);
  CHECK(!gilt_dialect_attr_get(ctx, "graph", "shape", 1, &bad, loc));
  CHECK(one_error(seen, "unknown attribute 'shape' in dialect 'graph'"));
  CHECK(!gilt_dialect_attr_get(ctx, "test", "pair", 1, params, loc));
  CHECK(one_error(seen, "'test.pair' takes an integer and a string"));
  /* The parser checks a layout against the tensor it encodes. */
  CHECK(!gilt_type_parse(ctx, "tensor<1x4x8x8xf32, "
                              "#graph.layout<\"NCHW16c\">>"));
  CHECK(one_error(seen, "layout \"NCHW16c\" has 5 dimensions, but the "
                        "tensor has rank 4"));

  /* Built through the API, the same tensor type is caught by the
  ** verifier, on the value that carries it, at the op's location. */
  GiltType *wrong = gilt_tensor_type_get(ctx, 4, shape, f32, layout);
  GiltOpState st = gilt_op_state_get("test.alloc", loc);
  st.num_results = 1;
  st.result_types = &wrong;
  GiltOp *op = gilt_op_create(ctx, &st);
  CHECK(op && gilt_op_verify(op) == GILT_FAILURE);
  CHECK(seen->errors == 1 && seen->loc == loc &&
        strstr(seen->message, "layout \"NCHW16c\" has 5 dimensions, but the "
                              "tensor has rank 4"));
  seen->errors = 0;
  gilt_op_destroy(op);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  Seen seen = {0};
  gilt_context_set_diagnostic_handler(ctx, collect, &seen);
  gilt_register_graph_dialect(ctx);
  gilt_test_register_all(ctx);
  test_types(ctx, &seen);
  test_attrs(ctx, &seen);
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
