/*
** parse_resources.c - the `{-# dialect_resources: {builtin: {...}} #-}`
** section and `dense_resource<name> : type` attributes.
**
** MLIR prints the section after the IR that refers to it, but a dense
** resource attribute is immutable once made, so it needs its bytes at its
** first use. The parser therefore reads every section before the IR (a
** plain token scan finds them) and keeps the blobs by name; the main pass
** then only checks the sections' syntax again. Blob text is MLIR's: "0x",
** a 4-byte little-endian alignment, then the raw bytes. `external_resources`
** entries are accepted and ignored, as MLIR does for unknown ones.
*/
#include "ir/asm/parser.h"

#include <string.h>

#include "ir/context.h"

static bool has_metadata(const GiltLexer *lx)
{
  for (const char *p = lx->buf; p + 2 < lx->end; p++) {
    p = memchr(p, '{', (size_t)(lx->end - p - 2));
    if (!p)
      return false;
    if (p[1] == '-' && p[2] == '#')
      return true;
  }
  return false;
}

/* Decodes a blob value and checks its alignment header. */
static GiltStatus read_blob(GiltAsmParser *p, const char *key,
                            const GiltToken *value, GiltStrBuf *bytes)
{
  if (value->kind != GILT_TOK_STRING ||
      !gilt_token_get_hex_string(value, bytes))
    return gilt_parser_error_at(p, value->pos,
                                "expected hex string blob for key '%s'", key);
  if (bytes->len < 4)
    return gilt_parser_error_at(p, value->pos,
                                "expected hex string blob for key '%s' to "
                                "encode alignment in first 4 bytes", key);
  const uint8_t *b = (const uint8_t *)bytes->data;
  uint32_t align = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
                   (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  if (align & (align - 1))
    return gilt_parser_error_at(p, value->pos,
                                "expected hex string blob for key '%s' to "
                                "encode alignment in first 4 bytes, but got "
                                "non-power-of-2 value: %u", key, align);
  return GILT_SUCCESS;
}

static void store_blob(GiltAsmParser *p, const char *key, size_t key_len,
                       const GiltStrBuf *bytes)
{
  GiltParsedBlob *b = gilt_calloc(p->ctx, 1, sizeof *b);
  b->name = gilt_strndup(p->ctx, key, key_len);
  b->nbytes = bytes->len - 4;
  b->data = gilt_malloc(p->ctx, b->nbytes);
  memcpy(b->data, bytes->data + 4, b->nbytes);
  gilt_parser_define_symbol(p, b->name, key_len, GILT_SYM_BLOB, b);
}

/* `key: "0x..."` of the builtin dialect (external: `key: anything`). */
static GiltStatus parse_entry(GiltAsmParser *p, bool external, bool store)
{
  if (p->tok.kind != GILT_TOK_BARE_ID && p->tok.kind != GILT_TOK_STRING)
    return gilt_parser_error(p,
                             "expected identifier key for 'resource' entry");
  GiltStrBuf key, bytes;
  gilt_strbuf_init(&key, p->ctx);
  gilt_strbuf_init(&bytes, p->ctx);
  GiltToken key_tok = p->tok;
  if (key_tok.kind == GILT_TOK_STRING)
    gilt_parser_string_value(&key_tok, &key);
  else
    gilt_strbuf_append(&key, key_tok.ptr, key_tok.len);
  gilt_parser_advance(p);
  GiltStatus st = gilt_parser_expect(p, GILT_TOK_COLON, "expected ':'");
  GiltToken value = p->tok;
  /* The main pass only steps over blobs the first one decoded. */
  if (!st && !external && store)
    st = read_blob(p, key.data, &value, &bytes);
  if (!st && store && !external) {
    if (gilt_parser_lookup_symbol(p, key.data, key.len, GILT_SYM_BLOB))
      st = gilt_parser_error_at(p, key_tok.pos,
                                "redefinition of resource '%s'", key.data);
    else
      store_blob(p, key.data, key.len, &bytes);
  }
  if (!st)
    gilt_parser_advance(p);
  gilt_strbuf_free(&key);
  gilt_strbuf_free(&bytes);
  return st;
}

/* `name: { entry, ... }` for one dialect (or external resource owner). */
static GiltStatus parse_group(GiltAsmParser *p, bool external, bool store)
{
  if (p->tok.kind != GILT_TOK_BARE_ID)
    return gilt_parser_error(p,
                             "expected identifier key for 'resource' entry");
  GiltToken name = p->tok;
  gilt_parser_advance(p);
  if (gilt_parser_expect(p, GILT_TOK_COLON, "expected ':'") ||
      gilt_parser_expect(p, GILT_TOK_LBRACE, "expected '{'"))
    return GILT_FAILURE;
  if (!external && !gilt_token_is(&name, "builtin")) {
    if (gilt_context_lookup_dialect(p->ctx, name.ptr, name.len))
      return gilt_parser_error_at(p, name.pos, "unexpected 'resource' "
                                  "section for dialect '%.*s'",
                                  (int)name.len, name.ptr);
    return gilt_parser_error_at(p, name.pos, "dialect '%.*s' is unknown",
                                (int)name.len, name.ptr);
  }
  if (gilt_parser_consume_if(p, GILT_TOK_RBRACE))
    return GILT_SUCCESS;
  do {
    if (parse_entry(p, external, store))
      return GILT_FAILURE;
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  return gilt_parser_expect(p, GILT_TOK_RBRACE, "expected ',' or '}'");
}

static GiltStatus parse_resources(GiltAsmParser *p, bool external,
                                  bool store)
{
  if (gilt_parser_expect(p, GILT_TOK_LBRACE, "expected '{'"))
    return GILT_FAILURE;
  if (gilt_parser_consume_if(p, GILT_TOK_RBRACE))
    return GILT_SUCCESS;
  do {
    if (parse_group(p, external, store))
      return GILT_FAILURE;
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  return gilt_parser_expect(p, GILT_TOK_RBRACE, "expected ',' or '}'");
}

/* `{-#` (key `:` value) , ... `#-}` at the current token. */
static GiltStatus parse_section(GiltAsmParser *p, bool store)
{
  gilt_parser_advance(p);
  if (gilt_parser_consume_if(p, GILT_TOK_META_END))
    return GILT_SUCCESS;
  do {
    GiltToken key = p->tok;
    if (key.kind != GILT_TOK_BARE_ID)
      return gilt_parser_error(
          p, "expected identifier key in file metadata dictionary");
    gilt_parser_advance(p);
    if (gilt_parser_expect(p, GILT_TOK_COLON, "expected ':'"))
      return GILT_FAILURE;
    bool external = gilt_token_is(&key, "external_resources");
    if (!external && !gilt_token_is(&key, "dialect_resources"))
      return gilt_parser_error_at(p, key.pos, "unknown key '%.*s' in file "
                                  "metadata dictionary",
                                  (int)key.len, key.ptr);
    if (parse_resources(p, external, store))
      return GILT_FAILURE;
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  return gilt_parser_expect(p, GILT_TOK_META_END, "expected ',' or '#-}'");
}

GiltStatus gilt_parser_read_resources(GiltAsmParser *p)
{
  if (!has_metadata(&p->lex))
    return GILT_SUCCESS;
  GiltLexer saved = p->lex;
  GiltStatus st = GILT_SUCCESS;
  /* Bad tokens elsewhere are the main pass's to report: skip them. */
  p->tok = gilt_lexer_next(&p->lex);
  while (p->tok.kind != GILT_TOK_EOF && !st) {
    if (p->tok.kind == GILT_TOK_META_BEGIN)
      st = parse_section(p, true);
    else
      p->tok = gilt_lexer_next(&p->lex);
  }
  p->lex = saved;
  return st;
}

GiltStatus gilt_parser_skip_metadata(GiltAsmParser *p)
{
  return parse_section(p, false);
}

/* ---- dense_resource<name> ----------------------------------------------- */

/* A blob the context already holds with data (from the API or an earlier
** parse), for attributes parsed from strings. */
static GiltResourceBlob *context_blob(GiltContext *ctx, const char *name)
{
  GiltIdent *id = gilt_ident_get_cstr(ctx, name);
  for (GiltResourceBlob *b = ctx->blobs; b; b = b->next)
    if (b->name == id && b->data)
      return b;
  return NULL;
}

static GiltAttr *resource_attr(GiltAsmParser *p, const GiltToken *name_tok,
                               const char *name, size_t len, GiltType *type)
{
  if (strcmp(name, "__elided__") == 0)
    return gilt_dense_resource_attr_get_blob(
        type, gilt_resource_blob_lookup(p->ctx, name));
  GiltParsedBlob *parsed =
      gilt_parser_lookup_symbol(p, name, len, GILT_SYM_BLOB);
  GiltResourceBlob *known = parsed ? NULL : context_blob(p->ctx, name);
  if (!parsed && !known) {
    gilt_parser_error_at(p, name_tok->pos, "dense_resource blob '%s' is not "
                         "defined in a dialect_resources section", name);
    return NULL;
  }
  size_t have = parsed ? parsed->nbytes : known->nbytes;
  size_t want;
  bool fits = gilt_shaped_type_get_byte_size(type, &want);
  if (!fits || have != want) {
    GiltStrBuf sb, need;
    gilt_strbuf_init(&sb, p->ctx);
    gilt_strbuf_init(&need, p->ctx);
    if (fits)
      gilt_strbuf_printf(&need, "%zu", want);
    else
      gilt_strbuf_printf(&need, "more than fit in memory");
    gilt_parser_error_at(p, name_tok->pos, "dense_resource blob '%s' holds "
                         "%zu bytes, but type '%s' needs %s", name, have,
                         gilt_parser_type_str(&sb, type), need.data);
    gilt_strbuf_free(&need);
    gilt_strbuf_free(&sb);
    return NULL;
  }
  if (known)
    return gilt_dense_resource_attr_get_blob(type, known);
  return gilt_dense_resource_attr_get(type, name, parsed->data,
                                      parsed->nbytes);
}

GiltAttr *gilt_parser_parse_dense_resource(GiltAsmParser *p)
{
  GiltSrcPos pos = p->tok.pos;
  gilt_parser_advance(p);
  if (gilt_parser_expect(p, GILT_TOK_LESS,
                         "expected '<' after 'dense_resource'"))
    return NULL;
  GiltToken name_tok = p->tok;
  if (name_tok.kind != GILT_TOK_BARE_ID && name_tok.kind != GILT_TOK_STRING) {
    gilt_parser_error(p, "expected identifier key for 'resource' entry");
    return NULL;
  }
  GiltStrBuf name;
  gilt_strbuf_init(&name, p->ctx);
  if (name_tok.kind == GILT_TOK_STRING)
    gilt_parser_string_value(&name_tok, &name);
  else
    gilt_strbuf_append(&name, name_tok.ptr, name_tok.len);
  gilt_parser_advance(p);
  GiltAttr *a = NULL;
  GiltType *type;
  if (!gilt_parser_expect(p, GILT_TOK_GREATER, "expected '>'") &&
      (type = gilt_parser_parse_elements_type(p, pos)))
    a = resource_attr(p, &name_tok, name.data, name.len, type);
  gilt_strbuf_free(&name);
  return a;
}
