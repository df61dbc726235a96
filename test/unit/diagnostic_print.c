/*
** diagnostic_print.c - unit test of gilt_diagnostic_print and
** gilt_location_get_name through the public API: a diagnostic whose
** location holds a name (an ONNX node) prints `in node 'NAME': ` before
** its message, the innermost name when names nest, the positioned one in
** a fused location; the message read back through the API is unchanged.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/ir.h"

static char printed[4096];
static char message[512];

/* Keeps what gilt_diagnostic_print writes, through a temporary file. */
static void capture(const GiltDiagnostic *d, void *user)
{
  (void)user;
  snprintf(message, sizeof message, "%s", gilt_diagnostic_get_message(d));
  FILE *f = tmpfile();
  if (!f) {
    perror("tmpfile");
    exit(1);
  }
  gilt_diagnostic_print(d, f);
  rewind(f);
  size_t n = fread(printed, 1, sizeof printed - 1, f);
  printed[n] = '\0';
  fclose(f);
}

/* Prints an error at loc and returns the text. */
static const char *print_error_at(GiltLocation *loc)
{
  printed[0] = message[0] = '\0';
  gilt_emit_error(loc, "'graph.conv' op bad channels");
  return printed;
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_context_set_diagnostic_handler(ctx, capture, NULL);
  GiltLocation *pos = gilt_location_file_line_col_get(ctx, "m.onnx", 2, 1);
  GiltLocation *pos3 = gilt_location_file_line_col_get(ctx, "m.onnx", 3, 1);
  GiltLocation *conv = gilt_location_name_get(ctx, "conv_bad", pos);

  /* The node's name leads the message; the message itself has no prefix. */
  CHECK(!strcmp(print_error_at(conv),
                "m.onnx:2:1: error: in node 'conv_bad': 'graph.conv' op bad "
                "channels\n"));
  CHECK(!strcmp(message, "'graph.conv' op bad channels"));
  CHECK(!strcmp(gilt_location_get_name(conv), "conv_bad"));

  /* A bare position has no name and prints as before. */
  CHECK(!gilt_location_get_name(pos));
  CHECK(!strcmp(print_error_at(pos),
                "m.onnx:2:1: error: 'graph.conv' op bad channels\n"));

  /* Nested names: the innermost. */
  GiltLocation *nested = gilt_location_name_get(ctx, "outer", conv);
  CHECK(!strcmp(gilt_location_get_name(nested), "conv_bad"));
  CHECK(strstr(print_error_at(nested), "error: in node 'conv_bad': "));

  /* Fused: the name on the way to the printed position; failing that,
  ** the first name in the list. */
  GiltLocation *relu = gilt_location_name_get(ctx, "relu", pos3);
  GiltLocation *both[2] = {conv, relu};
  GiltLocation *fused = gilt_location_fused_get(ctx, 2, both, NULL);
  CHECK(!strcmp(print_error_at(fused),
                "m.onnx:2:1: error: in node 'conv_bad': 'graph.conv' op bad "
                "channels\n"));
  GiltLocation *bare_first[2] = {pos, relu};
  fused = gilt_location_fused_get(ctx, 2, bare_first, NULL);
  CHECK(!strcmp(print_error_at(fused),
                "m.onnx:2:1: error: in node 'relu': 'graph.conv' op bad "
                "channels\n"));

  /* A name without a position leads the line, as the header. */
  GiltLocation *value = gilt_location_name_get(ctx, "x", NULL);
  CHECK(!strcmp(print_error_at(value), "x: error: 'graph.conv' op bad "
                                       "channels\n"));
  CHECK(!strcmp(print_error_at(gilt_location_unknown_get(ctx)),
                "error: 'graph.conv' op bad channels\n"));

  /* The quoted source line and caret follow the header unchanged. */
  static const char src[] = "first\n  second\n";
  gilt_context_add_source_buffer(ctx, "m.onnx", src, sizeof src - 1);
  CHECK(!strcmp(print_error_at(conv),
                "m.onnx:2:1: error: in node 'conv_bad': 'graph.conv' op bad "
                "channels\n  second\n^\n"));

  gilt_context_destroy(ctx);
  return check_failures != 0;
}
