/*
** parser.c - entry points of the textual IR parser, its token and error
** helpers, and the top level of a file: operations, `#alias = ...` and
** `!alias = ...` definitions and `{-# ... #-}` metadata.
**
** The parse is single pass with one token of lookahead, as MLIR's. The only
** exception is the resource section, read ahead of everything else (see
** parse_resources.c). Errors stop the parse at the first one; the entry
** points then free everything half built: the top-level region (whose
** destruction drops all uses first, so ops may refer to each other in any
** order), forward-referenced blocks never defined, and placeholder values.
** This file is not the grammar of ops, types or attributes: see
** parse_ops.c, parse_types.c, parse_attrs.c and their siblings.
*/
#include "ir/asm/parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/builtin_dialect.h"
#include "ir/context.h"

void gilt_parser_init(GiltAsmParser *p, GiltContext *ctx, const char *buf,
                      size_t len, const char *filename)
{
  memset(p, 0, sizeof *p);
  p->ctx = ctx;
  p->filename = filename;
  p->file = gilt_ident_get_cstr(ctx, filename);
  gilt_lexer_init(&p->lex, buf, len);
  p->tok = (GiltToken){GILT_TOK_EOF, buf, 0, {1, 1}};
  gilt_name_map_init(&p->symbols, ctx);
  gilt_name_map_init(&p->ssa, ctx);
  gilt_paged_array_init(&p->numbered_ssa, ctx);
  gilt_name_map_init(&p->blocks, ctx);
}

void gilt_parser_free(GiltAsmParser *p)
{
  GiltContext *ctx = p->ctx;
  for (size_t i = 0; i < p->symbols.keys.len; i++) {
    if (p->symbols.keys.data[i].extra != GILT_SYM_BLOB)
      continue;
    GiltParsedBlob *b = p->symbol_values.data[i];
    gilt_free(ctx, b->name);
    gilt_free(ctx, b->data);
    gilt_free(ctx, b);
  }
  /* Blocks referenced but never defined belong to nobody: a failed parse
  ** leaves them behind after the IR using them is gone. */
  for (size_t i = 0; i < p->block_entries.len; i++)
    if (!p->block_entries.data[i].defined)
      gilt_block_destroy(p->block_entries.data[i].block);
  gilt_name_map_free(&p->symbols);
  gilt_name_map_free(&p->ssa);
  gilt_paged_array_free(&p->numbered_ssa);
  gilt_vec_free(ctx, &p->named_ssa);
  gilt_name_map_free(&p->blocks);
  gilt_vec_free(ctx, &p->symbol_values);
  gilt_vec_free(ctx, &p->ssa_entries);
  gilt_vec_free(ctx, &p->scope_defs);
  gilt_vec_free(ctx, &p->placeholders);
  gilt_vec_free(ctx, &p->block_entries);
  gilt_vec_free(ctx, &p->fwd_blocks);
  gilt_vec_free(ctx, &p->scopes);
  gilt_vec_free(ctx, &p->deferred_locs);
  gilt_vec_free(ctx, &p->uses);
  gilt_vec_free(ctx, &p->results);
  gilt_vec_free(ctx, &p->types);
}

void gilt_parser_vec_push(GiltContext *ctx, void **data, size_t *len,
                          size_t *cap, const void *elem, size_t size)
{
  gilt_vec_reserve_(ctx, data, cap, *len + 1, size);
  memcpy((char *)*data + *len * size, elem, size);
  ++*len;
}

/* ---- errors ------------------------------------------------------------- */

static void register_source(GiltAsmParser *p)
{
  if (p->source_registered)
    return;
  p->source_registered = true;
  gilt_context_add_source_buffer(p->ctx, p->filename, p->lex.buf,
                                 (size_t)(p->lex.end - p->lex.buf));
}

GiltLocation *gilt_parser_loc(GiltAsmParser *p, GiltSrcPos pos)
{
  return gilt_location_file_line_col_get_ident(p->ctx, p->file, pos.line,
                                               pos.col);
}

