/*
** pipeline.c - the pass pipeline gjit runs (pipeline.h): -p's, or the
** model library's default for the back end, with the options that
** --profile asks of graph-to-loop written into it.
*/
#include "tools/gjit/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* base with `pass` (which must appear) given `options` too; a new string,
** or NULL after printing why. */
static char *with_options(char *base, const char *pass, const char *options,
                          const char *flag)
{
  size_t len = strlen(pass);
  const char *at = strstr(base, pass);
  while (at && at[len] != ',' && at[len] != '\0' && at[len] != ')' &&
         at[len] != '{')
    at = strstr(at + 1, pass);
  if (!at) {
    fprintf(stderr, "gjit: %s needs %s in the pipeline\n", flag, pass);
    free(base);
    return NULL;
  }
  /* Options of its own stay, after these: {options given...}. */
  bool given = at[len] == '{';
  const char *rest = at + len + given;
  size_t n = strlen(base) + strlen(options) + 4;
  char *p = malloc(n);
  if (p)
    snprintf(p, n, "%.*s%s{%s%s%s", (int)(at - base), base, pass, options,
             given ? " " : "}", rest);
  free(base);
  return p;
}

char *gjit_pipeline(const GjitOptions *o)
{
  GiltModelOptions mo = GILT_MODEL_OPTIONS_DEFAULT;
  mo.interpret = o->interpret;
  mo.device = o->cuda ? GILT_DEVICE_CUDA : GILT_DEVICE_CPU;
  mo.gpu_arch = o->gpu_arch; /* one gilt knows: options.c checked it */
  mo.vector_bits = o->vector_bits; /* likewise */
  const char *base = o->pipeline ? o->pipeline
                                 : gilt_model_default_pipeline_for(&mo);
  char *p = strdup(base);
  if (p && o->profile_runs)
    p = with_options(p, "graph-to-loop", "profile=true", "--profile");
  return p;
}
