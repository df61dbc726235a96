/*
** gilt/dialect.h - defining dialects: ops, their traits and hooks, the op
** being built that parse and inference hooks fill (GiltOpBuild), types and
** attributes of dialects, and op interfaces. What custom print and parse
** hooks call on the printer and parser is in gilt/asm.h.
**
** A dialect lists its ops once, in a table (usually an X-macro `.def` file
** expanded into an array of GiltOpDef), one row per op:
**
**     static const GiltOpDef toy_ops[] = {
**       {.name = "toy.double", .traits = GILT_TRAIT_PURE,
**        .operands = "input", .results = "output",
**        .verify = verify_double,
**        .interfaces = GILT_INTERFACES({&toy_cost_interface, &double_cost})},
**     };
**     static const GiltDialectDef toy_dialect = {
**       .name = "toy", .ops = toy_ops, .num_ops = 1};
**     gilt_context_register_dialect(ctx, &toy_dialect);
**
** The signature strings are checked by the generic verifier before the
** op's own hook runs (docs/ir.md gives their language):
**   operands / results: comma-separated groups, each a name, `name*`
**       (variadic: any number of values) or `name?` (optional: 0 or 1),
**       and perhaps a type constraint after a colon:
**         "lbs*: index, ubs*: index, steps*: index"
**       Constraints: any, index, integer (iN, siN, uiN), signless-integer,
**       signless-integer-or-index, float, int-or-float, and the containers
**       tensor, ranked-tensor, memref, vector, shaped, which may constrain
**       their element type: tensor<float>, memref<index>. "" means none.
**       Without a segment attribute (below), the count tells the groups
**       apart, so a list has at most one variadic group, and not beside an
**       optional one; optional groups take one value each, in order, while
**       values remain.
**       With GILT_TRAIT_ATTR_SIZED_OPERANDS (_RESULTS), a dense i32 array
**       attribute `operandSegmentSizes` (`resultSegmentSizes`) holds each
**       group's size, as MLIR's AttrSizedOperandSegments, and any groups
**       may be variadic or optional. gilt_op_get_operand_group finds a
**       group's values.
**   attributes: `name: kind` pairs, `name?: kind` optional; kinds are any,
**       integer, float, bool, string, array, dictionary, type, symbol, unit,
**       elements (dense or dense_resource).
**   regions, successors: exact counts, or -1 for any number.
**
** Everything else an op can do is an interface, as in MLIR: an identity
** (a GiltInterface, compared by address) and a table of functions whose
** layout the interface's header defines. An op's row lists the interfaces
** it implements; code outside the op's dialect can attach more to a
** registered op (an external model), so a new level makes existing ops
** lowerable or interpretable without editing them. A pass asks
** gilt_op_get_interface(op, &iface) and gets the table, or NULL.
**
** All definitions are borrowed: they must outlive every context they are
** registered in (static tables, as a rule).
*/
#ifndef GILT_DIALECT_H
#define GILT_DIALECT_H

#include "gilt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GiltOpBuild GiltOpBuild;       /* an op being built or parsed */
typedef struct GiltAsmPrinter GiltAsmPrinter; /* custom assembly, printing */
typedef struct GiltAsmParser GiltAsmParser;   /* custom assembly, parsing */
typedef struct GiltPatternSet GiltPatternSet; /* canonicalization patterns */

/* Traits: properties the generic verifier checks or passes rely on. */
enum {
  GILT_TRAIT_NONE = 0,
  GILT_TRAIT_PURE = 1u << 0,            /* no memory effects, recursively */
  GILT_TRAIT_TERMINATOR = 1u << 1,      /* must end its block */
  GILT_TRAIT_COMMUTATIVE = 1u << 2,     /* binary, operands may swap */
  GILT_TRAIT_SAME_SHAPE = 1u << 3,      /* operands and results same shape */
  GILT_TRAIT_SAME_TYPE = 1u << 4,       /* operands and results same type */
  GILT_TRAIT_ISOLATED_FROM_ABOVE = 1u << 5, /* regions use no outer values */
  GILT_TRAIT_SYMBOL = 1u << 6,          /* has `sym_name` */
  GILT_TRAIT_SYMBOL_TABLE = 1u << 7,    /* its region holds symbols */
  GILT_TRAIT_NO_TERMINATOR = 1u << 8,   /* blocks need no terminator */
  GILT_TRAIT_SINGLE_BLOCK = 1u << 9,    /* each region has <= 1 block */
  GILT_TRAIT_CONSTANT_LIKE = 1u << 10,  /* folds to its `value` attribute */
  GILT_TRAIT_RETURN_LIKE = 1u << 11,    /* returns to the parent op */
  GILT_TRAIT_GRAPH_REGION = 1u << 12,   /* no SSA dominance inside */
  /* Custom forms in its regions may drop its dialect's prefix (`return`
  ** in a func.func), as MLIR's OpAsmOpInterface::getDefaultDialect. */
  GILT_TRAIT_DEFAULT_DIALECT = 1u << 13,
  GILT_TRAIT_SAME_ELEMENT_TYPE = 1u << 14, /* operands, results: one element
                                           type (a scalar is its own) */
  GILT_TRAIT_ATTR_SIZED_OPERANDS = 1u << 15, /* `operandSegmentSizes` */
  GILT_TRAIT_ATTR_SIZED_RESULTS = 1u << 16   /* `resultSegmentSizes` */
};

