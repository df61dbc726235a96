/*
** verifier.c - gilt_op_verify: checks that IR is well formed.
**
** One pre-order walk over an op and everything nested in it. It reports
** every problem it finds rather than stopping at the first, each with the
** op's location and MLIR's wording (`'func.return' op requires ...` where
** MLIR says emitOpError, a bare message where MLIR says emitError), so that
** lit tests read like MLIR's test/IR/invalid.mlir. Per op, in order:
**   1. its definition's declarative signature: operand, result, region and
**      successor counts (or the segment sizes of operand and result
**      groups), the types of operands and results against the table's
**      constraints, and the required attributes and their kinds;
**   2. its traits and the structure of its blocks: terminators, single
**      blocks, symbols and symbol tables, successors in the same region;
**   3. its own verify hook, only when 1 and 2 passed, so that a hook may
**      rely on the signature (operand counts, attribute kinds);
**   4. its operands: each definition must dominate the use (in regions with
**      SSA dominance) and must not come from above an isolated op;
**   5. the ops in its regions.
** Unregistered ops get only the structural checks of 2, 4 and 5.
**
** Dominance keeps a stack of frames, one per region enclosing the op being
** visited, each remembering which op of its region is being visited. A
** definition's region is found on that stack, which also says whether an
** isolated-from-above op lies between definition and use; then either both
** sit in one block (an O(1) order comparison through op->order) or the
** region's dominator tree, built on first need, answers in O(1). So a
** function of a million ops verifies in linear time.
**
** Not here: resolving symbol uses (op hooks do it through symbol_table.h),
** the relations between types beyond what the table and traits declare
** (op hooks), or the parser's checks of textual IR.
*/
#include "ir/core.h"

#include <string.h>

#include "ir/context.h"
#include "ir/dominance.h"
#include "ir/signature.h"

typedef struct Frame {
  GiltRegion *region;
  GiltOp *cur;      /* the op of this region being visited */
  bool reachable;   /* cur's block is reachable from the region's entry */
  bool ssa;         /* the region's op has SSA dominance (no GRAPH_REGION) */
  bool isolated;    /* the region's op is ISOLATED_FROM_ABOVE */
  GiltDomTree *dom; /* built on first need */
} Frame;

typedef struct Verifier {
  GiltContext *ctx;
  GILT_VEC(Frame) frames;
  GiltIdent *sym_name, *sym_visibility;
  bool failed;
} Verifier;

static unsigned traits_of(const GiltOp *op)
{
  return op->info->def ? op->info->def->traits : 0;
}

static const char *plural(size_t n)
{
  return n == 1 ? "" : "s";
}

/* ---- 1. the declarative signature --------------------------------------- */

/* Checks `found` against [min, max]; max SIZE_MAX means unbounded. */
static bool check_count(GiltOp *op, const char *what, size_t found, size_t min,
                        size_t max)
{
  if (found >= min && found <= max)
    return true;
  if (min == max)
    gilt_op_emit_error(op, "requires %zu %s%s, but found %zu", min, what,
                       plural(min), found);
  else if (found < min)
    gilt_op_emit_error(op, "requires at least %zu %s%s, but found %zu", min,
                       what, plural(min), found);
  else
    gilt_op_emit_error(op, "requires at most %zu %s%s, but found %zu", max,
                       what, plural(max), found);
  return false;
}

static bool check_arg_count(GiltOp *op, const char *what,
                            const GiltOpArgSpec *specs, size_t num_specs,
                            size_t found)
{
  size_t min = 0, max = 0;
  for (size_t i = 0; i < num_specs; i++) {
    if (specs[i].variadic)
      max = SIZE_MAX;
    else if (max != SIZE_MAX)
      max++;
    if (!specs[i].variadic && !specs[i].optional)
      min++;
  }
  return check_count(op, what, found, min, max);
}

