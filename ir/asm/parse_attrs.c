/*
** parse_attrs.c - attributes: integers, floats, booleans, strings, arrays,
** dictionaries, types, symbol references, unit, strided layouts, dense
** arrays, `#alias` and opaque attributes of unregistered dialects; dense
** elements and dense resources have files of their own.
**
** Integer and float literals follow MLIR: an integer without a type is
** i64, a float f64; a signless iN accepts values that fit N bits either
** signed or unsigned and stores them sign-extended (so `255 : i8` is -1),
** and a hexadecimal literal given a float type is that float's bit pattern.
*/
#include "ir/asm/parser.h"

#include <stdlib.h>
#include <string.h>


GiltStatus gilt_parser_int_value(GiltAsmParser *p, const GiltToken *tok,
                                 bool negative, GiltType *type,
                                 const char *range_msg, int64_t *out)
{
  bool index = gilt_type_get_kind(type) == GILT_TYPE_INDEX;
  unsigned width = index ? 64 : gilt_integer_type_get_width(type);
  GiltSignedness sign =
      index ? GILT_SIGNED : gilt_integer_type_get_signedness(type);
  /* Values are held in 64 bits: wider types get the signed 64-bit range. */
  unsigned w = width > 64 ? 64 : width;
  if (width > 64)
    sign = GILT_SIGNED;
  uint64_t mag, top = w ? UINT64_C(1) << (w - 1) : 0;
  bool ok = gilt_token_get_uint64(tok, &mag);
  if (ok && negative)
    ok = w > 0 && mag <= top;
  else if (ok && sign == GILT_SIGNED)
    ok = w > 0 ? mag < top : mag == 0;
  else if (ok && w < 64)
    ok = mag >> w == 0;
  if (!ok)
    return gilt_parser_error_at(p, tok->pos, "%s", range_msg);
  uint64_t v = negative ? 0 - mag : mag;
  /* i1 keeps 0/1; other signless and signed types are sign-extended. */
  *out = gilt_int_extend(v, w, sign != GILT_UNSIGNED && w > 1);
  return GILT_SUCCESS;
}

static GiltStatus hex_float_value(GiltAsmParser *p, const GiltToken *tok,
                                  bool negative, GiltType *type, double *out)
{
  if (tok->len < 2 || tok->ptr[1] != 'x') {
    GiltDiagnostic *d = gilt_parser_diag(
        p, tok->pos,
        "unexpected decimal integer literal for a floating point value");
    if (d) {
      gilt_diag_add_note(d, gilt_parser_loc(p, tok->pos),
                         "add a trailing dot to make the literal a float");
      gilt_diag_emit(d);
    }
    return GILT_FAILURE;
  }
  if (negative)
    return gilt_parser_error_at(
        p, tok->pos, "hexadecimal float literal should not have a leading "
                     "minus");
  uint64_t bits;
  unsigned width = gilt_type_get_bit_width(type);
  if (!gilt_token_get_uint64(tok, &bits) ||
      (width < 64 && bits >> width))
    return gilt_parser_error_at(
        p, tok->pos, "hexadecimal float constant out of range for type");
  *out = gilt_float_bits_to_double(gilt_float_type_get_kind(type), bits);
  return GILT_SUCCESS;
}

GiltStatus gilt_parser_float_value(GiltAsmParser *p, const GiltToken *tok,
                                   bool negative, GiltType *type,
                                   double *out)
{
  if (tok->kind == GILT_TOK_INTEGER)
    return hex_float_value(p, tok, negative, type, out);
  if (tok->kind != GILT_TOK_FLOAT)
    return gilt_parser_error_at(p, tok->pos,
                                "expected floating point literal");
  /* strtod needs a terminated copy: the buffer goes on past the token. */
  char small[64], *s = small;
  if (tok->len >= sizeof small)
    s = gilt_malloc(p->ctx, tok->len + 1);
  memcpy(s, tok->ptr, tok->len);
  s[tok->len] = 0;
  double d = strtod(s, NULL);
  if (s != small)
    gilt_free(p->ctx, s);
  *out = negative ? -d : d; /* the attribute or element rounds it, once */
  return GILT_SUCCESS;
}

/* The `: type` after a number, or the default type. */
static GiltType *literal_type(GiltAsmParser *p, GiltType *dflt)
{
  if (!gilt_parser_consume_if(p, GILT_TOK_COLON))
    return dflt;
  return gilt_parser_parse_type(p);
}

