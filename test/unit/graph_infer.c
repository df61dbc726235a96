/*
** graph_infer.c - unit test of graph op creation with inferred result
** types, through the public API only: what a custom frontend does when it
** builds graph ops without computing their types itself.
**
** Covers broadcasting, a comparison's i1 result, Cast's `to`, a Reshape
** whose shape operand is a graph.constant, Split's count from
** `num_outputs`, an op with optional results (all of them inferred), and
** errors reported through the diagnostic handler (never printed) with the
** operand named.
*/
#include <stdio.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/ir.h"
#include "gilt/register.h"

static char last_error[512];
static int num_errors;

static void record(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  num_errors++;
  snprintf(last_error, sizeof last_error, "%s", gilt_diagnostic_get_message(d));
}

typedef struct Fixture {
  GiltContext *ctx;
  GiltLocation *loc;
  GiltOp *module, *func;
  GiltBuilder *b;
  GiltType *f32;
} Fixture;

static GiltType *tensor(Fixture *f, size_t rank, const int64_t *shape,
                        GiltType *elem)
{
  return gilt_tensor_type_get(f->ctx, rank, shape, elem, NULL);
}

static void setup(Fixture *f)
{
  f->ctx = gilt_context_create();
  gilt_register_everything(f->ctx);
  gilt_context_set_diagnostic_handler(f->ctx, record, NULL);
  f->loc = gilt_location_unknown_get(f->ctx);
  f->f32 = gilt_float_type_get(f->ctx, GILT_F32);
  f->module = gilt_module_create(f->ctx, f->loc);
  f->func = NULL;
  f->b = gilt_builder_create(f->ctx);
  num_errors = 0;
  last_error[0] = 0;
}

/* The function @f with these argument types; the builder at its end. */
static void add_func(Fixture *f, size_t n, GiltType *const *args)
{
  GiltType *fnty = gilt_function_type_get(f->ctx, n, args, 0, NULL);
  f->func = gilt_func_create(f->ctx, f->loc, "f", fnty);
  gilt_block_append_op(gilt_module_get_body(f->module), f->func);
  gilt_builder_set_insertion_point_to_end(f->b,
                                          gilt_func_get_entry_block(f->func));
}

static void teardown(Fixture *f)
{
  gilt_builder_destroy(f->b);
  gilt_op_destroy(f->module);
  gilt_context_destroy(f->ctx);
}

static GiltValue *arg(Fixture *f, size_t i)
{
  return gilt_block_get_argument(gilt_func_get_entry_block(f->func), i);
}

/* Creates `name` with inferred result types. */
static GiltOp *build(Fixture *f, const char *name, size_t n,
                     GiltValue *const *operands, size_t num_attrs,
                     const GiltNamedAttr *attrs)
{
  GiltOpState st = gilt_op_state_get(name, f->loc);
  st.num_operands = n;
  st.operands = operands;
  st.num_attrs = num_attrs;
  st.attrs = attrs;
  st.infer_result_types = true;
  return gilt_builder_create_op(f->b, &st);
}

static GiltType *result_type(GiltOp *op, size_t i)
{
  return op && i < gilt_op_get_num_results(op)
             ? gilt_value_get_type(gilt_op_get_result(op, i))
             : NULL;
}

static GiltAttr *i64_attr(Fixture *f, int64_t v)
{
  return gilt_integer_attr_get(
      gilt_integer_type_get(f->ctx, 64, GILT_SIGNLESS), v);
}