__attribute__((format(printf, 3, 0))) static GiltDiagnostic *
vdiag(GiltAsmParser *p, GiltSrcPos pos, const char *fmt, va_list ap)
{
  if (p->failed)
    return NULL;
  p->failed = true;
  register_source(p);
  va_list aq;
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  char *msg = gilt_malloc(p->ctx, (size_t)(n > 0 ? n : 0) + 1);
  vsnprintf(msg, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
  GiltDiagnostic *d = gilt_diag_create(p->ctx, GILT_SEVERITY_ERROR,
                                       gilt_parser_loc(p, pos), "%s", msg);
  gilt_free(p->ctx, msg);
  return d;
}

GiltDiagnostic *gilt_parser_diag(GiltAsmParser *p, GiltSrcPos pos,
                                 const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  GiltDiagnostic *d = vdiag(p, pos, fmt, ap);
  va_end(ap);
  return d;
}

__attribute__((format(printf, 3, 0))) static GiltStatus
verror(GiltAsmParser *p, GiltSrcPos pos, const char *fmt, va_list ap)
{
  GiltDiagnostic *d = vdiag(p, pos, fmt, ap);
  if (d)
    gilt_diag_emit(d);
  return GILT_FAILURE;
}

/* The position of the current token; at the end of the buffer, of its last
** character (as MLIR), so the quoted line is the last one. */
static GiltSrcPos current_pos(GiltAsmParser *p)
{
  if (p->tok.kind == GILT_TOK_EOF && p->tok.ptr > p->lex.buf)
    return gilt_lexer_pos_of(&p->lex, p->tok.ptr - 1);
  return p->tok.pos;
}

GiltStatus gilt_parser_error(GiltAsmParser *p, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  verror(p, current_pos(p), fmt, ap);
  va_end(ap);
  return GILT_FAILURE;
}

GiltStatus gilt_parser_error_at(GiltAsmParser *p, GiltSrcPos pos,
                                const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  verror(p, pos, fmt, ap);
  va_end(ap);
  return GILT_FAILURE;
}

/* Backs up from the current token over blank space, line ends and `//`
** comments to just after the last code before it. */
static GiltSrcPos wrong_token_pos(GiltAsmParser *p)
{
  const char *start = p->lex.buf, *orig = p->tok.ptr;
  if (p->tok.kind == GILT_TOK_EOF && orig > start)
    orig--;
  const char *e = orig;
  for (;;) {
    while (e > start && (e[-1] == ' ' || e[-1] == '\t'))
      e--;
    if (e == start)
      return gilt_lexer_pos_of(&p->lex, orig);
    if (e[-1] != '\n' && e[-1] != '\r')
      return gilt_lexer_pos_of(&p->lex, e);
    e--;
    const char *ls = e;
    while (ls > start && ls[-1] != '\n' && ls[-1] != '\r')
      ls--;
    for (const char *c = ls; c + 1 < e; c++) {
      if (c[0] == '/' && c[1] == '/') {
        e = c;
        break;
      }
    }
  }
}

GiltStatus gilt_parser_wrong_token(GiltAsmParser *p, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  verror(p, wrong_token_pos(p), fmt, ap);
  va_end(ap);
  return GILT_FAILURE;
}

void gilt_parser_note_failure(GiltAsmParser *p) { p->failed = true; }

GiltStatus gilt_parser_enter(GiltAsmParser *p)
{
  if (p->depth >= GILT_PARSER_MAX_DEPTH)
    return gilt_parser_error(p, "nesting too deep");
  p->depth++;
  return GILT_SUCCESS;
}

void gilt_parser_leave(GiltAsmParser *p) { p->depth--; }

/* ---- tokens ------------------------------------------------------------- */

void gilt_parser_advance(GiltAsmParser *p)
{
  p->tok = gilt_lexer_next(&p->lex);
  if (p->tok.kind == GILT_TOK_ERROR)
    gilt_parser_error_at(p, p->lex.error_pos, "%s", p->lex.error);
}

bool gilt_parser_consume_if(GiltAsmParser *p, GiltTokenKind k)
{
  if (p->tok.kind != k)
    return false;
  gilt_parser_advance(p);
  return true;
}

GiltStatus gilt_parser_expect(GiltAsmParser *p, GiltTokenKind k,
                              const char *msg)
{
  if (gilt_parser_consume_if(p, k))
    return GILT_SUCCESS;
  return gilt_parser_wrong_token(p, "%s", msg);
}

bool gilt_parser_at_keyword(GiltAsmParser *p, const char *kw)
{
  return p->tok.kind == GILT_TOK_BARE_ID && gilt_token_is(&p->tok, kw);
}

void gilt_parser_string_value(const GiltToken *t, GiltStrBuf *out)
{
  gilt_token_get_string(t, out);
  gilt_strbuf_append(out, "", 0); /* NUL-terminate even when empty */
}

/* ---- symbols: aliases and dialect symbols ------------------------------- */

void *gilt_parser_lookup_symbol(GiltAsmParser *p, const char *name,
                                size_t len, unsigned kind)
{
  uint32_t i = gilt_name_map_find(&p->symbols, name, len, kind);
  return i == GILT_NAME_MAP_NONE ? NULL : p->symbol_values.data[i];
}

void gilt_parser_define_symbol(GiltAsmParser *p, const char *name, size_t len,
                          unsigned kind, void *value)
{
  bool added;
  uint32_t i = gilt_name_map_insert(&p->symbols, name, len, kind, &added);
  if (added)
    gilt_vec_push(p->ctx, &p->symbol_values, value);
  else
    p->symbol_values.data[i] = value;
}

GiltStatus gilt_parser_parse_dialect_symbol(GiltAsmParser *p,
                                            unsigned alias_kind,
                                            void **alias, GiltToken *dialect,
                                            GiltToken *body)
{
  GiltToken tok = p->tok;
  const char *id = tok.ptr + 1, *id_end = tok.ptr + tok.len;
  const char *dot = memchr(id, '.', (size_t)(id_end - id));
  gilt_parser_advance(p);
  /* A body counts only when its `<` touches the name: `!foo<...>`. */
  bool trailing = p->tok.kind == GILT_TOK_LESS && p->tok.ptr == id_end;
  *alias = NULL;
  if (!trailing && !dot) {
    *alias = gilt_parser_lookup_symbol(p, id, (size_t)(id_end - id),
                                       alias_kind);
    if (!*alias)
      return gilt_parser_wrong_token(p, "undefined symbol alias id '%.*s'",
                                     (int)(id_end - id), id);
    return GILT_SUCCESS;
  }
  *dialect = tok;
  dialect->ptr = id;
  dialect->len = (size_t)((dot ? dot : id_end) - id);
  const char *body_start = dot ? dot + 1 : id_end + 1, *body_end = id_end;
  if (trailing) {
    if (!gilt_lexer_skip_dialect_body(&p->lex, id_end))
      return gilt_parser_error_at(p, p->lex.error_pos, "%s", p->lex.error);
    /* `!foo.bar<x>` keeps `bar<x>`; `!foo<x>` keeps `x`. */
    body_end = dot ? p->lex.cur : p->lex.cur - 1;
    gilt_parser_advance(p);
  }
  *body = tok;
  body->ptr = body_start;
  body->len = (size_t)(body_end - body_start);
  return GILT_SUCCESS;
}

/* ---- the top level ------------------------------------------------------ */

/* `#name = attr`, `#name = loc(...)` or `!name = type`. */
static GiltStatus parse_alias_def(GiltAsmParser *p)
{
  bool is_type = p->tok.kind == GILT_TOK_BANG_ID;
  const char *what = is_type ? "type" : "attribute";
  const char *name = p->tok.ptr + 1;
  size_t len = p->tok.len - 1;
  bool defined;
  if (is_type)
    defined = gilt_parser_lookup_symbol(p, name, len, GILT_SYM_TYPE_ALIAS);
  else /* attribute and location aliases share the `#` names */
    defined = gilt_parser_lookup_symbol(p, name, len, GILT_SYM_ATTR_ALIAS) ||
              gilt_parser_lookup_symbol(p, name, len, GILT_SYM_LOC_ALIAS);
  if (defined)
    return gilt_parser_error(p, "redefinition of %s alias id '%.*s'", what,
                             (int)len, name);
  if (memchr(name, '.', len))
    return gilt_parser_error(p, "%s names with a '.' are reserved for "
                                "dialect-defined names", what);
  gilt_parser_advance(p);
  char msg[48];
  snprintf(msg, sizeof msg, "expected '=' in %s alias definition", what);
  if (gilt_parser_expect(p, GILT_TOK_EQUAL, msg))
    return GILT_FAILURE;
  unsigned kind = is_type ? GILT_SYM_TYPE_ALIAS : GILT_SYM_ATTR_ALIAS;
  void *value;
  if (is_type) {
    value = gilt_parser_parse_type(p);
  } else if (gilt_parser_at_keyword(p, "loc")) {
    kind = GILT_SYM_LOC_ALIAS;
    gilt_parser_advance(p);
    if (gilt_parser_expect(p, GILT_TOK_LPAREN, "expected '(' in location"))
      return GILT_FAILURE;
    value = gilt_parser_parse_location_instance(p);
    if (value &&
        gilt_parser_expect(p, GILT_TOK_RPAREN, "expected ')' in location"))
      return GILT_FAILURE;
  } else {
    value = gilt_parser_parse_attr(p);
  }
  if (!value)
    return GILT_FAILURE;
  gilt_parser_define_symbol(p, name, len, kind, value);
  return GILT_SUCCESS;
}

static GiltStatus parse_top_level(GiltAsmParser *p, GiltRegion *top)
{
  gilt_parser_push_scope(p, top);
  gilt_parser_advance(p);
  while (p->tok.kind != GILT_TOK_EOF) {
    GiltStatus st;
    switch (p->tok.kind) {
    case GILT_TOK_ERROR:
      return GILT_FAILURE; /* the lexer's error is reported */
    case GILT_TOK_HASH_ID:
    case GILT_TOK_BANG_ID:
      st = parse_alias_def(p);
      break;
    case GILT_TOK_META_BEGIN:
      st = gilt_parser_skip_metadata(p);
      break;
    default:
      st = gilt_parser_parse_operation(p);
      break;
    }
    if (st != GILT_SUCCESS)
      return GILT_FAILURE;
  }
  if (gilt_parser_check_placeholders(p) ||
      gilt_parser_resolve_deferred_locs(p, top))
    return GILT_FAILURE;
  return gilt_parser_pop_scope(p);
}

/* The single top-level builtin.module, or a new module holding the ops. */
static GiltOp *take_module(GiltContext *ctx, GiltBlock *body)
{
  GiltOp *first = gilt_block_get_first_op(body);
  if (first && !gilt_op_get_next(first) &&
      gilt_builtin_op_is(first, BUILTIN_OP_MODULE)) {
    gilt_op_remove_from_parent(first);
    return first;
  }
  GiltOp *module = gilt_module_create(ctx, gilt_location_unknown_get(ctx));
  GiltBlock *dst = gilt_module_get_body(module);
  while ((first = gilt_block_get_first_op(body))) {
    gilt_op_remove_from_parent(first);
    gilt_block_append_op(dst, first);
  }
  return module;
}

GiltOp *gilt_parse_source(GiltContext *ctx, const char *buf, size_t len,
                          const char *filename)
{
  GiltAsmParser p;
  gilt_parser_init(&p, ctx, buf, len, filename ? filename : "<string>");
  register_source(&p);
  GiltRegion *top = gilt_region_create_detached(ctx);
  GiltBlock *body = gilt_block_create(ctx, 0, NULL, NULL);
  gilt_region_append_block(top, body);
  p.block = body;
  GiltOp *module = NULL;
  if (!gilt_parser_read_resources(&p) && !parse_top_level(&p, top))
    module = take_module(ctx, body);
  /* IR first, so that the placeholders and blocks it used have no uses
  ** left when they go. */
  gilt_region_destroy_detached(top);
  gilt_parser_free_placeholders(&p);
  gilt_parser_free(&p);
  return module;
}

typedef enum ParsedKind { PARSE_TYPE, PARSE_ATTR, PARSE_LOCATION } ParsedKind;

/* Parses one type, attribute or location from a string; no aliases, no
** resources section, and the string is shown to the diagnostics only on
** error. */
static void *parse_string(GiltContext *ctx, const char *str, ParsedKind kind)
{
  if (!str)
    return NULL;
  GiltAsmParser p;
  gilt_parser_init(&p, ctx, str, strlen(str), "<string>");
  gilt_parser_advance(&p);
  void *r = NULL;
  if (p.tok.kind != GILT_TOK_ERROR) {
    switch (kind) {
    case PARSE_TYPE:
      r = gilt_parser_parse_type(&p);
      break;
    case PARSE_ATTR:
      r = gilt_parser_parse_attr(&p);
      break;
    case PARSE_LOCATION:
      r = gilt_parser_parse_location_instance(&p);
      break;
    }
  }
  if (r && p.tok.kind != GILT_TOK_EOF) {
    size_t rest = (size_t)(p.lex.end - p.tok.ptr);
    gilt_parser_error(&p, "found trailing characters: '%.*s'",
                      (int)(rest > 64 ? 64 : rest), p.tok.ptr);
    r = NULL;
  }
  gilt_parser_free(&p);
  return r;
}

GiltType *gilt_type_parse(GiltContext *ctx, const char *str)
{
  return parse_string(ctx, str, PARSE_TYPE);
}

GiltAttr *gilt_attr_parse(GiltContext *ctx, const char *str)
{
  return parse_string(ctx, str, PARSE_ATTR);
}

GiltLocation *gilt_location_parse(GiltContext *ctx, const char *str)
{
  return parse_string(ctx, str, PARSE_LOCATION);
}

static GiltStatus check_dialect(GiltAsmParser *p, GiltSrcPos pos,
                                const GiltToken *dialect, const char *what,
                                GiltStrBuf *name)
{
  gilt_strbuf_append(name, dialect->ptr, dialect->len);
  gilt_strbuf_append(name, "", 0);
  bool valid = dialect->len > 0 && (gilt_is_alpha((unsigned char)name->data[0]) ||
                                    name->data[0] == '_');
  for (size_t i = 1; valid && i < dialect->len; i++) {
    int c = (unsigned char)name->data[i];
    valid = gilt_is_alpha(c) || gilt_is_digit(c) || c == '_' || c == '$';
  }
  if (!valid)
    return gilt_parser_error_at(p, pos, "invalid dialect namespace '%s'",
                                name->data);
  if (gilt_context_lookup_dialect(p->ctx, dialect->ptr, dialect->len))
    return gilt_parser_error_at(p, pos,
                                "dialect '%s' provides no %s parsing hook",
                                name->data, what);
  if (!gilt_context_get_allow_unregistered_dialects(p->ctx))
    return gilt_parser_error_at(p, pos,
                                "%s of unregistered dialect '%s'; use "
                                "--allow-unregistered-dialect to accept it",
                                what, name->data);
  return GILT_SUCCESS;
}

/* The registered dialect of `!dialect.x` or `!dialect<x>` at the current
** token, when it defines types (is_type) or attributes; else NULL, and the
** symbol is an alias, opaque, or an error reported below. */
static GiltDialectInfo *defining_dialect(GiltAsmParser *p, bool is_type)
{
  const char *id = p->tok.ptr + 1, *id_end = p->tok.ptr + p->tok.len;
  const char *dot = memchr(id, '.', (size_t)(id_end - id));
  if (!dot && !(id_end < p->lex.end && *id_end == '<'))
    return NULL;
  GiltDialectInfo *d = gilt_context_lookup_dialect(
      p->ctx, id, (size_t)((dot ? dot : id_end) - id));
  if (!d || !(is_type ? d->def->num_types : d->def->num_attrs))
    return NULL;
  return d;
}

void *gilt_parser_parse_extended(GiltAsmParser *p, bool is_type)
{
  GiltSrcPos pos = p->tok.pos;
  GiltDialectInfo *d = defining_dialect(p, is_type);
  if (d)
    return gilt_parser_parse_dialect_defined(p, d, is_type);
  void *alias;
  GiltToken dialect, body;
  if (gilt_parser_parse_dialect_symbol(
          p, is_type ? GILT_SYM_TYPE_ALIAS : GILT_SYM_ATTR_ALIAS, &alias,
          &dialect, &body))
    return NULL;
  if (alias)
    return alias;
  GiltStrBuf name;
  gilt_strbuf_init(&name, p->ctx);
  void *result = NULL;
  if (!check_dialect(p, pos, &dialect, is_type ? "type" : "attribute", &name))
    result = is_type
                 ? (void *)gilt_opaque_type_get(p->ctx, name.data, body.ptr,
                                                body.len)
                 : (void *)gilt_opaque_attr_get(p->ctx, name.data, body.ptr,
                                                body.len);
  gilt_strbuf_free(&name);
  return result;
}
