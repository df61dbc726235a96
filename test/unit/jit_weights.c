/*
** jit_weights.c - unit test of linked weights: a JIT module reads a large
** weight from the model's own memory when it is aligned as the code
** assumes, and from an aligned copy when it is not (ONNX raw_data lies at
** any offset of a mapped file), and computes the same either way.
**
** The weights are dense resources handed to the context without a copy
** (gilt_dense_resource_attr_take), one at a 64-byte boundary and one four
** bytes past one; a loop-level function sums element i of both, is lowered
** by loop-to-llvm and compiled by gilt_jit_compile. The test checks the
** results, that the bytes are still the caller's own afterwards (the JIT
** never writes them), and that a weight too small to link is compiled in.
** Which path each weight took shows by changing the caller's bytes after
** compiling, which the contract forbids and only a test may do: the
** aligned weight's change is seen (read in place), the odd one's is not
** (read from the JIT's copy).
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/jit.h"
#include "gilt/pass.h"
#include "gilt/register.h"
#include "test/unit/check.h"

enum { N = 4096 };

static const char module_text[] =
    "\"loop.global\"() {sym_name = \"aligned\", type = memref<4096xf32>, "
    "value = dense_resource<w_aligned> : tensor<4096xf32>} : () -> ()\n"
    "\"loop.global\"() {sym_name = \"odd\", type = memref<4096xf32>, "
    "value = dense_resource<w_odd> : tensor<4096xf32>} : () -> ()\n"
    "\"loop.global\"() {sym_name = \"small\", type = memref<2xf32>, "
    "value = dense<[0.25, 0.5]> : tensor<2xf32>} : () -> ()\n"
    "func.func @main(%i: index) -> f32 {\n"
    "  %c1 = loop.constant 1 : index\n"
    "  %a = loop.get_global {name = @aligned} : () -> memref<4096xf32>\n"
    "  %o = loop.get_global {name = @odd} : () -> memref<4096xf32>\n"
    "  %s = loop.get_global {name = @small} : () -> memref<2xf32>\n"
    "  %x = loop.load %a[%i] : memref<4096xf32>\n"
    "  %y = loop.load %o[%i] : memref<4096xf32>\n"
    "  %z = loop.load %s[%c1] : memref<2xf32>\n"
    "  %xy = loop.addf %x, %y : f32\n"
    "  %r = loop.addf %xy, %z : f32\n"
    "  return %r : f32\n"
    "}\n";

static float expected(int64_t i)
{
  return (float)i + (float)(2 * i) + 0.5f;
}

/* main(i) of the compiled module. */
static double call(GiltContext *ctx, GiltJitModule *jm, int64_t i)
{
  GiltTensor *in = gilt_tensor_create(gilt_index_type_get(ctx), 0, NULL);
  gilt_tensor_set_double(in, 0, (double)i);
  size_t n = 0;
  GiltTensor **out = NULL;
  double r = -1;
  CHECK(gilt_jit_call(jm, "main", 1, &in, &n, &out) == GILT_SUCCESS);
  if (n == 1)
    r = gilt_tensor_get_double(out[0], 0);
  for (size_t j = 0; j < n; j++)
    gilt_tensor_destroy(out[j]);
  free(out);
  gilt_tensor_destroy(in);
  return r;
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);

  /* One buffer, two windows: at its 64-byte-aligned start, and 4 bytes in. */
  unsigned char *mem = aligned_alloc(64, 2 * N * sizeof(float) + 64);
  float *aligned = (float *)mem;
  unsigned char *odd = mem + N * sizeof(float) + 4;
  for (int64_t i = 0; i < N; i++) {
    aligned[i] = (float)i;
    float v = (float)(2 * i);
    memcpy(odd + i * sizeof v, &v, sizeof v);
  }
  unsigned char *before = malloc(2 * N * sizeof(float) + 64);
  memcpy(before, mem, 2 * N * sizeof(float) + 64);

  int64_t shape[] = {N};
  GiltType *t = gilt_tensor_type_get(ctx, 1, shape, gilt_float_type_get(ctx, GILT_F32),
                                     NULL);
  CHECK(gilt_dense_resource_attr_take(t, "w_aligned", aligned,
                                      N * sizeof(float), NULL, NULL));
  CHECK(gilt_dense_resource_attr_take(t, "w_odd", odd, N * sizeof(float),
                                      NULL, NULL));

  GiltOp *m = gilt_parse_source(ctx, module_text, strlen(module_text),
                                "weights.gilt");
  CHECK(m != NULL);
  GiltPassManager *pm = gilt_pass_manager_create(ctx);
  CHECK(gilt_pass_manager_add_pipeline(pm, "loop-to-llvm") == GILT_SUCCESS);
  CHECK(m && gilt_pass_manager_run(pm, m) == GILT_SUCCESS);
  gilt_pass_manager_destroy(pm);

  GiltJitOptions opts = GILT_JIT_OPTIONS_DEFAULT;
  opts.threads = 1;
  GiltJitModule *jm = m ? gilt_jit_compile(m, &opts) : NULL;
  CHECK(jm != NULL);
  /* The module may go; the weights are the context's. */
  gilt_op_destroy(m);

  int64_t probes[] = {0, 1, 1000, N - 1};
  for (size_t k = 0; jm && k < sizeof probes / sizeof *probes; k++)
    CHECK(call(ctx, jm, probes[k]) == expected(probes[k]));
  CHECK(memcmp(before, mem, 2 * N * sizeof(float) + 64) == 0);

  aligned[7] += 100.0f;
  odd[7 * sizeof(float)] ^= 0x55;
  CHECK(!jm || call(ctx, jm, 7) == expected(7) + 100.0f);
  gilt_jit_destroy(jm);

  gilt_context_destroy(ctx);
  free(before);
  free(mem);
  return check_failures != 0;
}
