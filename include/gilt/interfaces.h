/*
** gilt/interfaces.h - the op interfaces the IR core defines, for every
** level to implement and query (gilt/dialect.h has the mechanism).
**
** Each interface is a GiltInterface object and a struct of functions; an
** op implements it by listing {&gilt_X_interface, &its_methods} in its
** row's `interfaces`, or by an external model attached to it. The query
** functions here answer conservatively for ops that implement nothing.
** Interfaces that belong to one level (lowering, interpretation) are
** defined by that level, with the same mechanism.
*/
#ifndef GILT_INTERFACES_H
#define GILT_INTERFACES_H

#include "gilt/dialect.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- fusion kind -------------------------------------------------------- */

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

typedef struct GiltFusionKindMethods {
  GiltFusionKind (*get_kind)(GiltOp *op);
} GiltFusionKindMethods;

GILT_API extern const GiltInterface gilt_fusion_kind_interface;
/* The op's fusion kind; opaque when it does not implement the interface. */
GILT_API GiltFusionKind gilt_op_get_fusion_kind(GiltOp *op);

/* ---- memory effects ------------------------------------------------------ */

/* What an op does to memory, per value, as MLIR's MemoryEffectOpInterface:
** a list of effects, each a kind and the value (an operand or a result of
** the op) whose memory it touches, or NULL for memory the op does not name
** (a global, whatever a call reaches).
**
** Where effects come from:
**   - the PURE trait: the op itself has none; for an op with regions, the
**     effects of the ops nested in it count (MLIR's Pure plus
**     RecursiveMemoryEffects).
**   - this interface: the `effects` a row states declaratively, plus what
**     `get_effects` adds; with `recursive`, the nested ops' effects too.
**   - neither: unknown, the op may do anything (unregistered ops, calls).
** Inside an op with recursive effects, a terminator without regions that
** states nothing counts as effect-free: it only hands values back.
**
** A row states simple effects without a function:
**
**     .interfaces = GILT_INTERFACES(GILT_MEMORY_EFFECTS(
**         GILT_EFFECT_ON_OPERAND(GILT_EFFECT_READ, 0)))
*/
typedef enum GiltEffectKind {
  GILT_EFFECT_READ = 1,   /* 0 ends a GILT_EFFECTS list */
  GILT_EFFECT_WRITE,
  GILT_EFFECT_ALLOCATE,   /* the value's memory starts to exist */
  GILT_EFFECT_FREE        /* the value's memory stops existing */
} GiltEffectKind;

typedef struct GiltMemoryEffect {
  GiltEffectKind kind;
  GiltValue *value; /* borrowed; NULL: memory the op does not name */
} GiltMemoryEffect;

/* One effect a row states: on operand `index`, result `index`, or unknown
** memory. An index past the op's operands or results (an optional operand
** left out) states nothing. */
typedef enum GiltEffectTarget {
  GILT_EFFECT_TARGET_OPERAND,
  GILT_EFFECT_TARGET_RESULT,
  GILT_EFFECT_TARGET_UNKNOWN
} GiltEffectTarget;

typedef struct GiltEffectSpec {
  GiltEffectKind kind;
  GiltEffectTarget target;
  unsigned index;
} GiltEffectSpec;

#define GILT_EFFECT_ON_OPERAND(kind, i)                                      \
  {(kind), GILT_EFFECT_TARGET_OPERAND, (i)}
#define GILT_EFFECT_ON_RESULT(kind, i) {(kind), GILT_EFFECT_TARGET_RESULT, (i)}
#define GILT_EFFECT_ON_UNKNOWN(kind) {(kind), GILT_EFFECT_TARGET_UNKNOWN, 0}
/* A list of specs ending in a zeroed entry, written in place. Like
** GILT_INTERFACES, for tables at file scope, where the compound literals
** it makes are static. */
#define GILT_EFFECTS(...) ((const GiltEffectSpec[]){__VA_ARGS__, {0, 0, 0}})
/* An entry of GILT_INTERFACES: the interface with these specs alone. */
#define GILT_MEMORY_EFFECTS(...)                                             \
  {&gilt_memory_effects_interface,                                           \
   &(const GiltMemoryEffectsMethods){.effects = GILT_EFFECTS(__VA_ARGS__)}}

