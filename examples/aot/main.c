/*
** main.c - a C program that runs examples/classify.gilt compiled ahead of
** time, with no gilt at run time: `gjit classify.gilt --aot=classify`
** wrote classify.o (the model, weights included) and classify.h (its
** declarations); this links them with lib/libgilt-runtime.a, -lm and
** -lpthread (see the Makefile beside it).
**
**     ./classify 1 2 3 4
**
** prints the three class probabilities as `gjit` prints a tensor:
** 1x3xf32=[p0 p1 p2], each the shortest decimal that reads back to the
** same float.
*/
#include <stdio.h>
#include <stdlib.h>

#include "classify.h"

/* A rank-2 descriptor over a row-major buffer. */
static GiltMemRefDesc matrix(void *data, int64_t rows, int64_t cols)
{
  GiltMemRefDesc d = {0};
  d.data = data;
  d.sizes[0] = rows;
  d.sizes[1] = cols;
  d.strides[0] = cols;
  d.strides[1] = 1;
  return d;
}

static void print_float(float v)
{
  char buf[32];
  for (int digits = 1; digits <= 9; digits++) {
    snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (strtof(buf, NULL) == v)
      break;
  }
  fputs(buf, stdout);
}

int main(int argc, char **argv)
{
  float x[4] = {1, 2, 3, 4};
  if (argc != 1 && argc != 5) {
    fprintf(stderr, "usage: %s [X0 X1 X2 X3]\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; i++)
    x[i - 1] = strtof(argv[i], NULL);

  GiltMemRefDesc in = matrix(x, 1, 4), out;
  if (classify_main(&in, &out) != 0) {
    fprintf(stderr, "classify: %s\n", gilt_rt_last_error());
    return 1;
  }
  /* The result's own strides, as the callee laid it out. */
  const float *p = (const float *)out.data + out.offset;
  printf("%lldx%lldxf32=[", (long long)out.sizes[0], (long long)out.sizes[1]);
  for (int64_t j = 0; j < out.sizes[1]; j++) {
    if (j)
      putchar(' ');
    print_float(p[j * out.strides[1]]);
  }
  puts("]");
  gilt_rt_free(out.data);
  return 0;
}
