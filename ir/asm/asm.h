/*
** asm.h - what custom assembly hooks may call on the printer and parser.
**
** An op with a custom form (`func.func @f(%a: i32) { ... }`) provides
** print/parse hooks in its GiltOpDef; they use only the calls here, so the
** printer and parser keep their internals to themselves. The conventions
** follow MLIR's OpAsmPrinter/OpAsmParser: printing starts right after
** `%results = op.name` and the op's location is printed by the caller;
** parsing starts right after the op name and stops before a trailing
** `loc(...)`. The hooks of types and attributes that dialects define
** (GiltParametricDef) use the same calls: printing starts after
** `!dialect.mnemonic`, parsing after the mnemonic.
*/
#ifndef GILT_IR_ASM_H
#define GILT_IR_ASM_H

#include "ir/op_def.h"

/* ---- printing ----------------------------------------------------------- */

GILT_INTERNAL GiltContext *gilt_asm_printer_get_context(GiltAsmPrinter *p);
GILT_INTERNAL void gilt_asm_print(GiltAsmPrinter *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* `%name` of a value, as numbered by the printer. */
GILT_INTERNAL void gilt_asm_print_operand(GiltAsmPrinter *p, GiltValue *v);
/* Operands [start, start+n) of op, comma-separated. */
GILT_INTERNAL void gilt_asm_print_operands(GiltAsmPrinter *p, GiltOp *op,
                                           size_t start, size_t n);
GILT_INTERNAL void gilt_asm_print_type(GiltAsmPrinter *p, GiltType *t);
/* Types of values, comma-separated. */
GILT_INTERNAL void gilt_asm_print_value_types(GiltAsmPrinter *p,
                                              GiltValue *const *values,
                                              size_t n);
GILT_INTERNAL void gilt_asm_print_attr(GiltAsmPrinter *p, GiltAttr *a);
/* `@name`, quoted when it is not a bare identifier. */
GILT_INTERNAL void gilt_asm_print_symbol_name(GiltAsmPrinter *p,
                                              const char *name);
/* ` {a = 1, b}` for the op's attributes minus the elided names; nothing
** when none is left. With_keyword prints ` attributes {...}`. */
GILT_INTERNAL void gilt_asm_print_attr_dict(GiltAsmPrinter *p, GiltOp *op,
                                            const char *const *elided,
                                            size_t num_elided,
                                            bool with_keyword);
/* `%arg0: type` (plus `loc(...)` when printing debug info). */
GILT_INTERNAL void gilt_asm_print_block_arg_decl(GiltAsmPrinter *p,
                                                 GiltValue *arg);
/* ` loc(...)` when printing debug info, else nothing (for custom forms
** that declare values with attributes between type and location). */
GILT_INTERNAL void gilt_asm_print_optional_location(GiltAsmPrinter *p,
                                                    GiltLocation *loc);
/* ` {\n ... }` with the region's blocks; the entry block's label and
** arguments are left out when print_entry_args is false (the op printed
** them). */
GILT_INTERNAL void gilt_asm_print_region(GiltAsmPrinter *p, GiltRegion *r,
                                         bool print_entry_args);
/* A function type, `(i32, f32) -> i32` (the same as gilt_asm_print_type,
** for hooks that want to say what they print). */
GILT_INTERNAL void gilt_asm_print_function_type(GiltAsmPrinter *p,
                                                GiltType *fn);
/* `(operand types) -> result types` of the op, a lone result without
** parentheses (MLIR's printFunctionalType). */
GILT_INTERNAL void gilt_asm_print_functional_type(GiltAsmPrinter *p,
                                                  GiltOp *op);
/* A quoted string with the escapes the parser reads back. */
GILT_INTERNAL void gilt_asm_print_string(GiltAsmPrinter *p, const char *s,
                                         size_t n);
GILT_INTERNAL bool gilt_asm_printer_debug_info(GiltAsmPrinter *p);

/* ---- parsing ------------------------------------------------------------ */

/* An SSA use not yet resolved to a value: `%name` or `%name#3`. */
typedef struct GiltUnresolvedOperand {
  const char *name; /* points into the source, without the `%` */
  size_t len;
  unsigned number;  /* the `#N` suffix, 0 if none */
  GiltLocation *loc;
} GiltUnresolvedOperand;

/* A region argument: `%name: type loc(...)`. */
typedef struct GiltAsmArgument {
  GiltUnresolvedOperand ssa;
  GiltType *type;
  GiltLocation *loc; /* NULL when none was written */
  GiltAttr *attrs;   /* `{...}` after the type, NULL if none */
} GiltAsmArgument;

GILT_INTERNAL GiltContext *gilt_asm_parser_get_context(GiltAsmParser *p);
/* Location of the next token. */
GILT_INTERNAL GiltLocation *gilt_asm_get_location(GiltAsmParser *p);
/* Reports an error at the next token; returns GILT_FAILURE. */
GILT_INTERNAL GiltStatus gilt_asm_emit_error(GiltAsmParser *p,
                                             const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Punctuation: "(", ")", "{", "}", "[", "]", "<", ">", ",", ":", "=",
** "->", "::", "*", "?", "+", "...". Optional forms return whether it was
** there; the others report "expected 'X'" when it is not. */
GILT_INTERNAL bool gilt_asm_parse_optional_punct(GiltAsmParser *p,
                                                 const char *punct);
GILT_INTERNAL GiltStatus gilt_asm_parse_punct(GiltAsmParser *p,
                                              const char *punct);
GILT_INTERNAL bool gilt_asm_parse_optional_keyword(GiltAsmParser *p,
                                                   const char *kw);
GILT_INTERNAL GiltStatus gilt_asm_parse_keyword(GiltAsmParser *p,
                                                const char *kw);
/* Whether the next token is `%...`. */
GILT_INTERNAL bool gilt_asm_peek_operand(GiltAsmParser *p);
GILT_INTERNAL GiltStatus gilt_asm_parse_operand(GiltAsmParser *p,
                                                GiltUnresolvedOperand *out);
/* Comma-separated operands (possibly none) until a token that is not one.
** The vector arguments of this and the type-list calls below are any
** GILT_VEC of the element type, passed as `&v` (GILT_VEC types are
** anonymous, so the macros hand over their fields, as gilt_vec_reserve
** does). */
GILT_INTERNAL GiltStatus gilt_asm_parse_operand_list_(GiltAsmParser *p,
                                                      void **data,
                                                      size_t *len,
                                                      size_t *cap);
#define gilt_asm_parse_operand_list(p, v)                                    \
  gilt_asm_parse_operand_list_((p), (void **)&(v)->data, &(v)->len,          \
                               &(v)->cap)
/* Looks the operand up (or creates a forward reference of that type). */
GILT_INTERNAL GiltStatus gilt_asm_resolve_operand(
    GiltAsmParser *p, const GiltUnresolvedOperand *u, GiltType *type,
    GiltValue **out);
GILT_INTERNAL GiltStatus gilt_asm_parse_type(GiltAsmParser *p,
                                             GiltType **out);
/* Comma-separated types, possibly none when not followed by a type. */
GILT_INTERNAL GiltStatus gilt_asm_parse_type_list_(GiltAsmParser *p,
                                                   void **data, size_t *len,
                                                   size_t *cap);
#define gilt_asm_parse_type_list(p, v)                                       \
  gilt_asm_parse_type_list_((p), (void **)&(v)->data, &(v)->len, &(v)->cap)
/* `-> type` or `-> (types)`; absent arrow means no results. */
GILT_INTERNAL GiltStatus gilt_asm_parse_optional_arrow_type_list_(
    GiltAsmParser *p, void **data, size_t *len, size_t *cap);
#define gilt_asm_parse_optional_arrow_type_list(p, v)                        \
  gilt_asm_parse_optional_arrow_type_list_((p), (void **)&(v)->data,         \
                                           &(v)->len, &(v)->cap)
GILT_INTERNAL GiltStatus gilt_asm_parse_attr(GiltAsmParser *p,
                                             GiltAttr **out);
/* `{...}` if present, into b->attrs. With_keyword wants `attributes` first. */
GILT_INTERNAL GiltStatus gilt_asm_parse_optional_attr_dict(GiltAsmParser *p,
                                                           GiltOpBuild *b,
                                                           bool with_keyword);
/* `@name` or `@"quoted"` as a string attribute. */
GILT_INTERNAL GiltStatus gilt_asm_parse_symbol_name(GiltAsmParser *p,
                                                    GiltAttr **out);
/* `%name: type {attrs} loc(...)`; type/attrs only when allowed. */
GILT_INTERNAL GiltStatus gilt_asm_parse_argument(GiltAsmParser *p,
                                                 GiltAsmArgument *out,
                                                 bool allow_type,
                                                 bool allow_attrs);
/* `loc(...)` if present, else *out untouched. */
GILT_INTERNAL GiltStatus gilt_asm_parse_optional_location(GiltAsmParser *p,
                                                          GiltLocation **out);
/* `{ ... }`: a region whose entry block gets `args` (already declared by
** the op's custom form) as its arguments. */
GILT_INTERNAL GiltStatus gilt_asm_parse_region(GiltAsmParser *p,
                                               GiltRegion *region,
                                               const GiltAsmArgument *args,
                                               size_t num_args);
/* Whether the next token is `{`. */
GILT_INTERNAL bool gilt_asm_peek_lbrace(GiltAsmParser *p);
/* An integer literal with an optional `-`, within int64 (for the parse
** hooks of dialect types and attributes; parse_dialect.c). */
GILT_INTERNAL GiltStatus gilt_asm_parse_integer(GiltAsmParser *p,
                                                int64_t *out);
/* A string literal, as a string attribute (parse_dialect.c). */
GILT_INTERNAL GiltStatus gilt_asm_parse_string(GiltAsmParser *p,
                                               GiltAttr **out);

#endif /* GILT_IR_ASM_H */
