/*
** gilt/tensor.h - host tensors: a shape, an element type and the elements,
** dense and row-major, in memory the tensor owns. They are what a caller
** hands to a compiled or interpreted function and gets back from it, and
** what gjit reads from `--input` and writes to `--output`.
**
** Elements are stored as the element type's storage unit, little-endian:
** i1 as one byte (0 or 1), iN as the smallest of 1, 2, 4 or 8 bytes that
** holds N bits (sign-extended for signless and si, zero-extended for ui),
** index as 8 bytes, f16/bf16 as 2, f32 as 4, f64 as 8, the 8-bit floats
** as 1 (the bit pattern). The data of a tensor made by gilt_tensor_create
** is aligned to 64 bytes; a view's is the caller's, aligned to its
** element size, which is all the interpreter and compiled code assume of
** an argument (jit/abi.h).
*/
#ifndef GILT_TENSOR_H
#define GILT_TENSOR_H

#include "gilt/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GiltTensor GiltTensor;

/* The bytes one element of `elem` (an integer, index or float type)
** occupies in a tensor; 0 for any other type. */
GILT_API size_t gilt_tensor_element_size(GiltType *elem);

/* A tensor of `shape` (rank 0: a scalar) with zeroed elements, owned by
** the caller. NULL when `elem` has no storage size or the size overflows
** (nothing is reported: there is no location to report at). */
GILT_API GiltTensor *gilt_tensor_create(GiltType *elem, size_t rank,
                                        const int64_t *shape);
/* A view: a tensor of `shape` whose elements are the caller's `data`
** (dense, row-major, in the storage layout above), borrowed, not copied:
** the caller keeps them alive and in place until the view is destroyed,
** and a function that writes its argument writes them. NULL (nothing
** reported) as for gilt_tensor_create, and when `data` is NULL or not
** aligned to the element size. */
GILT_API GiltTensor *gilt_tensor_create_view(GiltType *elem, size_t rank,
                                             const int64_t *shape,
                                             void *data);
/* Frees the tensor and its elements (a view's stay with the caller);
** NULL is ignored. */
GILT_API void gilt_tensor_destroy(GiltTensor *t);

GILT_API GiltType *gilt_tensor_get_element_type(const GiltTensor *t);
GILT_API size_t gilt_tensor_get_rank(const GiltTensor *t);
GILT_API const int64_t *gilt_tensor_get_shape(const GiltTensor *t);
GILT_API int64_t gilt_tensor_get_num_elements(const GiltTensor *t);
GILT_API size_t gilt_tensor_get_num_bytes(const GiltTensor *t);
/* The elements (borrowed, writable; 64-byte aligned unless a view). */
GILT_API void *gilt_tensor_get_data(GiltTensor *t);

/* Element i (flat, row-major) converted to double (integers exactly up to
** 2^53, 8-bit and 16-bit floats decoded). */
GILT_API double gilt_tensor_get_double(const GiltTensor *t, int64_t i);
/* Stores v into element i, converted to the element type (floats rounded
** to nearest even, integers truncated toward zero and wrapped). */
GILT_API void gilt_tensor_set_double(GiltTensor *t, int64_t i, double v);

#ifdef __cplusplus
}
#endif

#endif /* GILT_TENSOR_H */
