/*
** conversion.c - the dialect conversion driver (see conversion.h).
**
** The driver clones the root, legalizes the ops of the clone one by one in
** program order (ops created by patterns join the end of the worklist),
** and, when no op was left illegal, moves the clone's regions into the
** root. Converting a copy is what makes failure clean without recording
** every change for undo as MLIR's ConversionPatternRewriter does; the
** price is one copy of the root per run. Ops erased by patterns are kept,
** unlinked, until the end: the worklist may still name them.
**
** Where converted and unconverted values meet, the type converter's
** materializations build casts: a source materialization when a value is
** replaced by one of another type (the remaining users keep the type they
** expect), a target materialization when a pattern asks for its operands
** converted. The driver remembers every cast so that a pattern asking for
** the converted form of a cast's result gets the cast's input back, and
** erases the casts nobody uses at the end.
*/
#include "ir/rewrite/conversion.h"

#include "ir/context.h"

#include <string.h>

/* How many times patterns may create an op that must be converted again,
** one inside the other's rewrite, before the driver assumes they loop. */
#define MAX_REWRITE_DEPTH 32

enum { OP_KNOWN, OP_ERASED };

typedef struct WorkItem {
  GiltOp *op;
  unsigned depth; /* 0 for ops of the input, parent's + 1 for created ones */
} WorkItem;

typedef struct Cast {
  GiltOp *op; /* still valid (for is_erased) once finish_casts freed it */
  GiltValue *result, *input;
} Cast;

typedef struct Conversion {
  GiltContext *ctx;
  const GiltConversionTarget *target;
  const GiltTypeConverter *tc;
  bool full;
  GiltOp *copy;
  GiltRewriter *rw;
  GiltBuilder *cast_builder;
  GiltPatternIndex index;
  GILT_VEC(WorkItem) work;
  GiltPtrMap state;           /* every op seen -> OP_KNOWN or OP_ERASED */
  GILT_VEC(GiltOp *) erased;  /* unlinked by patterns, destroyed at the end */
  GILT_VEC(Cast) casts;
  GiltPtrMap cast_index;      /* a cast's result -> its index in casts */
  GiltOp *current;            /* the op patterns are being tried on */
  unsigned depth;             /* its depth */
  GILT_VEC(GiltValue *) operands; /* its converted operands, once asked */
  bool operands_ready;
  size_t num_errors;
} Conversion;

static bool is_erased(Conversion *c, GiltOp *op)
{
  size_t s;
  return gilt_ptr_map_get(&c->state, op, &s) && s == OP_ERASED;
}

static void enqueue(Conversion *c, GiltOp *op, unsigned depth)
{
  if (gilt_ptr_map_get(&c->state, op, NULL))
    return;
  gilt_ptr_map_put(&c->state, op, OP_KNOWN);
  WorkItem item = {op, depth};
  gilt_vec_push(c->ctx, &c->work, item);
}

static void type_to_string(GiltType *t, GiltStrBuf *sb)
{
  gilt_type_print(t, gilt_strbuf_callback, sb);
}

/* Builds a cast of `input` to `type` at the cast builder's point. */
static GiltValue *materialize(Conversion *c, bool source, GiltType *type,
                              GiltValue *input, GiltLocation *loc)
{
  GiltMaterializationFn fn = source ? c->tc->source_materialization
                                    : c->tc->target_materialization;
  void *user = source ? c->tc->source_user : c->tc->target_user;
  GiltValue *result =
      fn ? fn(c->cast_builder, type, input, loc, user) : NULL;
  if (!result) {
    GiltStrBuf from, to;
    gilt_strbuf_init(&from, c->ctx);
    gilt_strbuf_init(&to, c->ctx);
    type_to_string(input->type, &from);
    type_to_string(type, &to);
    gilt_emit_diag(loc, GILT_SEVERITY_ERROR,
                   "failed to materialize a conversion from '%s' to '%s'",
                   from.data, to.data);
    gilt_strbuf_free(&from);
    gilt_strbuf_free(&to);
    c->num_errors++;
    return NULL;
  }
  GILT_ASSERT(!result->is_block_arg);
  /* The cast is bookkeeping, not input to convert. */
  gilt_ptr_map_put(&c->state, result->owner.op, OP_KNOWN);
  gilt_ptr_map_put(&c->cast_index, result, c->casts.len);
  Cast cast = {result->owner.op, result, input};
  gilt_vec_push(c->ctx, &c->casts, cast);
  return result;
}

/* ---- the listener ------------------------------------------------------- */

