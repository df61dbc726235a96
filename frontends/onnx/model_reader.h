/*
** model_reader.h - reading ONNX files: models, standalone tensors, and the
** payloads of the tensors in them.
**
** A GiltOnnxReader holds one decoded file: a ModelProto (a `.onnx` model)
** or a TensorProto (a `.pb` file of the ONNX backend test data). Opening
** it maps the file (bytes.h), unpacks its skeleton with protobuf-c through
** the context's allocator (wire_check.h: every raw_data payload stays in
** the mapped file, and the unpacked raw_data fields hold references to it)
** and, for a model, checks what every later stage relies on: a
** graph with outputs, an operator set import of the default domain in the
** supported range, and no node in a domain gilt cannot import. The reader
** then resolves tensor payloads on request, whichever way the file stores
** them (raw_data, the typed *_data fields, or external data files next to
** the model), into little-endian bytes in ranges the reader holds, which
** dense resources may go on holding (gilt_onnx_bytes_resource).
**
** It deliberately builds no IR: the importer (the graph dialect's
** frontend) walks the protobuf structures returned here and asks the
** reader for tensor contents and value types. Nothing here is public API;
** the protobuf structures come from onnx.proto (generated into gen/ as
** "frontends/onnx/onnx.pb-c.h").
**
** Every failure is reported as an error through the context, and the call
** returns NULL or GILT_FAILURE. Messages name the file
** ("'m.onnx': not a valid ONNX model (protobuf parse failed)").
*/
#ifndef GILT_FRONTENDS_ONNX_MODEL_READER_H
#define GILT_FRONTENDS_ONNX_MODEL_READER_H

#include <protobuf-c/protobuf-c.h>

#include "frontends/onnx/bytes.h"
#include "frontends/onnx/onnx.pb-c.h"
#include "ir/support/alloc.h"

/* The versions of the default operator set ("" or "ai.onnx") gilt imports.
** Operators whose definition changed after opset 17 import only in the
** versions op_versions.c marks. */
#define GILT_ONNX_MIN_OPSET 1
#define GILT_ONNX_MAX_OPSET 21

/* One decoded file. The fields are private to frontends/onnx/. */
typedef struct GiltOnnxReader {
  GiltContext *ctx;
  ProtobufCAllocator allocator; /* gilt_malloc/gilt_free on ctx */
  char *file;                   /* the name used in diagnostics */
  char *dir; /* what external data paths are relative to; NULL: none */
  Gilt__Onnx__ModelProto *model;   /* a model file, else NULL */
  Gilt__Onnx__TensorProto *tensor; /* a tensor file, else NULL */
  int64_t opset;                   /* default domain version, models only */
  GiltOnnxBytes *image;            /* the file; raw_data refers into it */
  GILT_VEC(GiltOnnxBytes *) buffers; /* converted and external payloads */
} GiltOnnxReader;

/* A tensor's contents, resolved. Everything it points to is borrowed from
** the reader and lives until gilt_onnx_reader_destroy. */
typedef struct GiltOnnxTensor {
  const char *name;      /* the TensorProto's name, "" if it has none */
  int32_t data_type;     /* the ONNX TensorProto.DataType value */
  GiltType *elem_type;   /* see gilt_onnx_element_type_get */
  size_t rank;
  const int64_t *dims;   /* rank sizes, each >= 0 */
  int64_t num_elements;  /* product of dims (1 for rank 0) */
  size_t elem_size;      /* bytes per element in `data` (bool, 4-bit: 1) */
  /* num_elements * elem_size bytes, little-endian, row-major; bool as one
  ** byte 0 or 1; int4 and uint4 unpacked, one byte per element, sign- or
  ** zero-extended. NULL when there are no elements. No alignment is
  ** promised: read it with memcpy. */
  const void *data;
  size_t nbytes;
  GiltOnnxBytes *bytes; /* the range data lies in; NULL with data */
} GiltOnnxTensor;

/* Reads and checks the model file at `path`. External data is looked up
** relative to the file's directory. Returns a reader the caller destroys,
** or NULL after reporting. */
GILT_INTERNAL GiltOnnxReader *gilt_onnx_reader_open_model(GiltContext *ctx,
                                                          const char *path);
/* As above, but the model is only decoded, not checked: its graph may be
** missing, its nodes in any domain, its operator sets any (the reader's
** opset is then 0). For tools that look at models gilt may refuse
** (onnx-info --scope); the importer never uses it. */
GILT_INTERNAL GiltOnnxReader *gilt_onnx_reader_open_model_unchecked(
    GiltContext *ctx, const char *path);
/* As above, from `len` bytes in memory (borrowed for the call). `name`
** stands for the file in diagnostics; `dir` is the directory external data
** is relative to, or NULL to refuse external data. */
GILT_INTERNAL GiltOnnxReader *gilt_onnx_reader_open_model_buffer(
    GiltContext *ctx, const void *data, size_t len, const char *name,
    const char *dir);
/* Reads a file holding one serialized TensorProto, as the test_data_set_N
** folders of the ONNX backend tests do; its payload is resolved with
** gilt_onnx_reader_resolve_tensor(r, gilt_onnx_reader_get_tensor_proto(r),
** ...). */
GILT_INTERNAL GiltOnnxReader *gilt_onnx_reader_open_tensor(GiltContext *ctx,
                                                           const char *path);