static GiltAttr *parse_number(GiltAsmParser *p, bool negative)
{
  GiltToken tok = p->tok;
  bool is_float = tok.kind == GILT_TOK_FLOAT;
  gilt_parser_advance(p);
  GiltType *type = literal_type(
      p, is_float ? gilt_float_type_get(p->ctx, GILT_F64)
                  : gilt_integer_type_get(p->ctx, 64, GILT_SIGNLESS));
  if (!type)
    return NULL;
  GiltTypeKind k = gilt_type_get_kind(type);
  if (k == GILT_TYPE_FLOAT) {
    double d;
    if (gilt_parser_float_value(p, &tok, negative, type, &d))
      return NULL;
    return gilt_float_attr_get(type, d);
  }
  if (is_float) {
    gilt_parser_error_at(p, tok.pos,
                         "floating point value not valid for specified type");
    return NULL;
  }
  if (k != GILT_TYPE_INTEGER && k != GILT_TYPE_INDEX) {
    gilt_parser_error_at(p, tok.pos,
                         "integer literal not valid for specified type");
    return NULL;
  }
  if (negative && k == GILT_TYPE_INTEGER &&
      gilt_integer_type_get_signedness(type) == GILT_UNSIGNED) {
    gilt_parser_error_at(p, tok.pos, "negative integer literal not valid "
                                     "for unsigned integer type");
    return NULL;
  }
  int64_t v;
  if (gilt_parser_int_value(p, &tok, negative, type,
                            "integer constant out of range for attribute",
                            &v))
    return NULL;
  /* As in MLIR, where a bool is an i1 integer: `1 : i1` prints as `true`
  ** and must read back as the same attribute. */
  if (gilt_type_is_integer(type, 1) &&
      gilt_integer_type_get_signedness(type) == GILT_SIGNLESS)
    return gilt_bool_attr_get(p->ctx, v != 0);
  return gilt_integer_attr_get(type, v);
}

static GiltAttr *parse_array(GiltAsmParser *p)
{
  GILT_VEC(GiltAttr *) elems = {0};
  GiltAttr *a = NULL;
  gilt_parser_advance(p);
  if (p->tok.kind != GILT_TOK_RSQUARE) {
    do {
      GiltAttr *e = gilt_parser_parse_attr(p);
      if (!e)
        goto done;
      gilt_vec_push(p->ctx, &elems, e);
    } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  }
  if (!gilt_parser_expect(p, GILT_TOK_RSQUARE, "expected ',' or ']'"))
    a = gilt_array_attr_get(p->ctx, elems.len, elems.data);
done:
  gilt_vec_free(p->ctx, &elems);
  return a;
}

static GiltAttr *parse_dictionary(GiltAsmParser *p)
{
  GILT_VEC(GiltNamedAttrI) entries = {0};
  GiltAttr *a = NULL;
  GiltIdent *dup;
  if (!gilt_parser_parse_attr_dict(p, GILT_VEC_FIELDS(&entries)))
    a = gilt_dictionary_attr_get_i(p->ctx, entries.len, entries.data, &dup);
  gilt_vec_free(p->ctx, &entries);
  return a;
}

/* The name of a dictionary entry as an identifier, or NULL. */
static GiltIdent *entry_name(GiltAsmParser *p)
{
  if (p->tok.kind == GILT_TOK_BARE_ID)
    return gilt_ident_get(p->ctx, p->tok.ptr, p->tok.len);
  if (p->tok.kind != GILT_TOK_STRING) {
    gilt_parser_wrong_token(p, "expected attribute name");
    return NULL;
  }
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, p->ctx);
  gilt_parser_string_value(&p->tok, &sb);
  GiltIdent *id = sb.len ? gilt_ident_get(p->ctx, sb.data, sb.len) : NULL;
  gilt_strbuf_free(&sb);
  if (!id)
    gilt_parser_error(p, "expected valid attribute name");
  return id;
}

