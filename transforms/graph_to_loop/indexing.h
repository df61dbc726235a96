/*
** indexing.h - what the data-movement lowerings share (reshape.c,
** slice.c, gather.c, ...): index arithmetic, operands read at compile time
** when constant and at run time otherwise, run-time checks, and one
** builder for "each result element is some input element" nests.
**
** Shapes, axes, pads and indices arrive as integer tensors. Where the loop
** structure depends on them (which axes a Slice touches) they must be
** constants; where only sizes and positions do, they are loaded from their
** buffers at run time and the nests take their bounds from those values,
** so data-dependent shapes work and constant ones fold under canonicalize.
*/
#ifndef GILT_TRANSFORMS_GRAPH_TO_LOOP_INDEXING_H
#define GILT_TRANSFORMS_GRAPH_TO_LOOP_INDEXING_H

#include "transforms/graph_to_loop/lowering.h"

/* ---- index arithmetic (index-typed values) --------------------------------- */

GILT_INTERNAL GiltValue *ix_add(Lower *l, GiltValue *a, GiltValue *b);
GILT_INTERNAL GiltValue *ix_sub(Lower *l, GiltValue *a, GiltValue *b);
GILT_INTERNAL GiltValue *ix_mul(Lower *l, GiltValue *a, GiltValue *b);
GILT_INTERNAL GiltValue *ix_div(Lower *l, GiltValue *a, GiltValue *b);
GILT_INTERNAL GiltValue *ix_rem(Lower *l, GiltValue *a, GiltValue *b);
GILT_INTERNAL GiltValue *ix_min(Lower *l, GiltValue *a, GiltValue *b);
GILT_INTERNAL GiltValue *ix_max(Lower *l, GiltValue *a, GiltValue *b);
/* Sizes computed from run-time values (a shape operand, repeats, pads, a
** count): the exact a * b (for a >= 0), a + b, a - b or product (of
** dims >= 0), with a loop.assert "the result's size overflows" where it
** would not fit an index (loop arithmetic wraps, and a wrapped size
** silently gives a wrong result). No check is emitted when both are
** constants whose result fits. */
GILT_INTERNAL GiltValue *ix_mul_size(Lower *l, GiltValue *a, GiltValue *b);
GILT_INTERNAL GiltValue *ix_add_size(Lower *l, GiltValue *a, GiltValue *b);
GILT_INTERNAL GiltValue *ix_sub_size(Lower *l, GiltValue *a, GiltValue *b);
GILT_INTERNAL GiltValue *ix_product_size(Lower *l, GiltValue *const *dims,
                                         size_t first, size_t last);
/* loop.assert that v is not zero: "'op': <what>" (a divisor ONNX forbids
** to be zero, checked before the division that would fail). */
GILT_INTERNAL void lower_assert_nonzero(Lower *l, GiltValue *v,
                                        const char *what);
/* lo <= v < hi, as an i1. */
GILT_INTERNAL GiltValue *ix_in_range(Lower *l, GiltValue *v, GiltValue *lo,
                                     GiltValue *hi);
/* p clamped into [0, n): a position always in bounds to load at. When
** `inside` is not NULL, *inside says whether p lay there (0 <= p < n), to
** select the padding's fill where it did not. */
GILT_INTERNAL GiltValue *ix_clamp_into(Lower *l, GiltValue *p, GiltValue *n,
                                       GiltValue **inside);
/* The `count` positions of a thread's tile (lower_thread_tile) from
** `first` into at[]: first, first + 1, ..., each clamped to size - 1, so
** that a partial tile's extra positions repeat its last (they compute
** its value again and store it again). */
GILT_INTERNAL void ix_tile_positions(Lower *l, GiltValue *first,
                                     int64_t count, GiltValue *size,
                                     GiltValue **at);
/* v + size when v is negative (ONNX's negative indices and axes). */
GILT_INTERNAL GiltValue *ix_wrap_negative(Lower *l, GiltValue *v,
                                          GiltValue *size);
/* 1 when cond (an i1) holds, else 0: a count's step. */
GILT_INTERNAL GiltValue *ix_one_if(Lower *l, GiltValue *cond);
/* The product of dims[first..last). */
GILT_INTERNAL GiltValue *ix_product(Lower *l, GiltValue *const *dims,
                                    size_t first, size_t last);

/* ---- operands ------------------------------------------------------------------- */

/* Element k of an integer or float buffer (the flat position in
** row-major order, for any rank) as an index: integers sign- or
** zero-extended, floats truncated; a constant when the buffer is a
** constant's. */
GILT_INTERNAL GiltValue *lower_load_index(Lower *l, GiltValue *buf,
                                          int64_t k);
/* The same at run-time indices of a buffer of any rank. */
GILT_INTERNAL GiltValue *lower_load_index_at(Lower *l, GiltValue *buf,
                                             GiltValue *const *indices);
/* The first element of a buffer of any rank, as stored (the scalar of a
** rank-0 or one-element operand). */
GILT_INTERNAL GiltValue *lower_load_first(Lower *l, GiltValue *buf);
/* The element count of a buffer when static, else -1: the length of an
** operand that lists axes, sizes or pads, which must be known. */
GILT_INTERNAL int64_t lower_static_length(GiltValue *buf);
/* Normalizes an axis attribute or constant against rank; reports and
** returns false when out of range. */
GILT_INTERNAL bool lower_axis(Lower *l, int64_t axis, size_t rank,
                              size_t *out);

/* ---- checks and buffers ------------------------------------------------------ */

/* loop.assert of cond with a message naming the op. */
GILT_INTERNAL void lower_assert(Lower *l, GiltValue *cond, const char *what);
/* buf itself when its elements are dense and row-major, else a copy. */
GILT_INTERNAL GiltValue *lower_contiguous(Lower *l, GiltValue *buf);
/* The sizes of result i: its static dims as constants, the others from
** computed[d] (which may be NULL where the dim is static). */
GILT_INTERNAL void lower_result_dims(Lower *l, size_t i,
                                     GiltValue *const *computed,
                                     GiltValue **dims);

/* ---- "each result element is computed from its indices" ---------------------- */

/* Returns the element of the result at ivs. */
typedef GiltValue *(*LowerElementFn)(Lower *l, GiltValue *const *ivs,
                                     void *user);
/* Allocates result i with sizes dims and fills it in a loop.parallel over
** them with what fn gives at each position; returns the buffer. */
GILT_INTERNAL GiltValue *lower_generate(Lower *l, size_t i,
                                        GiltValue *const *dims,
                                        LowerElementFn fn, void *user);
/* Loads `in` when every index lies in [0, its dimension), else gives
** `outside` (a scalar of its element type) without touching memory. */
GILT_INTERNAL GiltValue *lower_load_or(Lower *l, GiltValue *in,
                                       GiltValue *const *indices,
                                       GiltValue *outside);

#endif /* GILT_TRANSFORMS_GRAPH_TO_LOOP_INDEXING_H */
