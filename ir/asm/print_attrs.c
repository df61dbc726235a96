/*
** print_attrs.c - printing attributes and attribute dictionaries.
**
** Spellings and type suffixes follow MLIR's AsmPrinter::printAttribute:
** `1 : i32`; `true`; `1.000000e+00 : f32`; `"str"`; `[1, 2]`;
** `{a = 1 : i64, b}`; `unit`; `i32`; `@sym::@nested`; `strided<[4, 1]>`;
** `#dialect.body`; `#dialect.mnemonic<...>` (print_types.c writes both);
** `array<i32: 1, 2>`. A typed attribute always shows its type except
** where the parser assumes it: inside arrays and memref memory spaces an
** i64 integer or a finite f64 float leaves it out (MLIR's
** AttrTypeElision::May), so `[1, 2]` but `{a = 1 : i64}`. Strings escape
** as LLVM's printEscapedString does: `\\` and `\XX` (uppercase hex) for
** `"` and every byte outside printable ASCII.
**
** Dense elements, resources and arrays are printed by print_dense.c,
** floats by print_float.c.
*/
#include "ir/asm/printer.h"

#include <ctype.h>
#include <string.h>

void gilt_printer_print_string(GiltAsmPrinter *p, const char *s, size_t n)
{
  static const char hex[] = "0123456789ABCDEF";
  gilt_printer_putc(p, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\\') {
      gilt_printer_write(p, "\\\\", 2);
    } else if (c >= 0x20 && c < 0x7F && c != '"') {
      gilt_printer_putc(p, (char)c);
    } else {
      char esc[3] = {'\\', hex[c >> 4], hex[c & 15]};
      gilt_printer_write(p, esc, 3);
    }
  }
  gilt_printer_putc(p, '"');
}

static bool is_bare_identifier(const char *s, size_t n)
{
  if (n == 0 || (!isalpha((unsigned char)s[0]) && s[0] != '_'))
    return false;
  for (size_t i = 1; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!isalnum(c) && c != '_' && c != '$' && c != '.')
      return false;
  }
  return true;
}

void gilt_printer_print_keyword_or_string(GiltAsmPrinter *p, const char *s,
                                          size_t n)
{
  if (is_bare_identifier(s, n))
    gilt_printer_write(p, s, n);
  else
    gilt_printer_print_string(p, s, n);
}

void gilt_printer_print_integer(GiltAsmPrinter *p, uint64_t bits, GiltType *t)
{
  unsigned width = gilt_type_get_bit_width(t);
  bool is_unsigned =
      t->kind == GILT_TYPE_INTEGER && t->integer.sign == GILT_UNSIGNED;
  if (width == 1) {
    gilt_printer_puts(p, (bits & 1) ? "true" : "false");
    return;
  }
  bits = (uint64_t)gilt_int_extend(bits, width, !is_unsigned);
  if (is_unsigned)
    gilt_printer_print_uint(p, bits);
  else
    gilt_printer_print_int(p, (int64_t)bits);
}

static void print_symbol_ref(GiltAsmPrinter *p, GiltAttr *a)
{
  for (size_t i = 0; i < a->symref.n; i++) {
    if (i)
      gilt_printer_write(p, "::", 2);
    gilt_printer_putc(p, '@');
    gilt_printer_print_keyword_or_string(p, a->symref.names[i]->str,
                                         a->symref.names[i]->len);
  }
}

static void print_strided_value(GiltAsmPrinter *p, int64_t v)
{
  if (v == GILT_DYNAMIC)
    gilt_printer_putc(p, '?');
  else
    gilt_printer_print_int(p, v);
}

static void print_strided(GiltAsmPrinter *p, GiltAttr *a)
{
  gilt_printer_puts(p, "strided<[");
  for (size_t i = 0; i < a->strided.rank; i++) {
    if (i)
      gilt_printer_write(p, ", ", 2);
    print_strided_value(p, a->strided.strides[i]);
  }
  gilt_printer_putc(p, ']');
  if (a->strided.offset != 0) {
    gilt_printer_puts(p, ", offset: ");
    print_strided_value(p, a->strided.offset);
  }
  gilt_printer_putc(p, '>');
}

static void print_array(GiltAsmPrinter *p, GiltAttr *a)
{
  gilt_printer_putc(p, '[');
  for (size_t i = 0; i < a->array.n; i++) {
    if (i)
      gilt_printer_write(p, ", ", 2);
    gilt_printer_print_attr(p, a->array.elems[i], true);
  }
  gilt_printer_putc(p, ']');
}

