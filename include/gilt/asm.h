/*
** gilt/asm.h - what the custom print and parse hooks of a dialect may
** call: writing an op's, a type's or an attribute's own textual form, and
** reading it back.
**
** An op with a custom form (`%p = toy.pair %a, %b : f32, i32`) gives print
** and parse hooks in its GiltOpDef (gilt/dialect.h); a type or attribute a
** dialect defines gives them in its GiltTypeDef or GiltAttrDef. The
** conventions are MLIR's OpAsmPrinter/OpAsmParser:
**   - an op's print hook writes what follows `%results = dialect.op` and
**     leaves the op's location to the caller; its parse hook reads from
**     right after the op name, stops before a trailing `loc(...)`, and
**     fills the GiltOpBuild it is given (gilt/dialect.h: operands, result
**     types, attributes, regions);
**   - a type's or attribute's print hook writes what follows
**     `!dialect.mnemonic` (`#...`), its parse hook reads from right after
**     the mnemonic and appends the parameters (gilt_param_vec_append).
** Print -> parse -> print must give the same text: a hook reads exactly
** what its partner writes.
**
** Parsing fails fast. Calls that can fail return GILT_FAILURE after a
** diagnostic at the offending token, and once one call of a parse has
** failed, every later call fails at once (the optional forms answer
** false), so a hook may chain calls with `||` and check once. A hook
** that fails without a word still fails the parse with a generic error.
** Errors a hook reports through gilt_asm_emit_error, inside an op's form,
** read "custom op 'NAME' <message>". The parse fuzzer feeds hooks
** anything: they must not assume the input is well formed.
**
** Everything returned is borrowed: types and attributes from the context,
** values from the IR being parsed, names in a GiltUnresolvedOperand from
** the source text (valid while the parse runs). The printer and parser
** themselves belong to the caller of the hook; a hook must not keep them.
** Not here: the parser and printer entry points (gilt_parse_source,
** gilt_op_print in gilt/ir.h).
*/
#ifndef GILT_ASM_H
#define GILT_ASM_H

#include "gilt/dialect.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GILT_ASM_PRINTF(fmt_, args_)                                         \
  __attribute__((format(printf, fmt_, args_)))
#else
#define GILT_ASM_PRINTF(fmt_, args_)
#endif

/* ---- printing ----------------------------------------------------------- */

GILT_API GiltContext *gilt_asm_printer_get_context(GiltAsmPrinter *p);
/* Whether locations are being printed (gopt --print-debuginfo): a form
** that declares values itself prints their locations only then. */
GILT_API bool gilt_asm_printer_get_debug_info(GiltAsmPrinter *p);
/* printf-style text, as it is. */
GILT_API void gilt_asm_print(GiltAsmPrinter *p, const char *fmt, ...)
    GILT_ASM_PRINTF(2, 3);
/* `%name` of a value, as the printer numbers it. */
GILT_API void gilt_asm_print_operand(GiltAsmPrinter *p, GiltValue *v);
/* Operands [start, start + n) of op, comma-separated; start + n must not
** pass the op's operand count. */
GILT_API void gilt_asm_print_operands(GiltAsmPrinter *p, GiltOp *op,
                                      size_t start, size_t n);
GILT_API void gilt_asm_print_type(GiltAsmPrinter *p, GiltType *t);
/* The types of n values, comma-separated. */
GILT_API void gilt_asm_print_value_types(GiltAsmPrinter *p,
                                         GiltValue *const *values, size_t n);
GILT_API void gilt_asm_print_attr(GiltAsmPrinter *p, GiltAttr *a);
/* `@name`, quoted when it is not a bare identifier. */
GILT_API void gilt_asm_print_symbol_name(GiltAsmPrinter *p, const char *name);
/* ` {a = 1, b}`: the op's attributes minus the `num_elided` names in
** `elided` (those the custom form writes elsewhere); nothing when none is
** left. With_keyword prints ` attributes {...}`. */
GILT_API void gilt_asm_print_attr_dict(GiltAsmPrinter *p, GiltOp *op,
                                       const char *const *elided,
                                       size_t num_elided, bool with_keyword);
/* `%arg0: type`, and its `loc(...)` when printing locations. */
GILT_API void gilt_asm_print_block_arg_decl(GiltAsmPrinter *p,
                                            GiltValue *arg);
/* ` loc(...)` when printing locations, else nothing: for forms that
** declare values with attributes between the type and the location. */
GILT_API void gilt_asm_print_optional_location(GiltAsmPrinter *p,
                                               GiltLocation *loc);
/* ` {\n ... }` with the region's blocks. The entry block's label and
** arguments are left out when print_entry_args is false (the form
** declared them itself, as func.func's signature does). */
GILT_API void gilt_asm_print_region(GiltAsmPrinter *p, GiltRegion *r,
                                    bool print_entry_args);
/* A function type, `(i32, f32) -> i32`: gilt_asm_print_type, for hooks
** that want to say what they print. */
GILT_API void gilt_asm_print_function_type(GiltAsmPrinter *p, GiltType *fn);
/* `(operand types) -> result types` of the op, a lone result without
** parentheses (MLIR's printFunctionalType). */
GILT_API void gilt_asm_print_functional_type(GiltAsmPrinter *p, GiltOp *op);
/* A quoted string, with the escapes the parser reads back. */
GILT_API void gilt_asm_print_string(GiltAsmPrinter *p, const char *s,
                                    size_t n);

/* ---- parsing ------------------------------------------------------------ */

/* An SSA use not yet resolved to a value: `%name` or `%name#3`. */
typedef struct GiltUnresolvedOperand {
  const char *name; /* into the source, without the `%`; not terminated */
  size_t len;
  unsigned number;  /* the `#N` suffix, 0 if none */
  GiltLocation *loc;
} GiltUnresolvedOperand;

