/*
** call_interfaces.c - unit test of the function-like, callable and
** call-like interfaces (gilt/interfaces.h) through the public API.
**
** Asks func.func (a definition and a declaration) and func.call for their
** interfaces and what they answer: function type, body, entry block,
** argument and result attributes, callable region, callee, argument
** operands, resolution and re-targeting of the callee, and the shared
** checks. Ops that implement none of them answer NULL, 0 or false. Then an
** external model makes the test dialect's test.side_effect call-like, with
** its callee in another attribute and its first operand not an argument,
** and the same queries and checks work on it.
*/
#include <stdio.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/interfaces.h"
#include "gilt/register.h"
#include "test/lib/test_lib.h"

static char last_error[512];
static int num_errors;

static void record(const GiltDiagnostic *d, void *user)
{
  (void)user;
  num_errors++;
  snprintf(last_error, sizeof last_error, "%s", gilt_diagnostic_get_message(d));
}

static const char source[] =
    "func.func private @decl(i32 {test.a}) -> (i32 {test.r})\n"
    "func.func @f(%a: i32, %b: i32) -> i32 {\n"
    "  %0 = call @decl(%a) : (i32) -> i32\n"
    "  %1 = \"test.side_effect\"(%b, %0) {target = @decl}"
    " : (i32, i32) -> i32\n"
    "  return %1 : i32\n"
    "}\n";

/* An external model: test.side_effect calls `target`, and its operand 0 is
** not an argument (a token, say). */
static GiltAttr *target_of(GiltOp *op)
{
  return gilt_op_get_attr(op, "target");
}

static void set_target(GiltOp *op, GiltAttr *callee)
{
  gilt_op_set_attr(op, "target", callee);
}

static size_t operands_after_first(GiltOp *op, size_t *first)
{
  *first = 1;
  return gilt_op_get_num_operands(op) - 1;
}

static const GiltCallLikeMethods target_call = {target_of, set_target,
                                                operands_after_first};

static void check_function_like(GiltOp *decl, GiltOp *f)
{
  CHECK(gilt_op_is_function_like(decl) && gilt_op_is_function_like(f));
  CHECK(gilt_function_like_get_type(f) == gilt_func_get_type(f));
  CHECK(gilt_function_type_get_num_inputs(gilt_function_like_get_type(f)) ==
        2);
  CHECK(gilt_function_like_get_entry_block(f) == gilt_func_get_entry_block(f));
  CHECK(gilt_function_like_get_body(f) == gilt_op_get_region(f, 0));
  CHECK(!gilt_function_like_is_declaration(f));
  CHECK(gilt_function_like_is_declaration(decl));
  CHECK(gilt_function_like_get_entry_block(decl) == NULL);
  CHECK(gilt_region_get_num_blocks(gilt_function_like_get_body(decl)) == 0);

  /* Attributes per argument and result, where the text wrote some. */
  GiltAttr *arg = gilt_function_like_get_arg_attrs(decl, 0);
  CHECK(arg && gilt_dictionary_attr_lookup(arg, "test.a"));
  CHECK(gilt_function_like_get_arg_attrs(decl, 1) == NULL);
  GiltAttr *res = gilt_function_like_get_res_attrs(decl, 0);
  CHECK(res && gilt_dictionary_attr_lookup(res, "test.r"));
  CHECK(gilt_function_like_get_arg_attrs(f, 0) == NULL);

  /* Callable: the body of a definition, nothing for a declaration. */
  CHECK(gilt_callable_get_region(f) == gilt_function_like_get_body(f));
  CHECK(gilt_callable_get_region(decl) == NULL);
  CHECK(gilt_callable_get_type(decl) == gilt_func_get_type(decl));

  CHECK(gilt_function_like_verify(f) == GILT_SUCCESS);
  CHECK(gilt_function_like_verify(decl) == GILT_SUCCESS);

  /* The shared checks do not trust a row's signature to have checked the
  ** kind of `arg_attrs`: a function-like op of another dialect may not. */
  GiltContext *ctx = gilt_op_get_context(f);
  gilt_op_set_attr(f, "arg_attrs",
                   gilt_integer_attr_get(
                       gilt_integer_type_get(ctx, 32, GILT_SIGNLESS), 1));
  num_errors = 0;
  CHECK(gilt_function_like_verify(f) == GILT_FAILURE);
  CHECK(num_errors == 1 &&
        strstr(last_error, "expects argument attribute 'arg_attrs' to be an "
                           "array of dictionaries") != NULL);
  gilt_op_remove_attr(f, "arg_attrs");
}

