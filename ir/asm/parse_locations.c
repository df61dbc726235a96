/*
** parse_locations.c - `loc(...)`: unknown, "file":line:col, "name",
** "name"(child), callsite(a at b), fused<metadata>[a, b], and `loc(#alias)`.
**
** MLIR prints location aliases (`#loc3 = loc(...)`) at the end of the file,
** after their uses, so a trailing `loc(#alias)` may come before its
** definition: it gets a placeholder location (one per use, recognized by
** its file name) that gilt_parser_resolve_deferred_locs replaces in every
** op and block argument once the file is read. Locations are not
** attributes in gilt, so `loc(...)` is not an attribute value here.
*/
#include "ir/asm/parser.h"

#include <stdio.h>
#include <string.h>

static GiltStatus parse_uint(GiltAsmParser *p, const char *what,
                             unsigned *out)
{
  uint64_t v;
  if (p->tok.kind != GILT_TOK_INTEGER || !gilt_token_get_uint64(&p->tok, &v) ||
      v > UINT32_MAX)
    return gilt_parser_wrong_token(p, "expected integer %s number in "
                                      "FileLineColLoc", what);
  *out = (unsigned)v;
  gilt_parser_advance(p);
  return GILT_SUCCESS;
}

/* "file":line:col, "name" or "name"(child) */
static GiltLocation *parse_name_or_file(GiltAsmParser *p)
{
  GiltStrBuf str;
  gilt_strbuf_init(&str, p->ctx);
  gilt_parser_string_value(&p->tok, &str);
  gilt_parser_advance(p);
  GiltLocation *loc = NULL, *child = NULL;
  unsigned line = 0, col = 0;
  if (gilt_parser_consume_if(p, GILT_TOK_COLON)) {
    if (!parse_uint(p, "line", &line) &&
        !gilt_parser_expect(p, GILT_TOK_COLON,
                            "expected ':' in FileLineColLoc") &&
        !parse_uint(p, "column", &col))
      loc = gilt_location_file_line_col_get(p->ctx, str.data, line, col);
  } else if (gilt_parser_consume_if(p, GILT_TOK_LPAREN)) {
    if ((child = gilt_parser_parse_location_instance(p)) &&
        !gilt_parser_expect(p, GILT_TOK_RPAREN,
                            "expected ')' after child location of NameLoc"))
      loc = gilt_location_name_get(p->ctx, str.data, child);
  } else {
    loc = gilt_location_name_get(p->ctx, str.data, NULL);
  }
  gilt_strbuf_free(&str);
  return loc;
}

static GiltLocation *parse_callsite(GiltAsmParser *p)
{
  gilt_parser_advance(p);
  if (gilt_parser_expect(p, GILT_TOK_LPAREN,
                         "expected '(' in callsite location"))
    return NULL;
  GiltLocation *callee = gilt_parser_parse_location_instance(p);
  if (!callee)
    return NULL;
  if (!gilt_parser_at_keyword(p, "at")) {
    gilt_parser_wrong_token(p, "expected 'at' in callsite location");
    return NULL;
  }
  gilt_parser_advance(p);
  GiltLocation *caller = gilt_parser_parse_location_instance(p);
  if (!caller || gilt_parser_expect(p, GILT_TOK_RPAREN,
                                    "expected ')' in callsite location"))
    return NULL;
  return gilt_location_callsite_get(callee, caller);
}

static GiltLocation *parse_fused(GiltAsmParser *p)
{
  GiltAttr *metadata = NULL;
  GILT_VEC(GiltLocation *) locs = {0};
  GiltLocation *loc = NULL;
  gilt_parser_advance(p);
  if (gilt_parser_consume_if(p, GILT_TOK_LESS) &&
      (!(metadata = gilt_parser_parse_attr(p)) ||
       gilt_parser_expect(p, GILT_TOK_GREATER,
                          "expected '>' after fused location metadata")))
    goto done;
  if (gilt_parser_expect(p, GILT_TOK_LSQUARE,
                         "expected '[' in fused location"))
    goto done;
  if (p->tok.kind != GILT_TOK_RSQUARE) {
    do {
      GiltLocation *l = gilt_parser_parse_location_instance(p);
      if (!l)
        goto done;
      gilt_vec_push(p->ctx, &locs, l);
    } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  }
  if (!gilt_parser_expect(p, GILT_TOK_RSQUARE,
                          "expected ']' in fused location"))
    loc = gilt_location_fused_get(p->ctx, locs.len, locs.data, metadata);
done:
  gilt_vec_free(p->ctx, &locs);
  return loc;
}

static GiltLocation *parse_instance(GiltAsmParser *p)
{
  if (p->tok.kind == GILT_TOK_STRING)
    return parse_name_or_file(p);
  if (gilt_parser_at_keyword(p, "callsite"))
    return parse_callsite(p);
  if (gilt_parser_at_keyword(p, "fused"))
    return parse_fused(p);
  if (gilt_parser_at_keyword(p, "unknown")) {
    gilt_parser_advance(p);
    return gilt_location_unknown_get(p->ctx);
  }
  gilt_parser_wrong_token(p, "expected location instance");
  return NULL;
}

