/*
** print_locations.c - printing locations.
**
** `loc(unknown)`, `loc("file.gilt":3:7)`, `loc("name")` or
** `loc("name"("file.gilt":3:7))` (the child is left out when unknown),
** `loc(fused["a", "b"])` or `loc(fused<"metadata">["a", "b"])`, and
** `loc(callsite("callee" at "caller"))`, as MLIR's printLocationInternal.
** Locations are always printed inline: gilt never emits `#loc` aliases.
*/
#include "ir/asm/printer.h"

static void print_location_body(GiltAsmPrinter *p, GiltLocation *loc)
{
  switch (loc->kind) {
  case GILT_LOC_UNKNOWN:
    gilt_printer_puts(p, "unknown");
    return;
  case GILT_LOC_FILE_LINE_COL:
    gilt_printer_print_string(p, loc->flc.file->str, loc->flc.file->len);
    gilt_printer_putc(p, ':');
    gilt_printer_print_uint(p, loc->flc.line);
    gilt_printer_putc(p, ':');
    gilt_printer_print_uint(p, loc->flc.col);
    return;
  case GILT_LOC_NAME:
    gilt_printer_print_string(p, loc->name.name->str, loc->name.name->len);
    if (loc->name.child->kind != GILT_LOC_UNKNOWN) {
      gilt_printer_putc(p, '(');
      print_location_body(p, loc->name.child);
      gilt_printer_putc(p, ')');
    }
    return;
  case GILT_LOC_FUSED:
    gilt_printer_puts(p, "fused");
    if (loc->fused.metadata) {
      gilt_printer_putc(p, '<');
      gilt_printer_print_attr(p, loc->fused.metadata, false);
      gilt_printer_putc(p, '>');
    }
    gilt_printer_putc(p, '[');
    for (size_t i = 0; i < loc->fused.n; i++) {
      if (i)
        gilt_printer_write(p, ", ", 2);
      print_location_body(p, loc->fused.locs[i]);
    }
    gilt_printer_putc(p, ']');
    return;
  case GILT_LOC_CALLSITE:
    gilt_printer_puts(p, "callsite(");
    print_location_body(p, loc->callsite.callee);
    gilt_printer_puts(p, " at ");
    print_location_body(p, loc->callsite.caller);
    gilt_printer_putc(p, ')');
    return;
  }
}

void gilt_printer_print_location(GiltAsmPrinter *p, GiltLocation *loc)
{
  gilt_printer_puts(p, "loc(");
  print_location_body(p, loc);
  gilt_printer_putc(p, ')');
}
