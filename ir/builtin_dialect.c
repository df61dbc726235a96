/*
** builtin_dialect.c - the builtin dialect: builtin.module.
**
** A module is the top-level container of IR: one region with one block,
** no terminator, a symbol table for the functions in it, isolated from
** above. Its custom form is MLIR's `($sym_name^)? attr-dict-with-keyword
** $bodyRegion`:
**
**   module {
**   module @name attributes {gilt.target = "x86_64"} {
**
** At the top level the printer drops the `builtin.` prefix, as mlir-opt
** does. Not here: builtin types and attributes (ir/types.c,
** ir/attributes.c) and unrealized conversion casts.
*/
#include "ir/builtin_dialect.h"

#include <string.h>

#include "ir/asm/asm.h"

static void print_module(GiltOp *op, GiltAsmPrinter *p)
{
  static const char *const elided[] = {"sym_name"};
  const char *name = gilt_symbol_get_name(op);
  if (name) {
    gilt_asm_print(p, " ");
    gilt_asm_print_symbol_name(p, name);
  }
  gilt_asm_print_attr_dict(p, op, elided, 1, true);
  gilt_asm_print_region(p, &gilt_op_region_array(op)[0], true);
}

static GiltStatus parse_module(GiltAsmParser *p, GiltOpBuild *b)
{
  bool keyword = gilt_asm_parse_optional_keyword(p, "attributes");
  if (!keyword && !gilt_asm_peek_lbrace(p)) {
    GiltAttr *name;
    if (gilt_asm_parse_symbol_name(p, &name))
      return GILT_FAILURE;
    gilt_op_build_add_attr(b, "sym_name", name);
    keyword = gilt_asm_parse_optional_keyword(p, "attributes");
  }
  if (keyword) {
    if (!gilt_asm_peek_lbrace(p))
      return gilt_asm_emit_error(p, "expected '{'");
    if (gilt_asm_parse_optional_attr_dict(p, b, false))
      return GILT_FAILURE;
  }
  GiltRegion *body = gilt_op_build_add_region(b);
  if (gilt_asm_parse_region(p, body, NULL, 0))
    return GILT_FAILURE;
  /* `module {}` has no block; a module always has one. */
  if (!body->first)
    gilt_region_append_block(body, gilt_block_create(b->ctx, 0, NULL, NULL));
  return GILT_SUCCESS;
}

/* MLIR's ModuleOp::verify: other than its symbol attributes, a module
** only carries attributes of some dialect (`gilt.target`), so that
** dialects cannot collide on unprefixed names. */
static GiltStatus verify_module(GiltOp *op)
{
  for (size_t i = 0; i < op->attrs->dict.n; i++) {
    const char *name = op->attrs->dict.entries[i].name->str;
    if (!strchr(name, '.') && strcmp(name, "sym_name") &&
        strcmp(name, "sym_visibility"))
      return gilt_op_emit_error(op,
                                "can only contain attributes with "
                                "dialect-prefixed names, found: '%s'",
                                name);
  }
  return GILT_SUCCESS;
}

const GiltOpDef gilt_builtin_ops[BUILTIN_NUM_OPS] = {
#define GILT_OP GILT_OP_AS_ROW
#include "ir/builtin.def"
#undef GILT_OP
};

const GiltDialectDef gilt_builtin_dialect = {
    .name = "builtin",
    GILT_DIALECT_OPS(gilt_builtin_ops),
};

GiltOp *gilt_module_create(GiltContext *ctx, GiltLocation *loc)
{
  GiltOpState st = gilt_op_state_get("builtin.module", loc);
  st.num_regions = 1;
  GiltOp *module = gilt_op_create(ctx, &st);
  if (module)
    gilt_region_append_block(&gilt_op_region_array(module)[0],
                             gilt_block_create(ctx, 0, NULL, NULL));
  return module;
}

GiltBlock *gilt_module_get_body(GiltOp *module)
{
  return module->num_regions ? gilt_op_region_array(module)[0].first : NULL;
}
