/*
** func.c - the func dialect: func.func, func.return and func.call.
**
** The ops, textual forms and diagnostics are MLIR's:
**
**   func.func private @decl(i32) -> i32
**   func.func @f(%arg0: tensor<4xf32>, %arg1: i32) -> (tensor<4xf32>, i32)
**       attributes {inline} {
**     %0 = call @g(%arg1) : (i32) -> i32
**     return %arg0, %0 : tensor<4xf32>, i32
**   }
**
** Inside a func.func, `func.` is the default dialect, so the printer drops
** it (`return`, `call`) and the parser accepts both spellings. Argument and
** result attributes live in `arg_attrs`/`res_attrs` arrays of dictionaries
** and print inline in the signature. The checks here are the op-specific
** ones; the verifier has already checked each op's signature (operand
** counts, attribute kinds) and the symbol rules (names, visibility values).
**
** Not here: calls through values (there is no call_indirect), variadic
** functions, and the inliner (transforms/inline.c).
*/
#include "dialects/func/func.h"

#include <string.h>

#include "gilt/register.h"
#include "ir/asm/asm.h"
#include "ir/symbol_table.h"

/* ---- shared helpers --------------------------------------------------------- */

/* The function type of a func.func, NULL when malformed. */
static GiltType *func_type(GiltOp *func)
{
  GiltAttr *a = gilt_op_get_attr(func, "function_type");
  if (!a || a->kind != GILT_ATTR_TYPE || a->type->kind != GILT_TYPE_FUNCTION)
    return NULL;
  return a->type;
}

/* The printed forms of two types, for a diagnostic that names both. */
typedef struct TypePair {
  GiltStrBuf first, second;
} TypePair;

static void type_pair_init(TypePair *tp, GiltContext *ctx, GiltType *first,
                           GiltType *second)
{
  gilt_strbuf_init(&tp->first, ctx);
  gilt_strbuf_init(&tp->second, ctx);
  gilt_type_print(first, gilt_strbuf_callback, &tp->first);
  gilt_type_print(second, gilt_strbuf_callback, &tp->second);
}

static void type_pair_free(TypePair *tp)
{
  gilt_strbuf_free(&tp->first);
  gilt_strbuf_free(&tp->second);
}

/* The symbol name of a func.func for messages, "" when it has none. */
static const char *func_name(GiltOp *func)
{
  const char *name = gilt_symbol_get_name(func);
  return name ? name : "";
}

/* The i-th dictionary of an `arg_attrs`/`res_attrs` array, or NULL. */
static GiltAttr *attrs_at(GiltAttr *array, size_t i)
{
  if (!array || array->kind != GILT_ATTR_ARRAY || i >= array->array.n)
    return NULL;
  return array->array.elems[i];
}

typedef GILT_VEC(GiltUnresolvedOperand) OperandVec;
typedef GILT_VEC(GiltType *) TypeVec;

/* Resolves the operands against their types, in order (MLIR's
** resolveOperands), into the build. */
static GiltStatus resolve_operands(GiltAsmParser *p, GiltOpBuild *b,
                                   const GiltUnresolvedOperand *ops,
                                   size_t n, GiltType *const *types,
                                   size_t num_types)
{
  if (n != num_types)
    return gilt_asm_emit_error(p, "%zu operands present, but expected %zu",
                               n, num_types);
  for (size_t i = 0; i < n; i++) {
    GiltValue *v;
    if (gilt_asm_resolve_operand(p, &ops[i], types[i], &v))
      return GILT_FAILURE;
    gilt_vec_push(b->ctx, &b->operands, v);
  }
  return GILT_SUCCESS;
}

/* ---- func.func: printing ------------------------------------------------------ */

/* ` {a = 1}` for a non-empty dictionary (argument or result attributes). */
static void print_optional_dict(GiltAsmPrinter *p, GiltAttr *dict)
{
  if (!dict || dict->kind != GILT_ATTR_DICTIONARY || !dict->dict.n)
    return;
  gilt_asm_print(p, " ");
  gilt_asm_print_attr(p, dict);
}

