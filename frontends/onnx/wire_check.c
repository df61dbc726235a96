/*
** wire_check.c - the nesting-depth and framing pre-scan of protobuf bytes
** (see wire_check.h for why it exists).
**
** The wire format (protobuf's "Encoding" guide): a message is a sequence
** of (tag, value) pairs; the tag is a varint holding field_number << 3 |
** wire_type, and the wire type says how long the value is: 0 a varint,
** 1 eight bytes, 2 a varint length and that many bytes, 5 four bytes.
** Types 3 and 4 (groups) are proto2 relics that ONNX never uses and
** protobuf-c does not decode; they count as malformed. Only length-delimited
** fields that the descriptor says are messages are descended into, exactly
** as protobuf-c will: unknown fields stay opaque bytes there too.
*/
#include "frontends/onnx/wire_check.h"

/* Reads a varint at *p (at most ten bytes, none past end). */
static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 70 && *p < end; shift += 7) {
    uint8_t b = *(*p)++;
    if (shift == 63 && b > 1)
      return false; /* more than 64 bits */
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

static GiltWireCheck scan(const ProtobufCMessageDescriptor *desc,
                          const uint8_t *p, const uint8_t *end,
                          unsigned depth)
{
  if (depth > GILT_ONNX_MAX_NESTING)
    return GILT_WIRE_TOO_DEEP;
  while (p < end) {
    uint64_t tag, n;
    if (!read_varint(&p, end, &tag) || (tag >> 3) == 0 ||
        (tag >> 3) > 0x1fffffff)
      return GILT_WIRE_MALFORMED;
    switch (tag & 7) {
    case 0:
      if (!read_varint(&p, end, &n))
        return GILT_WIRE_MALFORMED;
      break;
    case 1:
      if (end - p < 8)
        return GILT_WIRE_MALFORMED;
      p += 8;
      break;
    case 5:
      if (end - p < 4)
        return GILT_WIRE_MALFORMED;
      p += 4;
      break;
    case 2: {
      if (!read_varint(&p, end, &n) || n > (uint64_t)(end - p))
        return GILT_WIRE_MALFORMED;
      const ProtobufCFieldDescriptor *f =
          protobuf_c_message_descriptor_get_field(desc, (unsigned)(tag >> 3));
      if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
        GiltWireCheck sub = scan(f->descriptor, p, p + n, depth + 1);
        if (sub != GILT_WIRE_OK)
          return sub;
      }
      p += n;
      break;
    }
    default:
      return GILT_WIRE_MALFORMED;
    }
  }
  return GILT_WIRE_OK;
}

GiltWireCheck gilt_onnx_wire_check(const ProtobufCMessageDescriptor *desc,
                                   const uint8_t *data, size_t len)
{
  if (len == 0)
    return GILT_WIRE_OK; /* data may be NULL, and NULL + 0 is undefined */
  return scan(desc, data, data + len, 0);
}
