/*
** verify_api.c - unit test of gilt_op_verify through the public API only.
**
** Builds small modules with the builder and checks that a valid one
** verifies without a word, and that each malformed one fails with MLIR's
** message (and note) at the right op: a use before its definition, a use
** in a block its definition does not dominate, an empty body, a body that
** ends without a terminator, and a branch into another region (which only
** the API can build: the parser scopes block names per region). Every
** diagnostic is collected through gilt_context_set_diagnostic_handler.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/ir.h"
#include "gilt/register.h"


/* The errors the handler saw since the last reset, each with its first
** note and where both were reported. */
#define MAX_SEEN 8
typedef struct Seen {
  size_t errors;
  struct {
    char message[256], note[256];
    GiltLocation *loc, *note_loc;
  } e[MAX_SEEN];
} Seen;

static void collect(const GiltDiagnostic *d, void *user)
{
  Seen *seen = user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  if (seen->errors >= MAX_SEEN) {
    seen->errors++;
    return;
  }
  size_t i = seen->errors++;
  snprintf(seen->e[i].message, sizeof seen->e[i].message, "%s",
           gilt_diagnostic_get_message(d));
  seen->e[i].loc = gilt_diagnostic_get_location(d);
  if (gilt_diagnostic_get_num_notes(d) > 0) {
    const GiltDiagnostic *note = gilt_diagnostic_get_note(d, 0);
    snprintf(seen->e[i].note, sizeof seen->e[i].note, "%s",
             gilt_diagnostic_get_message(note));
    seen->e[i].note_loc = gilt_diagnostic_get_location(note);
  }
}

/* The index of the first error with this message, or -1. */
static int find_error(const Seen *seen, const char *message)
{
  for (size_t i = 0; i < seen->errors && i < MAX_SEEN; i++)
    if (strcmp(seen->e[i].message, message) == 0)
      return (int)i;
  return -1;
}

static GiltLocation *line(GiltContext *ctx, unsigned n)
{
  return gilt_location_file_line_col_get(ctx, "verify_api", n, 1);
}

/* An unregistered op with the given operands, results and successors. */
static GiltOp *test_op(GiltBuilder *b, const char *name, unsigned loc_line,
                       size_t num_operands, GiltValue **operands,
                       GiltType *result, GiltBlock *successor)
{
  GiltContext *ctx = gilt_builder_get_context(b);
  GiltOpState st = gilt_op_state_get(name, line(ctx, loc_line));
  st.num_operands = num_operands;
  st.operands = operands;
  st.num_results = result ? 1 : 0;
  st.result_types = &result;
  st.num_successors = successor ? 1 : 0;
  st.successors = &successor;
  return gilt_builder_create_op(b, &st);
}

static GiltOp *create_return(GiltBuilder *b, size_t n, GiltValue **values)
{
  GiltContext *ctx = gilt_builder_get_context(b);
  GiltOpState st = gilt_op_state_get("func.return", line(ctx, 99));
  st.num_operands = n;
  st.operands = values;
  return gilt_builder_create_op(b, &st);
}

/* A module holding `func.func @name(i32) -> (i32 if returns)`. */
static GiltOp *module_with_func(GiltContext *ctx, const char *name,
                                bool returns, GiltOp **func)
{
  GiltLocation *loc = gilt_location_unknown_get(ctx);
  GiltType *i32 = gilt_integer_type_get(ctx, 32, GILT_SIGNLESS);
  GiltOp *module = gilt_module_create(ctx, loc);
  GiltType *fnty = gilt_function_type_get(ctx, 1, &i32, returns ? 1 : 0, &i32);
  *func = gilt_func_create(ctx, line(ctx, 1), name, fnty);
  gilt_block_append_op(gilt_module_get_body(module), *func);
  return module;
}

static void test_valid(GiltContext *ctx, GiltBuilder *b, Seen *seen)
{
  GiltOp *fn;
  GiltOp *module = module_with_func(ctx, "id", true, &fn);
  GiltBlock *entry = gilt_func_get_entry_block(fn);
  gilt_builder_set_insertion_point_to_end(b, entry);
  GiltValue *arg = gilt_block_get_argument(entry, 0);
  GiltOp *twice =
      test_op(b, "unreg.twice", 2, 1, &arg, gilt_value_get_type(arg), NULL);
  GiltValue *result = gilt_op_get_result(twice, 0);
  CHECK(create_return(b, 1, &result) != NULL);
  memset(seen, 0, sizeof *seen);
  CHECK(gilt_op_verify(module) == GILT_SUCCESS);
  CHECK(seen->errors == 0);
  /* Verifying the function alone judges it inside its module. */
  CHECK(gilt_op_verify(fn) == GILT_SUCCESS);
  gilt_op_destroy(module);
}

