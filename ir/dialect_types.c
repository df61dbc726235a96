/*
** dialect_types.c - types and attributes that dialects define:
** `!llvm.ptr<1>`, `#graph.layout<"NCHW16c">`.
**
** A registered dialect lists them by mnemonic in its GiltDialectDef
** (include/gilt/dialect.h) with parse, print and verify hooks. An instance is a
** definition plus a list of uniqued attributes as parameters, uniqued by
** the context like every type and attribute (types.c, attributes.c hash
** and compare the definition and the parameter pointers), so equal
** instances are one pointer and no dialect writes storage code. This file
** finds definitions, runs the verify hook before an instance is first
** made, and answers the public queries. The parser's side is
** ir/asm/parse_dialect.c, the printer's ir/asm/print_types.c. Not here:
** types and attributes of dialects nobody registered, which stay opaque
** text (GILT_TYPE_OPAQUE, GILT_ATTR_OPAQUE).
*/
#include "ir/core.h"

#include <string.h>

#include "ir/context.h"

/* The attribute knows its context, so the vector need not. */
void gilt_param_vec_append(GiltParamVec *params, GiltAttr *attr)
{
  GILT_ASSERT(attr);
  gilt_vec_push(attr->ctx, params, attr);
}

const GiltParametricDef *gilt_dialect_lookup_def(const GiltDialectInfo *d,
                                                 bool is_type,
                                                 const char *mnemonic,
                                                 size_t len)
{
  if (!d || !d->def)
    return NULL;
  const GiltParametricDef *defs = is_type ? d->def->types : d->def->attrs;
  size_t n = is_type ? d->def->num_types : d->def->num_attrs;
  /* Dialects define a handful each: a scan beats a table. */
  for (size_t i = 0; i < n; i++)
    if (strlen(defs[i].mnemonic) == len &&
        !memcmp(defs[i].mnemonic, mnemonic, len))
      return &defs[i];
  return NULL;
}

static GiltStatus verify_value(const GiltDialectValue *v, GiltLocation *loc)
{
  for (size_t i = 0; i < v->n; i++)
    if (!v->params[i]) {
      gilt_emit_error(loc, "parameter %zu of '%s.%s' is null", i,
                      v->dialect->name->str, v->def->mnemonic);
      return GILT_FAILURE;
    }
  return v->def->verify ? v->def->verify(loc, v->n, v->params)
                        : GILT_SUCCESS;
}

GiltType *gilt_dialect_type_get_verified(GiltContext *ctx,
                                         const GiltDialectValue *v,
                                         GiltLocation *loc)
{
  if (!loc)
    loc = gilt_location_unknown_get(ctx);
  return verify_value(v, loc) ? NULL
                              : gilt_dialect_type_get_unchecked(ctx, v);
}

GiltAttr *gilt_dialect_attr_get_verified(GiltContext *ctx,
                                         const GiltDialectValue *v,
                                         GiltLocation *loc)
{
  if (!loc)
    loc = gilt_location_unknown_get(ctx);
  return verify_value(v, loc) ? NULL
                              : gilt_dialect_attr_get_unchecked(ctx, v);
}

/* Fills v from names; reports at loc when there is nothing to name. */
static GiltStatus lookup_value(GiltContext *ctx, bool is_type,
                               const char *dialect, const char *mnemonic,
                               size_t n, GiltAttr *const *params,
                               GiltLocation *loc, GiltDialectValue *v)
{
  const char *what = is_type ? "type" : "attribute";
  GiltDialectInfo *d =
      gilt_context_lookup_dialect(ctx, dialect, strlen(dialect));
  if (!d) {
    gilt_emit_error(loc, "%s of unregistered dialect '%s'", what, dialect);
    return GILT_FAILURE;
  }
  const GiltParametricDef *def =
      gilt_dialect_lookup_def(d, is_type, mnemonic, strlen(mnemonic));
  if (!def) {
    gilt_emit_error(loc, "unknown %s '%s' in dialect '%s'", what, mnemonic,
                    dialect);
    return GILT_FAILURE;
  }
  v->def = def;
  v->dialect = d;
  v->n = n;
  v->params = params;
  return GILT_SUCCESS;
}

