/*
** outline_kernels.c - `gpu-outline-kernels`: each gpu.launch becomes a
** kernel, a gpu.func in a gpu.module, and a gpu.launch_func of it in its
** place, so that device code and host code part ways: the module is
** lowered for the GPU and compiled to PTX, the host keeps the launches.
**
** Requires what gpu-map-parallel makes: gpu.launch ops in func.func ops
** of a builtin.module. Produces one gpu.module @<func>_kernels after each
** such function, holding @<func>_kernel_<n> for its n-th launch (in
** program order), and no gpu.launch.
**
** A kernel is isolated from above (MLIR's kernel outlining): the values
** its body uses from the host become its arguments, in order of first
** use, but for those the host computes from constants by pure ops, which
** the kernel computes again itself (loop bounds, sizes, vector splats of
** constants stay constants there, for LLVM to fold). A captured memref
** must be a device buffer (memory space 1); a captured vector that is not
** such a constant expression cannot be passed and is reported.
**
** Statistics: num-kernels.
*/
#include "gpu/passes.h"

#include <stdio.h>
#include <string.h>

#include "dialects/func/func.h"
#include "gpu/gpu.h"
#include "ir/core.h"
#include "ir/support/ptr_map.h"

typedef GILT_VEC(GiltValue *) ValueVec;
typedef GILT_VEC(GiltOp *) OpVec;

typedef struct Outline {
  GpuBuilder g;
  GiltOp *launch;
  GiltPtrMap seen;      /* captured value -> 1 */
  ValueVec captured;    /* in order of first use */
  GiltIRMapping *map;   /* captured value -> argument or clone */
} Outline;

/* ---- what the body uses from the host ---------------------------------------- */

static GiltWalkResult capture_operands(GiltOp *op, void *user)
{
  Outline *o = user;
  for (size_t i = 0; op != o->launch && i < gilt_op_get_num_operands(op); i++) {
    GiltValue *v = gilt_op_get_operand(op, i);
    GiltOp *owner = gilt_block_get_parent_op(gilt_value_get_parent_block(v));
    if ((owner && gilt_op_is_ancestor(o->launch, owner)) ||
        gilt_ptr_map_get(&o->seen, v, NULL))
      continue;
    gilt_ptr_map_put(&o->seen, v, 1);
    gilt_vec_push(o->g.ctx, &o->captured, v);
  }
  return GILT_WALK_ADVANCE;
}

/* Whether the kernel can compute v itself: a pure op without regions of
** constants, not a buffer. */
static bool is_constant_expr(GiltValue *v)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  if (!def || !gilt_op_has_trait(def, GILT_TRAIT_PURE) ||
      gilt_op_get_num_regions(def) ||
      gilt_value_get_type(v)->kind == GILT_TYPE_MEMREF)
    return false;
  for (size_t i = 0; i < gilt_op_get_num_operands(def); i++)
    if (!is_constant_expr(gilt_op_get_operand(def, i)))
      return false;
  return true;
}

/* Clones the ops computing v at the builder, operands first. */
static GiltValue *clone_expr(Outline *o, GiltValue *v)
{
  GiltValue *done = gilt_ir_mapping_lookup(o->map, v);
  if (done != v)
    return done;
  GiltOp *def = gilt_value_get_defining_op(v);
  for (size_t i = 0; i < gilt_op_get_num_operands(def); i++)
    clone_expr(o, gilt_op_get_operand(def, i));
  gilt_builder_insert(o->g.b, gilt_op_clone_with_mapping(def, o->map));
  return gilt_ir_mapping_lookup(o->map, v);
}

/* ---- the kernel --------------------------------------------------------------- */