static void test_use_before_def(GiltContext *ctx, GiltBuilder *b, Seen *seen)
{
  GiltOp *fn;
  GiltOp *module = module_with_func(ctx, "f", true, &fn);
  GiltBlock *entry = gilt_func_get_entry_block(fn);
  gilt_builder_set_insertion_point_to_end(b, entry);
  GiltType *i32 = gilt_integer_type_get(ctx, 32, GILT_SIGNLESS);
  GiltOp *def = test_op(b, "unreg.def", 3, 0, NULL, i32, NULL);
  GiltValue *v = gilt_op_get_result(def, 0);
  CHECK(create_return(b, 1, &v) != NULL);
  gilt_builder_set_insertion_point_before(b, def);
  GiltOp *use = test_op(b, "unreg.use", 2, 1, &v, NULL, NULL);
  CHECK(gilt_op_get_next(use) == def);

  memset(seen, 0, sizeof *seen);
  CHECK(gilt_op_verify(module) == GILT_FAILURE);
  CHECK(seen->errors == 1);
  CHECK(strcmp(seen->e[0].message, "operand #0 does not dominate this use") ==
        0);
  CHECK(seen->e[0].loc == line(ctx, 2));
  CHECK(strcmp(seen->e[0].note,
               "operand defined here (op in the same block)") == 0);
  CHECK(seen->e[0].note_loc == line(ctx, 3));

  /* Moving the use after the definition repairs it. */
  gilt_op_move_after(use, def);
  memset(seen, 0, sizeof *seen);
  CHECK(gilt_op_verify(module) == GILT_SUCCESS);
  CHECK(seen->errors == 0);
  gilt_op_destroy(module);
}

/* entry: "unreg.br"[^then] ; ^then: %v = def ; "unreg.br"[^join] ;
** ^join: use(%v) ; return %v. Valid, until the entry branches with
** "unreg.cond_br"[^then, ^join]: then ^then no longer dominates ^join. */
static void test_cross_block(GiltContext *ctx, GiltBuilder *b, Seen *seen)
{
  GiltOp *fn;
  GiltOp *module = module_with_func(ctx, "g", true, &fn);
  GiltBlock *entry = gilt_func_get_entry_block(fn);
  GiltRegion *body = gilt_block_get_parent(entry);
  GiltBlock *then = gilt_block_create(ctx, 0, NULL, NULL);
  GiltBlock *join = gilt_block_create(ctx, 0, NULL, NULL);
  gilt_region_append_block(body, then);
  gilt_region_append_block(body, join);
  GiltType *i32 = gilt_integer_type_get(ctx, 32, GILT_SIGNLESS);

  gilt_builder_set_insertion_point_to_end(b, then);
  GiltValue *v =
      gilt_op_get_result(test_op(b, "unreg.def", 5, 0, NULL, i32, NULL), 0);
  test_op(b, "unreg.br", 6, 0, NULL, NULL, join);
  gilt_builder_set_insertion_point_to_end(b, join);
  test_op(b, "unreg.use", 8, 1, &v, NULL, NULL);
  create_return(b, 1, &v);
  gilt_builder_set_insertion_point_to_end(b, entry);
  GiltOp *br = test_op(b, "unreg.br", 4, 0, NULL, NULL, then);

  memset(seen, 0, sizeof *seen);
  CHECK(gilt_op_verify(module) == GILT_SUCCESS);

  /* Now the entry goes to ^join directly: both uses lose dominance. */
  GiltOpState st = gilt_op_state_get("unreg.cond_br", line(ctx, 4));
  GiltBlock *succs[2] = {then, join};
  st.num_successors = 2;
  st.successors = succs;
  gilt_builder_set_insertion_point_after(b, br);
  gilt_builder_create_op(b, &st);
  gilt_op_destroy(br);
  memset(seen, 0, sizeof *seen);
  CHECK(gilt_op_verify(module) == GILT_FAILURE);
  CHECK(seen->errors == 2);
  CHECK(strcmp(seen->e[0].message, "operand #0 does not dominate this use") ==
        0);
  CHECK(seen->e[0].loc == line(ctx, 8));
  CHECK(strcmp(seen->e[0].note,
               "operand defined here (op in the same region)") == 0);
  gilt_op_destroy(module);
}

