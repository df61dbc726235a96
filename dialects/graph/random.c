/*
** random.c - type inference of the random graph ops: RandomNormal,
** RandomUniform (shape from attribute `shape`), RandomNormalLike,
** RandomUniformLike, Bernoulli (the input's shape), Multinomial ([batch,
** sample_size]).
**
** The element type is attribute `dtype` (an ONNX data type) where given,
** else f32 for the generators and the input's type for the *Like ops
** (i32 for Multinomial). These ops are not pure: each run draws anew, so
** CSE and DCE leave them alone. Not here: the generators themselves.
*/
#include "dialects/graph/graph.h"

static GiltType *dtype_or(const GraphOpView *v, GiltType *def)
{
  if (!gilt_dictionary_attr_lookup(v->attrs, "dtype"))
    return def;
  int64_t dt = graph_dict_int(v->attrs, "dtype", 0);
  GiltType *t = graph_onnx_elem_type(v->ctx, dt);
  if (!t)
    graph_error(v, "attribute 'dtype' (%lld) is not a supported ONNX data "
                "type", (long long)dt);
  return t;
}

GiltStatus graph_infer_random(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GiltType *f32 = gilt_float_type_get(v->ctx, GILT_F32);
  GraphShape s = {.ranked = true};
  GiltType *elem;
  if (!v->num_operands) { /* RandomNormal, RandomUniform */
    size_t n;
    if (!graph_dict_ints(v->attrs, "shape", s.dims, GRAPH_MAX_RANK, &n))
      return graph_error(v, "requires attribute 'shape'");
    if (n > GRAPH_MAX_RANK)
      return graph_error(v, "attribute 'shape' has %zu entries", n);
    s.rank = n;
    elem = dtype_or(v, f32);
  } else if (v->info->def == &graph_ops[GRAPH_OP_MULTINOMIAL]) {
    GraphShape x;
    graph_operand_shape(v, 0, &x);
    if (x.ranked && x.rank != 2)
      return graph_error(v, "operand 'input' must be [batch, classes], got "
                         "rank %zu", x.rank);
    s.rank = 2;
    s.dims[0] = x.ranked ? x.dims[0] : GILT_DYNAMIC;
    s.dims[1] = graph_dict_int(v->attrs, "sample_size", 1);
    elem = dtype_or(v, gilt_integer_type_get(v->ctx, 32, GILT_SIGNLESS));
  } else { /* the *Like ops, Bernoulli */
    graph_operand_shape(v, 0, &s);
    elem = dtype_or(v, graph_operand_elem(v, 0));
  }
  if (!elem)
    return GILT_FAILURE;
  types[0] = graph_tensor_type(v->ctx, &s, elem);
  return GILT_SUCCESS;
}
