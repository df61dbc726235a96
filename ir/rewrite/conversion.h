/*
** conversion.h - the dialect conversion driver, for lowerings.
**
** As MLIR's applyPartialConversion / applyFullConversion, in three parts:
**
**   - a GiltConversionTarget says which ops are legal after the
**     conversion: by op name or by dialect, explicitly legal, explicitly
**     illegal, or dynamically legal through a callback. An op rule wins
**     over a dialect rule; a later rule for the same name wins over an
**     earlier one.
**   - a GiltTypeConverter maps types (i64 -> i32, tensor -> memref) and
**     knows how to build cast ops where converted and unconverted IR meet:
**     a source materialization turns a converted value back into its
**     original type for users not converted (yet, or ever); a target
**     materialization turns an original value into the converted type a
**     pattern asks for.
**   - conversion patterns are ordinary GiltPatterns run with a conversion
**     rewriter. Inside one, gilt_conversion_get_operands gives the op's
**     operands already converted (casts looked through or built), and
**     replacing a value by one of another type inserts a source
**     materialization for the users that still want the old type.
**
** The driver visits every op nested in the root (not the root itself), in
** program order, and ops the patterns create too. An op that is illegal
** (or, in a full conversion, not legal) and that no pattern converts is
** reported with its location, one error per op, and the conversion goes on
** to report the others, then fails. It works on a copy of the root's
** regions and moves the result in only on success, so a failed conversion
** leaves the IR as it was. Patterns therefore see the root detached from
** its parent: symbol lookups work inside the root, not above it.
**
** Casts left unused at the end are erased, and a target materialization
** of a source materialization that gets back to the original value is
** looked through. What remains are the casts between converted and
** unconverted IR that a partial conversion leaves on purpose.
**
** Not supported: 1:N type conversions (a type becoming several values),
** converting the root op itself, and undo of individual patterns (the
** whole conversion is undone by discarding the copy).
*/
#ifndef GILT_IR_CONVERSION_H
#define GILT_IR_CONVERSION_H

#include "ir/rewrite/rewrite.h"

/* ---- legality ----------------------------------------------------------- */

typedef enum GiltLegality {
  GILT_LEGALITY_UNKNOWN, /* no rule: left alone by a partial conversion */
  GILT_LEGALITY_LEGAL,
  GILT_LEGALITY_ILLEGAL
} GiltLegality;

/* Whether a dynamically legal op is legal as it stands. */
typedef bool (*GiltLegalityFn)(GiltOp *op, void *user);

typedef struct GiltLegalityRule {
  GiltIdent *name; /* an op name, or a dialect name */
  bool is_dialect;
  GiltLegality legality; /* ignored when fn is set */
  GiltLegalityFn fn;
  void *user;
} GiltLegalityRule;

typedef struct GiltConversionTarget {
  GiltContext *ctx;
  GILT_VEC(GiltLegalityRule) rules;
} GiltConversionTarget;

GILT_INTERNAL void gilt_conversion_target_init(GiltConversionTarget *t,
                                               GiltContext *ctx);
GILT_INTERNAL void gilt_conversion_target_free(GiltConversionTarget *t);
GILT_INTERNAL void gilt_conversion_target_add_legal_op(
    GiltConversionTarget *t, const char *op_name);
GILT_INTERNAL void gilt_conversion_target_add_illegal_op(
    GiltConversionTarget *t, const char *op_name);
GILT_INTERNAL void gilt_conversion_target_add_legal_dialect(
    GiltConversionTarget *t, const char *dialect);
GILT_INTERNAL void gilt_conversion_target_add_illegal_dialect(
    GiltConversionTarget *t, const char *dialect);
/* Legal when fn returns true, illegal (as if explicitly) otherwise. */
GILT_INTERNAL void gilt_conversion_target_add_dynamic_op(
    GiltConversionTarget *t, const char *op_name, GiltLegalityFn fn,
    void *user);
GILT_INTERNAL void gilt_conversion_target_add_dynamic_dialect(
    GiltConversionTarget *t, const char *dialect, GiltLegalityFn fn,
    void *user);
GILT_INTERNAL GiltLegality gilt_conversion_target_get_legality(
    const GiltConversionTarget *t, GiltOp *op);

/* ---- type conversion ---------------------------------------------------- */

/* Returns the converted type (possibly `type` itself: already legal), or
** NULL when this callback does not handle `type`. */
typedef GiltType *(*GiltTypeConversionFn)(GiltType *type, void *user);
/* Builds, at the builder's insertion point, ops turning `input` into a
** value of `type` (usually one cast op); returns that value, or NULL when
** it cannot. */
typedef GiltValue *(*GiltMaterializationFn)(GiltBuilder *b, GiltType *type,
                                            GiltValue *input,
                                            GiltLocation *loc, void *user);