static bool satisfies(const GiltAttr *a, GiltAttrConstraint c)
{
  switch (c) {
  case GILT_ATTR_ANY_KIND:
    return true;
  case GILT_ATTR_IS_INTEGER:
    return a->kind == GILT_ATTR_INTEGER;
  case GILT_ATTR_IS_FLOAT:
    return a->kind == GILT_ATTR_FLOAT;
  case GILT_ATTR_IS_BOOL:
    return a->kind == GILT_ATTR_BOOL;
  case GILT_ATTR_IS_STRING:
    return a->kind == GILT_ATTR_STRING;
  case GILT_ATTR_IS_ARRAY:
    return a->kind == GILT_ATTR_ARRAY;
  case GILT_ATTR_IS_DICTIONARY:
    return a->kind == GILT_ATTR_DICTIONARY;
  case GILT_ATTR_IS_TYPE:
    return a->kind == GILT_ATTR_TYPE;
  case GILT_ATTR_IS_SYMBOL:
    return a->kind == GILT_ATTR_SYMBOL_REF;
  case GILT_ATTR_IS_UNIT:
    return a->kind == GILT_ATTR_UNIT;
  case GILT_ATTR_IS_ELEMENTS:
    return a->kind == GILT_ATTR_DENSE_ELEMENTS ||
           a->kind == GILT_ATTR_DENSE_RESOURCE;
  }
  return false;
}

/* How MLIR's attribute constraints describe themselves in errors. */
static const char *const constraint_desc[] = {
    [GILT_ATTR_ANY_KIND] = "any attribute",
    [GILT_ATTR_IS_INTEGER] = "integer attribute",
    [GILT_ATTR_IS_FLOAT] = "float attribute",
    [GILT_ATTR_IS_BOOL] = "bool attribute",
    [GILT_ATTR_IS_STRING] = "string attribute",
    [GILT_ATTR_IS_ARRAY] = "array attribute",
    [GILT_ATTR_IS_DICTIONARY] = "dictionary of named attribute values",
    [GILT_ATTR_IS_TYPE] = "any type attribute",
    [GILT_ATTR_IS_SYMBOL] = "symbol reference attribute",
    [GILT_ATTR_IS_UNIT] = "unit attribute",
    [GILT_ATTR_IS_ELEMENTS] = "constant vector/tensor attribute",
};

static bool check_attr(GiltOp *op, const GiltOpAttrSpec *spec)
{
  GiltAttr *a = gilt_dictionary_attr_lookup_ident(op->attrs, spec->name);
  if (!a) {
    if (spec->optional)
      return true;
    gilt_op_emit_error(op, "requires attribute '%s'", spec->name->str);
    return false;
  }
  if (satisfies(a, spec->constraint))
    return true;
  gilt_op_emit_error(op, "attribute '%s' failed to satisfy constraint: %s",
                     spec->name->str, constraint_desc[spec->constraint]);
  return false;
}

/* A count fixed by the definition; -1 there means any. */
static bool check_fixed_count(GiltOp *op, const char *what, size_t found,
                              int expected)
{
  return expected < 0 ||
         check_count(op, what, found, (size_t)expected, (size_t)expected);
}

/* Operands or results: their count, or the segment attribute that sizes
** their groups, then their types. */
static bool check_arg_list(GiltOp *op, GiltArgKind kind, unsigned sized)
{
  const GiltOpInfo *info = op->info;
  bool ok;
  if (info->def->traits & sized)
    ok = gilt_op_verify_segments(op, kind);
  else if (kind == GILT_ARG_OPERAND)
    ok = check_arg_count(op, "operand", info->operand_specs,
                         info->num_operand_specs, op->num_operands);
  else
    ok = check_arg_count(op, "result", info->result_specs,
                         info->num_result_specs, op->num_results);
  return ok && gilt_op_verify_arg_types(op, kind);
}

static bool check_signature(GiltOp *op)
{
  const GiltOpInfo *info = op->info;
  bool ok =
      check_arg_list(op, GILT_ARG_OPERAND, GILT_TRAIT_ATTR_SIZED_OPERANDS);
  ok &= check_arg_list(op, GILT_ARG_RESULT, GILT_TRAIT_ATTR_SIZED_RESULTS);
  for (size_t i = 0; i < info->num_attr_specs; i++)
    ok &= check_attr(op, &info->attr_specs[i]);
  ok &=
      check_fixed_count(op, "region", op->num_regions, info->def->num_regions);
  ok &= check_fixed_count(op, "successor", op->num_successors,
                          info->def->num_successors);
  return ok;
}

/* ---- 2a. same type / same shape / same element type --------------------- */

/* Operand types, then result types. */
static GiltType *type_at(const GiltOp *op, size_t i)
{
  return i < op->num_operands
             ? op->operands[i].value->type
             : gilt_op_result_array(op)[i - op->num_operands].type;
}

