/*
** lowering.h - lowering graph ops to loop nests (the `graph-to-loop`
** pass): the lowering interface, and the builder every lowering writes its
** loops with.
**
** A graph op becomes lowerable by implementing graph_to_loop_interface: one
** function that, given the op's operands already turned into buffers
** (memrefs of the same shape and element type), emits loop IR computing
** its results into new buffers and replaces the op with them. The pass
** attaches an implementation to each graph op it can lower (an external
** model, registered with the pass: the graph dialect knows nothing of
** loops), and the conversion driver reports every op left without one.
**
** The builder (builder.c) hides the op-state plumbing: lower_emit and the
** named helpers create loop ops at the current insertion point, the nest
** helpers build loops and call back with the induction variables, and
** every op gets the graph op's location, so diagnostics from the loop level
** still name the ONNX node.
**
** Bufferization is simple and total: every result gets a fresh buffer
** (loop.alloc) and is never written after the op that made it, so values
** keep the graph's value semantics. Function arguments and results become
** memref arguments and results; buffers the memory planner can reuse or
** elide are its business, later.
*/
#ifndef GILT_TRANSFORMS_GRAPH_TO_LOOP_LOWERING_H
#define GILT_TRANSFORMS_GRAPH_TO_LOOP_LOWERING_H

#include "dialects/graph/graph.h"
#include "dialects/loop/loop.h"
#include "ir/core.h"
#include "ir/rewrite/rewrite.h"

typedef struct Lower Lower;

/* ---- the interface ------------------------------------------------------- */

typedef struct GraphToLoopMethods {
  /* Emits the loops computing the op and replaces it (lower_replace).
  ** Returns failure, after reporting why at the op (lower_error), for a
  ** case it does not handle; the IR must then be left untouched apart
  ** from unused ops the driver discards. */
  GiltStatus (*lower)(Lower *l);
} GraphToLoopMethods;

GILT_INTERNAL extern const GiltInterface graph_to_loop_interface;

/* A family's lowerings: rows of (op, function), ended by a NULL function.
** Each family file defines one table; pass.c lists the tables. */
typedef struct GraphLoweringRow {
  GraphOpId op;
  GraphToLoopMethods methods; /* methods.lower NULL ends a table */
} GraphLoweringRow;

#define GRAPH_LOWERING_TABLES(X)                                             \
  X(graph_lower_elementwise)                                                 \
  X(graph_lower_misc)                                                        \
  X(graph_lower_matmul)                                                      \
  X(graph_lower_conv)                                                        \
  X(graph_lower_conv_nchwc)                                                  \
  X(graph_lower_conv_transpose)                                              \
  X(graph_lower_pool)                                                        \
  X(graph_lower_quant)                                                       \
  X(graph_lower_reshape)                                                     \
  X(graph_lower_transpose)                                                   \
  X(graph_lower_layout_transform)                                            \
  X(graph_lower_concat_split)                                                \
  X(graph_lower_slice)                                                       \
  X(graph_lower_gather)                                                      \
  X(graph_lower_shape)                                                       \
  X(graph_lower_expand)                                                      \
  X(graph_lower_sort)                                                        \
  X(graph_lower_select)                                                      \
  X(graph_lower_signal_window)                                               \
  X(graph_lower_unique)                                                      \
  X(graph_lower_resize)                                                      \
  X(graph_lower_spectral)                                                    \
  X(graph_lower_detection)                                                   \
  X(graph_lower_text)                                                        \
  X(graph_lower_sampling)                                                    \
  X(graph_lower_col2im)                                                      \
  X(graph_lower_rnn)                                                         \
  X(graph_lower_roi)                                                         \
  X(graph_lower_reduce)                                                      \
  X(graph_lower_softmax)                                                     \
  X(graph_lower_normalization)                                               \
  X(graph_lower_global_pool)                                                 \
  X(graph_lower_loss)                                                        \
  X(graph_lower_det)                                                         \
  X(graph_lower_einsum)                                                      \
  X(graph_lower_unpool)                                                      \
  X(graph_lower_control)                                                     \
  X(graph_lower_random)                                                      \
  X(graph_lower_deform_conv)

#define GRAPH_DECLARE_LOWERINGS(name)                                        \
  GILT_INTERNAL extern const GraphLoweringRow name[];
GRAPH_LOWERING_TABLES(GRAPH_DECLARE_LOWERINGS)
#undef GRAPH_DECLARE_LOWERINGS

/* ---- the state of one lowering ---------------------------------------------- */