static void test_elementwise(void)
{
  Fixture f;
  setup(&f);
  int64_t s23[] = {2, 3}, s3[] = {3}, s5[] = {5};
  GiltType *i1 = gilt_integer_type_get(f.ctx, 1, GILT_SIGNLESS);
  GiltType *i64 = gilt_integer_type_get(f.ctx, 64, GILT_SIGNLESS);
  GiltType *args[] = {tensor(&f, 2, s23, f.f32), tensor(&f, 1, s3, f.f32),
                      tensor(&f, 1, s5, f.f32)};
  add_func(&f, 3, args);
  GiltValue *ab[] = {arg(&f, 0), arg(&f, 1)};
  GiltOp *add = build(&f, "graph.add", 2, ab, 0, NULL);
  CHECK(result_type(add, 0) == args[0]);
  GiltOp *less = build(&f, "graph.less", 2, ab, 0, NULL);
  CHECK(result_type(less, 0) == tensor(&f, 2, s23, i1));
  GiltNamedAttr to = {"to", i64_attr(&f, 7)};
  GiltOp *cast = build(&f, "graph.cast", 1, ab, 1, &to);
  CHECK(result_type(cast, 0) == tensor(&f, 2, s23, i64));
  /* Errors come through the handler, naming both operands. */
  GiltValue *bad[] = {arg(&f, 0), arg(&f, 2)};
  CHECK(!build(&f, "graph.mul", 2, bad, 0, NULL));
  CHECK(num_errors == 1);
  CHECK(strstr(last_error, "operands 'A' (tensor<2x3xf32>) and 'B' "
                           "(tensor<5xf32>) are not broadcast-compatible"));
  CHECK(!build(&f, "graph.mul", 1, bad, 0, NULL));
  CHECK(strstr(last_error, "requires 2 operands, got 1"));
  GiltOpState ret = gilt_op_state_get("func.return", f.loc);
  CHECK(gilt_builder_create_op(f.b, &ret));
  CHECK(gilt_op_verify(f.module) == GILT_SUCCESS);
  teardown(&f);
}

static void test_shapes(void)
{
  Fixture f;
  setup(&f);
  int64_t s234[] = {2, 3, 4}, s2[] = {2}, s6x4[] = {6, 4}, s6x2[] = {6, 2};
  int64_t s1188[] = {1, 1, 8, 8}, s1144[] = {1, 1, 4, 4};
  GiltType *i64 = gilt_integer_type_get(f.ctx, 64, GILT_SIGNLESS);
  GiltType *args[] = {tensor(&f, 3, s234, f.f32), tensor(&f, 4, s1188, f.f32)};
  add_func(&f, 2, args);
  /* graph.constant dense<[-1, 4]> : tensor<2xi64> */
  int64_t shape[] = {-1, 4};
  GiltType *shape_type = tensor(&f, 1, s2, i64);
  GiltNamedAttr value = {"value", gilt_dense_elements_attr_get(
                                      shape_type, shape, sizeof shape)};
  GiltOp *c = build(&f, "graph.constant", 0, NULL, 1, &value);
  CHECK(result_type(c, 0) == shape_type);
  GiltValue *xs[] = {arg(&f, 0), gilt_op_get_result(c, 0)};
  GiltOp *reshape = build(&f, "graph.reshape", 2, xs, 0, NULL);
  CHECK(result_type(reshape, 0) == tensor(&f, 2, s6x4, f.f32));
  /* Split: as many results as num_outputs says. */
  GiltNamedAttr split_attrs[] = {{"axis", i64_attr(&f, 1)},
                                 {"num_outputs", i64_attr(&f, 2)}};
  GiltValue *r = gilt_op_get_result(reshape, 0);
  GiltOp *split = build(&f, "graph.split", 1, &r, 2, split_attrs);
  CHECK(split && gilt_op_get_num_results(split) == 2);
  CHECK(result_type(split, 1) == tensor(&f, 2, s6x2, f.f32));
  /* Optional results are all inferred: MaxPool's Indices too. */
  GiltValue *img = arg(&f, 1);
  GiltAttr *twos[] = {i64_attr(&f, 2), i64_attr(&f, 2)};
  GiltAttr *k = gilt_array_attr_get(f.ctx, 2, twos);
  GiltNamedAttr pool_attrs[] = {{"kernel_shape", k}, {"strides", k}};
  GiltOp *pool = build(&f, "graph.max_pool", 1, &img, 2, pool_attrs);
  CHECK(pool && gilt_op_get_num_results(pool) == 2);
  CHECK(result_type(pool, 1) == tensor(&f, 4, s1144, i64));
  CHECK(num_errors == 0);
  teardown(&f);
}

int main(void)
{
  test_elementwise();
  test_shapes();
  if (check_failures)
    fprintf(stderr, "%d checks failed\n", check_failures);
  return check_failures != 0;
}
