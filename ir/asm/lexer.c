/*
** lexer.c - turns a buffer of textual IR into tokens, as MLIR's lexer.
**
** Every read is bounds-checked against the end of the buffer (it need not
** be NUL-terminated), character classes are ASCII-only, and errors are
** recorded in the lexer for the parser to report: the lexer has no context
** and emits nothing. Keywords are not recognized here; `i32`, `tensor` and
** `x4xf32` are all bare identifiers.
*/
#include "ir/asm/lexer.h"

#include <stdio.h>
#include <string.h>

void gilt_lexer_init(GiltLexer *lx, const char *buf, size_t len)
{
  memset(lx, 0, sizeof *lx);
  lx->buf = lx->cur = lx->line_start = buf;
  lx->end = buf + len;
  lx->line = 1;
}

static int peek(const GiltLexer *lx, const char *p)
{
  return p < lx->end ? (unsigned char)*p : -1;
}

GiltSrcPos gilt_lexer_pos_of(const GiltLexer *lx, const char *ptr)
{
  if (ptr >= lx->line_start)
    return (GiltSrcPos){lx->line, (uint32_t)(ptr - lx->line_start) + 1};
  uint32_t line = lx->line;
  for (const char *p = ptr; p < lx->line_start; p++)
    line -= *p == '\n';
  const char *ls = ptr;
  while (ls > lx->buf && ls[-1] != '\n')
    ls--;
  return (GiltSrcPos){line, (uint32_t)(ptr - ls) + 1};
}

static GiltToken make(const GiltLexer *lx, GiltTokenKind kind,
                      const char *start)
{
  return (GiltToken){kind, start, (size_t)(lx->cur - start),
                     gilt_lexer_pos_of(lx, start)};
}

static GiltToken error(GiltLexer *lx, const char *at, const char *msg)
{
  snprintf(lx->error, sizeof lx->error, "%s", msg);
  lx->error_pos = gilt_lexer_pos_of(lx, at);
  return (GiltToken){GILT_TOK_ERROR, at, 0, lx->error_pos};
}

static bool is_id_char(int c)
{
  return gilt_is_alpha(c) || gilt_is_digit(c) || c == '_' || c == '$' ||
         c == '.';
}

static bool is_suffix_punct(int c)
{
  return c == '$' || c == '.' || c == '_' || c == '-';
}

/* The end of the string literal whose opening quote is at `q`, or NULL
** with an error recorded. */
static const char *scan_string(GiltLexer *lx, const char *q)
{
  for (const char *p = q + 1;;) {
    int c = peek(lx, p);
    if (c < 0 || c == '\n' || c == '\v' || c == '\f') {
      error(lx, p, "expected '\"' in string literal");
      return NULL;
    }
    p++;
    if (c == '"')
      return p;
    if (c != '\\')
      continue;
    int e = peek(lx, p);
    if (e == '"' || e == '\\' || e == 'n' || e == 't') {
      p++;
    } else if (gilt_is_xdigit(e) && gilt_is_xdigit(peek(lx, p + 1))) {
      p += 2;
    } else {
      error(lx, p - 1, "unknown escape in string literal");
      return NULL;
    }
  }
}

static GiltToken lex_string(GiltLexer *lx, const char *start,
                            GiltTokenKind kind, const char *quote)
{
  const char *end = scan_string(lx, quote);
  if (!end)
    return (GiltToken){GILT_TOK_ERROR, quote, 0, lx->error_pos};
  lx->cur = end;
  return make(lx, kind, start);
}

static GiltToken lex_at_id(GiltLexer *lx, const char *start)
{
  int c = peek(lx, lx->cur);
  if (c == '"')
    return lex_string(lx, start, GILT_TOK_AT_ID, lx->cur);
  if (!gilt_is_alpha(c) && c != '_')
    return error(lx, lx->cur,
                 "@ identifier expected to start with letter or '_'");
  while (is_id_char(peek(lx, lx->cur)))
    lx->cur++;
  return make(lx, GILT_TOK_AT_ID, start);
}

static GiltToken lex_prefixed_id(GiltLexer *lx, const char *start)
{
  static const struct {
    char prefix;
    GiltTokenKind kind;
    const char *error;
  } kinds[] = {{'#', GILT_TOK_HASH_ID, "invalid attribute name"},
               {'%', GILT_TOK_PERCENT_ID, "invalid SSA name"},
               {'^', GILT_TOK_CARET_ID, "invalid block name"},
               {'!', GILT_TOK_BANG_ID, "invalid type identifier"}};
  size_t k = 0;
  while (kinds[k].prefix != *start)
    k++;
  int c = peek(lx, lx->cur);
  if (gilt_is_digit(c)) {
    while (gilt_is_digit(peek(lx, lx->cur)))
      lx->cur++;
  } else if (gilt_is_alpha(c) || is_suffix_punct(c)) {
    do
      lx->cur++;
    while (is_id_char(c = peek(lx, lx->cur)) || c == '-');
  } else {
    return error(lx, start, kinds[k].error);
  }
  return make(lx, kinds[k].kind, start);
}

