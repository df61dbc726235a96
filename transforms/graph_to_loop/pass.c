/*
** pass.c - `graph-to-loop`: lowers a module of graph ops to the loop
** dialect, with the dialect conversion driver (ir/rewrite/conversion.h).
**
** Requires: a module whose tensors are ranked (run graph-infer-shapes
** first when the ONNX model left shapes open; dynamic dimensions are
** fine). Produces: func.func over memrefs, loop ops, and loop.globals for
** the graph's constants. Every graph op must lower: an op without a
** lowering, or one whose lowering refuses its case, is reported at its
** location (the ONNX node) and the module is left unchanged.
**
** Tensors become memrefs of the same shape and element type (identity
** layout); `none` stays none. graph.none folds away once its users are
** lowered, and graph.yield goes with the op whose body it ends. The
** lowerings themselves are the tables of the family files (lowering.h
** lists them), attached to the graph ops as external models of
** graph_to_loop_interface when the pass is registered.
*/
#include "transforms/graph_to_loop/lowering.h"

#include <stdio.h>
#include <string.h>

#include "gilt/pass.h"
#include "gilt/register.h"
#include "ir/builtin_dialect.h"
#include "ir/core.h"
#include "ir/rewrite/conversion.h"
#include "transforms/loop_to_llvm/lowering.h"

const GiltInterface graph_to_loop_interface = {"graph-to-loop lowering"};

static GiltType *tensor_to_memref(GiltType *t, void *user)
{
  (void)user;
  if (t->kind != GILT_TYPE_TENSOR)
    return t;
  if (!t->shaped.ranked)
    return NULL;
  return gilt_memref_type_get(t->ctx, t->shaped.rank, t->shaped.shape,
                              t->shaped.elem, NULL, NULL);
}

static GiltValue *cast(GiltBuilder *b, GiltType *type, GiltValue *input,
                       GiltLocation *loc, void *user)
{
  (void)user;
  GiltOpState st = gilt_op_state_get("builtin.unrealized_conversion_cast", loc);
  st.num_operands = 1;
  st.operands = &input;
  st.num_results = 1;
  st.result_types = &type;
  GiltOp *op = gilt_builder_create_op(b, &st);
  return op ? gilt_op_get_result(op, 0) : NULL;
}

/* The state of one run, which the patterns reach through their data. */
typedef struct PassState {
  unsigned num_globals;
  bool profile; /* the `profile` option: time each op's loops */
  int64_t register_vectors; /* Lower's, from the target's options */
  int64_t register_lanes;   /* Lower's: vector-bits / 32 */
  int64_t block_tile;       /* Lower's, the `block-tile` option */
} PassState;

/* The target's vector registers default to AVX-512's, so that the loops
** gopt prints do not depend on the machine it runs on; gjit gives the
** host's (gilt_model_default_pipeline). */
static const GiltPassOptionDef options[] = {
    {"profile", GILT_OPTION_BOOL, "false",
     "Time the loops of each op (loop.profile_begin/end), for gjit "
     "--profile"},
    {"vector-bits", GILT_OPTION_INT, "512",
     "The width of the target's vector registers, which the "
     "register-blocked tiles are shaped for: 512 (AVX-512), 256 (AVX2) "
     "or 128; 0 for none (a GPU's threads): every op a scalar nest over "
     "its outputs"},
    {"vector-registers", GILT_OPTION_INT, "32",
     "How many vector registers the target has: 32 (AVX-512) or 16"},
    {"block-tile", GILT_OPTION_INT, "0",
     "With vector-bits=0, for a GPU: the edge (16, 32, 64 or 128) of the "
     "square tiles of f32 products that a block of 16 x 16 threads "
     "computes through shared memory; 0 for none"},
    {0}};

