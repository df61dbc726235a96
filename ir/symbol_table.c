/*
** symbol_table.c - symbol names, lookups in symbol tables and the walk
** over symbol uses.
**
** A symbol is any op with a string `sym_name` attribute, found in the
** region of the nearest SYMBOL_TABLE op around it. Lookups are linear scans
** of that region's ops; nothing is cached, so the IR can change freely
** between lookups. Uniqueness of names is the verifier's check, not this
** file's: with duplicates, a lookup returns the first.
*/
#include "ir/symbol_table.h"

#include <string.h>

#include "ir/op_def.h"

static GiltAttr *string_attr(GiltOp *op, const char *name)
{
  GiltAttr *a = gilt_op_get_attr(op, name);
  return a && a->kind == GILT_ATTR_STRING ? a : NULL;
}

const char *gilt_symbol_get_name(GiltOp *op)
{
  GiltAttr *name = string_attr(op, "sym_name");
  return name ? name->str.data : NULL;
}

GiltSymbolVisibility gilt_symbol_get_visibility(GiltOp *op)
{
  GiltAttr *vis = string_attr(op, "sym_visibility");
  if (vis && strcmp(vis->str.data, "private") == 0)
    return GILT_VISIBILITY_PRIVATE;
  if (vis && strcmp(vis->str.data, "nested") == 0)
    return GILT_VISIBILITY_NESTED;
  return GILT_VISIBILITY_PUBLIC;
}

/* The op named `name` (len bytes) directly in the table's region. */
static GiltOp *lookup(GiltOp *table, const char *name, size_t len)
{
  if (table->num_regions == 0)
    return NULL;
  GiltIdent *sym_name = gilt_ident_get_cstr(table->loc->ctx, "sym_name");
  for (GiltBlock *b = gilt_op_region_array(table)[0].first; b; b = b->next) {
    for (GiltOp *op = b->first; op; op = op->next) {
      GiltAttr *a = gilt_dictionary_attr_lookup_ident(op->attrs, sym_name);
      if (a && a->kind == GILT_ATTR_STRING && a->str.len == len &&
          memcmp(a->str.data, name, len) == 0)
        return op;
    }
  }
  return NULL;
}

GiltOp *gilt_symbol_table_lookup(GiltOp *symbol_table_op, const char *name)
{
  return lookup(symbol_table_op, name, strlen(name));
}

GiltOp *gilt_symbol_table_get_nearest(GiltOp *from)
{
  for (GiltOp *op = from; op; op = gilt_op_get_parent_op(op))
    if (gilt_op_has_trait(op, GILT_TRAIT_SYMBOL_TABLE))
      return op;
  return NULL;
}

GiltOp *gilt_symbol_table_lookup_ref(GiltOp *symbol_table_op, GiltAttr *ref)
{
  GILT_ASSERT(ref->kind == GILT_ATTR_SYMBOL_REF);
  GiltOp *op = symbol_table_op;
  for (size_t i = 0; op && i < ref->symref.n; i++) {
    if (i > 0 && !gilt_op_has_trait(op, GILT_TRAIT_SYMBOL_TABLE))
      return NULL;
    GiltIdent *name = ref->symref.names[i];
    op = lookup(op, name->str, name->len);
  }
  return op;
}

GiltOp *gilt_symbol_lookup_nearest(GiltOp *from, GiltAttr *ref)
{
  GiltOp *table = gilt_symbol_table_get_nearest(from);
  return table ? gilt_symbol_table_lookup_ref(table, ref) : NULL;
}

/* ---- walking symbol uses ------------------------------------------------ */

typedef struct UseWalk {
  GiltOp *root;
  GiltSymbolUseFn fn;
  void *data;
} UseWalk;

static GiltWalkResult walk_attr(GiltAttr *a, GiltOp *user, UseWalk *w)
{
  switch (a->kind) {
  case GILT_ATTR_SYMBOL_REF:
    return w->fn(user, a, w->data) == GILT_WALK_INTERRUPT ? GILT_WALK_INTERRUPT
                                                          : GILT_WALK_ADVANCE;
  case GILT_ATTR_ARRAY:
    for (size_t i = 0; i < a->array.n; i++)
      if (walk_attr(a->array.elems[i], user, w) == GILT_WALK_INTERRUPT)
        return GILT_WALK_INTERRUPT;
    return GILT_WALK_ADVANCE;
  case GILT_ATTR_DICTIONARY:
    for (size_t i = 0; i < a->dict.n; i++)
      if (walk_attr(a->dict.entries[i].attr, user, w) == GILT_WALK_INTERRUPT)
        return GILT_WALK_INTERRUPT;
    return GILT_WALK_ADVANCE;
  default:
    return GILT_WALK_ADVANCE;
  }
}

static GiltWalkResult visit_op(GiltOp *op, void *user)
{
  UseWalk *w = user;
  if (walk_attr(op->attrs, op, w) == GILT_WALK_INTERRUPT)
    return GILT_WALK_INTERRUPT;
  /* A nested table opens a new scope: its body's references are not ours. */
  if (op != w->root && gilt_op_has_trait(op, GILT_TRAIT_SYMBOL_TABLE))
    return GILT_WALK_SKIP;
  return GILT_WALK_ADVANCE;
}

GiltWalkResult gilt_symbol_walk_uses(GiltOp *op, GiltSymbolUseFn fn, void *data)
{
  UseWalk w = {op, fn, data};
  return gilt_op_walk(op, GILT_WALK_PRE_ORDER, visit_op, &w);
}
