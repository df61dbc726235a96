/*
** model_api.c - unit test of gilt/model.h through the public API only: a
** .gilt model compiled and interpreted from its file, called on tensor
** views of the caller's memory, described (function, type, names), timed
** and reported as JSON; built from a module; shaped for AVX2's vector
** registers; and the errors of a missing function, a missing file and a
** vector width gilt has no pipeline for, collected with
** gilt_diagnostic_format.
*/
#include "test/unit/check.h"

#include <stdlib.h>
#include <string.h>

#include "gilt/model.h"
#include "gilt/register.h"

static char diagnostics[4096];

static void append(const char *data, size_t len, void *user)
{
  char *buf = user;
  size_t have = strlen(buf);
  if (have + len < sizeof diagnostics) {
    memcpy(buf + have, data, len);
    buf[have + len] = '\0';
  }
}

static void collect(const GiltDiagnostic *d, void *user)
{
  gilt_diagnostic_format(d, append, user);
}

/* add.gilt on views of a and b: a + b broadcast, 2x3. */
static void check_call(GiltContext *ctx, GiltModel *m)
{
  float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30};
  int64_t sa[2] = {2, 3}, sb[1] = {3};
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  GiltTensor *in[2] = {gilt_tensor_create_view(f32, 2, sa, a),
                       gilt_tensor_create_view(f32, 1, sb, b)};
  CHECK(in[0] && in[1] && gilt_tensor_get_data(in[0]) == (void *)a);
  size_t n = 0;
  GiltTensor **out = NULL;
  CHECK(gilt_model_call(m, 2, in, &n, &out) == GILT_SUCCESS && n == 1);
  if (n == 1) {
    const float *y = gilt_tensor_get_data(out[0]);
    CHECK(y[0] == 11 && y[2] == 33 && y[5] == 36);
    gilt_tensor_destroy(out[0]);
  }
  free(out);
  /* A wrong count fails before anything runs, with the outputs cleared. */
  CHECK(gilt_model_call(m, 1, in, &n, &out) == GILT_FAILURE);
  CHECK(n == 0 && out == NULL);
  CHECK(strstr(diagnostics, "takes 2 inputs, got 1"));
  diagnostics[0] = '\0';
  gilt_tensor_destroy(in[0]);
  gilt_tensor_destroy(in[1]); /* a and b stay the caller's */
}

static void check_describe_and_time(GiltModel *m, const char *backend)
{
  GiltType *t = gilt_model_get_type(m);
  CHECK(!strcmp(gilt_model_get_function(m), "main"));
  CHECK(gilt_function_type_get_num_inputs(t) == 2);
  CHECK(gilt_function_type_get_num_results(t) == 1);
  CHECK(gilt_model_get_input_name(m, 0) == NULL); /* no name location */
  CHECK(gilt_model_get_output_name(m, 1) == NULL);
  float a[6] = {0}, b[3] = {0};
  int64_t sa[2] = {2, 3}, sb[1] = {3};
  GiltType *f32 = gilt_float_type_get(gilt_type_get_context(t), GILT_F32);
  GiltTensor *in[2] = {gilt_tensor_create_view(f32, 2, sa, a),
                       gilt_tensor_create_view(f32, 1, sb, b)};
  GiltModelBenchmark r;
  size_t n = 0;
  GiltTensor **out = NULL;
  CHECK(gilt_model_benchmark(m, 2, in, 3, &r, &n, &out) == GILT_SUCCESS);
  CHECK(n == 1 && r.runs == 3 && r.warmup_runs == 1);
  CHECK(!strcmp(r.backend, backend) && r.min_ms <= r.median_ms &&
        r.median_ms <= r.max_ms && r.peak_rss_mb > 0);
  char json[1024] = "";
  gilt_model_benchmark_format_json(&r, append, json);
  CHECK(strstr(json, "\"median_ms\": ") && strstr(json, "\"function\": \"main\""));
  CHECK(json[strlen(json) - 1] == '\n');
  for (size_t i = 0; i < n; i++)
    gilt_tensor_destroy(out[i]);
  free(out);
  gilt_tensor_destroy(in[0]);
  gilt_tensor_destroy(in[1]);
}

int main(void)
{
  const char *srcdir = getenv("GILT_SRCDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/test/lit/gjit/Inputs/add.gilt",
           srcdir ? srcdir : ".");
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_diagnostic_handler(ctx, collect, diagnostics);

  GiltModelOptions opts = GILT_MODEL_OPTIONS_DEFAULT;
  opts.threads = 1;
  GiltModel *m = gilt_model_create(ctx, path, &opts);
  CHECK(m != NULL);
  if (m) {
    check_call(ctx, m);
    check_describe_and_time(m, "compiled");
    gilt_model_destroy(m);
  }
  opts.interpret = true;
  m = gilt_model_create(ctx, path, &opts);
  CHECK(m != NULL);
  if (m) {
    check_call(ctx, m);
    check_describe_and_time(m, "interpreted");
    gilt_model_destroy(m);
  }

  /* From a module, which the call consumes. */
  GiltOp *module = gilt_model_import(ctx, path);
  CHECK(module && gilt_model_find_function(module, NULL));
  m = module ? gilt_model_create_from_module(module, NULL) : NULL;
  CHECK(m != NULL);
  if (m)
    check_call(ctx, m);
  gilt_model_destroy(m);

  /* Errors are reported, with their locations, and nothing is made. */
  opts.interpret = false;
  opts.function = "nope";
  CHECK(gilt_model_create(ctx, path, &opts) == NULL);
  CHECK(strstr(diagnostics, "has no func.func named 'nope'"));
  diagnostics[0] = '\0';
  opts.function = NULL;
  CHECK(gilt_model_create(ctx, "/nonexistent/model.gilt", &opts) == NULL);
  CHECK(strstr(diagnostics, "cannot read '/nonexistent/model.gilt'"));
  diagnostics[0] = '\0';
  /* Loops shaped for AVX2's registers on any host; no such width as 77. */
  opts.vector_bits = 256;
  CHECK(strstr(gilt_model_default_pipeline_for(&opts),
               "graph-to-loop{vector-bits=256 vector-registers=16}"));
  m = gilt_model_create(ctx, path, &opts);
  CHECK(m != NULL);
  if (m)
    check_call(ctx, m);
  gilt_model_destroy(m);
  opts.vector_bits = 77;
  CHECK(gilt_model_default_pipeline_for(&opts) == NULL);
  CHECK(gilt_model_create(ctx, path, &opts) == NULL);
  CHECK(strstr(diagnostics, "no vector registers of 77 bits"));
  opts.vector_bits = 0;

  /* A view needs its data, aligned to the element size. */
  int64_t one = 1;
  char bytes[8];
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  CHECK(gilt_tensor_create_view(f32, 1, &one, NULL) == NULL);
  CHECK(gilt_tensor_create_view(f32, 1, &one, bytes + 1) == NULL ||
        (uintptr_t)(bytes + 1) % 4 == 0);

  gilt_context_destroy(ctx);
  return check_failures != 0;
}