struct Lower {
  GiltContext *ctx;
  GiltRewriter *rw;
  GiltOp *op;                 /* the graph op being lowered */
  GiltLocation *loc;          /* its location: every op built gets it */
  GiltValue *const *operands; /* its operands as buffers; `none` stays */
  GiltOp *module;             /* where constants become loop.globals */
  unsigned *num_globals;      /* for naming them */
  /* How many vectors of LOWER_F32_LANES f32 the target's registers hold
  ** at once (the pass's vector-bits and vector-registers options): 32
  ** with AVX-512's 32 of 512 bits, 8 with AVX2's 16 of 256. The
  ** register-blocked tiles are shaped by it (tiles.c). 0 for a target
  ** without vector registers (vector-bits=0, a GPU's threads): every op
  ** its generic nest over its outputs, scalar. */
  int64_t register_vectors;
  /* The f32 lanes of one vector register: 16 (AVX-512), 8 (AVX2) or 4;
  ** 0 without vector registers. */
  int64_t register_lanes;
  /* On such a target, a GPU's: the edge of the square tiles of f32
  ** products a block of LOWER_BLOCK_THREADS^2 threads computes through
  ** shared memory (block_tiles.c); 0 for none. */
  int64_t block_tile;
  /* Inside lower_parallel_kept_shared's body: the block's threads that
  ** share each reduction (shared_reduce.c); NULL elsewhere. */
  struct LowerSharedReduce *shared_reduce;
};

/* The threads along each side of a block that computes a tile of a
** product (Lower's block_tile). */
#define LOWER_BLOCK_THREADS 16

