/*
** toy_opt.c - toy-opt, a small gopt for the toy dialect: parses a file,
** runs a pipeline over it and prints the result.
**
**   toy-opt FILE [-p PIPELINE] [--cost]
**
** The input is verified after parsing, as gopt does. --cost prints,
** before the pipeline runs, the summed toy-cost of the ops that implement
** it and how many ops do not: the question "does this op implement X?"
** asked of ops of several dialects. Diagnostics go to
** stderr, clang-style; the exit status is 1 on any error.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gilt/register.h>

#include "toy.h"
#include "toy_cost.h"

typedef struct Cost {
  long total, uncosted;
} Cost;

static GiltWalkResult add_cost(GiltOp *op, void *user)
{
  Cost *c = user;
  const ToyCostMethods *m = gilt_op_get_interface(op, &toy_cost_interface);
  if (m)
    c->total += m->cost(op);
  else if (gilt_op_get_num_results(op) > 0)
    c->uncosted++;
  return GILT_WALK_ADVANCE;
}

static void print_diagnostic(const GiltDiagnostic *d, void *user)
{
  (void)user;
  gilt_diagnostic_print(d, stderr);
}

static char *read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = NULL;
  size_t cap = 0;
  *len = 0;
  for (;;) {
    if (*len == cap) {
      cap = cap ? 2 * cap : 4096;
      buf = realloc(buf, cap);
      if (!buf)
        break;
    }
    size_t n = fread(buf + *len, 1, cap - *len, f);
    if (n == 0)
      break;
    *len += n;
  }
  fclose(f);
  return buf;
}

static int run(GiltContext *ctx, const char *path, const char *pipeline,
               bool cost)
{
  size_t len;
  char *text = read_file(path, &len);
  if (!text) {
    fprintf(stderr, "toy-opt: cannot read %s\n", path);
    return 1;
  }
  GiltOp *module = gilt_parse_source(ctx, text, len, path);
  int status = 1;
  if (module && gilt_op_verify(module) == GILT_SUCCESS) {
    if (cost) {
      Cost c = {0, 0};
      gilt_op_walk(module, GILT_WALK_PRE_ORDER, add_cost, &c);
      printf("// toy-cost: %ld, ops without a cost: %ld\n", c.total,
             c.uncosted);
    }
    GiltPassManager *pm = gilt_pass_manager_create(ctx);
    if (!gilt_pass_manager_add_pipeline(pm, pipeline) &&
        !gilt_pass_manager_run(pm, module)) {
      gilt_op_print(module, NULL, gilt_print_to_file, stdout);
      status = 0;
    }
    gilt_pass_manager_destroy(pm);
  }
  if (module)
    gilt_op_destroy(module);
  free(text);
  return status;
}

int main(int argc, char **argv)
{
  const char *path = NULL, *pipeline = "";
  bool cost = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-p") && i + 1 < argc)
      pipeline = argv[++i];
    else if (!strcmp(argv[i], "--cost"))
      cost = true;
    else if (!path && argv[i][0] != '-')
      path = argv[i];
    else {
      fprintf(stderr, "usage: toy-opt FILE [-p PIPELINE] [--cost]\n");
      return 2;
    }
  }
  if (!path) {
    fprintf(stderr, "usage: toy-opt FILE [-p PIPELINE] [--cost]\n");
    return 2;
  }
  GiltContext *ctx = gilt_context_create();
  gilt_context_set_diagnostic_handler(ctx, print_diagnostic, NULL);
  gilt_register_everything(ctx);
  int status = toy_register(ctx) ? 1 : run(ctx, path, pipeline, cost);
  gilt_context_destroy(ctx);
  return status;
}
