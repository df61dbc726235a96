/*
** operands.c - what inference functions ask of an op: its operands' shapes
** and element types, the category checks of GraphOpDesc.cats, the result
** element rule, constant operands, and diagnostics in the op's name.
**
** Everything works on a GraphOpView, so it serves the verifier and the
** builder alike. Not here: broadcasting (broadcast.c) and attribute
** reading (attrs.c).
*/
#include "dialects/graph/graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/support/checked_math.h"

GiltStatus graph_error(const GraphOpView *v, const char *fmt, ...)
{
  va_list ap, aq;
  va_start(ap, fmt);
  va_copy(aq, ap);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *msg = gilt_malloc(v->ctx, (size_t)(len > 0 ? len : 0) + 1);
  vsnprintf(msg, (size_t)(len > 0 ? len : 0) + 1, fmt, aq);
  va_end(aq);
  gilt_emit_error(v->loc, "'%s' op %s", v->info->name->str, msg);
  gilt_free(v->ctx, msg);
  return GILT_FAILURE;
}

/* The signature entry operand i stands for, NULL when there is none. */
static const GiltOpArgSpec *operand_spec(const GraphOpView *v, size_t i)
{
  const GiltOpInfo *info = v->info;
  size_t nspec = info->num_operand_specs, var = nspec;
  if (v->map) /* the ops that take sub-views have no variadic operands */
    return i < v->num_operands && v->map[i] < nspec
               ? &info->operand_specs[v->map[i]]
               : NULL;
  for (size_t k = 0; k < nspec; k++)
    if (info->operand_specs[k].variadic)
      var = k;
  if (!nspec)
    return NULL;
  if (var == nspec || i < var)
    return &info->operand_specs[i < nspec ? i : nspec - 1];
  size_t extra = v->num_operands + 1 - nspec; /* operands the `*` takes */
  if (i < var + extra)
    return &info->operand_specs[var];
  return &info->operand_specs[i - extra + 1];
}

const char *graph_operand_name(const GraphOpView *v, size_t i)
{
  const GiltOpArgSpec *spec = operand_spec(v, i);
  return spec ? spec->name->str : "?";
}

GiltStatus graph_check_operand_shapes(const GraphOpView *v)
{
  for (size_t i = 0; i < v->num_operands; i++) {
    GiltType *t = v->operands[i]->type;
    int64_t n;
    if (t->kind == GILT_TYPE_TENSOR && t->shaped.ranked &&
        gilt_dims_product(t->shaped.rank, t->shaped.shape, &n))
      return graph_error(v, "the dimension product of operand '%s' "
                         "overflows int64", graph_operand_name(v, i));
  }
  return GILT_SUCCESS;
}

bool graph_check_string_attr(const GraphOpView *v, const char *attr,
                             const char *def, const char *const *allowed,
                             const char *listed)
{
  const char *value = graph_dict_string(v->attrs, attr, def);
  for (size_t i = 0; allowed[i]; i++)
    if (!strcmp(value, allowed[i]))
      return true;
  graph_error(v, "attribute '%s' is '%s', expected %s", attr, value, listed);
  return false;
}

bool graph_has_operand(const GraphOpView *v, size_t i)
{
  return i < v->num_operands && v->operands[i] &&
         v->operands[i]->type->kind != GILT_TYPE_NONE;
}

void graph_operand_shape(const GraphOpView *v, size_t i, GraphShape *s)
{
  GiltType *t = i < v->num_operands ? v->operands[i]->type : NULL;
  s->ranked = t && t->kind == GILT_TYPE_TENSOR && t->shaped.ranked &&
              t->shaped.rank <= GRAPH_MAX_RANK;
  s->rank = s->ranked ? t->shaped.rank : 0;
  for (size_t k = 0; k < s->rank; k++)
    s->dims[k] = t->shaped.shape[k];
}

GiltType *graph_operand_elem(const GraphOpView *v, size_t i)
{
  GiltType *t = i < v->num_operands ? v->operands[i]->type : NULL;
  return t && t->kind == GILT_TYPE_TENSOR ? t->shaped.elem : NULL;
}

GiltType *graph_tensor_type(GiltContext *ctx, const GraphShape *s,
                            GiltType *elem)
{
  if (!elem) /* a non-tensor operand: nothing to infer from */
    return NULL;
  if (!s->ranked)
    return gilt_unranked_tensor_type_get(ctx, elem);
  return gilt_tensor_type_get(ctx, s->rank, s->dims, elem, NULL);
}

