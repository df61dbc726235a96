/*
** pass.c - one pass of a pipeline: its typed option values and statistics.
**
** A GiltPass is made when a pipeline is parsed, lives as long as the
** pipeline, and is handed to the pass's run hook on every op it runs on, so
** statistics add up over those ops. Options are typed (bool, integer,
** double, string) and written as text, both in pipelines and in the
** definitions' defaults; this file converts between the two. It does not
** parse pipelines (pass_pipeline.c) or run passes (pass_manager.c).
*/
#include "ir/pass/pass_manager.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t gilt_pass_def_num_options(const GiltPassDef *def)
{
  size_t n = 0;
  while (def->options && def->options[n].name)
    n++;
  return n;
}

size_t gilt_pass_def_find_option(const GiltPassDef *def, const char *text,
                                 size_t len)
{
  size_t n = gilt_pass_def_num_options(def);
  for (size_t i = 0; i < n; i++) {
    const char *name = def->options[i].name;
    if (strlen(name) == len && memcmp(name, text, len) == 0)
      return i;
  }
  return SIZE_MAX;
}

const char *gilt_pass_option_kind_name(GiltPassOptionKind k)
{
  switch (k) {
  case GILT_OPTION_BOOL:
    return "boolean";
  case GILT_OPTION_INT:
    return "integer";
  case GILT_OPTION_DOUBLE:
    return "floating-point";
  case GILT_OPTION_STRING:
    return "string";
  }
  return "unknown";
}

/* ---- textual values ----------------------------------------------------- */

static bool text_is(const char *text, size_t len, const char *word)
{
  return strlen(word) == len && memcmp(text, word, len) == 0;
}

/* llvm::cl's spellings, which MLIR's pass options accept. */
static bool parse_bool(const char *text, size_t len, bool *out)
{
  if (text_is(text, len, "true") || text_is(text, len, "True") ||
      text_is(text, len, "TRUE") || text_is(text, len, "1"))
    return *out = true, true;
  if (text_is(text, len, "false") || text_is(text, len, "False") ||
      text_is(text, len, "FALSE") || text_is(text, len, "0"))
    return *out = false, true;
  return false;
}

/* Numbers are short: copy them to get the NUL strtoll/strtod need. */
static bool copy_number(const char *text, size_t len, char buf[64])
{
  if (len == 0 || len >= 64)
    return false;
  memcpy(buf, text, len);
  buf[len] = '\0';
  return true;
}

static bool parse_int(const char *text, size_t len, int64_t *out)
{
  char buf[64], *end;
  if (!copy_number(text, len, buf))
    return false;
  errno = 0;
  long long v = strtoll(buf, &end, 10);
  if (*end || errno == ERANGE)
    return false;
  *out = v;
  return true;
}

static bool parse_double(const char *text, size_t len, double *out)
{
  char buf[64], *end;
  if (!copy_number(text, len, buf))
    return false;
  errno = 0;
  double v = strtod(buf, &end);
  if (*end || errno == ERANGE)
    return false;
  *out = v;
  return true;
}

bool gilt_pass_set_option(GiltPass *pass, size_t i, const char *text,
                          size_t len)
{
  GiltPassOptionValue *v = &pass->options[i];
  switch (pass->def->options[i].kind) {
  case GILT_OPTION_BOOL:
    return parse_bool(text, len, &v->b);
  case GILT_OPTION_INT:
    return parse_int(text, len, &v->i);
  case GILT_OPTION_DOUBLE:
    return parse_double(text, len, &v->d);
  case GILT_OPTION_STRING:
    gilt_free(pass->ctx, v->s);
    v->s = gilt_strndup(pass->ctx, text, len);
    return true;
  }
  return false;
}

/* The shortest %g form that reads back as the same double. */
static void print_double(GiltStrBuf *sb, double d)
{
  char buf[32];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (isnan(d) || strtod(buf, NULL) == d)
      break;
  }
  gilt_strbuf_append(sb, buf, strlen(buf));
}

/* Strings are quoted when a bare word would not read back: empty, or
** holding a space or a brace. Single quotes only when the value holds a
** double quote (a value holding both cannot be written). */
static void print_string(GiltStrBuf *sb, const char *s)
{
  size_t len = strlen(s);
  if (len && !strpbrk(s, " \t\n{}\"'")) {
    gilt_strbuf_append(sb, s, len);
    return;
  }
  char q = strchr(s, '"') ? '\'' : '"';
  gilt_strbuf_printf(sb, "%c%s%c", q, s, q);
}

