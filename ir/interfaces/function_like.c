/*
** function_like.c - the function-like interface (gilt/interfaces.h): ops
** that are functions, MLIR's FunctionOpInterface, and the checks every
** such op shares.
**
** A function-like op keeps its signature where func.func does: the type in
** `function_type`, per-argument and per-result dictionaries in
** `arg_attrs`/`res_attrs`, the body in region 0. So the accessors read
** that storage for any op that declares the interface, and the verifier's
** messages (MLIR's, from function_interface_impl and SymbolOpInterface)
** are written once, for func.func today and llvm.func or gpu.func later.
** A function-like op is callable through the same storage
** (gilt_function_like_callable_methods).
**
** Not here: the textual signature (ir/asm/function_asm.c), symbol rules
** common to all symbols (the verifier), and what a body may contain (each
** op's own terminator checks call gilt_function_like_verify_return).
*/
#include "gilt/interfaces.h"

#include "ir/interfaces/type_pair.h"
#include "ir/symbol_table.h"

const GiltInterface gilt_function_like_interface = {"function-like"};

/* ---- the storage every function-like op shares ------------------------- */

static GiltType *type_from_attr(GiltOp *op)
{
  GiltAttr *a = gilt_op_get_attr(op, "function_type");
  if (!a || a->kind != GILT_ATTR_TYPE || a->type->kind != GILT_TYPE_FUNCTION)
    return NULL;
  return a->type;
}

static GiltRegion *body_region(GiltOp *op)
{
  return op->num_regions ? &gilt_op_region_array(op)[0] : NULL;
}

const GiltFunctionLikeMethods gilt_function_like_methods = {type_from_attr};

static GiltRegion *callable_region(GiltOp *op)
{
  GiltRegion *body = body_region(op);
  return body && body->first ? body : NULL;
}

const GiltCallableMethods gilt_function_like_callable_methods = {
    callable_region, gilt_function_like_get_type};

/* ---- accessors ----------------------------------------------------------- */

static const GiltFunctionLikeMethods *methods_of(GiltOp *op)
{
  return op ? gilt_op_get_interface(op, &gilt_function_like_interface)
            : NULL;
}

bool gilt_op_is_function_like(GiltOp *op)
{
  return methods_of(op) != NULL;
}

GiltType *gilt_function_like_get_type(GiltOp *func)
{
  const GiltFunctionLikeMethods *m = methods_of(func);
  return m ? m->get_type(func) : NULL;
}

GiltRegion *gilt_function_like_get_body(GiltOp *func)
{
  return methods_of(func) ? body_region(func) : NULL;
}

GiltBlock *gilt_function_like_get_entry_block(GiltOp *func)
{
  GiltRegion *body = gilt_function_like_get_body(func);
  return body ? body->first : NULL;
}

bool gilt_function_like_is_declaration(GiltOp *func)
{
  return gilt_function_like_get_entry_block(func) == NULL;
}

/* The i-th dictionary of the `arg_attrs`/`res_attrs` array `name`. */
static GiltAttr *attrs_at(GiltOp *func, const char *name, size_t i)
{
  GiltAttr *array = methods_of(func) ? gilt_op_get_attr(func, name) : NULL;
  if (!array || array->kind != GILT_ATTR_ARRAY || i >= array->array.n ||
      array->array.elems[i]->kind != GILT_ATTR_DICTIONARY)
    return NULL;
  return array->array.elems[i];
}

GiltAttr *gilt_function_like_get_arg_attrs(GiltOp *func, size_t i)
{
  return attrs_at(func, "arg_attrs", i);
}

GiltAttr *gilt_function_like_get_res_attrs(GiltOp *func, size_t i)
{
  return attrs_at(func, "res_attrs", i);
}

/* ---- verification ---------------------------------------------------------- */

