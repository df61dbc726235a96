/*
** op_def.h - what the context knows about a dialect's ops, for the files
** of ir/ and the dialects gilt ships.
**
** The definitions themselves (GiltOpDef, GiltDialectDef, traits,
** interfaces) are public, in include/gilt/dialect.h. Here: GILT_OP_ROW,
** which the `.def` tables of gilt's own dialects expand through,
**
**   GILT_OP(CALL, "func.call", GILT_TRAIT_NONE,
**           "operands*", "results*", "callee: symbol", 0, 0,
**           .verify = verify_call, .print = print_call, .parse = parse_call)
**
** and expand once more into an enum of their ops from the symbol column
** (FUNC_OP_CALL indexes gilt_func_ops), so that code asks which op an op
** is by comparing definition pointers (gilt_op_is), never names. Also the
** registry's view of an op: its parsed signature (GiltOpInfo) and the
** interfaces attached to it from outside its dialect.
*/
#ifndef GILT_IR_OP_DEF_H
#define GILT_IR_OP_DEF_H

#include "gilt/dialect.h"
#include "ir/core.h"

#define GILT_OP_ROW(name_, traits_, operands_, results_, attrs_, regions_,   \
                    successors_, ...)                                        \
  {.name = (name_), .traits = (traits_), .operands = (operands_),            \
   .results = (results_), .attributes = (attrs_),                            \
   .num_regions = (regions_), .num_successors = (successors_), __VA_ARGS__},

/* A GILT_OP(sym, name, ...) row as a table entry: a dialect's .c defines
** GILT_OP as this around the #include of its .def. */
#define GILT_OP_AS_ROW(sym, ...) GILT_OP_ROW(__VA_ARGS__)

/* The op table fields of a GiltDialectDef initializer, from the array
** `ops_`. */
#define GILT_DIALECT_OPS(ops_)                                                \
  .ops = (ops_), .num_ops = sizeof(ops_) / sizeof *(ops_)

/* The parameters of a dialect-defined type or attribute, in order, as a
** parse hook collects them (a GILT_VEC: append with gilt_vec_push). */
struct GiltParamVec {
  GiltAttr **data;
  size_t len, cap;
};

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

/* An interface attached to an op from outside its row (interface.c). */
typedef struct GiltAttachedInterface {
  GiltInterfaceImpl impl;
  struct GiltAttachedInterface *next;
} GiltAttachedInterface;

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
  GiltAttachedInterface *attached; /* external models, newest first */
};

/* Whether op is an instance of the op that `def` defines. An op is known
** by its definition's address, never by comparing names: each dialect
** exports its table, indexed by an enum made from the rows' symbol column
** (graph_op_is, gilt_func_op_is, gilt_builtin_op_is wrap this). False for
** a NULL op and for unregistered ops. */
static inline bool gilt_op_is(const GiltOp *op, const GiltOpDef *def)
{
  return op && op->info->def == def;
}

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