static GiltWalkResult enqueue_created(GiltOp *op, void *user)
{
  Conversion *c = user;
  enqueue(c, op, c->depth + 1);
  return GILT_WALK_ADVANCE;
}

static void on_inserted(void *user, GiltOp *op)
{
  gilt_op_walk(op, GILT_WALK_PRE_ORDER, enqueue_created, user);
}

/* Users of `from` that nobody converts keep its type through a cast of
** the new value, placed where `from` was defined. */
static GiltValue *on_replaced(void *user, GiltValue *from, GiltValue *to)
{
  Conversion *c = user;
  if (from->type == to->type || !from->first_use || !c->tc)
    return to;
  GiltLocation *loc;
  if (from->is_block_arg) {
    gilt_builder_set_insertion_point_to_start(c->cast_builder,
                                              from->owner.block);
    loc = *gilt_block_arg_loc(from);
  } else {
    gilt_builder_set_insertion_point_before(c->cast_builder,
                                            from->owner.op);
    loc = from->owner.op->loc;
  }
  GiltValue *cast = materialize(c, true, from->type, to, loc);
  return cast ? cast : to;
}

static GiltWalkResult mark_erased(GiltOp *op, void *user)
{
  gilt_ptr_map_put(&((Conversion *)user)->state, op, OP_ERASED);
  return GILT_WALK_ADVANCE;
}

static bool on_erased(void *user, GiltOp *op)
{
  Conversion *c = user;
  gilt_op_walk(op, GILT_WALK_PRE_ORDER, mark_erased, c);
  gilt_vec_push(c->ctx, &c->erased, op);
  return true;
}

static const GiltRewriteListener conversion_listener = {
    on_inserted, NULL, on_replaced, on_erased};

/* ---- what patterns call --------------------------------------------------- */

static Conversion *conversion_of(GiltRewriter *rw)
{
  Conversion *c = gilt_rewriter_get_listener_data(rw, &conversion_listener);
  GILT_ASSERT(c && "not a conversion rewriter");
  return c;
}

const GiltTypeConverter *gilt_conversion_get_type_converter(GiltRewriter *rw)
{
  return conversion_of(rw)->tc;
}

/* The converted form of v; a cast it needs goes before `before`. */
static GiltValue *convert_value(Conversion *c, GiltValue *v, GiltOp *before)
{
  GiltType *want = c->tc ? gilt_type_converter_convert(c->tc, v->type) : NULL;
  if (!want || want == v->type)
    return v;
  size_t i;
  if (gilt_ptr_map_get(&c->cast_index, v, &i) &&
      c->casts.data[i].input->type == want)
    return c->casts.data[i].input;
  gilt_builder_set_insertion_point_before(c->cast_builder, before);
  GiltValue *cast = materialize(c, false, want, v, before->loc);
  return cast ? cast : v;
}

GiltValue *gilt_conversion_get_remapped_value(GiltRewriter *rw, GiltValue *v,
                                              GiltOp *before)
{
  return convert_value(conversion_of(rw), v, before);
}

GiltValue *const *gilt_conversion_get_operands(GiltRewriter *rw)
{
  Conversion *c = conversion_of(rw);
  GILT_ASSERT(c->current);
  if (!c->operands_ready) {
    c->operands.len = 0;
    for (size_t i = 0; i < c->current->num_operands; i++)
      gilt_vec_push(c->ctx, &c->operands,
                    convert_value(c, c->current->operands[i].value,
                                  c->current));
    c->operands_ready = true;
  }
  return c->operands.data;
}

/* Gives `arg` its converted type; its uses get a cast back to the old
** one at the start of the block. */
static void convert_block_arg(Conversion *c, GiltValue *arg, GiltType *want)
{
  GiltType *old = arg->type;
  GILT_VEC(GiltOperand *) uses = {0};
  for (GiltOperand *u = arg->first_use; u; u = u->next_use)
    gilt_vec_push(c->ctx, &uses, u);
  gilt_value_set_type(arg, want);
  if (uses.len) {
    gilt_builder_set_insertion_point_to_start(c->cast_builder,
                                              arg->owner.block);
    GiltValue *cast = materialize(c, true, old, arg, *gilt_block_arg_loc(arg));
    for (size_t i = 0; cast && i < uses.len; i++)
      gilt_op_set_operand(uses.data[i]->owner, gilt_operand_get_index(uses.data[i]), cast);
  }
  gilt_vec_free(c->ctx, &uses);
}