GiltType *gilt_dialect_type_get(GiltContext *ctx, const char *dialect,
                                const char *mnemonic, size_t num_params,
                                GiltAttr *const *params, GiltLocation *loc)
{
  GiltDialectValue v;
  if (!loc)
    loc = gilt_location_unknown_get(ctx);
  if (lookup_value(ctx, true, dialect, mnemonic, num_params, params, loc,
                   &v))
    return NULL;
  return gilt_dialect_type_get_verified(ctx, &v, loc);
}

GiltAttr *gilt_dialect_attr_get(GiltContext *ctx, const char *dialect,
                                const char *mnemonic, size_t num_params,
                                GiltAttr *const *params, GiltLocation *loc)
{
  GiltDialectValue v;
  if (!loc)
    loc = gilt_location_unknown_get(ctx);
  if (lookup_value(ctx, false, dialect, mnemonic, num_params, params, loc,
                   &v))
    return NULL;
  return gilt_dialect_attr_get_verified(ctx, &v, loc);
}

GiltStatus gilt_tensor_encoding_verify(GiltLocation *loc, GiltAttr *encoding,
                                       size_t rank, const int64_t *shape,
                                       GiltType *elem)
{
  if (!encoding || encoding->kind != GILT_ATTR_DIALECT ||
      !encoding->dialect.def->verify_encoding)
    return GILT_SUCCESS;
  const GiltDialectValue *v = &encoding->dialect;
  return v->def->verify_encoding(loc, v->n, v->params, rank, shape, elem);
}

/* ---- queries ------------------------------------------------------------- */

static bool is_named(const GiltDialectValue *v, const char *dialect,
                     const char *mnemonic)
{
  return !strcmp(v->dialect->name->str, dialect) &&
         !strcmp(v->def->mnemonic, mnemonic);
}

bool gilt_type_is_dialect(GiltType *t) { return t->kind == GILT_TYPE_DIALECT; }

bool gilt_type_is_dialect_type(GiltType *t, const char *dialect,
                               const char *mnemonic)
{
  return t->kind == GILT_TYPE_DIALECT &&
         is_named(&t->dialect, dialect, mnemonic);
}

const char *gilt_dialect_type_get_dialect(GiltType *t)
{
  GILT_ASSERT(t->kind == GILT_TYPE_DIALECT);
  return t->dialect.dialect->name->str;
}

const char *gilt_dialect_type_get_mnemonic(GiltType *t)
{
  GILT_ASSERT(t->kind == GILT_TYPE_DIALECT);
  return t->dialect.def->mnemonic;
}

size_t gilt_dialect_type_get_num_params(GiltType *t)
{
  GILT_ASSERT(t->kind == GILT_TYPE_DIALECT);
  return t->dialect.n;
}

GiltAttr *gilt_dialect_type_get_param(GiltType *t, size_t i)
{
  GILT_ASSERT(t->kind == GILT_TYPE_DIALECT && i < t->dialect.n);
  return t->dialect.params[i];
}

bool gilt_attr_is_dialect(GiltAttr *a) { return a->kind == GILT_ATTR_DIALECT; }

bool gilt_attr_is_dialect_attr(GiltAttr *a, const char *dialect,
                               const char *mnemonic)
{
  return a->kind == GILT_ATTR_DIALECT &&
         is_named(&a->dialect, dialect, mnemonic);
}

const char *gilt_dialect_attr_get_dialect(GiltAttr *a)
{
  GILT_ASSERT(a->kind == GILT_ATTR_DIALECT);
  return a->dialect.dialect->name->str;
}

const char *gilt_dialect_attr_get_mnemonic(GiltAttr *a)
{
  GILT_ASSERT(a->kind == GILT_ATTR_DIALECT);
  return a->dialect.def->mnemonic;
}

size_t gilt_dialect_attr_get_num_params(GiltAttr *a)
{
  GILT_ASSERT(a->kind == GILT_ATTR_DIALECT);
  return a->dialect.n;
}

GiltAttr *gilt_dialect_attr_get_param(GiltAttr *a, size_t i)
{
  GILT_ASSERT(a->kind == GILT_ATTR_DIALECT && i < a->dialect.n);
  return a->dialect.params[i];
}