GiltLocation *gilt_parser_parse_location_instance(GiltAsmParser *p)
{
  if (gilt_parser_enter(p))
    return NULL;
  GiltLocation *loc = parse_instance(p);
  gilt_parser_leave(p);
  return loc;
}

/* The location standing for deferred alias number i until resolved. */
static GiltLocation *placeholder(GiltAsmParser *p, size_t i)
{
  if (!p->deferred_file) {
    char name[64];
    snprintf(name, sizeof name, "<gilt deferred location %p>", (void *)p);
    p->deferred_file = gilt_ident_get_cstr(p->ctx, name);
  }
  return gilt_location_file_line_col_get(p->ctx, p->deferred_file->str,
                                         (unsigned)i + 1, 0);
}

/* `#alias` inside `loc(...)`. */
static GiltLocation *parse_alias_use(GiltAsmParser *p)
{
  GiltToken t = p->tok;
  gilt_parser_advance(p);
  GiltLocation *loc = gilt_parser_lookup_symbol(p, t.ptr + 1, t.len - 1,
                                                GILT_SYM_LOC_ALIAS);
  if (loc)
    return loc;
  if (gilt_parser_lookup_symbol(p, t.ptr + 1, t.len - 1,
                                GILT_SYM_ATTR_ALIAS)) {
    gilt_parser_error_at(p, t.pos, "expected location, but found attribute "
                                   "alias '%.*s'", (int)t.len, t.ptr);
    return NULL;
  }
  GiltDeferredLoc d = {t.ptr + 1, t.len - 1, t.pos};
  gilt_vec_push(p->ctx, &p->deferred_locs, d);
  return placeholder(p, p->deferred_locs.len - 1);
}

GiltStatus gilt_parser_parse_trailing_location(GiltAsmParser *p,
                                               GiltLocation **out)
{
  if (!gilt_parser_at_keyword(p, "loc"))
    return GILT_SUCCESS;
  gilt_parser_advance(p);
  if (gilt_parser_expect(p, GILT_TOK_LPAREN, "expected '(' in location"))
    return GILT_FAILURE;
  GiltLocation *loc;
  if (p->tok.kind == GILT_TOK_HASH_ID &&
      !memchr(p->tok.ptr, '.', p->tok.len))
    loc = parse_alias_use(p);
  else
    loc = gilt_parser_parse_location_instance(p);
  if (!loc || gilt_parser_expect(p, GILT_TOK_RPAREN,
                                 "expected ')' in location"))
    return GILT_FAILURE;
  *out = loc;
  return GILT_SUCCESS;
}

/* ---- resolving deferred aliases ----------------------------------------- */

typedef struct Resolver {
  GiltAsmParser *p;
  GiltLocation **resolved; /* by deferred index */
} Resolver;

static void fix(const Resolver *r, GiltLocation **slot)
{
  GiltLocation *l = *slot;
  if (l->kind == GILT_LOC_FILE_LINE_COL &&
      l->flc.file == r->p->deferred_file && l->flc.line >= 1 &&
      l->flc.line <= r->p->deferred_locs.len)
    *slot = r->resolved[l->flc.line - 1];
}

static GiltWalkResult fix_op(GiltOp *op, void *user)
{
  const Resolver *r = user;
  fix(r, &op->loc);
  for (size_t i = 0; i < op->num_regions; i++)
    for (GiltBlock *b = gilt_op_region_array(op)[i].first; b; b = b->next)
      for (size_t a = 0; a < b->num_args; a++)
        fix(r, gilt_block_arg_loc(b->args[a]));
  return GILT_WALK_ADVANCE;
}

GiltStatus gilt_parser_resolve_deferred_locs(GiltAsmParser *p,
                                             GiltRegion *top)
{
  size_t n = p->deferred_locs.len;
  if (!n)
    return GILT_SUCCESS;
  GiltLocation **resolved = gilt_calloc(p->ctx, n, sizeof *resolved);
  GiltStatus st = GILT_SUCCESS;
  for (size_t i = 0; i < n && !st; i++) {
    GiltDeferredLoc *d = &p->deferred_locs.data[i];
    resolved[i] = gilt_parser_lookup_symbol(p, d->name, d->len,
                                            GILT_SYM_LOC_ALIAS);
    if (!resolved[i])
      st = gilt_parser_error_at(p, d->pos,
                                "operation location alias was never defined");
  }
  Resolver r = {p, resolved};
  for (GiltBlock *b = top->first; b && !st; b = b->next)
    for (GiltOp *op = b->first; op; op = op->next)
      gilt_op_walk(op, GILT_WALK_PRE_ORDER, fix_op, &r);
  gilt_free(p->ctx, resolved);
  return st;
}
