/*
** wire_check.c - the nesting-depth and framing pre-scan of protobuf bytes,
** writing the skeleton protobuf-c unpacks (see wire_check.h for why).
**
** The wire format (protobuf's "Encoding" guide): a message is a sequence
** of (tag, value) pairs; the tag is a varint holding field_number << 3 |
** wire_type, and the wire type says how long the value is: 0 a varint,
** 1 eight bytes, 2 a varint length and that many bytes, 5 four bytes.
** Types 3 and 4 (groups) are proto2 relics that ONNX never uses and
** protobuf-c does not decode; they count as malformed. Only length-delimited
** fields that the descriptor says are messages are descended into, exactly
** as protobuf-c will: unknown fields stay opaque bytes there too.
**
** The skeleton copies every field but two kinds. A TensorProto's raw_data
** becomes a 16-byte reference (offset and length, little-endian). A
** nested message is copied with its length written as a five-byte varint,
** padded with continuation bits: the length is known only once the
** message has been written, and a fixed-size slot can be filled in then.
** Protobuf parsers, protobuf-c included, accept varints that are longer
** than needed.
*/
#include "frontends/onnx/wire_check.h"

#include "frontends/onnx/onnx.pb-c.h"

enum {
  TENSOR_RAW_DATA = 9, /* TensorProto.raw_data's field number */
  REF_SIZE = 16,
  LENGTH_SLOT = 5 /* bytes of a padded length: up to 35 bits */
};

typedef struct Scan {
  const uint8_t *base; /* the start of the scanned bytes */
  GiltStrBuf *out;
} Scan;

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

static void emit(Scan *s, const uint8_t *from, const uint8_t *to)
{
  gilt_strbuf_append(s->out, (const char *)from, (size_t)(to - from));
}

static void put_le64(uint8_t *p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64(const uint8_t *p)
{
  uint64_t v = 0;
  for (int i = 8; i-- > 0;)
    v = v << 8 | p[i];
  return v;
}

/* The raw_data payload [p, p + n) as a reference: its length, then
** offset and length. */
static void emit_raw_data_ref(Scan *s, const uint8_t *p, uint64_t n)
{
  uint8_t ref[1 + REF_SIZE] = {REF_SIZE};
  put_le64(ref + 1, (uint64_t)(p - s->base));
  put_le64(ref + 9, n);
  emit(s, ref, ref + sizeof ref);
}

static GiltWireCheck scan(Scan *s, const ProtobufCMessageDescriptor *desc,
                          const uint8_t *p, const uint8_t *end,
                          unsigned depth);

/* A nested message [p, p + n): its skeleton, in a padded length. */
static GiltWireCheck scan_nested(Scan *s,
                                 const ProtobufCMessageDescriptor *desc,
                                 const uint8_t *p, uint64_t n, unsigned depth)
{
  static const uint8_t slot[LENGTH_SLOT];
  emit(s, slot, slot + LENGTH_SLOT);
  size_t start = s->out->len;
  GiltWireCheck st = scan(s, desc, p, p + n, depth);
  if (st != GILT_WIRE_OK)
    return st;
  uint64_t len = s->out->len - start;
  if (len >> (7 * LENGTH_SLOT))
    return GILT_WIRE_MALFORMED; /* beyond any message protobuf-c takes */
  uint8_t *at = (uint8_t *)s->out->data + start - LENGTH_SLOT;
  for (int i = 0; i < LENGTH_SLOT; i++)
    at[i] = (uint8_t)((len >> (7 * i)) & 0x7f) |
            (i < LENGTH_SLOT - 1 ? 0x80 : 0);
  return GILT_WIRE_OK;
}

static GiltWireCheck scan(Scan *s, const ProtobufCMessageDescriptor *desc,
                          const uint8_t *p, const uint8_t *end,
                          unsigned depth)
{
  if (depth > GILT_ONNX_MAX_NESTING)
    return GILT_WIRE_TOO_DEEP;
  while (p < end) {
    const uint8_t *field = p;
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
      const uint8_t *tag_end = p;
      if (!read_varint(&p, end, &n) || n > (uint64_t)(end - p))
        return GILT_WIRE_MALFORMED;
      const ProtobufCFieldDescriptor *f =
          protobuf_c_message_descriptor_get_field(desc, (unsigned)(tag >> 3));
      if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
        emit(s, field, tag_end);
        GiltWireCheck sub = scan_nested(s, f->descriptor, p, n, depth + 1);
        if (sub != GILT_WIRE_OK)
          return sub;
        field = p + n; /* written: nothing of it is left to copy */
      } else if (f && f->id == TENSOR_RAW_DATA &&
                 desc == &gilt__onnx__tensor_proto__descriptor) {
        emit(s, field, tag_end);
        emit_raw_data_ref(s, p, n);
        field = p + n;
      }
      p += n;
      break;
    }
    default:
      return GILT_WIRE_MALFORMED;
    }
    emit(s, field, p); /* the field as it is, or nothing */
  }
  return GILT_WIRE_OK;
}

GiltWireCheck gilt_onnx_wire_check(const ProtobufCMessageDescriptor *desc,
                                   const uint8_t *data, size_t len,
                                   GiltStrBuf *skeleton)
{
  if (len == 0)
    return GILT_WIRE_OK; /* data may be NULL, and NULL + 0 is undefined */
  Scan s = {.base = data, .out = skeleton};
  return scan(&s, desc, data, data + len, 0);
}

void gilt_onnx_wire_raw_data_ref(const ProtobufCBinaryData *raw,
                                 uint64_t *offset, uint64_t *len)
{
  GILT_ASSERT(raw->len == REF_SIZE);
  *offset = get_le64(raw->data);
  *len = get_le64(raw->data + 8);
}
