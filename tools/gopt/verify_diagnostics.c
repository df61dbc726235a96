/*
** verify_diagnostics.c - matching diagnostics against `expected-*`
** annotations, after MLIR's SourceMgrDiagnosticVerifierHandler.
**
** The input is scanned once, line by line, for annotations; each becomes an
** expectation bound to a line (or to "unknown location"). Diagnostics are
** then checked as they arrive, and whatever is left unmatched is reported
** at the end. The complaints name the annotation's own position, so a
** failing test points at the comment to fix. A location is looked into
** (through names, call sites, fused locations) for its first file:line:col,
** which is why this tool file reads the IR core's location structure.
*/
#include "tools/gopt/verify_diagnostics.h"

#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/core.h"

/* Indexed by GiltSeverity. */
static const char *const severity_names[] = {"error", "warning", "note",
                                             "remark"};

typedef struct Expectation {
  GiltSeverity severity;
  bool unknown_loc;          /* @unknown: for diagnostics without a file */
  unsigned line;             /* where the diagnostic is expected */
  unsigned at_line, at_col;  /* where the annotation itself is written */
  char *text;                /* what the message must contain or match */
  bool is_regex;
  regex_t regex;             /* is_regex: compiled after the scan */
  bool matched;
} Expectation;

struct GoptVerifier {
  GiltContext *ctx;
  const char *filename;
  GILT_VEC(Expectation) expected;
  GiltStatus status;
};

/* ---- complaints ------------------------------------------------------- */

/* Prints an error clang-style at loc and fails the verification. */
static void complain(GoptVerifier *v, GiltLocation *loc, const char *fmt,
                     ...) __attribute__((format(printf, 3, 4)));

static void complain(GoptVerifier *v, GiltLocation *loc, const char *fmt,
                     ...)
{
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  char *msg = gilt_malloc(v->ctx, n > 0 ? (size_t)n + 1 : 1);
  vsnprintf(msg, n > 0 ? (size_t)n + 1 : 1, fmt, ap2);
  va_end(ap2);
  va_end(ap);
  GiltDiagnostic d = {.severity = GILT_SEVERITY_ERROR, .loc = loc,
                      .message = msg, .ctx = v->ctx};
  gilt_diagnostic_print(&d, stderr);
  gilt_free(v->ctx, msg);
  v->status = GILT_FAILURE;
}

static GiltLocation *annotation_loc(GoptVerifier *v, const Expectation *e)
{
  return gilt_location_file_line_col_get(v->ctx, v->filename, e->at_line,
                                         e->at_col);
}

/* ---- reading annotations ---------------------------------------------- */

/* One `expected-...` annotation as written. */
typedef struct Annotation {
  GiltSeverity severity;
  bool is_regex;
  char designator; /* 0: this line; '+', '-': @+N, @-N; 'a'bove, 'b'elow,
                      'u'nknown */
  unsigned offset; /* the N of @+N and @-N */
  const char *text;
  size_t len;
} Annotation;

static bool eat(const char **p, const char *end, const char *s)
{
  size_t n = strlen(s);
  if ((size_t)(end - *p) < n || memcmp(*p, s, n))
    return false;
  *p += n;
  return true;
}

static void skip_spaces(const char **p, const char *end)
{
  while (*p < end && **p == ' ')
    ++*p;
}

/* The optional `@...` part; false when an `@` starts something else. */
static bool parse_designator(const char **p, const char *end, Annotation *a)
{
  if (!eat(p, end, "@"))
    return true;
  if (*p < end && (**p == '+' || **p == '-')) {
    a->designator = *(*p)++;
    if (*p == end || **p < '0' || **p > '9')
      return false;
    for (; *p < end && **p >= '0' && **p <= '9'; ++*p)
      if (a->offset < 100000000u)
        a->offset = a->offset * 10 + (unsigned)(**p - '0');
    return true;
  }
  if (eat(p, end, "above"))
    a->designator = 'a';
  else if (eat(p, end, "below"))
    a->designator = 'b';
  else if (eat(p, end, "unknown") || eat(p, end, "*"))
    a->designator = 'u';
  else
    return false;
  return true;
}

