/*
** onnx_model.c - ONNX models built by hand for the tests and benchmarks
** (onnx_model.h says what and for whom).
**
** Every allocation goes on one list so that onnx_free_all can free a whole
** model, subgraphs and copied strings included, without walking it: the
** tests edit models in ways a walk could not know about. The repeated
** fields grow by replacing the array (the old one stays on the list), so
** no count is capped.
*/
#include "test/support/onnx_model.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void **allocs;
static size_t num_allocs, cap_allocs;

static void out_of_memory(void)
{
  fputs("out of memory building an ONNX model\n", stderr);
  exit(1);
}

void *onnx_alloc(size_t n, size_t size)
{
  if (num_allocs == cap_allocs) {
    size_t cap = cap_allocs ? 2 * cap_allocs : 256;
    void **grown = realloc(allocs, cap * sizeof *grown);
    if (!grown)
      out_of_memory();
    allocs = grown;
    cap_allocs = cap;
  }
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p)
    out_of_memory();
  allocs[num_allocs++] = p;
  return p;
}

void onnx_free_all(void)
{
  while (num_allocs)
    free(allocs[--num_allocs]);
  free(allocs);
  allocs = NULL;
  cap_allocs = 0;
}

static char *copy(const char *s, size_t len)
{
  char *c = onnx_alloc(len + 1, 1);
  memcpy(c, s, len);
  return c;
}

/* `array`, holding `n` pointers, with room for one more. Capacities are 4,
** 8, 16, ..., so the array is full when `n` is a power of two from 4 up. */
static void *room_for_one(void *array, size_t n)
{
  if (n != 0 && (n < 4 || (n & (n - 1)) != 0))
    return array;
  void *grown = onnx_alloc(n ? 2 * n : 4, sizeof(void *));
  if (n)
    memcpy(grown, array, n * sizeof(void *));
  return grown;
}

#define APPEND(array, n, item)                                               \
  ((array) = room_for_one((array), (n)), (array)[(n)++] = (item))

Gilt__Onnx__GraphProto *onnx_graph(const char *name)
{
  Gilt__Onnx__GraphProto *g = onnx_alloc(1, sizeof *g);
  gilt__onnx__graph_proto__init(g);
  g->name = copy(name, strlen(name));
  return g;
}

Gilt__Onnx__ValueInfoProto *onnx_untyped(const char *name)
{
  Gilt__Onnx__ValueInfoProto *vi = onnx_alloc(1, sizeof *vi);
  gilt__onnx__value_info_proto__init(vi);
  vi->name = copy(name, strlen(name));
  return vi;
}

Gilt__Onnx__ValueInfoProto *onnx_value(const char *name, size_t rank,
                                       const int64_t *dims)
{
  Gilt__Onnx__TensorShapeProto *shape = onnx_alloc(1, sizeof *shape);
  gilt__onnx__tensor_shape_proto__init(shape);
  for (size_t i = 0; i < rank; i++) {
    Gilt__Onnx__TensorShapeProto__Dimension *d = onnx_alloc(1, sizeof *d);
    gilt__onnx__tensor_shape_proto__dimension__init(d);
    if (dims[i] >= 0) {
      d->value_case =
          GILT__ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      d->dim_value = dims[i];
    }
    APPEND(shape->dim, shape->n_dim, d);
  }
  Gilt__Onnx__TypeProto__Tensor *tt = onnx_alloc(1, sizeof *tt);
  gilt__onnx__type_proto__tensor__init(tt);
  tt->has_elem_type = true;
  tt->elem_type = ONNX_DT(FLOAT);
  tt->shape = shape;
  Gilt__Onnx__TypeProto *type = onnx_alloc(1, sizeof *type);
  gilt__onnx__type_proto__init(type);
  type->tensor_type = tt;
  Gilt__Onnx__ValueInfoProto *vi = onnx_untyped(name);
  vi->type = type;
  return vi;
}

/* The names of a comma-separated list, copied. An empty list has none; an
** empty name between commas is an absent one. */
static char **split_names(const char *list, size_t *n)
{
  char **names = NULL;
  *n = 0;
  if (!*list)
    return names;
  for (const char *start = list;;) {
    const char *end = strchr(start, ',');
    size_t len = end ? (size_t)(end - start) : strlen(start);
    APPEND(names, *n, copy(start, len));
    if (!end)
      return names;
    start = end + 1;
  }
}

Gilt__Onnx__NodeProto *onnx_node(const char *op_type, const char *name,
                                 const char *ins, const char *outs)
{
  Gilt__Onnx__NodeProto *n = onnx_alloc(1, sizeof *n);
  gilt__onnx__node_proto__init(n);
  n->op_type = copy(op_type, strlen(op_type));
  n->name = copy(name, strlen(name));
  n->input = split_names(ins, &n->n_input);
  n->output = split_names(outs, &n->n_output);
  return n;
}

