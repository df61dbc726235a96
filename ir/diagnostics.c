/*
** diagnostics.c - building, emitting and printing diagnostics.
**
** Library code reports problems here and returns failure; it never prints.
** A diagnostic carries a severity, a location, a message and notes, and is
** handed to the handler the embedder installed on the context. Printing in
** clang's style (file:line:col, the source line and a caret) is offered for
** tools; it quotes source only from buffers registered with the context,
** and names the node (the name location) a diagnostic's location holds.
*/
#include "ir/core.h"

#include <stdarg.h>
#include <string.h>

#include "ir/context.h"

__attribute__((format(printf, 2, 0)))
static char *vformat(GiltContext *ctx, const char *fmt, va_list ap)
{
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  char *s = gilt_malloc(ctx, n > 0 ? (size_t)n + 1 : 1);
  if (n > 0)
    vsnprintf(s, (size_t)n + 1, fmt, ap2);
  else
    s[0] = '\0';
  va_end(ap2);
  return s;
}

__attribute__((format(printf, 4, 0)))
static GiltDiagnostic *vcreate(GiltContext *ctx, GiltSeverity sev,
                               GiltLocation *loc, const char *fmt, va_list ap)
{
  GiltDiagnostic *d = gilt_calloc(ctx, 1, sizeof *d);
  d->ctx = ctx;
  d->severity = sev;
  d->loc = loc ? loc : gilt_location_unknown_get(ctx);
  d->message = vformat(ctx, fmt, ap);
  return d;
}

GiltDiagnostic *gilt_diag_create(GiltContext *ctx, GiltSeverity sev,
                                 GiltLocation *loc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  GiltDiagnostic *d = vcreate(ctx, sev, loc, fmt, ap);
  va_end(ap);
  return d;
}

void gilt_diag_add_note(GiltDiagnostic *d, GiltLocation *loc,
                        const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  GiltDiagnostic *note = vcreate(d->ctx, GILT_SEVERITY_NOTE, loc, fmt, ap);
  va_end(ap);
  gilt_vec_push(d->ctx, &d->notes, note);
}

static void diag_free(GiltDiagnostic *d)
{
  for (size_t i = 0; i < d->notes.len; i++)
    diag_free(d->notes.data[i]);
  gilt_vec_free(d->ctx, &d->notes);
  gilt_free(d->ctx, d->message);
  gilt_free(d->ctx, d);
}

void gilt_diag_emit(GiltDiagnostic *d)
{
  GiltContext *ctx = d->ctx;
  if (d->severity == GILT_SEVERITY_ERROR)
    ctx->num_errors++;
  if (ctx->diag_handler)
    ctx->diag_handler(d, ctx->diag_user);
  diag_free(d);
}

void gilt_emit_diag(GiltLocation *loc, GiltSeverity sev, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  gilt_diag_emit(vcreate(loc->ctx, sev, loc, fmt, ap));
  va_end(ap);
}

void gilt_emit_error(GiltLocation *loc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  gilt_diag_emit(vcreate(loc->ctx, GILT_SEVERITY_ERROR, loc, fmt, ap));
  va_end(ap);
}

GiltStatus gilt_op_emit_error(GiltOp *op, const char *fmt, ...)
{
  /* MLIR's emitOpError convention: the message names the op first. */
  GiltContext *ctx = op->loc->ctx;
  va_list ap;
  va_start(ap, fmt);
  char *msg = vformat(ctx, fmt, ap);
  va_end(ap);
  gilt_emit_error(op->loc, "'%s' op %s", op->info->name->str, msg);
  gilt_free(ctx, msg);
  return GILT_FAILURE;
}

void gilt_context_set_diagnostic_handler(GiltContext *ctx,
                                         GiltDiagnosticHandler fn, void *user)
{
  ctx->diag_handler = fn;
  ctx->diag_user = user;
}

size_t gilt_context_get_error_count(GiltContext *ctx)
{
  return ctx->num_errors;
}

GiltSeverity gilt_diagnostic_get_severity(const GiltDiagnostic *d)
{
  return d->severity;
}

GiltLocation *gilt_diagnostic_get_location(const GiltDiagnostic *d)
{
  return d->loc;
}

const char *gilt_diagnostic_get_message(const GiltDiagnostic *d)
{
  return d->message;
}

size_t gilt_diagnostic_get_num_notes(const GiltDiagnostic *d)
{
  return d->notes.len;
}

const GiltDiagnostic *gilt_diagnostic_get_note(const GiltDiagnostic *d,
                                               size_t i)
{
  GILT_ASSERT(i < d->notes.len);
  return d->notes.data[i];
}

/* ---- clang-style printing -------------------------------------------------- */

static const char *severity_name(GiltSeverity s)
{
  switch (s) {
  case GILT_SEVERITY_ERROR:
    return "error";
  case GILT_SEVERITY_WARNING:
    return "warning";
  case GILT_SEVERITY_NOTE:
    return "note";
  case GILT_SEVERITY_REMARK:
    return "remark";
  }
  return "error";
}

/* The source line of `flc` and a caret under its column. */
static void format_source_line(GiltStrBuf *sb, GiltLocation *flc)
{
  size_t len;
  const char *p =
      gilt_context_get_source_line(sb->ctx, flc->flc.file, flc->flc.line, &len);
  if (!p)
    return;
  gilt_strbuf_append(sb, p, len);
  gilt_strbuf_append(sb, "\n", 1);
  /* Keep tabs so the caret lines up under tab-indented text. */
  for (unsigned c = 1; c < flc->flc.col && c - 1 < len; c++)
    gilt_strbuf_append(sb, p[c - 1] == '\t' ? "\t" : " ", 1);
  gilt_strbuf_append(sb, "^\n", 2);
}

static void format_one(GiltStrBuf *sb, const GiltDiagnostic *d)
{
  GiltLocation *flc = gilt_location_find_file_line_col(d->loc);
  GiltIdent *name = gilt_location_find_name(d->loc);
  /* Line 0 is no line (a whole file: an imported model's function), and
  ** `file:0:0:` would point nowhere. */
  if (flc && flc->flc.line)
    gilt_strbuf_printf(sb, "%s:%u:%u: ", flc->flc.file->str, flc->flc.line,
                       flc->flc.col);
  else if (flc)
    gilt_strbuf_printf(sb, "%s: ", flc->flc.file->str);
  else if (name)
    gilt_strbuf_printf(sb, "%s: ", name->str);
  gilt_strbuf_printf(sb, "%s: ", severity_name(d->severity));
  /* A position alone would lose the node an op was imported from: every
  ** node of an ONNX model shares its file, and the line is an index. */
  if (flc && name)
    gilt_strbuf_printf(sb, "in node '%s': ", name->str);
  gilt_strbuf_printf(sb, "%s\n", d->message);
  if (flc)
    format_source_line(sb, flc);
  for (size_t i = 0; i < d->notes.len; i++)
    format_one(sb, d->notes.data[i]);
}

/* One piece for the whole diagnostic: stderr is unbuffered, and a long
** source line written a character at a time costs a system call each. */
void gilt_diagnostic_format(const GiltDiagnostic *d, GiltStringCallback cb,
                            void *user)
{
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, d->ctx);
  format_one(&sb, d);
  cb(sb.data, sb.len, user);
  gilt_strbuf_free(&sb);
}

void gilt_diagnostic_print(const GiltDiagnostic *d, FILE *out)
{
  gilt_diagnostic_format(d, gilt_print_to_file, out);
}