/* MLIR's verifyCompatibleShapes over all operands and results: all shaped
** or none; ranked ones agree on the rank, and in each dimension all static
** sizes agree (`?` and unranked are compatible with anything). */
static bool shapes_compatible(const GiltOp *op)
{
  size_t n = op->num_operands + op->num_results, shaped = 0;
  GiltType *ranked = NULL;
  for (size_t i = 0; i < n; i++) {
    GiltType *t = type_at(op, i);
    if (!gilt_type_is_shaped(t))
      continue;
    shaped++;
    if (!t->shaped.ranked)
      continue;
    if (ranked && t->shaped.rank != ranked->shaped.rank)
      return false;
    ranked = t;
  }
  if (shaped != 0 && shaped != n)
    return false;
  for (size_t d = 0; ranked && d < ranked->shaped.rank; d++) {
    int64_t size = GILT_DYNAMIC;
    for (size_t i = 0; i < n; i++) {
      GiltType *t = type_at(op, i);
      int64_t s = t->shaped.ranked ? t->shaped.shape[d] : GILT_DYNAMIC;
      if (s != GILT_DYNAMIC && size != GILT_DYNAMIC && s != size)
        return false;
      if (s != GILT_DYNAMIC)
        size = s;
    }
  }
  return true;
}

/* Equal except perhaps in the shape: same kind, element type, encoding,
** layout and memory space. */
static bool same_but_shape(GiltType *a, GiltType *b)
{
  if (a == b)
    return true;
  if (a->kind != b->kind || !gilt_type_is_shaped(a))
    return false;
  return a->shaped.elem == b->shaped.elem &&
         a->shaped.encoding == b->shaped.encoding &&
         a->shaped.layout == b->shaped.layout &&
         a->shaped.memory_space == b->shaped.memory_space;
}

static bool check_same_types(GiltOp *op, unsigned traits)
{
  size_t n = op->num_operands + op->num_results;
  if (n == 0)
    return true;
  if (traits & GILT_TRAIT_SAME_TYPE) {
    bool same = shapes_compatible(op);
    for (size_t i = 1; same && i < n; i++)
      same = same_but_shape(type_at(op, 0), type_at(op, i));
    if (!same)
      gilt_op_emit_error(op,
                         "requires the same type for all operands and results");
    return same;
  }
  if (shapes_compatible(op))
    return true;
  gilt_op_emit_error(op,
                     "requires the same shape for all operands and results");
  return false;
}

/* MLIR's SameOperandsAndResultElementType: a shaped type's element type,
** or a scalar type itself, is one for all operands and results. */
static bool check_same_element_type(GiltOp *op)
{
  size_t n = op->num_operands + op->num_results;
  GiltType *first = NULL;
  for (size_t i = 0; i < n; i++) {
    GiltType *t = type_at(op, i);
    GiltType *elem = gilt_type_is_shaped(t) ? t->shaped.elem : t;
    if (!first)
      first = elem;
    else if (elem != first) {
      gilt_op_emit_error(
          op, "requires the same element type for all operands and results");
      return false;
    }
  }
  return true;
}

/* ---- 2b. symbols and symbol tables -------------------------------------- */

static bool declares_attr(const GiltOpInfo *info, const GiltIdent *name)
{
  for (size_t i = 0; i < info->num_attr_specs; i++)
    if (info->attr_specs[i].name == name)
      return true;
  return false;
}

static bool is_visibility(const char *s)
{
  return strcmp(s, "public") == 0 || strcmp(s, "private") == 0 ||
         strcmp(s, "nested") == 0;
}

/* A symbol needs a string `sym_name` and may have a `sym_visibility`.
** Attributes the op's signature declares were checked with it already. */
static bool check_symbol(Verifier *v, GiltOp *op)
{
  GiltOpAttrSpec name = {v->sym_name, GILT_ATTR_IS_STRING, false};
  GiltOpAttrSpec vis = {v->sym_visibility, GILT_ATTR_IS_STRING, true};
  bool ok = declares_attr(op->info, name.name) || check_attr(op, &name);
  ok &= declares_attr(op->info, vis.name) || check_attr(op, &vis);
  GiltAttr *a = gilt_dictionary_attr_lookup_ident(op->attrs, vis.name);
  if (a && a->kind == GILT_ATTR_STRING && !is_visibility(a->str.data)) {
    gilt_op_emit_error(op,
                       "visibility expected to be one of [\"public\", "
                       "\"private\", \"nested\"], but got \"%s\"",
                       a->str.data);
    ok = false;
  }
  return ok;
}

