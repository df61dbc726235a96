/*
** lexer.h - tokens of gilt's textual IR.
**
** The lexer works in place on the caller's buffer: a token is a pointer and
** a length into it, plus the line and column where it starts, so that the
** parser can make a location for any token in O(1). It follows MLIR's
** lexical grammar (bare identifiers, `@`/`%`/`^`/`#`/`!` identifiers,
** integer, float and string literals, punctuation, `//` comments) and
** knows nothing about keywords: the parser compares spellings.
**
** The lexer never reports diagnostics itself. On bad input it returns a
** GILT_TOK_ERROR token and records the message and its position; the parser
** turns that into a diagnostic. The buffer need not be NUL-terminated and
** may contain NUL bytes (skipped between tokens, kept inside strings).
*/
#ifndef GILT_IR_LEXER_H
#define GILT_IR_LEXER_H

#include "ir/support/alloc.h"

typedef enum GiltTokenKind {
  GILT_TOK_EOF,
  GILT_TOK_ERROR,
  GILT_TOK_BARE_ID,    /* foo, i32, tensor, x4xf32, func.func */
  GILT_TOK_AT_ID,      /* @foo, @"quoted" */
  GILT_TOK_HASH_ID,    /* #alias, #dialect.attr, #1 */
  GILT_TOK_PERCENT_ID, /* %0, %arg */
  GILT_TOK_CARET_ID,   /* ^bb0 */
  GILT_TOK_BANG_ID,    /* !alias, !dialect.type */
  GILT_TOK_INTEGER,    /* 42, 0x2A */
  GILT_TOK_FLOAT,      /* 1.5, 2.e-3 (never signed: `-` is its own token) */
  GILT_TOK_STRING,     /* "..." including the quotes */
  GILT_TOK_LPAREN,
  GILT_TOK_RPAREN,
  GILT_TOK_LBRACE,
  GILT_TOK_RBRACE,
  GILT_TOK_LSQUARE,
  GILT_TOK_RSQUARE,
  GILT_TOK_LESS,
  GILT_TOK_GREATER,
  GILT_TOK_COMMA,
  GILT_TOK_COLON,
  GILT_TOK_EQUAL,
  GILT_TOK_ARROW, /* -> */
  GILT_TOK_MINUS,
  GILT_TOK_PLUS,
  GILT_TOK_STAR,
  GILT_TOK_QUESTION,
  GILT_TOK_ELLIPSIS, /* ... */
  GILT_TOK_VBAR,
  GILT_TOK_META_BEGIN, /* {-# */
  GILT_TOK_META_END    /* #-} */
} GiltTokenKind;

/* A 1-based line and byte column, as in `file:line:col`. */
typedef struct GiltSrcPos {
  uint32_t line, col;
} GiltSrcPos;

typedef struct GiltToken {
  GiltTokenKind kind;
  const char *ptr;
  size_t len;
  GiltSrcPos pos;
} GiltToken;

typedef struct GiltLexer {
  const char *buf, *end, *cur;
  uint32_t line;          /* line of `cur` */
  const char *line_start; /* first byte of that line */
  /* Set with each GILT_TOK_ERROR: what went wrong and where. */
  char error[96];
  GiltSrcPos error_pos;
} GiltLexer;

GILT_INTERNAL void gilt_lexer_init(GiltLexer *lx, const char *buf,
                                   size_t len);
GILT_INTERNAL GiltToken gilt_lexer_next(GiltLexer *lx);
/* Moves the lexer back or forward to `ptr`, which must lie on the line the
** lexer is on (the parser splits `4xf32` and `0x4` tokens this way). */
GILT_INTERNAL void gilt_lexer_reset(GiltLexer *lx, const char *ptr);
/* Scans the body of a pretty dialect symbol starting at `lt` (a `<`) up to
** its matching `>`, skipping over nested brackets and strings, and leaves
** the lexer after it. Returns false (error recorded) when unbalanced. */
GILT_INTERNAL bool gilt_lexer_skip_dialect_body(GiltLexer *lx,
                                                const char *lt);
/* Line and column of any pointer into the buffer; O(distance) for points
** before the lexer's line, so for diagnostics only. `ptr == end` is
** allowed. */
GILT_INTERNAL GiltSrcPos gilt_lexer_pos_of(const GiltLexer *lx,
                                           const char *ptr);

/* ---- token values ------------------------------------------------------- */

GILT_INTERNAL bool gilt_token_is(const GiltToken *t, const char *spelling);
/* The value of a decimal or `0x` integer token; false on overflow. */
GILT_INTERNAL bool gilt_token_get_uint64(const GiltToken *t, uint64_t *out);
/* Appends the unescaped contents of a string token (or of the quoted part
** of an `@"..."` token) to `out`. */
GILT_INTERNAL void gilt_token_get_string(const GiltToken *t, GiltStrBuf *out);
/* Whether a string token needs unescaping (holds a backslash). */
GILT_INTERNAL bool gilt_token_string_has_escapes(const GiltToken *t);
/* Decodes a `"0x..."` string token into bytes appended to `out`; false when
** it is not a hex string with an even number of digits. */
GILT_INTERNAL bool gilt_token_get_hex_string(const GiltToken *t,
                                             GiltStrBuf *out);

/* ASCII character classes, independent of the C locale and safe for bytes
** above 127. */
static inline bool gilt_is_digit(int c) { return c >= '0' && c <= '9'; }
static inline bool gilt_is_alpha(int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static inline bool gilt_is_xdigit(int c)
{
  return gilt_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static inline int gilt_xdigit_value(int c)
{
  return gilt_is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}

#endif /* GILT_IR_LEXER_H */