static void print_named_attr(GiltAsmPrinter *p, const GiltNamedAttrI *e)
{
  gilt_printer_print_keyword_or_string(p, e->name->str, e->name->len);
  if (e->attr->kind == GILT_ATTR_UNIT)
    return;
  gilt_printer_write(p, " = ", 3);
  gilt_printer_print_attr(p, e->attr, false);
}

static void print_dictionary(GiltAsmPrinter *p, GiltAttr *a)
{
  gilt_printer_putc(p, '{');
  for (size_t i = 0; i < a->dict.n; i++) {
    if (i)
      gilt_printer_write(p, ", ", 2);
    print_named_attr(p, &a->dict.entries[i]);
  }
  gilt_printer_putc(p, '}');
}

static bool is_elided_name(GiltIdent *name, const char *const *elided,
                           size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!strcmp(name->str, elided[i]))
      return true;
  return false;
}

void gilt_printer_print_attr_dict(GiltAsmPrinter *p, GiltAttr *dict,
                                  const char *const *elided,
                                  size_t num_elided, bool with_keyword)
{
  bool first = true;
  for (size_t i = 0; i < dict->dict.n; i++) {
    const GiltNamedAttrI *e = &dict->dict.entries[i];
    if (is_elided_name(e->name, elided, num_elided))
      continue;
    if (first)
      gilt_printer_puts(p, with_keyword ? " attributes {" : " {");
    else
      gilt_printer_write(p, ", ", 2);
    print_named_attr(p, e);
    first = false;
  }
  if (!first)
    gilt_printer_putc(p, '}');
}

/* Prints the attribute's own text; returns whether its type may follow
** (false for the kinds that never show one). */
static bool print_attr_body(GiltAsmPrinter *p, GiltAttr *a, bool elide_type)
{
  switch (a->kind) {
  case GILT_ATTR_INTEGER:
    gilt_printer_print_integer(p, (uint64_t)a->i, a->type);
    if (gilt_type_get_bit_width(a->type) == 1) /* `true`: never typed */
      return false;
    return !(elide_type && gilt_type_is_integer(a->type, 64) &&
             a->type->integer.sign == GILT_SIGNLESS);
  case GILT_ATTR_FLOAT: {
    bool hex = false;
    GiltFloatKind k = a->type->fkind;
    gilt_printer_print_float_bits(p, gilt_float_to_bits(a->f, k), k, &hex);
    return !(elide_type && k == GILT_F64 && !hex);
  }
  case GILT_ATTR_BOOL:
    gilt_printer_puts(p, a->b ? "true" : "false");
    return false;
  case GILT_ATTR_STRING:
    gilt_printer_print_string(p, a->str.data, a->str.len);
    return false;
  case GILT_ATTR_ARRAY:
    print_array(p, a);
    return false;
  case GILT_ATTR_DICTIONARY:
    print_dictionary(p, a);
    return false;
  case GILT_ATTR_TYPE:
    gilt_printer_print_type(p, a->type);
    return false;
  case GILT_ATTR_SYMBOL_REF:
    print_symbol_ref(p, a);
    return false;
  case GILT_ATTR_UNIT:
    gilt_printer_puts(p, "unit");
    return false;
  case GILT_ATTR_DENSE_ELEMENTS:
    gilt_printer_print_dense(p, a);
    return true;
  case GILT_ATTR_DENSE_RESOURCE:
    gilt_printer_print_dense_resource(p, a);
    return true;
  case GILT_ATTR_STRIDED_LAYOUT:
    print_strided(p, a);
    return false;
  case GILT_ATTR_DENSE_ARRAY: /* the type is inside: MLIR's Elision::Must */
    gilt_printer_print_dense_array(p, a);
    return false;
  case GILT_ATTR_OPAQUE:
    gilt_printer_print_dialect_symbol(p, '#', a->opaque.dialect,
                                      a->opaque.body);
    return true;
  case GILT_ATTR_DIALECT:
    gilt_printer_print_dialect_value(p, '#', &a->dialect);
    return false;
  }
  return false;
}

void gilt_printer_print_attr(GiltAsmPrinter *p, GiltAttr *a, bool elide_type)
{
  if (!a) {
    gilt_printer_puts(p, "<<NULL ATTRIBUTE>>");
    return;
  }
  if (print_attr_body(p, a, elide_type) && a->type &&
      a->type->kind != GILT_TYPE_NONE) {
    gilt_printer_write(p, " : ", 3);
    gilt_printer_print_type(p, a->type);
  }
}
