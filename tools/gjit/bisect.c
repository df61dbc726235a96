/*
** bisect.c - gjit --check --bisect: which loop-level pass changed what the
** model computes.
**
** The reference is the interpreter's result right after graph-to-loop,
** the first point where the interpreter can run the model. The pipeline
** is then run one top-level element at a time (a nested `op(...)`
** element counts as one), interpreting after each and comparing with the
** reference under the tolerance of --check; the first pass after which
** the results differ is named, with the element that differs. This is
** the linear search of LLVM's opt-bisect rather than a binary one: a
** pipeline has a dozen passes, and a line per pass shows the way. The
** search stops before loop-to-llvm, past which only compiled code runs
** (--check compares that).
**
** --test-bisect-perturb=PASS (hidden, for the lit tests only) adds 1 to
** element 0 of result 0 of every run from the one after PASS on, so that
** the report of a divergence can be tested without a broken pass.
*/
#include "tools/gjit/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/pass.h"

typedef struct Element {
  const char *text; /* into the pipeline, not NUL-terminated */
  size_t len;
  size_t name_len; /* the pass (or nested op) name: up to '{' or '(' */
} Element;

static bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The top-level elements of `pipeline`, split at the commas outside
** braces, parentheses and quotes, into a new array of *n (free()); NULL
** when out of memory. Whether each element parses is the pass manager's
** business. */
static Element *split_pipeline(const char *pipeline, size_t *n)
{
  size_t cap = 1;
  for (const char *p = pipeline; *p; p++)
    cap += *p == ',';
  Element *elements = calloc(cap, sizeof *elements);
  *n = 0;
  if (!elements)
    return NULL;
  int depth = 0;
  char quote = 0;
  const char *start = pipeline;
  for (const char *p = pipeline;; p++) {
    if (quote) {
      if (*p == quote)
        quote = 0;
      else if (!*p)
        quote = 0, p--; /* unterminated: let the parser say so */
      continue;
    }
    if (*p == '"' || *p == '\'')
      quote = *p;
    else if (*p == '(' || *p == '{')
      depth++;
    else if ((*p == ')' || *p == '}') && depth > 0)
      depth--;
    else if (!*p || (*p == ',' && depth == 0)) {
      const char *b = start, *e = p;
      while (b < e && is_space(*b))
        b++;
      while (e > b && is_space(e[-1]))
        e--;
      if (e > b) {
        size_t name = 0;
        while (b + name < e && b[name] != '{' && b[name] != '(' &&
               !is_space(b[name]))
          name++;
        elements[(*n)++] = (Element){b, (size_t)(e - b), name};
      }
      if (!*p)
        break;
      start = p + 1;
    }
  }
  return elements;
}

static bool is_named(const Element *e, const char *name)
{
  return e->name_len == strlen(name) && !strncmp(e->text, name, e->name_len);
}

/* Runs elements [from, to) of the pipeline on `module`. */
static GiltStatus run_elements(GiltOp *module, const Element *elements,
                               size_t from, size_t to)
{
  if (from == to)
    return GILT_SUCCESS;
  const char *begin = elements[from].text;
  const char *end = elements[to - 1].text + elements[to - 1].len;
  size_t len = (size_t)(end - begin);
  char *text = malloc(len + 1);
  if (!text) {
    fputs("gjit: out of memory\n", stderr);
    return GILT_FAILURE;
  }
  memcpy(text, begin, len);
  text[len] = '\0';
  GiltStatus status = gjit_run_pipeline(module, text, false);
  free(text);
  return status;
}

/* The hidden test hook: see the file's comment. */
static void perturb(size_t n, GiltTensor **outputs)
{
  if (n > 0 && gilt_tensor_get_num_elements(outputs[0]) > 0)
    gilt_tensor_set_double(outputs[0], 0,
                           gilt_tensor_get_double(outputs[0], 0) + 1);
}

