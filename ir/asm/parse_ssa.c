/*
** parse_ssa.c - the parser's SSA and block name tables and region scopes.
**
** As in MLIR, a name is visible from its definition to the end of the
** region that defines it, in nested regions included (the parser does not
** look at isolation; the verifier does), and a region may not redefine a
** name visible from outside it. A use before the definition creates a
** placeholder value (the argument of a detached block) that the definition
** replaces; one still unresolved when the file ends is an error. Unlike
** MLIR, a definition only resolves uses in its own region or regions nested
** in it: a use from anywhere else could never be valid, and refusing it
** keeps every use of a value inside the IR that dies with it when a parse
** fails halfway.
**
** Names are keyed with their result number (`%x#1`) or, for blocks, the
** serial of their region, so each table is one hash map for the whole file
** (with a faster path for the printer's numeric names, see ssa_index).
*/
#include "ir/asm/parser.h"

static GiltRegionScope *scope(GiltAsmParser *p)
{
  return &p->scopes.data[p->scopes.len - 1];
}

void gilt_parser_push_scope(GiltAsmParser *p, GiltRegion *region)
{
  GiltRegionScope s = {++p->next_serial, region, p->scope_defs.len,
                       p->fwd_blocks.len};
  gilt_vec_push(p->ctx, &p->scopes, s);
}

GiltStatus gilt_parser_pop_scope(GiltAsmParser *p)
{
  GiltRegionScope *s = scope(p);
  for (size_t i = s->blocks_mark; i < p->fwd_blocks.len; i++) {
    GiltBlockEntry *e = &p->block_entries.data[p->fwd_blocks.data[i]];
    if (!e->defined)
      return gilt_parser_error_at(p, e->pos,
                                  "reference to an undefined block");
  }
  for (size_t i = s->defs_mark; i < p->scope_defs.len; i++)
    p->ssa_entries.data[p->scope_defs.data[i]].value = NULL;
  p->scope_defs.len = s->defs_mark;
  p->fwd_blocks.len = s->blocks_mark;
  p->scopes.len--;
  return GILT_SUCCESS;
}

/* Whether `name` is a decimal number without leading zeros, as the
** printer's names %0, %1, ... are, of at most nine digits (so that it
** fits in 32 bits). */
static bool decimal_name(const char *name, size_t len, uint32_t *n)
{
  if (len == 0 || len > 9 || (name[0] == '0' && len > 1))
    return false;
  uint32_t v = 0;
  for (size_t i = 0; i < len; i++) {
    if (name[i] < '0' || name[i] > '9')
      return false;
    v = v * 10 + (uint32_t)(name[i] - '0');
  }
  *n = v;
  return true;
}

static uint32_t new_entry(GiltAsmParser *p)
{
  GiltSSAEntry e = {NULL, {0, 0}, 0, -1};
  gilt_vec_push(p->ctx, &p->ssa_entries, e);
  return (uint32_t)(p->ssa_entries.len - 1);
}

/* The index in ssa_entries of (name, result number), adding a fresh entry
** when `add` and it is absent; GILT_NAME_MAP_NONE when absent otherwise.
** Printed IR names every value %N, so those names (with result number 0)
** index a paged array directly instead of being hashed: a large function's
** names then cost no hashing and are looked up in nearly sequential
** memory. Every other name goes through the hash map, numbers as large as
** the source included: the printer's never are (each value takes a few
** bytes), and a page for each of `%256, %512, ...` would cost 2 KB for
** every 6 bytes of input. */
static uint32_t ssa_index(GiltAsmParser *p, const char *name, size_t len,
                          uint32_t number, bool add)
{
  uint32_t n, k;
  if (number == 0 && decimal_name(name, len, &n) &&
      n < (size_t)(p->lex.end - p->lex.buf)) {
    if (!add) {
      uintptr_t v = gilt_paged_array_get(&p->numbered_ssa, n);
      return v ? (uint32_t)(v - 1) : GILT_NAME_MAP_NONE;
    }
    uintptr_t *slot = gilt_paged_array_slot(&p->numbered_ssa, n);
    if (!*slot)
      *slot = (uintptr_t)new_entry(p) + 1;
    return (uint32_t)(*slot - 1);
  }
  if (!add) {
    k = gilt_name_map_find(&p->ssa, name, len, number);
    return k == GILT_NAME_MAP_NONE ? k : p->named_ssa.data[k];
  }
  bool added;
  k = gilt_name_map_insert(&p->ssa, name, len, number, &added);
  if (added)
    gilt_vec_push(p->ctx, &p->named_ssa, new_entry(p));
  return p->named_ssa.data[k];
}

