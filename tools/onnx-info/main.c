/*
** onnx-info - prints the gilt type of ONNX tensor files, or whether ONNX
** models are in the conformance runner's scope.
**
**   onnx-info FILE.pb...
**   onnx-info --scope MODEL.onnx...
**
** For each file holding one serialized TensorProto (the input_N.pb and
** output_N.pb files of the ONNX backend test data) prints one line: the
** file name, a tab, and the tensor's type as gilt prints it
** (`tensor<2x3xf32>`). The suite check (test/onnx/import_suite.sh)
** compares these with the result types of the imported `@main`, so that
** the check does not trust gopt to read what gopt is being checked on.
**
** It reads only the header of each tensor (data type and dims), not its
** payload, and it deliberately knows nothing of sequences, maps or
** optionals: a file that is not a tensor of an element type gilt has
** prints `?` after the tab and an error on stderr, and makes the exit
** status 1. A file that cannot be read at all does the same.
**
** With --scope, prints for each model whether the conformance runner
** (test/onnx/run_suite.sh) runs it, and if not why (scope.h): the runner
** skips models that use what an inference compiler of tensors leaves out,
** decided from the model's types, operators and domains, not its name.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontends/onnx/model_reader.h"
#include "gilt/ir.h"
#include "tools/onnx-info/scope.h"

static void report(const GiltDiagnostic *d, void *user)
{
  (void)user;
  gilt_diagnostic_print(d, stderr);
}

static void put(const char *text, size_t len, void *user)
{
  fwrite(text, 1, len, (FILE *)user);
}

/* Prints FILE's type; returns 0, or 1 after printing `?`. */
static int print_tensor_type(GiltContext *ctx, const char *path)
{
  GiltOnnxReader *r = gilt_onnx_reader_open_tensor(ctx, path);
  const Gilt__Onnx__TensorProto *t =
      r ? gilt_onnx_reader_get_tensor_proto(r) : NULL;
  GiltType *elem =
      t ? gilt_onnx_element_type_get_or_report(ctx, t->data_type, path,
                                               "the tensor", NULL)
        : NULL;
  GiltType *type = NULL;
  if (elem) {
    int64_t *dims = malloc((t->n_dims ? t->n_dims : 1) * sizeof *dims);
    if (!dims) {
      fprintf(stderr, "onnx-info: out of memory\n");
      exit(1);
    }
    size_t i;
    for (i = 0; i < t->n_dims && t->dims[i] >= 0; i++)
      dims[i] = t->dims[i];
    if (i == t->n_dims)
      type = gilt_tensor_type_get(ctx, t->n_dims, dims, elem, NULL);
    else
      fprintf(stderr, "%s: error: negative dimension\n", path);
    free(dims);
  }
  printf("%s\t", path);
  if (type)
    gilt_type_print(type, put, stdout);
  else
    fputs("?", stdout);
  putchar('\n');
  gilt_onnx_reader_destroy(r);
  return type ? 0 : 1;
}

int main(int argc, char **argv)
{
  bool scope = argc > 1 && strcmp(argv[1], "--scope") == 0;
  if (argc < 2 + scope) {
    fprintf(stderr, "usage: onnx-info FILE.pb...\n"
                    "       onnx-info --scope MODEL.onnx...\n");
    return 2;
  }
  GiltContext *ctx = gilt_context_create();
  gilt_context_set_diagnostic_handler(ctx, report, NULL);
  int status = 0;
  for (int i = 1 + scope; i < argc; i++)
    status |= scope ? onnx_info_print_scope(ctx, argv[i])
                    : print_tensor_type(ctx, argv[i]);
  gilt_context_destroy(ctx);
  return status;
}