/* Whether `name` is among the n entries before it. Small dictionaries are
** scanned (identifiers are interned, so pointers compare); big ones get a
** hash set of the names, filled on first need. */
static bool seen_before(GiltNameMap *seen, const GiltNamedAttrI *entries,
                        size_t n, GiltIdent *name)
{
  bool added;
  if (n < 32) {
    for (size_t i = 0; i < n; i++)
      if (entries[i].name == name)
        return true;
    return false;
  }
  for (size_t i = seen->keys.len; i < n; i++)
    gilt_name_map_insert(seen, entries[i].name->str, entries[i].name->len, 0,
                         &added);
  gilt_name_map_insert(seen, name->str, name->len, 0, &added);
  return !added;
}

GiltStatus gilt_parser_parse_attr_dict(GiltAsmParser *p, void **data,
                                       size_t *len, size_t *cap)
{
  if (gilt_parser_expect(p, GILT_TOK_LBRACE,
                         "expected '{' in attribute dictionary"))
    return GILT_FAILURE;
  if (gilt_parser_consume_if(p, GILT_TOK_RBRACE))
    return GILT_SUCCESS;
  size_t first = *len;
  GiltNameMap seen;
  gilt_name_map_init(&seen, p->ctx);
  GiltStatus st = GILT_FAILURE;
  do {
    GiltIdent *name = entry_name(p);
    if (!name)
      goto done;
    if (*len > first && seen_before(&seen, (GiltNamedAttrI *)*data + first,
                                    *len - first, name)) {
      gilt_parser_error(p, "duplicate key '%s' in dictionary attribute",
                        name->str);
      goto done;
    }
    gilt_parser_advance(p);
    GiltNamedAttrI e = {name, NULL};
    if (!gilt_parser_consume_if(p, GILT_TOK_EQUAL))
      e.attr = gilt_unit_attr_get(p->ctx);
    else if (!(e.attr = gilt_parser_parse_attr(p)))
      goto done;
    gilt_parser_vec_push(p->ctx, data, len, cap, &e, sizeof e);
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  st = gilt_parser_expect(p, GILT_TOK_RBRACE,
                          "expected '}' in attribute dictionary");
done:
  gilt_name_map_free(&seen);
  return st;
}

/* The name of an `@name` or `@"name"` token, interned. */
static GiltIdent *symbol_name(GiltAsmParser *p, const GiltToken *t)
{
  if (t->ptr[1] != '"')
    return gilt_ident_get(p->ctx, t->ptr + 1, t->len - 1);
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, p->ctx);
  gilt_parser_string_value(t, &sb);
  GiltIdent *id = gilt_ident_get(p->ctx, sb.data, sb.len);
  gilt_strbuf_free(&sb);
  return id;
}

/* Whether the current token is a `:` immediately followed by another. */
static bool at_double_colon(GiltAsmParser *p)
{
  return p->tok.kind == GILT_TOK_COLON && p->lex.cur == p->tok.ptr + 1 &&
         p->lex.cur < p->lex.end && *p->lex.cur == ':';
}

/* `@root::@nested::...` */
static GiltAttr *parse_symbol_ref(GiltAsmParser *p)
{
  GILT_VEC(GiltIdent *) names = {0};
  GiltAttr *a = NULL;
  gilt_vec_push(p->ctx, &names, symbol_name(p, &p->tok));
  gilt_parser_advance(p);
  while (at_double_colon(p)) {
    gilt_parser_advance(p);
    gilt_parser_advance(p);
    if (p->tok.kind != GILT_TOK_AT_ID) {
      gilt_parser_error(p, "expected nested symbol reference identifier");
      goto done;
    }
    gilt_vec_push(p->ctx, &names, symbol_name(p, &p->tok));
    gilt_parser_advance(p);
  }
  a = gilt_symbol_ref_attr_get_i(p->ctx, names.len, names.data);
done:
  gilt_vec_free(p->ctx, &names);
  return a;
}

/* A stride or offset of a strided layout: an int64 or `?`. */
static GiltStatus parse_stride(GiltAsmParser *p, int64_t *out)
{
  if (gilt_parser_consume_if(p, GILT_TOK_QUESTION)) {
    *out = GILT_DYNAMIC;
    return GILT_SUCCESS;
  }
  GiltSrcPos pos = p->tok.pos;
  bool negative = gilt_parser_consume_if(p, GILT_TOK_MINUS);
  uint64_t v;
  if (p->tok.kind != GILT_TOK_INTEGER || !gilt_token_get_uint64(&p->tok, &v) ||
      v > INT64_MAX)
    return gilt_parser_error_at(p, pos,
                                "expected a 64-bit signed integer or '?'");
  *out = negative ? -(int64_t)v : (int64_t)v;
  gilt_parser_advance(p);
  return GILT_SUCCESS;
}

