/*
** elide_copies.c - `loop-elide-copies`: a buffer that a function fills
** and then copies whole into a view of another, and never uses again,
** becomes that view, and the copy goes: its producer writes the
** destination directly. graph-to-loop lowers a Concat whose slabs are
** contiguous (every dimension before the axis 1, static shapes) to
** loop.copy ops into loop.view slabs of the result's bytes, so the
** producers of SqueezeNet's, GoogLeNet's and DenseNet's concatenations
** write into the concatenation (as TVM's and ONNX Runtime's memory
** planners make a concat's inputs share its buffer).
**
** A copy `loop.copy %a, %v` of the function's top-level block goes when:
** %a is a statically shaped loop.alloc of that block; %v is a loop.view
** of a loop.alloc of the block, of %a's type; every other use of %a and
** of its views lies before the copy (counted at the top-level op that
** holds it); and nothing between %a's alloc and the copy uses %v's
** source, which the slab's bytes belong to. The view (and the alloc of
** its source, which has no operands) move up to where %a was allocated,
** %a's uses take the view, and %a's alloc and the copy are erased. The
** slab's contents were undefined before the copy, and only %a's writers
** touch them now, in the order they touched %a.
**
** Runs before loop-buffer-deallocation (no frees yet). Statistics:
** num-elided.
*/
#include "dialects/loop/transforms/passes.h"

#include "dialects/loop/loop.h"
#include "ir/core.h"

/* Whether u makes a view of its operand (one more alias of it). */
static bool is_view(GiltOperand *u)
{
  return loop_op_is_view(u->owner) && u == &u->owner->operands[0];
}

/* Whether every use of v (and of the views of it) is held by a top-level
** op before `copy` or is `copy` itself. */
static bool used_only_before(GiltBlock *block, GiltValue *v, GiltOp *copy)
{
  for (GiltOperand *u = gilt_value_get_first_use(v); u; u = u->next_use) {
    GiltOp *at = gilt_block_find_ancestor_op(block, u->owner);
    if (!at || (at != copy && !gilt_op_is_before_in_block(at, copy)))
      return false;
    if (at == copy && u->owner != copy)
      return false;
    if (is_view(u) &&
        !used_only_before(block, gilt_op_get_result(u->owner, 0), copy))
      return false;
  }
  return true;
}

static bool used_between(GiltBlock *block, GiltValue *v, GiltOp *first,
                         GiltOp *last);

/* Whether the use u is held by a top-level op in (first, last), or makes
** a view that such an op uses (making a view touches nothing). */
static bool use_between(GiltBlock *block, GiltOperand *u, GiltOp *first,
                        GiltOp *last)
{
  if (is_view(u))
    return used_between(block, gilt_op_get_result(u->owner, 0), first, last);
  GiltOp *at = gilt_block_find_ancestor_op(block, u->owner);
  return at && gilt_op_is_before_in_block(first, at) &&
         gilt_op_is_before_in_block(at, last);
}

/* Whether a top-level op in (first, last) reads or writes v, directly or
** through a view. */
static bool used_between(GiltBlock *block, GiltValue *v, GiltOp *first,
                         GiltOp *last)
{
  for (GiltOperand *u = gilt_value_get_first_use(v); u; u = u->next_use)
    if (use_between(block, u, first, last))
      return true;
  return false;
}

/* The bytes [*begin, *end) of its source a loop.view covers; false when
** its size is not known. */
static bool view_range(GiltOp *view, int64_t *begin, int64_t *end)
{
  size_t bytes;
  if (!gilt_shaped_type_get_byte_size(
          gilt_value_get_type(gilt_op_get_result(view, 0)), &bytes))
    return false;
  *begin = gilt_integer_attr_get_value(gilt_op_get_attr(view, "offset"));
  *end = *begin + (int64_t)bytes;
  return true;
}

/* Whether a top-level op in (first, last) may touch the bytes of `slab`
** (a loop.view of `bytes`): through the source itself, the slab, or
** another view of it that overlaps the slab (the other slabs of a
** concatenation do not). */
static bool slab_used_between(GiltBlock *block, GiltValue *bytes, GiltOp *slab,
                              GiltOp *first, GiltOp *last)
{
  int64_t begin, end;
  if (!view_range(slab, &begin, &end))
    return true;
  for (GiltOperand *u = gilt_value_get_first_use(bytes); u; u = u->next_use) {
    int64_t b, e;
    bool disjoint = loop_op_is(u->owner, LOOP_OP_VIEW) &&
                    view_range(u->owner, &b, &e) && (e <= begin || b >= end);
    if (!disjoint && use_between(block, u, first, last))
      return true;
  }
  return false;
}

/* The static loop.alloc of `block` that defines v, or NULL. */
static GiltOp *static_alloc(GiltBlock *block, GiltValue *v)
{
  GiltOp *def = gilt_value_get_defining_op(v);
  return def && loop_op_is(def, LOOP_OP_ALLOC) &&
                 gilt_op_get_block(def) == block &&
                 gilt_op_get_num_operands(def) == 0
             ? def
             : NULL;
}

/* Elides `copy` when it qualifies; whether it did. */
static bool elide(GiltBlock *block, GiltOp *copy)
{
  GiltValue *a = gilt_op_get_operand(copy, 0), *v = gilt_op_get_operand(copy, 1);
  GiltOp *a_alloc = static_alloc(block, a);
  GiltOp *view = gilt_value_get_defining_op(v);
  if (!a_alloc || !view || !loop_op_is(view, LOOP_OP_VIEW) ||
      gilt_op_get_block(view) != block ||
      gilt_value_get_type(v) != gilt_value_get_type(a))
    return false;
  GiltValue *bytes = gilt_op_get_operand(view, 0);
  GiltOp *bytes_alloc = static_alloc(block, bytes);
  if (!bytes_alloc || !used_only_before(block, a, copy) ||
      slab_used_between(block, bytes, view, a_alloc, copy))
    return false;
  if (!gilt_op_is_before_in_block(bytes_alloc, a_alloc))
    gilt_op_move_before(bytes_alloc, a_alloc);
  gilt_op_move_before(view, a_alloc);
  gilt_op_destroy(copy);
  gilt_value_replace_all_uses_with(a, v);
  gilt_op_destroy(a_alloc);
  return true;
}

static GiltStatus run(GiltPass *pass, GiltOp *func)
{
  GiltRegion *body = gilt_op_get_region(func, 0);
  GiltBlock *block = body ? body->first : NULL;
  int64_t elided = 0;
  for (GiltOp *op = block ? block->first : NULL; op;) {
    GiltOp *next = gilt_op_get_next(op);
    if (loop_op_is(op, LOOP_OP_COPY) && elide(block, op))
      elided++;
    op = next;
  }
  if (!elided)
    gilt_pass_mark_unchanged(pass);
  gilt_pass_add_statistic(pass, "num-elided",
                          "Number of copies whose source became a view of "
                          "their destination",
                          elided);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_loop_elide_copies_pass = {
    .name = "loop-elide-copies",
    .description = "Make a buffer that is filled, copied whole into a view "
                   "of another and then dead that view, and drop the copy",
    .anchor = "func.func",
    .options = NULL,
    .run = run,
};