/* Where get_effects puts what it finds (gilt_effects_add). */
typedef struct GiltEffects GiltEffects;

typedef struct GiltMemoryEffectsMethods {
  /* Declared effects (GILT_EFFECTS), or NULL. */
  const GiltEffectSpec *effects;
  /* Adds the effects that depend on the op itself (attributes, operand
  ** types), or NULL. Must not touch the IR. */
  void (*get_effects)(GiltOp *op, GiltEffects *effects);
  /* The effects of the ops nested in this op's regions are its own too. */
  bool recursive;
} GiltMemoryEffectsMethods;

GILT_API extern const GiltInterface gilt_memory_effects_interface;

/* Adds one effect, for get_effects. `value` (may be NULL) is borrowed. */
GILT_API void gilt_effects_add(GiltEffects *effects, GiltEffectKind kind,
                               GiltValue *value);

/* Everything running `op` may do to memory, nested ops included where its
** effects are recursive (MLIR's getEffectsRecursively). Returns false when
** they are unknown. Otherwise `*num` gets their number and out[0..cap)
** the first of them (out may be NULL when cap is 0), as snprintf: ask
** again with more room when *num > cap. Effects on values defined inside
** the op are listed too. */
GILT_API bool gilt_op_get_memory_effects(GiltOp *op, GiltMemoryEffect *out,
                                         size_t cap, size_t *num);
/* Known to have no effect at all (MLIR's isMemoryEffectFree). */
GILT_API bool gilt_op_is_effect_free(GiltOp *op);
/* Known, and every effect is a read (true for an effect-free op too). */
GILT_API bool gilt_op_only_reads(GiltOp *op);
/* Unknown, or some effect is of `kind`. */
GILT_API bool gilt_op_may_have_effect(GiltOp *op, GiltEffectKind kind);
/* Unknown, or some effect writes or frees: what may change the value a
** read sees. */
GILT_API bool gilt_op_may_write(GiltOp *op);

/* ---- loop-like ------------------------------------------------------------ */

/* An op whose regions run repeatedly (a loop body), as MLIR's
** LoopLikeOpInterface: what LICM and tiling ask of a loop. Every method
** may be NULL for the default given with it; most loops state
** `&(const GiltLoopLikeMethods){0}`. */
typedef struct GiltLoopLikeMethods {
  /* Writes the body regions to out[0..cap) and returns their number.
  ** Default: every region of the op. */
  size_t (*get_loop_regions)(GiltOp *loop, GiltRegion **out, size_t cap);
  /* Whether `value` is the same on every iteration because it is defined
  ** outside the loop. Default: it is not defined in a region of the loop
  ** (block arguments of the body are inside). */
  bool (*is_defined_outside)(GiltOp *loop, GiltValue *value);
  /* Moves `op`, an op directly in a body region, where it runs once,
  ** before the loop. Default: right before the loop op. */
  void (*move_out_of_loop)(GiltOp *loop, GiltOp *op);
} GiltLoopLikeMethods;

GILT_API extern const GiltInterface gilt_loop_like_interface;

/* Whether op implements the loop-like interface. */
GILT_API bool gilt_op_is_loop_like(GiltOp *op);
/* The loop's body regions, snprintf-style: out[0..cap) gets the first,
** the return value counts them all. `loop` must be loop-like. */
GILT_API size_t gilt_loop_like_get_regions(GiltOp *loop, GiltRegion **out,
                                           size_t cap);
/* Whether `value` is defined outside the loop-like op `loop`. */
GILT_API bool gilt_loop_like_is_defined_outside(GiltOp *loop,
                                                GiltValue *value);
/* Moves `op`, directly in one of the loop's body regions, out of it. */
GILT_API void gilt_loop_like_move_out(GiltOp *loop, GiltOp *op);

#ifdef __cplusplus
}
#endif

#endif /* GILT_INTERFACES_H */
