/*
** parser.h - the state the parser's files share (ir/asm/parser.c and
** ir/asm/parse_*.c); internal to them.
**
** struct GiltAsmParser is the whole parser: the lexer and its one token of
** lookahead, the symbol tables (aliases, SSA names, block names, resource
** blobs) and the stack of region scopes. The first error stops the parse
** (as in MLIR): it sets `failed`, later errors are dropped, and every parse
** function returns NULL / GILT_FAILURE up to the entry point, which frees
** whatever was half built.
**
** Custom assembly hooks never see this header; they use gilt/asm.h.
*/
#ifndef GILT_IR_PARSER_H
#define GILT_IR_PARSER_H

#include "ir/asm/asm.h"
#include "ir/asm/lexer.h"
#include "ir/support/name_map.h"
#include "ir/support/paged_array.h"

/* Nesting of regions, types, attributes and locations deeper than this is
** reported instead of risking the C stack. */
#define GILT_PARSER_MAX_DEPTH 256

/* Kinds of symbols in GiltAsmParser.symbols. */
enum {
  GILT_SYM_TYPE_ALIAS,  /* !name = type */
  GILT_SYM_ATTR_ALIAS,  /* #name = attr */
  GILT_SYM_LOC_ALIAS,   /* #name = loc(...) */
  GILT_SYM_BLOB         /* a blob of the dialect_resources section */
};

/* A blob of the resource section; owns its name (the symbol's key). */
typedef struct GiltParsedBlob {
  char *name;
  uint8_t *data;
  size_t nbytes;
} GiltParsedBlob;

/* What an SSA name with a result number stands for. */
typedef struct GiltSSAEntry {
  GiltValue *value;    /* NULL when not defined in any open scope */
  GiltSrcPos pos;      /* definition, or first use of a forward reference */
  uint32_t scope;      /* serial of the region scope of `pos` */
  int32_t placeholder; /* forward reference: index in placeholders, or -1 */
} GiltSSAEntry;

/* An operand of a generic op, read before its type is known. */
typedef struct GiltParsedUse {
  GiltUnresolvedOperand u;
  GiltSrcPos pos;
} GiltParsedUse;

/* `%name` or `%name:N` before an op's `=`. */
typedef struct GiltResultGroup {
  GiltToken name;
  uint32_t count;
} GiltResultGroup;

/* A forward reference: a detached block whose only argument stands in for
** a value not defined yet. */
typedef struct GiltPlaceholder {
  GiltBlock *holder; /* NULL once resolved */
  GiltSrcPos pos;    /* of the first use */
  GiltUnresolvedOperand name;
} GiltPlaceholder;

typedef struct GiltBlockEntry {
  GiltBlock *block;
  GiltSrcPos pos; /* definition, or first use while undefined */
  bool defined;
} GiltBlockEntry;

/* One region being parsed. Names defined in it are forgotten when it ends;
** blocks referenced in it must be defined in it. */
typedef struct GiltRegionScope {
  uint32_t serial;
  GiltRegion *region;
  size_t defs_mark;   /* start of this scope's part of scope_defs */
  size_t blocks_mark; /* start of this scope's part of fwd_blocks */
} GiltRegionScope;

/* `loc(#alias)` before `#alias = loc(...)`: MLIR prints location aliases
** at the end of the file. */
typedef struct GiltDeferredLoc {
  const char *name;
  size_t len;
  GiltSrcPos pos;
} GiltDeferredLoc;

struct GiltAsmParser {
  GiltContext *ctx;
  GiltLexer lex;
  GiltToken tok;
  const char *filename;
  GiltIdent *file; /* filename, interned once for the op locations */
  bool failed;
  bool source_registered; /* the buffer is known to the context */
  unsigned depth;
  const char *custom_op; /* op whose custom parser runs, for its errors */

  GiltNameMap symbols; /* aliases and blobs, keyed (name, GILT_SYM_*) */
  GILT_VEC(void *) symbol_values;

  GiltNameMap ssa; /* keyed (name without `%`, result number) */
  GILT_VEC(uint32_t) named_ssa; /* ssa key index -> index in ssa_entries */
  GiltPagedArray numbered_ssa;  /* %N#0 -> index in ssa_entries + 1 */
  GILT_VEC(GiltSSAEntry) ssa_entries;
  GILT_VEC(uint32_t) scope_defs; /* ssa entries defined per open scope */
  GILT_VEC(GiltPlaceholder) placeholders;

