/*
** printer.c - the printer object: buffered output, the public print entry
** points, the trailing resource section and the print half of gilt/asm.h.
**
** Output is gathered in a GILT_PRINT_CHUNK-byte buffer and handed to the
** caller's callback a chunk at a time. gilt_op_print follows MLIR's
** Operation::print: values are numbered from the root of the op's tree (so
** a nested op prints with the names it has in the whole module), an op that
** fails to verify is printed in the generic form (custom printers may rely
** on what the verifier checks), and a top-level op ends with a newline and
** the `{-# dialect_resources ... #-}` section for the blobs it referenced.
**
** What ops, types and attributes look like is decided in the other print_*
** files; this one only drives them.
*/
#include "ir/asm/printer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- the output buffer --------------------------------------------------- */

static void flush(GiltAsmPrinter *p)
{
  if (p->len)
    p->cb(p->buf, p->len, p->user);
  p->len = 0;
}

void gilt_printer_init(GiltAsmPrinter *p, GiltContext *ctx,
                       const GiltPrintFlags *flags, GiltStringCallback cb,
                       void *user)
{
  memset(p, 0, sizeof *p);
  p->ctx = ctx;
  if (flags)
    p->flags = *flags;
  p->cb = cb;
  p->user = user;
  p->buf = gilt_malloc(ctx, GILT_PRINT_CHUNK);
  p->default_dialect = "builtin"; /* so that a top-level module is `module` */
}

void gilt_printer_finish(GiltAsmPrinter *p)
{
  flush(p);
  gilt_free(p->ctx, p->buf);
  gilt_vec_free(p->ctx, &p->blobs);
  gilt_hashset_free(p->ctx, &p->blob_set);
}

void gilt_printer_write(GiltAsmPrinter *p, const char *s, size_t n)
{
  if (p->len + n > GILT_PRINT_CHUNK) {
    flush(p);
    if (n > GILT_PRINT_CHUNK) {
      p->cb(s, n, p->user);
      return;
    }
  }
  memcpy(p->buf + p->len, s, n);
  p->len += n;
}

void gilt_printer_puts(GiltAsmPrinter *p, const char *s)
{
  gilt_printer_write(p, s, strlen(s));
}

void gilt_printer_putc(GiltAsmPrinter *p, char c)
{
  if (p->len == GILT_PRINT_CHUNK)
    flush(p);
  p->buf[p->len++] = c;
}