/* `strided<[s0, s1, ...]>` or `strided<[...], offset: o>` */
static GiltAttr *parse_strided(GiltAsmParser *p)
{
  GILT_VEC(int64_t) strides = {0};
  int64_t offset = 0, s;
  GiltAttr *a = NULL;
  gilt_parser_advance(p);
  if (gilt_parser_expect(p, GILT_TOK_LESS, "expected '<' after 'strided'") ||
      gilt_parser_expect(p, GILT_TOK_LSQUARE, "expected '['"))
    goto done;
  if (p->tok.kind != GILT_TOK_RSQUARE) {
    do {
      if (parse_stride(p, &s))
        goto done;
      gilt_vec_push(p->ctx, &strides, s);
    } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  }
  if (gilt_parser_expect(p, GILT_TOK_RSQUARE, "expected ']'"))
    goto done;
  if (!gilt_parser_consume_if(p, GILT_TOK_GREATER)) {
    if (gilt_parser_expect(p, GILT_TOK_COMMA, "expected ','"))
      goto done;
    if (!gilt_parser_at_keyword(p, "offset")) {
      gilt_parser_wrong_token(p, "expected 'offset' after comma");
      goto done;
    }
    gilt_parser_advance(p);
    if (gilt_parser_expect(p, GILT_TOK_COLON, "expected ':' after 'offset'") ||
        parse_stride(p, &offset) ||
        gilt_parser_expect(p, GILT_TOK_GREATER, "expected '>'"))
      goto done;
  }
  a = gilt_strided_layout_attr_get(p->ctx, offset, strides.len, strides.data);
done:
  gilt_vec_free(p->ctx, &strides);
  return a;
}

/* One element of a dense array, stored at `out`. As MLIR's
** DenseArrayElementParser: i1 takes only `true` and `false`, other
** integers only integer literals, floats what a float attribute takes. */
static GiltStatus parse_array_element(GiltAsmParser *p, GiltType *et,
                                      uint8_t *out)
{
  bool negative = gilt_parser_consume_if(p, GILT_TOK_MINUS);
  GiltToken tok = p->tok;
  bool is_bool = !negative && (gilt_parser_at_keyword(p, "true") ||
                               gilt_parser_at_keyword(p, "false"));
  bool is_i1 = gilt_type_is_integer(et, 1);
  int64_t v;
  double d;
  if (gilt_type_get_kind(et) == GILT_TYPE_FLOAT) {
    if (gilt_parser_float_value(p, &tok, negative, et, &d))
      return GILT_FAILURE;
    gilt_parser_store_float(et, d, out);
  } else if (is_bool) {
    if (!is_i1)
      return gilt_parser_error_at(
          p, tok.pos, "expected i1 type for 'true' or 'false' values");
    out[0] = tok.ptr[0] == 't';
  } else if (tok.kind != GILT_TOK_INTEGER) {
    return gilt_parser_wrong_token(p, "expected integer literal");
  } else if (is_i1) {
    return gilt_parser_error_at(
        p, tok.pos, "expected 'true' or 'false' values for i1 type");
  } else if (negative &&
             gilt_integer_type_get_signedness(et) == GILT_UNSIGNED) {
    return gilt_parser_error_at(p, tok.pos, "negative integer literal not "
                                "valid for unsigned integer type");
  } else if (gilt_parser_int_value(p, &tok, negative, et,
                                   "integer constant out of range for type",
                                   &v)) {
    return GILT_FAILURE;
  } else {
    gilt_parser_store_int(v, gilt_type_get_storage_size(et), out);
  }
  gilt_parser_advance(p);
  return GILT_SUCCESS;
}

/* The `T` of `array<T ...>`: i1, or an integer or float of whole bytes. */
static GiltType *parse_array_element_type(GiltAsmParser *p)
{
  GiltSrcPos pos = p->tok.pos;
  GiltType *et = gilt_parser_parse_type(p);
  const char *why = et ? gilt_dense_array_check_element_type(et) : NULL;
  if (!why)
    return et;
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, p->ctx);
  gilt_parser_error_at(p, pos, "%s, got: %s", why,
                       gilt_parser_type_str(&sb, et));
  gilt_strbuf_free(&sb);
  return NULL;
}

