/*
** timing_table.c - the layout of gilt's timing reports (timing_table.h).
*/
#include "ir/support/timing_table.h"

#include <string.h>

void gilt_timing_table_title(GiltStrBuf *sb, const char *title)
{
  static const char rule[] = "===----------------------------------------"
                             "---------------------------------===\n";
  size_t pad = (sizeof rule - 2 - strlen(title)) / 2;
  gilt_strbuf_printf(sb, "%s%*s%s\n%s", rule, (int)pad, "", title, rule);
}

void gilt_timing_table_begin(GiltStrBuf *sb, const char *title,
                             double total_seconds)
{
  gilt_timing_table_title(sb, title);
  gilt_strbuf_printf(sb, "  Total Execution Time: %.4f seconds\n\n",
                     total_seconds);
  gilt_strbuf_printf(sb, "  ----Wall Time----  ----Name----\n");
}

void gilt_timing_table_row(GiltStrBuf *sb, double seconds, double total,
                           int indent, const char *name)
{
  double percent = total > 0 ? 100.0 * seconds / total : 0.0;
  gilt_strbuf_printf(sb, "%10.4f (%5.1f%%)  %*s%s\n", seconds, percent,
                     indent, "", name);
}
