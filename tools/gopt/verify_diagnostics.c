/*
** verify_diagnostics.c - matching diagnostics against `expected-*`
** annotations, after MLIR's SourceMgrDiagnosticVerifierHandler.
**
** The input is scanned once, line by line, for annotations; each becomes an
** expectation bound to a line (or to "unknown location"). Diagnostics are
** then checked as they arrive, and whatever is left unmatched is reported
** at the end. The complaints name the annotation's own position, so a
** failing test points at the comment to fix. A location is looked into
** (through names, call sites, fused locations) for its first file:line:col.
** Like every tool, it uses the public API only.
*/
#include "tools/gopt/verify_diagnostics.h"

#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  Expectation *expected;
  size_t num_expected, cap_expected;
  GiltStatus status;
};

/* Running out of memory in a tool is fatal, as in the library. */
static void *xrealloc(void *p, size_t size)
{
  p = realloc(p, size ? size : 1);
  if (!p) {
    fputs("gopt: out of memory\n", stderr);
    exit(1);
  }
  return p;
}

/* Room for one more element in an array of `size`-byte elements. */
static void *grow(void *data, size_t len, size_t *cap, size_t size)
{
  if (len < *cap)
    return data;
  *cap = *cap ? *cap * 2 : 16;
  return xrealloc(data, *cap * size);
}

/* ---- complaints ------------------------------------------------------- */

static void handle(const GiltDiagnostic *d, void *user);

static void print_diagnostic(const GiltDiagnostic *d, void *user)
{
  (void)user;
  gilt_diagnostic_print(d, stderr);
}

/* Prints an error clang-style at loc and fails the verification. The
** verifier's own complaints are emitted with a printing handler in place
** of the checking one, so that they are not taken for the IR's. */
static void complain(GoptVerifier *v, GiltLocation *loc, const char *fmt,
                     ...) __attribute__((format(printf, 3, 4)));

static void complain(GoptVerifier *v, GiltLocation *loc, const char *fmt,
                     ...)
{
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  size_t size = n > 0 ? (size_t)n + 1 : 1;
  char *msg = xrealloc(NULL, size);
  vsnprintf(msg, size, fmt, ap2);
  va_end(ap2);
  va_end(ap);
  gilt_context_set_diagnostic_handler(v->ctx, print_diagnostic, NULL);
  gilt_emit_error(loc, "%s", msg);
  gilt_context_set_diagnostic_handler(v->ctx, handle, v);
  free(msg);
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

typedef struct IndexVec {
  size_t *data;
  size_t len, cap;
} IndexVec;

static void add_expectation(GoptVerifier *v, const Annotation *a,
                            unsigned line, unsigned col, unsigned last_plain,
                            IndexVec *below)
{
  Expectation e = {.severity = a->severity, .line = line, .at_line = line,
                   .at_col = col, .is_regex = a->is_regex,
                   .text = xrealloc(NULL, a->len + 1)};
  memcpy(e.text, a->text, a->len);
  e.text[a->len] = '\0';
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
    below->data = grow(below->data, below->len, &below->cap,
                       sizeof *below->data);
    below->data[below->len++] = v->num_expected;
    break;
  case 'u':
    e.unknown_loc = true;
    break;
  default:
    break;
  }
  v->expected = grow(v->expected, v->num_expected, &v->cap_expected,
                     sizeof *v->expected);
  v->expected[v->num_expected++] = e;
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
        v->expected[below.data[i]].line = line + 1;
      below.len = 0;
      last_plain = line + 1;
    }
    p = next;
  }
  for (size_t i = 0; i < below.len; i++)
    v->expected[below.data[i]].line = line;
  free(below.data);
}

/* ---- regexes ---------------------------------------------------------- */

/* Appends s[0..len) to `out` with the regex metacharacters escaped. */
static char *append_escaped(char *out, const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++) {
    if (strchr(".[\\()*+?{|^$", s[i]))
      *out++ = '\\';
    *out++ = s[i];
  }
  return out;
}

/* An `-re` text is literal except for its `{{...}}` parts; it becomes one
** POSIX extended regex. Complains and returns false when it is malformed. */
static bool compile_regex(GoptVerifier *v, Expectation *e)
{
  /* Escaping at most doubles a character; `{{x}}` becomes the shorter
  ** `(x)`. */
  char *re = xrealloc(NULL, 2 * strlen(e->text) + 1), *out = re;
  bool ok = true;
  for (const char *p = e->text;;) {
    const char *open = strstr(p, "{{");
    out = append_escaped(out, p, open ? (size_t)(open - p) : strlen(p));
    if (!open)
      break;
    const char *close = strstr(open + 2, "}}");
    if (!close) {
      complain(v, annotation_loc(v, e),
               "found start of regex with no end '}}'");
      ok = false;
      break;
    }
    *out++ = '(';
    memcpy(out, open + 2, (size_t)(close - open - 2));
    out += close - open - 2;
    *out++ = ')';
    p = close + 2;
  }
  *out = '\0';
  int rc = ok ? regcomp(&e->regex, re, REG_EXTENDED | REG_NOSUB) : 0;
  if (rc) {
    char why[256];
    regerror(rc, &e->regex, why, sizeof why);
    complain(v, annotation_loc(v, e), "invalid regex: %s", why);
    ok = false;
  }
  free(re);
  return ok;
}

/* Compiles the regexes (only now: a regex_t must not move with a growing
** vector) and drops the expectations whose regex is malformed. */
static void compile_regexes(GoptVerifier *v)
{
  size_t kept = 0;
  for (size_t i = 0; i < v->num_expected; i++) {
    Expectation *e = &v->expected[i];
    if (e->is_regex && !compile_regex(v, e)) {
      free(e->text);
      continue;
    }
    v->expected[kept++] = *e;
  }
  v->num_expected = kept;
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
    for (size_t i = 0; i < v->num_expected; i++) {
      Expectation *e = &v->expected[i];
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
  GoptVerifier *v = xrealloc(NULL, sizeof *v);
  memset(v, 0, sizeof *v);
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
  for (size_t i = 0; i < v->num_expected; i++) {
    Expectation *e = &v->expected[i];
    if (!e->matched)
      complain(v, annotation_loc(v, e), "expected %s \"%s\" was not produced",
               severity_names[e->severity], e->text);
    if (e->is_regex)
      regfree(&e->regex);
    free(e->text);
  }
  free(v->expected);
  GiltStatus status = v->status;
  free(v);
  gilt_context_set_diagnostic_handler(ctx, NULL, NULL);
  return status;
}