/* `(%arg0: i32 {attrs} loc(...), ...)`, or bare types for a declaration. */
static void print_arguments(GiltOp *op, GiltAsmPrinter *p, GiltType *fnty)
{
  GiltBlock *entry = gilt_op_region_array(op)[0].first;
  GiltAttr *arg_attrs = gilt_op_get_attr(op, "arg_attrs");
  gilt_asm_print(p, "(");
  for (size_t i = 0; i < fnty->func.num_inputs; i++) {
    if (i)
      gilt_asm_print(p, ", ");
    if (entry && i < entry->num_args) {
      GiltValue *arg = entry->args[i];
      gilt_asm_print_operand(p, arg);
      gilt_asm_print(p, ": ");
      gilt_asm_print_type(p, arg->type);
      print_optional_dict(p, attrs_at(arg_attrs, i));
      gilt_asm_print_optional_location(p, *gilt_block_arg_loc(arg));
    } else {
      gilt_asm_print_type(p, fnty->func.types[i]);
      print_optional_dict(p, attrs_at(arg_attrs, i));
    }
  }
  gilt_asm_print(p, ")");
}

/* ` -> i32` or ` -> (i32, f32 {attrs})`: parentheses when there is more
** than one result, a function type, or attributes on the first. */
static void print_results(GiltOp *op, GiltAsmPrinter *p, GiltType *fnty)
{
  size_t n = fnty->func.num_results;
  GiltType *const *types = fnty->func.types + fnty->func.num_inputs;
  GiltAttr *res_attrs = gilt_op_get_attr(op, "res_attrs");
  if (!n)
    return;
  GiltAttr *first = attrs_at(res_attrs, 0);
  bool parens = n > 1 || types[0]->kind == GILT_TYPE_FUNCTION ||
                (first && first->kind == GILT_ATTR_DICTIONARY &&
                 first->dict.n);
  gilt_asm_print(p, parens ? " -> (" : " -> ");
  for (size_t i = 0; i < n; i++) {
    if (i)
      gilt_asm_print(p, ", ");
    gilt_asm_print_type(p, types[i]);
    print_optional_dict(p, attrs_at(res_attrs, i));
  }
  if (parens)
    gilt_asm_print(p, ")");
}

static void print_func(GiltOp *op, GiltAsmPrinter *p)
{
  static const char *const elided[] = {"sym_name", "sym_visibility",
                                       "function_type", "arg_attrs",
                                       "res_attrs"};
  GiltType *fnty = func_type(op);
  GiltAttr *vis = gilt_op_get_attr(op, "sym_visibility");
  gilt_asm_print(p, " ");
  if (vis && vis->kind == GILT_ATTR_STRING)
    gilt_asm_print(p, "%s ", vis->str.data);
  gilt_asm_print_symbol_name(p, gilt_symbol_get_name(op));
  print_arguments(op, p, fnty);
  print_results(op, p, fnty);
  gilt_asm_print_attr_dict(p, op, elided, sizeof elided / sizeof *elided,
                           true);
  if (gilt_op_region_array(op)[0].first)
    gilt_asm_print_region(p, &gilt_op_region_array(op)[0], false);
}

/* ---- func.func: parsing --------------------------------------------------------- */

typedef struct Signature {
  GILT_VEC(GiltAsmArgument) args; /* ssa.name NULL for bare types */
  GILT_VEC(GiltType *) results;
  GILT_VEC(GiltAttr *) result_attrs; /* NULL where none was written */
} Signature;

static void signature_free(GiltContext *ctx, Signature *s)
{
  gilt_vec_free(ctx, &s->args);
  gilt_vec_free(ctx, &s->results);
  gilt_vec_free(ctx, &s->result_attrs);
}