/* A region argument a form declares: `%name: type {attrs} loc(...)`. */
typedef struct GiltAsmArgument {
  GiltUnresolvedOperand ssa;
  GiltType *type;    /* NULL when no type was allowed */
  GiltLocation *loc; /* NULL when none was written */
  GiltAttr *attrs;   /* the dictionary after the type, NULL if none */
} GiltAsmArgument;

/* What the list calls below do with each element, in order. A failure
** (reported first, through gilt_asm_emit_error) ends the list and is the
** list's result. */
typedef GiltStatus (*GiltAsmOperandFn)(GiltAsmParser *p,
                                       const GiltUnresolvedOperand *operand,
                                       void *user);
typedef GiltStatus (*GiltAsmTypeFn)(GiltAsmParser *p, GiltType *type,
                                    void *user);

GILT_API GiltContext *gilt_asm_parser_get_context(GiltAsmParser *p);
/* The location of the next token. */
GILT_API GiltLocation *gilt_asm_parser_get_location(GiltAsmParser *p);
/* Reports a printf-style error at the next token; returns GILT_FAILURE. */
GILT_API GiltStatus gilt_asm_emit_error(GiltAsmParser *p, const char *fmt,
                                        ...) GILT_ASM_PRINTF(2, 3);

/* Punctuation: "(", ")", "{", "}", "[", "]", "<", ">", ",", ":", "=",
** "->", "::", "*", "?", "+", "...". The optional forms consume it and
** return true when it is next (false, consuming nothing, otherwise); the
** others report "expected 'X'" when it is not. Any other string is a
** programming error and asserts. */
GILT_API bool gilt_asm_parse_optional_punct(GiltAsmParser *p,
                                            const char *punct);
GILT_API GiltStatus gilt_asm_parse_punct(GiltAsmParser *p, const char *punct);
/* A bare identifier `kw`, the same way. */
GILT_API bool gilt_asm_parse_optional_keyword(GiltAsmParser *p,
                                              const char *kw);
GILT_API GiltStatus gilt_asm_parse_keyword(GiltAsmParser *p, const char *kw);
/* Whether the next token is `%...` (an operand) / `{` (consumes nothing). */
GILT_API bool gilt_asm_peek_operand(GiltAsmParser *p);
GILT_API bool gilt_asm_peek_lbrace(GiltAsmParser *p);

/* `%name` or `%name#N` into *out. */
GILT_API GiltStatus gilt_asm_parse_operand(GiltAsmParser *p,
                                           GiltUnresolvedOperand *out);
/* Comma-separated operands, possibly none (the list ends at the first
** token that does not start one), each handed to `each`. */
GILT_API GiltStatus gilt_asm_parse_operand_list(GiltAsmParser *p,
                                                GiltAsmOperandFn each,
                                                void *user);
/* The value an operand names, which must have `type`: a value defined
** earlier (a different type is reported and fails), or a forward
** reference that a later definition must match. */
GILT_API GiltStatus gilt_asm_resolve_operand(GiltAsmParser *p,
                                             const GiltUnresolvedOperand *u,
                                             GiltType *type, GiltValue **out);
GILT_API GiltStatus gilt_asm_parse_type(GiltAsmParser *p, GiltType **out);
/* Comma-separated types, possibly none (when the next token cannot start
** a type), each handed to `each`. */
GILT_API GiltStatus gilt_asm_parse_type_list(GiltAsmParser *p,
                                             GiltAsmTypeFn each, void *user);
/* `-> type` or `-> (types)`, each type handed to `each`; no arrow means
** no types and success. */
GILT_API GiltStatus gilt_asm_parse_optional_arrow_type_list(
    GiltAsmParser *p, GiltAsmTypeFn each, void *user);
GILT_API GiltStatus gilt_asm_parse_attr(GiltAsmParser *p, GiltAttr **out);
/* `{...}`, if next, into the build's attributes; with_keyword wants
** `attributes {...}` instead. A name given twice is reported when the op
** is built. */
GILT_API GiltStatus gilt_asm_parse_optional_attr_dict(GiltAsmParser *p,
                                                      GiltOpBuild *b,
                                                      bool with_keyword);
/* `@name` or `@"quoted"`, as a string attribute. */
GILT_API GiltStatus gilt_asm_parse_symbol_name(GiltAsmParser *p,
                                               GiltAttr **out);
/* An integer literal with an optional `-`, within int64. */
GILT_API GiltStatus gilt_asm_parse_integer(GiltAsmParser *p, int64_t *out);
/* A string literal, unescaped, as a string attribute. */
GILT_API GiltStatus gilt_asm_parse_string(GiltAsmParser *p, GiltAttr **out);
/* A region argument, `%name` then `: type` when allow_type, a `{...}`
** dictionary when allow_attrs and present, and `loc(...)` if present. */
GILT_API GiltStatus gilt_asm_parse_argument(GiltAsmParser *p,
                                            GiltAsmArgument *out,
                                            bool allow_type,
                                            bool allow_attrs);
/* `loc(...)` if next, into *out; else *out is left untouched. */
GILT_API GiltStatus gilt_asm_parse_optional_location(GiltAsmParser *p,
                                                     GiltLocation **out);
/* `{ ... }` into `region` (usually gilt_op_build_add_region's), its entry
** block getting `args` (declared by the form itself, typed) as its
** arguments; with num_args 0 the entry block may declare its own. */
GILT_API GiltStatus gilt_asm_parse_region(GiltAsmParser *p,
                                          GiltRegion *region,
                                          const GiltAsmArgument *args,
                                          size_t num_args);

#undef GILT_ASM_PRINTF

#ifdef __cplusplus
}
#endif

#endif /* GILT_ASM_H */
