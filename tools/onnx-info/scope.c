/*
** scope.c - which models of the ONNX backend test suite the conformance
** runner runs through gjit (issue 9): those that use no sequence, optional
** or string values, no random-number generator, nothing of the training
** domain and no Dropout in training mode. Each of these computes what an
** inference compiler of tensors cannot or need not reproduce: values that
** are not tensors, or numbers that depend on a generator's state.
**
** The verdict is read from the model itself, never from its test's name:
**
**   sequence, optional, map, sparse  a graph input, output or value_info
**       entry of that type (in the main graph or a subgraph), or an
**       operator whose signature has sequences (SequenceAt, SplitToSequence,
**       ...) or optionals (Optional, OptionalHasElement, ...), which
**       declares such values even where no value_info names them;
**   string     a value declared as a tensor of strings, a string tensor
**       (an initializer, a Constant, any tensor attribute), a Cast to
**       STRING, or an operator on strings (StringNormalizer, ...);
**   random     RandomNormal, RandomUniform, RandomNormalLike,
**       RandomUniformLike, Bernoulli or Multinomial;
**   training   a node of domain ai.onnx.preview.training (Adagrad,
**       Momentum, Adam, Gradient);
**   dropout    a Dropout in training mode: from opset 12 one whose
**       training_mode input is given and is not a constant false (an
**       initializer that is no graph input, or a Constant); before opset
**       7 one whose is_test attribute is 0 or absent. In opsets 7 to 11
**       the graph does not say, and inference runs Dropout as an identity
**       (the suite's test_dropout_*_old cases, opset 11, are in scope).
**
** Operators are matched in the default domain only, and every graph is
** walked, subgraphs included. Map and sparse types are not among issue
** 9's reasons; the suite has neither (maps come with ai.onnx.ml, which it
** does not test), and gilt imports neither. This file deliberately does
** not judge whether gilt supports a model: an in-scope model that gilt
** cannot import is a failing test, not a skipped one.
*/
#include "tools/onnx-info/scope.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "frontends/onnx/model_reader.h"

/* Unknown fields of TypeProto: the `oneof value` cases onnx.proto omits. */
enum {
  TYPE_SEQUENCE = 4,
  TYPE_MAP = 5,
  TYPE_SPARSE_TENSOR = 8,
  TYPE_OPTIONAL = 9
};

enum {
  STRING = GILT__ONNX__TENSOR_PROTO__DATA_TYPE__STRING,
  BOOL = GILT__ONNX__TENSOR_PROTO__DATA_TYPE__BOOL
};

/* The reasons, in the order a model's first one is reported. */
typedef enum Reason {
  TRAINING,
  RANDOM,
  DROPOUT,
  SEQUENCE,
  OPTIONAL,
  STRINGS,
  MAP,
  SPARSE,
  NUM_REASONS
} Reason;

static const char *const reason_names[NUM_REASONS] = {
    "training", "random", "dropout", "sequence",
    "optional", "string", "map",     "sparse"};

#define DETAIL_SIZE 160

typedef struct Scope {
  GiltOnnxReader *r;
  int64_t opset; /* of the default domain; 0 when it imports none */
  bool found[NUM_REASONS];
  char detail[NUM_REASONS][DETAIL_SIZE]; /* the first evidence of each */
} Scope;

/* A graph being walked, and the graph it is nested in (NULL: the main
** graph), for the names a subgraph's nodes take from outer scopes. */
typedef struct Graph {
  const Gilt__Onnx__GraphProto *g;
  const struct Graph *outer;
} Graph;

static const char *str(const char *s)
{
  return s ? s : "";
}

static bool is_any(const char *s, const char *const *list)
{
  for (; *list; list++)
    if (strcmp(s, *list) == 0)
      return true;
  return false;
}

static const char *const sequence_ops[] = {
    "SequenceConstruct", "SequenceEmpty",      "SequenceAt",
    "SequenceInsert",    "SequenceErase",      "SequenceLength",
    "SequenceMap",       "SplitToSequence",    "ConcatFromSequence",
    NULL};
static const char *const optional_ops[] = {"Optional", "OptionalHasElement",
                                           "OptionalGetElement", NULL};
static const char *const string_ops[] = {"StringNormalizer", "StringConcat",
                                         "StringSplit", "RegexFullMatch",
                                         NULL};
static const char *const random_ops[] = {
    "RandomNormal",      "RandomUniform", "RandomNormalLike",
    "RandomUniformLike", "Bernoulli",     "Multinomial",
    NULL};

