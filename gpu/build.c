/*
** build.c - building the loop and gpu ops the GPU passes emit, at a
** builder's insertion point with one location: the few shapes of op the
** mapping, outlining and tiling need (index constants and arithmetic,
** thread ids, launches), so that each pass reads as what it builds.
**
** Not here: anything a pass decides; these only build.
*/
#include "gpu/gpu.h"

#include <string.h>

#include "ir/core.h"

void gpu_builder_init(GpuBuilder *g, GiltContext *ctx)
{
  *g = (GpuBuilder){.ctx = ctx, .b = gilt_builder_create(ctx),
                    .index = gilt_index_type_get(ctx)};
}

void gpu_builder_free(GpuBuilder *g)
{
  gilt_builder_destroy(g->b);
}

GiltOp *gpu_build(GpuBuilder *g, const char *name, GiltType *result, size_t n,
                  GiltValue *const *operands, size_t num_attrs,
                  const GiltNamedAttr *attrs, size_t num_regions)
{
  GiltOpState st = gilt_op_state_get(name, g->loc);
  st.num_operands = n;
  st.operands = operands;
  st.num_results = result ? 1 : 0;
  st.result_types = &result;
  st.num_attrs = num_attrs;
  st.attrs = attrs;
  st.num_regions = num_regions;
  GiltOp *op = gilt_builder_create_op(g->b, &st);
  GILT_ASSERT(op);
  return op;
}

GiltValue *gpu_build_index(GpuBuilder *g, int64_t v)
{
  GiltNamedAttr value = {"value", gilt_integer_attr_get(g->index, v)};
  return gilt_op_get_result(
      gpu_build(g, "loop.constant", g->index, 0, NULL, 1, &value, 0), 0);
}

GiltValue *gpu_build_arith(GpuBuilder *g, const char *name, GiltValue *a,
                           GiltValue *b)
{
  GiltValue *ops[2] = {a, b};
  return gilt_op_get_result(gpu_build(g, name, g->index, 2, ops, 0, NULL, 0),
                            0);
}

GiltValue *gpu_build_id_x(GpuBuilder *g, GpuOpId id)
{
  GiltNamedAttr dim = {"dimension", gilt_string_attr_get(g->ctx, "x", 1)};
  return gilt_op_get_result(
      gpu_build(g, gpu_ops[id].name, g->index, 0, NULL, 1, &dim, 0), 0);
}

GiltOp *gpu_build_launch(GpuBuilder *g, GiltValue *const *sizes)
{
  GiltOp *launch = gpu_build(g, "gpu.launch", NULL, 6, sizes, 0, NULL, 1);
  GiltBlock *body = gilt_block_create(g->ctx, 0, NULL, NULL);
  gilt_region_append_block(gilt_op_get_region(launch, 0), body);
  GiltOpState st = gilt_op_state_get("gpu.terminator", g->loc);
  gilt_block_append_op(body, gilt_op_create(g->ctx, &st));
  return launch;
}

GiltOp *gpu_build_for(GpuBuilder *g, GiltValue *lower, GiltValue *upper,
                      GiltValue *step)
{
  GiltValue *bounds[3] = {lower, upper, step};
  GiltOp *loop = gpu_build(g, "loop.for", NULL, 3, bounds, 0, NULL, 1);
  GiltBlock *body = gilt_block_create(g->ctx, 1, &g->index, NULL);
  gilt_region_append_block(gilt_op_get_region(loop, 0), body);
  GiltOpState st = gilt_op_state_get("loop.yield", g->loc);
  gilt_block_append_op(body, gilt_op_create(g->ctx, &st));
  return loop;
}

GiltBlock *gpu_body(GiltOp *op)
{
  return gilt_region_get_first_block(gilt_op_get_region(op, 0));
}
