/*
** printer.h - the textual IR printer, shared by the files of the printer.
**
** The printer turns IR into the MLIR-compatible text that the parser reads
** back byte for byte: printer.c holds the printer object (its output
** buffer, the public entry points and the print half of gilt/asm.h),
** print_ops.c prints ops, regions and blocks, print_names.c numbers SSA
** values and blocks, print_types.c, print_attrs.c, print_dense.c,
** print_float.c and print_locations.c print what their names say. The
** layout of `struct GiltAsmPrinter` is private to those files: custom
** print hooks of dialects see only gilt/asm.h.
**
** The printer never fails and never reports: it prints what it is given,
** marking what it cannot name (`<<UNKNOWN SSA VALUE>>`), as MLIR does.
*/
#ifndef GILT_IR_PRINTER_H
#define GILT_IR_PRINTER_H

#include "ir/asm/asm.h"
#include "ir/context.h"

/* Output is gathered and handed to the callback in chunks of this size, so
** that printing a million ops costs a few hundred callback calls. */
#define GILT_PRINT_CHUNK 65536

typedef struct GiltSsaNames GiltSsaNames;

/* A blob referenced by the printed IR, with the alignment it is written
** with (MLIR's blobs carry one; gilt's take their element size). */
typedef struct GiltPrintedBlob {
  GiltResourceBlob *blob;
  unsigned align;
} GiltPrintedBlob;

struct GiltAsmPrinter {
  GiltContext *ctx;
  GiltPrintFlags flags;
  GiltStringCallback cb;
  void *user;
  char *buf; /* GILT_PRINT_CHUNK bytes */
  size_t len;
  unsigned indent;
  /* Custom forms drop this dialect's `name.` prefix from op names, as
  ** MLIR's OpAsmOpInterface::getDefaultDialect; "" for none. */
  const char *default_dialect;
  GiltSsaNames *names; /* NULL when printing a lone type or attribute */
  /* Resource blobs referenced so far, in order of first reference, for
  ** the `{-# dialect_resources ... #-}` section. */
  GILT_VEC(GiltPrintedBlob) blobs;
  GiltHashSet blob_set; /* the blobs of `blobs`, to add each once */
};

/* ---- the printer object (printer.c) ------------------------------------ */

/* flags may be NULL for the defaults. */
GILT_INTERNAL void gilt_printer_init(GiltAsmPrinter *p, GiltContext *ctx,
                                     const GiltPrintFlags *flags,
                                     GiltStringCallback cb, void *user);
/* Flushes what is left and frees the printer's memory. */
GILT_INTERNAL void gilt_printer_finish(GiltAsmPrinter *p);
GILT_INTERNAL void gilt_printer_write(GiltAsmPrinter *p, const char *s,
                                      size_t n);
GILT_INTERNAL void gilt_printer_puts(GiltAsmPrinter *p, const char *s);
GILT_INTERNAL void gilt_printer_putc(GiltAsmPrinter *p, char c);
GILT_INTERNAL void gilt_printer_print_int(GiltAsmPrinter *p, int64_t v);
GILT_INTERNAL void gilt_printer_print_uint(GiltAsmPrinter *p, uint64_t v);
GILT_INTERNAL void gilt_printer_indent(GiltAsmPrinter *p);
/* Two uppercase hex digits per byte, as LLVM's toHex. */
GILT_INTERNAL void gilt_printer_print_hex_bytes(GiltAsmPrinter *p,
                                                const uint8_t *data,
                                                size_t n);
/* Records a blob for the resource section (the first time only). */
GILT_INTERNAL void gilt_printer_note_blob(GiltAsmPrinter *p,
                                          GiltResourceBlob *blob,
                                          unsigned align);

/* ---- ops, regions, blocks (print_ops.c) --------------------------------- */

/* The op at the current indentation, with its trailing location. */
GILT_INTERNAL void gilt_printer_print_op(GiltAsmPrinter *p, GiltOp *op);
/* `{` blocks `}`, as MLIR's OpAsmPrinter::printRegion. */
GILT_INTERNAL void gilt_printer_print_region(GiltAsmPrinter *p,
                                             GiltRegion *r,
                                             bool print_entry_args,
                                             bool print_terminators,
                                             bool print_empty_block);
/* `%3`, `%arg0`, or with print_result_no `%3#1` for multi-result ops. */
GILT_INTERNAL void gilt_printer_print_value(GiltAsmPrinter *p, GiltValue *v,
                                            bool print_result_no);
/* ` loc(...)` when printing debug info. */
GILT_INTERNAL void gilt_printer_print_trailing_loc(GiltAsmPrinter *p,
                                                   GiltLocation *loc);

