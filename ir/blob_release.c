/*
** blob_release.c - giving back the bytes of resource blobs that a module
** no longer refers to (gilt_context_release_blobs in gilt/ir.h).
**
** Why: attributes are immortal, as in MLIR, and a blob lives as long as
** its attribute. But lowering a model repacks nearly every weight (into
** panels, NCHW16c blocks, Winograd's transformed filters), after which the
** weights the file held are read by nothing, and they are the bulk of the
** model: 45 MB of ResNet-18's mapped file stayed resident through LLVM's
** compile and every run. A caller that knows which blobs are its own (a
** mark taken before it made them) can let those go once its module is
** lowered. The attribute stays, its blob without data, as a reference
** parsed without its section is: printing shows the name, and anything
** that reads its elements reports that the value has no data.
**
** What counts as a reference: every attribute of every op under the root,
** arrays and dictionaries looked into. Types and dialect attributes hold
** no dense resources in gilt.
*/
#include <stddef.h>

#include "ir/context.h"
#include "ir/core.h"
#include "ir/support/ptr_map.h"

size_t gilt_context_get_num_blobs(GiltContext *ctx)
{
  return ctx->num_blobs;
}

/* Puts into `used` the blobs `a` refers to. */
static void note_blobs(GiltPtrMap *used, GiltAttr *a)
{
  switch (a->kind) {
  case GILT_ATTR_DENSE_RESOURCE:
    gilt_ptr_map_put(used, a->resource, 1);
    break;
  case GILT_ATTR_ARRAY:
    for (size_t i = 0; i < a->array.n; i++)
      note_blobs(used, a->array.elems[i]);
    break;
  case GILT_ATTR_DICTIONARY:
    for (size_t i = 0; i < a->dict.n; i++)
      note_blobs(used, a->dict.entries[i].attr);
    break;
  default:
    break;
  }
}

static GiltWalkResult note_op_blobs(GiltOp *op, void *used)
{
  note_blobs(used, gilt_op_get_attr_dictionary(op));
  return GILT_WALK_ADVANCE;
}

size_t gilt_context_release_blobs(GiltContext *ctx, size_t since,
                                  GiltOp *root)
{
  GiltPtrMap used;
  gilt_ptr_map_init(&used, ctx);
  gilt_op_walk(root, GILT_WALK_PRE_ORDER, note_op_blobs, &used);
  size_t released = 0;
  /* The list runs newest first: the blobs made since the mark lead it. */
  GiltResourceBlob *b = ctx->blobs;
  for (size_t n = ctx->num_blobs; n > since && b; n--, b = b->next) {
    if (!b->data || gilt_ptr_map_get(&used, b, NULL))
      continue;
    released += b->nbytes;
    gilt_resource_blob_release(b);
    b->data = NULL;
    b->nbytes = 0;
    b->deleter = NULL;
  }
  gilt_ptr_map_free(&used);
  return released;
}
