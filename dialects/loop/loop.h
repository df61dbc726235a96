/*
** loop.h - the loop dialect: buffers (memrefs), loops, scalar and vector
** arithmetic; the middle level of gilt, between the graph dialect's
** tensors and the llvm dialect. The ops are listed in loop.def; this
** header is the contract between the dialect's files (verifiers, custom
** forms, folders), the lowering from graph (transforms/graph_to_loop/)
** and the interpreter (dialects/loop/interpreter/).
*/
#ifndef GILT_DIALECTS_LOOP_LOOP_H
#define GILT_DIALECTS_LOOP_LOOP_H

#include "gilt/asm.h"
#include "gilt/interfaces.h"
#include "gilt/tensor.h"
#include "ir/op_def.h"

GILT_INTERNAL extern const GiltDialectDef gilt_loop_dialect;

/* The hooks the rows of loop.def name. */
#define LOOP_HOOKS(X)                                                        \
  X(GiltStatus, verify_int_like, (GiltOp *))                                 \
  X(GiltStatus, verify_float_like, (GiltOp *))                               \
  X(GiltStatus, verify_cast, (GiltOp *))                                     \
  X(GiltStatus, verify_constant, (GiltOp *))                                 \
  X(GiltStatus, verify_compare, (GiltOp *))                                  \
  X(GiltStatus, verify_select, (GiltOp *))                                   \
  X(GiltStatus, verify_alloc, (GiltOp *))                                    \
  X(GiltStatus, verify_dealloc, (GiltOp *))                                  \
  X(GiltStatus, verify_load, (GiltOp *))                                     \
  X(GiltStatus, verify_store, (GiltOp *))                                    \
  X(GiltStatus, verify_prefetch, (GiltOp *))                                 \
  X(GiltStatus, verify_dim, (GiltOp *))                                      \
  X(GiltStatus, verify_subview, (GiltOp *))                                  \
  X(GiltStatus, verify_reshape, (GiltOp *))                                  \
  X(GiltStatus, verify_view, (GiltOp *))                                     \
  X(GiltStatus, verify_copy, (GiltOp *))                                     \
  X(GiltStatus, verify_global, (GiltOp *))                                   \
  X(GiltStatus, verify_get_global, (GiltOp *))                               \
  X(GiltStatus, verify_vector_access, (GiltOp *))                            \
  X(GiltStatus, verify_create_mask, (GiltOp *))                              \
  X(GiltStatus, verify_broadcast, (GiltOp *))                                \
  X(GiltStatus, verify_shuffle, (GiltOp *))                                  \
  X(GiltStatus, verify_extract, (GiltOp *))                                  \
  X(GiltStatus, verify_insert, (GiltOp *))                                   \
  X(GiltStatus, verify_reduction, (GiltOp *))                                \
  X(GiltStatus, verify_for, (GiltOp *))                                      \
  X(GiltStatus, verify_parallel, (GiltOp *))                                 \
  X(GiltStatus, verify_if, (GiltOp *))                                       \
  X(GiltStatus, verify_while, (GiltOp *))                                    \
  X(GiltStatus, verify_condition, (GiltOp *))                                \
  X(GiltStatus, verify_yield, (GiltOp *))                                    \
  X(GiltStatus, verify_assert, (GiltOp *))                                   \
  X(GiltStatus, verify_profile, (GiltOp *))                                  \
  X(GiltStatus, fold_arith,                                                  \
    (GiltOp *, GiltAttr *const *, GiltFoldResult *))                         \
  X(GiltStatus, fold_cast, (GiltOp *, GiltAttr *const *, GiltFoldResult *))  \
  X(GiltStatus, fold_constant,                                               \
    (GiltOp *, GiltAttr *const *, GiltFoldResult *))                         \
  X(GiltStatus, fold_select, (GiltOp *, GiltAttr *const *, GiltFoldResult *))\
  X(GiltStatus, fold_dim, (GiltOp *, GiltAttr *const *, GiltFoldResult *))   \
  X(GiltStatus, fold_load, (GiltOp *, GiltAttr *const *, GiltFoldResult *))  \
  X(void, print_constant, (GiltOp *, GiltAsmPrinter *))                      \
  X(GiltStatus, parse_constant, (GiltAsmParser *, GiltOpBuild *))            \
  X(void, print_compare, (GiltOp *, GiltAsmPrinter *))                       \
  X(GiltStatus, parse_compare, (GiltAsmParser *, GiltOpBuild *))             \
  X(void, print_select, (GiltOp *, GiltAsmPrinter *))                        \
  X(GiltStatus, parse_select, (GiltAsmParser *, GiltOpBuild *))              \
  X(void, print_alloc, (GiltOp *, GiltAsmPrinter *))                         \
  X(GiltStatus, parse_alloc, (GiltAsmParser *, GiltOpBuild *))               \
  X(void, print_memref_only, (GiltOp *, GiltAsmPrinter *))                   \
  X(GiltStatus, parse_memref_only, (GiltAsmParser *, GiltOpBuild *))         \
  X(void, print_access, (GiltOp *, GiltAsmPrinter *))                        \
  X(GiltStatus, parse_access, (GiltAsmParser *, GiltOpBuild *))              \
  X(void, print_for, (GiltOp *, GiltAsmPrinter *))                           \
  X(GiltStatus, parse_for, (GiltAsmParser *, GiltOpBuild *))                 \
  X(void, print_parallel, (GiltOp *, GiltAsmPrinter *))                      \
  X(GiltStatus, parse_parallel, (GiltAsmParser *, GiltOpBuild *))            \
  X(void, print_if, (GiltOp *, GiltAsmPrinter *))                            \
  X(GiltStatus, parse_if, (GiltAsmParser *, GiltOpBuild *))                  \
  X(void, print_yield, (GiltOp *, GiltAsmPrinter *))                         \
  X(GiltStatus, parse_yield, (GiltAsmParser *, GiltOpBuild *))

