/*
** parse_dense.c - dense elements literals: `dense<...> : type`.
**
** The literal comes before its type, so it is read first as a list of
** element tokens and the shape their nesting implies (MLIR's
** TensorLiteralParser); once the type is known each token is converted
** and stored little-endian, as gilt_dense_elements_attr_get expects. A
** scalar literal is a splat; a `"0x..."` string gives the raw bytes.
** Dense string, complex and sparse literals are not part of gilt.
*/
#include "ir/asm/parser.h"

#include <string.h>


typedef GILT_VEC(int64_t) DimVec;

typedef struct Element {
  GiltToken tok; /* integer, float, `true` or `false` */
  bool negative;
} Element;

typedef struct Literal {
  GILT_VEC(Element) elems;
  DimVec shape;    /* of a list; empty for a splat */
  bool is_list;
  bool is_hex;
  GiltToken hex;   /* the string of a hex literal */
} Literal;

static GiltStatus parse_element(GiltAsmParser *p, Literal *lit)
{
  Element e = {p->tok, false};
  if (p->tok.kind == GILT_TOK_MINUS) {
    gilt_parser_advance(p);
    if (p->tok.kind != GILT_TOK_INTEGER && p->tok.kind != GILT_TOK_FLOAT)
      return gilt_parser_error(p,
                               "expected integer or floating point literal");
    e = (Element){p->tok, true};
  } else if (p->tok.kind != GILT_TOK_INTEGER &&
             p->tok.kind != GILT_TOK_FLOAT &&
             !gilt_parser_at_keyword(p, "true") &&
             !gilt_parser_at_keyword(p, "false")) {
    return gilt_parser_error(p, "expected element literal of primitive type");
  }
  gilt_vec_push(p->ctx, &lit->elems, e);
  gilt_parser_advance(p);
  return GILT_SUCCESS;
}

static bool same_dims(const DimVec *a, const DimVec *b)
{
  return a->len == b->len &&
         (a->len == 0 || !memcmp(a->data, b->data, a->len * sizeof *a->data));
}

/* `[` (element | list) , ... `]`; dims gets the list's shape. */
static GiltStatus parse_list(GiltAsmParser *p, Literal *lit, DimVec *dims)
{
  if (gilt_parser_enter(p))
    return GILT_FAILURE;
  gilt_parser_advance(p);
  DimVec first = {0}, sub = {0};
  int64_t count = 0;
  GiltStatus st = GILT_FAILURE;
  if (p->tok.kind != GILT_TOK_RSQUARE) {
    do {
      sub.len = 0;
      if (p->tok.kind == GILT_TOK_LSQUARE ? parse_list(p, lit, &sub)
                                          : parse_element(p, lit))
        goto done;
      if (count++ == 0) {
        for (size_t i = 0; i < sub.len; i++)
          gilt_vec_push(p->ctx, &first, sub.data[i]);
      } else if (!same_dims(&first, &sub)) {
        gilt_parser_error(p, "tensor literal is invalid; ranks are not "
                             "consistent between elements");
        goto done;
      }
    } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  }
  if (gilt_parser_expect(p, GILT_TOK_RSQUARE, "expected ']'"))
    goto done;
  gilt_vec_push(p->ctx, dims, count);
  for (size_t i = 0; i < first.len; i++)
    gilt_vec_push(p->ctx, dims, first.data[i]);
  st = GILT_SUCCESS;
done:
  gilt_vec_free(p->ctx, &first);
  gilt_vec_free(p->ctx, &sub);
  gilt_parser_leave(p);
  return st;
}

static GiltStatus parse_literal(GiltAsmParser *p, Literal *lit)
{
  if (p->tok.kind == GILT_TOK_STRING) {
    lit->is_hex = true;
    lit->hex = p->tok;
    gilt_parser_advance(p);
    return GILT_SUCCESS;
  }
  if (p->tok.kind == GILT_TOK_LSQUARE) {
    lit->is_list = true;
    return parse_list(p, lit, &lit->shape);
  }
  return parse_element(p, lit);
}

