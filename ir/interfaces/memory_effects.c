/*
** memory_effects.c - the memory-effects interface (gilt/interfaces.h):
** what an op reads, writes, allocates and frees, value by value, and the
** queries passes ask of it.
**
** An op's own effects come from its PURE trait (none), from the interface
** (the row's declared specs and its get_effects hook), or are unknown. The
** queries here take the op as a whole: its own effects plus, where they
** are recursive, those of everything nested in it, as MLIR's
** getEffectsRecursively. Not here: what a pass concludes from them (dead
** ops: ir/side_effects.c; CSE and LICM: transforms/), and any alias
** analysis: two effects on different values may still touch the same
** memory, so the queries never compare values.
*/
#include "ir/interfaces/memory_effects.h"

#include "ir/core.h"

const GiltInterface gilt_memory_effects_interface = {"memory-effects"};

/* ---- the collector -------------------------------------------------------- */

void gilt_effects_init(GiltEffects *e, GiltContext *ctx)
{
  e->ctx = ctx;
  e->data = e->inline_data;
  e->len = 0;
  e->cap = sizeof e->inline_data / sizeof *e->inline_data;
}

void gilt_effects_free(GiltEffects *e)
{
  if (e->data != e->inline_data)
    gilt_free(e->ctx, e->data);
  e->data = e->inline_data;
  e->len = 0;
}

void gilt_effects_add(GiltEffects *e, GiltEffectKind kind, GiltValue *value)
{
  GILT_ASSERT(kind >= GILT_EFFECT_READ && kind <= GILT_EFFECT_FREE);
  if (e->len == e->cap) {
    GiltMemoryEffect *grown =
        gilt_malloc(e->ctx, 2 * e->cap * sizeof *grown);
    for (size_t i = 0; i < e->len; i++)
      grown[i] = e->data[i];
    if (e->data != e->inline_data)
      gilt_free(e->ctx, e->data);
    e->data = grown;
    e->cap *= 2;
  }
  e->data[e->len++] = (GiltMemoryEffect){kind, value};
}

/* ---- one op ----------------------------------------------------------------- */

static void add_declared(GiltOp *op, const GiltEffectSpec *spec,
                         GiltEffects *e)
{
  /* An index past the op's operands or results names no value, so the
  ** effect falls on memory the op does not name: dropping it would let a
  ** write go unseen. */
  for (; spec && spec->kind; spec++) {
    GiltValue *v = NULL;
    if (spec->target == GILT_EFFECT_TARGET_OPERAND &&
        spec->index < op->num_operands)
      v = op->operands[spec->index].value;
    else if (spec->target == GILT_EFFECT_TARGET_RESULT &&
             spec->index < op->num_results)
      v = &gilt_op_result_array(op)[spec->index];
    gilt_effects_add(e, spec->kind, v);
  }
}

/* Appends op's own effects, not those of its nested ops, to `e`; false
** when they are unknown (op neither PURE nor implementing the interface). */
static bool collect_own_effects(GiltOp *op, GiltEffects *e)
{
  const GiltMemoryEffectsMethods *m =
      gilt_op_get_interface(op, &gilt_memory_effects_interface);
  if (!m)
    return gilt_op_has_trait(op, GILT_TRAIT_PURE);
  add_declared(op, m->effects, e);
  if (m->get_effects)
    m->get_effects(op, e);
  return true;
}

/* Whether the effects of the ops nested in op count as op's (PURE, or the
** interface's `recursive`). */
static bool has_recursive_effects(GiltOp *op)
{
  if (gilt_op_has_trait(op, GILT_TRAIT_PURE))
    return true;
  const GiltMemoryEffectsMethods *m =
      gilt_op_get_interface(op, &gilt_memory_effects_interface);
  return m && m->recursive;
}

/* Such a terminator only passes control and values to its parent or a
** sibling block; it touches no state even when its definition says
** nothing about purity (test.br, a dialect's own branch). */
static bool is_passive_terminator(GiltOp *nested)
{
  return nested->num_regions == 0 &&
         gilt_op_has_trait(nested, GILT_TRAIT_TERMINATOR);
}

/* ---- the op as a whole ------------------------------------------------------ */

static bool visit(GiltOp *op, bool nested, GiltEffectVisitor fn, void *user)
{
  GiltEffects e;
  gilt_effects_init(&e, gilt_op_get_context(op));
  bool ok = collect_own_effects(op, &e)
                ? fn(op, &e, user)
                : nested && is_passive_terminator(op);
  gilt_effects_free(&e);
  if (!ok || op->num_regions == 0 || !has_recursive_effects(op))
    return ok;
  for (size_t r = 0; r < op->num_regions; r++)
    for (GiltBlock *b = gilt_op_region_array(op)[r].first; b; b = b->next)
      for (GiltOp *o = b->first; o; o = o->next)
        if (!visit(o, true, fn, user))
          return false;
  return true;
}

bool gilt_op_visit_effects(GiltOp *op, GiltEffectVisitor fn, void *user)
{
  return visit(op, false, fn, user);
}

static bool append_effects(GiltOp *owner, const GiltEffects *own,
                           void *user)
{
  (void)owner;
  for (size_t i = 0; i < own->len; i++)
    gilt_effects_add(user, own->data[i].kind, own->data[i].value);
  return true;
}

static bool collect(GiltOp *op, GiltEffects *e)
{
  return gilt_op_visit_effects(op, append_effects, e);
}

bool gilt_op_get_memory_effects(GiltOp *op, GiltMemoryEffect *out,
                                size_t cap, size_t *num)
{
  GiltEffects e;
  gilt_effects_init(&e, gilt_op_get_context(op));
  bool known = collect(op, &e);
  *num = known ? e.len : 0;
  for (size_t i = 0; known && i < e.len && i < cap; i++)
    out[i] = e.data[i];
  gilt_effects_free(&e);
  return known;
}

/* Whether op's effects are known and none is of a kind outside `allowed`
** (a mask of 1 << kind). */
static bool only_kinds(GiltOp *op, unsigned allowed)
{
  GiltEffects e;
  gilt_effects_init(&e, gilt_op_get_context(op));
  bool ok = collect(op, &e);
  for (size_t i = 0; ok && i < e.len; i++)
    ok = (allowed >> e.data[i].kind) & 1u;
  gilt_effects_free(&e);
  return ok;
}

bool gilt_op_is_effect_free(GiltOp *op)
{
  return only_kinds(op, 0);
}

bool gilt_op_only_reads(GiltOp *op)
{
  return only_kinds(op, 1u << GILT_EFFECT_READ);
}

bool gilt_op_may_have_effect(GiltOp *op, GiltEffectKind kind)
{
  unsigned every = (1u << GILT_EFFECT_READ) | (1u << GILT_EFFECT_WRITE) |
                    (1u << GILT_EFFECT_ALLOCATE) | (1u << GILT_EFFECT_FREE);
  return !only_kinds(op, every & ~(1u << kind));
}

bool gilt_op_may_write(GiltOp *op)
{
  return !only_kinds(op, (1u << GILT_EFFECT_READ) |
                             (1u << GILT_EFFECT_ALLOCATE));
}
