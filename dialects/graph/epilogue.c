/*
** epilogue.c - the epilogue attribute of Conv, Gemm, MatMul and
** BatchNormalization
** (graph.h's GRAPH_EPILOGUE_ATTR): between the kinds of
** GRAPH_EPILOGUE_KINDS and their names, for graph-fuse-epilogues, which
** sets it, and the lowerings, which apply it. Not here: which ops fuse
** (dialects/graph/transforms/fuse_epilogues.c) and what each kind
** computes (transforms/graph_to_loop/epilogue.c).
*/
#include "dialects/graph/graph.h"

#include <string.h>

static const char *const names[] = {
#define GRAPH_EPILOGUE_NAME(sym, name) [GRAPH_EPILOGUE_##sym] = name,
    GRAPH_EPILOGUE_KINDS(GRAPH_EPILOGUE_NAME)
#undef GRAPH_EPILOGUE_NAME
};

GraphEpilogue graph_epilogue_of(GiltOp *op)
{
  GiltAttr *a = gilt_op_get_attr(op, GRAPH_EPILOGUE_ATTR);
  if (!a)
    return GRAPH_EPILOGUE_NONE;
  if (gilt_attr_get_kind(a) != GILT_ATTR_STRING)
    return GRAPH_EPILOGUE_UNKNOWN;
  const char *name = gilt_string_attr_get_value(a, NULL);
  for (size_t k = GRAPH_EPILOGUE_NONE + 1; k < GRAPH_EPILOGUE_UNKNOWN; k++)
    if (!strcmp(name, names[k]))
      return (GraphEpilogue)k;
  return GRAPH_EPILOGUE_UNKNOWN;
}

void graph_epilogue_set(GiltOp *op, GraphEpilogue k)
{
  GILT_ASSERT(k > GRAPH_EPILOGUE_NONE && k < GRAPH_EPILOGUE_UNKNOWN);
  GiltContext *ctx = gilt_op_get_context(op);
  gilt_op_set_attr(op, GRAPH_EPILOGUE_ATTR,
                   gilt_string_attr_get(ctx, names[k], strlen(names[k])));
}