/* The captured values the kernel takes as arguments, into args; false
** after reporting one it cannot take. */
static bool kernel_arguments(Outline *o, ValueVec *args)
{
  for (size_t i = 0; i < o->captured.len; i++) {
    GiltValue *v = o->captured.data[i];
    GiltType *t = gilt_value_get_type(v);
    if (is_constant_expr(v))
      continue;
    if (t->kind == GILT_TYPE_VECTOR ||
        (t->kind == GILT_TYPE_MEMREF &&
         gpu_memory_space(t) != GPU_SPACE_GLOBAL)) {
      gilt_op_emit_error(o->launch, "cannot pass a %s to a kernel (captured "
                                    "value %zu)",
                         t->kind == GILT_TYPE_VECTOR
                             ? "vector computed on the host"
                             : "buffer that is not in device memory",
                         i);
      return false;
    }
    gilt_vec_push(o->g.ctx, args, v);
  }
  return true;
}

/* The gpu.func `name` taking `args`, its body the launch's: arguments and
** clones stand for the captured values, gpu.return for gpu.terminator. */
static GiltOp *build_kernel(Outline *o, const char *name, const ValueVec *args)
{
  GiltType *types[args->len + 1];
  for (size_t i = 0; i < args->len; i++)
    types[i] = gilt_value_get_type(args->data[i]);
  GiltType *fn = gilt_function_type_get(o->g.ctx, args->len, types, 0, NULL);
  GiltNamedAttr attrs[] = {
      {"function_type", gilt_type_attr_get(fn)},
      {GPU_KERNEL_ATTR, gilt_unit_attr_get(o->g.ctx)},
      {"sym_name", gilt_string_attr_get(o->g.ctx, name, strlen(name))},
  };
  GiltOpState st = gilt_op_state_get("gpu.func", o->g.loc);
  st.num_attrs = 3;
  st.attrs = attrs;
  st.num_regions = 1;
  GiltOp *kernel = gilt_op_create(o->g.ctx, &st);
  GiltRegion *body = gilt_op_get_region(kernel, 0);
  gilt_region_take_body(body, gilt_op_get_region(o->launch, 0));
  GiltBlock *entry = gilt_region_get_first_block(body);
  for (size_t i = 0; i < args->len; i++)
    gilt_ir_mapping_map(o->map, args->data[i],
                        gilt_block_add_argument(entry, types[i], o->g.loc));
  gilt_builder_set_insertion_point_to_start(o->g.b, entry);
  for (size_t i = 0; i < o->captured.len; i++)
    if (is_constant_expr(o->captured.data[i]))
      clone_expr(o, o->captured.data[i]);
  GiltOp *term = gilt_block_get_terminator(entry);
  gilt_builder_set_insertion_point_before(o->g.b, term);
  gpu_build(&o->g, "gpu.return", NULL, 0, NULL, 0, NULL, 0);
  gilt_op_destroy(term);
  return kernel;
}

/* Every use in the kernel of a captured value goes to its image. */
static GiltWalkResult remap_operands(GiltOp *op, void *user)
{
  Outline *o = user;
  for (size_t i = 0; i < gilt_op_get_num_operands(op); i++) {
    GiltValue *v = gilt_op_get_operand(op, i);
    if (gilt_ptr_map_get(&o->seen, v, NULL))
      gilt_op_set_operand(op, i, gilt_ir_mapping_lookup(o->map, v));
  }
  return GILT_WALK_ADVANCE;
}

/* ---- the pass ---------------------------------------------------------------------- */