typedef struct SymbolEntry {
  GiltAttr *name;
  GiltOp *op;
} SymbolEntry;

static bool symbol_entry_eq(const void *key, const void *elem)
{
  const GiltAttr *a = key, *b = ((const SymbolEntry *)elem)->name;
  return a->str.len == b->str.len &&
         memcmp(a->str.data, b->str.data, a->str.len) == 0;
}

/* Every op of the block with a string `sym_name` (symbol op or not, as in
** MLIR) must have a name of its own. */
static bool check_unique_symbols(Verifier *v, GiltBlock *block)
{
  size_t n = 0;
  for (GiltOp *op = block->first; op; op = op->next)
    n++;
  SymbolEntry *entries = gilt_malloc(v->ctx, (n ? n : 1) * sizeof *entries);
  GiltHashSet seen = {0};
  bool ok = true;
  n = 0;
  for (GiltOp *op = block->first; op; op = op->next) {
    GiltAttr *name = gilt_dictionary_attr_lookup_ident(op->attrs, v->sym_name);
    if (!name || name->kind != GILT_ATTR_STRING)
      continue;
    uint32_t h = gilt_hash_bytes(GILT_HASH_SEED, name->str.data, name->str.len);
    SymbolEntry *first = gilt_hashset_find(&seen, h, name, symbol_entry_eq);
    if (!first) {
      entries[n] = (SymbolEntry){name, op};
      gilt_hashset_insert(v->ctx, &seen, h, &entries[n++]);
      continue;
    }
    GiltDiagnostic *d =
        gilt_diag_create(v->ctx, GILT_SEVERITY_ERROR, op->loc,
                         "redefinition of symbol named '%s'", name->str.data);
    gilt_diag_add_note(d, first->op->loc,
                       "see existing symbol definition here");
    gilt_diag_emit(d);
    ok = false;
  }
  gilt_hashset_free(v->ctx, &seen);
  gilt_free(v->ctx, entries);
  return ok;
}

static bool check_symbol_table(Verifier *v, GiltOp *op)
{
  if (op->num_regions != 1) {
    gilt_op_emit_error(
        op, "Operations with a 'SymbolTable' must have exactly one region");
    return false;
  }
  GiltRegion *r = &gilt_op_region_array(op)[0];
  if (!r->first || r->first != r->last) {
    gilt_op_emit_error(
        op, "Operations with a 'SymbolTable' must have exactly one block");
    return false;
  }
  return check_unique_symbols(v, r->first);
}

/* ---- 2c. traits and block structure ------------------------------------- */

static bool check_traits(Verifier *v, GiltOp *op, unsigned traits)
{
  bool ok = true;
  if ((traits & GILT_TRAIT_TERMINATOR) && op->block && op != op->block->last) {
    gilt_op_emit_error(op, "must be the last operation in the parent block");
    ok = false;
  }
  if (traits & (GILT_TRAIT_SAME_TYPE | GILT_TRAIT_SAME_SHAPE))
    ok &= check_same_types(op, traits);
  if (traits & GILT_TRAIT_SAME_ELEMENT_TYPE)
    ok &= check_same_element_type(op);
  if (traits & GILT_TRAIT_SYMBOL)
    ok &= check_symbol(v, op);
  if (traits & GILT_TRAIT_SYMBOL_TABLE)
    ok &= check_symbol_table(v, op);
  return ok;
}

/* MLIR's mayBeValidWithoutTerminator: the region has a single block and
** its op has NO_TERMINATOR or, being unregistered, might have it. */
static bool may_lack_terminator(const GiltOp *op, const GiltRegion *r)
{
  return r->first == r->last &&
         (!op->info->def || (traits_of(op) & GILT_TRAIT_NO_TERMINATOR));
}

/* An unregistered op at the end of a block might be a terminator. */
static bool check_block_end(GiltOp *op, GiltRegion *r, GiltBlock *b)
{
  if (may_lack_terminator(op, r))
    return true;
  if (!b->last) {
    gilt_emit_error(op->loc, "empty block: expect at least a terminator");
    return false;
  }
  if (!b->last->info->def || (traits_of(b->last) & GILT_TRAIT_TERMINATOR))
    return true;
  gilt_emit_error(b->last->loc, "block with no terminator, has '%s' operation",
                  b->last->info->name->str);
  return false;
}