typedef struct GiltTypeConversion {
  GiltTypeConversionFn fn;
  void *user;
} GiltTypeConversion;

typedef struct GiltTypeConverter {
  GiltContext *ctx;
  GILT_VEC(GiltTypeConversion) conversions; /* the last added is tried first */
  GiltMaterializationFn source_materialization;
  void *source_user;
  GiltMaterializationFn target_materialization;
  void *target_user;
} GiltTypeConverter;

GILT_INTERNAL void gilt_type_converter_init(GiltTypeConverter *tc,
                                            GiltContext *ctx);
GILT_INTERNAL void gilt_type_converter_free(GiltTypeConverter *tc);
/* As MLIR: callbacks are tried from the last added to the first; the
** first that handles the type decides. Add the identity first to keep
** every type no other callback handles. */
GILT_INTERNAL void gilt_type_converter_add_conversion(
    GiltTypeConverter *tc, GiltTypeConversionFn fn, void *user);
GILT_INTERNAL void gilt_type_converter_set_source_materialization(
    GiltTypeConverter *tc, GiltMaterializationFn fn, void *user);
GILT_INTERNAL void gilt_type_converter_set_target_materialization(
    GiltTypeConverter *tc, GiltMaterializationFn fn, void *user);
/* The converted type, NULL when no callback handles it. */
GILT_INTERNAL GiltType *gilt_type_converter_convert(
    const GiltTypeConverter *tc, GiltType *type);
/* Whether the type converts to itself. */
GILT_INTERNAL bool gilt_type_converter_is_legal(const GiltTypeConverter *tc,
                                                GiltType *type);
/* Whether every operand and result type of op is legal (a convenient
** dynamic legality test for ops that only carry values). */
GILT_INTERNAL bool gilt_type_converter_is_op_legal(
    const GiltTypeConverter *tc, GiltOp *op);
/* A function type with every input and result converted; NULL when one
** does not convert. */
GILT_INTERNAL GiltType *gilt_type_converter_convert_function_type(
    const GiltTypeConverter *tc, GiltType *fn_type);

/* ---- inside a conversion pattern ----------------------------------------- */

/* The matched op's operands, converted: operand i of the result is the
** value of converted type standing for op's operand i (or the operand
** itself when its type is legal or does not convert). The array lives
** until the pattern returns. Only valid on a conversion rewriter. */
GILT_INTERNAL GiltValue *const *gilt_conversion_get_operands(
    GiltRewriter *rw);
/* The value of converted type standing for any value v the pattern
** reaches beyond the matched op's operands (those of the terminator of a
** region it moves into a new op, say), as gilt_conversion_get_operands
** gives them: v itself when legal, the input of a cast the driver made,
** or a new cast placed before `before`. When v's producer is converted
** later, the cast folds away at the end as the driver's own do. */
GILT_INTERNAL GiltValue *gilt_conversion_get_remapped_value(
    GiltRewriter *rw, GiltValue *v, GiltOp *before);
/* The conversion's type converter; NULL when it has none. */
GILT_INTERNAL const GiltTypeConverter *gilt_conversion_get_type_converter(
    GiltRewriter *rw);
/* Converts the argument types of every block of `region` (MLIR's
** convertRegionTypes), inserting source materializations for the uses.
** Fails, changing nothing, when a type does not convert. */
GILT_INTERNAL GiltStatus gilt_conversion_convert_region_types(
    GiltRewriter *rw, GiltRegion *region);

/* Generic patterns. The signature pattern converts ops that keep their
** type in a `function_type` attribute (func.func): the attribute and the
** argument types of the blocks of their regions, in place. The type
** pattern rebuilds an op with its converted operands and converted result
** types, moving its regions over (func.return, func.call, and any op whose
** only illegality is its types). `op_name` is borrowed for the set's
** lifetime (a string literal). */
GILT_INTERNAL void gilt_conversion_add_signature_pattern(
    GiltPatternSet *set, const char *op_name);
GILT_INTERNAL void gilt_conversion_add_type_pattern(GiltPatternSet *set,
                                                    const char *op_name);

/* ---- the drivers ---------------------------------------------------------- */

/* Converts the ops nested in `op` until every one is legal or unknown to
** the target. `tc` may be NULL (no type conversion). Reports every op
** left illegal and fails; on failure the IR is unchanged. */
GILT_INTERNAL GiltStatus gilt_apply_partial_conversion(
    GiltOp *op, const GiltConversionTarget *target,
    const GiltPatternSet *patterns, const GiltTypeConverter *tc);
/* The same, but every op must end up legal: ops the target does not know
** must be converted too. */
GILT_INTERNAL GiltStatus gilt_apply_full_conversion(
    GiltOp *op, const GiltConversionTarget *target,
    const GiltPatternSet *patterns, const GiltTypeConverter *tc);

#endif /* GILT_IR_CONVERSION_H */
