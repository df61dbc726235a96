/*
** interfaces.c - unit test of op interfaces through the public API: an
** interface defined here, outside every dialect, attached as an external
** model to an op of the graph dialect, as a new level does to make the ops
** below it lowerable or interpretable.
**
** Covers an interface a row declares (graph.add's fusion kind, broadcast), lookup of
** an attached model on ops created before and after attaching, ops that
** implement nothing (another graph op, an unregistered op), and the errors
** of attaching to an unknown op or twice.
*/
#include <stdio.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/interfaces.h"
#include "gilt/register.h"

static char last_error[512];
static int num_errors;

static void record(const GiltDiagnostic *d, void *user)
{
  (void)user;
  num_errors++;
  snprintf(last_error, sizeof last_error, "%s", gilt_diagnostic_get_message(d));
}

/* An interface of this test's own: the cost of running an op. */
typedef struct CostMethods {
  int (*cost)(GiltOp *op);
} CostMethods;

static const GiltInterface cost_interface = {"unit-cost"};

static int add_cost(GiltOp *op)
{
  return (int)gilt_op_get_num_operands(op);
}

static const CostMethods add_cost_methods = {add_cost};

/* name(a, b) -> a's type. */
static GiltOp *create(GiltContext *ctx, const char *name, GiltValue *a,
                      GiltValue *b)
{
  GiltOpState st = gilt_op_state_get(name, gilt_location_unknown_get(ctx));
  GiltValue *operands[2] = {a, b};
  GiltType *result = gilt_value_get_type(a);
  st.num_operands = 2;
  st.operands = operands;
  st.num_results = 1;
  st.result_types = &result;
  return gilt_op_create(ctx, &st);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_diagnostic_handler(ctx, record, NULL);
  gilt_context_set_allow_unregistered_dialects(ctx, true);

  int64_t shape[1] = {4};
  GiltType *t = gilt_tensor_type_get(
      ctx, 1, shape, gilt_float_type_get(ctx, GILT_F32), NULL);
  GiltType *fnty = gilt_function_type_get(ctx, 2, (GiltType *[]){t, t}, 0,
                                          NULL);
  GiltOp *fn = gilt_func_create(ctx, gilt_location_unknown_get(ctx), "f",
                                fnty);
  GiltBlock *entry = gilt_func_get_entry_block(fn);
  GiltValue *a = gilt_block_get_argument(entry, 0);
  GiltValue *b = gilt_block_get_argument(entry, 1);

  GiltOp *add_before = create(ctx, "graph.add", a, b);
  GiltOp *mul = create(ctx, "graph.mul", a, b);
  CHECK(add_before && mul);

  /* Declared by the graph dialect's rows. */
  CHECK(gilt_op_get_fusion_kind(add_before) == GILT_FUSION_BROADCAST);
  CHECK(gilt_op_get_interface(add_before, &cost_interface) == NULL);
  CHECK(!gilt_context_op_implements(ctx, "graph.add", &cost_interface));

  /* Attached from outside the dialect: every graph.add has it, the ones
  ** created before attaching too; graph.mul does not. */
  CHECK(gilt_context_attach_interface(ctx, "graph.add", &cost_interface,
                                      &add_cost_methods) == GILT_SUCCESS);
  CHECK(gilt_context_op_implements(ctx, "graph.add", &cost_interface));
  GiltOp *add_after = create(ctx, "graph.add", a, b);
  const CostMethods *m = gilt_op_get_interface(add_before, &cost_interface);
  CHECK(m == &add_cost_methods && m->cost(add_before) == 2);
  CHECK(gilt_op_get_interface(add_after, &cost_interface) == m);
  CHECK(gilt_op_get_interface(mul, &cost_interface) == NULL);
  CHECK(gilt_op_get_fusion_kind(add_after) == GILT_FUSION_BROADCAST);

  /* Errors: a second model, an op nobody registered. */
  num_errors = 0;
  CHECK(gilt_context_attach_interface(ctx, "graph.add", &cost_interface,
                                      &add_cost_methods) == GILT_FAILURE);
  CHECK(num_errors == 1 &&
        strcmp(last_error, "op 'graph.add' already implements interface "
                           "'unit-cost'") == 0);
  CHECK(gilt_context_attach_interface(ctx, "toy.add", &cost_interface,
                                      &add_cost_methods) == GILT_FAILURE);
  CHECK(num_errors == 2 &&
        strcmp(last_error, "cannot attach interface 'unit-cost' to "
                           "'toy.add': no such registered op") == 0);

  /* Unregistered ops implement nothing, not even fusion kind. */
  GiltOp *toy = create(ctx, "toy.add", a, b);
  CHECK(toy && gilt_op_get_interface(toy, &cost_interface) == NULL);
  CHECK(gilt_op_get_fusion_kind(toy) == GILT_FUSION_OPAQUE);

  gilt_op_destroy(toy);
  gilt_op_destroy(add_after);
  gilt_op_destroy(add_before);
  gilt_op_destroy(mul);
  gilt_op_destroy(fn);
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