static bool check_region(GiltOp *op, uint32_t i)
{
  GiltRegion *r = &gilt_op_region_array(op)[i];
  unsigned traits = traits_of(op);
  bool ok = true;
  if (r->first != r->last && (traits & GILT_TRAIT_SINGLE_BLOCK)) {
    gilt_op_emit_error(op, "expects region #%u to have 0 or 1 blocks", i);
    ok = false;
  } else if (r->first != r->last && (traits & GILT_TRAIT_GRAPH_REGION)) {
    gilt_op_emit_error(op, "expects graph region #%u to have 0 or 1 blocks", i);
    ok = false;
  }
  if (r->first && r->first->first_use) {
    gilt_emit_error(op->loc, "entry block of region may not have predecessors");
    ok = false;
  }
  for (GiltBlock *b = r->first; b; b = b->next)
    ok &= check_block_end(op, r, b);
  return ok;
}

/* Successors must be blocks of the op's own region and, on a registered
** op, only the last op of a block may have them. Unregistered ops may
** carry successors anywhere: their meaning is unknown. */
static bool check_successors(GiltOp *op)
{
  bool ok = true;
  if (op->num_successors && op->info->def && op->block &&
      op != op->block->last) {
    gilt_emit_error(
        op->loc,
        "operation with block successors must terminate its parent block");
    ok = false;
  }
  GiltRegion *home = op->block ? op->block->region : NULL;
  for (uint32_t i = 0; i < op->num_successors; i++) {
    GiltBlock *succ = gilt_op_successor_array(op)[i].block;
    if (succ && succ->region == home)
      continue;
    gilt_op_emit_error(op, "reference to block defined in another region");
    ok = false;
  }
  return ok;
}

static bool check_structure(GiltOp *op)
{
  bool ok = check_successors(op);
  for (uint32_t i = 0; i < op->num_regions; i++)
    ok &= check_region(op, i);
  return ok;
}

static bool check_operands_present(GiltOp *op)
{
  for (uint32_t i = 0; i < op->num_operands; i++) {
    if (!op->operands[i].value) {
      gilt_emit_error(op->loc, "null operand found");
      return false;
    }
  }
  return true;
}

/* ---- 4. dominance and isolation ----------------------------------------- */

static GiltDomTree *frame_dom(Frame *f)
{
  if (!f->dom)
    f->dom = gilt_dom_tree_create(f->region);
  return f->dom;
}

/* The frame of `region` (-1 if it encloses no op being visited) and, in
** *crossed, the innermost isolated op between it and the top of the stack
** (or on the whole stack when the region is not there). */
static ptrdiff_t find_frame(Verifier *v, const GiltRegion *region,
                            GiltOp **crossed)
{
  *crossed = NULL;
  for (size_t k = v->frames.len; k-- > 0;) {
    Frame *f = &v->frames.data[k];
    if (f->region == region)
      return (ptrdiff_t)k;
    if (f->isolated && !*crossed)
      *crossed = f->region->op;
  }
  return -1;
}

/* Whether `val` is defined in a block nested somewhere inside `op`. */
static bool defined_inside(GiltValue *val, GiltOp *op)
{
  GiltBlock *b = gilt_value_get_parent_block(val);
  GiltOp *parent = b && b->region ? b->region->op : NULL;
  return parent && gilt_op_is_ancestor(op, parent);
}

/* Whether `val`, defined in frame f's region, dominates f->cur there. */
static bool dominates_use(Frame *f, GiltValue *val)
{
  if (!f->ssa)
    return true;
  GiltOp *use = f->cur;
  if (!val->is_block_arg) {
    GiltOp *def = val->owner.op;
    if (def->block == use->block)
      return def != use && gilt_op_is_before_in_block(def, use);
    return gilt_dom_tree_dominates(frame_dom(f), def->block, use->block);
  }
  return val->owner.block == use->block ||
         gilt_dom_tree_dominates(frame_dom(f), val->owner.block, use->block);
}

static bool region_is_proper_ancestor(const GiltRegion *a, const GiltRegion *b)
{
  while (b && b->op && b->op->block) {
    b = b->op->block->region;
    if (b == a)
      return true;
  }
  return false;
}

enum { SAME_BLOCK, SAME_REGION, PARENT_REGION, CHILD_REGION, UNRELATED };

