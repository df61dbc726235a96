/*
** parse_types.c - types: iN/siN/uiN, index, f16, bf16, f32, f64, none,
** tensor, memref, vector, function types, `!alias`, types dialects define
** (through parser.c and parse_dialect.c) and opaque types of unregistered
** dialects (`!dialect.body`, `!dialect<body>`). A tensor's encoding is
** checked by its own hook when it has one (`#graph.layout<...>`).
**
** Follows MLIR's grammar and messages, including its way of lexing shapes:
** `4x?xf32` arrives as the tokens `4`, `x`, `?`, `xf32`, and the parser
** splits identifiers that start with `x` (and `0x...` literals) by moving
** the lexer back. Complex, tuple and affine-map types are not part of gilt.
*/
#include "ir/asm/parser.h"

#include <stdio.h>
#include <string.h>

#include "ir/support/checked_math.h"

typedef GILT_VEC(int64_t) DimVec;

static GiltType *parse_non_function_type(GiltAsmParser *p);

const char *gilt_parser_type_str(GiltStrBuf *sb, GiltType *t)
{
  gilt_type_print(t, gilt_strbuf_callback, sb);
  return sb->data ? sb->data : "";
}

/* `i32`, `si8`, `ui16`: the width after the prefix, or 0 and false. */
static bool int_type_spelling(const GiltToken *t, GiltSignedness *sign,
                              size_t *digits)
{
  size_t skip = 1;
  *sign = GILT_SIGNLESS;
  if (t->len > 2 && (t->ptr[0] == 's' || t->ptr[0] == 'u') &&
      t->ptr[1] == 'i') {
    *sign = t->ptr[0] == 's' ? GILT_SIGNED : GILT_UNSIGNED;
    skip = 2;
  } else if (t->len < 2 || t->ptr[0] != 'i') {
    return false;
  }
  for (size_t i = skip; i < t->len; i++)
    if (!gilt_is_digit((unsigned char)t->ptr[i]))
      return false;
  *digits = skip;
  return true;
}

static const char *const type_keywords[] = {
    "index", "f16", "bf16", "f32", "f64", "none", "tensor", "memref",
    "vector"};

bool gilt_parser_at_type(GiltAsmParser *p)
{
  if (p->tok.kind == GILT_TOK_LPAREN || p->tok.kind == GILT_TOK_BANG_ID)
    return true;
  if (p->tok.kind != GILT_TOK_BARE_ID)
    return false;
  GiltSignedness sign;
  size_t skip;
  if (int_type_spelling(&p->tok, &sign, &skip))
    return true;
  for (size_t i = 0; i < sizeof type_keywords / sizeof *type_keywords; i++)
    if (gilt_token_is(&p->tok, type_keywords[i]))
      return true;
  return false;
}

static GiltType *parse_int_type(GiltAsmParser *p, GiltSignedness sign,
                                size_t skip)
{
  uint64_t width = 0;
  for (size_t i = skip; i < p->tok.len && width <= 16777215; i++)
    width = width * 10 + (uint64_t)(p->tok.ptr[i] - '0');
  if (width > 16777215) {
    gilt_parser_error(p, "integer bitwidth is limited to 16777215 bits");
    return NULL;
  }
  gilt_parser_advance(p);
  return gilt_integer_type_get(p->ctx, (unsigned)width, sign);
}

/* `x` between dimensions; `xf32` leaves `f32` as the next token. */
static GiltStatus parse_x(GiltAsmParser *p)
{
  if (p->tok.kind != GILT_TOK_BARE_ID || p->tok.ptr[0] != 'x')
    return gilt_parser_wrong_token(p, "expected 'x' in dimension list");
  if (p->tok.len > 1)
    gilt_lexer_reset(&p->lex, p->tok.ptr + 1);
  gilt_parser_advance(p);
  return GILT_SUCCESS;
}