static void test_missing_terminator(GiltContext *ctx, GiltBuilder *b,
                                    Seen *seen)
{
  GiltOp *fn;
  GiltOp *module = module_with_func(ctx, "h", false, &fn);
  memset(seen, 0, sizeof *seen);
  CHECK(gilt_op_verify(module) == GILT_FAILURE);
  CHECK(seen->errors == 1);
  CHECK(strcmp(seen->e[0].message,
               "empty block: expect at least a terminator") == 0);
  CHECK(seen->e[0].loc == line(ctx, 1));

  /* A registered op that is no terminator cannot end the body. */
  GiltOpState st = gilt_op_state_get("func.call", line(ctx, 2));
  GiltAttr *callee = gilt_symbol_ref_attr_get(ctx, "h", 0, NULL);
  GiltNamedAttr attr = {"callee", callee};
  GiltValue *arg = gilt_block_get_argument(gilt_func_get_entry_block(fn), 0);
  st.num_operands = 1;
  st.operands = &arg;
  st.num_attrs = 1;
  st.attrs = &attr;
  gilt_builder_set_insertion_point_to_end(b, gilt_func_get_entry_block(fn));
  CHECK(gilt_builder_create_op(b, &st) != NULL);
  memset(seen, 0, sizeof *seen);
  CHECK(gilt_op_verify(module) == GILT_FAILURE);
  CHECK(seen->errors == 1);
  CHECK(strcmp(seen->e[0].message,
               "block with no terminator, has 'func.call' operation") == 0);
  CHECK(seen->e[0].loc == line(ctx, 2));

  create_return(b, 0, NULL);
  memset(seen, 0, sizeof *seen);
  CHECK(gilt_op_verify(module) == GILT_SUCCESS);
  CHECK(seen->errors == 0);
  gilt_op_destroy(module);
}

/* "unreg.region"() ({ "unreg.br"()[^outer] }) where ^outer is a block of
** the function body: a successor in another region. */
static void test_successor_region(GiltContext *ctx, GiltBuilder *b, Seen *seen)
{
  GiltOp *fn;
  GiltOp *module = module_with_func(ctx, "k", false, &fn);
  GiltBlock *entry = gilt_func_get_entry_block(fn);
  GiltOpState st = gilt_op_state_get("unreg.region", line(ctx, 2));
  st.num_regions = 1;
  gilt_builder_set_insertion_point_to_end(b, entry);
  GiltOp *holder = gilt_builder_create_op(b, &st);
  create_return(b, 0, NULL);
  GiltBlock *inner = gilt_block_create(ctx, 0, NULL, NULL);
  gilt_region_append_block(gilt_op_get_region(holder, 0), inner);
  gilt_builder_set_insertion_point_to_end(b, inner);
  test_op(b, "unreg.br", 3, 0, NULL, NULL, entry);

  memset(seen, 0, sizeof *seen);
  CHECK(gilt_op_verify(module) == GILT_FAILURE);
  /* The function's entry block also got a predecessor. */
  CHECK(seen->errors == 2);
  int i = find_error(seen, "entry block of region may not have predecessors");
  CHECK(i >= 0 && seen->e[i].loc == line(ctx, 1));
  i = find_error(seen, "'unreg.br' op reference to block defined in another "
                       "region");
  CHECK(i >= 0 && seen->e[i].loc == line(ctx, 3));
  gilt_op_destroy(module);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_allow_unregistered_dialects(ctx, true);
  Seen seen;
  memset(&seen, 0, sizeof seen);
  gilt_context_set_diagnostic_handler(ctx, collect, &seen);
  GiltBuilder *b = gilt_builder_create(ctx);

  test_valid(ctx, b, &seen);
  test_use_before_def(ctx, b, &seen);
  test_cross_block(ctx, b, &seen);
  test_missing_terminator(ctx, b, &seen);
  test_successor_region(ctx, b, &seen);

  gilt_builder_destroy(b);
  gilt_context_destroy(ctx);
  if (check_failures)
    fprintf(stderr, "verify_api: %d check(s) failed\n", check_failures);
  return check_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
