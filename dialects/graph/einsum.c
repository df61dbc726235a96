/*
** einsum.c - type inference of Einsum (and Det, the other op whose shape
** rule is about named trailing dimensions).
**
** The equation `ij,jk->ik` names each operand's dimensions by letter; `...`
** stands for broadcast leading dimensions. Each letter must have one size
** across the operands (1 broadcasts); the output is the explicit right-hand
** side, or (implicit mode) the ellipsis dims then the letters used once,
** in alphabetical order. Spaces are ignored. The same parse, resolved
** against the operands' ranks into labelled dimensions, serves the
** lowering (graph_einsum_resolve); how the loops are built is not here.
*/
#include "dialects/graph/graph.h"

#include <string.h>

typedef struct Equation {
  /* Per operand, then the output: letters ('.' marks the ellipsis). */
  char terms[GRAPH_MAX_RANK + 1][GRAPH_MAX_RANK + 1];
  size_t num_terms;
  bool explicit_output;
} Equation;

static GiltStatus parse_equation(const GraphOpView *v, const char *s,
                                 Equation *eq)
{
  memset(eq, 0, sizeof *eq);
  size_t len = 0;
  for (; *s; s++) {
    if (*s == ' ')
      continue;
    if (*s == ',' || (s[0] == '-' && s[1] == '>')) {
      if (eq->explicit_output || eq->num_terms + 1 > GRAPH_MAX_RANK)
        return graph_error(v, "attribute 'equation' is malformed");
      eq->explicit_output = *s == '-';
      s += *s == '-';
      eq->terms[eq->num_terms++][len] = 0;
      len = 0;
      continue;
    }
    if (!strncmp(s, "...", 3)) {
      s += 2;
    } else if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) {
      return graph_error(v, "attribute 'equation' has an invalid character "
                         "'%c'", *s);
    }
    if (len >= GRAPH_MAX_RANK)
      return graph_error(v, "attribute 'equation' has a term longer than "
                         "%d", GRAPH_MAX_RANK);
    eq->terms[eq->num_terms][len++] = *s == '.' ? '.' : *s;
  }
  eq->terms[eq->num_terms++][len] = 0;
  return GILT_SUCCESS;
}

/* Merges size d into *slot (GILT_DYNAMIC unknown, 0 unset); false when two
** sizes other than 1 differ. */
static bool merge(int64_t *slot, int64_t d, bool *set)
{
  if (!*set || *slot == 1) {
    *slot = !*set || d != 1 ? d : *slot;
    *set = true;
    return true;
  }
  if (d == 1 || d == *slot || d == GILT_DYNAMIC)
    return true;
  if (*slot == GILT_DYNAMIC) {
    *slot = d;
    return true;
  }
  return false;
}

/* What the operands say about each letter and the ellipsis. */
typedef struct Bindings {
  int64_t size[128];
  bool set[128], twice[128];
  GraphShape ellipsis;
} Bindings;

/* Binds operand i's dims to the letters of its term; false with an error
** reported, or with *unranked set when the operand has no rank. */
static GiltStatus bind_operand(const GraphOpView *v, const Equation *eq,
                               size_t i, Bindings *bd, bool *unranked)
{
  GraphShape s;
  graph_operand_shape(v, i, &s);
  if (!s.ranked) {
    *unranked = true;
    return GILT_SUCCESS;
  }
  const char *t = eq->terms[i];
  size_t n = strlen(t), named = n - (strchr(t, '.') != NULL);
  if (named > s.rank || (named == n && named != s.rank))
    return graph_error(v, "operand %zu has rank %zu but attribute "
                       "'equation' names %zu dimensions", i, s.rank, named);
  for (size_t k = 0, d = 0; k < n; k++) {
    if (t[k] == '.') {
      GraphShape e = {.ranked = true, .rank = s.rank - named};
      memcpy(e.dims, s.dims + d, e.rank * sizeof *e.dims);
      if (!graph_broadcast_shapes(&bd->ellipsis, &e))
        return graph_error(v, "the '...' dimensions of operand %zu do not "
                           "broadcast", i);
      d += e.rank;
      continue;
    }
    unsigned char c = (unsigned char)t[k];
    bd->twice[c] |= bd->set[c] || strchr(t + k + 1, c);
    if (!merge(&bd->size[c], s.dims[d], &bd->set[c]))
      return graph_error(v, "operand %zu has size %lld for '%c' but an "
                         "earlier operand has %lld", i,
                         (long long)s.dims[d], c, (long long)bd->size[c]);
    d++;
  }
  return GILT_SUCCESS;
}

/* The result's dims from the output term `o` (implicit when NULL). */
static GiltStatus output_shape(const GraphOpView *v, const char *o,
                               const Bindings *bd, GraphShape *out)
{
  char implicit[GRAPH_MAX_RANK + 2];
  if (!o) {
    size_t n = 0;
    implicit[n++] = '.';
    for (int c = 'A'; c <= 'z'; c++)
      if (bd->set[c] && !bd->twice[c] && n <= GRAPH_MAX_RANK)
        implicit[n++] = (char)c;
    implicit[n] = 0;
    o = implicit;
  }
  *out = (GraphShape){.ranked = true};
  for (size_t k = 0; o[k]; k++) {
    unsigned char c = (unsigned char)o[k];
    if (c == '.') {
      if (out->rank + bd->ellipsis.rank > GRAPH_MAX_RANK)
        return graph_error(v, "the result has too many dimensions");
      memcpy(out->dims + out->rank, bd->ellipsis.dims,
             bd->ellipsis.rank * sizeof *bd->ellipsis.dims);
      out->rank += bd->ellipsis.rank;
    } else if (!bd->set[c]) {
      return graph_error(v, "attribute 'equation' has output letter '%c', "
                         "which no operand names", c);
    } else if (out->rank < GRAPH_MAX_RANK) {
      out->dims[out->rank++] = bd->size[c];
    }
  }
  return GILT_SUCCESS;
}