/* Where a definition in `def` sits, seen from a use in `use`. */
static int relation(const GiltBlock *use, const GiltBlock *def)
{
  if (use == def)
    return SAME_BLOCK;
  const GiltRegion *ru = use->region, *rd = def ? def->region : NULL;
  if (ru == rd)
    return SAME_REGION;
  if (rd && region_is_proper_ancestor(rd, ru))
    return PARENT_REGION;
  if (rd && region_is_proper_ancestor(ru, rd))
    return CHILD_REGION;
  return UNRELATED;
}

/* MLIR's notes, for a defining op and for a block argument (whose own
** block never needs one: an argument dominates all of its block). */
static const char *const op_relation[] = {
    "op in the same block", "op in the same region", "op in a parent region",
    "op in a child region", "op is neither in a parent nor in a child region"};
static const char *const arg_relation[] = {
    "in the same block", "in the same region", "in a parent region",
    "in a child region", "neither in a parent nor in a child region"};

static size_t block_index(const GiltBlock *b)
{
  size_t i = 0;
  for (const GiltBlock *p = b->region->first; p != b; p = p->next)
    i++;
  return i;
}

static void report_dominance(Verifier *v, GiltOp *user, uint32_t i)
{
  GiltValue *val = user->operands[i].value;
  GiltDiagnostic *d =
      gilt_diag_create(v->ctx, GILT_SEVERITY_ERROR, user->loc,
                       "operand #%u does not dominate this use", i);
  GiltBlock *def = gilt_value_get_parent_block(val);
  if (!val->is_block_arg) {
    gilt_diag_add_note(d, val->owner.op->loc, "operand defined here (%s)",
                       op_relation[relation(user->block, def)]);
  } else if (!def->region) {
    gilt_diag_add_note(d, NULL,
                       "operand defined as a block argument "
                       "(block without parent)");
  } else {
    GiltOp *owner = def->region->op;
    gilt_diag_add_note(d, owner ? owner->loc : NULL,
                       "operand defined as a block argument (block #%zu %s)",
                       block_index(def),
                       arg_relation[relation(user->block, def)]);
  }
  gilt_diag_emit(d);
}

/* In gilt_op_emit_error's form, which cannot take a note. */
static void report_isolation(Verifier *v, GiltOp *user, GiltOp *isolated)
{
  GiltDiagnostic *d = gilt_diag_create(
      v->ctx, GILT_SEVERITY_ERROR, user->loc,
      "'%s' op using value defined outside the region", user->info->name->str);
  gilt_diag_add_note(d, isolated->loc,
                     "required by region isolation constraints");
  gilt_diag_emit(d);
}

/* Checks operand i of the op on top of the frame stack. Uses in unreachable
** blocks are not checked for dominance (as in MLIR); isolation still holds
** there, and is reported once per op as its message names no operand. */
static bool check_operand(Verifier *v, GiltOp *op, uint32_t i, bool check_dom,
                          bool *isolation_reported)
{
  GiltValue *val = op->operands[i].value;
  GiltBlock *def = gilt_value_get_parent_block(val);
  GiltOp *isolated;
  ptrdiff_t k = find_frame(v, def ? def->region : NULL, &isolated);
  if (isolated && (k >= 0 || !defined_inside(val, isolated))) {
    if (!*isolation_reported)
      report_isolation(v, op, isolated);
    *isolation_reported = true;
    return false;
  }
  if (!check_dom || (k >= 0 && dominates_use(&v->frames.data[k], val)))
    return true;
  report_dominance(v, op, i);
  return false;
}

/* A detached op's operands come from nowhere we can judge; MLIR does not
** check the verified op's own operands either unless it sits in IR. */
static bool check_operands(Verifier *v, GiltOp *op)
{
  if (!op->block || !v->frames.len)
    return true;
  bool check_dom = v->frames.data[v->frames.len - 1].reachable;
  bool ok = true, isolation_reported = false;
  for (uint32_t i = 0; i < op->num_operands; i++)
    ok &= check_operand(v, op, i, check_dom, &isolation_reported);
  return ok;
}

/* ---- the walk ----------------------------------------------------------- */

static Frame frame_make(GiltRegion *region)
{
  unsigned traits = region->op ? traits_of(region->op) : 0;
  Frame f = {region,
             NULL,
             true,
             !(traits & GILT_TRAIT_GRAPH_REGION),
             (traits & GILT_TRAIT_ISOLATED_FROM_ABOVE) != 0,
             NULL};
  return f;
}