/* The op's operand i as a buffer, NULL when absent or `none`. */
GILT_INTERNAL GiltValue *lower_operand(Lower *l, size_t i);
/* The buffer type of the op's result i (memref of the tensor's shape and
** element type). */
GILT_INTERNAL GiltType *lower_result_type(Lower *l, size_t i);
/* Replaces the graph op's results with these buffers and erases it;
** returns GILT_SUCCESS for the lowering to return. */
GILT_INTERNAL GiltStatus lower_replace(Lower *l, GiltValue *const *results);
/* Reports "'graph.x' op <message>" at the op; returns GILT_FAILURE. */
GILT_INTERNAL GiltStatus lower_error(Lower *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- building ops ---------------------------------------------------------------- */

/* Creates loop op `id` at the insertion point with these operands, result
** types (0 or 1 result: `result` may be NULL) and attributes; returns its
** first result, or NULL when it has none. */
GILT_INTERNAL GiltValue *lower_emit(Lower *l, LoopOpId id, GiltType *result,
                                    size_t n, GiltValue *const *operands);
GILT_INTERNAL GiltValue *lower_emit_attr(Lower *l, LoopOpId id,
                                         GiltType *result, size_t n,
                                         GiltValue *const *operands,
                                         const char *attr_name,
                                         GiltAttr *attr);
/* Binary and unary ops whose result has the first operand's type. */
GILT_INTERNAL GiltValue *lower_binary(Lower *l, LoopOpId id, GiltValue *a,
                                      GiltValue *b);
GILT_INTERNAL GiltValue *lower_unary(Lower *l, LoopOpId id, GiltValue *a);

GILT_INTERNAL GiltType *lower_index_type(Lower *l);
GILT_INTERNAL GiltType *lower_i1_type(Lower *l);
GILT_INTERNAL GiltType *lower_i64_type(Lower *l);
GILT_INTERNAL GiltType *lower_f64_type(Lower *l);
GILT_INTERNAL GiltValue *lower_index(Lower *l, int64_t v);
/* A constant of an integer, index or float type (v converted), or of a
** vector of one (v in every lane). */
GILT_INTERNAL GiltValue *lower_constant(Lower *l, GiltType *t, double v);
GILT_INTERNAL GiltValue *lower_int_constant(Lower *l, GiltType *t,
                                            int64_t v);
/* A constant of like's type; an f64 constant. */
GILT_INTERNAL GiltValue *lower_constant_like(Lower *l, GiltValue *like,
                                             double v);
GILT_INTERNAL GiltValue *lower_f64(Lower *l, double v);
/* cmpi/cmpf with `pred` (loop.def lists them), chosen by a's type. */
GILT_INTERNAL GiltValue *lower_cmp(Lower *l, const char *pred, GiltValue *a,
                                   GiltValue *b);
GILT_INTERNAL GiltValue *lower_select(Lower *l, GiltValue *c, GiltValue *a,
                                      GiltValue *b);
/* b where a < b, else a (floats ordered, integers by their signedness):
** a NaN a stays (Relu, Clip), a NaN b is passed over (a running
** maximum). One maxps on x86, where loop.maximumf's ordering of NaN and
** -0 takes four or more instructions. */
GILT_INTERNAL GiltValue *lower_keep_max(Lower *l, GiltValue *a, GiltValue *b);
/* Converts a scalar to `to` as ONNX's Cast does between any two numeric
** types: i1 included (nonzero is true), integers widened by the source's
** signedness (ui and i1 zero-extend), floats to integers toward zero;
** index converts as i64 does. */
GILT_INTERNAL GiltValue *lower_convert(Lower *l, GiltValue *v, GiltType *to);
/* a + b, a - b, a * b, a / b: the float op for floats, else the integer
** one (integers and index; division signed or unsigned by a's type). */
GILT_INTERNAL GiltValue *lower_plus(Lower *l, GiltValue *a, GiltValue *b);
GILT_INTERNAL GiltValue *lower_minus(Lower *l, GiltValue *a, GiltValue *b);
GILT_INTERNAL GiltValue *lower_times(Lower *l, GiltValue *a, GiltValue *b);
GILT_INTERNAL GiltValue *lower_divide(Lower *l, GiltValue *a, GiltValue *b);

/* ---- buffers ---------------------------------------------------------------------- */

/* The size of dimension i of a buffer: a constant when static. */
GILT_INTERNAL GiltValue *lower_dim(Lower *l, GiltValue *memref, size_t i);
/* Every dimension's size into dims[0..rank). */
GILT_INTERNAL void lower_dims(Lower *l, GiltValue *memref, GiltValue **dims);
/* src (row-major) seen with `shape`: its static dims as given, the
** dynamic ones sized by sizes[d] (one per dimension; the static ones'
** entries unused). */
GILT_INTERNAL GiltValue *lower_reshaped(Lower *l, GiltValue *src, size_t rank,
                                       const int64_t *shape,
                                       GiltValue *const *sizes);
/* A memref [N, C/b, H, W, b] (NCHW<b>c, H and W static) seen as [N, C/b,
** pixels, b], its pixels one dimension; `pixels` is H * W, or 1 for a
** [N, C/b, 1, 1, b]. dims are its N and C/b. */
GILT_INTERNAL GiltValue *lower_block_pixels(Lower *l, GiltValue *m,
                                            GiltValue *const *dims,
                                            int64_t pixels);
/* A new buffer of `type`; sizes[i] gives dimension i where it is dynamic
** (sizes may be NULL for a static type). */
GILT_INTERNAL GiltValue *lower_alloc(Lower *l, GiltType *type,
                                     GiltValue *const *sizes);
GILT_INTERNAL GiltValue *lower_load(Lower *l, GiltValue *memref,
                                    GiltValue *const *indices);
GILT_INTERNAL void lower_store(Lower *l, GiltValue *value, GiltValue *memref,
                               GiltValue *const *indices);
/* loop.prefetch of the element at `indices`, `locality` 0 to 3. */
GILT_INTERNAL void lower_prefetch(Lower *l, GiltValue *memref,
                                  GiltValue *const *indices, int64_t locality);
/* The indices into `in` of the element that numpy broadcasting pairs with
** output element `ivs` (out_rank of them): trailing dimensions aligned, a
** dimension of size 1 read at 0 (tested at run time when dynamic). */
GILT_INTERNAL void lower_broadcast_indices(Lower *l, GiltValue *in,
                                           size_t out_rank,
                                           GiltValue *const *ivs,
                                           GiltValue **indices);
/* Stores `value` into every element of a buffer. */
GILT_INTERNAL void lower_fill(Lower *l, GiltValue *memref, GiltValue *value);
/* The sizes of the result i of the op, for allocating it: static dims as
** constants; dynamic ones as given by `dynamic` (out_dims[i] for each
** dynamic i), which the lowering computes. */
GILT_INTERNAL GiltValue *lower_alloc_result(Lower *l, size_t i,
                                            GiltValue *const *dims);

/* ---- scalar operands --------------------------------------------------------------- */

/* The first element of operand i (a scalar or a one-element tensor, as
** ONNX's size and length operands are), loaded at run time and converted
** to `to`. The operand must be present. */
GILT_INTERNAL GiltValue *lower_scalar_operand(Lower *l, size_t i,
                                              GiltType *to);
/* The dense value behind a buffer or tensor when it is known at compile
** time: a graph.constant's, or that of the loop.global a loop.get_global
** reads (the constant is lowered before its users, so it is usually a
** global by now), casts and reshapes looked through; NULL otherwise. */
GILT_INTERNAL GiltAttr *lower_value_constant(Lower *l, GiltValue *v);
/* The bytes of v's f32 elements, row by row, when it is a constant f32
** matrix of static sizes and not a splat (a weight to repack at compile
** time); NULL otherwise. */
GILT_INTERNAL const void *lower_constant_f32_matrix(Lower *l, GiltValue *v);
/* The integers of a constant operand i into out[0..*n); false when the
** operand is absent, not constant, of floats or longer than max. */
GILT_INTERNAL bool lower_constant_ints(Lower *l, size_t i, int64_t *out,
                                       size_t max, size_t *n);
/* The value of operand i when it is a constant of one integer (an axis
** the loop structure depends on); false otherwise. */
GILT_INTERNAL bool lower_constant_operand_int(Lower *l, size_t i,
                                              int64_t *out);
/* A loop.global holding `value` (dense elements of a static shape, made
** at module level by constant.c), read through loop.get_global at the
** insertion point: tables a lowering computes at compile time. */
GILT_INTERNAL GiltValue *lower_global(Lower *l, GiltAttr *value);
/* Such a global of f32 shaped `shape` holding `data` (from
** gilt_blob_alloc, taken without a copy): weights a lowering packed or
** transformed at compile time, a resource once larger than a few
** vectors. */
GILT_INTERNAL GiltValue *lower_packed_global(Lower *l, size_t rank,
                                             const int64_t *shape,
                                             float *data);

/* ---- loops -------------------------------------------------------------------------- */

/* The body of a nest: ivs are the induction variables, outermost first. */
typedef void (*LowerBodyFn)(Lower *l, GiltValue *const *ivs, void *user);
/* The body of a loop.for with loop-carried values: next[i] gets the value
** for the next iteration of iter[i]. */
typedef void (*LowerIterFn)(Lower *l, GiltValue *iv, GiltValue *const *iter,
                            GiltValue **next, void *user);

/* loop.parallel over [0, uppers[i]) for each of the rank dimensions,
** calling body inside it; rank 0 calls body once, in place. */
GILT_INTERNAL void lower_parallel(Lower *l, size_t rank,
                                  GiltValue *const *uppers, LowerBodyFn body,
                                  void *user);
/* lower_parallel mapped onto a GPU's grid (`mapping` "blocks") or onto
** the threads of one block ("threads": directly in a "blocks" loop's
** body; they may share its buffers of memory space 3 and wait for each
** other at lower_barrier). gpu-map-parallel makes one launch of them. */
GILT_INTERNAL void lower_parallel_mapped(Lower *l, size_t rank,
                                         GiltValue *const *uppers,
                                         const char *mapping,
                                         LowerBodyFn body, void *user);
/* Whether the insertion point is inside a loop.parallel: a loop.parallel
** built there runs as sequential loops in the enclosing one's body
** (loop-to-llvm outlines the outermost only). */
GILT_INTERNAL bool lower_in_parallel(Lower *l);
/* gpu.barrier: the threads of a block wait for each other there. */
GILT_INTERNAL void lower_barrier(Lower *l);
/* Nested loop.for loops over [0, uppers[i]), step 1. */
GILT_INTERNAL void lower_nest(Lower *l, size_t rank, GiltValue *const *uppers,
                              LowerBodyFn body, void *user);
/* loop.for from lb to ub by step with n loop-carried values starting at
** inits; their final values go to results[0..n). */
GILT_INTERNAL void lower_for(Lower *l, GiltValue *lb, GiltValue *ub,
                             GiltValue *step, size_t n,
                             GiltValue *const *inits, GiltValue **results,
                             LowerIterFn body, void *user);
/* loop.for from 0 to ub by 1 (the constants built in that order). */
GILT_INTERNAL void lower_for_upto(Lower *l, GiltValue *ub, size_t n,
                                  GiltValue *const *inits, GiltValue **results,
                                  LowerIterFn body, void *user);
/* loop.if without results: `then` runs when cond holds, `otherwise` (may
** be NULL) when not. The bodies get no induction variables (ivs NULL). */
GILT_INTERNAL void lower_if(Lower *l, GiltValue *cond, LowerBodyFn then,
                            LowerBodyFn otherwise, void *user);
/* loop.if yielding one value of `type`: each branch returns it. */
typedef GiltValue *(*LowerValueFn)(Lower *l, void *user);
GILT_INTERNAL GiltValue *lower_if_value(Lower *l, GiltValue *cond,
                                        GiltType *type, LowerValueFn then,
                                        LowerValueFn otherwise, void *user);

/* ---- element types ------------------------------------------------------------------ */

GILT_INTERNAL bool lower_is_float(GiltType *t);
GILT_INTERNAL bool lower_is_unsigned(GiltType *t);
/* The element type of the graph op's operand i / result i. */
GILT_INTERNAL GiltType *lower_operand_elem(Lower *l, size_t i);
GILT_INTERNAL GiltType *lower_result_elem(Lower *l, size_t i);

/* ---- operand copies (copy.c) ------------------------------------------------------ */

/* A value computed from a source element x at indices ivs (of the
** source), in the destination's element type. */
typedef GiltValue *(*LowerMapFn)(Lower *l, GiltValue *x,
                                 GiltValue *const *ivs, void *user);
/* A new buffer of element type elem holding map(src) (NULL: src converted
** as Cast does), its last two dims swapped when transpose. */
GILT_INTERNAL GiltValue *lower_copy_map(Lower *l, GiltValue *src,
                                        GiltType *elem, bool transpose,
                                        LowerMapFn map, void *user);
/* A zero point or scale q for the element at ivs of an operand of rank
** r: a scalar or one-element q applies to all; a 1-D q runs along
** `axis`; a q of rank r broadcasts against the operand. NULL when q is. */
GILT_INTERNAL GiltValue *lower_per_axis(Lower *l, GiltValue *q, size_t r,
                                        size_t axis, GiltValue *const *ivs);
/* Whether lower_per_axis reads q for an operand of rank r. */
GILT_INTERNAL bool lower_per_axis_ok(GiltValue *q, size_t r);
/* A LowerMapFn: x - zp in i32, user a LowerZeroPoint. */
typedef struct LowerZeroPoint {
  GiltValue *zp; /* NULL: none */
  size_t rank, axis;
} LowerZeroPoint;
GILT_INTERNAL GiltValue *lower_minus_zero_point(Lower *l, GiltValue *x,
                                                GiltValue *const *ivs,
                                                void *user);

/* ---- windows (window.c) ------------------------------------------------------------ */

/* The window of a Conv-like or pooling op over an input N x C x spatial:
** its attributes with ONNX's defaults and, per spatial axis, index values
** for the input and output sizes, the padding before the input, and the
** extent of a padded copy of the input inside which every window lies
** (max((out - 1) * stride + ek, begin + in)). */
typedef struct LowerWindow {
  size_t n; /* spatial axes */
  int64_t kernel[GRAPH_MAX_RANK], strides[GRAPH_MAX_RANK];
  int64_t dilations[GRAPH_MAX_RANK], pads[2 * GRAPH_MAX_RANK];
  int64_t ek[GRAPH_MAX_RANK]; /* (kernel - 1) * dilation + 1 */
  bool same, same_lower, valid, ceil_mode;
  GiltValue *in[GRAPH_MAX_RANK], *out[GRAPH_MAX_RANK];
  GiltValue *begin[GRAPH_MAX_RANK], *end[GRAPH_MAX_RANK]; /* padding */
  GiltValue *extent[GRAPH_MAX_RANK];
} LowerWindow;

/* Reads the window of the op for input x of n spatial axes, x's and the
** result's dimensions 2 to n + 1 (a layout that blocks channels,
** [N, C/b, H, W, b], has one more); kernel gives the kernel's static sizes
** (Conv: W's), NULL to read kernel_shape. Output sizes come from result
** 0's type where static. */
GILT_INTERNAL void lower_window_read(Lower *l, GiltValue *x, size_t n,
                                     const int64_t *kernel, LowerWindow *w);
/* The first output along axis i (0 rows, 1 columns) whose taps all lie
** right of (below) the input's start: ceil(begin / s), at most out. */
GILT_INTERNAL GiltValue *lower_window_first_inside(Lower *l,
                                                   const LowerWindow *w,
                                                   size_t i);
/* The end of the outputs along axis i whose taps, the last reaching
** `reach` elements past the first's, all lie inside the input's `size`:
** (size + begin - reach) / s + 1, at least lo, at most out. */
GILT_INTERNAL GiltValue *lower_window_end_inside(Lower *l,
                                                 const LowerWindow *w,
                                                 size_t i, GiltValue *size,
                                                 int64_t reach,
                                                 GiltValue *lo);
/* The ints attribute `name` of the op into out[0..n), every entry def
** when it is absent or not n long (a window attribute's default). */
GILT_INTERNAL void lower_window_attr(Lower *l, const char *name, size_t n,
                                     int64_t def, int64_t *out);

/* ---- quantization (quant.c) ----------------------------------------------------- */

/* An integer accumulator scaled by `scale` (a float), rounded half to
** even, plus the zero point zp (NULL: 0), saturated into integer type
** `to`: the requantization ending QLinearMatMul and QLinearConv. */
GILT_INTERNAL GiltValue *lower_requantize(Lower *l, GiltValue *acc,
                                          GiltValue *scale, GiltValue *zp,
                                          GiltType *to);

/* ---- lanes (vector.c) ----------------------------------------------------------- */

/* The vector width of the contraction nests for f32. */
#define LOWER_F32_LANES 16

/* The lanes an inner loop works on: `width` elements of `elem` at once,
** as vector<width x elem> (type) with masks of mask_type, or, for width 1
** (every element type but f32, and every type on a target without vector
** registers), plain scalars without masks. */
typedef struct LowerLanes {
  GiltType *elem, *type, *mask_type;
  int64_t width;
  GiltValue *zero; /* 0 in every lane, built where the lanes were */
} LowerLanes;

/* The width lower_lanes_init chooses for elem: LOWER_F32_LANES for f32
** where the target has vector registers, else 1. */
GILT_INTERNAL int64_t lower_lanes_width(const Lower *l, GiltType *elem);
/* The most outputs along one dimension that an iteration of a generic
** product's parallel loop computes on a target without vector registers
** (lower_thread_tile). */
#define LOWER_THREAD_TILE 4
/* How many outputs along a dimension of `extent` (GILT_DYNAMIC when not
** known) one iteration of a generic product's parallel loop computes:
** on a target without vector registers (a GPU's threads) up to
** LOWER_THREAD_TILE, so that each operand a thread loads serves that
** many multiply-adds, held in its registers; 1 on the CPU, whose vector
** kernels take f32 and whose generic nests serve the other types. */
GILT_INTERNAL int64_t lower_thread_tile(const Lower *l, int64_t extent);
/* Whether elem takes the vector kernels: f32 on a target with vector
** registers. Each f32 kernel of its own (tiles, Winograd, depthwise,
** rows) applies only then; without, every op is its generic nest. */
GILT_INTERNAL bool lower_vectorizes(const Lower *l, GiltType *elem);
/* Whether the vector kernels of blocked layouts (NCHWc) take channel
** blocks of `block` elem: f32 where it vectorizes, in blocks of
** LOWER_F32_LANES (NCHW16c) or of 8 (NCHW8c: one AVX2 register), whose
** kernels work on lanes of the block's width. */
GILT_INTERNAL bool lower_block_vectorizes(const Lower *l, GiltType *elem,
                                          int64_t block);
/* How many vectors of `lanes` f32 (16, or a block of 8) take the
** registers of one vector of LOWER_F32_LANES, what the register-blocked
** kernels count in: 2 for 8 lanes where those are whole registers
** (AVX2's), 1 where they would half fill one (AVX-512's) and for 16. */
GILT_INTERNAL int64_t lower_vectors_in_16(const Lower *l, int64_t lanes);
/* Chooses the width for elem and builds the zero at the insertion point,
** which must dominate every use of the lanes. */
GILT_INTERNAL void lower_lanes_init(Lower *l, LowerLanes *v, GiltType *elem);
/* The same at a width of the caller's (a block of channels of a blocked
** layout: 8 or 16), where elem vectorizes. */
GILT_INTERNAL void lower_lanes_init_width(Lower *l, LowerLanes *v,
                                          GiltType *elem, int64_t width);
/* x (a scalar of v->elem) in every lane. */
GILT_INTERNAL GiltValue *lower_lanes_splat(Lower *l, const LowerLanes *v,
                                           GiltValue *x);
GILT_INTERNAL GiltValue *lower_lanes_zero(const LowerLanes *v);
/* The mask of the first min(left, width) lanes; NULL for width 1. */
GILT_INTERNAL GiltValue *lower_lanes_mask(Lower *l, const LowerLanes *v,
                                          GiltValue *left);
/* Every lane where the i1 cond holds, none where it does not: a whole
** vector read or written or skipped. */
GILT_INTERNAL GiltValue *lower_lanes_mask_all(Lower *l, const LowerLanes *v,
                                              GiltValue *cond);
/* Consecutive elements along the last dimension from `indices`, the lanes
** outside the mask untouched (read as zero); a NULL mask reads (and
** lower_lanes_store writes) every lane. */
GILT_INTERNAL GiltValue *lower_lanes_load(Lower *l, const LowerLanes *v,
                                          GiltValue *mask, GiltValue *memref,
                                          GiltValue *const *indices);
GILT_INTERNAL void lower_lanes_store(Lower *l, const LowerLanes *v,
                                     GiltValue *mask, GiltValue *value,
                                     GiltValue *memref,
                                     GiltValue *const *indices);
/* a * b + c lane by lane: loop.fma for floats, muli and addi for
** integers. */
GILT_INTERNAL GiltValue *lower_lanes_fma(Lower *l, GiltValue *a, GiltValue *b,
                                         GiltValue *c);
GILT_INTERNAL GiltValue *lower_lanes_add(Lower *l, GiltValue *a, GiltValue *b);
/* Lanes picked from a and b (v->width > 1): lane i of the result is lane
** mask[i] of a's lanes followed by b's. */
GILT_INTERNAL GiltValue *lower_lanes_shuffle(Lower *l, const LowerLanes *v,
                                             GiltValue *a, GiltValue *b,
                                             const int32_t *mask);

/* ---- epilogues (epilogue.c) ------------------------------------------------ */

/* What graph-fuse-epilogues fused into the op being lowered, applied to
** each result as it is stored: a Conv's residual Z (its operand 3) added,
** then the activation (graph.h's GRAPH_EPILOGUE_ATTR). */
typedef struct LowerEpilogue {
  GraphEpilogue kind;
  double lo, hi;       /* clip's bounds; infinite: none */
  GiltValue *residual; /* Z's buffer, of the result's shape; NULL: none */
} LowerEpilogue;

/* Failure, after reporting at the op, when its epilogue attribute is
** not one gilt knows (a name outside GRAPH_EPILOGUE_KINDS, clip without
** its two bounds): the lowerings of Conv, Gemm, MatMul and
** BatchNormalization check it
** first, so that lower_epilogue_read can trust it. */
GILT_INTERNAL GiltStatus lower_epilogue_check(Lower *l);
GILT_INTERNAL void lower_epilogue_read(Lower *l, LowerEpilogue *e);
/* v (a scalar or vector of the result's element type) with the
** activation applied; v itself when there is none. The residual is not
** added: lowerings of ops without one (Gemm, MatMul) call this. */
GILT_INTERNAL GiltValue *lower_epilogue_apply(Lower *l, const LowerEpilogue *e,
                                              GiltValue *v);
/* v, the result at idx (the lanes of `lanes` from there, those of mask
** when it is not NULL; lanes NULL: a scalar), plus the residual at the
** same indices, then activated: what the Add and the activation it
** replaced computed. e->residual must be indexed as the buffer the
** caller stores to (a view of Z shaped as that view of Y). */
GILT_INTERNAL GiltValue *lower_epilogue_apply_at(Lower *l,
                                                 const LowerEpilogue *e,
                                                 const LowerLanes *lanes,
                                                 GiltValue *mask, GiltValue *v,
                                                 GiltValue *const *idx);

/* ---- reductions (reduce.c) -------------------------------------------------- */

/* A reduction runs over an index space of `rank` dimensions of sizes
** dims[], some of them reduced (reduced[d]); the space is the input's, or
** one of the lowering's own (GroupNormalization splits the channels). The
** kept dimensions become a loop.parallel and the reduced ones loop.for
** nests inside it that carry the accumulators. */

/* The type a reduction over elements of type t accumulates in: f32 for
** floats narrower than 32 bits, t itself otherwise. */
GILT_INTERNAL GiltType *lower_acc_type(Lower *l, GiltType *t);
/* An index value as a scalar of type t (integer or float). */
GILT_INTERNAL GiltValue *lower_index_to(Lower *l, GiltValue *index,
                                        GiltType *t);
/* The number of elements of the reduced dimensions, an index. */
GILT_INTERNAL GiltValue *lower_reduced_count(Lower *l, size_t rank,
                                             GiltValue *const *dims,
                                             const bool *reduced);
/* The smallest and largest values of a scalar type: -inf and +inf for
** floats, the integer bounds otherwise (i1: false and true). */
GILT_INTERNAL GiltValue *lower_lowest(Lower *l, GiltType *t);
GILT_INTERNAL GiltValue *lower_highest(Lower *l, GiltType *t);

/* One visit of a reduction: idx is the full index (rank entries) of the
** element, acc the current accumulators; next gets the new ones. */
typedef void (*LowerAccFn)(Lower *l, GiltValue *const *idx,
                           GiltValue *const *acc, GiltValue **next,
                           void *user);
/* loop.parallel over the kept dimensions; body gets the full index, the
** reduced dimensions at 0 (where a keepdims result stores). */
GILT_INTERNAL void lower_parallel_kept(Lower *l, size_t rank,
                                       GiltValue *const *dims,
                                       const bool *reduced, LowerBodyFn body,
                                       void *user);
/* loop.for nests over the reduced dimensions, carrying n accumulators
** from inits to results (n may be 0: a loop that only visits). The step
** sees the full index: the loops' induction variables at the reduced
** dimensions, at[d] at the others. Without a reduced dimension the step
** runs once, at `at`. */
GILT_INTERNAL void lower_reduce_loops(Lower *l, size_t rank,
                                      GiltValue *const *dims,
                                      const bool *reduced,
                                      GiltValue *const *at, size_t n,
                                      GiltValue *const *inits,
                                      GiltValue **results, LowerAccFn step,
                                      void *user);
/* Combines two partial results of a reduction, acc and other, into next
** (n accumulators each, as the step's): what splitting it between
** threads needs. Its identity must be the reduction's inits. */
typedef void (*LowerCombineFn)(Lower *l, GiltValue *const *acc,
                               GiltValue *const *other, GiltValue **next,
                               void *user);
/* lower_reduce_loops of a reduction that `combine` can split. */
GILT_INTERNAL void lower_reduce_loops_split(Lower *l, size_t rank,
                                            GiltValue *const *dims,
                                            const bool *reduced,
                                            GiltValue *const *at, size_t n,
                                            GiltValue *const *inits,
                                            GiltValue **results,
                                            LowerAccFn step,
                                            LowerCombineFn combine,
                                            void *user);
/* lower_parallel_kept for a body whose reductions are all
** lower_reduce_loops_split's (visits may be lower_reduce_loops'): on a
** GPU (Lower's block_tile), where each kept position reduces at least
** LOWER_REDUCE_THREADS elements, each is a block of that many threads
** that share its reductions and visits, neighbouring threads at
** neighbouring elements (coalesced), the partial results combined
** through shared memory (shared_reduce.c); elsewhere lower_parallel_kept.
** The body's other ops run in every thread, each storing the same
** values. */
GILT_INTERNAL void lower_parallel_kept_shared(Lower *l, size_t rank,
                                              GiltValue *const *dims,
                                              const bool *reduced,
                                              LowerBodyFn body, void *user);
#define LOWER_REDUCE_THREADS 128
/* The most accumulators a split reduction carries. */
#define LOWER_REDUCE_MAX_ACCUMULATORS 4

/* The index along `axis` of the first maximum (or minimum, `max` false)
** of `in` at position `at` of the other dimensions (the last one under
** `last`), an index value; NaN counts as beyond every number. dims are
** in's sizes. */
GILT_INTERNAL GiltValue *lower_arg_index(Lower *l, GiltValue *in,
                                         GiltValue *const *dims, size_t axis,
                                         bool max, bool last,
                                         GiltValue *const *at);

/* The reductions of the Reduce* ops and the global pools. */
typedef enum LowerReduceKind {
  LOWER_REDUCE_SUM,
  LOWER_REDUCE_MEAN,
  LOWER_REDUCE_MAX,
  LOWER_REDUCE_MIN,
  LOWER_REDUCE_PROD,
  LOWER_REDUCE_L1,
  LOWER_REDUCE_L2,
  LOWER_REDUCE_LOG_SUM,
  LOWER_REDUCE_LOG_SUM_EXP,
  LOWER_REDUCE_SUM_SQUARE,
  LOWER_REDUCE_LP /* (sum |x|^p)^(1/p): GlobalLpPool */
} LowerReduceKind;

/* Reduces buffer `in` over the dimensions with reduced[] into `out` (of
** the input's rank under keepdims, without the reduced dimensions
** otherwise). p is LOWER_REDUCE_LP's exponent. Floats narrower than f32
** accumulate in f32; max and min propagate NaN; an empty reduction gives
** the identity (0, 1, -inf, +inf, ...). */
GILT_INTERNAL void lower_reduce(Lower *l, LowerReduceKind kind, double p,
                                GiltValue *in, const bool *reduced,
                                bool keepdims, GiltValue *out);
/* The dimensions of the result of reducing `in` (as lower_reduce
** stores it) into out_dims; returns their number. */
GILT_INTERNAL size_t lower_reduced_dims(Lower *l, GiltValue *in,
                                        const bool *reduced, bool keepdims,
                                        GiltValue **out_dims);

/* ---- rows (rows.c) ------------------------------------------------------------ */

/* A reduction whose groups are the rows of the last dimension, 16 f32
** lanes at a time: the caller's step sees one chunk of the row (idx the
** index of its first element, mask its lanes inside the row, NULL when
** every chunk is full) and carries vector accumulators, which
** lower_row_combine folds into a scalar after the loop (or
** lower_row_max_in_every_lane into a vector). */
typedef struct LowerRow {
  LowerLanes v;
  size_t rank;
  GiltValue *len; /* the row's length */
  bool full;      /* len a static multiple of 16: no masks */
  GiltValue *idx[GRAPH_MAX_RANK];
  GiltValue *mask;
} LowerRow;

typedef void (*LowerRowFn)(Lower *l, LowerRow *r, GiltValue *const *acc,
                           GiltValue **next, void *user);

/* Whether a reduction over `reduced` (rank dimensions) of elements of
** type elem goes by rows: f32, and the last dimension alone reduced. */
GILT_INTERNAL bool lower_row_apply(Lower *l, size_t rank, const bool *reduced,
                                   GiltType *elem);
/* The row at `at` (rank indices, the last one unused) of length len. */
GILT_INTERNAL void lower_row_init(Lower *l, LowerRow *r, size_t rank,
                                  GiltValue *const *at, GiltValue *len);
/* A loop.for over the row's chunks carrying n vector accumulators from
** inits to results (n may be 0). */
GILT_INTERNAL void lower_row_loop(Lower *l, LowerRow *r, size_t n,
                                  GiltValue *const *inits, GiltValue **results,
                                  LowerRowFn step, void *user);
/* The chunk of memref at idx (NULL: the row's own index), the lanes past
** the row reading passthru (NULL: 0). */
GILT_INTERNAL GiltValue *lower_row_load(Lower *l, const LowerRow *r,
                                        GiltValue *memref,
                                        GiltValue *const *idx,
                                        GiltValue *passthru);
/* Stores the chunk's lanes inside the row into memref at the row's index. */
GILT_INTERNAL void lower_row_store(Lower *l, const LowerRow *r,
                                   GiltValue *value, GiltValue *memref);
/* The lanes of an accumulator combined by loop.reduction `kind`. */
GILT_INTERNAL GiltValue *lower_row_combine(Lower *l, const char *kind,
                                           GiltValue *lanes);
/* The largest of the lanes, in every lane: the halves swapped by
** shuffles, then kept by lower_keep_max, four times for 16 lanes, where
** loop.reduction's maximumf takes tens of instructions to order NaN and
** -0 first. A NaN lane is passed over, and lanes may differ in the sign
** of a zero maximum: for callers whose result turns NaN anyway where a
** lane is NaN, and to which -0 and 0 weigh the same (Softmax's sum of
** exp(x - max)). */
GILT_INTERNAL GiltValue *lower_row_max_in_every_lane(Lower *l,
                                                     const LowerRow *r,
                                                     GiltValue *lanes);

/* ---- softmax (softmax.c) ------------------------------------------------------ */

/* Softmax (or LogSoftmax when `log`) of buffer `in` along `axis` into
** `out`, a buffer of the same shape (its element type may differ). */
GILT_INTERNAL void lower_softmax_into(Lower *l, GiltValue *in, size_t axis,
                                      bool log, GiltValue *out);

#endif /* GILT_TRANSFORMS_GRAPH_TO_LOOP_LOWERING_H */
