/*
** parse_memory.c - unit test that parsing costs memory in proportion to
** its input, through a counting allocator (the public
** gilt_context_create_with_allocator).
**
** The parser's fast tables are indexed by number (file locations by line,
** printer-style SSA names `%N` by N), and an index table sized by a number
** the input chose is memory the input did not pay for: parse_fuzzer inputs
** such as `loc("f1":4294967295:1)` once cost 8 MB per file name, and
** `%4096, %8192, ...` 32 KB per name. Tables are now paged sparsely, and
** names as large as the source is long are hashed; test_far_line_uniqued
** checks that far lines stay uniqued, and the lit test
** test/lit/parser/large-numbers.gilt what such numbers print as.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/ir.h"
#include "gilt/register.h"

/* Each block carries its size in front of it, so frees can be counted. */
typedef struct Usage {
  size_t now, peak;
} Usage;

enum { HEADER = 16 };

static void *counting_realloc(void *user, void *ptr, size_t size)
{
  Usage *u = user;
  size_t old = 0;
  char *block = NULL;
  if (ptr) {
    block = (char *)ptr - HEADER;
    memcpy(&old, block, sizeof old);
  }
  if (size == 0) {
    free(block);
    u->now -= old;
    return NULL;
  }
  block = realloc(block, size + HEADER);
  if (!block)
    return NULL;
  memcpy(block, &size, sizeof size);
  u->now = u->now - old + size;
  if (u->now > u->peak)
    u->peak = u->now;
  return block + HEADER;
}

static void ignore(const GiltDiagnostic *d, void *user)
{
  (void)d;
  (void)user;
}

/* The peak bytes of parsing `text` in a fresh context, less those of an
** empty context; whether it parsed in *parsed. */
static size_t parse_peak(const char *text, bool *parsed)
{
  Usage u = {0, 0};
  GiltContext *ctx = gilt_context_create_with_allocator(counting_realloc, &u);
  gilt_register_everything(ctx);
  gilt_context_set_allow_unregistered_dialects(ctx, true);
  gilt_context_set_diagnostic_handler(ctx, ignore, NULL);
  size_t base = u.now;
  u.peak = base;
  GiltOp *module = gilt_parse_source(ctx, text, strlen(text), "m.gilt");
  *parsed = module != NULL;
  if (module)
    gilt_op_destroy(module);
  size_t peak = u.peak - base;
  gilt_context_destroy(ctx);
  return peak;
}

/* `n` ops, each made by `line` from its index. */
static char *repeat(int n, void (*line)(char *out, size_t size, int i))
{
  size_t cap = (size_t)n * 96 + 1, len = 0;
  char *text = malloc(cap);
  for (int i = 0; i < n; i++) {
    line(text + len, cap - len, i);
    len += strlen(text + len);
  }
  text[len] = 0;
  return text;
}

static void far_line_loc(char *out, size_t size, int i)
{
  snprintf(out, size, "\"t.op\"() : () -> () loc(\"f%d\":4294967295:1)\n",
           i);
}

static void far_apart_name(char *out, size_t size, int i)
{
  snprintf(out, size, "%%%d = \"t.op\"() : () -> i32\n", (i + 1) * 4096);
}

/* A byte of input may cost a few hundred bytes of IR, not kilobytes. */
static void test_bounded(const char *what, char *text)
{
  bool parsed;
  size_t peak = parse_peak(text, &parsed);
  size_t limit = 512 * strlen(text) + (1u << 20);
  CHECK(parsed);
  if (peak > limit)
    fprintf(stderr, "parse_memory: %s: %zu bytes peak for %zu of input\n",
            what, peak, strlen(text));
  CHECK(peak <= limit);
  free(text);
}

static void test_far_line_uniqued(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  GiltLocation *a =
      gilt_location_file_line_col_get(ctx, "f.py", 4294967295u, 7);
  CHECK(a == gilt_location_file_line_col_get(ctx, "f.py", 4294967295u, 7));
  CHECK(a != gilt_location_file_line_col_get(ctx, "f.py", 4294967295u, 8));
  CHECK(a != gilt_location_file_line_col_get(ctx, "g.py", 4294967295u, 7));
  const char *file;
  unsigned line, col;
  CHECK(gilt_location_get_file_line_col(a, &file, &line, &col));
  CHECK(strcmp(file, "f.py") == 0 && line == 4294967295u && col == 7);
  gilt_context_destroy(ctx);
}

int main(void)
{
  test_far_line_uniqued();
  test_bounded("file locations on far lines", repeat(64, far_line_loc));
  test_bounded("SSA names far apart", repeat(256, far_apart_name));
  if (check_failures)
    fprintf(stderr, "parse_memory: %d checks failed\n", check_failures);
  return check_failures != 0;
}
