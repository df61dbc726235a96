/*
** constant.c - lowering of graph.constant: its data becomes a loop.global
** at the top of the module, read through loop.get_global where the
** constant stood. The data is not copied: the global holds the same
** attribute (a dense_resource blob for weights). Lowerings that build
** tables at compile time (TfIdfVectorizer's pool) make globals the same
** way, through lower_global; weights packed at compile time (panels,
** Winograd's transformed filters) through lower_packed_global, which
** hands their bytes to the context as they are.
*/
#include "transforms/graph_to_loop/lowering.h"

#include <stdio.h>
#include <string.h>

GiltValue *lower_global(Lower *l, GiltAttr *value)
{
  GiltType *vt = gilt_attr_get_type(value);
  GiltType *type = gilt_memref_type_get(l->ctx, vt->shaped.rank,
                                        vt->shaped.shape, vt->shaped.elem,
                                        NULL, NULL);
  char name[32];
  snprintf(name, sizeof name, "__constant_%u", (*l->num_globals)++);
  /* Private: nothing outside the module names it, so symbol-dce drops it
  ** once no lowering reads it (a weight packed into a new global). */
  GiltNamedAttr attrs[4] = {
      {"sym_name", gilt_string_attr_get(l->ctx, name, strlen(name))},
      {"sym_visibility", gilt_string_attr_get(l->ctx, "private", 7)},
      {"type", gilt_type_attr_get(type)},
      {"value", value},
  };
  GiltOpState st = gilt_op_state_get("loop.global", l->loc);
  st.num_attrs = 4;
  st.attrs = attrs;
  GiltOp *global = gilt_op_create(l->ctx, &st);
  GiltBlock *body = gilt_module_get_body(l->module);
  GiltOp *first = gilt_block_get_first_op(body);
  if (first)
    gilt_block_insert_op_before(first, global);
  else
    gilt_block_append_op(body, global);
  gilt_rewriter_notify_op_inserted(l->rw, global);
  return lower_emit_attr(l, LOOP_OP_GET_GLOBAL, type, 0, NULL, "name",
                         gilt_symbol_ref_attr_get(l->ctx, name, 0, NULL));
}

static GiltStatus lower_constant_op(Lower *l)
{
  GiltValue *buffer = lower_global(l, gilt_op_get_attr(l->op, "value"));
  return lower_replace(l, &buffer);
}

const GraphLoweringRow graph_lower_misc[] = {
    {GRAPH_OP_CONSTANT, {lower_constant_op}},
    {0, {NULL}},
};

GiltValue *lower_packed_global(Lower *l, size_t rank, const int64_t *shape,
                               float *data)
{
  GiltType *type = gilt_tensor_type_get(
      l->ctx, rank, shape, gilt_float_type_get(l->ctx, GILT_F32), NULL);
  size_t nbytes = (size_t)gilt_shaped_type_get_num_elements(type) *
                  sizeof *data;
  GiltAttr *value = gilt_dense_attr_take(type, "packed", data, nbytes);
  return value ? lower_global(l, value) : NULL;
}