GiltStatus gilt_conversion_convert_region_types(GiltRewriter *rw,
                                                GiltRegion *region)
{
  Conversion *c = conversion_of(rw);
  if (!c->tc)
    return GILT_SUCCESS;
  for (GiltBlock *b = region->first; b; b = b->next)
    for (size_t i = 0; i < b->num_args; i++)
      if (!gilt_type_converter_convert(c->tc, b->args[i]->type))
        return GILT_FAILURE;
  for (GiltBlock *b = region->first; b; b = b->next)
    for (size_t i = 0; i < b->num_args; i++)
      convert_block_arg(c, b->args[i],
                        gilt_type_converter_convert(c->tc, b->args[i]->type));
  return GILT_SUCCESS;
}

/* ---- legalizing one op ----------------------------------------------------- */

static bool acceptable(Conversion *c, GiltLegality legality)
{
  return legality == GILT_LEGALITY_LEGAL ||
         (legality == GILT_LEGALITY_UNKNOWN && !c->full);
}

static bool try_patterns(Conversion *c, GiltOp *op)
{
  GiltPatternCursor cursor;
  gilt_pattern_index_lookup(&c->index, op, &cursor);
  for (const GiltPattern *p; (p = gilt_pattern_cursor_next(&cursor));) {
    gilt_builder_set_insertion_point_before(gilt_rewriter_get_builder(c->rw),
                                            op);
    if (p->match_and_rewrite(p, op, c->rw) == GILT_SUCCESS)
      return true;
  }
  return false;
}

/* A type of op's that the converter cannot convert, if any. */
static GiltType *unconvertible_type(Conversion *c, GiltOp *op)
{
  for (size_t i = 0; c->tc && i < op->num_operands; i++)
    if (!gilt_type_converter_convert(c->tc, op->operands[i].value->type))
      return op->operands[i].value->type;
  for (size_t i = 0; c->tc && i < op->num_results; i++)
    if (!gilt_type_converter_convert(c->tc, gilt_op_result_array(op)[i].type))
      return gilt_op_result_array(op)[i].type;
  return NULL;
}

static void report_failure(Conversion *c, GiltOp *op, GiltLegality legality,
                           bool too_deep)
{
  GiltDiagnostic *d = gilt_diag_create(
      c->ctx, GILT_SEVERITY_ERROR, op->loc,
      legality == GILT_LEGALITY_ILLEGAL
          ? "failed to legalize operation '%s' that was explicitly marked "
            "illegal"
          : "failed to legalize operation '%s'",
      op->info->name->str);
  GiltType *bad = unconvertible_type(c, op);
  if (too_deep) {
    gilt_diag_add_note(d, op->loc,
                       "patterns kept creating ops to convert, %d deep",
                       MAX_REWRITE_DEPTH);
  } else if (bad) {
    GiltStrBuf sb;
    gilt_strbuf_init(&sb, c->ctx);
    type_to_string(bad, &sb);
    gilt_diag_add_note(d, op->loc, "type '%s' has no conversion", sb.data);
    gilt_strbuf_free(&sb);
  }
  gilt_diag_emit(d);
  c->num_errors++;
}

static void legalize(Conversion *c, WorkItem item)
{
  GiltOp *op = item.op;
  GiltLegality legality =
      gilt_conversion_target_get_legality(c->target, op);
  if (acceptable(c, legality))
    return;
  bool too_deep = item.depth > MAX_REWRITE_DEPTH, converted = false;
  size_t errors_before = c->ctx->num_errors;
  if (!too_deep) {
    c->current = op;
    c->depth = item.depth;
    c->operands_ready = false;
    converted = try_patterns(c, op);
    c->current = NULL;
  }
  if (converted && (is_erased(c, op) ||
                    acceptable(c, gilt_conversion_target_get_legality(
                                      c->target, op))))
    return;
  /* A pattern that refused the op and said why has reported it: a
  ** second, generic error at the same op would only repeat it. */
  if (c->ctx->num_errors > errors_before) {
    c->num_errors++;
    return;
  }
  report_failure(c, op, legality, too_deep);
}

/* ---- the driver ------------------------------------------------------------ */

/* A cast's input as it is now: the value it was built from may since
** have been replaced (by a cast of its converted form). */
static GiltValue *cast_input(const Cast *cast)
{
  return cast->result->owner.op->operands[0].value;
}

