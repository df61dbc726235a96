/*
** print_dense.c - printing dense elements, dense resources and dense
** arrays.
**
** As MLIR: a splat prints one element (`dense<1.000000e+00>`), other
** elements print as nested lists by the shape (`dense<[[1, 2], [3, 4]]>`),
** and more than 100 elements print as the hex string of their raw
** little-endian bytes (`dense<"0x0000803F...">`), which the parser reads
** back exactly. i1 elements never print as hex: gilt stores them a byte
** each, where MLIR's hex form packs bits, so hex would not mean the same
** thing to both. `dense_resource<name>` prints the blob's name (quoted
** unless it is a bare identifier, as MLIR's printKeywordOrString) and notes
** the blob for the resource section at the end of the output.
**
** With GiltPrintFlags.elide_elements_larger_than, any non-splat elements
** (or resource) with more elements print as `dense_resource<__elided__>`:
** readable, still parseable, but no longer the same constant.
**
** The type suffix (` : tensor<...>`) is left to the attribute printer.
**
** A dense array prints as MLIR's printDenseArrayAttr: `array<i32: 1, 2>`,
** `array<i32>` when empty, each element as dense elements print theirs;
** it is never hex nor elided, and no type follows it.
*/
#include "ir/asm/printer.h"

#include <string.h>

/* Threshold of MLIR's shouldPrintElementsAttrWithHex. */
#define HEX_THRESHOLD 100

static bool should_elide(GiltAsmPrinter *p, int64_t num_elements)
{
  int64_t limit = p->flags.elide_elements_larger_than;
  return limit > 0 && num_elements > limit;
}

static uint64_t load_le(const uint8_t *data, size_t size)
{
  uint64_t v = 0;
  for (size_t i = size; i-- > 0;)
    v = v << 8 | data[i];
  return v;
}

static void print_element(GiltAsmPrinter *p, GiltType *et, const uint8_t *at,
                          size_t size)
{
  uint64_t bits = load_le(at, size);
  if (et->kind == GILT_TYPE_FLOAT)
    gilt_printer_print_float_bits(p, bits, et->fkind, NULL);
  else
    gilt_printer_print_integer(p, bits, et);
}

/* MLIR's printDenseElementsAttrImpl: a mixed-radix counter over the shape
** closes a bracket whenever a digit other than the last wraps, and the
** next element re-opens every closed one. */
static void print_element_lists(GiltAsmPrinter *p, GiltAttr *a, int64_t num)
{
  GiltType *t = a->type, *et = t->shaped.elem;
  size_t rank = t->shaped.rank, size = gilt_type_get_storage_size(et);
  int64_t small[8];
  int64_t *counter = rank > 8 ? gilt_calloc(p->ctx, rank, sizeof *counter)
                              : memset(small, 0, sizeof small);
  size_t open = 0;
  for (int64_t idx = 0; idx < num; idx++) {
    if (idx)
      gilt_printer_write(p, ", ", 2);
    for (; open < rank; open++)
      gilt_printer_putc(p, '[');
    print_element(p, et, a->dense.data + (size_t)idx * size, size);
    counter[rank - 1]++;
    for (size_t i = rank - 1; i > 0 && counter[i] >= t->shaped.shape[i];
         i--) {
      counter[i] = 0;
      counter[i - 1]++;
      open--;
      gilt_printer_putc(p, ']');
    }
  }
  for (; open > 0; open--)
    gilt_printer_putc(p, ']');
  if (counter != small)
    gilt_free(p->ctx, counter);
}

void gilt_printer_print_dense(GiltAsmPrinter *p, GiltAttr *a)
{
  int64_t num = gilt_dense_attr_get_num_elements(a);
  if (!a->dense.splat && should_elide(p, num)) {
    gilt_printer_puts(p, "dense_resource<__elided__>");
    return;
  }
  GiltType *et = a->type->shaped.elem;
  gilt_printer_puts(p, "dense<");
  if (a->dense.splat)
    print_element(p, et, a->dense.data, gilt_type_get_storage_size(et));
  else if (num > HEX_THRESHOLD && gilt_type_get_bit_width(et) != 1) {
    gilt_printer_write(p, "\"0x", 3);
    gilt_printer_print_hex_bytes(p, a->dense.data, a->dense.nbytes);
    gilt_printer_putc(p, '"');
  }
  else
    print_element_lists(p, a, num);
  gilt_printer_putc(p, '>');
}

void gilt_printer_print_dense_array(GiltAsmPrinter *p, GiltAttr *a)
{
  size_t size = gilt_type_get_storage_size(a->type);
  gilt_printer_puts(p, "array<");
  gilt_printer_print_type(p, a->type);
  for (size_t i = 0; i < a->darray.n; i++) {
    gilt_printer_write(p, i ? ", " : ": ", 2);
    print_element(p, a->type, a->darray.data + i * size, size);
  }
  gilt_printer_putc(p, '>');
}

/* The alignment a blob is written with: its element size, rounded up to a
** power of two, as MLIR gives blobs of element data. */
static unsigned blob_alignment(GiltType *shaped)
{
  size_t size = gilt_type_get_storage_size(shaped->shaped.elem);
  unsigned align = 1;
  while (align < size)
    align *= 2;
  return align;
}

void gilt_printer_print_dense_resource(GiltAsmPrinter *p, GiltAttr *a)
{
  GiltResourceBlob *blob = a->resource;
  if (should_elide(p, gilt_shaped_type_get_num_elements(a->type))) {
    gilt_printer_puts(p, "dense_resource<__elided__>");
    return;
  }
  gilt_printer_puts(p, "dense_resource<");
  gilt_printer_print_keyword_or_string(p, blob->name->str, blob->name->len);
  gilt_printer_putc(p, '>');
  gilt_printer_note_blob(p, blob, blob_alignment(a->type));
}
