/*
** options.c - parsing gopt's command line, and its --help.
**
** Every option is one row of `specs`: most rows only name the GoptOptions
** field they set, so adding a flag is adding a row. The few options whose
** value needs checking (--emit, --elide-constants) or that act at once
** (--help, --version) are handled by name in apply_special. Usage errors
** are printed here, as a tool may; the exit status is main.c's business.
*/
#include "tools/gopt/options.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/remarks.h"


typedef enum OptKind {
  OPT_FLAG,         /* sets a bool field */
  OPT_NEGATED_FLAG, /* clears a bool field */
  OPT_STRING,       /* sets a const char * field */
  OPT_SPECIAL       /* handled by apply_special */
} OptKind;

typedef struct OptSpec {
  const char *name;    /* long name, without dashes */
  const char *alias;   /* one-letter name, or NULL */
  const char *metavar; /* the value in --help; NULL when none is taken */
  OptKind kind;
  size_t field;        /* offsetof the field set, for all but OPT_SPECIAL */
  const char *help;
} OptSpec;

#define FIELD(f) offsetof(GoptOptions, f)

static const OptSpec specs[] = {
    {"output", "o", "FILE", OPT_STRING, FIELD(output),
     "write the output to FILE (default: stdout)"},
    {"pass-pipeline", "p", "PIPELINE", OPT_STRING, FIELD(pipeline),
     "run the passes of PIPELINE, e.g. 'canonicalize,cse'"},
    {"allow-unregistered-dialect", NULL, NULL, OPT_FLAG,
     FIELD(allow_unregistered), "accept ops of dialects nobody registered"},
    {"split-input-file", NULL, NULL, OPT_FLAG, FIELD(split_input_file),
     "process each `// -----` chunk of the input on its own"},
    {"verify-diagnostics", NULL, NULL, OPT_FLAG, FIELD(verify_diagnostics),
     "check diagnostics against expected-* comments in the input"},
    {"no-verify-each", NULL, NULL, OPT_NEGATED_FLAG, FIELD(verify_each),
     "do not verify the IR after each pass"},
    {"emit", NULL, "gilt|dot|llvm|asm|obj", OPT_SPECIAL, 0,
     "print textual IR (default), a Graphviz graph per function, or "
     "translate an llvm-level module to LLVM IR, assembly or an object "
     "file"},
    {"opt-level", NULL, "N", OPT_SPECIAL, 0,
     "LLVM optimization level 0-3 for --emit=llvm|asm|obj (default: 2)"},
    {"mtriple", NULL, "TRIPLE", OPT_STRING, FIELD(target.triple),
     "LLVM target triple (default: the host's)"},
    {"mcpu", NULL, "CPU", OPT_STRING, FIELD(target.cpu),
     "target CPU, e.g. znver4 (default: the host's)"},
    {"mattr", NULL, "FEATURES", OPT_STRING, FIELD(target.features),
     "target features, e.g. +avx512f (default: the host CPU's)"},
    {"print-op-generic", NULL, NULL, OPT_FLAG, FIELD(print_flags.generic),
     "print every op in the generic form"},
    {"print-debuginfo", NULL, NULL, OPT_FLAG, FIELD(print_flags.debug_info),
     "print locations"},
    {"elide-constants", NULL, "N", OPT_SPECIAL, 0,
     "print constants of more than N elements as dense_resource<__elided__>"},
    {"print-ir-before", NULL, "PASSES", OPT_STRING, FIELD(print_ir_before),
     "print the IR before each of these comma-separated passes"},
    {"print-ir-after", NULL, "PASSES", OPT_STRING, FIELD(print_ir_after),
     "print the IR after each of these comma-separated passes"},
    {"print-ir-before-all", NULL, NULL, OPT_FLAG, FIELD(print_ir_before_all),
     "print the IR before every pass"},
    {"print-ir-after-all", NULL, NULL, OPT_FLAG, FIELD(print_ir_after_all),
     "print the IR after every pass"},
    {"print-ir-after-change", NULL, NULL, OPT_FLAG,
     FIELD(print_ir_after_change),
     "print the IR after a pass only if it changed it"},
    {"print-ir-after-failure", NULL, NULL, OPT_FLAG,
     FIELD(print_ir_after_failure), "print the IR after a pass that failed"},
    {"timing", NULL, NULL, OPT_FLAG, FIELD(timing),
     "report the wall-clock time of each pass"},
    {"pass-statistics", NULL, NULL, OPT_FLAG, FIELD(statistics),
     "report the statistics each pass kept"},
    {"reproducer", NULL, "FILE", OPT_STRING, FIELD(reproducer),
     "when a pass fails or crashes, write a reproducer to FILE"},
    {"explain", NULL, "CATEGORIES", OPT_SPECIAL, 0,
     "remark at each op what the passes decided and why, for the "
     "categories listed (" GILT_REMARK_CATEGORIES ", all)"},
    {"decisions", NULL, "FILE", OPT_STRING, FIELD(decisions),
     "write every remark of the passes to FILE as JSON"},
    {"run-reproducer", NULL, NULL, OPT_FLAG, FIELD(run_reproducer),
     "run the pipeline named in the input's `// gilt-reproducer:` line"},
    {"list-passes", NULL, NULL, OPT_FLAG, FIELD(list_passes),
     "list every registered pass with its options, then exit"},
    {"version", NULL, NULL, OPT_SPECIAL, 0, "print the version, then exit"},
    {"help", "h", NULL, OPT_SPECIAL, 0, "print this help, then exit"},
};

