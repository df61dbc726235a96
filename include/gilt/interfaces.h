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
** left out) puts the effect on unknown memory: never less than stated. */
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

/* ---- callable ----------------------------------------------------------- */

/* An op that can be called (MLIR's CallableOpInterface): it has a region
** that a call runs, with one block argument per argument, and a function
** type that says what a call passes and gets back. The inliner and call
** verifiers use it; they never ask which op it is. */
typedef struct GiltCallableMethods {
  /* The region a call runs, NULL when there is none (a declaration). */
  GiltRegion *(*get_callable_region)(GiltOp *op);
  /* A function type: the argument types, then the result types; NULL when
  ** the op is malformed (its verifier says why). */
  GiltType *(*get_callable_type)(GiltOp *op);
} GiltCallableMethods;

GILT_API extern const GiltInterface gilt_callable_interface;
/* The region a call of `op` runs; NULL when `op` is not callable or is a
** declaration. */
GILT_API GiltRegion *gilt_callable_get_region(GiltOp *op);
/* The function type of `op` (borrowed); NULL when it is not callable or
** is malformed. */
GILT_API GiltType *gilt_callable_get_type(GiltOp *op);

/* ---- call-like ---------------------------------------------------------- */

/* An op that calls a callable by symbol (MLIR's CallOpInterface): it names
** the callee with a symbol reference and passes some of its operands as the
** callee's arguments; its results are the callee's results. */
typedef struct GiltCallLikeMethods {
  /* The symbol reference naming the callee, NULL when it has none. */
  GiltAttr *(*get_callee)(GiltOp *op);
  /* Makes the op call `callee` (a symbol reference attribute) instead. */
  void (*set_callee)(GiltOp *op, GiltAttr *callee);
  /* The operands passed as arguments are [*first, *first + count); returns
  ** count. */
  size_t (*get_arg_operands)(GiltOp *op, size_t *first);
} GiltCallLikeMethods;

GILT_API extern const GiltInterface gilt_call_like_interface;
/* The methods of an op whose `callee` attribute names the callee and whose
** operands are all arguments, as func.call: a row lists
** {&gilt_call_like_interface, &gilt_call_like_callee_attr_methods}. */
GILT_API extern const GiltCallLikeMethods gilt_call_like_callee_attr_methods;

/* The callee's symbol reference (borrowed); NULL when `call` is not
** call-like or names no callee. */
GILT_API GiltAttr *gilt_call_like_get_callee(GiltOp *call);
/* Makes `call` call the symbol reference `callee`. Fails, reporting
** nothing, when `call` is not call-like or `callee` is not a symbol
** reference. */
GILT_API GiltStatus gilt_call_like_set_callee(GiltOp *call, GiltAttr *callee);
/* The operands passed to the callee: how many, and the i-th (borrowed). Not
** call-like: 0 and NULL. */
GILT_API size_t gilt_call_like_get_num_args(GiltOp *call);
GILT_API GiltValue *gilt_call_like_get_arg(GiltOp *call, size_t i);
/* The callable op the callee names, looked up from the nearest symbol table
** around `call` (MLIR's resolveCallable); NULL when `call` is not call-like
** or the symbol is missing or not callable. */
GILT_API GiltOp *gilt_call_like_resolve_callee(GiltOp *call);
/* The checks every call-like op wants from its verify hook (MLIR's
** CallOp::verifySymbolUses): the callee is a flat reference to a callable
** whose argument and result types are those of the call. Reports the first
** problem at `call` and fails. */
GILT_API GiltStatus gilt_call_like_verify(GiltOp *call);

/* ---- function-like ------------------------------------------------------ */

/* An op that is a function (MLIR's FunctionOpInterface): a symbol whose
** `function_type` attribute holds its function type, whose optional
** `arg_attrs`/`res_attrs` arrays hold one dictionary per argument/result,
** and whose one region is the body (no blocks for a declaration, else an
** entry block whose arguments are the function's). The storage is the same
** for every function-like op, so the accessors below need no methods; the
** table holds what may differ. A function-like op is callable too: its row
** lists both, through GILT_FUNCTION_LIKE_INTERFACES:
**
**     {.name = "my.func",
**      .traits = GILT_TRAIT_SYMBOL | GILT_TRAIT_ISOLATED_FROM_ABOVE,
**      .attributes = "sym_name: string, function_type: type, "
**                    "sym_visibility?: string, arg_attrs?: array, "
**                    "res_attrs?: array",
**      .num_regions = 1,
**      .verify = gilt_function_like_verify,
**      .interfaces = GILT_INTERFACES(GILT_FUNCTION_LIKE_INTERFACES)}
**
** gilt_function_like_verify is below. gilt's own function ops also share
** the textual signature, `my.func private @f(%arg0: i32 {attrs}) -> (i32
** {attrs}) attributes {...} {body}`, printed and parsed by
** ir/asm/function_asm.h; an op of another dialect uses the generic form
** or its own hooks. */
typedef struct GiltFunctionLikeMethods {
  /* The function type, NULL when malformed. */
  GiltType *(*get_type)(GiltOp *op);
} GiltFunctionLikeMethods;

GILT_API extern const GiltInterface gilt_function_like_interface;
/* The methods of an op that keeps its type in `function_type`. */
GILT_API extern const GiltFunctionLikeMethods gilt_function_like_methods;
/* Callable through its body region and its function type. */
GILT_API extern const GiltCallableMethods gilt_function_like_callable_methods;

/* The `.interfaces` entries of a function-like op: function-like and
** callable. */
#define GILT_FUNCTION_LIKE_INTERFACES                                        \
  {&gilt_function_like_interface, &gilt_function_like_methods},              \
  {&gilt_callable_interface, &gilt_function_like_callable_methods}

GILT_API bool gilt_op_is_function_like(GiltOp *op);
/* The function type (borrowed); NULL when `func` is not function-like or
** its `function_type` is not a function type. */
GILT_API GiltType *gilt_function_like_get_type(GiltOp *func);
/* The body region; NULL when `func` is not function-like or has no
** region. */
GILT_API GiltRegion *gilt_function_like_get_body(GiltOp *func);
/* The entry block; NULL for a declaration or an op that is not
** function-like. */
GILT_API GiltBlock *gilt_function_like_get_entry_block(GiltOp *func);
/* Whether a function-like op has no body. */
GILT_API bool gilt_function_like_is_declaration(GiltOp *func);
/* The attribute dictionary of argument / result i (borrowed); NULL when
** there is none. */
GILT_API GiltAttr *gilt_function_like_get_arg_attrs(GiltOp *func, size_t i);
GILT_API GiltAttr *gilt_function_like_get_res_attrs(GiltOp *func, size_t i);
/* The checks of every function-like op, for its verify hook (MLIR's
** function_interface_impl::verifyTrait): `function_type` is a function
** type, `arg_attrs`/`res_attrs` have one dictionary per argument/result, a
** declaration is not public, and the entry block's arguments have the
** argument types. Reports the first problem at `func` and fails. */
GILT_API GiltStatus gilt_function_like_verify(GiltOp *func);
/* The checks of a return-like terminator `ret` against the results of the
** function-like op `func` it returns from: as many operands as results,
** of the same types. */
GILT_API GiltStatus gilt_function_like_verify_return(GiltOp *func,
                                                     GiltOp *ret);

#ifdef __cplusplus
}
#endif

#endif /* GILT_INTERFACES_H */
