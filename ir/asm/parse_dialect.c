/*
** parse_dialect.c - types and attributes of registered dialects that
** define them: `!test.ptr<3>`, `#graph.layout<"NCHW16c">`, and the same
** in MLIR's bracketed spelling, `!test<ptr<3>>`.
**
** The mnemonic picks the definition in the dialect's table
** (dialect_types.c); its parse hook reads the rest from the token stream
** through gilt/asm.h, and the instance is made, after the verify hook, at
** the position of the `!` or `#`. The body is parsed in place rather than
** skipped and re-lexed as MLIR does, so positions inside it are the
** file's own. Also here: the generic body for definitions without a parse
** hook, and the gilt/asm.h calls such hooks need beyond those of custom
** ops (integers, strings). Not here: aliases and opaque types of
** unregistered dialects (parser.c).
*/
#include "ir/asm/parser.h"

#include <string.h>

/* `<` attr (`,` attr)* `>`, `<>`, or nothing: the body of a definition
** without a parse hook, as print_types.c writes it. */
static GiltStatus parse_generic_params(GiltAsmParser *p, GiltParamVec *params)
{
  if (!gilt_parser_consume_if(p, GILT_TOK_LESS) ||
      gilt_parser_consume_if(p, GILT_TOK_GREATER))
    return GILT_SUCCESS;
  do {
    GiltAttr *a = gilt_parser_parse_attr(p);
    if (!a)
      return GILT_FAILURE;
    gilt_vec_push(p->ctx, params, a);
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  return gilt_parser_expect(p, GILT_TOK_GREATER,
                            "expected ',' or '>' in parameter list");
}

/* Runs the definition's parse hook as a type's own grammar: a custom op
** whose form holds the type does not own the hook's errors, and a hook
** that fails without a word (or succeeds after an error) still fails the
** parse with a diagnostic. */
static GiltStatus run_parse_hook(GiltAsmParser *p, const GiltParametricDef *def,
                                 GiltSrcPos pos, const char *dialect,
                                 bool is_type, GiltParamVec *params)
{
  const char *custom_op = p->custom_op;
  p->custom_op = NULL;
  GiltStatus st = def->parse ? def->parse(p, params)
                             : parse_generic_params(p, params);
  p->custom_op = custom_op;
  if (st == GILT_SUCCESS && !p->failed)
    return GILT_SUCCESS;
  if (!p->failed)
    gilt_parser_error_at(p, pos, "failed to parse %s '%s.%s'",
                         is_type ? "type" : "attribute", dialect,
                         def->mnemonic);
  return GILT_FAILURE;
}

void *gilt_parser_parse_dialect_defined(GiltAsmParser *p,
                                        GiltDialectInfo *d, bool is_type)
{
  const char *what = is_type ? "type" : "attribute";
  GiltSrcPos pos = p->tok.pos;
  const char *id = p->tok.ptr + 1, *id_end = p->tok.ptr + p->tok.len;
  const char *dot = memchr(id, '.', (size_t)(id_end - id));
  const char *mnemonic = dot ? dot + 1 : NULL;
  size_t len = dot ? (size_t)(id_end - mnemonic) : 0;
  gilt_parser_advance(p);
  if (!dot) { /* `!dialect<mnemonic ...>`: the caller saw the `<` */
    gilt_parser_advance(p);
    if (p->tok.kind != GILT_TOK_BARE_ID) {
      gilt_parser_wrong_token(p, "expected %s mnemonic of dialect '%s'",
                              what, d->name->str);
      return NULL;
    }
    mnemonic = p->tok.ptr;
    len = p->tok.len;
    gilt_parser_advance(p);
  }
  const GiltParametricDef *def =
      gilt_dialect_lookup_def(d, is_type, mnemonic, len);
  if (!def) {
    gilt_parser_error_at(p, pos, "unknown %s '%.*s' in dialect '%s'", what,
                         (int)len, mnemonic, d->name->str);
    return NULL;
  }
  GiltParamVec params = {0};
  void *result = NULL;
  if (gilt_parser_enter(p))
    return NULL;
  GiltStatus st = run_parse_hook(p, def, pos, d->name->str, is_type, &params);
  gilt_parser_leave(p);
  if (!st && !dot)
    st = gilt_parser_expect(p, GILT_TOK_GREATER, "expected '>' to close the "
                                                 "dialect body");
  if (!st) {
    GiltDialectValue v = {def, d, params.len, params.data};
    GiltLocation *loc = gilt_parser_loc(p, pos);
    result = is_type ? (void *)gilt_dialect_type_get_verified(p->ctx, &v, loc)
                     : (void *)gilt_dialect_attr_get_verified(p->ctx, &v, loc);
    if (!result)
      gilt_parser_note_failure(p); /* verify has reported */
  }
  gilt_vec_free(p->ctx, &params);
  return result;
}

/* ---- gilt/asm.h: literals for the hooks of dialect types ----------------- */

GiltStatus gilt_asm_parse_integer(GiltAsmParser *p, int64_t *out)
{
  if (p->failed)
    return GILT_FAILURE;
  GiltToken minus = p->tok;
  bool negative = gilt_parser_consume_if(p, GILT_TOK_MINUS);
  if (p->tok.kind != GILT_TOK_INTEGER) {
    if (negative)
      return gilt_parser_error_at(p, minus.pos, "expected integer value");
    return gilt_parser_wrong_token(p, "expected integer value");
  }
  GiltType *i64 = gilt_integer_type_get(p->ctx, 64, GILT_SIGNED);
  if (gilt_parser_int_value(p, &p->tok, negative, i64,
                            "integer value too large", out))
    return GILT_FAILURE;
  gilt_parser_advance(p);
  return GILT_SUCCESS;
}

GiltStatus gilt_asm_parse_string(GiltAsmParser *p, GiltAttr **out)
{
  if (p->failed)
    return GILT_FAILURE;
  if (p->tok.kind != GILT_TOK_STRING)
    return gilt_parser_wrong_token(p, "expected string");
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, p->ctx);
  gilt_parser_string_value(&p->tok, &sb);
  *out = gilt_string_attr_get(p->ctx, sb.data, sb.len);
  gilt_strbuf_free(&sb);
  gilt_parser_advance(p);
  return GILT_SUCCESS;
}
