/*
** abi.h - the calling convention of compiled code, and the runtime it
** calls: the contract between the lowering to the llvm dialect
** (transforms/loop_to_llvm/), the JIT that calls it (jit/), and C programs
** that link an ahead-of-time compiled model.
**
** A func.func @f of the loop level becomes an external function `f`:
**
**     int32_t f(ARGS..., RESULTS...);
**
**   - a memref argument is a `GiltMemRefDesc *` (read only; the callee
**     never frees it nor its data); an index, integer or float argument
**     is passed by value: index and i64 as int64_t, iN as the smallest
**     C integer holding N bits (i1 as uint8_t 0 or 1), f32 as float, f64
**     as double, f16/bf16 as uint16_t bits;
**   - each result is a pointer to where it goes: a memref result is a
**     `GiltMemRefDesc *` the callee fills, with `data` allocated by
**     gilt_rt_alloc and disowned, owned by the caller afterwards
**     (gilt_rt_free);
**     a scalar result is a pointer to its C type above;
**   - the return value is 0 on success; otherwise the run stopped at a
**     failed check (a loop.assert, an integer division by zero) and
**     gilt_rt_last_error() says which, with the op's location. Results
**     are then unset and nothing needs freeing.
**
** A descriptor is a memref's data pointer, offset and, per dimension, size
** and stride, in elements, as MLIR's StridedMemRefType: element (i, j) of
** a rank-2 memref is at data[offset + i * strides[0] + j * strides[1]].
** Rank r uses sizes[0..r) and strides[0..r); the struct reserves room for
** GILT_MAX_RANK dimensions so that one C type serves every rank.
**
** Weights (loop.global) are read-only data the compiled module refers to
** by symbol; the JIT defines those symbols at aligned copies of the
** constants, an ahead-of-time object embeds them.
*/
#ifndef GILT_JIT_ABI_H
#define GILT_JIT_ABI_H

#include <stdint.h>

#define GILT_MAX_RANK 32

/* The attribute of an llvm.func that makes it an entry the JIT can call:
** the func.func's loop-level function type (a type attribute), from which
** the JIT builds the call and checks inputs. The llvm-level signature alone
** does not say a pointer's memref shape. */
#define GILT_ABI_ENTRY_TYPE_ATTR "gilt.entry_type"

/* A header `gjit --aot` writes defines the same struct under the same
** guard, so that either may be included first. */
#ifndef GILT_MEMREF_DESC_DEFINED
#define GILT_MEMREF_DESC_DEFINED
typedef struct GiltMemRefDesc {
  void *data;
  int64_t offset;
  int64_t sizes[GILT_MAX_RANK];
  int64_t strides[GILT_MAX_RANK];
} GiltMemRefDesc;
#endif

/* ---- the runtime compiled code calls (jit/runtime.c) ---------------------- */

/* Buffers live in scopes: a compiled function enters one when it starts
** and exits it on every return, which frees every buffer allocated with
** gilt_rt_alloc since (its loop.allocs: compiled code never leaks, and
** needs no dealloc of its own). A memref result is a buffer no scope
** holds: one of the function's own allocations (the buffer its last
** kernel wrote, or a copy of a view, an argument or a weight) that it
** disowns just before it returns (gilt_rt_disown), once nothing can fail
** any more, so that a failure frees every result too. The caller owns
** it (gilt_rt_free), or, calling from compiled code, hands it to its own
** scope with gilt_rt_adopt. Scopes are per thread. */
int64_t gilt_rt_scope_enter(void);
void gilt_rt_scope_exit(int64_t mark);
/* `bytes` bytes aligned to `align` (a power of two, at least 16), held by
** the current scope, or NULL when out of memory (the compiled code then
** fails with an error). */
void *gilt_rt_alloc(int64_t bytes, int64_t align);
/* Makes the current scope hold p (a callee's result): 0, or 1 when out of
** memory, p then freed and the failure recorded. */
int32_t gilt_rt_adopt(void *p);
/* Makes no scope hold p, which stays allocated: a buffer of the call
** returned as its result. */
void gilt_rt_disown(void *p);
/* Frees a buffer from either allocator (a scope stops holding it); NULL is
** ignored. */
void gilt_rt_free(void *p);
/* Records that the run failed with `message` at `location` (both static
** strings of the compiled module; the location as gilt prints it inside
** `loc(...)`, so that the JIT reports the failure there); the compiled
** function then returns 1. */
void gilt_rt_fail(const char *message, const char *location);
/* The last failure of this thread: "location: message", or NULL. */
const char *gilt_rt_last_error(void);
/* Profiling (loop.profile_begin/end): a monotonic clock in ns, and the
** time since `start` added to the total of `label` (a static string of
** the compiled module). */
int64_t gilt_rt_profile_begin(void);
void gilt_rt_profile_end(int64_t start, const char *label);
/* Calls body(begin, end, context) over [0, n) split in chunks, on the
** runtime's thread pool (or in the calling thread), returning when all
** are done: what loop.parallel compiles to. */
void gilt_rt_parallel_for(int64_t n,
                          void (*body)(int64_t begin, int64_t end,
                                       void *context),
                          void *context);

#endif /* GILT_JIT_ABI_H */