static void check_call_like(GiltContext *ctx, GiltOp *call, GiltOp *decl,
                            GiltOp *f)
{
  GiltBlock *entry = gilt_func_get_entry_block(f);
  GiltAttr *callee = gilt_call_like_get_callee(call);
  CHECK(callee && strcmp(gilt_symbol_ref_attr_get_root(callee), "decl") == 0);
  CHECK(gilt_call_like_get_num_args(call) == 1);
  CHECK(gilt_call_like_get_arg(call, 0) == gilt_block_get_argument(entry, 0));
  CHECK(gilt_call_like_get_arg(call, 1) == NULL);
  CHECK(gilt_call_like_resolve_callee(call) == decl);
  CHECK(gilt_call_like_verify(call) == GILT_SUCCESS);

  /* Re-targeted at @f, it names a callable of another signature. */
  GiltAttr *to_f = gilt_symbol_ref_attr_get(ctx, "f", 0, NULL);
  CHECK(gilt_call_like_set_callee(call, to_f) == GILT_SUCCESS);
  CHECK(gilt_call_like_resolve_callee(call) == f);
  num_errors = 0;
  CHECK(gilt_call_like_verify(call) == GILT_FAILURE);
  CHECK(num_errors == 1 && strstr(last_error, "incorrect number of operands "
                                              "for callee"));
  CHECK(gilt_call_like_set_callee(call, callee) == GILT_SUCCESS);
  CHECK(gilt_call_like_set_callee(call, gilt_unit_attr_get(ctx)) ==
        GILT_FAILURE);
  CHECK(gilt_call_like_get_callee(call) == callee);
}

/* A return, a module: none of the three interfaces. */
static void check_implements_nothing(GiltContext *ctx, GiltOp *op)
{
  CHECK(!gilt_op_is_function_like(op));
  CHECK(gilt_function_like_get_type(op) == NULL);
  CHECK(gilt_function_like_get_body(op) == NULL);
  CHECK(gilt_callable_get_region(op) == NULL);
  CHECK(gilt_callable_get_type(op) == NULL);
  CHECK(gilt_call_like_get_callee(op) == NULL);
  CHECK(gilt_call_like_get_num_args(op) == 0);
  CHECK(gilt_call_like_get_arg(op, 0) == NULL);
  CHECK(gilt_call_like_resolve_callee(op) == NULL);
  CHECK(gilt_call_like_set_callee(op, gilt_symbol_ref_attr_get(
                                          ctx, "f", 0, NULL)) == GILT_FAILURE);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_test_register_all(ctx);
  gilt_context_set_diagnostic_handler(ctx, record, NULL);

  GiltOp *module = gilt_parse_source(ctx, source, strlen(source), "unit");
  CHECK(module && gilt_op_verify(module) == GILT_SUCCESS);
  if (!module)
    return 1;
  GiltOp *decl = gilt_symbol_table_lookup(module, "decl");
  GiltOp *f = gilt_symbol_table_lookup(module, "f");
  GiltOp *call = gilt_block_get_first_op(gilt_func_get_entry_block(f));
  GiltOp *side = gilt_op_get_next(call);
  GiltOp *ret = gilt_op_get_next(side);
  CHECK(decl && f && call && side && ret);

  CHECK(gilt_context_op_implements(ctx, "func.func",
                                   &gilt_function_like_interface));
  CHECK(gilt_context_op_implements(ctx, "func.func",
                                   &gilt_callable_interface));
  CHECK(gilt_context_op_implements(ctx, "func.call",
                                   &gilt_call_like_interface));
  CHECK(!gilt_context_op_implements(ctx, "func.call",
                                    &gilt_callable_interface));
  check_function_like(decl, f);
  check_call_like(ctx, call, decl, f);
  check_implements_nothing(ctx, ret);
  check_implements_nothing(ctx, module);
  check_implements_nothing(ctx, side);

  /* An external model makes test.side_effect a call of its own shape. */
  CHECK(gilt_context_attach_interface(ctx, "test.side_effect",
                                      &gilt_call_like_interface,
                                      &target_call) == GILT_SUCCESS);
  CHECK(gilt_call_like_get_num_args(side) == 1);
  CHECK(gilt_call_like_get_arg(side, 0) == gilt_op_get_result(call, 0));
  CHECK(gilt_call_like_resolve_callee(side) == decl);
  CHECK(gilt_call_like_verify(side) == GILT_SUCCESS);
  CHECK(gilt_call_like_set_callee(
            side, gilt_symbol_ref_attr_get(ctx, "f", 0, NULL)) ==
        GILT_SUCCESS);
  CHECK(gilt_call_like_resolve_callee(side) == f);
  num_errors = 0;
  CHECK(gilt_call_like_verify(side) == GILT_FAILURE);
  CHECK(num_errors == 1 &&
        strcmp(last_error, "'test.side_effect' op incorrect number of "
                           "operands for callee") == 0);

  gilt_op_destroy(module);
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