void gilt_printer_print_uint(GiltAsmPrinter *p, uint64_t v)
{
  char tmp[24];
  size_t i = sizeof tmp;
  do {
    tmp[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  gilt_printer_write(p, tmp + i, sizeof tmp - i);
}

void gilt_printer_print_int(GiltAsmPrinter *p, int64_t v)
{
  if (v < 0) {
    gilt_printer_putc(p, '-');
    gilt_printer_print_uint(p, (uint64_t)0 - (uint64_t)v);
  } else {
    gilt_printer_print_uint(p, (uint64_t)v);
  }
}

void gilt_printer_print_hex_bytes(GiltAsmPrinter *p, const uint8_t *data,
                                  size_t n)
{
  static const char digits[] = "0123456789ABCDEF";
  for (size_t i = 0; i < n; i++) {
    char byte[2] = {digits[data[i] >> 4], digits[data[i] & 15]};
    gilt_printer_write(p, byte, 2);
  }
}

void gilt_printer_indent(GiltAsmPrinter *p)
{
  static const char spaces[] = "                                ";
  unsigned n = p->indent;
  while (n > 0) {
    unsigned k = n < sizeof spaces - 1 ? n : (unsigned)sizeof spaces - 1;
    gilt_printer_write(p, spaces, k);
    n -= k;
  }
}

/* ---- resource blobs -------------------------------------------------------- */

static bool same_blob(const void *key, const void *elem)
{
  return key == elem;
}

void gilt_printer_note_blob(GiltAsmPrinter *p, GiltResourceBlob *blob,
                            unsigned align)
{
  uint32_t h = gilt_hash_ptr(GILT_HASH_SEED, blob);
  if (gilt_hashset_find(&p->blob_set, h, blob, same_blob))
    return;
  gilt_hashset_insert(p->ctx, &p->blob_set, h, blob);
  GiltPrintedBlob pb = {blob, align};
  gilt_vec_push(p->ctx, &p->blobs, pb);
}

/* MLIR stores a blob as a hex string: its alignment as a little-endian
** 32-bit word, then the bytes. */
static void print_blob(GiltAsmPrinter *p, const GiltPrintedBlob *pb)
{
  const GiltResourceBlob *b = pb->blob;
  uint8_t align[4] = {(uint8_t)pb->align, (uint8_t)(pb->align >> 8),
                      (uint8_t)(pb->align >> 16), (uint8_t)(pb->align >> 24)};
  gilt_printer_write(p, "      ", 6);
  gilt_printer_print_keyword_or_string(p, b->name->str, b->name->len);
  gilt_printer_puts(p, ": \"0x");
  gilt_printer_print_hex_bytes(p, align, sizeof align);
  gilt_printer_print_hex_bytes(p, b->data, b->nbytes);
  gilt_printer_putc(p, '"');
}

/* The file metadata dictionary of MLIR's printFileMetadataDictionary; only
** the builtin dialect has resources in gilt. */
static void print_resource_section(GiltAsmPrinter *p)
{
  bool any = false;
  for (size_t i = 0; i < p->blobs.len; i++) {
    const GiltPrintedBlob *pb = &p->blobs.data[i];
    if (!pb->blob->data) /* `__elided__` and blobs never given contents */
      continue;
    gilt_printer_puts(p, any ? ",\n"
                             : "\n{-#\n  dialect_resources: {\n"
                               "    builtin: {\n");
    print_blob(p, pb);
    any = true;
  }
  if (any)
    gilt_printer_puts(p, "\n    }\n  }\n#-}\n");
}

/* ---- public entry points ---------------------------------------------------- */

static void drop_diagnostic(const GiltDiagnostic *d, void *user)
{
  (void)d;
  (void)user;
}

/* Verifies without reporting: the context's handler and error count are
** put back afterwards. */
static bool verifies_quietly(GiltOp *op)
{
  GiltContext *ctx = gilt_op_get_context(op);
  GiltDiagnosticHandler handler = ctx->diag_handler;
  void *user = ctx->diag_user;
  size_t errors = ctx->num_errors;
  ctx->diag_handler = drop_diagnostic;
  ctx->diag_user = NULL;
  GiltStatus st = gilt_op_verify(op);
  ctx->diag_handler = handler;
  ctx->diag_user = user;
  ctx->num_errors = errors;
  return st == GILT_SUCCESS;
}

void gilt_op_print(GiltOp *op, const GiltPrintFlags *flags,
                   GiltStringCallback cb, void *user)
{
  GiltContext *ctx = gilt_op_get_context(op);
  GiltPrintFlags f = {0};
  if (flags)
    f = *flags;
  if (!f.generic && !f.assume_verified && !verifies_quietly(op))
    f.generic = true;
  GiltOp *root = op;
  while (gilt_op_get_parent_op(root))
    root = gilt_op_get_parent_op(root);

  GiltAsmPrinter p;
  gilt_printer_init(&p, ctx, &f, cb, user);
  p.names = gilt_ssa_names_create(ctx, root);
  gilt_printer_print_op(&p, op);
  if (!op->block) {
    gilt_printer_putc(&p, '\n');
    print_resource_section(&p);
  }
  gilt_ssa_names_destroy(p.names);
  gilt_printer_finish(&p);
}

void gilt_op_dump(GiltOp *op)
{
  gilt_op_print(op, NULL, gilt_print_to_file, stderr);
  if (op->block)
    fputc('\n', stderr);
}

void gilt_type_print(GiltType *t, GiltStringCallback cb, void *user)
{
  GiltAsmPrinter p;
  gilt_printer_init(&p, t->ctx, NULL, cb, user);
  gilt_printer_print_type(&p, t);
  gilt_printer_finish(&p);
}

void gilt_attr_print(GiltAttr *a, GiltStringCallback cb, void *user)
{
  GiltAsmPrinter p;
  gilt_printer_init(&p, a->ctx, NULL, cb, user);
  gilt_printer_print_attr(&p, a, false);
  gilt_printer_finish(&p);
}

void gilt_location_print(GiltLocation *loc, GiltStringCallback cb,
                         void *user)
{
  GiltAsmPrinter p;
  gilt_printer_init(&p, loc->ctx, NULL, cb, user);
  gilt_printer_print_location(&p, loc);
  gilt_printer_finish(&p);
}

/* ---- gilt/asm.h: what custom print hooks call ---------------------------- */

GiltContext *gilt_asm_printer_get_context(GiltAsmPrinter *p)
{
  return p->ctx;
}

bool gilt_asm_printer_get_debug_info(GiltAsmPrinter *p)
{
  return p->flags.debug_info;
}

void gilt_asm_print(GiltAsmPrinter *p, const char *fmt, ...)
{
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n < sizeof small) {
    gilt_printer_write(p, small, (size_t)n);
    return;
  }
  char *big = gilt_malloc(p->ctx, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  gilt_printer_write(p, big, (size_t)n);
  gilt_free(p->ctx, big);
}

void gilt_asm_print_operand(GiltAsmPrinter *p, GiltValue *v)
{
  gilt_printer_print_value(p, v, true);
}

void gilt_asm_print_operands(GiltAsmPrinter *p, GiltOp *op, size_t start,
                             size_t n)
{
  GILT_ASSERT(start <= op->num_operands && n <= op->num_operands - start);
  for (size_t i = 0; i < n; i++) {
    if (i)
      gilt_printer_write(p, ", ", 2);
    gilt_printer_print_value(p, op->operands[start + i].value, true);
  }
}

void gilt_asm_print_type(GiltAsmPrinter *p, GiltType *t)
{
  gilt_printer_print_type(p, t);
}

void gilt_asm_print_value_types(GiltAsmPrinter *p, GiltValue *const *values,
                                size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (i)
      gilt_printer_write(p, ", ", 2);
    gilt_printer_print_type(p, values[i]->type);
  }
}

void gilt_asm_print_attr(GiltAsmPrinter *p, GiltAttr *a)
{
  gilt_printer_print_attr(p, a, false);
}

void gilt_asm_print_string(GiltAsmPrinter *p, const char *s, size_t n)
{
  gilt_printer_print_string(p, s, n);
}

void gilt_asm_print_symbol_name(GiltAsmPrinter *p, const char *name)
{
  gilt_printer_putc(p, '@');
  gilt_printer_print_keyword_or_string(p, name, strlen(name));
}

void gilt_asm_print_attr_dict(GiltAsmPrinter *p, GiltOp *op,
                              const char *const *elided, size_t num_elided,
                              bool with_keyword)
{
  gilt_printer_print_attr_dict(p, op->attrs, elided, num_elided,
                               with_keyword);
}

void gilt_asm_print_block_arg_decl(GiltAsmPrinter *p, GiltValue *arg)
{
  gilt_printer_print_value(p, arg, false);
  gilt_printer_write(p, ": ", 2);
  gilt_printer_print_type(p, arg->type);
  gilt_printer_print_trailing_loc(p, *gilt_block_arg_loc(arg));
}

void gilt_asm_print_optional_location(GiltAsmPrinter *p, GiltLocation *loc)
{
  gilt_printer_print_trailing_loc(p, loc);
}

void gilt_asm_print_region(GiltAsmPrinter *p, GiltRegion *r,
                           bool print_entry_args)
{
  gilt_printer_putc(p, ' ');
  gilt_printer_print_region(p, r, print_entry_args, true, false);
}

void gilt_asm_print_function_type(GiltAsmPrinter *p, GiltType *fn)
{
  gilt_printer_print_type(p, fn);
}

/* `(operand types) -> result types`, a single result without parentheses
** unless it is a function type (MLIR's printFunctionalType). */
void gilt_asm_print_functional_type(GiltAsmPrinter *p, GiltOp *op)
{
  gilt_printer_putc(p, '(');
  for (size_t i = 0; i < op->num_operands; i++) {
    if (i)
      gilt_printer_write(p, ", ", 2);
    gilt_printer_print_type(p, op->operands[i].value->type);
  }
  gilt_printer_write(p, ") -> ", 5);
  bool wrap = op->num_results != 1 ||
              gilt_op_result_array(op)[0].type->kind == GILT_TYPE_FUNCTION;
  if (wrap)
    gilt_printer_putc(p, '(');
  for (size_t i = 0; i < op->num_results; i++) {
    if (i)
      gilt_printer_write(p, ", ", 2);
    gilt_printer_print_type(p, gilt_op_result_array(op)[i].type);
  }
  if (wrap)
    gilt_printer_putc(p, ')');
}
