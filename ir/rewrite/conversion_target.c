/*
** conversion_target.c - what a conversion must produce: legality of ops by
** name or dialect (see conversion.h).
**
** A target holds a handful of rules, so a lookup scans them, newest
** first; the op's own name is looked for before its dialect, as MLIR's
** ConversionTarget does. Not here: the driver that acts on legality
** (conversion.c).
*/
#include "ir/rewrite/conversion.h"

void gilt_conversion_target_init(GiltConversionTarget *t, GiltContext *ctx)
{
  t->ctx = ctx;
  t->rules.data = NULL;
  t->rules.len = t->rules.cap = 0;
}

void gilt_conversion_target_free(GiltConversionTarget *t)
{
  gilt_vec_free(t->ctx, &t->rules);
}

static void add_rule(GiltConversionTarget *t, const char *name,
                     bool is_dialect, GiltLegality legality,
                     GiltLegalityFn fn, void *user)
{
  GiltLegalityRule rule = {gilt_ident_get_cstr(t->ctx, name), is_dialect,
                           legality, fn, user};
  gilt_vec_push(t->ctx, &t->rules, rule);
}

void gilt_conversion_target_add_legal_op(GiltConversionTarget *t,
                                         const char *op_name)
{
  add_rule(t, op_name, false, GILT_LEGALITY_LEGAL, NULL, NULL);
}

void gilt_conversion_target_add_illegal_op(GiltConversionTarget *t,
                                           const char *op_name)
{
  add_rule(t, op_name, false, GILT_LEGALITY_ILLEGAL, NULL, NULL);
}

void gilt_conversion_target_add_legal_dialect(GiltConversionTarget *t,
                                              const char *dialect)
{
  add_rule(t, dialect, true, GILT_LEGALITY_LEGAL, NULL, NULL);
}

void gilt_conversion_target_add_illegal_dialect(GiltConversionTarget *t,
                                                const char *dialect)
{
  add_rule(t, dialect, true, GILT_LEGALITY_ILLEGAL, NULL, NULL);
}

void gilt_conversion_target_add_dynamic_op(GiltConversionTarget *t,
                                           const char *op_name,
                                           GiltLegalityFn fn, void *user)
{
  add_rule(t, op_name, false, GILT_LEGALITY_UNKNOWN, fn, user);
}

void gilt_conversion_target_add_dynamic_dialect(GiltConversionTarget *t,
                                                const char *dialect,
                                                GiltLegalityFn fn,
                                                void *user)
{
  add_rule(t, dialect, true, GILT_LEGALITY_UNKNOWN, fn, user);
}

static const GiltLegalityRule *find_rule(const GiltConversionTarget *t,
                                         GiltIdent *name, bool is_dialect)
{
  for (size_t i = t->rules.len; i-- > 0;) {
    const GiltLegalityRule *r = &t->rules.data[i];
    if (r->name == name && r->is_dialect == is_dialect)
      return r;
  }
  return NULL;
}

GiltLegality gilt_conversion_target_get_legality(
    const GiltConversionTarget *t, GiltOp *op)
{
  const GiltLegalityRule *r = find_rule(t, op->info->name, false);
  if (!r && op->info->dialect)
    r = find_rule(t, op->info->dialect->name, true);
  if (!r)
    return GILT_LEGALITY_UNKNOWN;
  if (!r->fn)
    return r->legality;
  return r->fn(op, r->user) ? GILT_LEGALITY_LEGAL : GILT_LEGALITY_ILLEGAL;
}