static GiltSSAEntry *ssa_entry(GiltAsmParser *p,
                               const GiltUnresolvedOperand *u)
{
  /* The call may grow ssa_entries: index it only afterwards. */
  uint32_t i = ssa_index(p, u->name, u->len, u->number, true);
  return &p->ssa_entries.data[i];
}

static GiltStatus type_error(GiltAsmParser *p, GiltSrcPos pos,
                             GiltSrcPos prior, const char *what,
                             const GiltUnresolvedOperand *u, GiltType *t,
                             GiltType *prior_type)
{
  GiltStrBuf a, b;
  gilt_strbuf_init(&a, p->ctx);
  gilt_strbuf_init(&b, p->ctx);
  GiltDiagnostic *d;
  if (what) /* a definition */
    d = gilt_parser_diag(p, pos, "definition of SSA value '%%%.*s#%u' has "
                                 "type '%s'", (int)u->len, u->name,
                         u->number, gilt_parser_type_str(&a, t));
  else
    d = gilt_parser_diag(p, pos, "use of value '%%%.*s' expects different "
                                 "type than prior uses: '%s' vs '%s'",
                         (int)u->len, u->name, gilt_parser_type_str(&a, t),
                         gilt_parser_type_str(&b, prior_type));
  if (d) {
    if (what)
      gilt_diag_add_note(d, gilt_parser_loc(p, prior),
                         "previously used here with type '%s'",
                         gilt_parser_type_str(&b, prior_type));
    else
      gilt_diag_add_note(d, gilt_parser_loc(p, prior), "prior use here");
    gilt_diag_emit(d);
  }
  gilt_strbuf_free(&a);
  gilt_strbuf_free(&b);
  return GILT_FAILURE;
}

/* Replaces a forward reference with its definition `v`. */
static GiltStatus resolve_placeholder(GiltAsmParser *p, GiltSSAEntry *e,
                                      const GiltUnresolvedOperand *u,
                                      GiltSrcPos pos, GiltValue *v)
{
  if (e->scope < scope(p)->serial) {
    GiltDiagnostic *d = gilt_parser_diag(
        p, e->pos, "use of undeclared SSA value name '%%%.*s'", (int)u->len,
        u->name);
    if (d) {
      gilt_diag_add_note(d, gilt_parser_loc(p, pos),
                         "'%%%.*s' is defined here, in a region that does "
                         "not enclose the use", (int)u->len, u->name);
      gilt_diag_emit(d);
    }
    return GILT_FAILURE;
  }
  if (gilt_value_get_type(e->value) != gilt_value_get_type(v))
    return type_error(p, pos, e->pos, "def", u, gilt_value_get_type(v),
                      gilt_value_get_type(e->value));
  GiltPlaceholder *ph = &p->placeholders.data[e->placeholder];
  gilt_value_replace_all_uses_with(e->value, v);
  gilt_block_destroy(ph->holder);
  ph->holder = NULL;
  return GILT_SUCCESS;
}

GiltStatus gilt_parser_define_value(GiltAsmParser *p,
                                    const GiltUnresolvedOperand *u,
                                    GiltSrcPos pos, GiltValue *v)
{
  GiltSSAEntry *e = ssa_entry(p, u);
  if (e->value && e->placeholder < 0) {
    GiltDiagnostic *d = gilt_parser_diag(
        p, pos, "redefinition of SSA value '%%%.*s'", (int)u->len, u->name);
    if (d) {
      gilt_diag_add_note(d, gilt_parser_loc(p, e->pos),
                         "previously defined here");
      gilt_diag_emit(d);
    }
    return GILT_FAILURE;
  }
  if (e->value && resolve_placeholder(p, e, u, pos, v))
    return GILT_FAILURE;
  *e = (GiltSSAEntry){v, pos, scope(p)->serial, -1};
  gilt_vec_push(p->ctx, &p->scope_defs,
                (uint32_t)(e - p->ssa_entries.data));
  return GILT_SUCCESS;
}