  GiltNameMap blocks; /* keyed (name without `^`, region serial) */
  GILT_VEC(GiltBlockEntry) block_entries;
  GILT_VEC(uint32_t) fwd_blocks; /* block entries used before defined */

  GILT_VEC(GiltRegionScope) scopes;
  uint32_t next_serial;
  GiltBlock *block; /* where parsed ops go */
  /* Scratch stacks for what an op collects before it is built, innermost
  ** op last: one vector per op would cost mallocs per op. */
  GILT_VEC(GiltParsedUse) uses;
  GILT_VEC(GiltResultGroup) results;
  GILT_VEC(GiltType *) types; /* of function types being parsed */

  GILT_VEC(GiltDeferredLoc) deferred_locs;
  GiltIdent *deferred_file; /* marks placeholder locations */
};

/* ---- parser.c: tokens, errors, locations -------------------------------- */

/* GILT_VEC types are anonymous, so vectors cross function boundaries as
** their three fields: `f(p, GILT_VEC_FIELDS(&v))`. */
#define GILT_VEC_FIELDS(v) (void **)&(v)->data, &(v)->len, &(v)->cap
/* Appends one element of `size` bytes to such a vector. */
GILT_INTERNAL void gilt_parser_vec_push(GiltContext *ctx, void **data,
                                        size_t *len, size_t *cap,
                                        const void *elem, size_t size);

GILT_INTERNAL void gilt_parser_init(GiltAsmParser *p, GiltContext *ctx,
                                    const char *buf, size_t len,
                                    const char *filename);
GILT_INTERNAL void gilt_parser_free(GiltAsmParser *p);
GILT_INTERNAL void gilt_parser_advance(GiltAsmParser *p);
GILT_INTERNAL bool gilt_parser_consume_if(GiltAsmParser *p, GiltTokenKind k);
/* Consumes a token of kind k or reports `msg` where it was expected. */
GILT_INTERNAL GiltStatus gilt_parser_expect(GiltAsmParser *p, GiltTokenKind k,
                                            const char *msg);
/* Whether the token is the bare identifier `kw`. */
GILT_INTERNAL bool gilt_parser_at_keyword(GiltAsmParser *p, const char *kw);
GILT_INTERNAL GiltLocation *gilt_parser_loc(GiltAsmParser *p, GiltSrcPos pos);

/* Errors return GILT_FAILURE so callers can `return gilt_parser_error(...)`.
** Only the first error of a parse is emitted. */
GILT_INTERNAL GiltStatus gilt_parser_error(GiltAsmParser *p, const char *fmt,
                                           ...)
    __attribute__((format(printf, 2, 3)));