/* ---- interfaces --------------------------------------------------------- */

/* An interface's identity: one static object per interface, compared by
** address. `name` is for diagnostics and documentation. */
typedef struct GiltInterface {
  const char *name;
} GiltInterface;

/* One implementation: the interface and its table of functions (a struct
** the interface's header defines; borrowed). */
typedef struct GiltInterfaceImpl {
  const GiltInterface *iface;
  const void *methods;
} GiltInterfaceImpl;

/* The `interfaces` list of an op row: a static array ending in a zeroed
** entry, written in place. */
#define GILT_INTERFACES(...)                                                 \
  ((const GiltInterfaceImpl[]){__VA_ARGS__, {0, 0}})

/* The table of functions `op` implements `iface` with (declared by its
** row or attached to its definition), or NULL: unregistered ops implement
** nothing. */
GILT_API const void *gilt_op_get_interface(GiltOp *op,
                                           const GiltInterface *iface);
/* Attaches an implementation of `iface` to the registered op `op_name`
** (an external model). Reports an error and fails when the op is not
** registered or already implements the interface. */
GILT_API GiltStatus gilt_context_attach_interface(GiltContext *ctx,
                                                  const char *op_name,
                                                  const GiltInterface *iface,
                                                  const void *methods);
/* Whether the registered op `op_name` implements `iface`. */
GILT_API bool gilt_context_op_implements(GiltContext *ctx,
                                         const char *op_name,
                                         const GiltInterface *iface);

/* ---- ops and dialects --------------------------------------------------- */

/* The outcome of folding one result: a constant or an existing value. */
typedef struct GiltFoldResult {
  GiltAttr *attr;
  GiltValue *value;
} GiltFoldResult;

/* One op: its name, signature, traits, hooks and interfaces. Hooks are all
** optional. */
typedef struct GiltOpDef {
  const char *name;
  unsigned traits;
  const char *operands;
  const char *results;
  const char *attributes;
  int num_regions;
  int num_successors;
  /* Op-specific checks after the signature checks. Report through
  ** gilt_op_emit_error, naming the operand or attribute at fault. */
  GiltStatus (*verify)(GiltOp *op);
  /* Result types from the operands and attributes of a build, added with
  ** gilt_op_build_add_result_type. It runs before the op exists, so before
  ** any verifier: it checks what it reads and reports at
  ** gilt_op_build_get_location. */
  GiltStatus (*infer_result_types)(GiltOpBuild *b);
  /* `consts[i]` is operand i's constant value or NULL. On success either
  ** fills `out[0..num_results)` or (all left NULL) updated op in place. */
  GiltStatus (*fold)(GiltOp *op, GiltAttr *const *consts,
                     GiltFoldResult *out);
  void (*canonicalization_patterns)(GiltPatternSet *set);
  /* Custom assembly (gilt/asm.h). print writes what follows
  ** `%results = name`; parse reads it into the build. */
  void (*print)(GiltOp *op, GiltAsmPrinter *p);
  GiltStatus (*parse)(GiltAsmParser *p, GiltOpBuild *b);
  /* The interfaces the op implements (GILT_INTERFACES), or NULL. */
  const GiltInterfaceImpl *interfaces;
} GiltOpDef;

/* ---- types and attributes of dialects ----------------------------------- */

/* The parameters a parse hook collects, in order. */
typedef struct GiltParamVec GiltParamVec;

/* Appends a parameter (uniqued, owned by its context; not NULL). */
GILT_API void gilt_param_vec_append(GiltParamVec *params, GiltAttr *attr);

/* A type or attribute a dialect defines, as MLIR's TypeDef/AttrDef:
** `!dialect.mnemonic<...>` (or `#...` for an attribute). An instance is
** this definition plus a list of uniqued attribute parameters; the
** context uniques instances by (definition, parameters), so hooks never
** see storage. Every hook is optional:
**   parse: reads what follows the mnemonic (usually `<...>`) through
**       gilt/asm.h and appends the parameters (gilt_param_vec_append);
**       reports through gilt_asm_emit_error. It must not assume the input
**       is well formed (the parse fuzzer feeds it anything). Without it,
**       the parameters are written as attributes: `<1 : i64, "x", f32>`,
**       or nothing.
**   print: writes what follows `!dialect.mnemonic`, so that parse reads
**       it back; without it, the generic form above.
**   verify: checks parameters (their number and kinds too) and reports
**       at loc; runs before any instance is made, whether from the parser
**       or gilt_dialect_type_get, so print may rely on what it checked.
**   verify_encoding: attributes used as a tensor's encoding
**       (`tensor<4x16xf32, #graph.layout<"NC16c">>`): checks the shape
**       and element type the parser pairs them with; as MLIR's
**       VerifiableTensorEncoding. */
typedef struct GiltParametricDef {
  const char *mnemonic;
  GiltStatus (*parse)(GiltAsmParser *p, GiltParamVec *params);
  void (*print)(GiltAsmPrinter *p, size_t n, GiltAttr *const *params);
  GiltStatus (*verify)(GiltLocation *loc, size_t n, GiltAttr *const *params);
  GiltStatus (*verify_encoding)(GiltLocation *loc, size_t n,
                                GiltAttr *const *params, size_t rank,
                                const int64_t *shape, GiltType *elem);
} GiltParametricDef;
typedef GiltParametricDef GiltTypeDef;
typedef GiltParametricDef GiltAttrDef;

