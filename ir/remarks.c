/*
** remarks.c - optimization remarks (gilt/remarks.h): printed as
** diagnostics for the explained categories, rendered to JSON and kept
** while the context records decisions.
**
** A kept remark is rendered when it is made, not when it is written:
** the op it names may be gone by then (fused away, lowered), and its
** location and name are all the record needs of it.
*/
#include "gilt/remarks.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/context.h"
#include "ir/core.h"
#include "ir/support/json.h"

static bool known_category(const char *name, size_t n)
{
  static const char known[] = "," GILT_REMARK_CATEGORIES ",all,";
  char key[64];
  if (!n || n + 3 > sizeof key)
    return false;
  snprintf(key, sizeof key, ",%.*s,", (int)n, name);
  return strstr(known, key) != NULL;
}

const char *gilt_remark_find_unknown_category(const char *list, size_t *len)
{
  for (const char *p = list;; p += *len + 1) {
    *len = strcspn(p, ",");
    if (!known_category(p, *len))
      return p;
    if (!p[*len])
      return NULL;
  }
}

void gilt_context_explain(GiltContext *ctx, const char *categories)
{
  size_t old = ctx->explained ? strlen(ctx->explained) : 1;
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, ctx);
  gilt_strbuf_append(&sb, ctx->explained ? ctx->explained : ",", old);
  gilt_strbuf_printf(&sb, "%s,", categories);
  gilt_free(ctx, ctx->explained);
  ctx->explained = sb.data; /* taken from the buffer */
}

void gilt_context_record_decisions(GiltContext *ctx, bool on)
{
  ctx->record_decisions = on;
}

bool gilt_context_wants_remarks(GiltContext *ctx)
{
  return ctx->explained || ctx->record_decisions;
}

static bool explained(GiltContext *ctx, const char *category)
{
  if (!ctx->explained)
    return false;
  char key[64];
  snprintf(key, sizeof key, ",%s,", category);
  return strstr(ctx->explained, key) || strstr(ctx->explained, ",all,");
}

static void render(GiltStrBuf *sb, GiltOp *op, const char *category,
                   const char *decision, size_t num_args,
                   const GiltRemarkArg *args, const char *message)
{
  GiltLocation *loc = gilt_op_get_location(op);
  gilt_strbuf_append(sb, "{\"location\": ", 13);
  const char *file;
  unsigned line, col;
  if (gilt_location_get_file_line_col(loc, &file, &line, &col)) {
    GiltStrBuf where;
    gilt_strbuf_init(&where, sb->ctx);
    gilt_strbuf_printf(&where, "%s:%u:%u", file, line, col);
    gilt_json_put_string(gilt_strbuf_callback, sb, where.data);
    gilt_strbuf_free(&where);
  } else {
    gilt_strbuf_append(sb, "null", 4);
  }
  gilt_strbuf_append(sb, ", \"node\": ", 10);
  gilt_json_put_string(gilt_strbuf_callback, sb, gilt_location_get_name(loc));
  const char *keys[] = {"op", "category", "decision", "message"};
  const char *values[] = {gilt_op_get_name(op), category, decision, message};
  for (size_t i = 0; i < 4; i++) {
    gilt_strbuf_printf(sb, ", \"%s\": ", keys[i]);
    gilt_json_put_string(gilt_strbuf_callback, sb, values[i]);
  }
  gilt_strbuf_append(sb, ", \"args\": {", 11);
  for (size_t i = 0; i < num_args; i++) {
    gilt_strbuf_append(sb, i ? ", " : "", i ? 2 : 0);
    gilt_json_put_string(gilt_strbuf_callback, sb, args[i].key);
    gilt_strbuf_append(sb, ": ", 2);
    if (args[i].text)
      gilt_json_put_string(gilt_strbuf_callback, sb, args[i].text);
    else
      gilt_strbuf_printf(sb, "%lld", (long long)args[i].number);
  }
  gilt_strbuf_append(sb, "}}", 2);
}

void gilt_remark(GiltOp *op, const char *category, const char *decision,
                 size_t num_args, const GiltRemarkArg *args, const char *fmt,
                 ...)
{
  GiltContext *ctx = gilt_op_get_context(op);
  bool print = explained(ctx, category);
  if (!print && !ctx->record_decisions)
    return;
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  if (print)
    gilt_emit_diag(gilt_op_get_location(op), GILT_SEVERITY_REMARK, "%s: %s",
                   category, message);
  if (!ctx->record_decisions)
    return;
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, ctx);
  render(&sb, op, category, decision, num_args, args, message);
  gilt_vec_push(ctx, &ctx->decisions, sb.data); /* taken from the buffer */
}

void gilt_context_write_decisions(GiltContext *ctx, GiltStringCallback cb,
                                  void *user)
{
  cb("{\"decisions\": [", 15, user);
  for (size_t i = 0; i < ctx->decisions.len; i++) {
    cb(i ? ",\n  " : "\n  ", i ? 4 : 3, user);
    cb(ctx->decisions.data[i], strlen(ctx->decisions.data[i]), user);
  }
  cb("\n]}\n", 4, user);
}
