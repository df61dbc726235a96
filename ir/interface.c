/*
** interface.c - op interfaces: finding an op's implementation of an
** interface, and attaching implementations from outside its dialect.
**
** An op's implementations come from two places: the `interfaces` list of
** its row, and the external models attached to its GiltOpInfo in this
** context (MLIR's attachInterface). Lookup walks both; ops implement a
** handful of interfaces, so a linear scan beats any table. Not here: the
** interfaces themselves, which live with the code that defines their
** contract (ir/interfaces/, and each level's own).
*/
#include "ir/context.h"

#include <string.h>

static const void *find_declared(const GiltOpDef *def,
                                 const GiltInterface *iface)
{
  if (!def->interfaces)
    return NULL;
  for (const GiltInterfaceImpl *i = def->interfaces; i->iface; i++)
    if (i->iface == iface)
      return i->methods;
  return NULL;
}

static const void *find_interface(const GiltOpInfo *info,
                                  const GiltInterface *iface)
{
  if (!info || !info->def)
    return NULL;
  const void *methods = find_declared(info->def, iface);
  for (GiltAttachedInterface *a = info->attached; a && !methods; a = a->next)
    if (a->impl.iface == iface)
      methods = a->impl.methods;
  return methods;
}

const void *gilt_op_get_interface(GiltOp *op, const GiltInterface *iface)
{
  return find_interface(op->info, iface);
}

bool gilt_context_op_implements(GiltContext *ctx, const char *op_name,
                                const GiltInterface *iface)
{
  return find_interface(gilt_context_lookup_op(ctx, op_name, strlen(op_name)),
                        iface) != NULL;
}

GiltStatus gilt_context_attach_interface(GiltContext *ctx, const char *op_name,
                                         const GiltInterface *iface,
                                         const void *methods)
{
  GILT_ASSERT(iface && methods);
  /* The registry hands out const infos so that nobody else edits them;
  ** attaching is the one edit it allows. */
  GiltOpInfo *info =
      (GiltOpInfo *)gilt_context_lookup_op(ctx, op_name, strlen(op_name));
  GiltLocation *loc = gilt_location_unknown_get(ctx);
  if (!info) {
    gilt_emit_error(loc, "cannot attach interface '%s' to '%s': no such "
                         "registered op", iface->name, op_name);
    return GILT_FAILURE;
  }
  if (find_interface(info, iface)) {
    gilt_emit_error(loc, "op '%s' already implements interface '%s'",
                    op_name, iface->name);
    return GILT_FAILURE;
  }
  GiltAttachedInterface *a = gilt_arena_alloc(&ctx->arena, sizeof *a);
  a->impl = (GiltInterfaceImpl){iface, methods};
  a->next = info->attached;
  info->attached = a;
  return GILT_SUCCESS;
}