/* Makes `op`, a block of f's region, the current op of frame f. */
static void frame_visit(Frame *f, GiltOp *op)
{
  if (!f->cur || f->cur->block != op->block)
    f->reachable = !f->ssa || f->region->first == f->region->last ||
                   gilt_dom_tree_is_reachable(frame_dom(f), op->block);
  f->cur = op;
}

static void verify_op(Verifier *v, GiltOp *op);

static void verify_regions(Verifier *v, GiltOp *op)
{
  for (uint32_t i = 0; i < op->num_regions; i++) {
    gilt_vec_push(v->ctx, &v->frames, frame_make(&gilt_op_region_array(op)[i]));
    size_t top = v->frames.len - 1;
    for (GiltBlock *b = gilt_op_region_array(op)[i].first; b; b = b->next) {
      for (GiltOp *o = b->first; o; o = o->next) {
        /* Index, not pointer: verifying o may grow the stack. */
        frame_visit(&v->frames.data[top], o);
        verify_op(v, o);
      }
    }
    if (v->frames.data[top].dom)
      gilt_dom_tree_destroy(v->frames.data[top].dom);
    v->frames.len--;
  }
}

/* Steps 1 to 4 for one op; false if it reported anything. */
/* A tensor encoding a dialect checks against its tensor (#graph.layout)
** is checked when the text is parsed; types built through the API are
** checked here, on the values that carry them. */
static bool check_encoding(GiltLocation *loc, GiltType *t)
{
  return t->kind != GILT_TYPE_TENSOR || !t->shaped.encoding ||
         gilt_tensor_encoding_verify(loc, t->shaped.encoding, t->shaped.rank,
                                     t->shaped.shape,
                                     t->shaped.elem) == GILT_SUCCESS;
}

static bool check_value_encodings(GiltOp *op)
{
  bool ok = true;
  for (size_t i = 0; i < op->num_results; i++)
    ok &= check_encoding(op->loc, gilt_op_result_array(op)[i].type);
  for (size_t r = 0; r < op->num_regions; r++)
    for (GiltBlock *b = gilt_op_region_array(op)[r].first; b; b = b->next)
      for (size_t i = 0; i < b->num_args; i++)
        ok &= check_encoding(op->loc, b->args[i]->type);
  return ok;
}

static bool check_op(Verifier *v, GiltOp *op)
{
  const GiltOpDef *def = op->info->def;
  if (!check_operands_present(op))
    return false;
  bool ok = !def || check_signature(op);
  ok &= check_structure(op);
  ok &= check_value_encodings(op);
  if (def)
    ok &= check_traits(v, op, def->traits);
  if (ok && def && def->verify)
    ok = def->verify(op) == GILT_SUCCESS;
  ok &= check_operands(v, op);
  return ok;
}

static void verify_op(Verifier *v, GiltOp *op)
{
  if (!check_op(v, op))
    v->failed = true;
  verify_regions(v, op);
}

/* Frames for the regions around `root`, outermost first, so that values it
** uses from there (verifying a function inside a module) are judged. */
static void push_enclosing_frames(Verifier *v, GiltOp *root)
{
  size_t n = 0;
  for (GiltOp *op = root; op && op->block && op->block->region;
       op = op->block->region->op)
    n++;
  gilt_vec_reserve(v->ctx, &v->frames, n);
  v->frames.len = n;
  GiltOp *op = root;
  for (size_t k = n; k-- > 0; op = op->block->region->op) {
    v->frames.data[k] = frame_make(op->block->region);
    frame_visit(&v->frames.data[k], op);
  }
}

GiltStatus gilt_op_verify(GiltOp *op)
{
  GiltContext *ctx = op->loc->ctx;
  Verifier v = {ctx,
                {0},
                gilt_ident_get_cstr(ctx, "sym_name"),
                gilt_ident_get_cstr(ctx, "sym_visibility"),
                false};
  push_enclosing_frames(&v, op);
  verify_op(&v, op);
  for (size_t k = 0; k < v.frames.len; k++)
    if (v.frames.data[k].dom)
      gilt_dom_tree_destroy(v.frames.data[k].dom);
  gilt_vec_free(ctx, &v.frames);
  return v.failed ? GILT_FAILURE : GILT_SUCCESS;
}
