/*
** attributes.c - ONNX AttributeProtos to gilt attributes, and the tensor
** constants the importer and the upgrades make.
**
** The mapping is the graph dialect's convention (docs/onnx.md): INT is an
** i64 integer attribute, FLOAT an f32 float attribute, STRING a string,
** INTS/FLOATS/STRINGS arrays of those, TENSOR a dense elements attribute
** (a dense resource past 64 elements, so that a large constant prints by
** reference), and GRAPH a region of the op, in a fixed order per op type.
** Attribute names are kept verbatim; absent attributes stay absent, the
** op's verifier and lowering know the defaults. Constant's shorthand
** attributes (value_float, value_ints, ...) become its `value` tensor.
**
** Not here: sparse tensors, type protos, lists of tensors or graphs, and
** references to function attributes, which no default-domain operator
** up to opset 17 needs in a model; each is reported, naming the node.
*/
#include "frontends/onnx/importer.h"

#include <stdio.h>
#include <string.h>

#include "ir/core.h"

#define ATTR(x) GILT__ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x

/* Constants smaller than this print inline: small enough to read, and the
** shapes, axes and scalars that passes look at are all this small. */
#define MAX_INLINE_ELEMENTS 64

static const char *str(const char *s)
{
  return s ? s : "";
}

/* ---- the node's attribute list ------------------------------------------- */

GiltAttr *gilt_onnx_node_get_attr(GiltOnnxNode *n, const char *name)
{
  for (size_t i = 0; i < n->attrs.len; i++)
    if (!strcmp(n->attrs.data[i].name, name))
      return n->attrs.data[i].attr;
  return NULL;
}

GiltAttr *gilt_onnx_node_take_attr(GiltOnnxNode *n, const char *name)
{
  for (size_t i = 0; i < n->attrs.len; i++) {
    if (strcmp(n->attrs.data[i].name, name))
      continue;
    GiltAttr *a = n->attrs.data[i].attr;
    memmove(&n->attrs.data[i], &n->attrs.data[i + 1],
            (n->attrs.len - i - 1) * sizeof *n->attrs.data);
    n->attrs.len--;
    return a;
  }
  return NULL;
}

void gilt_onnx_node_set_attr(GiltOnnxImporter *imp, GiltOnnxNode *n,
                             const char *name, GiltAttr *attr)
{
  for (size_t i = 0; i < n->attrs.len; i++)
    if (!strcmp(n->attrs.data[i].name, name)) {
      n->attrs.data[i].attr = attr;
      return;
    }
  GiltNamedAttr na = {name, attr};
  gilt_vec_push(imp->ctx, &n->attrs, na);
}

/* ---- tensors --------------------------------------------------------------- */