/* MLIR's function_interface checks of `arg_attrs`/`res_attrs`. */
static GiltStatus verify_attr_array(GiltOp *op, const char *name,
                                    const char *what, size_t expected)
{
  GiltAttr *a = gilt_op_get_attr(op, name);
  if (!a)
    return GILT_SUCCESS;
  /* gilt's own rows declare the kind in their signature; a row that does
  ** not still gets the check here, before the array is read. */
  if (a->kind != GILT_ATTR_ARRAY)
    return gilt_op_emit_error(op, "expects %s attribute '%s' to be an array "
                                  "of dictionaries",
                              what, name);
  if (a->array.n != expected)
    return gilt_op_emit_error(
        op,
        "expects %s attribute array to have the same number of elements "
        "as the number of function %ss, got %zu, but expected %zu",
        what, what, a->array.n, expected);
  for (size_t i = 0; i < a->array.n; i++)
    if (a->array.elems[i]->kind != GILT_ATTR_DICTIONARY)
      return gilt_op_emit_error(op,
                                "expects %s attribute dictionary to be a "
                                "DictionaryAttr",
                                what);
  return GILT_SUCCESS;
}

static GiltStatus verify_entry_block(GiltOp *op, GiltBlock *entry,
                                     GiltType *fnty)
{
  size_t n = fnty->func.num_inputs;
  if (entry->num_args != n)
    return gilt_op_emit_error(op,
                              "entry block must have %zu arguments to match "
                              "function signature",
                              n);
  for (size_t i = 0; i < n; i++) {
    GiltType *want = fnty->func.types[i], *got = entry->args[i]->type;
    if (got == want)
      continue;
    GiltTypePair tp;
    gilt_type_pair_init(&tp, op->loc->ctx, got, want);
    gilt_op_emit_error(op,
                       "type of entry block argument #%zu('%s') must match "
                       "the type of the corresponding argument in function "
                       "signature('%s')",
                       i, tp.first.data, tp.second.data);
    gilt_type_pair_free(&tp);
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

GiltStatus gilt_function_like_verify(GiltOp *func)
{
  GiltType *fnty = gilt_function_like_get_type(func);
  if (!fnty)
    return gilt_op_emit_error(func, "attribute 'function_type' failed to "
                                    "satisfy constraint: type attribute of "
                                    "function type");
  if (verify_attr_array(func, "arg_attrs", "argument",
                        fnty->func.num_inputs) ||
      verify_attr_array(func, "res_attrs", "result", fnty->func.num_results))
    return GILT_FAILURE;
  GiltBlock *entry = gilt_function_like_get_entry_block(func);
  if (entry)
    return verify_entry_block(func, entry, fnty);
  if (gilt_symbol_get_visibility(func) == GILT_VISIBILITY_PUBLIC)
    return gilt_op_emit_error(func, "symbol declaration cannot have public "
                                    "visibility");
  return GILT_SUCCESS;
}

GiltStatus gilt_function_like_verify_return(GiltOp *func, GiltOp *ret)
{
  GiltType *fnty = gilt_function_like_get_type(func);
  if (!fnty) /* reported by the function's own verifier */
    return GILT_SUCCESS;
  const char *name = gilt_symbol_get_name(func);
  if (!name)
    name = "";
  size_t n = fnty->func.num_results;
  if (ret->num_operands != n)
    return gilt_op_emit_error(ret,
                              "has %u operands, but enclosing function (@%s) "
                              "returns %zu",
                              ret->num_operands, name, n);
  for (size_t i = 0; i < n; i++) {
    GiltType *want = fnty->func.types[fnty->func.num_inputs + i];
    GiltType *got = ret->operands[i].value->type;
    if (got == want)
      continue;
    GiltTypePair tp;
    gilt_type_pair_init(&tp, ret->loc->ctx, got, want);
    gilt_emit_error(ret->loc,
                    "type of return operand %zu ('%s') doesn't match "
                    "function result type ('%s') in function @%s",
                    i, tp.first.data, tp.second.data, name);
    gilt_type_pair_free(&tp);
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}