static GiltStatus parse_dim(GiltAsmParser *p, int64_t *out)
{
  if (gilt_parser_consume_if(p, GILT_TOK_QUESTION)) {
    *out = GILT_DYNAMIC;
    return GILT_SUCCESS;
  }
  /* No hex in shapes: `0x4xf32` is `0`, `x4xf32`. */
  if (p->tok.len > 1 && p->tok.ptr[1] == 'x') {
    *out = 0;
    gilt_lexer_reset(&p->lex, p->tok.ptr + 1);
    gilt_parser_advance(p);
    return GILT_SUCCESS;
  }
  uint64_t v;
  if (!gilt_token_get_uint64(&p->tok, &v) || v > INT64_MAX)
    return gilt_parser_error(p, "invalid dimension");
  *out = (int64_t)v;
  gilt_parser_advance(p);
  return GILT_SUCCESS;
}

/* (dim `x`)* where dim is an integer or, if allowed, `?`. */
static GiltStatus parse_dims(GiltAsmParser *p, DimVec *dims,
                             bool allow_dynamic)
{
  while (p->tok.kind == GILT_TOK_INTEGER ||
         (allow_dynamic && p->tok.kind == GILT_TOK_QUESTION)) {
    int64_t d = 0;
    if (parse_dim(p, &d) || parse_x(p))
      return GILT_FAILURE;
    gilt_vec_push(p->ctx, dims, d);
  }
  return GILT_SUCCESS;
}

/* Static shapes must have an element count that fits in int64 (a `?`
** or a 0 anywhere keeps the count in range, whatever the order). */
static GiltStatus check_size(GiltAsmParser *p, GiltSrcPos pos,
                             const DimVec *dims)
{
  int64_t n;
  if (gilt_dims_product(dims->len, dims->data, &n))
    return gilt_parser_error_at(p, pos, "shape has too many elements");
  return GILT_SUCCESS;
}

static bool is_scalar(GiltType *t)
{
  GiltTypeKind k = gilt_type_get_kind(t);
  return k == GILT_TYPE_INTEGER || k == GILT_TYPE_INDEX ||
         k == GILT_TYPE_FLOAT;
}

/* Elements of tensors and memrefs: scalars, vectors, dialect types. */
static bool is_container_element(GiltType *t)
{
  GiltTypeKind k = gilt_type_get_kind(t);
  return is_scalar(t) || k == GILT_TYPE_VECTOR || k == GILT_TYPE_OPAQUE ||
         k == GILT_TYPE_DIALECT;
}

/* `<` shape element-type: the common head of tensor and memref types. */
static GiltType *parse_shaped_head(GiltAsmParser *p, const char *what,
                                   DimVec *dims, bool *unranked)
{
  GiltSrcPos pos = p->tok.pos;
  char msg[40];
  snprintf(msg, sizeof msg, "expected '<' in %s type", what);
  gilt_parser_advance(p);
  if (gilt_parser_expect(p, GILT_TOK_LESS, msg))
    return NULL;
  *unranked = gilt_parser_consume_if(p, GILT_TOK_STAR);
  if (*unranked ? parse_x(p) : parse_dims(p, dims, true))
    return NULL;
  if (check_size(p, pos, dims))
    return NULL;
  GiltSrcPos elem_pos = p->tok.pos;
  GiltType *elem = gilt_parser_parse_type(p);
  if (elem && !is_container_element(elem)) {
    gilt_parser_error_at(p, elem_pos, "invalid %s element type", what);
    return NULL;
  }
  return elem;
}

static GiltType *parse_tensor(GiltAsmParser *p)
{
  DimVec dims = {0};
  bool unranked;
  GiltType *t = NULL;
  GiltType *elem = parse_shaped_head(p, "tensor", &dims, &unranked);
  GiltAttr *encoding = NULL;
  GiltSrcPos enc_pos = p->tok.pos;
  if (elem && gilt_parser_consume_if(p, GILT_TOK_COMMA)) {
    enc_pos = p->tok.pos;
    if (!(encoding = gilt_parser_parse_attr(p)))
      elem = NULL;
  }
  if (elem &&
      !gilt_parser_expect(p, GILT_TOK_GREATER, "expected '>' in tensor type")) {
    if (unranked && encoding)
      gilt_parser_error_at(p, enc_pos,
                           "cannot apply encoding to unranked tensor");
    else if (encoding &&
             gilt_tensor_encoding_verify(gilt_parser_loc(p, enc_pos),
                                         encoding, dims.len, dims.data, elem))
      gilt_parser_note_failure(p);
    else if (unranked)
      t = gilt_unranked_tensor_type_get(p->ctx, elem);
    else
      t = gilt_tensor_type_get(p->ctx, dims.len, dims.data, elem, encoding);
  }
  gilt_vec_free(p->ctx, &dims);
  return t;
}