/* `{...}` after a bare type, as a dictionary attribute; *out stays NULL
** when there is none. */
static GiltStatus parse_optional_dict(GiltAsmParser *p, GiltAttr **out)
{
  if (!gilt_asm_peek_lbrace(p))
    return GILT_SUCCESS;
  if (gilt_asm_parse_attr(p, out))
    return GILT_FAILURE;
  if ((*out)->kind != GILT_ATTR_DICTIONARY)
    return gilt_asm_emit_error(p, "expected an attribute dictionary");
  return GILT_SUCCESS;
}

/* One argument: `%name: type {attrs} loc(...)` when the list is named,
** else `type {attrs} loc(...)`; the two never mix (MLIR's wording). */
static GiltStatus parse_one_argument(GiltAsmParser *p, bool named,
                                     GiltAsmArgument *arg)
{
  memset(arg, 0, sizeof *arg);
  if (gilt_asm_peek_operand(p) != named)
    return gilt_asm_emit_error(p, named ? "expected SSA identifier"
                                        : "expected type instead of SSA "
                                          "identifier");
  if (named)
    return gilt_asm_parse_argument(p, arg, true, true);
  if (gilt_asm_parse_type(p, &arg->type) ||
      parse_optional_dict(p, &arg->attrs))
    return GILT_FAILURE;
  return gilt_asm_parse_optional_location(p, &arg->loc);
}

static GiltStatus parse_arguments(GiltAsmParser *p, GiltContext *ctx,
                                  Signature *s)
{
  if (gilt_asm_parse_punct(p, "("))
    return GILT_FAILURE;
  if (gilt_asm_parse_optional_punct(p, ")"))
    return GILT_SUCCESS;
  bool named = gilt_asm_peek_operand(p);
  do {
    GiltAsmArgument arg;
    if (parse_one_argument(p, named, &arg))
      return GILT_FAILURE;
    gilt_vec_push(ctx, &s->args, arg);
  } while (gilt_asm_parse_optional_punct(p, ","));
  return gilt_asm_parse_punct(p, ")");
}

/* `-> type` or `-> (type {attrs}, ...)`; nothing when there is no arrow. */
static GiltStatus parse_results(GiltAsmParser *p, GiltContext *ctx,
                                Signature *s)
{
  if (!gilt_asm_parse_optional_punct(p, "->"))
    return GILT_SUCCESS;
  bool parens = gilt_asm_parse_optional_punct(p, "(");
  if (parens && gilt_asm_parse_optional_punct(p, ")"))
    return GILT_SUCCESS;
  do {
    GiltType *t;
    GiltAttr *attrs = NULL;
    if (gilt_asm_parse_type(p, &t) ||
        (parens && parse_optional_dict(p, &attrs)))
      return GILT_FAILURE;
    gilt_vec_push(ctx, &s->results, t);
    gilt_vec_push(ctx, &s->result_attrs, attrs);
  } while (parens && gilt_asm_parse_optional_punct(p, ","));
  return parens ? gilt_asm_parse_punct(p, ")") : GILT_SUCCESS;
}

/* `arg_attrs`/`res_attrs`: one dictionary per entry, only when some entry
** has attributes (MLIR's addArgAndResultAttrs). */
static void add_attr_array(GiltOpBuild *b, const char *name,
                           GiltAttr *const *dicts, size_t n)
{
  bool any = false;
  for (size_t i = 0; i < n; i++)
    any |= dicts[i] && dicts[i]->dict.n;
  if (!any)
    return;
  GiltAttr **elems = gilt_malloc(b->ctx, n * sizeof *elems);
  for (size_t i = 0; i < n; i++)
    elems[i] = dicts[i] ? dicts[i] : gilt_empty_dictionary_attr_get(b->ctx);
  gilt_op_build_add_attr(b, name, gilt_array_attr_get(b->ctx, n, elems));
  gilt_free(b->ctx, elems);
}

