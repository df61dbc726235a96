/*
** pass_pipeline.c - textual pass pipelines: parsing into a tree, printing
** back.
**
** The syntax is MLIR's:
**
**     pipeline := (element (',' element)*)?
**     element  := op-name '(' pipeline ')'        a nested pipeline
**               | pass-name ('{' option* '}')?
**     option   := name ('=' value)?               bare name: a bool set true
**     value    := "text" | 'text' | text up to a space or '}'
**
** e.g. `builtin.module(func.func(cse,canonicalize),loop-tile{size=64})`.
** A pass anchored on an op (def->anchor) that is added where it would run
** on some other op is nested under its anchor, merging with the nest just
** before it; so `cse,dce` with both anchored on func.func becomes
** `func.func(cse,dce)`, as MLIR's auto-nesting does. Parsing stops at the
** first error, reported at `<pipeline>:line:col` with the pipeline text
** registered as a source buffer so the diagnostic can quote it. Running
** pipelines is pass_manager.c's business.
*/
#include "ir/pass/pass_manager.h"

#include <stdarg.h>
#include <string.h>

/* ---- the tree ----------------------------------------------------------- */

GiltPipeline *gilt_pipeline_create(GiltContext *ctx, const char *anchor,
                                   size_t len)
{
  GiltPipeline *pl = gilt_calloc(ctx, 1, sizeof *pl);
  pl->ctx = ctx;
  pl->anchor = anchor ? gilt_strndup(ctx, anchor, len) : NULL;
  return pl;
}

void gilt_pipeline_destroy(GiltPipeline *pl)
{
  for (size_t i = 0; i < pl->entries.len; i++) {
    GiltPipelineEntry *e = &pl->entries.data[i];
    if (e->pass)
      gilt_pass_destroy(e->pass);
    else
      gilt_pipeline_destroy(e->nested);
  }
  gilt_vec_free(pl->ctx, &pl->entries);
  gilt_free(pl->ctx, pl->anchor);
  gilt_free(pl->ctx, pl);
}

static void push_entry(GiltPipeline *pl, GiltPass *pass, GiltPipeline *nested)
{
  GiltPipelineEntry e = {pass, nested};
  gilt_vec_push(pl->ctx, &pl->entries, e);
}

/* The nested pipeline for `anchor` at the end of pl, made if need be. */
static GiltPipeline *nest_for(GiltPipeline *pl, const char *anchor)
{
  if (pl->entries.len) {
    GiltPipeline *last = pl->entries.data[pl->entries.len - 1].nested;
    if (last && strcmp(last->anchor, anchor) == 0)
      return last;
  }
  GiltPipeline *nest = gilt_pipeline_create(pl->ctx, anchor, strlen(anchor));
  push_entry(pl, NULL, nest);
  return nest;
}

void gilt_pipeline_add_pass(GiltPipeline *pl, GiltPass *pass)
{
  const char *anchor = pass->def->anchor;
  if (anchor && !(pl->anchor && strcmp(anchor, pl->anchor) == 0))
    pl = nest_for(pl, anchor);
  push_entry(pl, pass, NULL);
}

void gilt_pipeline_print(GiltPipeline *pl, GiltStrBuf *sb)
{
  for (size_t i = 0; i < pl->entries.len; i++) {
    GiltPipelineEntry *e = &pl->entries.data[i];
    if (i)
      gilt_strbuf_append(sb, ",", 1);
    if (e->pass) {
      gilt_pass_print(e->pass, sb);
      continue;
    }
    gilt_strbuf_printf(sb, "%s(", e->nested->anchor);
    gilt_pipeline_print(e->nested, sb);
    gilt_strbuf_append(sb, ")", 1);
  }
}

void gilt_pipeline_reset_counters(GiltPipeline *pl)
{
  pl->seconds = 0;
  for (size_t i = 0; i < pl->entries.len; i++) {
    GiltPipelineEntry *e = &pl->entries.data[i];
    if (e->pass)
      gilt_pass_reset_counters(e->pass);
    else
      gilt_pipeline_reset_counters(e->nested);
  }
}

