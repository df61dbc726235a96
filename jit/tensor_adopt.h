/*
** tensor_adopt.h - a host tensor made over memory that already holds its
** elements: how a compiled call hands its result buffers to the caller
** without copying them (jit/call.c). Internal to jit/.
*/
#ifndef GILT_JIT_TENSOR_ADOPT_H
#define GILT_JIT_TENSOR_ADOPT_H

#include "gilt/tensor.h"
#include "ir/support/alloc.h"

/* A tensor of `elem` and `shape` whose elements are the row-major bytes
** at `data`, which it takes (gilt_tensor_destroy frees it with
** gilt_rt_free): a compiled function's result. NULL when the
** sizes are invalid or memory runs out; data is then still the caller's. */
GILT_INTERNAL GiltTensor *jit_tensor_adopt(GiltType *elem, size_t rank,
                                           const int64_t *shape, void *data);

#endif /* GILT_JIT_TENSOR_ADOPT_H */
