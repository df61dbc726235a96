/*
** print_types.c - printing types.
**
** The spellings are MLIR's builtin types: `i32`, `si8`, `ui8`, `index`,
** `f16`, `bf16`, `f32`, `f64`, `none`, `tensor<4x?xf32>`, `tensor<*xf32>`,
** `tensor<4xf32, "NCHW16c">`, `memref<4x4xf32, strided<[4, 1]>, 1>`,
** `vector<16xf32>`, `(i32) -> (i32, f32)`, `!dialect.mnemonic<...>` for
** types a dialect defines (its hook prints the part after the mnemonic),
** and `!dialect.body` or `!dialect<body>` for types of dialects nobody
** registered (attributes of such dialects share those spellings, with
** `#`). Type aliases
** (`!name = ...`) are accepted by the parser but never printed.
*/
#include "ir/asm/printer.h"

#include <ctype.h>

#include "ir/asm/lexer.h"

static void print_float_type(GiltAsmPrinter *p, GiltFloatKind k)
{
  static const char *const names[] = {
      "f16",         "bf16",      "f32",           "f64",
      "f8E4M3FN", "f8E4M3FNUZ", "f8E5M2", "f8E5M2FNUZ"};
  gilt_printer_puts(p, names[k]);
}

static void print_integer_type(GiltAsmPrinter *p, GiltType *t)
{
  if (t->integer.sign == GILT_SIGNED)
    gilt_printer_putc(p, 's');
  else if (t->integer.sign == GILT_UNSIGNED)
    gilt_printer_putc(p, 'u');
  gilt_printer_putc(p, 'i');
  gilt_printer_print_uint(p, t->integer.width);
}

/* `4x?x` before the element type. */
static void print_dims(GiltAsmPrinter *p, GiltType *t)
{
  for (size_t i = 0; i < t->shaped.rank; i++) {
    if (t->shaped.shape[i] == GILT_DYNAMIC)
      gilt_printer_putc(p, '?');
    else
      gilt_printer_print_int(p, t->shaped.shape[i]);
    gilt_printer_putc(p, 'x');
  }
}

static void print_shaped_type(GiltAsmPrinter *p, GiltType *t,
                              const char *keyword)
{
  gilt_printer_puts(p, keyword);
  gilt_printer_putc(p, '<');
  if (t->shaped.ranked)
    print_dims(p, t);
  else
    gilt_printer_puts(p, "*x");
  gilt_printer_print_type(p, t->shaped.elem);
  /* MLIR prints a tensor's encoding in full but lets a memref's layout
  ** and memory space leave out a default i64 type (`memref<4xf32, 1>`). */
  if (t->shaped.encoding) {
    gilt_printer_write(p, ", ", 2);
    gilt_printer_print_attr(p, t->shaped.encoding, false);
  }
  if (t->shaped.layout) {
    gilt_printer_write(p, ", ", 2);
    gilt_printer_print_attr(p, t->shaped.layout, true);
  }
  if (t->shaped.memory_space) {
    gilt_printer_write(p, ", ", 2);
    gilt_printer_print_attr(p, t->shaped.memory_space, true);
  }
  gilt_printer_putc(p, '>');
}

static void print_type_list(GiltAsmPrinter *p, GiltType *const *types,
                            size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (i)
      gilt_printer_write(p, ", ", 2);
    gilt_printer_print_type(p, types[i]);
  }
}

/* A single result goes without parentheses unless it is itself a
** function type, which would be ambiguous. */
static void print_function_type(GiltAsmPrinter *p, GiltType *t)
{
  size_t nin = t->func.num_inputs, nres = t->func.num_results;
  GiltType *const *results = t->func.types + nin;
  gilt_printer_putc(p, '(');
  print_type_list(p, t->func.types, nin);
  gilt_printer_write(p, ") -> ", 5);
  if (nres == 1 && results[0]->kind != GILT_TYPE_FUNCTION) {
    gilt_printer_print_type(p, results[0]);
    return;
  }
  gilt_printer_putc(p, '(');
  print_type_list(p, results, nres);
  gilt_printer_putc(p, ')');
}

/* Whether s[0..n) is exactly one `<...>` group as the parser's lexer
** skips it (nested brackets, strings, `->`): asking the lexer itself keeps
** the printer and the parser in agreement. */
static bool is_one_group(const char *s, size_t n)
{
  GiltLexer lx;
  gilt_lexer_init(&lx, s, n);
  return n > 0 && s[0] == '<' && gilt_lexer_skip_dialect_body(&lx, s) &&
         lx.cur == s + n;
}