/* ---- the parser --------------------------------------------------------- */

typedef struct PipelineParser {
  GiltContext *ctx;
  const char *text; /* the whole pipeline, for line and column */
  const char *p;    /* the next character */
} PipelineParser;

static GiltStatus parse_pipeline(PipelineParser *ps, GiltPipeline *pl,
                                 bool nested);

static bool is_name_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
         c == '$';
}

static bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_space(PipelineParser *ps)
{
  while (is_space(*ps->p))
    ps->p++;
}

static size_t scan_name(PipelineParser *ps)
{
  const char *start = ps->p;
  while (is_name_char(*ps->p))
    ps->p++;
  return (size_t)(ps->p - start);
}

/* Reports an error at `at` in the pipeline text; returns GILT_FAILURE. */
__attribute__((format(printf, 3, 4))) static GiltStatus
fail_at(PipelineParser *ps, const char *at, const char *fmt, ...)
{
  unsigned line = 1;
  const char *line_start = ps->text;
  for (const char *c = ps->text; c < at; c++)
    if (*c == '\n')
      line++, line_start = c + 1;
  gilt_context_add_source_buffer(ps->ctx, "<pipeline>", ps->text,
                                 strlen(ps->text));
  GiltLocation *loc = gilt_location_file_line_col_get(
      ps->ctx, "<pipeline>", line, (unsigned)(at - line_start) + 1);

  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *msg = gilt_malloc(ps->ctx, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(msg, (size_t)n + 1, fmt, ap);
  va_end(ap);
  gilt_emit_error(loc, "%s", msg);
  gilt_free(ps->ctx, msg);
  return GILT_FAILURE;
}

/* value := "text" | 'text' | text up to a space or '}'. */
static GiltStatus parse_value(PipelineParser *ps, GiltPass *pass, size_t opt,
                              const char **start, size_t *len)
{
  char quote = *ps->p;
  if (quote == '"' || quote == '\'') {
    const char *close = strchr(ps->p + 1, quote);
    if (!close)
      return fail_at(ps, ps->p, "unterminated value of option '%s' of pass "
                     "'%s'", pass->def->options[opt].name, pass->def->name);
    *start = ps->p + 1;
    *len = (size_t)(close - *start);
    ps->p = close + 1;
    return GILT_SUCCESS;
  }
  *start = ps->p;
  while (*ps->p && *ps->p != '}' && !is_space(*ps->p))
    ps->p++;
  *len = (size_t)(ps->p - *start);
  return GILT_SUCCESS;
}

/* option := name ('=' value)?; `seen` catches an option given twice. */
static GiltStatus parse_option(PipelineParser *ps, GiltPass *pass, bool *seen)
{
  const GiltPassDef *def = pass->def;
  const char *name = ps->p;
  size_t name_len = scan_name(ps);
  if (!name_len)
    return fail_at(ps, name, "expected an option name or '}'");
  size_t i = gilt_pass_def_find_option(def, name, name_len);
  if (i == SIZE_MAX)
    return fail_at(ps, name, "no option named '%.*s' for pass '%s'",
                   (int)name_len, name, def->name);
  const GiltPassOptionDef *opt = &def->options[i];
  if (seen[i])
    return fail_at(ps, name, "option '%s' of pass '%s' is given twice",
                   opt->name, def->name);
  seen[i] = true;

  const char *value = "true";
  size_t len = 4;
  if (*ps->p == '=') {
    ps->p++;
    if (parse_value(ps, pass, i, &value, &len))
      return GILT_FAILURE;
  } else if (opt->kind != GILT_OPTION_BOOL) {
    return fail_at(ps, ps->p, "missing value for %s option '%s' of pass '%s'",
                   gilt_pass_option_kind_name(opt->kind), opt->name,
                   def->name);
  }
  if (!gilt_pass_set_option(pass, i, value, len))
    return fail_at(ps, value, "invalid value '%.*s' for %s option '%s' of "
                   "pass '%s'", (int)len, value,
                   gilt_pass_option_kind_name(opt->kind), opt->name,
                   def->name);
  return GILT_SUCCESS;
}

/* '{' option* '}', the brace already seen. */
static GiltStatus parse_options(PipelineParser *ps, GiltPass *pass)
{
  size_t n = gilt_pass_def_num_options(pass->def);
  bool *seen = gilt_calloc(ps->ctx, n ? n : 1, sizeof *seen);
  GiltStatus status = GILT_SUCCESS;
  ps->p++;
  for (;;) {
    skip_space(ps);
    if (*ps->p == '}') {
      ps->p++;
      break;
    }
    if (!*ps->p) {
      status = fail_at(ps, ps->p, "expected '}'");
      break;
    }
    if ((status = parse_option(ps, pass, seen)))
      break;
  }
  gilt_free(ps->ctx, seen);
  return status;
}

static GiltStatus parse_pass(PipelineParser *ps, GiltPipeline *pl,
                             const char *name, size_t len)
{
  const GiltPassDef *def = gilt_context_lookup_pass(ps->ctx, name, len);
  if (!def)
    return fail_at(ps, name, "'%.*s' does not refer to a registered pass",
                   (int)len, name);
  GiltPass *pass = gilt_pass_create(ps->ctx, def);
  if (*ps->p == '{' && parse_options(ps, pass)) {
    gilt_pass_destroy(pass);
    return GILT_FAILURE;
  }
  gilt_pipeline_add_pass(pl, pass);
  return GILT_SUCCESS;
}

/* element := op-name '(' pipeline ')' | pass-name options? */
static GiltStatus parse_element(PipelineParser *ps, GiltPipeline *pl)
{
  skip_space(ps);
  const char *name = ps->p;
  size_t len = scan_name(ps);
  if (!len)
    return fail_at(ps, name, "expected a pass or op name");
  skip_space(ps);
  if (*ps->p != '(')
    return parse_pass(ps, pl, name, len);
  ps->p++;
  GiltPipeline *nest = gilt_pipeline_create(ps->ctx, name, len);
  push_entry(pl, NULL, nest);
  return parse_pipeline(ps, nest, true);
}

/* pipeline := (element (',' element)*)?, then ')' when nested. */
static GiltStatus parse_pipeline(PipelineParser *ps, GiltPipeline *pl,
                                 bool nested)
{
  skip_space(ps);
  bool empty = nested ? *ps->p == ')' : !*ps->p;
  while (!empty) {
    if (parse_element(ps, pl))
      return GILT_FAILURE;
    skip_space(ps);
    if (*ps->p != ',')
      break;
    ps->p++;
  }
  if (!nested)
    return *ps->p ? fail_at(ps, ps->p, "expected ',' or end of pipeline")
                  : GILT_SUCCESS;
  if (*ps->p != ')')
    return fail_at(ps, ps->p, "expected ')'");
  ps->p++;
  return GILT_SUCCESS;
}

GiltStatus gilt_pipeline_parse(GiltPipeline *pl, const char *text)
{
  PipelineParser ps = {pl->ctx, text, text};
  GiltPipeline *parsed = gilt_pipeline_create(pl->ctx, pl->anchor,
                                              pl->anchor ? strlen(pl->anchor)
                                                         : 0);
  GiltStatus status = parse_pipeline(&ps, parsed, false);
  if (status == GILT_SUCCESS) {
    for (size_t i = 0; i < parsed->entries.len; i++)
      gilt_vec_push(pl->ctx, &pl->entries, parsed->entries.data[i]);
    parsed->entries.len = 0;
  }
  gilt_pipeline_destroy(parsed);
  return status;
}