/* integer ::= digit+ | `0x` hex-digit+
** float   ::= digit+ `.` digit* ([eE] [-+]? digit+)? */
static GiltToken lex_number(GiltLexer *lx, const char *start)
{
  if (*start == '0' && peek(lx, lx->cur) == 'x') {
    /* `0xi8` is 0 then `xi8`: without a hex digit after it, the x is not
    ** part of the number. (`0xf32` is a hex literal that the shape parser
    ** splits itself.) */
    if (!gilt_is_xdigit(peek(lx, lx->cur + 1)))
      return make(lx, GILT_TOK_INTEGER, start);
    lx->cur += 2;
    while (gilt_is_xdigit(peek(lx, lx->cur)))
      lx->cur++;
    return make(lx, GILT_TOK_INTEGER, start);
  }
  while (gilt_is_digit(peek(lx, lx->cur)))
    lx->cur++;
  if (peek(lx, lx->cur) != '.')
    return make(lx, GILT_TOK_INTEGER, start);
  lx->cur++;
  while (gilt_is_digit(peek(lx, lx->cur)))
    lx->cur++;
  int e = peek(lx, lx->cur);
  if (e == 'e' || e == 'E') {
    int s = peek(lx, lx->cur + 1);
    bool sign = s == '-' || s == '+';
    if (gilt_is_digit(peek(lx, lx->cur + 1 + sign))) {
      lx->cur += 2 + sign;
      while (gilt_is_digit(peek(lx, lx->cur)))
        lx->cur++;
    }
  }
  return make(lx, GILT_TOK_FLOAT, start);
}

/* Two-character tokens that begin with '{', '#', '-' or '.'. */
static GiltToken lex_compound(GiltLexer *lx, const char *s)
{
  int c1 = peek(lx, lx->cur), c2 = peek(lx, lx->cur + 1);
  switch (*s) {
  case '{':
    if (c1 == '-' && c2 == '#')
      return lx->cur += 2, make(lx, GILT_TOK_META_BEGIN, s);
    return make(lx, GILT_TOK_LBRACE, s);
  case '#':
    if (c1 == '-' && c2 == '}')
      return lx->cur += 2, make(lx, GILT_TOK_META_END, s);
    return lex_prefixed_id(lx, s);
  case '-':
    if (c1 == '>')
      return lx->cur++, make(lx, GILT_TOK_ARROW, s);
    return make(lx, GILT_TOK_MINUS, s);
  default: /* '.' */
    if (c1 != '.' || c2 != '.')
      return error(lx, lx->cur,
                   "expected three consecutive dots for an ellipsis");
    return lx->cur += 2, make(lx, GILT_TOK_ELLIPSIS, s);
  }
}

static GiltTokenKind punct_kind(int c)
{
  switch (c) {
  case '(': return GILT_TOK_LPAREN;
  case ')': return GILT_TOK_RPAREN;
  case '}': return GILT_TOK_RBRACE;
  case '[': return GILT_TOK_LSQUARE;
  case ']': return GILT_TOK_RSQUARE;
  case '<': return GILT_TOK_LESS;
  case '>': return GILT_TOK_GREATER;
  case ',': return GILT_TOK_COMMA;
  case ':': return GILT_TOK_COLON;
  case '=': return GILT_TOK_EQUAL;
  case '+': return GILT_TOK_PLUS;
  case '*': return GILT_TOK_STAR;
  case '?': return GILT_TOK_QUESTION;
  case '|': return GILT_TOK_VBAR;
  default: return GILT_TOK_ERROR;
  }
}

/* Skips whitespace, NUL bytes and `//` comments, counting lines. */
static void skip_trivia(GiltLexer *lx)
{
  while (lx->cur < lx->end) {
    char c = *lx->cur;
    if (c == '\n') {
      lx->line++;
      lx->line_start = ++lx->cur;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\0') {
      lx->cur++;
    } else if (c == '/' && peek(lx, lx->cur + 1) == '/') {
      const char *nl = memchr(lx->cur, '\n', (size_t)(lx->end - lx->cur));
      lx->cur = nl ? nl : lx->end;
    } else {
      return;
    }
  }
}

GiltToken gilt_lexer_next(GiltLexer *lx)
{
  skip_trivia(lx);
  const char *s = lx->cur;
  if (s >= lx->end)
    return make(lx, GILT_TOK_EOF, s);
  int c = (unsigned char)*s;
  lx->cur++;
  if (gilt_is_alpha(c) || c == '_') {
    while (is_id_char(peek(lx, lx->cur)))
      lx->cur++;
    return make(lx, GILT_TOK_BARE_ID, s);
  }
  if (gilt_is_digit(c))
    return lex_number(lx, s);
  switch (c) {
  case '"': return lex_string(lx, s, GILT_TOK_STRING, s);
  case '@': return lex_at_id(lx, s);
  case '%': case '^': case '!': return lex_prefixed_id(lx, s);
  case '{': case '#': case '-': case '.': return lex_compound(lx, s);
  default: break;
  }
  GiltTokenKind k = punct_kind(c);
  if (k == GILT_TOK_ERROR)
    return error(lx, s, "unexpected character");
  return make(lx, k, s);
}

