/*
** timing_table.h - the table every timing report of gilt prints:
** mlir-opt's `--mlir-timing` layout (a ruled title, a Wall Time column
** with each row's share of the total, indented names), so that the pass
** manager's report (gopt --timing) and the JIT's (gjit --timing) read as
** one. Internal to the libraries.
*/
#ifndef GILT_IR_SUPPORT_TIMING_TABLE_H
#define GILT_IR_SUPPORT_TIMING_TABLE_H

#include "ir/support/alloc.h"

/* A report's title, centered between rules (the statistics report's
** too). */
GILT_INTERNAL void gilt_timing_table_title(GiltStrBuf *sb, const char *title);
/* The title, then the total and the columns' header. */
GILT_INTERNAL void gilt_timing_table_begin(GiltStrBuf *sb, const char *title,
                                           double total_seconds);
/* One row: seconds, their share of `total`, and the name indented by
** `indent` spaces. */
GILT_INTERNAL void gilt_timing_table_row(GiltStrBuf *sb, double seconds,
                                         double total, int indent,
                                         const char *name);

#endif /* GILT_IR_SUPPORT_TIMING_TABLE_H */
