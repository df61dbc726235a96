/*
** llvm_emit.c - unit test of gilt/llvm.h through the public API only:
** gilt_llvm_emit writing LLVM IR, assembly and an object file for a small
** llvm-level module, and its failures (an op without translation, an
** unknown triple, a bad optimization level) reported as diagnostics with
** nothing written.
*/
#include <stdlib.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/ir.h"
#include "gilt/llvm.h"
#include "gilt/register.h"

typedef struct Buffer {
  char *data;
  size_t len;
  size_t calls;
} Buffer;

static void append(const char *data, size_t len, void *user)
{
  Buffer *b = user;
  b->data = realloc(b->data, b->len + len + 1);
  memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = 0;
  b->calls++;
}

static size_t errors;
static char last_error[512];

static void on_diag(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  errors++;
  snprintf(last_error, sizeof last_error, "%s",
           gilt_diagnostic_get_message(d));
}

static const char good[] =
    "llvm.func @scale(%x: f32) -> f32 {\n"
    "  %two = llvm.constant {value = 2.0 : f32} : () -> f32\n"
    "  %y = llvm.fmul %x, %two : f32\n"
    "  llvm.return %y : (f32) -> ()\n"
    "}\n";

static const char not_llvm[] = "func.func @f() {\n  func.return\n}\n";

static GiltOp *parse(GiltContext *ctx, const char *text)
{
  GiltOp *m = gilt_parse_source(ctx, text, strlen(text), "t.gilt");
  CHECK(m && gilt_op_verify(m) == GILT_SUCCESS);
  return m;
}

/* Emits `what` for `text`; returns the status, the output in *out. */
static GiltStatus emit(const char *text, const GiltLlvmTargetOptions *opts,
                       GiltLlvmOutput what, Buffer *out)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_diagnostic_handler(ctx, on_diag, NULL);
  GiltOp *m = parse(ctx, text);
  GiltStatus s = m ? gilt_llvm_emit(m, opts, what, append, out)
                   : GILT_FAILURE;
  gilt_op_destroy(m);
  gilt_context_destroy(ctx);
  return s;
}

static void test_outputs(void)
{
  Buffer ir = {0}, s = {0}, obj = {0};
  GiltLlvmTargetOptions o0 = gilt_llvm_target_options_default();
  CHECK(o0.opt_level == 2 && !o0.triple && !o0.cpu && !o0.features);
  o0.opt_level = 0;
  CHECK(emit(good, &o0, GILT_LLVM_OUTPUT_IR, &ir) == GILT_SUCCESS);
  CHECK(ir.data && strstr(ir.data, "define float @scale(float %0)"));
  CHECK(ir.data && strstr(ir.data, "fmul float %0, 2.000000e+00"));
  CHECK(emit(good, NULL, GILT_LLVM_OUTPUT_ASSEMBLY, &s) == GILT_SUCCESS);
  CHECK(s.data && strstr(s.data, "scale:"));
  CHECK(emit(good, NULL, GILT_LLVM_OUTPUT_OBJECT, &obj) == GILT_SUCCESS);
  CHECK(obj.len > 64 && !memcmp(obj.data, "\177ELF", 4));
  CHECK(errors == 0);
  free(ir.data);
  free(s.data);
  free(obj.data);
}

static void test_failures(void)
{
  Buffer out = {0};
  errors = 0;
  CHECK(emit(not_llvm, NULL, GILT_LLVM_OUTPUT_IR, &out) == GILT_FAILURE);
  CHECK(errors == 1 && strstr(last_error, "has no translation to LLVM IR"));
  GiltLlvmTargetOptions bad = gilt_llvm_target_options_default();
  bad.triple = "no-such-target";
  errors = 0;
  CHECK(emit(good, &bad, GILT_LLVM_OUTPUT_OBJECT, &out) == GILT_FAILURE);
  CHECK(errors == 1 && strstr(last_error, "no target for triple"));
  bad = gilt_llvm_target_options_default();
  bad.opt_level = 7;
  errors = 0;
  CHECK(emit(good, &bad, GILT_LLVM_OUTPUT_IR, &out) == GILT_FAILURE);
  CHECK(errors == 1 && strstr(last_error, "optimization level 7"));
  CHECK(out.calls == 0 && out.data == NULL);
}

int main(void)
{
  test_outputs();
  test_failures();
  return check_failures != 0;
}