void gilt_parser_store_float(GiltType *t, double v, uint8_t *out)
{
  /* Little-endian hosts only, as the rest of the dense storage. */
  uint64_t bits =
      gilt_float_bits_from_double(gilt_float_type_get_kind(t), v, false);
  memcpy(out, &bits, gilt_type_get_storage_size(t));
}

void gilt_parser_store_int(int64_t v, size_t size, uint8_t *out)
{
  for (size_t i = 0; i < size; i++)
    out[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

static GiltStatus store_element(GiltAsmParser *p, const Element *e,
                                GiltType *elem, uint8_t *out)
{
  bool is_bool = e->tok.kind == GILT_TOK_BARE_ID;
  if (gilt_type_get_kind(elem) == GILT_TYPE_FLOAT) {
    double d;
    if (gilt_parser_float_value(p, &e->tok, e->negative, elem, &d))
      return GILT_FAILURE;
    gilt_parser_store_float(elem, d, out);
    return GILT_SUCCESS;
  }
  bool is_unsigned = gilt_type_get_kind(elem) == GILT_TYPE_INTEGER &&
                     gilt_integer_type_get_signedness(elem) == GILT_UNSIGNED;
  int64_t v;
  if (e->negative && is_unsigned)
    return gilt_parser_error_at(p, e->tok.pos, "expected unsigned integer "
                                "elements, but parsed negative value");
  if (e->tok.kind == GILT_TOK_FLOAT)
    return gilt_parser_error_at(p, e->tok.pos, "expected integer elements, "
                                "but parsed floating-point");
  if (is_bool && !gilt_type_is_integer(elem, 1))
    return gilt_parser_error_at(
        p, e->tok.pos, "expected i1 type for 'true' or 'false' values");
  if (is_bool)
    v = e->tok.ptr[0] == 't';
  else if (gilt_parser_int_value(p, &e->tok, e->negative, elem,
                                 "integer constant out of range for type",
                                 &v))
    return GILT_FAILURE;
  gilt_parser_store_int(v, gilt_type_get_storage_size(elem), out);
  return GILT_SUCCESS;
}

static const char *shape_str(GiltStrBuf *sb, size_t rank, const int64_t *dims)
{
  for (size_t i = 0; i < rank; i++)
    gilt_strbuf_printf(sb, "%s%lld", i ? ", " : "", (long long)dims[i]);
  gilt_strbuf_append(sb, "", 0);
  return sb->data;
}

static GiltAttr *hex_attr(GiltAsmParser *p, GiltSrcPos pos, Literal *lit,
                          GiltType *type)
{
  GiltStrBuf bytes, tstr;
  gilt_strbuf_init(&bytes, p->ctx);
  gilt_strbuf_init(&tstr, p->ctx);
  GiltAttr *a = NULL;
  size_t esize = gilt_type_get_storage_size(
      gilt_shaped_type_get_element_type(type));
  size_t want;
  bool fits = gilt_shaped_type_get_byte_size(type, &want);
  if (!gilt_token_get_hex_string(&lit->hex, &bytes))
    gilt_parser_error_at(p, lit->hex.pos, "expected string containing hex "
                                          "digits starting with `0x`");
  else if (bytes.len != esize && (!fits || bytes.len != want))
    gilt_parser_error_at(p, pos, "elements hex data size is invalid for "
                                 "provided type: '%s'",
                         gilt_parser_type_str(&tstr, type));
  else
    a = gilt_dense_elements_attr_get(type, bytes.data ? bytes.data : "",
                                     bytes.len);
  gilt_strbuf_free(&bytes);
  gilt_strbuf_free(&tstr);
  return a;
}

static GiltAttr *elements_attr(GiltAsmParser *p, GiltSrcPos pos,
                               Literal *lit, GiltType *type)
{
  GiltType *elem = gilt_shaped_type_get_element_type(type);
  size_t rank = gilt_shaped_type_get_rank(type);
  const int64_t *shape = gilt_shaped_type_get_shape(type);
  GiltStrBuf a, b;
  if (lit->is_list &&
      (lit->shape.len != rank ||
       (rank && memcmp(lit->shape.data, shape, rank * sizeof *shape)))) {
    gilt_strbuf_init(&a, p->ctx);
    gilt_strbuf_init(&b, p->ctx);
    gilt_parser_error_at(p, pos, "inferred shape of elements literal ([%s]) "
                                 "does not match type ([%s])",
                         shape_str(&a, lit->shape.len, lit->shape.data),
                         shape_str(&b, rank, shape));
    gilt_strbuf_free(&a);
    gilt_strbuf_free(&b);
    return NULL;
  }
  size_t n = lit->elems.len, esize = gilt_type_get_storage_size(elem);
  if (n == 0 && gilt_shaped_type_get_num_elements(type) != 0) {
    gilt_strbuf_init(&a, p->ctx);
    gilt_parser_error_at(p, pos, "parsed zero elements, but type ('%s') "
                                 "expected at least 1",
                         gilt_parser_type_str(&a, type));
    gilt_strbuf_free(&a);
    return NULL;
  }
  uint8_t *data = gilt_malloc(p->ctx, n * esize);
  GiltAttr *attr = NULL;
  size_t i = 0;
  while (i < n && !store_element(p, &lit->elems.data[i], elem, data + i * esize))
    i++;
  if (i == n)
    attr = gilt_dense_elements_attr_get(type, data, n * esize);
  gilt_free(p->ctx, data);
  return attr;
}

GiltType *gilt_parser_parse_elements_type(GiltAsmParser *p, GiltSrcPos pos)
{
  if (gilt_parser_expect(p, GILT_TOK_COLON, "expected ':'"))
    return NULL;
  GiltType *type = gilt_parser_parse_type(p);
  if (!type)
    return NULL;
  GiltTypeKind k = gilt_type_get_kind(type);
  if (k != GILT_TYPE_TENSOR && k != GILT_TYPE_VECTOR) {
    gilt_parser_error_at(p, pos, "elements literal must be a shaped type");
    return NULL;
  }
  if (!gilt_shaped_type_has_rank(type) ||
      !gilt_shaped_type_has_static_shape(type)) {
    gilt_parser_error_at(p, pos,
                         "elements literal type must have static shape");
    return NULL;
  }
  GiltType *elem = gilt_shaped_type_get_element_type(type);
  GiltTypeKind ek = gilt_type_get_kind(elem);
  if ((ek != GILT_TYPE_INTEGER && ek != GILT_TYPE_INDEX &&
       ek != GILT_TYPE_FLOAT) || gilt_type_get_bit_width(elem) > 64) {
    GiltStrBuf sb;
    gilt_strbuf_init(&sb, p->ctx);
    gilt_parser_error_at(p, pos, "expected floating-point or integer "
                                 "element type of at most 64 bits, got '%s'",
                         gilt_parser_type_str(&sb, elem));
    gilt_strbuf_free(&sb);
    return NULL;
  }
  return type;
}

GiltAttr *gilt_parser_parse_dense(GiltAsmParser *p)
{
  GiltSrcPos pos = p->tok.pos;
  Literal lit;
  memset(&lit, 0, sizeof lit);
  GiltAttr *a = NULL;
  GiltType *type;
  gilt_parser_advance(p);
  if (gilt_parser_expect(p, GILT_TOK_LESS, "expected '<' after 'dense'"))
    goto done;
  if (!gilt_parser_consume_if(p, GILT_TOK_GREATER) &&
      (parse_literal(p, &lit) ||
       gilt_parser_expect(p, GILT_TOK_GREATER, "expected '>'")))
    goto done;
  if (!(type = gilt_parser_parse_elements_type(p, pos)))
    goto done;
  a = lit.is_hex ? hex_attr(p, pos, &lit, type)
                 : elements_attr(p, pos, &lit, type);
done:
  gilt_vec_free(p->ctx, &lit.elems);
  gilt_vec_free(p->ctx, &lit.shape);
  return a;
}