/* Matches MLIR's `expected-(error|note|remark|warning)(-re)? *
** (@([+-][0-9]+|above|below|unknown))? *{{(.*)}}$` at p; eol is the end of
** the line without its trailing blanks. */
static bool parse_annotation(const char *p, const char *eol, Annotation *a)
{
  *a = (Annotation){0};
  if (!eat(&p, eol, "expected-"))
    return false;
  size_t k = 0;
  while (k < 4 && !eat(&p, eol, severity_names[k]))
    k++;
  if (k == 4)
    return false;
  a->severity = (GiltSeverity)k;
  a->is_regex = eat(&p, eol, "-re");
  skip_spaces(&p, eol);
  if (!parse_designator(&p, eol, a))
    return false;
  skip_spaces(&p, eol);
  if (!eat(&p, eol, "{{") || eol - p < 2 || memcmp(eol - 2, "}}", 2))
    return false;
  a->text = p;
  a->len = (size_t)(eol - 2 - p);
  return true;
}

/* The first annotation in [line, eol), or NULL. */
static const char *find_annotation(const char *line, const char *eol,
                                   Annotation *a)
{
  for (const char *p = line; p < eol; p++)
    if (*p == 'e' && parse_annotation(p, eol, a))
      return p;
  return NULL;
}

typedef GILT_VEC(size_t) IndexVec;

static void add_expectation(GoptVerifier *v, const Annotation *a,
                            unsigned line, unsigned col, unsigned last_plain,
                            IndexVec *below)
{
  Expectation e = {.severity = a->severity, .line = line, .at_line = line,
                   .at_col = col, .is_regex = a->is_regex,
                   .text = gilt_strndup(v->ctx, a->text, a->len)};
  switch (a->designator) {
  case '+':
    e.line = line + a->offset;
    break;
  case '-':
    e.line = a->offset < line ? line - a->offset : 0;
    break;
  case 'a':
    e.line = last_plain;
    break;
  case 'b':
    gilt_vec_push(v->ctx, below, v->expected.len);
    break;
  case 'u':
    e.unknown_loc = true;
    break;
  default:
    break;
  }
  gilt_vec_push(v->ctx, &v->expected, e);
}

/* `@above` means the last line without an annotation, `@below` the next
** one; lines holding annotations are skipped in both directions. */
static void scan(GoptVerifier *v, const char *buf, size_t len)
{
  IndexVec below = {0};
  unsigned line = 0, last_plain = 0;
  for (const char *p = buf, *end = buf + len; p < end; line++) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const char *next = eol ? eol + 1 : end;
    const char *trimmed = eol ? eol : end;
    while (trimmed > p && strchr(" \t\r", trimmed[-1]))
      trimmed--;
    Annotation a;
    const char *at = find_annotation(p, trimmed, &a);
    if (at) {
      add_expectation(v, &a, line + 1, (unsigned)(at - p) + 1, last_plain,
                      &below);
    } else {
      for (size_t i = 0; i < below.len; i++)
        v->expected.data[below.data[i]].line = line + 1;
      below.len = 0;
      last_plain = line + 1;
    }
    p = next;
  }
  for (size_t i = 0; i < below.len; i++)
    v->expected.data[below.data[i]].line = line;
  gilt_vec_free(v->ctx, &below);
}

/* ---- regexes ---------------------------------------------------------- */

static void append_escaped(GiltStrBuf *sb, const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++) {
    if (strchr(".[\\()*+?{|^$", s[i]))
      gilt_strbuf_append(sb, "\\", 1);
    gilt_strbuf_append(sb, &s[i], 1);
  }
}

/* An `-re` text is literal except for its `{{...}}` parts; it becomes one
** POSIX extended regex. Complains and returns false when it is malformed. */
static bool compile_regex(GoptVerifier *v, Expectation *e)
{
  GiltStrBuf re;
  gilt_strbuf_init(&re, v->ctx);
  gilt_strbuf_append(&re, "", 0);
  bool ok = true;
  for (const char *p = e->text;;) {
    const char *open = strstr(p, "{{");
    append_escaped(&re, p, open ? (size_t)(open - p) : strlen(p));
    if (!open)
      break;
    const char *close = strstr(open + 2, "}}");
    if (!close) {
      complain(v, annotation_loc(v, e),
               "found start of regex with no end '}}'");
      ok = false;
      break;
    }
    gilt_strbuf_printf(&re, "(%.*s)", (int)(close - open - 2), open + 2);
    p = close + 2;
  }
  int rc = ok ? regcomp(&e->regex, re.data ? re.data : "",
                        REG_EXTENDED | REG_NOSUB)
              : 0;
  if (rc) {
    char why[256];
    regerror(rc, &e->regex, why, sizeof why);
    complain(v, annotation_loc(v, e), "invalid regex: %s", why);
    ok = false;
  }
  gilt_strbuf_free(&re);
  return ok;
}