#define LOOP_DECLARE_HOOK(ret, name, args) GILT_INTERNAL ret loop_##name args;
LOOP_HOOKS(LOOP_DECLARE_HOOK)
#undef LOOP_DECLARE_HOOK

/* The interface tables the control-flow rows share. */
GILT_INTERNAL extern const GiltMemoryEffectsMethods loop_recursive_effects;
GILT_INTERNAL extern const GiltLoopLikeMethods loop_loop_like;

/* ---- op identity ---------------------------------------------------------- */

typedef enum LoopOpId {
#define GILT_OP(sym, ...) LOOP_OP_##sym,
#include "dialects/loop/loop.def"
#undef GILT_OP
  LOOP_NUM_OPS
} LoopOpId;

GILT_INTERNAL extern const GiltOpDef loop_ops[LOOP_NUM_OPS];

/* Whether op (possibly NULL) is the loop op `id`. */
static inline bool loop_op_is(const GiltOp *op, LoopOpId id)
{
  return gilt_op_is(op, &loop_ops[id]);
}

/* Which loop op `op` is; LOOP_NUM_OPS for any other op. */
static inline LoopOpId loop_op_id(const GiltOp *op)
{
  const GiltOpDef *def = op->info->def;
  if (def < loop_ops || def >= loop_ops + LOOP_NUM_OPS)
    return LOOP_NUM_OPS;
  return (LoopOpId)(def - loop_ops);
}

/* ---- types ---------------------------------------------------------------- */

/* The most lanes a vector of a loop op has: vectors are registers, and
** the interpreter keeps a vector's lanes in cells it may copy on the C
** stack; a longer vector is a loop over a buffer. */
#define LOOP_MAX_LANES 4096
/* The most bytes loop.alloc's `alignment` asks for (a page of the
** largest common kind). */
#define LOOP_MAX_ALIGNMENT (1 << 20)

/* The scalar type of a scalar or of a vector's lanes. */
GILT_INTERNAL GiltType *loop_element_type(GiltType *t);
/* Whether v is a loop.constant of an integer (or index) value, and that
** value into *out. */
GILT_INTERNAL bool loop_constant_int(GiltValue *v, int64_t *out);
/* The trip count of a loop of these bounds when they are constants, or
** -1 (not constants, a step below 1, or past int64_t). */
GILT_INTERNAL int64_t loop_static_trips(GiltValue *lb, GiltValue *ub,
                                        GiltValue *step);
/* A loop.parallel's iterations in all, by loop_static_trips of each
** dimension; -1 where one is not known or the product passes int64_t. */
GILT_INTERNAL int64_t loop_parallel_static_iterations(GiltOp *par);
/* Whether t is an integer or index type, or a vector of them. */
GILT_INTERNAL bool loop_is_int_like(GiltType *t);
/* Whether t is a float type, or a vector of them. */
GILT_INTERNAL bool loop_is_float_like(GiltType *t);
/* The i1 type of t's shape: i1, or vector<N x i1> for a vector t. */
GILT_INTERNAL GiltType *loop_bool_like(GiltType *t);

/* The strides and offset of a memref, in elements: from its strided
** layout, or row-major for the identity layout. strides has room for the
** rank; entries may be GILT_DYNAMIC. */
GILT_INTERNAL void loop_memref_strides(GiltType *memref, int64_t *strides,
                                       int64_t *offset);
/* Whether a memref's elements are dense and row-major (identity layout,
** or a strided one that says the same with a zero offset). */
GILT_INTERNAL bool loop_memref_is_contiguous(GiltType *memref);

/* How an op uses a buffer it is given, for the passes that follow
** buffers (loop-buffer-deallocation, loop-plan-memory): an access reads,
** writes, measures or prefetches it without keeping it (loads, stores,
** dim, copy, prefetch); a view op makes a new descriptor of its operand 0
** (subview, reshape, view) that aliases it. */
GILT_INTERNAL bool loop_op_is_buffer_access(GiltOp *op);
GILT_INTERNAL bool loop_op_is_view(GiltOp *op);

/* loop.alloc's verifier: a result of the identity layout and of integers
** (up to 64 bits), indices or floats, one size operand per dynamic
** dimension, a power-of-two `alignment`. gpu.alloc checks the same. */
GILT_INTERNAL GiltStatus loop_verify_alloc(GiltOp *op);

/* The buffer type of the loop.global `global`, or NULL when it is no
** loop.global or its `type` is not a memref type. The verifiers of the ops
** that name a global (loop.get_global, gpu.device_global) read it
** through this: the global may not have been verified yet, or may have
** failed, and its own verifier reports why. */
GILT_INTERNAL GiltType *loop_global_type(GiltOp *global);

/* ---- running a function (signature.c) --------------------------------------- */

/* Whether inputs[0..num_inputs) fit the arguments of a function of type
** fn_type (gilt/interpreter.h says how); reports the first that does not
** at loc, in the interpreter's words ("'func.func' op input 1 is ..."). */
GILT_INTERNAL GiltStatus loop_check_inputs(GiltLocation *loc,
                                           GiltType *fn_type,
                                           size_t num_inputs,
                                           GiltTensor *const *inputs);

#endif /* GILT_DIALECTS_LOOP_LOOP_H */