/* A dialect: its namespace, its op table, the types and attributes it
** defines, and dialect-wide hooks. */
typedef struct GiltDialectDef {
  const char *name;
  const GiltOpDef *ops;
  size_t num_ops;
  /* Builds a constant op producing `value` of `type`, for folding;
  ** NULL when the dialect has no constant op. */
  GiltOp *(*materialize_constant)(GiltBuilder *b, GiltAttr *value,
                                  GiltType *type, GiltLocation *loc);
  /* The types and attributes it defines, by mnemonic (unique in each). */
  const GiltTypeDef *types;
  size_t num_types;
  const GiltAttrDef *attrs;
  size_t num_attrs;
} GiltDialectDef;

/* Registers a dialect and its ops. Registering the same definition again
** succeeds and changes nothing; a malformed signature string or a second
** dialect of the same name is a programming error and asserts. */
GILT_API GiltStatus gilt_context_register_dialect(GiltContext *ctx,
                                                  const GiltDialectDef *def);

/* ---- ops being built ---------------------------------------------------- */

/* A GiltOpBuild is an op not yet made (MLIR's OperationState): what the
** parse hook of a custom form fills, and what infer_result_types reads
** and completes. The parser or builder that runs the hook owns it and
** makes the op from it after the hook returns; a hook must not keep it.
** Operands, types and attributes go in the order added, and are not
** checked here: the verifier checks the op once it exists. */

GILT_API GiltContext *gilt_op_build_get_context(GiltOpBuild *b);
/* The op's location (the position of its name when parsed). */
GILT_API GiltLocation *gilt_op_build_get_location(GiltOpBuild *b);
/* The definition of the op being built, or NULL for an unregistered op:
** one hook shared by several rows tells them apart by it. */
GILT_API const GiltOpDef *gilt_op_build_get_def(GiltOpBuild *b);

GILT_API void gilt_op_build_add_operand(GiltOpBuild *b, GiltValue *v);
GILT_API void gilt_op_build_add_operands(GiltOpBuild *b, size_t n,
                                         GiltValue *const *values);
GILT_API size_t gilt_op_build_get_num_operands(GiltOpBuild *b);
/* Operand i (< the number added). */
GILT_API GiltValue *gilt_op_build_get_operand(GiltOpBuild *b, size_t i);

GILT_API void gilt_op_build_add_result_type(GiltOpBuild *b, GiltType *t);
GILT_API size_t gilt_op_build_get_num_result_types(GiltOpBuild *b);
GILT_API GiltType *gilt_op_build_get_result_type(GiltOpBuild *b, size_t i);
/* With infer true, the op's infer_result_types hook gives the result types
** when the op is made, after the parse hook: a custom form that does not
** write them asks for this. Result types added before are dropped then;
** an op without the hook fails to build, with an error. */
GILT_API void gilt_op_build_set_infer_result_types(GiltOpBuild *b,
                                                   bool infer);

/* Adds `name = attr` (the name is copied). A name added twice makes the
** op fail to build, with an error at its location. */
GILT_API void gilt_op_build_add_attr(GiltOpBuild *b, const char *name,
                                     GiltAttr *attr);
/* The attribute first added as `name`, or NULL. */
GILT_API GiltAttr *gilt_op_build_get_attr(GiltOpBuild *b, const char *name);

/* A new empty region, detached and owned by the build, which moves its
** blocks into the op when it is made (or destroys it when the parse
** fails): fill it with gilt_asm_parse_region or the builder. */
GILT_API GiltRegion *gilt_op_build_add_region(GiltOpBuild *b);
GILT_API size_t gilt_op_build_get_num_regions(GiltOpBuild *b);
GILT_API GiltRegion *gilt_op_build_get_region(GiltOpBuild *b, size_t i);

/* ---- ops ---------------------------------------------------------------- */

/* Reports "'name' op <message>" at the op's location (the form every
** verifier uses); always returns GILT_FAILURE. */
GILT_API GiltStatus gilt_op_emit_error(GiltOp *op, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Whether `op` has every trait in `traits`. Unregistered ops have none. */
GILT_API bool gilt_op_has_trait(GiltOp *op, unsigned traits);
/* The op's definition, or NULL for an unregistered op. Identity tests
** compare this pointer: `gilt_op_get_def(op) == &my_ops[MY_OP_ADD]`. */
GILT_API const GiltOpDef *gilt_op_get_def(GiltOp *op);

#ifdef __cplusplus
}
#endif

#endif /* GILT_DIALECT_H */