/* ---- element categories ------------------------------------------------------ */

static bool is_bool(GiltType *t)
{
  return t->kind == GILT_TYPE_INTEGER && t->integer.width == 1;
}

static bool is_int(GiltType *t)
{
  return (t->kind == GILT_TYPE_INTEGER && t->integer.width > 1) ||
         t->kind == GILT_TYPE_INDEX;
}

/* Whether elem fits category letter c, and the words for the message. */
static bool fits(char c, GiltType *elem, const char **what)
{
  switch (c) {
  case 'f':
    *what = "a float tensor";
    return elem->kind == GILT_TYPE_FLOAT;
  case 'i':
    *what = "an integer tensor";
    return is_int(elem);
  case 'n':
    *what = "a numeric tensor";
    return elem->kind == GILT_TYPE_FLOAT || is_int(elem);
  case 'b':
    *what = "a bool (i1) tensor";
    return is_bool(elem);
  case 'q':
    *what = "a quantized (integer or 8-bit float) tensor";
    return is_int(elem) || (elem->kind == GILT_TYPE_FLOAT &&
                            gilt_type_get_bit_width(elem) == 8);
  default:
    *what = "a tensor";
    return true;
  }
}

/* `tensor<4xi32>` into a fresh string the caller frees. */
static char *type_string(GiltContext *ctx, GiltType *t)
{
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, ctx);
  gilt_type_print(t, gilt_strbuf_callback, &sb);
  if (!sb.data)
    return gilt_strndup(ctx, "", 0);
  return sb.data;
}

static GiltStatus type_error(const GraphOpView *v, size_t i,
                             const char *what)
{
  char *ts = type_string(v->ctx, v->operands[i]->type);
  graph_error(v, "operand '%s' must be %s, got %s",
              graph_operand_name(v, i), what, ts);
  gilt_free(v->ctx, ts);
  return GILT_FAILURE;
}

GiltStatus graph_check_operands(const GraphOpView *v)
{
  const char *cats = v->desc->cats;
  size_t ncats = strlen(cats);
  size_t same = SIZE_MAX; /* first upper-case operand */
  for (size_t i = 0; i < v->num_operands; i++) {
    char c = ncats ? cats[i < ncats ? i : ncats - 1] : 'a';
    GiltType *t = v->operands[i]->type;
    if (t->kind == GILT_TYPE_NONE) {
      const GiltOpArgSpec *spec = operand_spec(v, i);
      bool leading = (v->desc->flags & GRAPH_LEADING_NONE) && spec &&
                     !spec->variadic;
      if (spec && !spec->optional && !leading)
        return graph_error(v, "operand '%s' is required but is absent "
                           "(none)", graph_operand_name(v, i));
      continue;
    }
    const char *what;
    bool upper = c >= 'A' && c <= 'Z';
    if (upper)
      c = (char)(c - 'A' + 'a');
    if (t->kind != GILT_TYPE_TENSOR) {
      fits(c, t, &what);
      return type_error(v, i, what);
    }
    if (!fits(c, t->shaped.elem, &what))
      return type_error(v, i, what);
    if (!upper)
      continue;
    if (same == SIZE_MAX) {
      same = i;
    } else if (graph_operand_elem(v, same) != t->shaped.elem) {
      char *a = type_string(v->ctx, v->operands[same]->type);
      char *b = type_string(v->ctx, t);
      graph_error(v, "operands '%s' (%s) and '%s' (%s) must have the same "
                  "element type",
                  graph_operand_name(v, same), a, graph_operand_name(v, i),
                  b);
      gilt_free(v->ctx, a);
      gilt_free(v->ctx, b);
      return GILT_FAILURE;
    }
  }
  return GILT_SUCCESS;
}