/* MLIR's isDialectSymbolSimpleEnoughForPrettyForm: an identifier,
** optionally followed by a `<...>` body. MLIR only checks that the rest
** starts with `<` and ends with `>`; `a<b>c<d>` passes that and would not
** read back, so the rest must be a single group. */
static bool is_pretty_body(const char *s, size_t n)
{
  if (n == 0 || !isalpha((unsigned char)s[0]))
    return false;
  size_t i = 1;
  while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '.' || s[i] == '_'))
    i++;
  return i == n || is_one_group(s + i, n - i);
}

/* Whether `<body>` reads back as body. */
static bool is_bracketed_body(GiltContext *ctx, const char *s, size_t n)
{
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, ctx);
  gilt_strbuf_append(&sb, "<", 1);
  gilt_strbuf_append(&sb, s, n);
  gilt_strbuf_append(&sb, ">", 1);
  bool ok = is_one_group(sb.data, sb.len);
  gilt_strbuf_free(&sb);
  return ok;
}

/* Whether `!dialect.body` lexes as one token: the characters the lexer
** takes after a `!` or `#` identifier's first, `-` included. */
static bool is_token_body(const char *s, size_t n)
{
  if (n == 0)
    return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!isalnum(c) && c != '_' && c != '$' && c != '.' && c != '-')
      return false;
  }
  return true;
}

/* MLIR's printDialectSymbol picks between the first two spellings and
** prints `!foo<barb-->` for the body of `!foo.barb--`, which its own
** lexer reads as `-` `>`: so a body that only a token can hold keeps the
** dotted spelling. The parser makes every body one of the three, and a
** body that is none of them (no parse produces one) is written as a
** string, which reads back, quotes included, as a body that prints the
** same way again. */
void gilt_printer_print_dialect_symbol(GiltAsmPrinter *p, char sigil,
                                      GiltIdent *dialect, GiltIdent *body)
{
  const char *s = body->str;
  size_t n = body->len;
  gilt_printer_putc(p, sigil);
  gilt_printer_write(p, dialect->str, dialect->len);
  if (is_pretty_body(s, n)) {
    gilt_printer_putc(p, '.');
    gilt_printer_write(p, s, n);
  } else if (is_bracketed_body(p->ctx, s, n)) {
    gilt_printer_putc(p, '<');
    gilt_printer_write(p, s, n);
    gilt_printer_putc(p, '>');
  } else if (is_token_body(s, n)) {
    gilt_printer_putc(p, '.');
    gilt_printer_write(p, s, n);
  } else {
    gilt_printer_putc(p, '<');
    gilt_printer_print_string(p, s, n);
    gilt_printer_putc(p, '>');
  }
}

void gilt_printer_print_dialect_value(GiltAsmPrinter *p, char sigil,
                                      const GiltDialectValue *v)
{
  gilt_printer_putc(p, sigil);
  gilt_printer_write(p, v->dialect->name->str, v->dialect->name->len);
  gilt_printer_putc(p, '.');
  gilt_printer_puts(p, v->def->mnemonic);
  if (v->def->print) {
    v->def->print(p, v->n, v->params);
    return;
  }
  if (!v->n)
    return;
  gilt_printer_putc(p, '<');
  for (size_t i = 0; i < v->n; i++) {
    if (i)
      gilt_printer_write(p, ", ", 2);
    gilt_printer_print_attr(p, v->params[i], false);
  }
  gilt_printer_putc(p, '>');
}

void gilt_printer_print_type(GiltAsmPrinter *p, GiltType *t)
{
  if (!t) {
    gilt_printer_puts(p, "<<NULL TYPE>>");
    return;
  }
  switch (t->kind) {
  case GILT_TYPE_INTEGER:
    print_integer_type(p, t);
    return;
  case GILT_TYPE_INDEX:
    gilt_printer_puts(p, "index");
    return;
  case GILT_TYPE_FLOAT:
    print_float_type(p, t->fkind);
    return;
  case GILT_TYPE_NONE:
    gilt_printer_puts(p, "none");
    return;
  case GILT_TYPE_TENSOR:
    print_shaped_type(p, t, "tensor");
    return;
  case GILT_TYPE_MEMREF:
    print_shaped_type(p, t, "memref");
    return;
  case GILT_TYPE_VECTOR:
    print_shaped_type(p, t, "vector");
    return;
  case GILT_TYPE_FUNCTION:
    print_function_type(p, t);
    return;
  case GILT_TYPE_OPAQUE:
    gilt_printer_print_dialect_symbol(p, '!', t->opaque.dialect,
                                      t->opaque.body);
    return;
  case GILT_TYPE_DIALECT:
    gilt_printer_print_dialect_value(p, '!', &t->dialect);
    return;
  }
}