static void add_signature_attrs(GiltOpBuild *b, const Signature *s)
{
  GiltContext *ctx = b->ctx;
  size_t n = s->args.len;
  GiltType **inputs = gilt_malloc(ctx, (n ? n : 1) * sizeof *inputs);
  GiltAttr **arg_attrs = gilt_malloc(ctx, (n ? n : 1) * sizeof *arg_attrs);
  for (size_t i = 0; i < n; i++) {
    inputs[i] = s->args.data[i].type;
    arg_attrs[i] = s->args.data[i].attrs;
  }
  GiltType *fnty = gilt_function_type_get(ctx, n, inputs, s->results.len,
                                          s->results.data);
  gilt_op_build_add_attr(b, "function_type", gilt_type_attr_get(fnty));
  add_attr_array(b, "arg_attrs", arg_attrs, n);
  add_attr_array(b, "res_attrs", s->result_attrs.data, s->results.len);
  gilt_free(ctx, inputs);
  gilt_free(ctx, arg_attrs);
}

/* ` attributes {...}`, refusing what the custom form already spells. */
static GiltStatus parse_func_attr_dict(GiltAsmParser *p, GiltOpBuild *b)
{
  static const char *const inferred[] = {"sym_visibility", "sym_name",
                                         "function_type"};
  GiltLocation *loc = gilt_asm_get_location(p);
  size_t before = b->attrs.len;
  if (gilt_asm_parse_optional_attr_dict(p, b, true))
    return GILT_FAILURE;
  for (size_t i = before; i < b->attrs.len; i++)
    for (size_t k = 0; k < sizeof inferred / sizeof *inferred; k++)
      if (!strcmp(b->attrs.data[i].name->str, inferred[k])) {
        gilt_emit_error(loc,
                        "'%s' is an inferred attribute and should not be "
                        "specified in the explicit attribute dictionary",
                        inferred[k]);
        return GILT_FAILURE;
      }
  return GILT_SUCCESS;
}