/* Replaces `launch` by a launch of a new kernel `name` in `module`. */
static GiltStatus outline(GpuBuilder *g, GiltOp *launch, GiltOp *module,
                          const char *name)
{
  Outline o = {.g = *g, .launch = launch,
               .map = gilt_ir_mapping_create(g->ctx)};
  o.g.loc = gilt_op_get_location(launch);
  gilt_ptr_map_init(&o.seen, g->ctx);
  gilt_op_walk(launch, GILT_WALK_PRE_ORDER, capture_operands, &o);
  ValueVec args = {0};
  GiltStatus status = GILT_FAILURE;
  if (kernel_arguments(&o, &args)) {
    GiltOp *kernel = build_kernel(&o, name, &args);
    gilt_op_walk(kernel, GILT_WALK_PRE_ORDER, remap_operands, &o);
    gilt_block_append_op(gpu_body(module), kernel);
    GiltValue *ops[6 + args.len];
    for (size_t i = 0; i < 6; i++)
      ops[i] = gilt_op_get_operand(launch, i);
    for (size_t i = 0; i < args.len; i++)
      ops[6 + i] = args.data[i];
    const char *nested = name;
    GiltNamedAttr ref = {"kernel",
                         gilt_symbol_ref_attr_get(g->ctx,
                                                  gilt_symbol_get_name(module),
                                                  1, &nested)};
    gilt_builder_set_insertion_point_before(o.g.b, launch);
    gpu_build(&o.g, "gpu.launch_func", NULL, 6 + args.len, ops, 1, &ref, 0);
    gilt_op_destroy(launch);
    status = GILT_SUCCESS;
  }
  gilt_vec_free(g->ctx, &args);
  gilt_vec_free(g->ctx, &o.captured);
  gilt_ptr_map_free(&o.seen);
  gilt_ir_mapping_destroy(o.map);
  return status;
}

static GiltWalkResult collect_launch(GiltOp *op, void *user)
{
  if (gpu_op_is(op, GPU_OP_LAUNCH))
    gilt_vec_push(gilt_op_get_context(op), (OpVec *)user, op);
  return GILT_WALK_ADVANCE;
}

/* The gpu.module @<func>_kernels, new, right after func. */
static GiltOp *kernel_module(GpuBuilder *g, GiltOp *func)
{
  char name[256];
  snprintf(name, sizeof name, "%s_kernels", gilt_symbol_get_name(func));
  GiltNamedAttr sym = {"sym_name",
                       gilt_string_attr_get(g->ctx, name, strlen(name))};
  g->loc = gilt_op_get_location(func);
  gilt_builder_set_insertion_point_after(g->b, func);
  GiltOp *module = gpu_build(g, "gpu.module", NULL, 0, NULL, 1, &sym, 1);
  gilt_region_append_block(gilt_op_get_region(module, 0),
                           gilt_block_create(g->ctx, 0, NULL, NULL));
  return module;
}

/* Outlines the launches of one function; returns how many. */
static size_t outline_function(GpuBuilder *g, GiltOp *func, size_t *errors)
{
  OpVec launches = {0};
  gilt_op_walk(func, GILT_WALK_PRE_ORDER, collect_launch, &launches);
  GiltOp *module = launches.len ? kernel_module(g, func) : NULL;
  for (size_t i = 0; i < launches.len; i++) {
    char name[300];
    snprintf(name, sizeof name, "%s_kernel_%zu", gilt_symbol_get_name(func), i);
    if (outline(g, launches.data[i], module, name))
      (*errors)++;
  }
  size_t n = launches.len;
  gilt_vec_free(g->ctx, &launches);
  return n;
}

static GiltStatus run(GiltPass *pass, GiltOp *module)
{
  GpuBuilder g;
  gpu_builder_init(&g, gilt_pass_get_context(pass));
  size_t kernels = 0, errors = 0;
  GiltOp *next;
  for (GiltOp *op = gilt_block_get_first_op(gilt_module_get_body(module)); op;
       op = next) {
    next = gilt_op_get_next(op);
    if (gilt_func_op_is(op, FUNC_OP_FUNC))
      kernels += outline_function(&g, op, &errors);
  }
  gpu_builder_free(&g);
  if (!kernels)
    gilt_pass_mark_unchanged(pass);
  gilt_pass_add_statistic(pass, "num-kernels", "kernels outlined",
                          (int64_t)kernels);
  return errors ? GILT_FAILURE : GILT_SUCCESS;
}

const GiltPassDef gilt_gpu_outline_kernels_pass = {
    .name = "gpu-outline-kernels",
    .description = "Outline each gpu.launch into a kernel (gpu.func) of a "
                   "gpu.module, launched by gpu.launch_func",
    .anchor = "builtin.module",
    .run = run,
};
