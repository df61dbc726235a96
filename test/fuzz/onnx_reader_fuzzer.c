/*
** onnx_reader_fuzzer.c - libFuzzer target for the ONNX file reader
** (frontends/onnx/model_reader.h).
**
** Feeds arbitrary bytes to the reader twice: as a model, and when the
** model opens, resolves every tensor in it (initializers and tensor
** attributes, subgraphs included) and the type of every graph value; and
** as a standalone TensorProto, resolving it. Models come from memory with
** no directory, so external data is parsed and checked but never opened:
** the fuzzer touches no files. Any crash, sanitizer report or leak is a
** bug; diagnostics are expected and counted, not printed. Seeds: the
** .onnx and .pb files of the ONNX backend test data.
*/
#include <stdint.h>
#include <stdlib.h>

#include "test/fuzz/fuzz_context.h"

#include "frontends/onnx/model_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void resolve(GiltOnnxReader *r, const Gilt__Onnx__TensorProto *t)
{
  GiltOnnxTensor out;
  if (gilt_onnx_reader_resolve_tensor(r, t, NULL, &out) != GILT_SUCCESS)
    return;
  /* Touch every byte so ASan sees a payload shorter than promised. */
  volatile uint8_t sum = 0;
  for (size_t i = 0; i < out.nbytes; i++)
    sum += ((const uint8_t *)out.data)[i];
  (void)sum;
}

static void walk_graph(GiltOnnxReader *r, const Gilt__Onnx__GraphProto *g)
{
  for (size_t i = 0; i < g->n_initializer; i++)
    resolve(r, g->initializer[i]);
  for (size_t i = 0; i < g->n_input; i++)
    gilt_onnx_reader_get_value_type(r, g->input[i], NULL);
  for (size_t i = 0; i < g->n_output; i++)
    gilt_onnx_reader_get_value_type(r, g->output[i], NULL);
  for (size_t i = 0; i < g->n_value_info; i++)
    gilt_onnx_reader_get_value_type(r, g->value_info[i], NULL);
  for (size_t i = 0; i < g->n_node; i++) {
    const Gilt__Onnx__NodeProto *node = g->node[i];
    for (size_t j = 0; j < node->n_attribute; j++) {
      const Gilt__Onnx__AttributeProto *a = node->attribute[j];
      if (a->t)
        resolve(r, a->t);
      for (size_t k = 0; k < a->n_tensors; k++)
        resolve(r, a->tensors[k]);
      if (a->g)
        walk_graph(r, a->g);
      for (size_t k = 0; k < a->n_graphs; k++)
        walk_graph(r, a->graphs[k]);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  GiltContext *ctx = fuzz_context_create();

  GiltOnnxReader *r =
      gilt_onnx_reader_open_model_buffer(ctx, data, size, "fuzz.onnx", NULL);
  if (r) {
    walk_graph(r, gilt_onnx_reader_get_graph(r));
    gilt_onnx_reader_destroy(r);
  }

  r = gilt_onnx_reader_open_tensor_buffer(ctx, data, size, "fuzz.pb", NULL);
  if (r) {
    resolve(r, gilt_onnx_reader_get_tensor_proto(r));
    gilt_onnx_reader_destroy(r);
  }

  gilt_context_destroy(ctx);
  return 0;
}