/* The optional body. The printer leaves out an empty one, so `{}` (a body
** without blocks) is refused. */
static GiltStatus parse_body(GiltAsmParser *p, GiltOpBuild *b,
                             const Signature *s)
{
  GiltRegion *body = gilt_op_build_add_region(b);
  if (!gilt_asm_peek_lbrace(p))
    return GILT_SUCCESS;
  if (s->args.len && !s->args.data[0].ssa.name)
    return gilt_asm_emit_error(p, "expected named arguments for a "
                                  "function with a body");
  GiltLocation *loc = gilt_asm_get_location(p);
  if (gilt_asm_parse_region(p, body, s->args.data, s->args.len))
    return GILT_FAILURE;
  if (!body->first) {
    gilt_emit_error(loc, "expected non-empty function body");
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

static GiltStatus parse_func(GiltAsmParser *p, GiltOpBuild *b)
{
  static const char *const visibilities[] = {"private", "public", "nested"};
  GiltContext *ctx = b->ctx;
  for (size_t i = 0; i < sizeof visibilities / sizeof *visibilities; i++)
    if (gilt_asm_parse_optional_keyword(p, visibilities[i])) {
      gilt_op_build_add_attr(
          b, "sym_visibility",
          gilt_string_attr_get(ctx, visibilities[i],
                               strlen(visibilities[i])));
      break;
    }
  GiltAttr *name;
  if (gilt_asm_parse_symbol_name(p, &name))
    return GILT_FAILURE;
  gilt_op_build_add_attr(b, "sym_name", name);
  Signature s = {0};
  GiltStatus st = parse_arguments(p, ctx, &s);
  if (st == GILT_SUCCESS)
    st = parse_results(p, ctx, &s);
  if (st == GILT_SUCCESS) {
    add_signature_attrs(b, &s);
    st = parse_func_attr_dict(p, b);
  }
  if (st == GILT_SUCCESS)
    st = parse_body(p, b, &s);
  signature_free(ctx, &s);
  return st;
}

/* ---- func.func: verification ------------------------------------------------------ */

/* MLIR's function_interface checks of `arg_attrs`/`res_attrs`. */
static GiltStatus verify_attr_array(GiltOp *op, const char *name,
                                    const char *what, size_t expected)
{
  GiltAttr *a = gilt_op_get_attr(op, name);
  if (!a)
    return GILT_SUCCESS;
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

static GiltStatus verify_entry_block(GiltOp *op, GiltType *fnty)
{
  GiltBlock *entry = gilt_op_region_array(op)[0].first;
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
    TypePair tp;
    type_pair_init(&tp, op->loc->ctx, got, want);
    gilt_op_emit_error(op,
                       "type of entry block argument #%zu('%s') must match "
                       "the type of the corresponding argument in function "
                       "signature('%s')",
                       i, tp.first.data, tp.second.data);
    type_pair_free(&tp);
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

static GiltStatus verify_func(GiltOp *op)
{
  GiltType *fnty = func_type(op);
  if (!fnty)
    return gilt_op_emit_error(op, "attribute 'function_type' failed to "
                                  "satisfy constraint: type attribute of "
                                  "function type");
  if (verify_attr_array(op, "arg_attrs", "argument",
                        fnty->func.num_inputs) ||
      verify_attr_array(op, "res_attrs", "result", fnty->func.num_results))
    return GILT_FAILURE;
  if (!gilt_op_region_array(op)[0].first) {
    if (gilt_symbol_get_visibility(op) == GILT_VISIBILITY_PUBLIC)
      return gilt_op_emit_error(op, "symbol declaration cannot have public "
                                    "visibility");
    return GILT_SUCCESS;
  }
  return verify_entry_block(op, fnty);
}

/* ---- func.return ---------------------------------------------------------------- */

static void print_operand_types(GiltAsmPrinter *p, GiltOp *op)
{
  for (size_t i = 0; i < op->num_operands; i++) {
    if (i)
      gilt_asm_print(p, ", ");
    gilt_asm_print_type(p, op->operands[i].value->type);
  }
}

/* `return` or `return %0, %1 : i32, f32`, attributes first. */
static void print_return(GiltOp *op, GiltAsmPrinter *p)
{
  gilt_asm_print_attr_dict(p, op, NULL, 0, false);
  if (!op->num_operands)
    return;
  gilt_asm_print(p, " ");
  gilt_asm_print_operands(p, op, 0, op->num_operands);
  gilt_asm_print(p, " : ");
  print_operand_types(p, op);
}

static GiltStatus parse_return(GiltAsmParser *p, GiltOpBuild *b)
{
  if (gilt_asm_parse_optional_attr_dict(p, b, false))
    return GILT_FAILURE;
  if (!gilt_asm_peek_operand(p))
    return GILT_SUCCESS;
  OperandVec ops = {0};
  TypeVec types = {0};
  GiltStatus st = gilt_asm_parse_operand_list(p, &ops);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ":");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_type_list(p, &types);
  if (st == GILT_SUCCESS)
    st = resolve_operands(p, b, ops.data, ops.len, types.data, types.len);
  gilt_vec_free(b->ctx, &ops);
  gilt_vec_free(b->ctx, &types);
  return st;
}

static GiltStatus verify_return(GiltOp *op)
{
  GiltOp *func = gilt_op_get_parent_op(op);
  if (!gilt_func_op_is(func, FUNC_OP_FUNC))
    return gilt_op_emit_error(op, "expects parent op 'func.func'");
  GiltType *fnty = func_type(func);
  if (!fnty) /* reported by the func's own verifier */
    return GILT_SUCCESS;
  const char *name = func_name(func);
  size_t n = fnty->func.num_results;
  if (op->num_operands != n)
    return gilt_op_emit_error(op,
                              "has %u operands, but enclosing function (@%s) "
                              "returns %zu",
                              op->num_operands, name, n);
  for (size_t i = 0; i < n; i++) {
    GiltType *want = fnty->func.types[fnty->func.num_inputs + i];
    GiltType *got = op->operands[i].value->type;
    if (got == want)
      continue;
    TypePair tp;
    type_pair_init(&tp, op->loc->ctx, got, want);
    gilt_emit_error(op->loc,
                    "type of return operand %zu ('%s') doesn't match "
                    "function result type ('%s') in function @%s",
                    i, tp.first.data, tp.second.data, name);
    type_pair_free(&tp);
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

/* ---- func.call ---------------------------------------------------------------------- */

/* `call @f(%0, %1) {attrs} : (i32, i32) -> i32` */
static void print_call(GiltOp *op, GiltAsmPrinter *p)
{
  static const char *const elided[] = {"callee"};
  gilt_asm_print(p, " ");
  gilt_asm_print_attr(p, gilt_op_get_attr(op, "callee"));
  gilt_asm_print(p, "(");
  gilt_asm_print_operands(p, op, 0, op->num_operands);
  gilt_asm_print(p, ")");
  gilt_asm_print_attr_dict(p, op, elided, 1, false);
  gilt_asm_print(p, " : ");
  gilt_asm_print_functional_type(p, op);
}

/* The callee, a flat `@name`, as the `callee` attribute. */
static GiltStatus parse_callee(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltAttr *callee;
  if (gilt_asm_parse_attr(p, &callee))
    return GILT_FAILURE;
  if (callee->kind != GILT_ATTR_SYMBOL_REF || callee->symref.n != 1)
    return gilt_asm_emit_error(p, "invalid kind of attribute specified");
  gilt_op_build_add_attr(b, "callee", callee);
  return GILT_SUCCESS;
}

static GiltStatus parse_call(GiltAsmParser *p, GiltOpBuild *b)
{
  OperandVec ops = {0};
  GiltType *fnty = NULL;
  GiltStatus st = parse_callee(p, b);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, "(");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_operand_list(p, &ops);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ")");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_optional_attr_dict(p, b, false);
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_punct(p, ":");
  if (st == GILT_SUCCESS)
    st = gilt_asm_parse_type(p, &fnty);
  if (st == GILT_SUCCESS && fnty->kind != GILT_TYPE_FUNCTION)
    st = gilt_asm_emit_error(p, "invalid kind of type specified");
  if (st == GILT_SUCCESS)
    st = resolve_operands(p, b, ops.data, ops.len, fnty->func.types,
                          fnty->func.num_inputs);
  for (size_t i = 0; st == GILT_SUCCESS && i < fnty->func.num_results; i++)
    gilt_vec_push(b->ctx, &b->result_types,
                  fnty->func.types[fnty->func.num_inputs + i]);
  gilt_vec_free(b->ctx, &ops);
  return st;
}

/* `'i32', 'f32'` into sb. */
static void append_quoted_type(GiltStrBuf *sb, GiltType *t, bool first)
{
  gilt_strbuf_append(sb, first ? "'" : ", '", first ? 1 : 3);
  gilt_type_print(t, gilt_strbuf_callback, sb);
  gilt_strbuf_append(sb, "'", 1);
}

/* The error with MLIR's two notes listing both sides' result types. */
static GiltStatus report_result_mismatch(GiltOp *op, GiltType *fnty,
                                         size_t index)
{
  GiltContext *ctx = op->loc->ctx;
  GiltStrBuf mine, theirs;
  gilt_strbuf_init(&mine, ctx);
  gilt_strbuf_init(&theirs, ctx);
  for (size_t i = 0; i < op->num_results; i++)
    append_quoted_type(&mine, gilt_op_result_array(op)[i].type, i == 0);
  for (size_t i = 0; i < fnty->func.num_results; i++)
    append_quoted_type(&theirs, fnty->func.types[fnty->func.num_inputs + i],
                       i == 0);
  GiltDiagnostic *d = gilt_diag_create(
      ctx, GILT_SEVERITY_ERROR, op->loc,
      "'func.call' op result type mismatch at index %zu", index);
  gilt_diag_add_note(d, op->loc, "      op result types: %s", mine.data);
  gilt_diag_add_note(d, op->loc, "function result types: %s", theirs.data);
  gilt_diag_emit(d);
  gilt_strbuf_free(&mine);
  gilt_strbuf_free(&theirs);
  return GILT_FAILURE;
}

/* MLIR's CallOp::verifySymbolUses. */
static GiltStatus verify_call_types(GiltOp *op, GiltType *fnty)
{
  size_t nin = fnty->func.num_inputs, nres = fnty->func.num_results;
  if (op->num_operands != nin)
    return gilt_op_emit_error(op, "incorrect number of operands for callee");
  for (size_t i = 0; i < nin; i++) {
    GiltType *got = op->operands[i].value->type;
    if (got == fnty->func.types[i])
      continue;
    TypePair tp;
    type_pair_init(&tp, op->loc->ctx, fnty->func.types[i], got);
    gilt_op_emit_error(op,
                       "operand type mismatch: expected operand type '%s', "
                       "but provided '%s' for operand number %zu",
                       tp.first.data, tp.second.data, i);
    type_pair_free(&tp);
    return GILT_FAILURE;
  }
  if (op->num_results != nres)
    return gilt_op_emit_error(op, "incorrect number of results for callee");
  for (size_t i = 0; i < nres; i++)
    if (gilt_op_result_array(op)[i].type != fnty->func.types[nin + i])
      return report_result_mismatch(op, fnty, i);
  return GILT_SUCCESS;
}

static GiltStatus verify_call(GiltOp *op)
{
  GiltAttr *callee = gilt_op_get_attr(op, "callee");
  if (callee->symref.n != 1)
    return gilt_op_emit_error(op, "attribute 'callee' failed to satisfy "
                                  "constraint: flat symbol reference "
                                  "attribute");
  GiltOp *fn = gilt_symbol_lookup_nearest(op, callee);
  GiltType *fnty = gilt_func_op_is(fn, FUNC_OP_FUNC) ? func_type(fn) : NULL;
  if (!fnty)
    return gilt_op_emit_error(op, "'%s' does not reference a valid function",
                              callee->symref.names[0]->str);
  return verify_call_types(op, fnty);
}

/* ---- the dialect --------------------------------------------------------------------- */

const GiltOpDef gilt_func_ops[FUNC_NUM_OPS] = {
#define GILT_OP GILT_OP_AS_ROW
#include "dialects/func/func.def"
#undef GILT_OP
};

const GiltDialectDef gilt_func_dialect =
    GILT_DIALECT_DEF("func", gilt_func_ops, NULL);

/* ---- public API ---------------------------------------------------------------------- */

GiltOp *gilt_func_create(GiltContext *ctx, GiltLocation *loc,
                         const char *name, GiltType *function_type)
{
  if (function_type->kind != GILT_TYPE_FUNCTION) {
    gilt_emit_error(loc, "func.func needs a function type");
    return NULL;
  }
  GiltNamedAttr attrs[2] = {
      {"function_type", gilt_type_attr_get(function_type)},
      {"sym_name", gilt_string_attr_get(ctx, name, strlen(name))},
  };
  GiltOpState st = gilt_op_state_get("func.func", loc);
  st.num_attrs = 2;
  st.attrs = attrs;
  st.num_regions = 1;
  GiltOp *func = gilt_op_create(ctx, &st);
  if (!func)
    return NULL;
  /* As MLIR's FuncOp::addEntryBlock, the arguments take the func's
  ** location. */
  GiltBlock *entry = gilt_block_create(ctx, 0, NULL, NULL);
  for (size_t i = 0; i < function_type->func.num_inputs; i++)
    gilt_block_add_argument(entry, function_type->func.types[i], loc);
  gilt_region_append_block(&gilt_op_region_array(func)[0], entry);
  return func;
}

GiltBlock *gilt_func_get_entry_block(GiltOp *func)
{
  return func->num_regions ? gilt_op_region_array(func)[0].first : NULL;
}

GiltType *gilt_func_get_type(GiltOp *func)
{
  return func_type(func);
}

void gilt_register_func_dialect(GiltContext *ctx)
{
  gilt_context_register_dialect(ctx, &gilt_func_dialect);
}
