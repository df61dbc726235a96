/*
** lowering.h - lowering the loop level to the llvm dialect (the
** `loop-to-llvm` pass): the state one run shares between the family files,
** and the builder they emit llvm ops with.
**
** The lowering is one walk, not a set of conversion patterns: every
** func.func is rebuilt as an llvm.func beside the original, op by op in
** program order, with a map from each loop-level value to the llvm value
** standing for it. Structured control flow becomes blocks as it is met,
** so nothing needs splitting afterwards, and the one type that becomes
** several things at the ABI (a memref: a descriptor pointer in the
** signature, a struct value inside) is handled where functions are built.
** An op that cannot be lowered is reported at its location and stands for
** poison values, so the walk goes on and reports the others; the module
** is swapped only when nothing failed.
**
** Files: pass.c (the walk, types, values), emit.c (op building, runtime
** declarations, failure paths), func.c (signatures and calls, jit/abi.h),
** memory.c (descriptors and buffers), arith.c (scalar arithmetic), cast.c,
** vector.c, control.c (loops, branches, asserts), parallel.c (loop.parallel
** outlined for the runtime's parallel-for).
**
** Device mode (gpu-to-nvvm, gpu/to_nvvm.c) runs the same walk over the
** kernels of a gpu.module, for NVPTX: there is no runtime to call there,
** so a failed run-time check traps (llvm.trap: the launch fails and the
** host's CUDA call reports it) instead of calling gilt_rt_fail, a nested
** loop.parallel runs as sequential loops in its thread, and what would
** call the runtime or the C library (allocation, weights, calls, math
** without an NVPTX instruction) is reported at its location.
*/
#ifndef GILT_TRANSFORMS_LOOP_TO_LLVM_LOWERING_H
#define GILT_TRANSFORMS_LOOP_TO_LLVM_LOWERING_H

#include "dialects/llvm/llvm.h"
#include "dialects/loop/loop.h"
#include "gilt/pass.h"
#include "ir/core.h"
#include "ir/support/ptr_map.h"

typedef struct L2L {
  GiltContext *ctx;
  GiltOp *module;   /* the module being lowered (symbol lookups) */
  GiltBlock *out;   /* detached: the new module-level ops, in order */
  GiltBuilder *b;   /* the insertion point in the function being built */
  GiltOp *op;       /* the op being lowered: errors name it */
  GiltLocation *loc; /* its location, which every new op gets */
  GiltRegion *body; /* the region of the llvm.func being built */
  GiltBlock *entry; /* its entry block, where stack slots go */
  GiltValue *const *results; /* its result pointers (func.return) */
  GiltValue *scope; /* its buffers' scope (gilt_rt_scope_enter's mark) */
  /* In the body outlined from a loop.parallel, the i32 of its context
  ** where a failed chunk leaves its status; NULL in a function. */
  GiltValue *status;
  /* There too: the context, its type, the field that points at the
  ** locations of the body's failure messages, and their texts (parallel.c:
  ** l2l_outlined_location). */
  GiltValue *context;
  GiltType *context_type;
  size_t locations_field;
  GILT_VEC(GiltIdent *) locations;
  const char *func_name; /* the func.func being lowered */
  unsigned num_outlined; /* bodies outlined so far (their names) */
  /* The distinct outlined functions and their bodies' hashes, which a
  ** body like one of them shares (parallel.c). */
  GILT_VEC(struct L2LOutlined { uint32_t hash; GiltOp *fn; }) outlined;
  GiltPtrMap values;  /* loop value -> llvm value */
  GiltPtrMap symbols; /* interned name -> 1: symbols already in `out` */
  GiltPtrMap strings; /* interned text -> number of its string global */
  /* Ops of a parallel body lowered around its chunk's loop rather than
  ** in it (parallel.c's private buffers): l2l_lower_block skips them. */
  GiltPtrMap hoisted;
  unsigned num_strings;
  unsigned num_shared; /* shared-memory globals made (device mode) */
  size_t num_errors;
  bool device; /* lowering kernels for NVPTX (see above) */
  /* A loop.parallel known to run fewer ops than this in all calls its
  ** outlined body directly, not through the thread pool (parallel.c);
  ** the pass's option serial-ops. */
  int64_t serial_ops;
  GiltType *i1, *i8, *i32, *i64, *f32, *ptr;
} L2L;

GILT_INTERNAL extern const GiltPassDef gilt_loop_to_llvm_pass;

/* ---- pass.c: types, values, the walk ---------------------------------------- */