GiltType *graph_onnx_elem_type(GiltContext *ctx, int64_t dt)
{
  /* TensorProto.DataType; signed integers are signless, as in MLIR. A
  ** width of 0 marks a float type. */
  static const struct {
    int64_t dt;
    unsigned width;
    GiltSignedness sign;
    GiltFloatKind fkind;
  } table[] = {
      {1, 0, GILT_SIGNLESS, GILT_F32},   {2, 8, GILT_UNSIGNED, GILT_F32},
      {3, 8, GILT_SIGNLESS, GILT_F32},   {4, 16, GILT_UNSIGNED, GILT_F32},
      {5, 16, GILT_SIGNLESS, GILT_F32},  {6, 32, GILT_SIGNLESS, GILT_F32},
      {7, 64, GILT_SIGNLESS, GILT_F32},  {9, 1, GILT_SIGNLESS, GILT_F32},
      {10, 0, GILT_SIGNLESS, GILT_F16},  {11, 0, GILT_SIGNLESS, GILT_F64},
      {12, 32, GILT_UNSIGNED, GILT_F32}, {13, 64, GILT_UNSIGNED, GILT_F32},
      {16, 0, GILT_SIGNLESS, GILT_BF16}, {17, 0, GILT_SIGNLESS, GILT_F8E4M3FN},
      {18, 0, GILT_SIGNLESS, GILT_F8E4M3FNUZ},
      {19, 0, GILT_SIGNLESS, GILT_F8E5M2},
      {20, 0, GILT_SIGNLESS, GILT_F8E5M2FNUZ},
      {21, 4, GILT_UNSIGNED, GILT_F32}, {22, 4, GILT_SIGNLESS, GILT_F32}};
  for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
    if (table[i].dt != dt)
      continue;
    if (!table[i].width)
      return gilt_float_type_get(ctx, table[i].fkind);
    return gilt_integer_type_get(ctx, table[i].width, table[i].sign);
  }
  return NULL;
}

GiltType *graph_result_elem(const GraphOpView *v)
{
  int rule = v->desc->result;
  if (rule >= 0) {
    GiltType *t = graph_operand_elem(v, (size_t)rule);
    if (!t)
      graph_error(v, "operand %d must be a tensor", rule);
    return t;
  }
  if (rule == GRAPH_RES_BOOL)
    return gilt_integer_type_get(v->ctx, 1, GILT_SIGNLESS);
  if (rule == GRAPH_RES_I64)
    return gilt_integer_type_get(v->ctx, 64, GILT_SIGNLESS);
  int64_t to = graph_dict_int(v->attrs, "to", 0);
  GiltType *t = graph_onnx_elem_type(v->ctx, to);
  if (!t)
    graph_error(v, "attribute 'to' (%lld) is not a supported ONNX data "
                "type", (long long)to);
  return t;
}

bool graph_normalize_axis(int64_t axis, size_t rank, int64_t *out)
{
  int64_t r = (int64_t)rank;
  if (axis < -r || axis >= r)
    return false;
  *out = axis < 0 ? axis + r : axis;
  return true;
}

/* ---- constant operands ---------------------------------------------------------- */

GiltAttr *graph_value_constant(GiltValue *v)
{
  if (!v || v->type->kind == GILT_TYPE_NONE)
    return NULL;
  GiltOp *def = gilt_value_get_defining_op(v);
  if (!graph_op_is(def, GRAPH_OP_CONSTANT))
    return NULL;
  GiltAttr *value = gilt_op_get_attr(def, "value");
  if (!value || (value->kind != GILT_ATTR_DENSE_ELEMENTS &&
                 value->kind != GILT_ATTR_DENSE_RESOURCE))
    return NULL;
  size_t nbytes;
  if (!gilt_dense_attr_get_data(value, &nbytes))
    return NULL; /* an elided resource */
  return value;
}

GiltAttr *graph_operand_constant(const GraphOpView *v, size_t i)
{
  return graph_has_operand(v, i) ? graph_value_constant(v->operands[i])
                                 : NULL;
}

bool graph_operand_ints(const GraphOpView *v, size_t i, int64_t *out,
                        size_t max, size_t *n)
{
  GiltAttr *c = graph_operand_constant(v, i);
  if (!c || !is_int(c->type->shaped.elem))
    return false;
  int64_t count = gilt_dense_attr_get_num_elements(c);
  if (count < 0 || (size_t)count > max)
    return false;
  for (int64_t k = 0; k < count; k++)
    out[k] = gilt_dense_attr_get_int(c, k);
  *n = (size_t)count;
  return true;
}

bool graph_operand_scalar_int(const GraphOpView *v, size_t i, int64_t *out)
{
  GiltAttr *c = graph_operand_constant(v, i);
  if (!c || gilt_dense_attr_get_num_elements(c) != 1)
    return false;
  if (c->type->shaped.elem->kind != GILT_TYPE_FLOAT) {
    *out = gilt_dense_attr_get_int(c, 0);
    return true;
  }
  /* A float converts when int64 holds it (NaN fails the test). */
  double x = gilt_dense_attr_get_float(c, 0);
  if (!(x > -0x1p63 && x < 0x1p63))
    return false;
  *out = (int64_t)x;
  return true;
}