/* `array<T>` or `array<T: e0, e1, ...>`: MLIR's DenseArrayAttr. */
static GiltAttr *parse_dense_array(GiltAsmParser *p)
{
  GILT_VEC(uint8_t) data = {0};
  GiltType *et;
  GiltAttr *a = NULL;
  size_t n = 0;
  gilt_parser_advance(p);
  if (gilt_parser_expect(p, GILT_TOK_LESS, "expected '<' after 'array'") ||
      !(et = parse_array_element_type(p)))
    return NULL;
  size_t size = gilt_type_get_storage_size(et);
  if (!gilt_parser_consume_if(p, GILT_TOK_GREATER)) {
    if (gilt_parser_expect(p, GILT_TOK_COLON,
                           "expected ':' after dense array type"))
      goto done;
    do {
      gilt_vec_reserve(p->ctx, &data, (n + 1) * size);
      if (parse_array_element(p, et, data.data + n * size))
        goto done;
      n++;
    } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
    if (gilt_parser_expect(p, GILT_TOK_GREATER,
                           "expected '>' to close an array attribute"))
      goto done;
  }
  a = gilt_dense_array_attr_get(et, n, data.data);
done:
  gilt_vec_free(p->ctx, &data);
  return a;
}

static GiltAttr *parse_string_attr(GiltAsmParser *p)
{
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, p->ctx);
  gilt_parser_string_value(&p->tok, &sb);
  GiltAttr *a = gilt_string_attr_get(p->ctx, sb.data, sb.len);
  gilt_strbuf_free(&sb);
  gilt_parser_advance(p);
  return a;
}

/* Attributes spelled as a bare identifier, or a type. */
static GiltAttr *parse_keyword_attr(GiltAsmParser *p)
{
  if (gilt_parser_at_keyword(p, "true") || gilt_parser_at_keyword(p, "false")) {
    bool v = p->tok.ptr[0] == 't';
    gilt_parser_advance(p);
    return gilt_bool_attr_get(p->ctx, v);
  }
  if (gilt_parser_at_keyword(p, "unit")) {
    gilt_parser_advance(p);
    return gilt_unit_attr_get(p->ctx);
  }
  if (gilt_parser_at_keyword(p, "dense"))
    return gilt_parser_parse_dense(p);
  if (gilt_parser_at_keyword(p, "dense_resource"))
    return gilt_parser_parse_dense_resource(p);
  if (gilt_parser_at_keyword(p, "strided"))
    return parse_strided(p);
  if (gilt_parser_at_keyword(p, "array"))
    return parse_dense_array(p);
  if (!gilt_parser_at_type(p)) {
    gilt_parser_wrong_token(p, "expected attribute value");
    return NULL;
  }
  GiltType *t = gilt_parser_parse_type(p);
  return t ? gilt_type_attr_get(t) : NULL;
}

static GiltAttr *parse_attr(GiltAsmParser *p)
{
  switch (p->tok.kind) {
  case GILT_TOK_LSQUARE:
    return parse_array(p);
  case GILT_TOK_LBRACE:
    return parse_dictionary(p);
  case GILT_TOK_HASH_ID:
    return gilt_parser_parse_extended(p, false);
  case GILT_TOK_INTEGER:
  case GILT_TOK_FLOAT:
    return parse_number(p, false);
  case GILT_TOK_MINUS:
    gilt_parser_advance(p);
    if (p->tok.kind == GILT_TOK_INTEGER || p->tok.kind == GILT_TOK_FLOAT)
      return parse_number(p, true);
    gilt_parser_wrong_token(
        p, "expected constant integer or floating point value");
    return NULL;
  case GILT_TOK_STRING:
    return parse_string_attr(p);
  case GILT_TOK_AT_ID:
    return parse_symbol_ref(p);
  case GILT_TOK_BARE_ID:
  case GILT_TOK_LPAREN:
  case GILT_TOK_BANG_ID:
    return parse_keyword_attr(p);
  default:
    gilt_parser_wrong_token(p, "expected attribute value");
    return NULL;
  }
}

GiltAttr *gilt_parser_parse_attr(GiltAsmParser *p)
{
  if (gilt_parser_enter(p))
    return NULL;
  GiltAttr *a = parse_attr(p);
  gilt_parser_leave(p);
  return a;
}
