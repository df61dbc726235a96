/*
** bytes.h - shared byte ranges: a model file mapped into memory (or read,
** where it cannot be mapped), a range of an external data file, or a
** payload the reader converted; and the dense resources that borrow them.
**
** Weights are the bulk of a model, and copying them costs more than
** reading them: every copy first-touches fresh pages. So tensor payloads
** stay where the file put them, and a dense resource made from one holds a
** reference to the range it lies in (gilt_dense_resource_attr_take with a
** deleter that drops the reference). A range is unmapped or freed when its
** last holder lets go: the reader, or the context that outlives it; the
** pages of a weight the context gives back earlier
** (gilt_context_release_blobs) leave memory then. A mapped model is
** MAP_PRIVATE and read-only; truncating the file while a context uses its
** weights is as unsafe as with any mapped file.
**
** This is not a general buffer type: it holds read-only bytes, nothing
** writes to a range once it is made. Nothing here reports diagnostics;
** callers word them.
*/
#ifndef GILT_FRONTENDS_ONNX_BYTES_H
#define GILT_FRONTENDS_ONNX_BYTES_H

#include "ir/support/alloc.h"

typedef struct GiltOnnxBytes GiltOnnxBytes;

/* The `len` (> 0) bytes of `fd` from `offset`, mapped; read into memory
** where mapping fails. NULL after a failed read, with *error set to what
** went wrong ("unexpected end of file" or strerror's text). The caller
** holds the one reference. */
GILT_INTERNAL GiltOnnxBytes *gilt_onnx_bytes_map(GiltContext *ctx, int fd,
                                                 uint64_t offset, size_t len,
                                                 const char **error);
/* Takes `buf`, `len` bytes from gilt_malloc on ctx; the caller holds the
** one reference. */
GILT_INTERNAL GiltOnnxBytes *gilt_onnx_bytes_wrap(GiltContext *ctx,
                                                  void *buf, size_t len);
GILT_INTERNAL const uint8_t *gilt_onnx_bytes_get_data(const GiltOnnxBytes *b);
GILT_INTERNAL size_t gilt_onnx_bytes_get_size(const GiltOnnxBytes *b);
/* Drops a reference; the last one unmaps or frees the bytes. NULL is a
** no-op. */
GILT_INTERNAL void gilt_onnx_bytes_release(GiltOnnxBytes *b);
/* A dense resource of `type` named `name` whose `nbytes` bytes at `data`
** lie inside `b`: the context borrows them, holding a reference to `b`
** until it lets go of them. NULL after reporting, as
** gilt_dense_resource_attr_take. */
GILT_INTERNAL GiltAttr *gilt_onnx_bytes_resource(GiltOnnxBytes *b,
                                                 GiltType *type,
                                                 const char *name,
                                                 const void *data,
                                                 size_t nbytes);

#endif /* GILT_FRONTENDS_ONNX_BYTES_H */