static void print_option(GiltStrBuf *sb, const GiltPassOptionDef *opt,
                         const GiltPassOptionValue *v)
{
  gilt_strbuf_printf(sb, "%s=", opt->name);
  switch (opt->kind) {
  case GILT_OPTION_BOOL:
    gilt_strbuf_printf(sb, "%s", v->b ? "true" : "false");
    break;
  case GILT_OPTION_INT:
    gilt_strbuf_printf(sb, "%lld", (long long)v->i);
    break;
  case GILT_OPTION_DOUBLE:
    print_double(sb, v->d);
    break;
  case GILT_OPTION_STRING:
    print_string(sb, v->s);
    break;
  }
}

void gilt_pass_print(GiltPass *pass, GiltStrBuf *sb)
{
  size_t n = gilt_pass_def_num_options(pass->def);
  gilt_strbuf_printf(sb, "%s", pass->def->name);
  for (size_t i = 0; i < n; i++) {
    gilt_strbuf_append(sb, i ? " " : "{", 1);
    print_option(sb, &pass->def->options[i], &pass->options[i]);
  }
  if (n)
    gilt_strbuf_append(sb, "}", 1);
}

/* ---- creation ----------------------------------------------------------- */

GiltPass *gilt_pass_create(GiltContext *ctx, const GiltPassDef *def)
{
  size_t n = gilt_pass_def_num_options(def);
  GiltPass *pass = gilt_calloc(ctx, 1, sizeof *pass);
  pass->ctx = ctx;
  pass->def = def;
  pass->options = gilt_calloc(ctx, n ? n : 1, sizeof *pass->options);
  for (size_t i = 0; i < n; i++) {
    const char *dflt = def->options[i].default_value;
    if (!dflt)
      dflt = def->options[i].kind == GILT_OPTION_BOOL ? "false"
             : def->options[i].kind == GILT_OPTION_STRING ? ""
                                                          : "0";
    bool ok = gilt_pass_set_option(pass, i, dflt, strlen(dflt));
    GILT_ASSERT(ok && "pass option default does not parse");
  }
  return pass;
}

static void free_statistics(GiltPass *pass)
{
  for (size_t i = 0; i < pass->stats.len; i++) {
    gilt_free(pass->ctx, pass->stats.data[i].name);
    gilt_free(pass->ctx, pass->stats.data[i].description);
  }
  gilt_vec_free(pass->ctx, &pass->stats);
}

void gilt_pass_destroy(GiltPass *pass)
{
  size_t n = gilt_pass_def_num_options(pass->def);
  for (size_t i = 0; i < n; i++)
    if (pass->def->options[i].kind == GILT_OPTION_STRING)
      gilt_free(pass->ctx, pass->options[i].s);
  gilt_free(pass->ctx, pass->options);
  free_statistics(pass);
  gilt_free(pass->ctx, pass);
}

void gilt_pass_reset_counters(GiltPass *pass)
{
  free_statistics(pass);
  pass->seconds = 0;
}

/* ---- what a running pass may ask ---------------------------------------- */

GiltContext *gilt_pass_get_context(GiltPass *pass)
{
  return pass->ctx;
}

/* Asking for an option the pass does not declare, or with the wrong kind,
** is a bug in the pass. */
static const GiltPassOptionValue *get_option(GiltPass *pass, const char *name,
                                             GiltPassOptionKind kind)
{
  size_t i = gilt_pass_def_find_option(pass->def, name, strlen(name));
  GILT_ASSERT(i != SIZE_MAX && "no such pass option");
  GILT_ASSERT(pass->def->options[i].kind == kind && "pass option kind");
  return &pass->options[i];
}

bool gilt_pass_get_option_bool(GiltPass *pass, const char *name)
{
  return get_option(pass, name, GILT_OPTION_BOOL)->b;
}

int64_t gilt_pass_get_option_int(GiltPass *pass, const char *name)
{
  return get_option(pass, name, GILT_OPTION_INT)->i;
}

double gilt_pass_get_option_double(GiltPass *pass, const char *name)
{
  return get_option(pass, name, GILT_OPTION_DOUBLE)->d;
}

const char *gilt_pass_get_option_string(GiltPass *pass, const char *name)
{
  return get_option(pass, name, GILT_OPTION_STRING)->s;
}

void gilt_pass_add_statistic(GiltPass *pass, const char *name,
                             const char *description, int64_t delta)
{
  for (size_t i = 0; i < pass->stats.len; i++) {
    if (strcmp(pass->stats.data[i].name, name) == 0) {
      pass->stats.data[i].value += delta;
      return;
    }
  }
  GiltPassStatistic st = {
      gilt_strndup(pass->ctx, name, strlen(name)),
      gilt_strndup(pass->ctx, description ? description : "",
                   description ? strlen(description) : 0),
      delta};
  gilt_vec_push(pass->ctx, &pass->stats, st);
}

void gilt_pass_mark_unchanged(GiltPass *pass)
{
  pass->unchanged = true;
}