static bool is_alpha(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Resource names must lex as one bare identifier: [A-Za-z_][A-Za-z0-9_$.]*.
** ONNX names are anything ("conv1/weight:0", "123"). */
static void sanitize(const char *name, char *buf, size_t size)
{
  size_t n = 0;
  if (!(is_alpha(name[0]) || name[0] == '_') && n + 1 < size)
    buf[n++] = '_';
  for (const char *p = name; *p && n + 1 < size; p++) {
    char c = *p;
    bool ok = is_alpha(c) || (c >= '0' && c <= '9') || c == '_' ||
              c == '.' || c == '$';
    buf[n++] = ok ? c : '_';
  }
  buf[n] = '\0';
}

GiltAttr *gilt_onnx_tensor_attr(GiltOnnxImporter *imp,
                                const Gilt__Onnx__TensorProto *t,
                                const char *resource_name, int64_t max_inline,
                                GiltLocation *loc)
{
  GiltOnnxTensor tensor;
  if (gilt_onnx_reader_resolve_tensor(imp->r, t, loc, &tensor) !=
      GILT_SUCCESS)
    return NULL;
  GiltType *type = gilt_tensor_type_get(imp->ctx, tensor.rank, tensor.dims,
                                        tensor.elem_type, NULL);
  if (tensor.num_elements <= max_inline || tensor.num_elements == 0)
    return gilt_dense_elements_attr_get(type, tensor.data, tensor.nbytes);
  char name[256];
  sanitize(*resource_name ? resource_name : "tensor", name, sizeof name);
  return gilt_onnx_bytes_resource(tensor.bytes, type, name, tensor.data,
                                  tensor.nbytes);
}

GiltAttr *gilt_onnx_i64_tensor_attr(GiltContext *ctx, size_t n,
                                    const int64_t *values)
{
  int64_t dim = (int64_t)n;
  GiltType *type = gilt_tensor_type_get(
      ctx, 1, &dim, gilt_integer_type_get(ctx, 64, GILT_SIGNLESS), NULL);
  return gilt_dense_elements_attr_get(type, values, n * sizeof *values);
}

GiltAttr *gilt_onnx_scalar_attr(GiltType *elem, double value)
{
  GiltContext *ctx = gilt_type_get_context(elem);
  GiltType *type = gilt_tensor_type_get(ctx, 0, NULL, elem, NULL);
  unsigned char bytes[8] = {0};
  size_t size = gilt_type_get_storage_size(elem);
  if (gilt_type_is_float(elem)) {
    uint64_t bits = gilt_float_bits_from_double(
        gilt_float_type_get_kind(elem), value, false);
    memcpy(bytes, &bits, size);
  } else {
    /* Little-endian hosts only, as the rest of the dense storage. */
    int64_t i = (int64_t)value;
    memcpy(bytes, &i, size);
  }
  return gilt_dense_elements_attr_get(type, bytes, size);
}

/* ---- one attribute ----------------------------------------------------------- */

/* Old models (IR version 1 and 2) may leave `type` unset; the field that is
** set tells it. */
static int attr_type(const Gilt__Onnx__AttributeProto *a)
{
  if (a->has_type && a->type != ATTR(UNDEFINED))
    return a->type;
  if (a->has_f)
    return ATTR(FLOAT);
  if (a->has_i)
    return ATTR(INT);
  if (a->has_s)
    return ATTR(STRING);
  if (a->t)
    return ATTR(TENSOR);
  if (a->g)
    return ATTR(GRAPH);
  if (a->n_floats)
    return ATTR(FLOATS);
  if (a->n_ints)
    return ATTR(INTS);
  if (a->n_strings)
    return ATTR(STRINGS);
  return ATTR(UNDEFINED);
}

static const char *attr_type_name(int type)
{
  switch (type) {
  case ATTR(SPARSE_TENSOR):
    return "SPARSE_TENSOR";
  case ATTR(TYPE_PROTO):
    return "TYPE_PROTO";
  case ATTR(TENSORS):
    return "TENSORS";
  case ATTR(GRAPHS):
    return "GRAPHS";
  case ATTR(SPARSE_TENSORS):
    return "SPARSE_TENSORS";
  case ATTR(TYPE_PROTOS):
    return "TYPE_PROTOS";
  default:
    return "UNDEFINED";
  }
}

static GiltAttr *convert(GiltOnnxImporter *imp, GiltOnnxNode *n,
                         const Gilt__Onnx__AttributeProto *a, int type)
{
  GiltContext *ctx = imp->ctx;
  GiltType *i64 = gilt_integer_type_get(ctx, 64, GILT_SIGNLESS);
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  switch (type) {
  case ATTR(FLOAT):
    return gilt_float_attr_get(f32, a->f);
  case ATTR(INT):
    return gilt_integer_attr_get(i64, a->i);
  case ATTR(STRING):
    return gilt_string_attr_get(ctx, (const char *)a->s.data, a->s.len);
  case ATTR(TENSOR): {
    char name[256];
    const char *tname = str(a->t->name);
    if (!*tname) {
      snprintf(name, sizeof name, "%s_%s", n->display_name, str(a->name));
      tname = name;
    }
    return gilt_onnx_tensor_attr(imp, a->t, tname, MAX_INLINE_ELEMENTS,
                                 n->loc);
  }
  default:
    break;
  }
  size_t count = type == ATTR(FLOATS)  ? a->n_floats
                 : type == ATTR(INTS)  ? a->n_ints
                                       : a->n_strings;
  GiltAttr **elems = gilt_calloc(ctx, count ? count : 1, sizeof *elems);
  for (size_t i = 0; i < count; i++)
    elems[i] = type == ATTR(FLOATS) ? gilt_float_attr_get(f32, a->floats[i])
               : type == ATTR(INTS)
                   ? gilt_integer_attr_get(i64, a->ints[i])
                   : gilt_string_attr_get(ctx,
                                          (const char *)a->strings[i].data,
                                          a->strings[i].len);
  GiltAttr *array = gilt_array_attr_get(ctx, count, elems);
  gilt_free(ctx, elems);
  return array;
}

/* ---- regions ------------------------------------------------------------------- */

/* The GRAPH attributes of each op that has any, in region order. */
static const struct {
  const char *op_type;
  const char *graphs[2];
} region_order[] = {
    {"If", {"then_branch", "else_branch"}},
    {"Loop", {"body", NULL}},
    {"Scan", {"body", NULL}},
};

static GiltStatus collect_graphs(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  const Gilt__Onnx__NodeProto *p = n->proto;
  const char *op_type = str(p->op_type);
  for (size_t r = 0; r < sizeof region_order / sizeof *region_order; r++) {
    if (strcmp(region_order[r].op_type, op_type))
      continue;
    for (size_t k = 0; k < 2 && region_order[r].graphs[k]; k++) {
      const Gilt__Onnx__GraphProto *g = NULL;
      for (size_t i = 0; i < p->n_attribute; i++)
        if (!strcmp(str(p->attribute[i]->name), region_order[r].graphs[k]))
          g = p->attribute[i]->g;
      if (!g) {
        gilt_emit_error(n->loc, "node '%s' (%s) has no graph attribute '%s'",
                        n->display_name, op_type, region_order[r].graphs[k]);
        return GILT_FAILURE;
      }
      gilt_vec_push(imp->ctx, &n->graphs, g);
    }
    return GILT_SUCCESS;
  }
  gilt_emit_error(n->loc,
                  "node '%s' (%s) has a graph attribute, which gilt imports "
                  "for If, Loop and Scan only",
                  n->display_name, op_type);
  return GILT_FAILURE;
}

/* ---- Constant's shorthand forms ------------------------------------------------- */

/* Whether `a` has the form's kind: a float or integer, or an array of
** them. The attribute's ONNX type, not its name, decided how it was
** converted, so a `value_int` of type FLOATS reaches here as an array. */
static bool has_form(GiltAttr *a, GiltAttrKind kind, bool is_list)
{
  if (!is_list)
    return gilt_attr_get_kind(a) == kind;
  if (gilt_attr_get_kind(a) != GILT_ATTR_ARRAY)
    return false;
  for (size_t i = 0; i < gilt_array_attr_get_size(a); i++)
    if (gilt_attr_get_kind(gilt_array_attr_get_element(a, i)) != kind)
      return false;
  return true;
}

static GiltStatus convert_constant_shorthand(GiltOnnxImporter *imp,
                                             GiltOnnxNode *n)
{
  GiltContext *ctx = imp->ctx;
  static const char *const forms[] = {"value_float", "value_floats",
                                      "value_int", "value_ints"};
  for (size_t k = 0; k < 4; k++) {
    GiltAttr *a = gilt_onnx_node_take_attr(n, forms[k]);
    if (!a)
      continue;
    bool is_float = k < 2, is_list = k % 2 == 1;
    static const char *const wanted[] = {"FLOAT", "FLOATS", "INT", "INTS"};
    if (!has_form(a, is_float ? GILT_ATTR_FLOAT : GILT_ATTR_INTEGER,
                  is_list)) {
      gilt_emit_error(n->loc,
                      "attribute '%s' of node '%s' (Constant) must have type "
                      "%s",
                      forms[k], n->display_name, wanted[k]);
      return GILT_FAILURE;
    }
    GiltType *elem = is_float ? gilt_float_type_get(ctx, GILT_F32)
                              : gilt_integer_type_get(ctx, 64, GILT_SIGNLESS);
    size_t count = is_list ? gilt_array_attr_get_size(a) : 1;
    int64_t dim = (int64_t)count;
    GiltType *type =
        gilt_tensor_type_get(ctx, is_list ? 1 : 0, &dim, elem, NULL);
    size_t esize = is_float ? 4 : 8;
    unsigned char *data = gilt_calloc(ctx, count ? count : 1, esize);
    for (size_t i = 0; i < count; i++) {
      GiltAttr *e = is_list ? gilt_array_attr_get_element(a, i) : a;
      if (is_float) {
        float f = (float)gilt_float_attr_get_value(e);
        memcpy(data + i * 4, &f, 4);
      } else {
        int64_t v = gilt_integer_attr_get_value(e);
        memcpy(data + i * 8, &v, 8);
      }
    }
    gilt_onnx_node_set_attr(imp, n, "value",
                            gilt_dense_elements_attr_get(type, data,
                                                         count * esize));
    gilt_free(ctx, data);
  }
  return GILT_SUCCESS;
}

GiltStatus gilt_onnx_convert_attributes(GiltOnnxImporter *imp,
                                        GiltOnnxNode *n)
{
  const Gilt__Onnx__NodeProto *p = n->proto;
  GiltStatus status = GILT_SUCCESS;
  bool has_graph = false;
  for (size_t i = 0; i < p->n_attribute; i++) {
    const Gilt__Onnx__AttributeProto *a = p->attribute[i];
    int type = attr_type(a);
    const char *name = str(a->name);
    if (a->ref_attr_name && *a->ref_attr_name) {
      gilt_emit_error(n->loc,
                      "attribute '%s' of node '%s' (%s) refers to a function "
                      "attribute; gilt does not import functions",
                      name, n->display_name, str(p->op_type));
      status = GILT_FAILURE;
      continue;
    }
    if (type == ATTR(GRAPH)) {
      has_graph = true;
      continue;
    }
    bool known = type == ATTR(FLOAT) || type == ATTR(INT) ||
                 type == ATTR(STRING) || type == ATTR(FLOATS) ||
                 type == ATTR(INTS) || type == ATTR(STRINGS) ||
                 (type == ATTR(TENSOR) && a->t);
    if (!known) {
      gilt_emit_error(n->loc,
                      "attribute '%s' of node '%s' (%s) has type %s, which "
                      "gilt does not support",
                      name, n->display_name, str(p->op_type),
                      attr_type_name(type));
      status = GILT_FAILURE;
      continue;
    }
    GiltAttr *attr = convert(imp, n, a, type);
    if (!attr) {
      status = GILT_FAILURE;
      continue;
    }
    gilt_onnx_node_set_attr(imp, n, name, attr);
  }
  if (status == GILT_SUCCESS && has_graph)
    status = collect_graphs(imp, n);
  if (status == GILT_SUCCESS && !strcmp(str(p->op_type), "Constant"))
    status = convert_constant_shorthand(imp, n);
  return status;
}
