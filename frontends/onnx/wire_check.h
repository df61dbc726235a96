/*
** wire_check.h - a pre-scan of protobuf bytes before protobuf-c unpacks
** them, which also sets the weights aside.
**
** protobuf-c unpacks nested messages by recursion and has no depth limit,
** so a few megabytes of crafted bytes nesting graphs in attributes in nodes
** in graphs would overflow the stack inside the library, out of our reach.
** This scan walks the wire format with the same message descriptors, one
** bounded recursion level per nested message, and refuses input nested
** deeper than protobuf's own C++ and Java runtimes allow (100). It also
** catches most malformed input cheaply.
**
** While it walks, it writes the skeleton that protobuf-c then unpacks: the
** same message with the payload of every TensorProto.raw_data replaced by
** a reference to where it lies in the scanned bytes. protobuf-c copies
** every bytes field it unpacks; this way it copies a few bytes per tensor
** instead of the weights, which stay in the mapped file (bytes.h). It is
** not a decoder: it checks framing and depth only, and protobuf-c remains
** the judge of the rest.
*/
#ifndef GILT_FRONTENDS_ONNX_WIRE_CHECK_H
#define GILT_FRONTENDS_ONNX_WIRE_CHECK_H

#include <protobuf-c/protobuf-c.h>

#include "ir/support/alloc.h"

/* As protobuf's CodedInputStream default recursion limit. */
#define GILT_ONNX_MAX_NESTING 100

typedef enum GiltWireCheck {
  GILT_WIRE_OK,
  GILT_WIRE_MALFORMED, /* bad varint, tag, length or wire type */
  GILT_WIRE_TOO_DEEP   /* more than GILT_ONNX_MAX_NESTING levels */
} GiltWireCheck;

/* Scans `len` bytes as a message of type `desc` and appends its skeleton
** to `skeleton` (whose contents are unspecified after a failure). Reports
** nothing: the caller knows which file it was and words the diagnostic. */
GILT_INTERNAL GiltWireCheck gilt_onnx_wire_check(
    const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
    GiltStrBuf *skeleton);

/* Where the raw_data of a TensorProto unpacked from a skeleton lies in the
** scanned bytes: `*len` bytes from `*offset`. */
GILT_INTERNAL void gilt_onnx_wire_raw_data_ref(const ProtobufCBinaryData *raw,
                                               uint64_t *offset,
                                               uint64_t *len);

#endif /* GILT_FRONTENDS_ONNX_WIRE_CHECK_H */
