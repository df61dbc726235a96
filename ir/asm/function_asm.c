/*
** function_asm.c - the textual signature of function-like ops: printing
** and parsing `@name(args) -> results attributes {...} {body}` for any op
** that implements the function-like interface (function_asm.h).
**
** The form is MLIR's: argument and result attributes print inline after
** their types, a declaration lists bare types and a definition names its
** arguments (the two never mix), results take parentheses when there are
** several, when the only one is a function type or when it has
** attributes, and what the signature already spells is elided from (and
** refused in) the `attributes` dictionary. What is printed parses back to
** the same op, byte for byte.
**
** Not here: the checks of what was parsed (gilt_function_like_verify, in
** ir/interfaces/function_like.c), and the default dialect of the body
** (printer and parser, by op name).
*/
#include "ir/asm/function_asm.h"

#include <string.h>

#include "gilt/interfaces.h"
#include "ir/symbol_table.h"

/* ---- printing ----------------------------------------------------------- */

/* ` {a = 1}` for a non-empty dictionary (argument or result attributes). */
static void print_optional_dict(GiltAsmPrinter *p, GiltAttr *dict)
{
  if (!dict || !dict->dict.n)
    return;
  gilt_asm_print(p, " ");
  gilt_asm_print_attr(p, dict);
}

/* `(%arg0: i32 {attrs} loc(...), ...)`, or bare types for a declaration. */
static void print_arguments(GiltOp *op, GiltAsmPrinter *p, GiltType *fnty)
{
  GiltBlock *entry = gilt_function_like_get_entry_block(op);
  gilt_asm_print(p, "(");
  for (size_t i = 0; i < fnty->func.num_inputs; i++) {
    if (i)
      gilt_asm_print(p, ", ");
    if (entry && i < entry->num_args) {
      GiltValue *arg = entry->args[i];
      gilt_asm_print_operand(p, arg);
      gilt_asm_print(p, ": ");
      gilt_asm_print_type(p, arg->type);
      print_optional_dict(p, gilt_function_like_get_arg_attrs(op, i));
      gilt_asm_print_optional_location(p, *gilt_block_arg_loc(arg));
    } else {
      gilt_asm_print_type(p, fnty->func.types[i]);
      print_optional_dict(p, gilt_function_like_get_arg_attrs(op, i));
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
  if (!n)
    return;
  GiltAttr *first = gilt_function_like_get_res_attrs(op, 0);
  bool parens = n > 1 || types[0]->kind == GILT_TYPE_FUNCTION ||
                (first && first->dict.n);
  gilt_asm_print(p, parens ? " -> (" : " -> ");
  for (size_t i = 0; i < n; i++) {
    if (i)
      gilt_asm_print(p, ", ");
    gilt_asm_print_type(p, types[i]);
    print_optional_dict(p, gilt_function_like_get_res_attrs(op, i));
  }
  if (parens)
    gilt_asm_print(p, ")");
}

void gilt_function_asm_print(GiltOp *op, GiltAsmPrinter *p)
{
  static const char *const elided[] = {"sym_name", "sym_visibility",
                                       "function_type", "arg_attrs",
                                       "res_attrs"};
  GiltType *fnty = gilt_function_like_get_type(op);
  GiltAttr *vis = gilt_op_get_attr(op, "sym_visibility");
  gilt_asm_print(p, " ");
  if (vis && vis->kind == GILT_ATTR_STRING)
    gilt_asm_print(p, "%s ", vis->str.data);
  gilt_asm_print_symbol_name(p, gilt_symbol_get_name(op));
  print_arguments(op, p, fnty);
  print_results(op, p, fnty);
  gilt_asm_print_attr_dict(p, op, elided, sizeof elided / sizeof *elided,
                           true);
  GiltRegion *body = gilt_function_like_get_body(op);
  if (body && body->first)
    gilt_asm_print_region(p, body, false);
}

/* ---- parsing ------------------------------------------------------------- */

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
static GiltStatus parse_attr_dict(GiltAsmParser *p, GiltOpBuild *b)
{
  static const char *const inferred[] = {"sym_visibility", "sym_name",
                                         "function_type"};
  GiltLocation *loc = gilt_asm_parser_get_location(p);
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
  GiltLocation *loc = gilt_asm_parser_get_location(p);
  if (gilt_asm_parse_region(p, body, s->args.data, s->args.len))
    return GILT_FAILURE;
  if (!body->first) {
    gilt_emit_error(loc, "expected non-empty function body");
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

/* `private`, `public` or `nested`, when written, as `sym_visibility`. */
static void parse_optional_visibility(GiltAsmParser *p, GiltOpBuild *b)
{
  static const char *const visibilities[] = {"private", "public", "nested"};
  for (size_t i = 0; i < sizeof visibilities / sizeof *visibilities; i++)
    if (gilt_asm_parse_optional_keyword(p, visibilities[i])) {
      gilt_op_build_add_attr(
          b, "sym_visibility",
          gilt_string_attr_get(b->ctx, visibilities[i],
                               strlen(visibilities[i])));
      return;
    }
}

GiltStatus gilt_function_asm_parse(GiltAsmParser *p, GiltOpBuild *b)
{
  GiltContext *ctx = b->ctx;
  parse_optional_visibility(p, b);
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
    st = parse_attr_dict(p, b);
  }
  if (st == GILT_SUCCESS)
    st = parse_body(p, b, &s);
  signature_free(ctx, &s);
  return st;
}
