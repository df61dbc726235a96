/*
** llvm.c - the llvm dialect's op table, its types (!llvm.ptr and
** !llvm.struct), its registration, and the verifiers of its ops.
**
** The verifiers check what translation relies on: pointers where LLVM
** wants pointers, a struct field that exists, a branch passing one value
** of the right type per argument of its successor, a return matching its
** function. LLVM's own verifier runs after translation too, but an error
** there would have no location; here it names the op. Not here: the
** custom textual forms (assembly.c) and translation (translate.c).
*/
#include "dialects/llvm/llvm.h"

#include <inttypes.h>
#include <string.h>

#include "dialects/loop/loop.h"
#include "ir/asm/function_asm.h"
#include "gilt/register.h"
#include "ir/asm/asm.h"
#include "ir/core.h"
#include "ir/symbol_table.h"

const GiltOpDef llvm_ops[LLVM_NUM_OPS] = {
#define GILT_OP GILT_OP_AS_ROW
#include "dialects/llvm/llvm.def"
#undef GILT_OP
};

/* ---- !llvm.ptr ------------------------------------------------------------ */

static GiltAttr *i64_attr(GiltContext *ctx, int64_t v)
{
  return gilt_integer_attr_get(gilt_integer_type_get(ctx, 64, GILT_SIGNLESS),
                               v);
}

static GiltStatus parse_ptr(GiltAsmParser *p, GiltParamVec *params)
{
  int64_t space = 0;
  if (gilt_asm_parse_optional_punct(p, "<") &&
      (gilt_asm_parse_integer(p, &space) || gilt_asm_parse_punct(p, ">")))
    return GILT_FAILURE;
  gilt_param_vec_append(params,
                        i64_attr(gilt_asm_parser_get_context(p), space));
  return GILT_SUCCESS;
}

static void print_ptr(GiltAsmPrinter *p, size_t n, GiltAttr *const *params)
{
  (void)n;
  int64_t space = gilt_integer_attr_get_value(params[0]);
  if (space)
    gilt_asm_print(p, "<%" PRId64 ">", space);
}