Gilt__Onnx__AttributeProto *onnx_attr(Gilt__Onnx__NodeProto *n,
                                      const char *name, int type)
{
  Gilt__Onnx__AttributeProto *a = onnx_alloc(1, sizeof *a);
  gilt__onnx__attribute_proto__init(a);
  a->name = copy(name, strlen(name));
  a->has_type = true;
  a->type = type;
  APPEND(n->attribute, n->n_attribute, a);
  return a;
}

void onnx_attr_int(Gilt__Onnx__NodeProto *n, const char *name, int64_t i)
{
  Gilt__Onnx__AttributeProto *a = onnx_attr(n, name, ONNX_AT(INT));
  a->has_i = true;
  a->i = i;
}

void onnx_attr_ints(Gilt__Onnx__NodeProto *n, const char *name, size_t count,
                    const int64_t *values)
{
  Gilt__Onnx__AttributeProto *a = onnx_attr(n, name, ONNX_AT(INTS));
  a->n_ints = count;
  a->ints = (int64_t *)values;
}

void onnx_attr_float(Gilt__Onnx__NodeProto *n, const char *name, float f)
{
  Gilt__Onnx__AttributeProto *a = onnx_attr(n, name, ONNX_AT(FLOAT));
  a->has_f = true;
  a->f = f;
}

void onnx_add_node(Gilt__Onnx__GraphProto *g, Gilt__Onnx__NodeProto *n)
{
  APPEND(g->node, g->n_node, n);
}

void onnx_add_input(Gilt__Onnx__GraphProto *g, Gilt__Onnx__ValueInfoProto *v)
{
  APPEND(g->input, g->n_input, v);
}

void onnx_add_output(Gilt__Onnx__GraphProto *g, Gilt__Onnx__ValueInfoProto *v)
{
  APPEND(g->output, g->n_output, v);
}

void onnx_add_value_info(Gilt__Onnx__GraphProto *g,
                         Gilt__Onnx__ValueInfoProto *v)
{
  APPEND(g->value_info, g->n_value_info, v);
}

Gilt__Onnx__TensorProto *onnx_add_initializer(Gilt__Onnx__GraphProto *g,
                                              const char *name, size_t rank,
                                              const int64_t *dims,
                                              const float *data)
{
  Gilt__Onnx__TensorProto *t = onnx_alloc(1, sizeof *t);
  gilt__onnx__tensor_proto__init(t);
  t->name = copy(name, strlen(name));
  t->has_data_type = true;
  t->data_type = ONNX_DT(FLOAT);
  t->n_dims = rank;
  t->dims = (int64_t *)dims;
  size_t count = 1;
  for (size_t i = 0; i < rank; i++)
    count *= (size_t)dims[i];
  t->has_raw_data = true;
  t->raw_data.len = count * sizeof *data;
  t->raw_data.data = (uint8_t *)data;
  APPEND(g->initializer, g->n_initializer, t);
  return t;
}

uint8_t *onnx_pack_model(const Gilt__Onnx__ModelProto *m, size_t *len)
{
  *len = gilt__onnx__model_proto__get_packed_size(m);
  uint8_t *buf = malloc(*len ? *len : 1);
  if (!buf)
    out_of_memory();
  gilt__onnx__model_proto__pack(m, buf);
  return buf;
}

uint8_t *onnx_pack(const Gilt__Onnx__GraphProto *g, int64_t opset,
                   size_t *len)
{
  Gilt__Onnx__OperatorSetIdProto op;
  gilt__onnx__operator_set_id_proto__init(&op);
  op.domain = "";
  op.has_version = true;
  op.version = opset;
  Gilt__Onnx__OperatorSetIdProto *ops[1] = {&op};
  Gilt__Onnx__ModelProto m;
  gilt__onnx__model_proto__init(&m);
  m.has_ir_version = true;
  m.ir_version = 8;
  m.n_opset_import = 1;
  m.opset_import = ops;
  /* Packing reads the graph; the generated struct just has no const. */
  m.graph = (Gilt__Onnx__GraphProto *)g;
  return onnx_pack_model(&m, len);
}

size_t onnx_write(const Gilt__Onnx__GraphProto *g, int64_t opset,
                  const char *path)
{
  size_t len;
  uint8_t *buf = onnx_pack(g, opset, &len);
  FILE *f = fopen(path, "wb");
  bool ok = f && fwrite(buf, 1, len, f) == len;
  if (f && fclose(f) != 0)
    ok = false;
  free(buf);
  return ok ? len : 0;
}
