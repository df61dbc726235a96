/*
** op_def.h - how a dialect declares its operations.
**
** Each dialect lists its ops once, in an X-macro table (`<dialect>.def`),
** one row per op:
**
**   GILT_OP(func_call, "func.call", GILT_TRAIT_NONE,
**           "operands*", "results*", "callee: symbol", 0, 0,
**           .verify = verify_call, .print = print_call, .parse = parse_call)
**
** and expands the table into an array of GiltOpDef. The strings are a small
** declarative signature checked by the generic verifier before the op's own
** hook runs:
**   operands / results: comma-separated names; `name*` is variadic (at most
**       one per list), `name?` optional. "" means none.
**   attributes: `name: kind` pairs, `name?: kind` optional; kinds are any,
**       integer, float, bool, string, array, dictionary, type, symbol, unit,
**       elements (dense or dense_resource).
**   regions, successors: exact counts, or -1 for any number.
** Hooks are all optional.
*/
#ifndef GILT_IR_OP_DEF_H
#define GILT_IR_OP_DEF_H

#include "ir/core.h"

typedef struct GiltAsmPrinter GiltAsmPrinter;
typedef struct GiltAsmParser GiltAsmParser;
typedef struct GiltPatternSet GiltPatternSet;

enum {
  GILT_TRAIT_NONE = 0,
  GILT_TRAIT_PURE = 1u << 0,            /* no side effects: CSE/DCE may act */
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
  GILT_TRAIT_GRAPH_REGION = 1u << 12    /* no SSA dominance inside */
};

/* How an op combines with its neighbours when fusing loop nests, as in
** TVM's FuseOps: elementwise (same shape in and out), broadcast (inputs
** broadcast to the output), injective (each output element reads one input
** element: transpose, slice, ...), reduction, output-fusable (conv/matmul:
** elementwise consumers fuse into its output), opaque (never fused). */
typedef enum GiltFusionKind {
  GILT_FUSION_OPAQUE = 0,
  GILT_FUSION_ELEMENTWISE,
  GILT_FUSION_BROADCAST,
  GILT_FUSION_INJECTIVE,
  GILT_FUSION_REDUCTION,
  GILT_FUSION_OUTPUT_FUSABLE
} GiltFusionKind;

/* The outcome of folding one result: a constant or an existing value. */
typedef struct GiltFoldResult {
  GiltAttr *attr;
  GiltValue *value;
} GiltFoldResult;

struct GiltOpDef {
  const char *name;
  unsigned traits;
  const char *operands;
  const char *results;
  const char *attributes;
  int num_regions;
  int num_successors;
  GiltFusionKind fusion_kind;
  /* Op-specific checks after the signature checks. Report through
  ** gilt_op_emit_error, naming the operand or attribute at fault. */
  GiltStatus (*verify)(GiltOp *op);
  /* Result types from operands and attributes of a build. */
  GiltStatus (*infer_result_types)(GiltOpBuild *b);
  /* `consts[i]` is operand i's constant value or NULL. On success either
  ** fills `out[0..num_results)` or (all left NULL) updated op in place. */
  GiltStatus (*fold)(GiltOp *op, GiltAttr *const *consts,
                     GiltFoldResult *out);
  void (*canonicalization_patterns)(GiltPatternSet *set);
  /* Custom assembly. print writes what follows `%results = name`;
  ** parse reads it into the build. */
  void (*print)(GiltOp *op, GiltAsmPrinter *p);
  GiltStatus (*parse)(GiltAsmParser *p, GiltOpBuild *b);
};

#define GILT_OP_ROW(name_, traits_, operands_, results_, attrs_, regions_,   \
                    successors_, ...)                                        \
  {.name = (name_), .traits = (traits_), .operands = (operands_),            \
   .results = (results_), .attributes = (attrs_),                            \
   .num_regions = (regions_), .num_successors = (successors_), __VA_ARGS__},

/* The parameters of a dialect-defined type or attribute, in order, as a
** parse hook collects them (a GILT_VEC: append with gilt_vec_push). */
typedef struct GiltParamVec {
  GiltAttr **data;
  size_t len, cap;
} GiltParamVec;

/* A type or attribute a dialect defines, as MLIR's TypeDef/AttrDef:
** `!dialect.mnemonic<...>` (or `#...` for an attribute). An instance is
** this definition plus a list of uniqued attribute parameters; the
** context uniques instances by (definition, parameters), so hooks never
** see storage. Every hook is optional:
**   parse: reads what follows the mnemonic (usually `<...>`) through
**       ir/asm/asm.h and appends the parameters; reports through
**       gilt_asm_emit_error. It must not assume the input is well formed
**       (the parse fuzzer feeds it anything). Without it, the parameters
**       are written as attributes: `<1 : i64, "x", f32>`, or nothing.
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

/* A dialect: its namespace, its op table and dialect-wide hooks. */
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

/* The parsed signature of an op definition. */
typedef struct GiltOpArgSpec {
  GiltIdent *name;
  bool variadic, optional;
} GiltOpArgSpec;

typedef enum GiltAttrConstraint {
  GILT_ATTR_ANY_KIND,
  GILT_ATTR_IS_INTEGER,
  GILT_ATTR_IS_FLOAT,
  GILT_ATTR_IS_BOOL,
  GILT_ATTR_IS_STRING,
  GILT_ATTR_IS_ARRAY,
  GILT_ATTR_IS_DICTIONARY,
  GILT_ATTR_IS_TYPE,
  GILT_ATTR_IS_SYMBOL,
  GILT_ATTR_IS_UNIT,
  GILT_ATTR_IS_ELEMENTS
} GiltAttrConstraint;

typedef struct GiltOpAttrSpec {
  GiltIdent *name;
  GiltAttrConstraint constraint;
  bool optional;
} GiltOpAttrSpec;

struct GiltDialectInfo {
  GiltIdent *name;
  const GiltDialectDef *def; /* NULL for an unregistered dialect */
};

/* What the context knows about an op name. */
struct GiltOpInfo {
  GiltIdent *name;
  const GiltOpDef *def; /* NULL for an unregistered op */
  GiltDialectInfo *dialect;
  size_t num_operand_specs, num_result_specs, num_attr_specs;
  GiltOpArgSpec *operand_specs, *result_specs;
  GiltOpAttrSpec *attr_specs;
};

/* Registers a dialect and its ops (parsing their signatures; a malformed
** signature is a programming error and asserts). */
GILT_INTERNAL GiltStatus gilt_context_register_dialect(
    GiltContext *ctx, const GiltDialectDef *def);
/* The registered op, or NULL. */
GILT_INTERNAL const GiltOpInfo *gilt_context_lookup_op(GiltContext *ctx,
                                                       const char *name,
                                                       size_t len);
/* The registered op, or (if allowed) an unregistered placeholder; else
** NULL after reporting at loc. */
GILT_INTERNAL const GiltOpInfo *gilt_context_get_op_info(GiltContext *ctx,
                                                         const char *name,
                                                         size_t len,
                                                         GiltLocation *loc);
GILT_INTERNAL GiltDialectInfo *gilt_context_lookup_dialect(GiltContext *ctx,
                                                           const char *name,
                                                           size_t len);
/* The type (is_type) or attribute definition of a registered dialect
** named `mnemonic`, or NULL (dialect_types.c). */
GILT_INTERNAL const GiltParametricDef *gilt_dialect_lookup_def(
    const GiltDialectInfo *d, bool is_type, const char *mnemonic,
    size_t len);

#endif /* GILT_IR_OP_DEF_H */