/* One of the attributes after a memref's element type: a strided layout,
** or else the memory space, which comes last. */
static GiltStatus parse_memref_attr(GiltAsmParser *p, size_t rank,
                                    GiltAttr **layout, GiltAttr **space)
{
  GiltSrcPos pos = p->tok.pos;
  GiltAttr *a = gilt_parser_parse_attr(p);
  if (!a)
    return GILT_FAILURE;
  if (gilt_attr_get_kind(a) != GILT_ATTR_STRIDED_LAYOUT) {
    if (*space)
      return gilt_parser_error_at(
          p, pos, "multiple memory spaces specified in memref type");
    *space = a;
    return GILT_SUCCESS;
  }
  if (*space)
    return gilt_parser_error_at(
        p, pos, "expected memory space to be last in memref type");
  if (a->strided.rank != rank)
    return gilt_parser_error_at(
        p, pos, "expected the number of strides to match the rank");
  *layout = a;
  return GILT_SUCCESS;
}

static GiltType *parse_memref(GiltAsmParser *p)
{
  GiltSrcPos pos = p->tok.pos;
  DimVec dims = {0};
  bool unranked;
  GiltType *t = NULL;
  GiltType *elem = parse_shaped_head(p, "memref", &dims, &unranked);
  GiltAttr *layout = NULL, *space = NULL;
  if (elem && unranked) {
    gilt_parser_error_at(p, pos, "unranked memref types are not supported");
    goto done;
  }
  if (!elem || gilt_parser_consume_if(p, GILT_TOK_GREATER))
    goto make;
  if (gilt_parser_expect(p, GILT_TOK_COMMA,
                         "expected ',' or '>' in memref type"))
    goto done;
  do {
    if (parse_memref_attr(p, dims.len, &layout, &space))
      goto done;
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  if (gilt_parser_expect(p, GILT_TOK_GREATER, "expected ',' or '>'"))
    goto done;
make:
  if (elem)
    t = gilt_memref_type_get(p->ctx, dims.len, dims.data, elem, layout,
                             space);
done:
  gilt_vec_free(p->ctx, &dims);
  return t;
}

static GiltType *parse_vector(GiltAsmParser *p)
{
  GiltSrcPos pos = p->tok.pos;
  DimVec dims = {0};
  GiltType *t = NULL;
  gilt_parser_advance(p);
  if (gilt_parser_expect(p, GILT_TOK_LESS, "expected '<' in vector type") ||
      parse_dims(p, &dims, false) || check_size(p, pos, &dims))
    goto done;
  for (size_t i = 0; i < dims.len; i++) {
    if (dims.data[i] <= 0) {
      gilt_parser_error(p, "vector types must have positive constant sizes");
      goto done;
    }
  }
  GiltSrcPos elem_pos = p->tok.pos;
  GiltType *elem = gilt_parser_parse_type(p);
  if (!elem ||
      gilt_parser_expect(p, GILT_TOK_GREATER, "expected '>' in vector type"))
    goto done;
  if (!is_scalar(elem))
    gilt_parser_error_at(p, elem_pos,
                         "vector elements must be int/index/float type");
  else
    t = gilt_vector_type_get(p->ctx, dims.len, dims.data, elem);
done:
  gilt_vec_free(p->ctx, &dims);
  return t;
}

GiltStatus gilt_parser_parse_type_list_parens(GiltAsmParser *p, void **data,
                                              size_t *len, size_t *cap)
{
  if (gilt_parser_expect(p, GILT_TOK_LPAREN, "expected '('"))
    return GILT_FAILURE;
  if (gilt_parser_consume_if(p, GILT_TOK_RPAREN))
    return GILT_SUCCESS;
  do {
    GiltType *t = gilt_parser_parse_type(p);
    if (!t)
      return GILT_FAILURE;
    gilt_parser_vec_push(p->ctx, data, len, cap, &t, sizeof t);
  } while (gilt_parser_consume_if(p, GILT_TOK_COMMA));
  return gilt_parser_expect(p, GILT_TOK_RPAREN, "expected ')'");
}

GiltStatus gilt_parser_parse_result_types(GiltAsmParser *p, void **data,
                                          size_t *len, size_t *cap)
{
  if (p->tok.kind == GILT_TOK_LPAREN)
    return gilt_parser_parse_type_list_parens(p, data, len, cap);
  if (gilt_parser_enter(p))
    return GILT_FAILURE;
  GiltType *t = parse_non_function_type(p);
  gilt_parser_leave(p);
  if (!t)
    return GILT_FAILURE;
  gilt_parser_vec_push(p->ctx, data, len, cap, &t, sizeof t);
  return GILT_SUCCESS;
}

static GiltType *parse_function_type(GiltAsmParser *p)
{
  /* Inputs then results go on p->types; nested function types push and
  ** pop above them, so only indices stay valid. */
  size_t first = p->types.len, num_inputs = 0;
  GiltType *t = NULL;
  if (gilt_parser_parse_type_list_parens(p, GILT_VEC_FIELDS(&p->types)))
    goto done;
  num_inputs = p->types.len - first;
  if (gilt_parser_expect(p, GILT_TOK_ARROW, "expected '->' in function type") ||
      gilt_parser_parse_result_types(p, GILT_VEC_FIELDS(&p->types)))
    goto done;
  GiltType **types = p->types.len > first ? p->types.data + first : NULL;
  t = gilt_function_type_get(p->ctx, num_inputs, types,
                             p->types.len - first - num_inputs,
                             types ? types + num_inputs : NULL);
done:
  p->types.len = first;
  return t;
}

static GiltType *parse_non_function_type(GiltAsmParser *p)
{
  GiltContext *ctx = p->ctx;
  if (p->tok.kind == GILT_TOK_BANG_ID)
    return gilt_parser_parse_extended(p, true);
  if (p->tok.kind != GILT_TOK_BARE_ID) {
    gilt_parser_wrong_token(p, "expected type");
    return NULL;
  }
  GiltSignedness sign;
  size_t skip;
  if (int_type_spelling(&p->tok, &sign, &skip))
    return parse_int_type(p, sign, skip);
  if (gilt_token_is(&p->tok, "tensor"))
    return parse_tensor(p);
  if (gilt_token_is(&p->tok, "memref"))
    return parse_memref(p);
  if (gilt_token_is(&p->tok, "vector"))
    return parse_vector(p);
  static const struct {
    const char *name;
    int kind; /* a GiltFloatKind, or -1 for index and -2 for none */
  } simple[] = {{"f16", GILT_F16},
                {"bf16", GILT_BF16},
                {"f32", GILT_F32},
                {"f64", GILT_F64},
                {"f8E4M3FN", GILT_F8E4M3FN},
                {"f8E4M3FNUZ", GILT_F8E4M3FNUZ},
                {"f8E5M2", GILT_F8E5M2},
                {"f8E5M2FNUZ", GILT_F8E5M2FNUZ},
                {"index", -1},
                {"none", -2}};
  for (size_t i = 0; i < sizeof simple / sizeof *simple; i++) {
    if (!gilt_token_is(&p->tok, simple[i].name))
      continue;
    gilt_parser_advance(p);
    if (simple[i].kind == -1)
      return gilt_index_type_get(ctx);
    if (simple[i].kind == -2)
      return gilt_none_type_get(ctx);
    return gilt_float_type_get(ctx, (GiltFloatKind)simple[i].kind);
  }
  gilt_parser_error(p, "unknown type '%.*s'", (int)p->tok.len, p->tok.ptr);
  return NULL;
}

GiltType *gilt_parser_parse_type(GiltAsmParser *p)
{
  if (gilt_parser_enter(p))
    return NULL;
  GiltType *t = p->tok.kind == GILT_TOK_LPAREN ? parse_function_type(p)
                                               : parse_non_function_type(p);
  gilt_parser_leave(p);
  return t;
}