GiltValue *gilt_parser_resolve_value(GiltAsmParser *p,
                                     const GiltUnresolvedOperand *u,
                                     GiltSrcPos pos, GiltType *type)
{
  GiltSSAEntry *e = ssa_entry(p, u);
  if (e->value) {
    if (gilt_value_get_type(e->value) == type)
      return e->value;
    type_error(p, pos, e->pos, NULL, u, type, gilt_value_get_type(e->value));
    return NULL;
  }
  if (u->number > 0) {
    uint32_t first = ssa_index(p, u->name, u->len, 0, false);
    if (first != GILT_NAME_MAP_NONE) {
      GiltSSAEntry *f = &p->ssa_entries.data[first];
      if (f->value && f->placeholder < 0) {
        gilt_parser_error_at(p, pos, "reference to invalid result number");
        return NULL;
      }
    }
  }
  GiltPlaceholder ph = {gilt_block_create(p->ctx, 1, &type, NULL), pos, *u};
  gilt_vec_push(p->ctx, &p->placeholders, ph);
  *e = (GiltSSAEntry){gilt_block_get_argument(ph.holder, 0), pos,
                      scope(p)->serial, (int32_t)(p->placeholders.len - 1)};
  return e->value;
}

GiltStatus gilt_parser_check_placeholders(GiltAsmParser *p)
{
  bool failed = false;
  for (size_t i = 0; i < p->placeholders.len; i++) {
    const GiltPlaceholder *ph = &p->placeholders.data[i];
    if (!ph->holder)
      continue;
    /* Every unresolved use is reported, not only the first. */
    p->failed = false;
    if (ph->name.number)
      gilt_parser_error_at(p, ph->pos, "use of undeclared SSA value name "
                           "'%%%.*s#%u'", (int)ph->name.len, ph->name.name,
                           ph->name.number);
    else
      gilt_parser_error_at(p, ph->pos,
                           "use of undeclared SSA value name '%%%.*s'",
                           (int)ph->name.len, ph->name.name);
    failed = true;
  }
  p->failed |= failed;
  return failed ? GILT_FAILURE : GILT_SUCCESS;
}

void gilt_parser_free_placeholders(GiltAsmParser *p)
{
  for (size_t i = 0; i < p->placeholders.len; i++)
    if (p->placeholders.data[i].holder)
      gilt_block_destroy(p->placeholders.data[i].holder);
  p->placeholders.len = 0;
}

/* ---- blocks ------------------------------------------------------------- */

static GiltBlockEntry *block_entry(GiltAsmParser *p, const GiltToken *name,
                                   bool *added)
{
  uint32_t i = gilt_name_map_insert(&p->blocks, name->ptr + 1,
                                    name->len - 1, scope(p)->serial, added);
  if (*added) {
    GiltBlockEntry e = {NULL, name->pos, false};
    gilt_vec_push(p->ctx, &p->block_entries, e);
  }
  return &p->block_entries.data[i];
}

GiltBlock *gilt_parser_use_block(GiltAsmParser *p, const GiltToken *name)
{
  bool added;
  GiltBlockEntry *e = block_entry(p, name, &added);
  if (added) {
    e->block = gilt_block_create(p->ctx, 0, NULL, NULL);
    gilt_vec_push(p->ctx, &p->fwd_blocks,
                  (uint32_t)(e - p->block_entries.data));
  }
  return e->block;
}

GiltBlock *gilt_parser_define_block(GiltAsmParser *p, const GiltToken *name,
                                    GiltBlock *entry)
{
  bool added;
  GiltBlockEntry *e = block_entry(p, name, &added);
  if (!added && (e->defined || entry)) {
    gilt_parser_error_at(p, name->pos, "redefinition of block '%.*s'",
                         (int)name->len, name->ptr);
    return NULL;
  }
  e->defined = true;
  e->pos = name->pos;
  if (entry) {
    e->block = entry;
    return entry;
  }
  if (added)
    e->block = gilt_block_create(p->ctx, 0, NULL, NULL);
  gilt_region_append_block(scope(p)->region, e->block);
  return e->block;
}
