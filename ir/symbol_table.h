/*
** symbol_table.h - symbols, symbol tables and symbol references.
**
** As in MLIR: an op with a string `sym_name` attribute defines a symbol in
** the nearest enclosing op with the SYMBOL_TABLE trait (builtin.module), and
** ops refer to symbols through symbol reference attributes, `@f` or nested
** `@m::@f` (first @m in the table, then @f in @m's table). These helpers
** answer the questions passes and op verifiers ask: where is the scope,
** what does a reference name, who refers to what. Lookups scan the table's
** ops, as the builtin module holds few of them; a pass resolving many
** references should cache what it found.
**
** Not here: checking that symbol names are unique (the verifier does it),
** renaming symbols, or types that embed symbol references.
*/
#ifndef GILT_IR_SYMBOL_TABLE_H
#define GILT_IR_SYMBOL_TABLE_H

#include "ir/core.h"

typedef enum GiltSymbolVisibility {
  GILT_VISIBILITY_PUBLIC,  /* visible outside its table (the default) */
  GILT_VISIBILITY_PRIVATE, /* only its own table refers to it */
  GILT_VISIBILITY_NESTED   /* visible to enclosing tables, not outside IR */
} GiltSymbolVisibility;

/* The `sym_visibility` of a symbol op; public when the attribute is absent
** or not one of "private" and "nested" (the verifier reports those). */
GILT_INTERNAL GiltSymbolVisibility gilt_symbol_get_visibility(GiltOp *op);

/* `from` itself or its nearest ancestor with the SYMBOL_TABLE trait; NULL
** when there is none. */
GILT_INTERNAL GiltOp *gilt_symbol_table_get_nearest(GiltOp *from);

/* Resolves a symbol reference attribute in `symbol_table_op`: the root
** among its symbols, then each nested name among the symbols of the op
** found so far, which must itself be a symbol table. NULL when a part is
** missing. */
GILT_INTERNAL GiltOp *gilt_symbol_table_lookup_ref(GiltOp *symbol_table_op,
                                                   GiltAttr *ref);

/* Resolves `ref` in the nearest symbol table of `from` (MLIR's
** lookupNearestSymbolFrom); NULL when there is no table or no such
** symbol. */
GILT_INTERNAL GiltOp *gilt_symbol_lookup_nearest(GiltOp *from, GiltAttr *ref);

/* Receives one symbol use: `ref` (a GILT_ATTR_SYMBOL_REF) found in the
** attributes of `user`. Returns GILT_WALK_ADVANCE or GILT_WALK_INTERRUPT. */
typedef GiltWalkResult (*GiltSymbolUseFn)(GiltOp *user, GiltAttr *ref,
                                          void *data);

/* Calls fn for every symbol reference in the attributes of `op` and of the
** ops nested in it, in pre-order, looking through arrays and dictionaries.
** It does not descend into the regions of nested symbol tables, whose
** references name their own scope (their own attributes are visited); it
** does descend into `op` even when `op` is a symbol table, so walking a
** module yields every use in the module's scope. Returns
** GILT_WALK_INTERRUPT if fn interrupted, else GILT_WALK_ADVANCE. */
GILT_INTERNAL GiltWalkResult gilt_symbol_walk_uses(GiltOp *op,
                                                   GiltSymbolUseFn fn,
                                                   void *data);

#endif /* GILT_IR_SYMBOL_TABLE_H */