/* What --profile calls op: the names of the ONNX nodes it stands for
** (several, "Conv_0 + Relu_1", once graph-fuse-epilogues fused them) and
** its op, or its op and position when it has no name. */
static GiltAttr *profile_label(GiltOp *op)
{
  GiltContext *ctx = gilt_op_get_context(op);
  GiltLocation *loc = gilt_op_get_location(op);
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, ctx);
  size_t n = loc->kind == GILT_LOC_FUSED ? loc->fused.n : 1;
  for (size_t i = 0; i < n; i++) {
    const char *name = gilt_location_get_name(
        loc->kind == GILT_LOC_FUSED ? loc->fused.locs[i] : loc);
    if (name)
      gilt_strbuf_printf(&sb, "%s%s", sb.len ? " + " : "", name);
  }
  const char *file;
  unsigned line = 0, col = 0;
  if (sb.len)
    gilt_strbuf_printf(&sb, " (%s)", gilt_op_get_name(op));
  else if (gilt_location_get_file_line_col(loc, &file, &line, &col))
    gilt_strbuf_printf(&sb, "%s (%s:%u:%u)", gilt_op_get_name(op), file, line,
                       col);
  else
    gilt_strbuf_printf(&sb, "%s", gilt_op_get_name(op));
  GiltAttr *label = gilt_string_attr_get(ctx, sb.data, sb.len);
  gilt_strbuf_free(&sb);
  return label;
}

/* The module an op is in: the conversion works on a copy of the pass's
** module, and globals go into that copy, beside the ops that use them. */
static GiltOp *module_of(GiltOp *op)
{
  while (gilt_op_get_parent_op(op))
    op = gilt_op_get_parent_op(op);
  return op;
}

/* Any graph op with a lowering: build its Lower and call it. */
static GiltStatus lower_op(const GiltPattern *pat, GiltOp *op,
                           GiltRewriter *rw)
{
  const GraphToLoopMethods *m = gilt_op_get_interface(op, &graph_to_loop_interface);
  if (!m)
    return GILT_FAILURE;
  /* A lowering works on buffers: an operand or result whose tensor type
  ** has no buffer form (an unknown rank) leaves nothing to lower with. */
  const GiltTypeConverter *tc = gilt_conversion_get_type_converter(rw);
  GiltValue *const *operands = gilt_conversion_get_operands(rw);
  for (size_t i = 0; i < gilt_op_get_num_operands(op); i++)
    if (!gilt_type_converter_is_legal(tc, gilt_value_get_type(operands[i])))
      return gilt_op_emit_error(op, "cannot be lowered: operand %zu has no "
                                    "buffer type (is its rank known?)",
                                i);
  for (size_t i = 0; i < gilt_op_get_num_results(op); i++)
    if (!gilt_type_converter_convert(
            tc, gilt_value_get_type(gilt_op_get_result(op, i))))
      return gilt_op_emit_error(op, "cannot be lowered: result %zu has no "
                                    "buffer type (is its rank known?)",
                                i);
  PassState *state = (PassState *)pat->data;
  Lower l = {
      .ctx = gilt_op_get_context(op),
      .rw = rw,
      .op = op,
      .loc = gilt_op_get_location(op),
      .operands = operands,
      .module = module_of(op),
      .num_globals = &state->num_globals,
      .register_vectors = state->register_vectors,
      .register_lanes = state->register_lanes,
      .block_tile = state->block_tile,
  };
  if (!state->profile || graph_op_is(op, GRAPH_OP_CONSTANT))
    return m->lower(&l);
  /* Both timer ops first, the lowering between them: once it replaced
  ** op, there is no op left to insert the end after. */
  GiltValue *start = lower_emit(&l, LOOP_OP_PROFILE_BEGIN, lower_i64_type(&l),
                                0, NULL);
  lower_emit_attr(&l, LOOP_OP_PROFILE_END, NULL, 1, &start, "label",
                  profile_label(op));
  gilt_builder_set_insertion_point_before(gilt_rewriter_get_builder(rw),
                                          gilt_op_get_prev(op));
  return m->lower(&l);
}

static bool types_legal(GiltOp *op, void *user)
{
  return gilt_type_converter_is_op_legal(user, op);
}

static bool signature_legal(GiltOp *op, void *user)
{
  GiltType *type = gilt_func_get_type(op);
  return gilt_type_converter_convert_function_type(user, type) == type;
}

