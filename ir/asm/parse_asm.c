/*
** parse_asm.c - the parsing half of gilt/asm.h: what custom assembly hooks
** call to read an op's custom form (and ir/asm/asm.h's vector helpers).
**
** Thin wrappers over the parser with MLIR's OpAsmParser conventions. Errors
** a hook reports itself (gilt_asm_emit_error) are prefixed with
** "custom op 'NAME' ", as MLIR does; errors from the shared grammar (types,
** attributes, punctuation) are not. Every call fails at once after the
** first error of the parse, so a hook that ignores a failure cannot build
** on a half-parsed state.
*/
#include "ir/asm/parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

GiltContext *gilt_asm_parser_get_context(GiltAsmParser *p) { return p->ctx; }

GiltLocation *gilt_asm_parser_get_location(GiltAsmParser *p)
{
  return gilt_parser_loc(p, p->tok.pos);
}

GiltStatus gilt_asm_emit_error(GiltAsmParser *p, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (p->custom_op)
    return gilt_parser_error(p, "custom op '%s' %s", p->custom_op, msg);
  return gilt_parser_error(p, "%s", msg);
}

static const struct {
  const char *spelling;
  GiltTokenKind kind;
} puncts[] = {{"(", GILT_TOK_LPAREN},   {")", GILT_TOK_RPAREN},
              {"{", GILT_TOK_LBRACE},   {"}", GILT_TOK_RBRACE},
              {"[", GILT_TOK_LSQUARE},  {"]", GILT_TOK_RSQUARE},
              {"<", GILT_TOK_LESS},     {">", GILT_TOK_GREATER},
              {",", GILT_TOK_COMMA},    {":", GILT_TOK_COLON},
              {"=", GILT_TOK_EQUAL},    {"->", GILT_TOK_ARROW},
              {"*", GILT_TOK_STAR},     {"?", GILT_TOK_QUESTION},
              {"+", GILT_TOK_PLUS},     {"...", GILT_TOK_ELLIPSIS}};

bool gilt_asm_parse_optional_punct(GiltAsmParser *p, const char *punct)
{
  if (p->failed)
    return false;
  if (strcmp(punct, "::") == 0) { /* two adjacent `:` tokens */
    if (p->tok.kind != GILT_TOK_COLON || p->lex.cur != p->tok.ptr + 1 ||
        p->lex.cur >= p->lex.end || *p->lex.cur != ':')
      return false;
    gilt_parser_advance(p);
    gilt_parser_advance(p);
    return true;
  }
  for (size_t i = 0; i < sizeof puncts / sizeof *puncts; i++)
    if (strcmp(punct, puncts[i].spelling) == 0)
      return gilt_parser_consume_if(p, puncts[i].kind);
  GILT_ASSERT(!"unknown punctuation");
  return false;
}

GiltStatus gilt_asm_parse_punct(GiltAsmParser *p, const char *punct)
{
  if (gilt_asm_parse_optional_punct(p, punct))
    return GILT_SUCCESS;
  return gilt_parser_wrong_token(p, "expected '%s'", punct);
}

bool gilt_asm_parse_optional_keyword(GiltAsmParser *p, const char *kw)
{
  if (p->failed || !gilt_parser_at_keyword(p, kw))
    return false;
  gilt_parser_advance(p);
  return true;
}

GiltStatus gilt_asm_parse_keyword(GiltAsmParser *p, const char *kw)
{
  if (gilt_asm_parse_optional_keyword(p, kw))
    return GILT_SUCCESS;
  return gilt_parser_wrong_token(p, "expected '%s'", kw);
}

bool gilt_asm_peek_operand(GiltAsmParser *p)
{
  return !p->failed && p->tok.kind == GILT_TOK_PERCENT_ID;
}

bool gilt_asm_peek_lbrace(GiltAsmParser *p)
{
  return !p->failed && p->tok.kind == GILT_TOK_LBRACE;
}

static GiltStatus parse_operand(GiltAsmParser *p, GiltUnresolvedOperand *out,
                                bool allow_number)
{
  GiltSrcPos pos;
  if (p->failed || gilt_parser_parse_ssa_use(p, out, &pos, allow_number))
    return GILT_FAILURE;
  out->loc = gilt_parser_loc(p, pos);
  return GILT_SUCCESS;
}

GiltStatus gilt_asm_parse_operand(GiltAsmParser *p,
                                  GiltUnresolvedOperand *out)
{
  return parse_operand(p, out, true);
}

