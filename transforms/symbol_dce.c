/*
** symbol_dce.c - `symbol-dce`: erase symbols nothing can reach.
**
** Requires a symbol table op to run on (builtin.module); erases symbol ops
** (functions, globals, nested modules), nothing else. MLIR's SymbolDCE: a
** liveness propagation over symbol references. Live to start with: every
** op of the table that is not a symbol, and every symbol that someone
** outside could name (public ones, and all of them in a table that is
** itself public and nested). A live op makes live every symbol its
** attributes or nested ops reference (ir/symbol_table.h walks them); a live
** nested table gets the same treatment for its own body. Whatever symbol
** is left unmarked is erased, so private functions that only call each
** other go together, in one run.
**
** References are resolved in the table holding the op that makes them, as
** MLIR's lookupSymbolIn; a reference to a missing symbol is ignored (the
** verifier reports it). Symbol tables nested inside non-table ops (a
** module inside a function body) are not looked at: nothing is known
** about who refers to them.
**
** Statistic: num-dce'd.
*/
#include "transforms/passes.h"

#include <string.h>

#include "ir/op_def.h"
#include "ir/support/ptr_map.h"
#include "ir/symbol_table.h"

typedef struct SymbolDce {
  GiltContext *ctx;
  GiltPtrMap live;   /* live symbols */
  GiltPtrMap tables; /* tables whose liveness was computed */
  GILT_VEC(GiltOp *) dead;
  int64_t num_dce;
} SymbolDce;

typedef GILT_VEC(GiltOp *) OpVec;

static bool is_symbol(GiltOp *op)
{
  return gilt_op_has_trait(op, GILT_TRAIT_SYMBOL);
}

static void mark_live(SymbolDce *s, GiltOp *op, OpVec *worklist)
{
  if (gilt_ptr_map_get(&s->live, op, NULL))
    return;
  gilt_ptr_map_put(&s->live, op, 0);
  gilt_vec_push(s->ctx, worklist, op);
}

typedef struct UseWalk {
  SymbolDce *s;
  GiltOp *op;      /* the live op whose uses these are */
  OpVec *worklist;
} UseWalk;

/* Marks the symbol a reference names, and every table on the way to it
** (`@m::@f` keeps @m too). */
static GiltWalkResult mark_referenced(GiltOp *user, GiltAttr *ref,
                                      void *data)
{
  UseWalk *w = data;
  /* A table's own body is its own scope, walked by compute_liveness. */
  if (user != w->op && gilt_op_has_trait(w->op, GILT_TRAIT_SYMBOL_TABLE))
    return GILT_WALK_INTERRUPT;
  GiltOp *table = gilt_op_get_parent_op(w->op);
  for (size_t i = 0; table && i < ref->symref.n; i++) {
    if (!gilt_op_has_trait(table, GILT_TRAIT_SYMBOL_TABLE))
      break;
    GiltOp *sym = gilt_symbol_table_lookup(table, ref->symref.names[i]->str);
    if (!sym)
      break;
    mark_live(w->s, sym, w->worklist);
    table = sym;
  }
  return GILT_WALK_ADVANCE;
}

static void compute_liveness(SymbolDce *s, GiltOp *table, bool hidden)
{
  OpVec worklist = {0};
  if (gilt_ptr_map_get(&s->tables, table, NULL))
    return;
  gilt_ptr_map_put(&s->tables, table, 0);
  for (GiltBlock *b = gilt_op_region_array(table)[0].first; b; b = b->next) {
    for (GiltOp *op = b->first; op; op = op->next) {
      if (!is_symbol(op))
        gilt_vec_push(s->ctx, &worklist, op);
      else if (!hidden &&
               gilt_symbol_get_visibility(op) != GILT_VISIBILITY_PRIVATE)
        mark_live(s, op, &worklist);
    }
  }
  while (worklist.len) {
    GiltOp *op = worklist.data[--worklist.len];
    if (gilt_op_has_trait(op, GILT_TRAIT_SYMBOL_TABLE) &&
        op->num_regions > 0) {
      bool nested_hidden =
          hidden || !is_symbol(op) ||
          gilt_symbol_get_visibility(op) == GILT_VISIBILITY_PRIVATE;
      compute_liveness(s, op, nested_hidden);
    }
    UseWalk w = {s, op, &worklist};
    gilt_symbol_walk_uses(op, mark_referenced, &w);
  }
  gilt_vec_free(s->ctx, &worklist);
}

/* Collects the dead symbols of every table whose liveness is known,
** without looking inside the dead ones. */
static GiltWalkResult collect_dead(GiltOp *op, void *user)
{
  SymbolDce *s = user;
  GiltOp *parent = gilt_op_get_parent_op(op);
  if (!parent || !is_symbol(op) ||
      !gilt_ptr_map_get(&s->tables, parent, NULL) ||
      gilt_ptr_map_get(&s->live, op, NULL))
    return GILT_WALK_ADVANCE;
  for (size_t i = 0; i < op->num_results; i++)
    if (gilt_op_result_array(op)[i].first_use)
      return GILT_WALK_ADVANCE;
  gilt_vec_push(s->ctx, &s->dead, op);
  return GILT_WALK_SKIP;
}

static GiltStatus run(GiltPass *pass, GiltOp *op)
{
  if (!gilt_op_has_trait(op, GILT_TRAIT_SYMBOL_TABLE) || !op->num_regions)
    return gilt_op_emit_error(op, "was scheduled to run under symbol-dce, "
                                  "but does not define a symbol table");
  SymbolDce s;
  memset(&s, 0, sizeof s);
  s.ctx = gilt_pass_get_context(pass);
  gilt_ptr_map_init(&s.live, s.ctx);
  gilt_ptr_map_init(&s.tables, s.ctx);
  /* A nested table that is not private can be named from outside. */
  bool hidden = gilt_op_get_parent_op(op) && is_symbol(op) &&
                gilt_symbol_get_visibility(op) == GILT_VISIBILITY_PRIVATE;
  compute_liveness(&s, op, hidden);
  gilt_op_walk(op, GILT_WALK_PRE_ORDER, collect_dead, &s);
  for (size_t i = 0; i < s.dead.len; i++)
    gilt_op_destroy(s.dead.data[i]);
  gilt_pass_add_statistic(pass, "num-dce'd", "Number of symbols erased",
                          (int64_t)s.dead.len);
  if (!s.dead.len)
    gilt_pass_mark_unchanged(pass);
  gilt_vec_free(s.ctx, &s.dead);
  gilt_ptr_map_free(&s.live);
  gilt_ptr_map_free(&s.tables);
  return GILT_SUCCESS;
}

const GiltPassDef gilt_symbol_dce_pass = {
    .name = "symbol-dce",
    .description = "Erase private symbols that nothing references",
    .anchor = NULL,
    .options = NULL,
    .run = run,
};
