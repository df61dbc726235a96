/*
** onnx_model.h - ONNX models built by hand for the tests and benchmarks.
**
** The unit tests and the benchmarks need ModelProtos that are exactly what
** they claim to be, without an ONNX installation; this module builds them
** with the protobuf-c structures generated from frontends/onnx/onnx.proto
** and packs them. It is not a model library: it holds no operator
** knowledge, and a test edits the structures it gets back (an element
** type, a missing shape, external data) to make the case it needs.
**
** Ownership: everything the onnx_ functions allocate, strings they copy
** included, lives until onnx_free_all(). Numeric arrays (dims, attribute
** values, initializer data) are borrowed and must outlive the packing.
** Allocation failure prints a message and exits: these are test programs.
** Linked into test/unit/ and bench/ programs, never into libgilt.
*/
#ifndef GILT_TEST_SUPPORT_ONNX_MODEL_H
#define GILT_TEST_SUPPORT_ONNX_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "frontends/onnx/onnx.pb-c.h"

#define ONNX_DT(x) GILT__ONNX__TENSOR_PROTO__DATA_TYPE__##x
#define ONNX_AT(x) GILT__ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x

/* Zeroed memory for `n` objects of `size` bytes, freed by onnx_free_all. */
void *onnx_alloc(size_t n, size_t size);

/* Frees everything the onnx_ functions allocated. */
void onnx_free_all(void);

/* An empty graph; add to it with the onnx_add_ functions. */
Gilt__Onnx__GraphProto *onnx_graph(const char *name);

/* A float tensor value of `rank` dims, -1 for a dynamic one. */
Gilt__Onnx__ValueInfoProto *onnx_value(const char *name, size_t rank,
                                       const int64_t *dims);

/* A value without a type, as subgraph inputs and outputs may be. */
Gilt__Onnx__ValueInfoProto *onnx_untyped(const char *name);

/* A node; `ins` and `outs` are comma-separated names ("x,,y": the middle
** one absent). */
Gilt__Onnx__NodeProto *onnx_node(const char *op_type, const char *name,
                                 const char *ins, const char *outs);

/* Attributes of a node: `type` is an ONNX_AT(...) value; the caller fills
** in the payload of onnx_attr's. */
Gilt__Onnx__AttributeProto *onnx_attr(Gilt__Onnx__NodeProto *n,
                                      const char *name, int type);
void onnx_attr_int(Gilt__Onnx__NodeProto *n, const char *name, int64_t i);
void onnx_attr_ints(Gilt__Onnx__NodeProto *n, const char *name, size_t count,
                    const int64_t *values);
void onnx_attr_float(Gilt__Onnx__NodeProto *n, const char *name, float f);

void onnx_add_node(Gilt__Onnx__GraphProto *g, Gilt__Onnx__NodeProto *n);
void onnx_add_input(Gilt__Onnx__GraphProto *g, Gilt__Onnx__ValueInfoProto *v);
void onnx_add_output(Gilt__Onnx__GraphProto *g,
                     Gilt__Onnx__ValueInfoProto *v);
void onnx_add_value_info(Gilt__Onnx__GraphProto *g,
                         Gilt__Onnx__ValueInfoProto *v);

/* A float initializer in raw_data: as many floats of `data` as the dims
** hold. */
Gilt__Onnx__TensorProto *onnx_add_initializer(Gilt__Onnx__GraphProto *g,
                                              const char *name, size_t rank,
                                              const int64_t *dims,
                                              const float *data);

/* `m` packed, in a buffer from malloc the caller frees. */
uint8_t *onnx_pack_model(const Gilt__Onnx__ModelProto *m, size_t *len);

/* The model around `g` (IR version 8, the default domain at `opset`),
** packed, in a buffer from malloc the caller frees. */
uint8_t *onnx_pack(const Gilt__Onnx__GraphProto *g, int64_t opset,
                   size_t *len);

/* The model around `g` written to `path`: its size in bytes, or 0 when
** the file cannot be written (errno tells why). */
size_t onnx_write(const Gilt__Onnx__GraphProto *g, int64_t opset,
                  const char *path);

#endif /* GILT_TEST_SUPPORT_ONNX_MODEL_H */
