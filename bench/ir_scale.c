/*
** ir_scale.c - how parse + verify + print scale with the size of a function.
**
** Generates a function of N ops (a chain of two-operand ops, each using the
** previous two results) as text, then times parsing, verifying and printing
** it. Run with no arguments for N = 1,000,000 and 10,000,000 and the ratio
** of their times (linear scaling gives about 10). Not a test: timings are
** reported, never asserted.
**
** Each size runs twice. The cold run gets its memory fresh from the OS;
** the warm one reuses what the cold one freed (the allocator is told to
** keep it). They differ because on virtual machines the host provisions
** memory the first time it is touched, at a cost per byte that grows with
** the amount: on the 2-core VM this project runs on, a plain memset of
** 3 GB of fresh memory takes about 16x as long as one of 300 MB. The cold
** ratio measures that as much as gilt; the warm ratio measures gilt.
**
**     bench/ir_scale [N...]
*/
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gilt/ir.h"
#include "gilt/register.h"

typedef struct Buffer {
  char *data;
  size_t len, cap;
} Buffer;

static void append(Buffer *b, const char *s, size_t n)
{
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->data = realloc(b->data, b->cap);
    if (!b->data) {
      perror("realloc");
      exit(1);
    }
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

/* Printing goes to a sink that only counts, as writing to a file would:
** the benchmark times the printer, not a growing buffer. */
static void count_cb(const char *data, size_t len, void *user)
{
  (void)data;
  *(size_t *)user += len;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void generate(Buffer *b, long n)
{
  char line[128];
  append(b, "func.func @chain(%arg0: f32, %arg1: f32) -> f32 {\n", 51);
  for (long i = 0; i < n; i++) {
    char lhs[32], rhs[32];
    if (i < 2)
      snprintf(lhs, sizeof lhs, "%%arg%ld", i);
    else
      snprintf(lhs, sizeof lhs, "%%%ld", i - 2);
    if (i < 1)
      snprintf(rhs, sizeof rhs, "%%arg1");
    else
      snprintf(rhs, sizeof rhs, "%%%ld", i - 1);
    int len = snprintf(line, sizeof line,
                       "  %%%ld = \"test.add\"(%s, %s) : (f32, f32) -> f32\n",
                       i, lhs, rhs);
    append(b, line, (size_t)len);
  }
  int len = snprintf(line, sizeof line, "  return %%%ld : f32\n}\n", n - 1);
  append(b, line, (size_t)len);
}

/* Minor page faults so far: on virtual machines, first-touch faults of
** fresh memory can cost more than the work itself. */
static long page_faults(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

/* Returns the total seconds for parse + verify + print. */
static double run(long n, const char *label)
{
  Buffer text = {0};
  size_t printed = 0;
  generate(&text, n);
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_allow_unregistered_dialects(ctx, true);
  /* As gopt does: the text outlives the context, so lend it rather than
  ** have the parser copy it for diagnostics. */
  gilt_context_add_source_buffer_borrowed(ctx, "chain.gilt", text.data,
                                          text.len);
  long f0 = page_faults();
  double t0 = now();
  GiltOp *module = gilt_parse_source(ctx, text.data, text.len, "chain.gilt");
  double t1 = now();
  long f1 = page_faults();
  if (!module || gilt_op_verify(module) != GILT_SUCCESS) {
    fprintf(stderr, "ir_scale: the generated IR did not parse or verify\n");
    exit(1);
  }
  double t2 = now();
  /* Verified just above, as gopt does before it prints. */
  GiltPrintFlags flags = {.assume_verified = true};
  gilt_op_print(module, &flags, count_cb, &printed);
  double t3 = now();
  printf("%s %10ld ops: parse %.3f s, verify %.3f s, print %.3f s, total %.3f "
         "s (%zu MB of text in, %zu MB out, %ld page faults while parsing)\n",
         label, n, t1 - t0, t2 - t1, t3 - t2, t3 - t0, text.len >> 20, printed >> 20,
         f1 - f0);
  gilt_op_destroy(module);
  gilt_context_destroy(ctx);
  free(text.data);
  return t3 - t0;
}

int main(int argc, char **argv)
{
  /* Keep freed memory in the process (every block from the heap, none
  ** mapped apart; no trimming), so a warm run reuses the cold one's pages. */
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
  if (argc > 1) {
    for (int i = 1; i < argc; i++) {
      run(atol(argv[i]), "cold");
      run(atol(argv[i]), "warm");
    }
    return 0;
  }
  double cold[2], warm[2];
  long sizes[2] = {1000000, 10000000};
  for (int i = 0; i < 2; i++) {
    cold[i] = run(sizes[i], "cold");
    warm[i] = run(sizes[i], "warm");
  }
  printf("10x more ops took %.1fx the time cold, %.1fx warm\n",
         cold[1] / cold[0], warm[1] / warm[0]);
  return 0;
}
