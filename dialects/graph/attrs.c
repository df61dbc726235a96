/*
** attrs.c - typed readers of the graph ops' ONNX attributes, with the
** defaults the caller gives.
**
** The verifier has checked the kind of every attribute an op declares, so
** a reader that meets the wrong kind returns the default rather than
** reporting again. Not here: what the defaults are (each op's inference
** and lowering say so where they read them).
*/
#include "dialects/graph/graph.h"

int64_t graph_dict_int(GiltAttr *dict, const char *name, int64_t def)
{
  GiltAttr *a = gilt_dictionary_attr_lookup(dict, name);
  return a && a->kind == GILT_ATTR_INTEGER ? a->i : def;
}

double graph_dict_float(GiltAttr *dict, const char *name, double def)
{
  GiltAttr *a = gilt_dictionary_attr_lookup(dict, name);
  if (a && a->kind == GILT_ATTR_FLOAT)
    return a->f;
  return a && a->kind == GILT_ATTR_INTEGER ? (double)a->i : def;
}

const char *graph_dict_string(GiltAttr *dict, const char *name,
                              const char *def)
{
  GiltAttr *a = gilt_dictionary_attr_lookup(dict, name);
  return a && a->kind == GILT_ATTR_STRING ? a->str.data : def;
}

bool graph_dict_ints(GiltAttr *dict, const char *name, int64_t *out,
                     size_t max, size_t *n)
{
  GiltAttr *a = gilt_dictionary_attr_lookup(dict, name);
  *n = 0;
  if (!a || a->kind != GILT_ATTR_ARRAY)
    return false;
  for (size_t i = 0; i < a->array.n && i < max; i++) {
    GiltAttr *e = a->array.elems[i];
    out[i] = e->kind == GILT_ATTR_INTEGER ? e->i : 0;
  }
  /* The true count, so that callers can report a list that is too long. */
  *n = a->array.n;
  return true;
}

int64_t graph_attr_int(GiltOp *op, const char *name, int64_t def)
{
  return graph_dict_int(op->attrs, name, def);
}

double graph_attr_float(GiltOp *op, const char *name, double def)
{
  return graph_dict_float(op->attrs, name, def);
}

const char *graph_attr_string(GiltOp *op, const char *name, const char *def)
{
  return graph_dict_string(op->attrs, name, def);
}

bool graph_attr_ints(GiltOp *op, const char *name, int64_t *out, size_t max,
                     size_t *n)
{
  return graph_dict_ints(op->attrs, name, out, max, n);
}