/* Erases the cast if it is unused; true when it did. Erasing one may
** free the cast it reads, whichever is the newer. */
static bool erase_if_unused(Conversion *c, GiltOp *op)
{
  if (is_erased(c, op))
    return false;
  for (size_t r = 0; r < op->num_results; r++)
    if (gilt_op_result_array(op)[r].first_use)
      return false;
  gilt_ptr_map_put(&c->state, op, OP_ERASED);
  gilt_op_destroy(op);
  return true;
}

/* Looks through a cast back to the type it came from, then erases the
** casts left unused until none is. */
static void finish_casts(Conversion *c)
{
  for (size_t i = 0; i < c->casts.len; i++) {
    Cast *cast = &c->casts.data[i];
    size_t j;
    if (!is_erased(c, cast->result->owner.op) &&
        gilt_ptr_map_get(&c->cast_index, cast_input(cast), &j) &&
        cast_input(&c->casts.data[j])->type == cast->result->type)
      gilt_value_replace_all_uses_with(cast->result,
                                       cast_input(&c->casts.data[j]));
  }
  for (bool again = true; again;) {
    again = false;
    for (size_t i = c->casts.len; i-- > 0;)
      again |= erase_if_unused(c, c->casts.data[i].op);
  }
}

static GiltOp *clone_root(GiltOp *root)
{
  GiltIRMapping *m = gilt_ir_mapping_create(root->loc->ctx);
  GiltOp *copy = gilt_op_clone_with_mapping(root, m);
  gilt_ir_mapping_destroy(m);
  return copy;
}

static GiltWalkResult enqueue_input(GiltOp *op, void *user)
{
  Conversion *c = user;
  if (op != c->copy)
    enqueue(c, op, 0);
  return GILT_WALK_ADVANCE;
}

static void conversion_init(Conversion *c, GiltOp *root,
                            const GiltConversionTarget *target,
                            const GiltPatternSet *patterns,
                            const GiltTypeConverter *tc, bool full)
{
  memset(c, 0, sizeof *c);
  c->ctx = root->loc->ctx;
  c->target = target;
  c->tc = tc;
  c->full = full;
  c->copy = clone_root(root);
  c->rw = gilt_rewriter_create(c->ctx, &conversion_listener, c);
  c->cast_builder = gilt_builder_create(c->ctx);
  gilt_pattern_index_init(&c->index, patterns);
  gilt_ptr_map_init(&c->state, c->ctx);
  gilt_ptr_map_init(&c->cast_index, c->ctx);
  gilt_op_walk(c->copy, GILT_WALK_PRE_ORDER, enqueue_input, c);
}

static void conversion_free(Conversion *c)
{
  for (size_t i = 0; i < c->erased.len; i++)
    gilt_op_destroy(c->erased.data[i]);
  gilt_op_destroy(c->copy);
  gilt_vec_free(c->ctx, &c->erased);
  gilt_vec_free(c->ctx, &c->work);
  gilt_vec_free(c->ctx, &c->casts);
  gilt_vec_free(c->ctx, &c->operands);
  gilt_ptr_map_free(&c->state);
  gilt_ptr_map_free(&c->cast_index);
  gilt_pattern_index_free(&c->index);
  gilt_builder_destroy(c->cast_builder);
  gilt_rewriter_destroy(c->rw);
}

static GiltStatus convert(GiltOp *root, const GiltConversionTarget *target,
                          const GiltPatternSet *patterns,
                          const GiltTypeConverter *tc, bool full)
{
  Conversion c;
  conversion_init(&c, root, target, patterns, tc, full);
  for (size_t i = 0; i < c.work.len; i++)
    if (!is_erased(&c, c.work.data[i].op))
      legalize(&c, c.work.data[i]);
  GiltStatus status = c.num_errors ? GILT_FAILURE : GILT_SUCCESS;
  if (status == GILT_SUCCESS) {
    finish_casts(&c);
    for (size_t r = 0; r < root->num_regions; r++) {
      gilt_region_clear(&gilt_op_region_array(root)[r]);
      gilt_region_take_body(&gilt_op_region_array(root)[r],
                            &gilt_op_region_array(c.copy)[r]);
    }
  }
  conversion_free(&c);
  return status;
}

GiltStatus gilt_apply_partial_conversion(GiltOp *op,
                                         const GiltConversionTarget *target,
                                         const GiltPatternSet *patterns,
                                         const GiltTypeConverter *tc)
{
  return convert(op, target, patterns, tc, false);
}

GiltStatus gilt_apply_full_conversion(GiltOp *op,
                                      const GiltConversionTarget *target,
                                      const GiltPatternSet *patterns,
                                      const GiltTypeConverter *tc)
{
  return convert(op, target, patterns, tc, true);
}