static void print_usage_hint(void)
{
  fputs("Try 'gopt --help' for more information.\n", stderr);
}

/* The left column of --help for one option: `-p, --pass-pipeline=X`. */
static int format_spec(const OptSpec *s, char *buf, size_t size)
{
  return snprintf(buf, size, "%s%s%s--%s%s%s", s->alias ? "-" : "",
                  s->alias ? s->alias : "", s->alias ? ", " : "", s->name,
                  s->metavar ? "=" : "", s->metavar ? s->metavar : "");
}

static void print_help(void)
{
  enum { COLUMN = 32 };
  printf("Usage: gopt [options] [FILE|-]\n\n"
         "Parses textual gilt IR from FILE (or stdin), verifies it, runs a\n"
         "pass pipeline on it and prints the result.\n\nOptions:\n");
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    char left[64];
    int n = format_spec(&specs[i], left, sizeof left);
    if (n + 2 >= COLUMN)
      printf("  %s\n  %*s%s\n", left, COLUMN, "", specs[i].help);
    else
      printf("  %-*s%s\n", COLUMN, left, specs[i].help);
  }
}

static const OptSpec *lookup(const char *name, size_t len)
{
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    const OptSpec *s = &specs[i];
    if ((strlen(s->name) == len && !strncmp(s->name, name, len)) ||
        (s->alias && strlen(s->alias) == len && !strncmp(s->alias, name, len)))
      return s;
  }
  return NULL;
}

static bool parse_bool(const char *value, bool *out)
{
  if (!strcmp(value, "true") || !strcmp(value, "1"))
    *out = true;
  else if (!strcmp(value, "false") || !strcmp(value, "0"))
    *out = false;
  else
    return false;
  return true;
}

static bool parse_count(const char *value, int64_t *out)
{
  char *end;
  errno = 0;
  long long n = strtoll(value, &end, 10);
  if (errno || end == value || *end || n < 0)
    return false;
  *out = n;
  return true;
}

static GoptParseResult invalid_value(const char *shown, const char *value)
{
  fprintf(stderr, "gopt: invalid value '%s' for '%s'\n", value, shown);
  print_usage_hint();
  return GOPT_PARSE_ERROR;
}

