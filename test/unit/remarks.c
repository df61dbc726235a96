/*
** remarks.c - unit test of gilt/remarks.h through the public API: a
** remark is neither printed nor kept by default; an explained category
** prints it as a remark diagnostic ("category: message") at the op's
** location, others stay silent; recorded remarks come back as one JSON
** document in order, with strings escaped, numbers bare, the position
** and node of the location; the category check names the first unknown.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/remarks.h"

static char printed[1024];
static int num_printed;

static void capture(const GiltDiagnostic *d, void *user)
{
  (void)user;
  num_printed++;
  snprintf(printed, sizeof printed, "%d %s",
           (int)gilt_diagnostic_get_severity(d),
           gilt_diagnostic_get_message(d));
}

static void append(const char *data, size_t len, void *user)
{
  strncat(user, data, len);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_context_set_allow_unregistered_dialects(ctx, true);
  gilt_context_set_diagnostic_handler(ctx, capture, NULL);
  GiltLocation *pos = gilt_location_file_line_col_get(ctx, "m.onnx", 4, 1);
  GiltOpState st =
      gilt_op_state_get("test.conv", gilt_location_name_get(ctx, "Conv_0", pos));
  GiltOp *op = gilt_op_create(ctx, &st);
  GiltRemarkArg args[2] = {{"algorithm", "say \"hi\"\n", 0},
                           {"rows", NULL, -6}};

  CHECK(!gilt_context_wants_remarks(ctx));
  gilt_remark(op, "tiling", "t", 2, args, "tiles of %d", 6);
  CHECK(num_printed == 0);

  gilt_context_explain(ctx, "fusion");
  gilt_context_explain(ctx, "vectorize");
  CHECK(gilt_context_wants_remarks(ctx));
  gilt_remark(op, "tiling", "t", 0, NULL, "silent");
  CHECK(num_printed == 0);
  gilt_remark(op, "vectorize", "v", 0, NULL, "%d lanes", 16);
  CHECK(num_printed == 1);
  CHECK(!strcmp(printed, "3 vectorize: 16 lanes"));

  gilt_context_record_decisions(ctx, true);
  gilt_remark(op, "tiling", "t", 2, args, "tiles of %d", 6);
  gilt_remark(op, "fusion", "f", 0, NULL, "fused");
  static char json[4096];
  gilt_context_write_decisions(ctx, append, json);
  CHECK(!strcmp(json,
                "{\"decisions\": [\n"
                "  {\"location\": \"m.onnx:4:1\", \"node\": \"Conv_0\", "
                "\"op\": \"test.conv\", \"category\": \"tiling\", "
                "\"decision\": \"t\", \"message\": \"tiles of 6\", "
                "\"args\": {\"algorithm\": \"say \\\"hi\\\"\\u000a\", "
                "\"rows\": -6}},\n"
                "  {\"location\": \"m.onnx:4:1\", \"node\": \"Conv_0\", "
                "\"op\": \"test.conv\", \"category\": \"fusion\", "
                "\"decision\": \"f\", \"message\": \"fused\", \"args\": {}}\n"
                "]}\n"));
  if (check_failures)
    fputs(json, stderr);

  size_t n;
  CHECK(!gilt_remark_find_unknown_category(
      "fusion,tiling,vectorize,layout,memory", &n));
  CHECK(!gilt_remark_find_unknown_category("all", &n));
  const char *bad = gilt_remark_find_unknown_category("fusion,layuot,x", &n);
  CHECK(bad && n == 6 && !strncmp(bad, "layuot", n));
  bad = gilt_remark_find_unknown_category("fusion,", &n);
  CHECK(bad && n == 0);

  gilt_op_destroy(op);
  gilt_context_destroy(ctx);
  if (check_failures)
    fprintf(stderr, "%d checks failed\n", check_failures);
  return check_failures != 0;
}