/* Interprets @name after element `i` (pass i + 1 of the pipeline) and
** compares with the reference; prints the verdict line. */
static GiltStatus judge(const GjitOptions *o, GiltOp *module, const char *name,
                        GiltTensor *const *inputs, size_t n,
                        const Element *e, size_t i, bool perturbed,
                        GiltTensor *const *reference, size_t n_reference)
{
  size_t n_out = 0, first;
  GiltTensor **out = NULL;
  GiltStatus status = gjit_run_on_copies(o, module, false, name, inputs, n,
                                         &n_out, &out);
  if (status == GILT_SUCCESS && perturbed)
    perturb(n_out, out);
  if (status) {
    printf("bisect: after %.*s (pass %zu): the interpreter fails\n",
           (int)e->len, e->text, i + 1);
  } else {
    char label[128];
    snprintf(label, sizeof label, "after %.*s", (int)e->len, e->text);
    status = gjit_compare_all(gilt_op_get_context(module), o, label, out,
                              n_out, reference, n_reference, &first);
    if (status)
      printf("bisect: after %.*s (pass %zu): result %zu differs\n",
             (int)e->len, e->text, i + 1, first);
    else
      printf("bisect: after %.*s (pass %zu): agrees\n", (int)e->len, e->text,
             i + 1);
  }
  fflush(stdout);
  gjit_free_tensors(n_out, out);
  return status;
}

/* The passes after graph-to-loop (element g), one at a time, up to
** loop-to-llvm or the end. */
static GiltStatus bisect_loop_passes(const GjitOptions *o, GiltOp *module,
                                     const char *name,
                                     GiltTensor *const *inputs, size_t n,
                                     const Element *elements, size_t count,
                                     size_t g)
{
  size_t n_reference = 0;
  GiltTensor **reference = NULL;
  GiltStatus status = gjit_run_on_copies(o, module, false, name, inputs, n,
                                         &n_reference, &reference);
  if (status) {
    printf("bisect: the interpreter fails right after graph-to-loop\n");
    return status;
  }
  printf("bisect: after graph-to-loop (pass %zu): the reference\n", g + 1);
  bool perturbed = false;
  size_t i = g + 1;
  for (; i < count && !is_named(&elements[i], "loop-to-llvm"); i++) {
    if (run_elements(module, elements, i, i + 1)) {
      printf("bisect: %.*s (pass %zu) fails\n", (int)elements[i].len,
             elements[i].text, i + 1);
      status = GILT_FAILURE;
      break;
    }
    perturbed = perturbed || (o->test_bisect_perturb &&
                              is_named(&elements[i], o->test_bisect_perturb));
    if (judge(o, module, name, inputs, n, &elements[i], i, perturbed,
              reference, n_reference)) {
      printf("bisect: first divergence after %.*s (pass %zu)\n",
             (int)elements[i].len, elements[i].text, i + 1);
      status = GILT_FAILURE;
      break;
    }
  }
  if (status == GILT_SUCCESS)
    printf("bisect: no divergence: %zu loop-level pass%s after graph-to-loop "
           "leave%s the interpreted results unchanged\n",
           i - g - 1, i - g - 1 == 1 ? "" : "es", i - g - 1 == 1 ? "s" : "");
  gjit_free_tensors(n_reference, reference);
  return status;
}

GiltStatus gjit_bisect(const GjitOptions *o, GiltOp *module, const char *name,
                       GiltTensor *const *inputs, size_t n,
                       const char *pipeline)
{
  size_t count, g = 0;
  Element *elements = split_pipeline(pipeline, &count);
  if (!elements) {
    fputs("gjit: out of memory\n", stderr);
    return GILT_FAILURE;
  }
  while (g < count && !is_named(&elements[g], "graph-to-loop"))
    g++;
  GiltStatus status = GILT_FAILURE;
  if (g == count)
    fprintf(stderr, "gjit: --bisect: the pipeline has no graph-to-loop to "
                    "start from\n");
  else if (run_elements(module, elements, 0, g + 1))
    printf("bisect: the pipeline fails before or in graph-to-loop\n");
  else
    status = bisect_loop_passes(o, module, name, inputs, n, elements, count, g);
  fflush(stdout);
  free(elements);
  return status;
}