GILT_INTERNAL GiltStatus gilt_parser_error_at(GiltAsmParser *p,
                                              GiltSrcPos pos,
                                              const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* As MLIR's emitWrongTokenError: when the unexpected token starts a line,
** reports at the end of the previous line of code, where the missing
** token belongs. */
GILT_INTERNAL GiltStatus gilt_parser_wrong_token(GiltAsmParser *p,
                                                 const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A diagnostic to add notes to, or NULL when errors are already
** suppressed; emit with gilt_diag_emit. */
GILT_INTERNAL GiltDiagnostic *gilt_parser_diag(GiltAsmParser *p,
                                               GiltSrcPos pos,
                                               const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records that someone else (a hook, the IR core) reported an error. */
GILT_INTERNAL void gilt_parser_note_failure(GiltAsmParser *p);

/* Nesting guard: enter fails with "nesting too deep" past the limit. */
GILT_INTERNAL GiltStatus gilt_parser_enter(GiltAsmParser *p);
GILT_INTERNAL void gilt_parser_leave(GiltAsmParser *p);

/* The symbol of a kind, or NULL. */
GILT_INTERNAL void *gilt_parser_lookup_symbol(GiltAsmParser *p,
                                              const char *name, size_t len,
                                              unsigned kind);
/* Defines (or redefines) a symbol; `name` must outlive the parser. */
GILT_INTERNAL void gilt_parser_define_symbol(GiltAsmParser *p,
                                             const char *name, size_t len,
                                             unsigned kind, void *value);
/* `!dialect.body`, `!dialect<body>`, `!alias` (and the same after `#`).
** On an alias, *alias is its value (of `alias_kind`); otherwise the dialect
** and body are returned as slices of the source. */
GILT_INTERNAL GiltStatus gilt_parser_parse_dialect_symbol(
    GiltAsmParser *p, unsigned alias_kind, void **alias,
    GiltToken *dialect, GiltToken *body);
/* `!alias`, `!dialect.body`, `!dialect<body>` (`#` for attributes): the
** aliased object, a type (is_type) or attribute a registered dialect
** defines (parse_dialect.c), or an opaque one of a dialect that must be a
** valid namespace, not registered, with unregistered dialects allowed.
** NULL after reporting. */
GILT_INTERNAL void *gilt_parser_parse_extended(GiltAsmParser *p,
                                               bool is_type);
/* Appends a string token's value to a buffer (NUL-terminated). */
GILT_INTERNAL void gilt_parser_string_value(const GiltToken *t,
                                            GiltStrBuf *out);

/* ---- parse_dialect.c ---------------------------------------------------- */

/* `!dialect.mnemonic...` or `!dialect<mnemonic...>` (`#` for attributes)
** of the registered dialect d, which defines types (is_type) or
** attributes, the `!`/`#` token being current (and, without a dot, the
** `<` right after it). NULL after reporting. */
GILT_INTERNAL void *gilt_parser_parse_dialect_defined(GiltAsmParser *p,
                                                      GiltDialectInfo *d,
                                                      bool is_type);

/* ---- parse_types.c ------------------------------------------------------ */

GILT_INTERNAL GiltType *gilt_parser_parse_type(GiltAsmParser *p);
GILT_INTERNAL bool gilt_parser_at_type(GiltAsmParser *p);
/* `(` types `)`, possibly empty, appended to a vector of GiltType *. */
GILT_INTERNAL GiltStatus gilt_parser_parse_type_list_parens(
    GiltAsmParser *p, void **data, size_t *len, size_t *cap);
/* After `->`: `(` types `)` or one non-function type. */
GILT_INTERNAL GiltStatus gilt_parser_parse_result_types(GiltAsmParser *p,
                                                        void **data,
                                                        size_t *len,
                                                        size_t *cap);
/* Pretty-prints a type into the buffer for a diagnostic. */
GILT_INTERNAL const char *gilt_parser_type_str(GiltStrBuf *sb, GiltType *t);

/* ---- parse_attrs.c ------------------------------------------------------ */

GILT_INTERNAL GiltAttr *gilt_parser_parse_attr(GiltAsmParser *p);
/* `{` (name (`=` attr)?) , ... `}` appended to a vector of GiltNamedAttrI;
** a name repeated within the braces is reported. */
GILT_INTERNAL GiltStatus gilt_parser_parse_attr_dict(GiltAsmParser *p,
                                                     void **data,
                                                     size_t *len,
                                                     size_t *cap);
/* An integer literal of `type` after an optional `-`, range-checked as
** MLIR does (signless values may use the unsigned range). */
GILT_INTERNAL GiltStatus gilt_parser_int_value(GiltAsmParser *p,
                                               const GiltToken *tok,
                                               bool negative, GiltType *type,
                                               const char *range_msg,
                                               int64_t *out);
/* A float literal, or an integer literal read as the bit pattern of the
** float type (`0x7FC00000 : f32`), converted to double. A decimal literal
** is not yet rounded to the type: gilt_float_attr_get and
** gilt_parser_store_float do that, once. */
GILT_INTERNAL GiltStatus gilt_parser_float_value(GiltAsmParser *p,
                                                 const GiltToken *tok,
                                                 bool negative, GiltType *type,
                                                 double *out);

/* ---- parse_dense.c ------------------------------------------------------ */

/* `dense<...> : type`, the `dense` keyword being the current token. */
GILT_INTERNAL GiltAttr *gilt_parser_parse_dense(GiltAsmParser *p);
/* `: type` of an elements literal at `pos`: a statically shaped tensor or
** vector of integers, index or floats of at most 64 bits. */
GILT_INTERNAL GiltType *gilt_parser_parse_elements_type(GiltAsmParser *p,
                                                        GiltSrcPos pos);
/* Stores a double as one element of float type `t` (little-endian). */
GILT_INTERNAL void gilt_parser_store_float(GiltType *t, double v,
                                           uint8_t *out);
/* Stores the low `size` bytes of v, little-endian. */
GILT_INTERNAL void gilt_parser_store_int(int64_t v, size_t size,
                                         uint8_t *out);

/* ---- parse_locations.c -------------------------------------------------- */

/* The inside of `loc(...)`. */
GILT_INTERNAL GiltLocation *gilt_parser_parse_location_instance(
    GiltAsmParser *p);
/* `loc(...)` or `loc(#alias)` if present (else *out untouched). A forward
** alias yields a placeholder that gilt_parser_resolve_deferred_locs
** replaces once the whole file is read. */
GILT_INTERNAL GiltStatus gilt_parser_parse_trailing_location(
    GiltAsmParser *p, GiltLocation **out);
GILT_INTERNAL GiltStatus gilt_parser_resolve_deferred_locs(GiltAsmParser *p,
                                                           GiltRegion *top);

/* ---- parse_resources.c -------------------------------------------------- */

/* Reads every `{-# dialect_resources ... #-}` section of the buffer ahead
** of the IR, so `dense_resource<name>` can get its bytes on first use. */
GILT_INTERNAL GiltStatus gilt_parser_read_resources(GiltAsmParser *p);
/* Steps over a metadata section (already read) at the current token. */
GILT_INTERNAL GiltStatus gilt_parser_skip_metadata(GiltAsmParser *p);
/* `dense_resource<name> : type`, the keyword being the current token. */
GILT_INTERNAL GiltAttr *gilt_parser_parse_dense_resource(GiltAsmParser *p);

/* ---- parse_ssa.c: SSA names, block names, region scopes ----------------- */

GILT_INTERNAL void gilt_parser_push_scope(GiltAsmParser *p,
                                          GiltRegion *region);
/* Forgets the scope's names; reports blocks used but never defined. The
** undefined blocks are handed to the region, so it frees them. */
GILT_INTERNAL GiltStatus gilt_parser_pop_scope(GiltAsmParser *p);
GILT_INTERNAL GiltStatus gilt_parser_define_value(
    GiltAsmParser *p, const GiltUnresolvedOperand *u, GiltSrcPos pos,
    GiltValue *v);
GILT_INTERNAL GiltValue *gilt_parser_resolve_value(
    GiltAsmParser *p, const GiltUnresolvedOperand *u, GiltSrcPos pos,
    GiltType *type);
/* The block named `^name` in the current region (created on first use). */
GILT_INTERNAL GiltBlock *gilt_parser_use_block(GiltAsmParser *p,
                                               const GiltToken *name);
/* Defines `^name` in the current region: appends it and returns it (the
** forward-referenced block, `entry` or a new one). NULL on redefinition. */
GILT_INTERNAL GiltBlock *gilt_parser_define_block(GiltAsmParser *p,
                                                  const GiltToken *name,
                                                  GiltBlock *entry);
/* Reports every forward reference still unresolved (all of them, sorted by
** position, as MLIR). */
GILT_INTERNAL GiltStatus gilt_parser_check_placeholders(GiltAsmParser *p);
/* Frees the placeholders of a failed parse (after the IR using them). */
GILT_INTERNAL void gilt_parser_free_placeholders(GiltAsmParser *p);

/* ---- parse_ops.c -------------------------------------------------------- */

GILT_INTERNAL GiltStatus gilt_parser_parse_operation(GiltAsmParser *p);
GILT_INTERNAL GiltStatus gilt_parser_parse_region(GiltAsmParser *p,
                                                  GiltRegion *region,
                                                  const GiltAsmArgument *args,
                                                  size_t num_args);
/* `%name` (`#N`)? into u (u->loc left NULL) and its position. */
GILT_INTERNAL GiltStatus gilt_parser_parse_ssa_use(GiltAsmParser *p,
                                                   GiltUnresolvedOperand *u,
                                                   GiltSrcPos *pos,
                                                   bool allow_number);

#endif /* GILT_IR_PARSER_H */