GiltStatus graph_infer_einsum(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GiltType *elem = graph_operand_elem(v, 0);
  Equation eq;
  if (parse_equation(v, graph_dict_string(v->attrs, "equation", ""), &eq))
    return GILT_FAILURE;
  size_t inputs = eq.num_terms - eq.explicit_output;
  if (inputs != v->num_operands)
    return graph_error(v, "attribute 'equation' names %zu operands but the "
                       "op has %zu", inputs, v->num_operands);
  Bindings bd;
  memset(&bd, 0, sizeof bd);
  bd.ellipsis.ranked = true;
  bool unranked = false;
  for (size_t i = 0; i < inputs && !unranked; i++)
    if (bind_operand(v, &eq, i, &bd, &unranked))
      return GILT_FAILURE;
  GraphShape out;
  if (unranked) {
    types[0] = gilt_unranked_tensor_type_get(v->ctx, elem);
    return GILT_SUCCESS;
  }
  if (output_shape(v, eq.explicit_output ? eq.terms[eq.num_terms - 1] : NULL,
                   &bd, &out))
    return GILT_FAILURE;
  types[0] = graph_tensor_type(v->ctx, &out, elem);
  return GILT_SUCCESS;
}

/* The label of letter c: after the ellipsis's, upper case first. */
static unsigned char letter_label(const GraphEinsum *e, char c)
{
  return (unsigned char)(e->ellipsis +
                         (c >= 'a' ? 26 + (size_t)(c - 'a') : (size_t)(c - 'A')));
}

/* Labels term t's dims for a dimension count of rank (the operand's, or
** for the result the ellipsis's plus its letters). */
static void label_term(GraphEinsum *e, size_t t, const char *term,
                       size_t rank)
{
  size_t named = strlen(term) - (strchr(term, '.') != NULL), d = 0;
  e->rank[t] = rank;
  for (; *term; term++) {
    if (*term != '.') {
      e->label[t][d++] = letter_label(e, *term);
      continue;
    }
    for (size_t k = e->ellipsis - (rank - named); k < e->ellipsis; k++)
      e->label[t][d++] = (unsigned char)k;
  }
}

GiltStatus graph_einsum_resolve(GiltOp *op, const size_t *ranks,
                                GraphEinsum *e)
{
  GraphOpView v = {.ctx = op->loc->ctx, .loc = op->loc, .info = op->info,
                   .desc = graph_op_desc(op->info->def)};
  Equation eq;
  if (parse_equation(&v, graph_attr_string(op, "equation", ""), &eq))
    return GILT_FAILURE;
  memset(e, 0, sizeof *e);
  e->num_inputs = eq.num_terms - eq.explicit_output;
  int uses[128] = {0};
  for (size_t i = 0; i < e->num_inputs; i++) {
    const char *t = eq.terms[i];
    size_t named = strlen(t) - (strchr(t, '.') != NULL);
    if (named > ranks[i] || (named == strlen(t) && named != ranks[i]))
      return graph_error(&v, "operand %zu has rank %zu but attribute "
                         "'equation' names %zu dimensions", i, ranks[i],
                         named);
    if (strchr(t, '.') && ranks[i] - named > e->ellipsis)
      e->ellipsis = ranks[i] - named;
    for (; *t; t++)
      uses[(unsigned char)*t]++;
  }
  for (size_t i = 0; i < e->num_inputs; i++)
    label_term(e, i, eq.terms[i], ranks[i]);
  /* Implicit output: the ellipsis, then the letters used once. */
  char implicit[GRAPH_MAX_RANK + 2] = ".", *o = eq.terms[eq.num_terms - 1];
  if (!eq.explicit_output) {
    size_t n = 1;
    for (int c = 'A'; c <= 'z'; c++)
      if (uses[c] == 1 && n <= GRAPH_MAX_RANK)
        implicit[n++] = (char)c;
    implicit[n] = 0;
    o = implicit;
  }
  size_t letters = strlen(o) - (strchr(o, '.') != NULL);
  if (letters + (strchr(o, '.') ? e->ellipsis : 0) > GRAPH_MAX_RANK)
    return graph_error(&v, "the result has too many dimensions");
  label_term(e, e->num_inputs, o,
             letters + (strchr(o, '.') ? e->ellipsis : 0));
  e->num_labels = e->ellipsis + 52;
  return GILT_SUCCESS;
}

/* Det: the batch dims of a stack of square matrices. */
GiltStatus graph_infer_det(const GraphOpView *v, GiltType **types)
{
  if (graph_check_operands(v))
    return GILT_FAILURE;
  GraphShape x;
  graph_operand_shape(v, 0, &x);
  if (x.ranked) {
    if (x.rank < 2)
      return graph_error(v, "operand 'X' must have rank >= 2, got %zu",
                         x.rank);
    int64_t a = x.dims[x.rank - 2], b = x.dims[x.rank - 1];
    if (a != GILT_DYNAMIC && b != GILT_DYNAMIC && a != b)
      return graph_error(v, "operand 'X' holds %lld x %lld matrices, which "
                         "are not square", (long long)a, (long long)b);
    x.rank -= 2;
  }
  types[0] = graph_tensor_type(v->ctx, &x, graph_operand_elem(v, 0));
  return GILT_SUCCESS;
}