void gilt_lexer_reset(GiltLexer *lx, const char *ptr)
{
  GILT_ASSERT(ptr >= lx->line_start && ptr <= lx->end);
  lx->cur = ptr;
}

static bool unbalanced(GiltLexer *lx, const char *lt, char open)
{
  char msg[64];
  snprintf(msg, sizeof msg,
           "unbalanced '%c' character in pretty dialect name", open);
  error(lx, lt, msg);
  return false;
}

bool gilt_lexer_skip_dialect_body(GiltLexer *lx, const char *lt)
{
  static const char closers[] = ">])}", openers[] = "<[({";
  char stack[256];
  size_t depth = 0;
  const char *p = lt;
  do {
    int c = peek(lx, p);
    if (c <= 0) /* the end of the buffer, or a NUL byte */
      return unbalanced(lx, lt, stack[depth - 1]);
    p++;
    const char *o = strchr(openers, c), *k = strchr(closers, c);
    if (o) {
      if (depth == sizeof stack) {
        error(lx, lt, "nesting too deep");
        return false;
      }
      stack[depth++] = (char)c;
    } else if (k) {
      if (depth == 0 || stack[depth - 1] != openers[k - closers])
        return unbalanced(lx, lt, depth ? stack[depth - 1] : (char)c);
      depth--;
    } else if (c == '-' && peek(lx, p) == '>') {
      p++; /* `->` is not a closer */
    } else if (c == '"') {
      if (!(p = scan_string(lx, p - 1)))
        return false;
    } else if (c == '\n') {
      lx->line++;
      lx->line_start = p;
    }
  } while (depth);
  lx->cur = p;
  return true;
}

/* ---- token values ------------------------------------------------------- */

bool gilt_token_is(const GiltToken *t, const char *spelling)
{
  size_t n = strlen(spelling);
  return t->len == n && memcmp(t->ptr, spelling, n) == 0;
}

bool gilt_token_get_uint64(const GiltToken *t, uint64_t *out)
{
  uint64_t v = 0;
  bool hex = t->len > 1 && t->ptr[1] == 'x';
  unsigned base = hex ? 16 : 10;
  for (size_t i = hex ? 2 : 0; i < t->len; i++) {
    unsigned d = (unsigned)gilt_xdigit_value((unsigned char)t->ptr[i]);
    if (v > (UINT64_MAX - d) / base)
      return false;
    v = v * base + d;
  }
  *out = v;
  return true;
}

/* The text between the quotes of a string or `@"..."` token. */
static const char *string_body(const GiltToken *t, size_t *len)
{
  const char *q = memchr(t->ptr, '"', t->len);
  GILT_ASSERT(q && t->len >= (size_t)(q - t->ptr) + 2);
  *len = t->len - (size_t)(q - t->ptr) - 2;
  return q + 1;
}

bool gilt_token_string_has_escapes(const GiltToken *t)
{
  size_t len;
  const char *s = string_body(t, &len);
  return memchr(s, '\\', len) != NULL;
}

void gilt_token_get_string(const GiltToken *t, GiltStrBuf *out)
{
  size_t len;
  const char *s = string_body(t, &len);
  for (size_t i = 0; i < len;) {
    const char *bs = memchr(s + i, '\\', len - i);
    size_t run = bs ? (size_t)(bs - (s + i)) : len - i;
    gilt_strbuf_append(out, s + i, run);
    i += run;
    if (i == len)
      break;
    char e = s[i + 1], c = e; /* the lexer checked every escape */
    bool simple = e == 'n' || e == 't' || e == '"' || e == '\\';
    if (e == 'n')
      c = '\n';
    else if (e == 't')
      c = '\t';
    else if (!simple)
      c = (char)(gilt_xdigit_value((unsigned char)e) * 16 +
                 gilt_xdigit_value((unsigned char)s[i + 2]));
    gilt_strbuf_append(out, &c, 1);
    i += simple ? 2 : 3;
  }
}

bool gilt_token_get_hex_string(const GiltToken *t, GiltStrBuf *out)
{
  size_t len;
  const char *s = string_body(t, &len);
  if (len < 2 || s[0] != '0' || s[1] != 'x' || len % 2)
    return false;
  for (size_t i = 2; i < len; i++)
    if (!gilt_is_xdigit((unsigned char)s[i]))
      return false;
  for (size_t i = 2; i < len; i += 2) {
    char b = (char)(gilt_xdigit_value((unsigned char)s[i]) * 16 +
                    gilt_xdigit_value((unsigned char)s[i + 1]));
    gilt_strbuf_append(out, &b, 1);
  }
  return true;
}