GILT_INTERNAL GiltOnnxReader *gilt_onnx_reader_open_tensor_buffer(
    GiltContext *ctx, const void *data, size_t len, const char *name,
    const char *dir);
/* Frees the protobuf structures and every resolved payload. NULL is a
** no-op. */
GILT_INTERNAL void gilt_onnx_reader_destroy(GiltOnnxReader *r);

/* Borrowed views of the decoded file; NULL when it is the other kind. */
GILT_INTERNAL const Gilt__Onnx__ModelProto *gilt_onnx_reader_get_model(
    const GiltOnnxReader *r);
/* The model's main graph (never NULL for a model opened with the checks). */
GILT_INTERNAL const Gilt__Onnx__GraphProto *gilt_onnx_reader_get_graph(
    const GiltOnnxReader *r);
GILT_INTERNAL const Gilt__Onnx__TensorProto *gilt_onnx_reader_get_tensor_proto(
    const GiltOnnxReader *r);
GILT_INTERNAL const char *gilt_onnx_reader_get_file_name(
    const GiltOnnxReader *r);
/* The version the model imports for `domain` ("" and "ai.onnx" are the
** same domain), 0 when it imports none. */
GILT_INTERNAL int64_t gilt_onnx_reader_get_opset_version(
    const GiltOnnxReader *r, const char *domain);

/* Resolves the payload of `t`, which belongs to this reader's file (an
** initializer, a Constant's attribute, the tensor of a tensor file; its
** raw_data is a reference only the reader can follow).
** Errors are reported at `loc` (NULL: unknown) and name the tensor: an
** unsupported element type, a negative dim, a payload whose size does not
** match the dims, data in a field its type does not use, several payloads,
** segments, and for external data a missing or malformed entry, a path
** that is absolute or leaves the model's directory (`..`, or a symbolic
** link resolving outside it), and a range beyond the end of the file.
** Resolving the same tensor twice resolves it twice. */
GILT_INTERNAL GiltStatus gilt_onnx_reader_resolve_tensor(
    GiltOnnxReader *r, const Gilt__Onnx__TensorProto *t, GiltLocation *loc,
    GiltOnnxTensor *out);

/* The gilt type of a graph input, output or value_info entry: a tensor
** type with dim_value sizes and GILT_DYNAMIC for dim_param or unset dims,
** an unranked tensor when there is no shape. Reports at `loc` and returns
** NULL for a missing type, a non-tensor type (sequence, map, optional,
** sparse) and an unsupported element type. */
GILT_INTERNAL GiltType *gilt_onnx_reader_get_value_type(
    GiltOnnxReader *r, const Gilt__Onnx__ValueInfoProto *vi,
    GiltLocation *loc);

/* ---- element types (data_types.c) ---------------------------------------- */

/* The gilt element type of an ONNX TensorProto.DataType, as MLIR's ONNX
** importers map them: float, double, float16 and bfloat16 to f32, f64, f16
** and bf16; FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2 and FLOAT8E5M2FNUZ to
** f8E4M3FN, f8E4M3FNUZ, f8E5M2 and f8E5M2FNUZ; int8..int64 to signless i8..i64 (ONNX integers are signed, and
** signless integers are what arithmetic in MLIR-style IR works on, with
** the signed interpretation chosen by each op); uint8..uint64 to
** ui8..ui64, whose unsignedness no op could recover otherwise; int4 and
** uint4 to i4 and ui4 likewise; bool to i1. NULL for the others (string,
** complex, float4, float8e8m0, undefined, unknown values): the caller words the error, or
** calls gilt_onnx_element_type_get_or_report. */
GILT_INTERNAL GiltType *gilt_onnx_element_type_get(GiltContext *ctx,
                                                   int32_t data_type);
/* As above; reports "'<file>': <what> has element type <name>, which gilt
** does not support" at loc when there is no gilt type. */
GILT_INTERNAL GiltType *gilt_onnx_element_type_get_or_report(
    GiltContext *ctx, int32_t data_type, const char *file, const char *what,
    GiltLocation *loc);
/* The ONNX TensorProto.DataType whose gilt element type is `elem` (a
** type of the context it belongs to): the inverse of
** gilt_onnx_element_type_get. UNDEFINED (0) for a type no ONNX type maps
** to. */
GILT_INTERNAL int32_t gilt_onnx_data_type_of(GiltType *elem);
/* Bytes per element as gilt stores it (bool, int4, uint4: 1); 0 when
** unsupported. */
GILT_INTERNAL size_t gilt_onnx_element_size(int32_t data_type);
/* ONNX's name of the type ("FLOAT", "BFLOAT16"), "unknown" otherwise. */
GILT_INTERNAL const char *gilt_onnx_data_type_name(int32_t data_type);
/* Whether `domain` names the default operator set: "", NULL or "ai.onnx". */
GILT_INTERNAL bool gilt_onnx_is_default_domain(const char *domain);

#endif /* GILT_FRONTENDS_ONNX_MODEL_READER_H */
