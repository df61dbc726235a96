/*
** tensor_io.h - host tensors in and out of files and text, with the
** conventions of IREE's iree-run-module, for gjit's --input, --output and
** --expected-output:
**
**   @path.npy              a NumPy array file (format versions 1 to 3)
**   @path.pb               one serialized ONNX TensorProto, as the
**                          test_data_set_N folders of the ONNX tests hold
**   2x3xf32=1 2 3 4 5 6    inline text: dims, the element type, values
**   -                      (output only) print, truncated, as 2x3xf32=[1 2 3][4 5 6]
**
** It lives in the library rather than in tools/gjit/ because reading a
** TensorProto goes through the ONNX frontend's reader (model_reader.h),
** whose functions are hidden, and because the checks that a user's bad
** file never crashes belong in unit tests linked against the library.
** Nothing here is public API: embedders have gilt/tensor.h and their own
** file formats (the Python package converts NumPy arrays itself).
**
** Every failure is reported as an error through the context and the call
** returns NULL or GILT_FAILURE. File errors are located at the file name
** ("x.npy: error: ..."); errors in inline text point at the offending
** character, the text registered as a source buffer of the caller's name.
** Nothing is printed and nothing exits.
*/
#ifndef GILT_JIT_TENSOR_IO_H
#define GILT_JIT_TENSOR_IO_H

#include "gilt/tensor.h"
#include "ir/support/alloc.h"

/* Tensors of more elements than this print truncated (gilt_tensor_print),
** as iree-run-module's default --print_max_element_count. */
#define GILT_TENSOR_PRINT_LIMIT 1024

/* ---- specs and ONNX tensor files (tensor_io.c) --------------------------- */

/* The tensor `spec` describes: "@path.npy", "@path.pb" or inline text
** (gilt_tensor_parse_text). `name` is what diagnostics call inline text
** ("--input"); NULL: "<tensor>". Returns a tensor the caller destroys,
** or NULL after reporting. */
GILT_INTERNAL GiltTensor *gilt_tensor_read_spec(GiltContext *ctx,
                                                const char *spec,
                                                const char *name);
/* Whether `spec` is a place gilt_tensor_write_spec can write to ("-" or
** "@path.npy"), so that a tool can check it before any work. */
GILT_INTERNAL bool gilt_tensor_spec_is_writable(const char *spec);
/* Writes `t` (not modified) where `spec` says: "-" prints it through `cb`
** (gilt_tensor_print with GILT_TENSOR_PRINT_LIMIT, then a newline);
** "@path.npy" writes a NumPy file. Anything else is reported, as are
** write errors. */
GILT_INTERNAL GiltStatus gilt_tensor_write_spec(GiltContext *ctx,
                                                const GiltTensor *t,
                                                const char *spec,
                                                GiltStringCallback cb,
                                                void *user);
/* The tensor in the file at `path`, one serialized ONNX TensorProto
** (raw_data or typed fields; external data relative to the file's
** folder). Element types map as the ONNX importer maps them (int8 to i8,
** uint8 to ui8, bool to i1, float16 to f16, ...). Returns a tensor the
** caller destroys, or NULL after reporting. */
GILT_INTERNAL GiltTensor *gilt_tensor_read_onnx(GiltContext *ctx,
                                                const char *path);

/* ---- NumPy files (npy.c) ------------------------------------------------- */

/* The array in the .npy file at `path`: little-endian or single-byte
** dtypes <f2 <f4 <f8 |b1 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8, in C order.
** They become f16 f32 f64 i1 i8 ui8 i16 ui16 i32 ui32 i64 ui64: signed
** NumPy integers are signless, as the ONNX importer makes ONNX's. Other
** dtypes, Fortran order, a malformed header and a data size that does not
** match the shape are reported. Returns a tensor the caller destroys, or
** NULL after reporting. */
GILT_INTERNAL GiltTensor *gilt_tensor_read_npy(GiltContext *ctx,
                                               const char *path);
/* Writes `t` to `path` as a version 1.0 .npy file (2.0 if the header
** needs it), the dtype the inverse of the reading map; index is <i8, si
** as signless, bf16 as its bits in <u2 (ONNX's test data does the same).
** Element types NumPy has no dtype for (the 8-bit floats, integers of
** other widths than 1, 8, 16, 32 and 64) are reported, as are I/O
** errors. */
GILT_INTERNAL GiltStatus gilt_tensor_write_npy(GiltContext *ctx,
                                               const GiltTensor *t,
                                               const char *path);