/* Records `reason` with its evidence, unless it has some already. */
__attribute__((format(printf, 3, 4))) static void
note(Scope *s, Reason reason, const char *fmt, ...)
{
  if (s->found[reason])
    return;
  s->found[reason] = true;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->detail[reason], DETAIL_SIZE, fmt, ap);
  va_end(ap);
}

typedef struct Label {
  char text[DETAIL_SIZE / 2];
} Label;

/* " (node 'NAME')", or nothing for a node without a name (most of the
** suite's). */
static Label node_label(const Gilt__Onnx__NodeProto *n)
{
  Label l = {""};
  if (n->name && n->name[0])
    snprintf(l.text, sizeof l.text, " (node '%s')", n->name);
  return l;
}

static bool has_unknown_field(const ProtobufCMessage *m, uint32_t number)
{
  for (unsigned i = 0; i < m->n_unknown_fields; i++)
    if (m->unknown_fields[i].tag == number)
      return true;
  return false;
}

/* A graph input, output or value_info entry; `what` says which. */
static void check_value(Scope *s, const Gilt__Onnx__ValueInfoProto *vi,
                        const char *what)
{
  const Gilt__Onnx__TypeProto *t = vi->type;
  if (!t)
    return;
  const char *name = str(vi->name);
  if (has_unknown_field(&t->base, TYPE_SEQUENCE))
    note(s, SEQUENCE, "%s '%s' is a sequence", what, name);
  if (has_unknown_field(&t->base, TYPE_OPTIONAL))
    note(s, OPTIONAL, "%s '%s' is an optional", what, name);
  if (has_unknown_field(&t->base, TYPE_MAP))
    note(s, MAP, "%s '%s' is a map", what, name);
  if (has_unknown_field(&t->base, TYPE_SPARSE_TENSOR))
    note(s, SPARSE, "%s '%s' is a sparse tensor", what, name);
  if (t->tensor_type && t->tensor_type->has_elem_type &&
      t->tensor_type->elem_type == STRING)
    note(s, STRINGS, "%s '%s' is a tensor of strings", what, name);
}

static void check_tensor(Scope *s, const Gilt__Onnx__TensorProto *t,
                         const char *what, const char *name)
{
  if (t && t->data_type == STRING)
    note(s, STRINGS, "%s '%s' holds strings", what, name);
}

/* Whether tensor `t` of this model is one boolean false. */
static bool is_false(Scope *s, const Gilt__Onnx__TensorProto *t)
{
  GiltOnnxTensor v;
  if (!t || t->data_type != BOOL ||
      gilt_onnx_reader_resolve_tensor(s->r, t, NULL, &v) != GILT_SUCCESS)
    return false;
  return v.num_elements == 1 && ((const unsigned char *)v.data)[0] == 0;
}

/* Whether `name`, as seen from graph `gr`, is a constant false: an
** initializer that is not also a graph input (which a caller may
** override), or the output of a Constant node. */
static bool is_constant_false(Scope *s, const Graph *gr, const char *name)
{
  for (; gr; gr = gr->outer) {
    const Gilt__Onnx__GraphProto *g = gr->g;
    for (size_t i = 0; i < g->n_input; i++)
      if (strcmp(str(g->input[i]->name), name) == 0)
        return false;
    for (size_t i = 0; i < g->n_initializer; i++)
      if (strcmp(str(g->initializer[i]->name), name) == 0)
        return is_false(s, g->initializer[i]);
    for (size_t i = 0; i < g->n_node; i++) {
      const Gilt__Onnx__NodeProto *n = g->node[i];
      if (n->n_output < 1 || strcmp(str(n->output[0]), name) != 0)
        continue;
      if (strcmp(str(n->op_type), "Constant") != 0 ||
          !gilt_onnx_is_default_domain(n->domain))
        return false;
      for (size_t j = 0; j < n->n_attribute; j++)
        if (strcmp(str(n->attribute[j]->name), "value") == 0)
          return is_false(s, n->attribute[j]->t);
      return false;
    }
  }
  return false; /* a name no graph defines: not a constant */
}

static const Gilt__Onnx__AttributeProto *
find_attribute(const Gilt__Onnx__NodeProto *n, const char *name)
{
  for (size_t i = 0; i < n->n_attribute; i++)
    if (strcmp(str(n->attribute[i]->name), name) == 0)
      return n->attribute[i];
  return NULL;
}