/* ---- SSA names (print_names.c) ------------------------------------------ */

/* Numbers every value and block under `root`, as MLIR's SSANameState. */
GILT_INTERNAL GiltSsaNames *gilt_ssa_names_create(GiltContext *ctx,
                                                  GiltOp *root);
GILT_INTERNAL void gilt_ssa_names_destroy(GiltSsaNames *n);
/* The number of the op's first result; false when the op was not numbered
** (it lies outside the numbered tree or has no results). */
GILT_INTERNAL bool gilt_ssa_names_lookup_op(GiltSsaNames *n, GiltOp *op,
                                            uint32_t *id);
/* The block's label number in its region and the number of its first
** argument (`%argN` for an entry block, `%N` for the others). */
GILT_INTERNAL bool gilt_ssa_names_lookup_block(GiltSsaNames *n,
                                               GiltBlock *block,
                                               uint32_t *label,
                                               uint32_t *first_arg);

/* ---- types, attributes, floats, locations ------------------------------- */

GILT_INTERNAL void gilt_printer_print_type(GiltAsmPrinter *p, GiltType *t);
/* `!dialect.body` or `!dialect<body>` (sigil `#` for attributes), always
** in a spelling the parser reads back as the same body (print_types.c). */
GILT_INTERNAL void gilt_printer_print_dialect_symbol(GiltAsmPrinter *p,
                                                     char sigil,
                                                     GiltIdent *dialect,
                                                     GiltIdent *body);
/* `!dialect.mnemonic` (sigil `#` for attributes) and what the
** definition's print hook writes, or its parameters in the generic form
** `<a, b>` when it has no hook (print_types.c). */
GILT_INTERNAL void gilt_printer_print_dialect_value(GiltAsmPrinter *p,
                                                   char sigil,
                                                   const GiltDialectValue *v);
/* elide_type: the attribute stands where the parser assumes a default
** type (array elements, memref memory spaces), so i64 integers and f64
** floats may leave it out, as MLIR's AttrTypeElision::May. */
GILT_INTERNAL void gilt_printer_print_attr(GiltAsmPrinter *p, GiltAttr *a,
                                           bool elide_type);
/* `{a = 1 : i32, b}` without the excluded names, or nothing when empty.
** Prints a leading space, and ` attributes` first when with_keyword. */
GILT_INTERNAL void gilt_printer_print_attr_dict(GiltAsmPrinter *p,
                                                GiltAttr *dict,
                                                const char *const *elided,
                                                size_t num_elided,
                                                bool with_keyword);
/* `dense<...>` or `dense_resource<name>` (print_dense.c), without the
** type; either may print as `dense_resource<__elided__>`. */
GILT_INTERNAL void gilt_printer_print_dense(GiltAsmPrinter *p, GiltAttr *a);
GILT_INTERNAL void gilt_printer_print_dense_resource(GiltAsmPrinter *p,
                                                     GiltAttr *a);
/* `array<i32: 1, 2>` (print_dense.c). */
GILT_INTERNAL void gilt_printer_print_dense_array(GiltAsmPrinter *p,
                                                  GiltAttr *a);
/* A quoted string with MLIR's escapes (`\\`, `\XX`). */
GILT_INTERNAL void gilt_printer_print_string(GiltAsmPrinter *p,
                                             const char *s, size_t n);
/* A bare identifier when it is one, else a quoted string. */
GILT_INTERNAL void gilt_printer_print_keyword_or_string(GiltAsmPrinter *p,
                                                        const char *s,
                                                        size_t n);
/* An integer of type t (integer or index) from its low bits, as MLIR's
** APInt prints it: `true`/`false` for one bit, unsigned for uiN, signed
** otherwise. */
GILT_INTERNAL void gilt_printer_print_integer(GiltAsmPrinter *p,
                                              uint64_t bits, GiltType *t);
/* A float of kind k as MLIR prints it (see print_float.c). `bits` holds
** the IEEE encoding of the value in that format. *printed_hex (may be NULL)
** tells whether the bit pattern was printed instead of a decimal. */
GILT_INTERNAL void gilt_printer_print_float_bits(GiltAsmPrinter *p,
                                                 uint64_t bits,
                                                 GiltFloatKind k,
                                                 bool *printed_hex);
/* The encoding of `v` rounded to kind k. */
GILT_INTERNAL uint64_t gilt_float_to_bits(double v, GiltFloatKind k);
/* `loc(...)`. */
GILT_INTERNAL void gilt_printer_print_location(GiltAsmPrinter *p,
                                               GiltLocation *loc);

#endif /* GILT_IR_PRINTER_H */