static GiltStatus verify_ptr(GiltLocation *loc, size_t n,
                             GiltAttr *const *params)
{
  if (n != 1 || gilt_attr_get_kind(params[0]) != GILT_ATTR_INTEGER ||
      gilt_integer_attr_get_value(params[0]) < 0 ||
      gilt_integer_attr_get_value(params[0]) > 16777215) {
    gilt_emit_error(loc, "'llvm.ptr' takes one parameter, an address space "
                         "in [0, 16777215]");
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

/* ---- !llvm.struct ------------------------------------------------------------ */

static GiltStatus parse_struct(GiltAsmParser *p, GiltParamVec *params)
{
  if (gilt_asm_parse_punct(p, "<"))
    return GILT_FAILURE;
  if (gilt_asm_parse_optional_punct(p, ">"))
    return GILT_SUCCESS;
  do {
    GiltType *t;
    if (gilt_asm_parse_type(p, &t))
      return GILT_FAILURE;
    gilt_param_vec_append(params, gilt_type_attr_get(t));
  } while (gilt_asm_parse_optional_punct(p, ","));
  return gilt_asm_parse_punct(p, ">");
}

static void print_struct(GiltAsmPrinter *p, size_t n, GiltAttr *const *params)
{
  gilt_asm_print(p, "<");
  for (size_t i = 0; i < n; i++) {
    if (i)
      gilt_asm_print(p, ", ");
    gilt_asm_print_type(p, gilt_type_attr_get_value(params[i]));
  }
  gilt_asm_print(p, ">");
}

/* A field is anything LLVM can hold in a register or memory. */
static bool is_first_class(GiltType *t)
{
  switch (t->kind) {
  case GILT_TYPE_INTEGER:
  case GILT_TYPE_FLOAT:
    return true;
  case GILT_TYPE_VECTOR:
    return t->shaped.rank == 1;
  case GILT_TYPE_DIALECT:
    return llvm_is_ptr(t) || llvm_is_struct(t);
  default:
    return false;
  }
}

static GiltStatus verify_struct(GiltLocation *loc, size_t n,
                                GiltAttr *const *params)
{
  for (size_t i = 0; i < n; i++)
    if (gilt_attr_get_kind(params[i]) != GILT_ATTR_TYPE ||
        !is_first_class(gilt_type_attr_get_value(params[i]))) {
      gilt_emit_error(loc, "field %zu of 'llvm.struct' is not an integer, "
                           "float, vector, pointer or struct type",
                      i);
      return GILT_FAILURE;
    }
  return GILT_SUCCESS;
}

static const GiltTypeDef llvm_types[] = {
    {.mnemonic = "ptr", .parse = parse_ptr, .print = print_ptr,
     .verify = verify_ptr},
    {.mnemonic = "struct", .parse = parse_struct, .print = print_struct,
     .verify = verify_struct},
};

GiltType *llvm_ptr_type(GiltContext *ctx, unsigned space)
{
  GiltAttr *param = i64_attr(ctx, space);
  return gilt_dialect_type_get(ctx, "llvm", "ptr", 1, &param, NULL);
}

GiltType *llvm_struct_type(GiltContext *ctx, size_t n, GiltType *const *fields)
{
  GiltAttr *params[n + 1];
  for (size_t i = 0; i < n; i++)
    params[i] = gilt_type_attr_get(fields[i]);
  return gilt_dialect_type_get(ctx, "llvm", "struct", n, params, NULL);
}

bool llvm_is_ptr(GiltType *t)
{
  return gilt_type_is_dialect_type(t, "llvm", "ptr");
}

unsigned llvm_ptr_address_space(GiltType *t)
{
  return (unsigned)gilt_integer_attr_get_value(gilt_dialect_type_get_param(t, 0));
}

bool llvm_is_struct(GiltType *t)
{
  return gilt_type_is_dialect_type(t, "llvm", "struct");
}

size_t llvm_struct_num_fields(GiltType *t)
{
  return gilt_dialect_type_get_num_params(t);
}

GiltType *llvm_struct_field(GiltType *t, size_t i)
{
  return gilt_type_attr_get_value(gilt_dialect_type_get_param(t, i));
}

/* ---- the dialect ---------------------------------------------------------------- */

const GiltDialectDef gilt_llvm_dialect = {
    .name = "llvm",
    GILT_DIALECT_OPS(llvm_ops),
    .types = llvm_types,
    .num_types = sizeof llvm_types / sizeof *llvm_types,
};

void gilt_register_llvm_dialect(GiltContext *ctx)
{
  gilt_context_register_dialect(ctx, &gilt_llvm_dialect);
}

/* ---- verifiers --------------------------------------------------------------------- */

static GiltType *operand_type(GiltOp *op, size_t i)
{
  return gilt_value_get_type(gilt_op_get_operand(op, i));
}

static GiltType *result_type(GiltOp *op, size_t i)
{
  return gilt_value_get_type(gilt_op_get_result(op, i));
}

GiltStatus llvm_verify_constant(GiltOp *op)
{
  if (gilt_attr_get_type(gilt_op_get_attr(op, "value")) != result_type(op, 0))
    return gilt_op_emit_error(op, "'value' must have the result type");
  return GILT_SUCCESS;
}

GiltStatus llvm_verify_compare(GiltOp *op)
{
  GiltType *t = operand_type(op, 0);
  if (operand_type(op, 1) != t)
    return gilt_op_emit_error(op, "compares two values of one type");
  if (result_type(op, 0) != loop_bool_like(t))
    return gilt_op_emit_error(op, "result must be i1, or a vector of i1 as "
                                  "wide as the operands");
  return GILT_SUCCESS;
}

GiltStatus llvm_verify_select(GiltOp *op)
{
  GiltType *t = result_type(op, 0);
  if (operand_type(op, 1) != t || operand_type(op, 2) != t)
    return gilt_op_emit_error(op, "both values must have the result type");
  return GILT_SUCCESS;
}

/* An atomic access's ordering: LLVM's names, those the access allows. */
static GiltStatus verify_ordering(GiltOp *op)
{
  GiltAttr *a = gilt_op_get_attr(op, "ordering");
  if (!a)
    return GILT_SUCCESS;
  const char *o = gilt_string_attr_get_value(a, NULL);
  bool store = llvm_op_is(op, LLVM_OP_STORE);
  if (strcmp(o, "unordered") && strcmp(o, "monotonic") &&
      strcmp(o, "seq_cst") && strcmp(o, store ? "release" : "acquire"))
    return gilt_op_emit_error(op, "ordering '%s' is none of unordered, "
                                  "monotonic, %s, seq_cst",
                              o, store ? "release" : "acquire");
  return GILT_SUCCESS;
}

GiltStatus llvm_verify_pointer_operand(GiltOp *op)
{
  size_t i = llvm_op_is(op, LLVM_OP_STORE) ? 1 : 0;
  if (!llvm_is_ptr(operand_type(op, i)))
    return gilt_op_emit_error(op, "operand %zu must be an !llvm.ptr", i);
  if (!llvm_op_is(op, LLVM_OP_GEP))
    return verify_ordering(op);
  if (llvm_op_is(op, LLVM_OP_GEP)) {
    if (!llvm_is_ptr(result_type(op, 0)))
      return gilt_op_emit_error(op, "result must be an !llvm.ptr");
    for (size_t k = 1; k < gilt_op_get_num_operands(op); k++)
      if (operand_type(op, k)->kind != GILT_TYPE_INTEGER)
        return gilt_op_emit_error(op, "indices must be integers");
  }
  return GILT_SUCCESS;
}

GiltStatus llvm_verify_global(GiltOp *op)
{
  GiltAttr *value = gilt_op_get_attr(op, "value");
  if (value && value->kind != GILT_ATTR_DENSE_ELEMENTS &&
      value->kind != GILT_ATTR_DENSE_RESOURCE)
    return gilt_op_emit_error(op, "'value' must be dense elements");
  return GILT_SUCCESS;
}

GiltStatus llvm_verify_addressof(GiltOp *op)
{
  if (!llvm_is_ptr(result_type(op, 0)))
    return gilt_op_emit_error(op, "result must be an !llvm.ptr");
  /* The nearest table: a module's, or a GPU module's for a kernel. */
  GiltAttr *ref = gilt_op_get_attr(op, "global_name");
  const char *name = gilt_symbol_ref_attr_get_root(ref);
  GiltOp *target = gilt_symbol_lookup_nearest(op, ref);
  if (!target || (!llvm_op_is(target, LLVM_OP_GLOBAL) &&
                  !llvm_op_is(target, LLVM_OP_FUNC)))
    return gilt_op_emit_error(op, "'%s' is no llvm.global or llvm.func",
                              name);
  return GILT_SUCCESS;
}

GiltStatus llvm_verify_aggregate(GiltOp *op)
{
  GiltType *agg = operand_type(op, 0);
  int64_t pos = gilt_integer_attr_get_value(gilt_op_get_attr(op, "position"));
  if (!llvm_is_struct(agg))
    return gilt_op_emit_error(op, "operand 0 must be an !llvm.struct");
  if (pos < 0 || (size_t)pos >= llvm_struct_num_fields(agg))
    return gilt_op_emit_error(op, "position %" PRId64 " is not a field of "
                                  "the struct",
                              pos);
  GiltType *field = llvm_struct_field(agg, (size_t)pos);
  bool insert = llvm_op_is(op, LLVM_OP_INSERTVALUE);
  if (insert ? operand_type(op, 1) != field || result_type(op, 0) != agg
             : result_type(op, 0) != field)
    return gilt_op_emit_error(op, "the value must have the field's type");
  return GILT_SUCCESS;
}

GiltStatus llvm_verify_call_intrinsic(GiltOp *op)
{
  const char *name =
      gilt_string_attr_get_value(gilt_op_get_attr(op, "intrinsic"), NULL);
  if (strncmp(name, "llvm.", 5) != 0)
    return gilt_op_emit_error(op, "'%s' is not an LLVM intrinsic", name);
  if (gilt_op_get_num_results(op) > 1)
    return gilt_op_emit_error(op, "returns at most one value");
  return GILT_SUCCESS;
}

GiltStatus llvm_verify_return(GiltOp *op)
{
  GiltOp *fn = gilt_op_get_parent_op(op);
  if (!llvm_op_is(fn, LLVM_OP_FUNC))
    return gilt_op_emit_error(op, "must be in an llvm.func");
  GiltType *type = gilt_func_get_type(fn);
  size_t n = gilt_function_type_get_num_results(type);
  if (gilt_op_get_num_operands(op) != n)
    return gilt_op_emit_error(op, "returns %zu values, the function %zu",
                              gilt_op_get_num_operands(op), n);
  for (size_t i = 0; i < n; i++)
    if (operand_type(op, i) != gilt_function_type_get_result(type, i))
      return gilt_op_emit_error(op, "value %zu has the wrong type", i);
  return GILT_SUCCESS;
}

/* The operands passed to successor s: a br's all, a cond_br's group. */
static size_t branch_args(GiltOp *op, size_t s, size_t *count)
{
  if (llvm_op_is(op, LLVM_OP_BR)) {
    *count = gilt_op_get_num_operands(op);
    return 0;
  }
  return gilt_op_get_operand_group(op, 1 + s, count);
}

GiltStatus llvm_verify_branch(GiltOp *op)
{
  if (llvm_op_is(op, LLVM_OP_COND_BR) &&
      !gilt_type_is_integer(operand_type(op, 0), 1))
    return gilt_op_emit_error(op, "condition must be i1");
  for (size_t s = 0; s < gilt_op_get_num_successors(op); s++) {
    GiltBlock *dest = gilt_op_get_successor(op, s);
    size_t n, first = branch_args(op, s, &n);
    if (gilt_block_get_num_arguments(dest) != n)
      return gilt_op_emit_error(op, "passes %zu values to successor %zu, "
                                    "which takes %zu",
                                n, s, gilt_block_get_num_arguments(dest));
    for (size_t i = 0; i < n; i++)
      if (operand_type(op, first + i) !=
          gilt_value_get_type(gilt_block_get_argument(dest, i)))
        return gilt_op_emit_error(op, "value %zu for successor %zu has the "
                                      "wrong type",
                                  i, s);
  }
  return GILT_SUCCESS;
}