static void check_dropout(Scope *s, const Graph *gr,
                          const Gilt__Onnx__NodeProto *n)
{
  bool training = false;
  if (s->opset >= 12) {
    const char *mode = n->n_input >= 3 ? str(n->input[2]) : "";
    training = mode[0] && !is_constant_false(s, gr, mode);
  } else if (s->opset < 7) {
    const Gilt__Onnx__AttributeProto *a = find_attribute(n, "is_test");
    training = !a || a->i == 0;
  }
  if (training)
    note(s, DROPOUT, "Dropout in training mode%s", node_label(n).text);
}

static void check_graph(Scope *s, const Graph *gr);

static void check_node(Scope *s, const Graph *gr,
                       const Gilt__Onnx__NodeProto *n)
{
  const char *op = str(n->op_type);
  if (strcmp(str(n->domain), "ai.onnx.preview.training") == 0)
    note(s, TRAINING, "operator %s%s", op, node_label(n).text);
  if (gilt_onnx_is_default_domain(n->domain)) {
    if (is_any(op, random_ops))
      note(s, RANDOM, "operator %s%s", op, node_label(n).text);
    if (is_any(op, sequence_ops))
      note(s, SEQUENCE, "operator %s%s", op, node_label(n).text);
    if (is_any(op, optional_ops))
      note(s, OPTIONAL, "operator %s%s", op, node_label(n).text);
    if (is_any(op, string_ops))
      note(s, STRINGS, "operator %s%s", op, node_label(n).text);
    if (strcmp(op, "Dropout") == 0)
      check_dropout(s, gr, n);
  }
  for (size_t i = 0; i < n->n_attribute; i++) {
    const Gilt__Onnx__AttributeProto *a = n->attribute[i];
    check_tensor(s, a->t, "attribute", str(a->name));
    for (size_t k = 0; k < a->n_tensors; k++)
      check_tensor(s, a->tensors[k], "attribute", str(a->name));
    if (gilt_onnx_is_default_domain(n->domain) && strcmp(op, "Cast") == 0 &&
        strcmp(str(a->name), "to") == 0 && a->i == STRING)
      note(s, STRINGS, "Cast to STRING%s", node_label(n).text);
    if (gilt_onnx_is_default_domain(n->domain) &&
        strcmp(op, "Constant") == 0 &&
        (strcmp(str(a->name), "value_string") == 0 ||
         strcmp(str(a->name), "value_strings") == 0))
      note(s, STRINGS, "Constant of strings%s", node_label(n).text);
    if (a->g)
      check_graph(s, &(Graph){a->g, gr});
    for (size_t k = 0; k < a->n_graphs; k++)
      check_graph(s, &(Graph){a->graphs[k], gr});
  }
}

/* The recursion is bounded: wire_check refused anything nested deeper
** than GILT_ONNX_MAX_NESTING. */
static void check_graph(Scope *s, const Graph *gr)
{
  const Gilt__Onnx__GraphProto *g = gr->g;
  for (size_t i = 0; i < g->n_input; i++)
    check_value(s, g->input[i], "input");
  for (size_t i = 0; i < g->n_output; i++)
    check_value(s, g->output[i], "output");
  for (size_t i = 0; i < g->n_value_info; i++)
    check_value(s, g->value_info[i], "value");
  for (size_t i = 0; i < g->n_initializer; i++)
    check_tensor(s, g->initializer[i], "initializer",
                 str(g->initializer[i]->name));
  for (size_t i = 0; i < g->n_node; i++)
    check_node(s, gr, g->node[i]);
}

int onnx_info_print_scope(GiltContext *ctx, const char *path)
{
  GiltOnnxReader *r = gilt_onnx_reader_open_model_unchecked(ctx, path);
  const Gilt__Onnx__GraphProto *g = r ? gilt_onnx_reader_get_graph(r) : NULL;
  if (r && !g)
    fprintf(stderr, "%s: error: the model has no graph\n", path);
  if (!g) {
    printf("%s\t?\n", path);
    gilt_onnx_reader_destroy(r);
    return 1;
  }
  Scope s = {.r = r, .opset = gilt_onnx_reader_get_opset_version(r, "")};
  check_graph(&s, &(Graph){g, NULL});
  gilt_onnx_reader_destroy(r);
  for (int i = 0; i < NUM_REASONS; i++)
    if (s.found[i]) {
      printf("%s\tout\t%s\t%s\n", path, reason_names[i], s.detail[i]);
      return 0;
    }
  printf("%s\tin\n", path);
  return 0;
}