/* ---- text (tensor_text.c) ------------------------------------------------ */

/* Parses `[D "x"]... TYPE "=" VALUES`: the dims are decimal, TYPE is i1,
** iN, siN, uiN (N up to 64), index, f16, bf16, f32, f64, f8E4M3FN,
** f8E4M3FNUZ, f8E5M2 or f8E5M2FNUZ; VALUES are separated by spaces,
** commas or brackets (so printed text parses back), one per element in
** row-major order, or a single one for every element. Floats are what
** strtod reads (nan, inf and -inf included), rounded to the type;
** integers are decimal and must fit the type (signless ones may use the
** unsigned range); i1 takes true, false, 1 and 0. `f32=1.5` is a scalar.
** Errors point into the text, registered with the context as the source
** buffer `name` (NULL: "<tensor>"). Returns a tensor the caller destroys,
** or NULL after reporting. */
GILT_INTERNAL GiltTensor *gilt_tensor_parse_text(GiltContext *ctx,
                                                 const char *text,
                                                 const char *name);
/* Prints `t` as iree-run-module does: `2x3xf32=[1 2 3][4 5 6]`, a scalar
** as `f32=1.5`, no newline. Floats print in the fewest digits that read
** back to the same value, integers exactly. A tensor of more than
** `max_elements` elements shows only the first and last three entries of
** each dimension longer than six, the rest as `...`; INT64_MAX prints
** everything. */
GILT_INTERNAL void gilt_tensor_print(const GiltTensor *t, int64_t max_elements,
                                     GiltStringCallback cb, void *user);
/* Element i of `t` as gilt_tensor_print writes it, NUL-terminated into
** `buf` (32 bytes are always enough). */
GILT_INTERNAL void gilt_tensor_format_element(const GiltTensor *t, int64_t i,
                                              char *buf, size_t size);
/* `shape` as dims joined by 'x' ("2x3"; "" for a scalar), appended. */
GILT_INTERNAL void gilt_tensor_format_shape(GiltStrBuf *sb, size_t rank,
                                            const int64_t *shape);

/* ---- comparison (tensor_compare.c) --------------------------------------- */

/* Whether `actual` matches `expected`: the same element type and shape,
** and every element close: floats when |a - e| <= atol + rtol * |e|, or
** both NaN, or equal (infinities of the same sign); integers exactly.
** Otherwise reports at `loc` (NULL: unknown) the first element that
** differs, by flat and multi-index, with both values and the error, and
** a note counting the differing elements and naming the largest error,
** and returns GILT_FAILURE. */
GILT_INTERNAL GiltStatus gilt_tensor_compare(GiltContext *ctx,
                                             GiltLocation *loc,
                                             const GiltTensor *actual,
                                             const GiltTensor *expected,
                                             double rtol, double atol);

/* As gilt_tensor_compare, but floats match as a whole when the relative
** L2 error ||actual - expected|| / ||expected|| is at most max_error (NaN
** never matches); reports the error and, in a note, the element that
** differs most. Integers and booleans compare exactly. */
GILT_INTERNAL GiltStatus gilt_tensor_compare_l2(GiltContext *ctx,
                                                GiltLocation *loc,
                                                const GiltTensor *actual,
                                                const GiltTensor *expected,
                                                double max_error);

/* As gilt_tensor_compare, but every element must have the expected bits
** (-0 differs from +0; a NaN matches only the same NaN). */
GILT_INTERNAL GiltStatus gilt_tensor_compare_bits(GiltContext *ctx,
                                                  GiltLocation *loc,
                                                  const GiltTensor *actual,
                                                  const GiltTensor *expected);

/* ---- shared by the files above ------------------------------------------- */

/* The elements of a tensor only read: gilt/tensor.h's accessor takes a
** writable tensor, and these readers promise to leave theirs alone. */
static inline const void *gilt_tensor_elements(const GiltTensor *t)
{
  return gilt_tensor_get_data((GiltTensor *)t);
}

#endif /* GILT_JIT_TENSOR_IO_H */