static GoptParseResult apply_special(GoptOptions *o, const OptSpec *s,
                                     const char *value, const char *shown)
{
  if (!strcmp(s->name, "emit")) {
    if (!strcmp(value, "gilt"))
      o->emit = GOPT_EMIT_GILT;
    else if (!strcmp(value, "dot"))
      o->emit = GOPT_EMIT_DOT;
    else if (!strcmp(value, "llvm"))
      o->emit = GOPT_EMIT_LLVM;
    else if (!strcmp(value, "asm"))
      o->emit = GOPT_EMIT_ASM;
    else if (!strcmp(value, "obj"))
      o->emit = GOPT_EMIT_OBJ;
    else
      return invalid_value(shown, value);
  } else if (!strcmp(s->name, "opt-level")) {
    int64_t level;
    if (!parse_count(value, &level) || level > 3)
      return invalid_value(shown, value);
    o->target.opt_level = (unsigned)level;
  } else if (!strcmp(s->name, "elide-constants")) {
    if (!parse_count(value, &o->print_flags.elide_elements_larger_than))
      return invalid_value(shown, value);
  } else if (!strcmp(s->name, "explain")) {
    size_t n;
    const char *bad = gilt_remark_find_unknown_category(value, &n);
    if (bad) {
      fprintf(stderr, "gopt: --explain knows %s and all, got '%.*s'\n",
              GILT_REMARK_CATEGORIES, (int)n, bad);
      return GOPT_PARSE_ERROR;
    }
    o->explain = value;
  } else if (!strcmp(s->name, "version")) {
    printf("gopt (gilt) version %s\n", GILT_VERSION);
    return GOPT_PARSE_DONE;
  } else {
    print_help();
    return GOPT_PARSE_DONE;
  }
  return GOPT_PARSE_RUN;
}

static GoptParseResult apply(GoptOptions *o, const OptSpec *s,
                             const char *value, const char *shown)
{
  char *field = (char *)o + s->field;
  bool on = true;
  switch (s->kind) {
  case OPT_FLAG:
  case OPT_NEGATED_FLAG:
    if (value && !parse_bool(value, &on))
      return invalid_value(shown, value);
    *(bool *)field = s->kind == OPT_FLAG ? on : !on;
    return GOPT_PARSE_RUN;
  case OPT_STRING:
    *(const char **)field = value;
    return GOPT_PARSE_RUN;
  case OPT_SPECIAL:
    break;
  }
  return apply_special(o, s, value, shown);
}

static GoptParseResult set_input(GoptOptions *o, const char *path)
{
  if (o->input) {
    fprintf(stderr, "gopt: more than one input file ('%s' and '%s')\n",
            o->input, path);
    print_usage_hint();
    return GOPT_PARSE_ERROR;
  }
  o->input = path;
  return GOPT_PARSE_RUN;
}

/* Parses argv[*i], an option, consuming argv[*i + 1] as its value when
** it takes one that was not written after `=`. */
static GoptParseResult parse_option(GoptOptions *o, int argc, char **argv,
                                    int *i)
{
  const char *arg = argv[*i];
  const char *name = arg + (arg[1] == '-' ? 2 : 1);
  const char *eq = strchr(name, '=');
  size_t len = eq ? (size_t)(eq - name) : strlen(name);
  char shown[128];
  snprintf(shown, sizeof shown, "%.*s", (int)(name - arg + len), arg);
  const OptSpec *s = lookup(name, len);
  if (!s) {
    fprintf(stderr, "gopt: unknown option '%s'\n", shown);
    print_usage_hint();
    return GOPT_PARSE_ERROR;
  }
  const char *value = eq ? eq + 1 : NULL;
  if (!value && s->metavar) {
    if (*i + 1 >= argc) {
      fprintf(stderr, "gopt: option '%s' requires a value\n", shown);
      print_usage_hint();
      return GOPT_PARSE_ERROR;
    }
    value = argv[++*i];
  } else if (value && !s->metavar && s->kind == OPT_SPECIAL) {
    fprintf(stderr, "gopt: option '%s' takes no value\n", shown);
    print_usage_hint();
    return GOPT_PARSE_ERROR;
  }
  return apply(o, s, value, shown);
}

GoptParseResult gopt_options_parse(GoptOptions *o, int argc, char **argv)
{
  *o = (GoptOptions){.verify_each = true,
                     .target = gilt_llvm_target_options_default()};
  bool only_inputs = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    GoptParseResult r;
    if (only_inputs || arg[0] != '-' || !strcmp(arg, "-"))
      r = set_input(o, arg);
    else if (!strcmp(arg, "--")) {
      only_inputs = true;
      continue;
    } else
      r = parse_option(o, argc, argv, &i);
    if (r != GOPT_PARSE_RUN)
      return r;
  }
  if (!o->input)
    o->input = "-";
  return GOPT_PARSE_RUN;
}