static GiltStatus run(GiltPass *pass, GiltOp *module)
{
  GiltContext *ctx = gilt_pass_get_context(pass);
  int64_t bits = gilt_pass_get_option_int(pass, "vector-bits");
  int64_t registers = gilt_pass_get_option_int(pass, "vector-registers");
  int64_t block_tile = gilt_pass_get_option_int(pass, "block-tile");
  if (block_tile != 0 && (bits != 0 || block_tile % LOWER_BLOCK_THREADS ||
                          block_tile < LOWER_BLOCK_THREADS ||
                          block_tile > 8 * LOWER_BLOCK_THREADS ||
                          (block_tile & (block_tile - 1)))) {
    gilt_emit_error(gilt_op_get_location(module),
                    "graph-to-loop: block-tile must be 0, 16, 32, 64 or 128, "
                    "with vector-bits=0 (given %lld and %lld)",
                    (long long)block_tile, (long long)bits);
    return GILT_FAILURE;
  }
  if ((bits != 0 && bits != 128 && bits != 256 && bits != 512) ||
      registers < 8 || registers > 64) {
    gilt_emit_error(gilt_op_get_location(module),
                    "graph-to-loop: vector-bits must be 0, 128, 256 or 512 "
                    "and vector-registers 8 to 64 (given %lld and %lld)",
                    (long long)bits, (long long)registers);
    return GILT_FAILURE;
  }
  PassState state = {0, gilt_pass_get_option_bool(pass, "profile"),
                     registers * bits / (32 * LOWER_F32_LANES), bits / 32,
                     block_tile};
  GiltTypeConverter tc;
  gilt_type_converter_init(&tc, ctx);
  gilt_type_converter_add_conversion(&tc, tensor_to_memref, NULL);
  gilt_type_converter_set_source_materialization(&tc, cast, NULL);
  gilt_type_converter_set_target_materialization(&tc, cast, NULL);

  GiltConversionTarget target;
  gilt_conversion_target_init(&target, ctx);
  gilt_conversion_target_add_illegal_dialect(&target, "graph");
  gilt_conversion_target_add_legal_op(&target, "graph.none");
  /* The lowering of If, Loop or Scan rewrites the yields of its bodies;
  ** one that refuses leaves them, and is reported alone. */
  gilt_conversion_target_add_legal_op(&target, "graph.yield");
  gilt_conversion_target_add_legal_dialect(&target, "loop");
  gilt_conversion_target_add_dynamic_op(&target, "func.func", signature_legal,
                                        &tc);
  gilt_conversion_target_add_dynamic_op(&target, "func.return", types_legal,
                                        &tc);
  gilt_conversion_target_add_dynamic_op(&target, "func.call", types_legal,
                                        &tc);

  GiltPatternSet patterns;
  gilt_pattern_set_init(&patterns, ctx);
  gilt_pattern_set_add(&patterns,
                       (GiltPattern){"graph-to-loop", NULL, 1, lower_op, &state});
  gilt_conversion_add_signature_pattern(&patterns, "func.func");
  gilt_conversion_add_type_pattern(&patterns, "func.return");
  gilt_conversion_add_type_pattern(&patterns, "func.call");
  GiltStatus status =
      gilt_apply_partial_conversion(module, &target, &patterns, &tc);
  gilt_pattern_set_free(&patterns);
  gilt_conversion_target_free(&target);
  gilt_type_converter_free(&tc);
  return status;
}

const GiltPassDef gilt_graph_to_loop_pass = {
    .name = "graph-to-loop",
    .description = "Lower graph ops on tensors to loop nests on buffers",
    .anchor = "builtin.module",
    .options = options,
    .run = run,
};

/* Attaches every family's lowerings to their graph ops. */
static void attach_lowerings(GiltContext *ctx)
{
  static const GraphLoweringRow *const tables[] = {
#define GRAPH_LOWERING_TABLE(name) name,
      GRAPH_LOWERING_TABLES(GRAPH_LOWERING_TABLE)
#undef GRAPH_LOWERING_TABLE
  };
  for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
    for (const GraphLoweringRow *row = tables[t]; row->methods.lower; row++) {
      const char *name = graph_ops[row->op].name;
      if (gilt_context_op_implements(ctx, name, &graph_to_loop_interface))
        continue;
      gilt_context_attach_interface(ctx, name, &graph_to_loop_interface,
                                    &row->methods);
    }
}

void gilt_register_conversion_passes(GiltContext *ctx)
{
  static const GiltPassDef *const passes[] = {&gilt_graph_to_loop_pass,
                                              &gilt_loop_to_llvm_pass};
  gilt_register_graph_dialect(ctx);
  gilt_register_loop_dialect(ctx);
  gilt_register_llvm_dialect(ctx);
  gilt_register_func_dialect(ctx);
  attach_lowerings(ctx);
  gilt_context_register_passes(ctx, passes, sizeof passes / sizeof *passes);
}
