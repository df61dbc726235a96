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
  GILT_TRAIT_GRAPH_REGION = 1u << 12,   /* no SSA dominance inside */
  GILT_TRAIT_SAME_ELEMENT_TYPE = 1u << 13, /* operands, results: one element
                                           type (a scalar is its own) */
  GILT_TRAIT_ATTR_SIZED_OPERANDS = 1u << 14, /* `operandSegmentSizes` */
  GILT_TRAIT_ATTR_SIZED_RESULTS = 1u << 15   /* `resultSegmentSizes` */
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

/* A dialect: its namespace, its op table and dialect-wide hooks. */
typedef struct GiltDialectDef {
  const char *name;
  const GiltOpDef *ops;
  size_t num_ops;
  /* Builds a constant op producing `value` of `type`, for folding;
  ** NULL when the dialect has no constant op. */
  GiltOp *(*materialize_constant)(GiltBuilder *b, GiltAttr *value,
                                  GiltType *type, GiltLocation *loc);
} GiltDialectDef;

/* What the type of an operand or result must be (ir/signature.c). The
** container kinds constrain their element type by `elem`, a scalar kind
** or GILT_TYPE_ANY_KIND. */
typedef enum GiltTypeConstraintKind {
  GILT_TYPE_ANY_KIND,
  GILT_TYPE_IS_INDEX,
  GILT_TYPE_IS_INTEGER,
  GILT_TYPE_IS_SIGNLESS_INTEGER,
  GILT_TYPE_IS_SIGNLESS_INTEGER_OR_INDEX,
  GILT_TYPE_IS_FLOAT,
  GILT_TYPE_IS_INT_OR_FLOAT,
  GILT_TYPE_IS_TENSOR,
  GILT_TYPE_IS_RANKED_TENSOR,
  GILT_TYPE_IS_MEMREF,
  GILT_TYPE_IS_VECTOR,
  GILT_TYPE_IS_SHAPED
} GiltTypeConstraintKind;

typedef struct GiltTypeConstraint {
  GiltTypeConstraintKind kind, elem;
} GiltTypeConstraint;

/* The parsed signature of an op definition: one spec per group. */
typedef struct GiltOpArgSpec {
  GiltIdent *name;
  bool variadic, optional;
  GiltTypeConstraint type;
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

#endif /* GILT_IR_OP_DEF_H */
