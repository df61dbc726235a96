/*
** bind_inputs.c - gjit --fold-inputs: the inputs become constants of the
** function before the pipeline runs, so that constant folding computes
** the whole model at compile time (through the fold hooks and, for the
** rest, the lowering and the interpreter). Comparing the result with a
** normal run checks that compile time and run time compute the same bits:
** the ONNX conformance runner does it for every test (test/onnx/
** run_suite.sh).
**
** Only graph-level functions with static argument types can be bound:
** each argument is replaced by a graph.constant of the input's data.
*/
#include "tools/gjit/bind_inputs.h"

#include <stdio.h>
#include <string.h>

GiltStatus gjit_bind_inputs(GiltOp *fn, GiltTensor *const *inputs, size_t n)
{
  GiltContext *ctx = gilt_op_get_context(fn);
  GiltType *type = gilt_func_get_type(fn);
  GiltBlock *entry = gilt_func_get_entry_block(fn);
  size_t num_args = gilt_function_type_get_num_inputs(type);
  if (n != num_args || !entry) {
    fprintf(stderr, "gjit: --fold-inputs: @%s takes %zu inputs, got %zu\n",
            gilt_symbol_get_name(fn), num_args, n);
    return GILT_FAILURE;
  }
  GiltBuilder *b = gilt_builder_create(ctx);
  gilt_builder_set_insertion_point_to_start(b, entry);
  for (size_t i = 0; i < n; i++) {
    GiltType *t = gilt_function_type_get_input(type, i);
    GiltTensor *in = inputs[i];
    GiltType *want = gilt_tensor_type_get(ctx, gilt_tensor_get_rank(in),
                                          gilt_tensor_get_shape(in),
                                          gilt_tensor_get_element_type(in),
                                          NULL);
    if (t != want) {
      fprintf(stderr, "gjit: --fold-inputs: argument %zu of @%s is not a "
                      "static tensor of the input's type\n",
              i, gilt_symbol_get_name(fn));
      gilt_builder_destroy(b);
      return GILT_FAILURE;
    }
    GiltNamedAttr value = {
        "value", gilt_dense_elements_attr_get(t, gilt_tensor_get_data(in),
                                              gilt_tensor_get_num_bytes(in))};
    GiltOpState st = gilt_op_state_get("graph.constant",
                                       gilt_op_get_location(fn));
    st.num_results = 1;
    st.result_types = &t;
    st.num_attrs = 1;
    st.attrs = &value;
    GiltOp *c = gilt_builder_create_op(b, &st);
    gilt_value_replace_all_uses_with(gilt_block_get_argument(entry, i),
                                     gilt_op_get_result(c, 0));
  }
  gilt_builder_destroy(b);
  while (gilt_block_get_num_arguments(entry))
    gilt_block_erase_argument(entry, 0);
  size_t num_results = gilt_function_type_get_num_results(type);
  GiltType *results[num_results + 1];
  for (size_t i = 0; i < num_results; i++)
    results[i] = gilt_function_type_get_result(type, i);
  gilt_op_set_attr(fn, "function_type",
                   gilt_type_attr_get(gilt_function_type_get(
                       ctx, 0, NULL, num_results, results)));
  gilt_op_remove_attr(fn, "arg_attrs");
  return GILT_SUCCESS;
}