GiltStatus gilt_asm_parse_operand_list(GiltAsmParser *p,
                                       GiltAsmOperandFn each, void *user)
{
  if (p->failed)
    return GILT_FAILURE;
  if (p->tok.kind != GILT_TOK_PERCENT_ID)
    return GILT_SUCCESS;
  do {
    GiltUnresolvedOperand u;
    if (gilt_asm_parse_operand(p, &u) || each(p, &u, user))
      return GILT_FAILURE;
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  return GILT_SUCCESS;
}

GiltStatus gilt_asm_push_operand(GiltAsmParser *p,
                                 const GiltUnresolvedOperand *u, void *user)
{
  GiltAsmVecRef *v = user;
  gilt_parser_vec_push(p->ctx, v->data, v->len, v->cap, u, sizeof *u);
  return GILT_SUCCESS;
}

GiltStatus gilt_asm_resolve_operand(GiltAsmParser *p,
                                    const GiltUnresolvedOperand *u,
                                    GiltType *type, GiltValue **out)
{
  if (p->failed)
    return GILT_FAILURE;
  GiltSrcPos pos = {0, 0};
  if (u->loc && u->loc->kind == GILT_LOC_FILE_LINE_COL)
    pos = (GiltSrcPos){u->loc->flc.line, u->loc->flc.col};
  *out = gilt_parser_resolve_value(p, u, pos, type);
  return *out ? GILT_SUCCESS : GILT_FAILURE;
}

GiltStatus gilt_asm_parse_type(GiltAsmParser *p, GiltType **out)
{
  if (p->failed)
    return GILT_FAILURE;
  *out = gilt_parser_parse_type(p);
  return *out ? GILT_SUCCESS : GILT_FAILURE;
}

GiltStatus gilt_asm_parse_type_list(GiltAsmParser *p, GiltAsmTypeFn each,
                                    void *user)
{
  if (p->failed)
    return GILT_FAILURE;
  if (!gilt_parser_at_type(p))
    return GILT_SUCCESS;
  do {
    GiltType *t = gilt_parser_parse_type(p);
    if (!t || each(p, t, user))
      return GILT_FAILURE;
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  return GILT_SUCCESS;
}

GiltStatus gilt_asm_push_type(GiltAsmParser *p, GiltType *t, void *user)
{
  GiltAsmVecRef *v = user;
  gilt_parser_vec_push(p->ctx, v->data, v->len, v->cap, &t, sizeof t);
  return GILT_SUCCESS;
}

/* The arrow's grammar is the parser's (`-> t`, `-> (t, u)`, `-> ()`),
** which collects into a vector; the types go to `each` after it. */
GiltStatus gilt_asm_parse_optional_arrow_type_list(GiltAsmParser *p,
                                                   GiltAsmTypeFn each,
                                                   void *user)
{
  if (p->failed)
    return GILT_FAILURE;
  if (!gilt_parser_consume_if(p, GILT_TOK_ARROW))
    return GILT_SUCCESS;
  GILT_VEC(GiltType *) types = {0};
  GiltStatus st = gilt_parser_parse_result_types(p, GILT_VEC_FIELDS(&types));
  for (size_t i = 0; st == GILT_SUCCESS && i < types.len; i++)
    st = each(p, types.data[i], user);
  gilt_vec_free(p->ctx, &types);
  return st;
}

GiltStatus gilt_asm_parse_attr(GiltAsmParser *p, GiltAttr **out)
{
  if (p->failed)
    return GILT_FAILURE;
  *out = gilt_parser_parse_attr(p);
  return *out ? GILT_SUCCESS : GILT_FAILURE;
}

GiltStatus gilt_asm_parse_optional_attr_dict(GiltAsmParser *p,
                                             GiltOpBuild *b,
                                             bool with_keyword)
{
  if (p->failed)
    return GILT_FAILURE;
  if (with_keyword ? !gilt_asm_parse_optional_keyword(p, "attributes")
                   : p->tok.kind != GILT_TOK_LBRACE)
    return GILT_SUCCESS;
  return gilt_parser_parse_attr_dict(p, GILT_VEC_FIELDS(&b->attrs));
}

GiltStatus gilt_asm_parse_symbol_name(GiltAsmParser *p, GiltAttr **out)
{
  if (p->failed)
    return GILT_FAILURE;
  if (p->tok.kind != GILT_TOK_AT_ID)
    return gilt_asm_emit_error(p, "expected valid '@'-identifier for "
                                  "symbol name");
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, p->ctx);
  if (p->tok.ptr[1] == '"')
    gilt_parser_string_value(&p->tok, &sb);
  else
    gilt_strbuf_append(&sb, p->tok.ptr + 1, p->tok.len - 1);
  *out = gilt_string_attr_get(p->ctx, sb.data ? sb.data : "", sb.len);
  gilt_strbuf_free(&sb);
  gilt_parser_advance(p);
  return GILT_SUCCESS;
}

GiltStatus gilt_asm_parse_optional_location(GiltAsmParser *p,
                                            GiltLocation **out)
{
  if (p->failed)
    return GILT_FAILURE;
  return gilt_parser_parse_trailing_location(p, out);
}

GiltStatus gilt_asm_parse_argument(GiltAsmParser *p, GiltAsmArgument *out,
                                   bool allow_type, bool allow_attrs)
{
  memset(out, 0, sizeof *out);
  if (parse_operand(p, &out->ssa, false))
    return GILT_FAILURE;
  if (allow_type && (gilt_asm_parse_punct(p, ":") ||
                     gilt_asm_parse_type(p, &out->type)))
    return GILT_FAILURE;
  if (allow_attrs && p->tok.kind == GILT_TOK_LBRACE) {
    GILT_VEC(GiltNamedAttrI) attrs = {0};
    GiltIdent *dup;
    GiltStatus st = gilt_parser_parse_attr_dict(p, GILT_VEC_FIELDS(&attrs));
    if (!st)
      out->attrs = gilt_dictionary_attr_get_i(p->ctx, attrs.len, attrs.data,
                                              &dup);
    gilt_vec_free(p->ctx, &attrs);
    if (st)
      return GILT_FAILURE;
  }
  return gilt_parser_parse_trailing_location(p, &out->loc);
}

GiltStatus gilt_asm_parse_region(GiltAsmParser *p, GiltRegion *region,
                                 const GiltAsmArgument *args,
                                 size_t num_args)
{
  return gilt_parser_parse_region(p, region, args, num_args);
}