/* Compiles the regexes (only now: a regex_t must not move with a growing
** vector) and drops the expectations whose regex is malformed. */
static void compile_regexes(GoptVerifier *v)
{
  size_t kept = 0;
  for (size_t i = 0; i < v->expected.len; i++) {
    Expectation *e = &v->expected.data[i];
    if (e->is_regex && !compile_regex(v, e)) {
      gilt_free(v->ctx, e->text);
      continue;
    }
    v->expected.data[kept++] = *e;
  }
  v->expected.len = kept;
}

/* ---- checking diagnostics --------------------------------------------- */

static bool matches(const Expectation *e, const char *msg)
{
  if (e->is_regex)
    return regexec(&e->regex, msg, 0, NULL, 0) == 0;
  return strstr(msg, e->text) != NULL;
}

/* A diagnostic is looked for on its file's line, or among the @unknown
** expectations when its location names no file. A match of the wrong
** severity is a near miss, reported as such. */
static void check(GoptVerifier *v, const GiltDiagnostic *d)
{
  GiltSeverity severity = gilt_diagnostic_get_severity(d);
  const char *msg = gilt_diagnostic_get_message(d);
  const char *file = NULL;
  unsigned line = 0, col = 0;
  bool known = gilt_location_get_file_line_col(gilt_diagnostic_get_location(d),
                                               &file, &line, &col);
  Expectation *near_miss = NULL;
  if (!known || !strcmp(file, v->filename)) {
    for (size_t i = 0; i < v->expected.len; i++) {
      Expectation *e = &v->expected.data[i];
      if (e->unknown_loc != !known || (known && e->line != line) ||
          !matches(e, msg))
        continue;
      if (e->severity == severity) {
        e->matched = true;
        return;
      }
      near_miss = e;
    }
  }
  if (near_miss)
    complain(v, annotation_loc(v, near_miss),
             "'%s' diagnostic emitted when expecting a '%s'",
             severity_names[severity], severity_names[near_miss->severity]);
  else
    complain(v, gilt_diagnostic_get_location(d), "unexpected %s: %s",
             severity_names[severity], msg);
}

static void handle(const GiltDiagnostic *d, void *user)
{
  GoptVerifier *v = user;
  check(v, d);
  for (size_t i = 0; i < gilt_diagnostic_get_num_notes(d); i++)
    check(v, gilt_diagnostic_get_note(d, i));
}

GoptVerifier *gopt_verifier_create(GiltContext *ctx, const char *filename,
                                   const char *buf, size_t len)
{
  GoptVerifier *v = gilt_calloc(ctx, 1, sizeof *v);
  v->ctx = ctx;
  v->filename = filename;
  v->status = GILT_SUCCESS;
  scan(v, buf, len);
  compile_regexes(v);
  gilt_context_set_diagnostic_handler(ctx, handle, v);
  return v;
}

GiltStatus gopt_verifier_finish(GoptVerifier *v)
{
  GiltContext *ctx = v->ctx;
  for (size_t i = 0; i < v->expected.len; i++) {
    Expectation *e = &v->expected.data[i];
    if (!e->matched)
      complain(v, annotation_loc(v, e), "expected %s \"%s\" was not produced",
               severity_names[e->severity], e->text);
    if (e->is_regex)
      regfree(&e->regex);
    gilt_free(ctx, e->text);
  }
  gilt_vec_free(ctx, &v->expected);
  GiltStatus status = v->status;
  gilt_free(ctx, v);
  gilt_context_set_diagnostic_handler(ctx, NULL, NULL);
  return status;
}