/* A lowering for `module`'s ops (a builtin.module, or a gpu.module in
** device mode), building the new symbols apart until l2l_swap_in. */
GILT_INTERNAL void l2l_init(L2L *l, GiltContext *ctx, GiltOp *module);
GILT_INTERNAL void l2l_finish(L2L *l);
/* Replaces the ops of `body` that are not llvm ops by the lowered ones. */
GILT_INTERNAL void l2l_swap_in(L2L *l, GiltBlock *body);

/* The llvm type of a loop-level value type: index -> i64, memref -> its
** descriptor struct, vectors lane by lane; NULL when it has none (an 8-bit
** float, a tensor). */
GILT_INTERNAL GiltType *l2l_type(L2L *l, GiltType *t);
/* How an element is kept in memory: i1 as i8, index as i64. */
GILT_INTERNAL GiltType *l2l_memory_type(L2L *l, GiltType *elem);
GILT_INTERNAL GiltValue *l2l_value(L2L *l, GiltValue *v);
GILT_INTERNAL void l2l_map(L2L *l, GiltValue *from, GiltValue *to);
/* Lowers the ops of `block` but its terminator, which it returns. */
GILT_INTERNAL GiltOp *l2l_lower_block(L2L *l, GiltBlock *block);
/* Lowers one op at the insertion point, errors counted and named at it. */
GILT_INTERNAL void l2l_lower_one(L2L *l, GiltOp *op);
/* Reports that l->op cannot be lowered, and why; returns failure. */
GILT_INTERNAL GiltStatus l2l_error(L2L *l, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- emit.c: building llvm ops at l->b with l->loc ------------------------ */

GILT_INTERNAL GiltOp *l2l_create(L2L *l, LlvmOpId id, GiltType *result,
                                 size_t n, GiltValue *const *operands,
                                 size_t num_attrs, const GiltNamedAttr *attrs);
GILT_INTERNAL GiltValue *l2l_emit(L2L *l, LlvmOpId id, GiltType *result,
                                  size_t n, GiltValue *const *operands);
GILT_INTERNAL GiltValue *l2l_emit_attr(L2L *l, LlvmOpId id, GiltType *result,
                                       size_t n, GiltValue *const *operands,
                                       const char *name, GiltAttr *attr);
GILT_INTERNAL GiltValue *l2l_binary(L2L *l, LlvmOpId id, GiltValue *a,
                                    GiltValue *b);
GILT_INTERNAL GiltValue *l2l_cast(L2L *l, LlvmOpId id, GiltValue *v,
                                  GiltType *to);
GILT_INTERNAL GiltValue *l2l_icmp(L2L *l, const char *pred, GiltValue *a,
                                  GiltValue *b);
GILT_INTERNAL GiltValue *l2l_select(L2L *l, GiltValue *c, GiltValue *a,
                                    GiltValue *b);
/* An integer constant of type t (a vector t: a splat). */
GILT_INTERNAL GiltValue *l2l_int(L2L *l, GiltType *t, int64_t v);
GILT_INTERNAL GiltValue *l2l_i64(L2L *l, int64_t v);
GILT_INTERNAL GiltValue *l2l_float(L2L *l, GiltType *t, double v);
GILT_INTERNAL GiltValue *l2l_poison(L2L *l, GiltType *t);
/* Whether the llvm value v is an integer llvm.constant, stored in *c. */
GILT_INTERNAL bool l2l_constant_int(GiltValue *v, int64_t *c);
/* How many times a loop of these (llvm-level) bounds runs, when they are
** constants and that is once or never; -1 otherwise (control.c). */
GILT_INTERNAL int l2l_trips_up_to_one(GiltValue *lb, GiltValue *ub,
                                      GiltValue *step);
GILT_INTERNAL GiltValue *l2l_gep(L2L *l, GiltType *elem, GiltValue *base,
                                 GiltValue *index);
GILT_INTERNAL GiltValue *l2l_load(L2L *l, GiltType *t, GiltValue *addr,
                                  int64_t align);
GILT_INTERNAL void l2l_store(L2L *l, GiltValue *v, GiltValue *addr,
                             int64_t align);
GILT_INTERNAL GiltValue *l2l_extract(L2L *l, GiltValue *agg, int64_t pos);
GILT_INTERNAL GiltValue *l2l_insert(L2L *l, GiltValue *agg, GiltValue *v,
                                    int64_t pos);
/* An LLVM intrinsic (`llvm.fma`); result NULL for none. */
GILT_INTERNAL GiltValue *l2l_intrinsic(L2L *l, const char *name,
                                       GiltType *result, size_t n,
                                       GiltValue *const *operands);
/* A call of the function `name` (declared on first use), which the
** module is linked with; result NULL for a void function. */
GILT_INTERNAL GiltValue *l2l_call(L2L *l, const char *name, GiltType *result,
                                  size_t n, GiltValue *const *operands);
/* l2l_call of the runtime or the C library: an error in device code,
** which has neither. */
GILT_INTERNAL GiltValue *l2l_call_extern(L2L *l, const char *name,
                                         GiltType *result, size_t n,
                                         GiltValue *const *operands);
/* The address of a NUL-terminated string global holding `text` (one per
** distinct text). */
GILT_INTERNAL GiltValue *l2l_string(L2L *l, const char *text);
/* Adds the private constant llvm.global `name` holding `text` and a NUL
** (an array of i8) to the new module. */
GILT_INTERNAL void l2l_string_global(L2L *l, const char *name,
                                     const char *text);
/* The address of the string of l->loc as the runtime's failures give it
** (jit/abi.h's gilt_rt_fail `location`). */
GILT_INTERNAL GiltValue *l2l_location(L2L *l);
/* A new private llvm.func `name` of type fn_type, with an empty body
** region (a declaration until blocks are added), added to the new module. */
GILT_INTERNAL GiltOp *l2l_private_func(L2L *l, const char *name,
                                       GiltType *fn_type);
/* Adds `op` to the new module unless a symbol of its name is there. */
GILT_INTERNAL void l2l_add_symbol(L2L *l, GiltOp *op);
/* A new block at the end of the function being built. */
GILT_INTERNAL GiltBlock *l2l_block(L2L *l, size_t n, GiltType *const *types);
GILT_INTERNAL void l2l_br(L2L *l, GiltBlock *dest, size_t n,
                          GiltValue *const *args);
GILT_INTERNAL void l2l_cond_br(L2L *l, GiltValue *cond, GiltBlock *t,
                               size_t nt, GiltValue *const *targs,
                               GiltBlock *f, size_t nf,
                               GiltValue *const *fargs);
GILT_INTERNAL void l2l_set_block(L2L *l, GiltBlock *block);
/* Unless `ok` (i1) holds, records `message` at l->op's location with
** gilt_rt_fail and returns 1; goes on in a new block otherwise. */
GILT_INTERNAL void l2l_check(L2L *l, GiltValue *ok, const char *message);
/* The same for a failure already recorded (by a runtime function that
** records its own, gpu/cuda.h's): unless `ok`, returns `status` (i32). */
GILT_INTERNAL void l2l_check_recorded(L2L *l, GiltValue *ok,
                                      GiltValue *status);
/* Stops the run with `status` (i32, nonzero) after its buffers' scope is
** exited: returns it from a function; in an outlined parallel body,
** leaves it in the context for the function running the loop, which
** returns it. */
GILT_INTERNAL void l2l_return_failure(L2L *l, GiltValue *status);
/* Whether any lane of an i1 vector (or the i1 itself) is set. */
GILT_INTERNAL GiltValue *l2l_any(L2L *l, GiltValue *cond);

/* ---- the families: each lowers l->op, mapping its results ----------------- */

typedef GiltStatus (*L2LLowerFn)(L2L *l, GiltOp *op);

/* An op of another dialect lowers itself when it implements this
** interface (MLIR's ConvertToLLVMOpInterface), attached by its dialect as
** an external model: `lower` builds its llvm ops at l->b and maps its
** results, as the families below do. An op at module level is called
** with no insertion point and adds what it makes with l2l_add_symbol.
** The gpu dialect implements it for its device ops (gpu/to_nvvm.c) and
** its host ops (gpu/host_to_llvm.c). */
typedef struct L2LLoweringMethods {
  L2LLowerFn lower;
} L2LLoweringMethods;
GILT_INTERNAL extern const GiltInterface l2l_lowering_interface;

GILT_INTERNAL GiltStatus l2l_lower_int(L2L *l, GiltOp *op);
GILT_INTERNAL GiltStatus l2l_lower_float(L2L *l, GiltOp *op);
GILT_INTERNAL GiltStatus l2l_lower_compare(L2L *l, GiltOp *op);
GILT_INTERNAL GiltStatus l2l_lower_constant(L2L *l, GiltOp *op);
GILT_INTERNAL GiltStatus l2l_lower_cast(L2L *l, GiltOp *op);
GILT_INTERNAL GiltStatus l2l_lower_memory(L2L *l, GiltOp *op);
GILT_INTERNAL GiltStatus l2l_lower_vector(L2L *l, GiltOp *op);
GILT_INTERNAL GiltStatus l2l_lower_control(L2L *l, GiltOp *op);
GILT_INTERNAL GiltStatus l2l_lower_call(L2L *l, GiltOp *op);
GILT_INTERNAL GiltStatus l2l_lower_profile(L2L *l, GiltOp *op);

/* ---- memory.c ------------------------------------------------------------------ */

/* The struct a memref of rank r lives in: {ptr, offset, sizes, strides}. */
GILT_INTERNAL GiltType *l2l_descriptor_type(L2L *l, size_t rank);
/* A descriptor of `rank` from its parts. */
GILT_INTERNAL GiltValue *l2l_descriptor(L2L *l, size_t rank, GiltValue *data,
                                        GiltValue *offset,
                                        GiltValue *const *sizes,
                                        GiltValue *const *strides);
/* The sizes of memref type t: static ones as constants, dynamic ones
** from `dynamic` in order. */
GILT_INTERNAL void l2l_type_sizes(L2L *l, GiltType *t,
                                  GiltValue *const *dynamic,
                                  GiltValue **sizes);
/* The row-major strides of a dense buffer of memref type t and `sizes`
** into `strides`, and its size in bytes, at least 1; the run fails, as
** loop.alloc's, when a dynamic size is negative or the count overflows. */
GILT_INTERNAL GiltValue *l2l_dense_bytes(L2L *l, GiltType *t,
                                         GiltValue *const *sizes,
                                         GiltValue **strides);
/* Field numbers of a descriptor struct. */
#define L2L_DATA 0
#define L2L_OFFSET 1
#define L2L_SIZE(rank, i) (2 + (i))
#define L2L_STRIDE(rank, i) (2 + (rank) + (i))
/* The address of the element of `memref` (its llvm descriptor `desc`) at
** `indices` (i64). */
GILT_INTERNAL GiltValue *l2l_element_address(L2L *l, GiltType *memref,
                                             GiltValue *desc,
                                             GiltValue *const *indices);
GILT_INTERNAL void l2l_lower_global(L2L *l, GiltOp *op);
/* A copy of the buffer `desc` (of memref type t) in a new dense buffer of
** the function's scope: what a function returns of a view, an argument
** or a weight, disowned before it returns (jit/abi.h). */
GILT_INTERNAL GiltValue *l2l_copy(L2L *l, GiltValue *desc, GiltType *t);
/* Exits the function's buffer scope: before every return. */
GILT_INTERNAL void l2l_exit_scope(L2L *l);

/* ---- control.c ------------------------------------------------------------------- */

/* Emits `for (iv = lb; iv < ub; iv += step)` carrying n values from
** `inits`: body emits the iteration at the insertion point it is given,
** from the induction variable and the current values, and sets the next
** ones in `next`. Returns with the insertion point after the loop and the
** last values (the inits when it never runs) in `results`. Bounds that
** are constants and run it once, or never, emit no loop: the body once
** at lb, or nothing. */
typedef void (*L2LBodyFn)(L2L *l, GiltValue *iv, GiltValue *const *current,
                          GiltValue **next, void *user);
GILT_INTERNAL void l2l_loop(L2L *l, GiltValue *lb, GiltValue *ub,
                            GiltValue *step, size_t n,
                            GiltValue *const *inits, GiltValue **results,
                            L2LBodyFn body, void *user);

/* Emits loop.parallel `op` as nested sequential loops over `bounds`
** (lowered: lowers, uppers, steps), which may differ from op's operands:
** an outlined body runs one chunk of the outer dimension. */
GILT_INTERNAL void l2l_parallel_loops(L2L *l, GiltOp *op,
                                      GiltValue *const *bounds);

/* ---- parallel.c ------------------------------------------------------------------ */

/* One `type` on the stack, in the entry block of the function being
** built (allocas in a loop would grow the stack at every iteration). */
GILT_INTERNAL GiltValue *l2l_entry_alloca(L2L *l, GiltType *type);
/* Lowers loop.parallel `op` (rank 1 or more, in a function, not in another
** outlined body) to a call of gilt_rt_parallel_for with its body outlined. */
GILT_INTERNAL GiltStatus l2l_lower_parallel_outlined(L2L *l, GiltOp *op);
/* In an outlined body, the address of the location string `text`, read
** from the array its context points at, which the parent fills: bodies
** that differ in nothing but their ops' locations stay alike, so that
** the layers of one shape share one (l2l_location's form there). */
GILT_INTERNAL GiltValue *l2l_outlined_location(L2L *l, const char *text);

/* ---- func.c ---------------------------------------------------------------------- */

GILT_INTERNAL void l2l_lower_func(L2L *l, GiltOp *func);

#endif /* GILT_TRANSFORMS_LOOP_TO_LLVM_LOWERING_H */
