/*
** test_types.c - the types and attributes the test dialect defines, for
** the lit and unit tests of dialect-defined types (ir/dialect_types.c).
**
**   !test.ptr, !test.ptr<3>   a pointer in an address space: one integer
**                             parameter, 0 when not written (and then not
**                             printed), as LLVM's `ptr` and `ptr addrspace(3)`
**   !test.struct<i32, f32>    a struct of any types, possibly none: type
**                             attributes as parameters
**   #test.pair<1, "x">        an integer and a string
**   !test.generic<...>, #test.generic<...>
**                             no hooks at all: any attributes, written in
**                             the generic form `<1 : i32, "x">`
**
** The hooks are written as a dialect author would, with the public
** gilt/asm.h alone, and as defensively: the parse fuzzer runs through
** them too when gopt's inputs are fuzzed.
*/
#include "test/lib/test_defs.h"

#include <inttypes.h>

#include "gilt/asm.h"

static GiltAttr *i64_attr(GiltContext *ctx, int64_t v)
{
  return gilt_integer_attr_get(gilt_integer_type_get(ctx, 64, GILT_SIGNLESS),
                               v);
}

/* ---- !test.ptr ------------------------------------------------------------ */

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
  if (n != 1 || gilt_attr_get_kind(params[0]) != GILT_ATTR_INTEGER) {
    gilt_emit_error(loc, "'test.ptr' takes one integer parameter, the "
                         "address space");
    return GILT_FAILURE;
  }
  int64_t space = gilt_integer_attr_get_value(params[0]);
  if (space < 0 || space > 16777215) {
    gilt_emit_error(loc, "address space %" PRId64 " of 'test.ptr' is not in "
                         "[0, 16777215]", space);
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

/* ---- !test.struct --------------------------------------------------------- */

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

static GiltStatus verify_struct(GiltLocation *loc, size_t n,
                                GiltAttr *const *params)
{
  for (size_t i = 0; i < n; i++) {
    if (gilt_attr_get_kind(params[i]) != GILT_ATTR_TYPE) {
      gilt_emit_error(loc, "field %zu of 'test.struct' is not a type", i);
      return GILT_FAILURE;
    }
    if (gilt_type_get_kind(gilt_type_attr_get_value(params[i])) ==
        GILT_TYPE_FUNCTION) {
      gilt_emit_error(loc, "field %zu of 'test.struct' is a function type",
                      i);
      return GILT_FAILURE;
    }
  }
  return GILT_SUCCESS;
}

/* ---- #test.pair ----------------------------------------------------------- */

static GiltStatus parse_pair(GiltAsmParser *p, GiltParamVec *params)
{
  GiltContext *ctx = gilt_asm_parser_get_context(p);
  int64_t first;
  GiltAttr *second;
  if (gilt_asm_parse_punct(p, "<") || gilt_asm_parse_integer(p, &first) ||
      gilt_asm_parse_punct(p, ",") || gilt_asm_parse_string(p, &second) ||
      gilt_asm_parse_punct(p, ">"))
    return GILT_FAILURE;
  gilt_param_vec_append(params, i64_attr(ctx, first));
  gilt_param_vec_append(params, second);
  return GILT_SUCCESS;
}

static void print_pair(GiltAsmPrinter *p, size_t n, GiltAttr *const *params)
{
  (void)n;
  size_t len;
  const char *s = gilt_string_attr_get_value(params[1], &len);
  gilt_asm_print(p, "<%" PRId64 ", ", gilt_integer_attr_get_value(params[0]));
  gilt_asm_print_string(p, s, len);
  gilt_asm_print(p, ">");
}

static GiltStatus verify_pair(GiltLocation *loc, size_t n,
                              GiltAttr *const *params)
{
  if (n != 2 || gilt_attr_get_kind(params[0]) != GILT_ATTR_INTEGER ||
      gilt_attr_get_kind(params[1]) != GILT_ATTR_STRING) {
    gilt_emit_error(loc, "'test.pair' takes an integer and a string");
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

/* ---- the tables ----------------------------------------------------------- */

const GiltTypeDef gilt_test_types[GILT_TEST_NUM_TYPES] = {
    {.mnemonic = "ptr", .parse = parse_ptr, .print = print_ptr,
     .verify = verify_ptr},
    {.mnemonic = "struct", .parse = parse_struct, .print = print_struct,
     .verify = verify_struct},
    {.mnemonic = "generic"},
};

const GiltAttrDef gilt_test_attrs[GILT_TEST_NUM_ATTRS] = {
    {.mnemonic = "pair", .parse = parse_pair, .print = print_pair,
     .verify = verify_pair},
    {.mnemonic = "generic"},
};
