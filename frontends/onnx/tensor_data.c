/*
** tensor_data.c - resolving the payload of a TensorProto into
** little-endian bytes.
**
** ONNX stores a tensor's elements in one of three ways (onnx.proto's
** comments on TensorProto): raw_data, fixed-width little-endian bytes;
** one of the typed repeated fields, where the small integer types, bool
** and the 16-bit float bit patterns all ride in int32_data, one element
** per entry, and uint32 rides in uint64_data; or external data, a byte
** range of a file named relative to the model's directory. Every way ends
** in the same GiltOnnxTensor: raw_data is used in place in the mapped
** model, typed fields are converted into a buffer the reader holds,
** external ranges are mapped. None is copied, and a dense resource made
** from one keeps its range (bytes.h), except int4 and uint4: ONNX packs
** two of them in a byte, the first in the low nibble, in raw_data, in
** external data and in each int32_data entry alike, and gilt stores one
** element a byte, so they are unpacked into a buffer the reader holds. Sizes are checked against the dims
** before anything is allocated, so a tensor claiming a billion elements
** costs nothing until its bytes are really there.
**
** External paths are confined to the model's directory: an absolute path,
** a `..` component, or a symbolic link resolving outside it is refused, as
** ONNX's own checker does since its path traversal advisory
** (GHSA-ffxj-547x-5j7c). This file does not map types (data_types.c) or
** read model files (model_reader.c).
*/
/* realpath is XSI in glibc's headers, beyond _POSIX_C_SOURCE. */
#define _XOPEN_SOURCE 700
#include "frontends/onnx/model_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontends/onnx/wire_check.h"
#include "ir/support/checked_math.h"

#define DT(x) GILT__ONNX__TENSOR_PROTO__DATA_TYPE__##x

/* What a diagnostic calls the tensor: "tensor 'w'" or "unnamed tensor". */
typedef struct TensorDesc {
  GiltOnnxReader *r;
  GiltLocation *loc;
  char what[160];
} TensorDesc;

static GiltStatus fail(TensorDesc *td, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Reports "'<file>': <tensor> <message>" and returns GILT_FAILURE; the
** message is a predicate ("has 3 elements but no data"). */
static GiltStatus fail(TensorDesc *td, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  gilt_emit_error(td->loc, "'%s': %s %s", td->r->file, td->what, msg);
  return GILT_FAILURE;
}

/* A buffer of `nbytes` the reader holds, in the range *holder. */
static uint8_t *own(GiltOnnxReader *r, size_t nbytes, GiltOnnxBytes **holder)
{
  uint8_t *p = gilt_malloc(r->ctx, nbytes);
  *holder = gilt_onnx_bytes_wrap(r->ctx, p, nbytes);
  gilt_vec_push(r->ctx, &r->buffers, *holder);
  return p;
}

static void put_le(uint8_t *p, uint64_t v, size_t size)
{
  for (size_t i = 0; i < size; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- typed fields -------------------------------------------------------- */

/* The typed fields a TensorProto may use, and which data types each one
** carries. */
typedef enum TypedField {
  FLOAT_DATA,
  INT32_DATA,
  STRING_DATA,
  INT64_DATA,
  DOUBLE_DATA,
  UINT64_DATA,
  NUM_TYPED_FIELDS
} TypedField;

static const char *const typed_field_names[NUM_TYPED_FIELDS] = {
    "float_data",  "int32_data",  "string_data",
    "int64_data",  "double_data", "uint64_data"};

static size_t typed_field_count(const Gilt__Onnx__TensorProto *t,
                                TypedField f)
{
  switch (f) {
  case FLOAT_DATA:
    return t->n_float_data;
  case INT32_DATA:
    return t->n_int32_data;
  case STRING_DATA:
    return t->n_string_data;
  case INT64_DATA:
    return t->n_int64_data;
  case DOUBLE_DATA:
    return t->n_double_data;
  case UINT64_DATA:
    return t->n_uint64_data;
  case NUM_TYPED_FIELDS:
    break;
  }
  return 0;
}

static TypedField field_for_type(int32_t dt)
{
  switch (dt) {
  case DT(FLOAT):
    return FLOAT_DATA;
  case DT(INT64):
    return INT64_DATA;
  case DT(DOUBLE):
    return DOUBLE_DATA;
  case DT(UINT32):
  case DT(UINT64):
    return UINT64_DATA;
  default: /* the rest of the supported types, all at most 32 bits */
    return INT32_DATA;
  }
}

/* The accepted range of an int32_data entry for each type. The 16- and
** 8-bit float bit patterns are accepted sign-extended too, as some writers
** produce them, and keep their low bits. */
static bool int32_entry_range(int32_t dt, int64_t *lo, int64_t *hi)
{
  switch (dt) {
  case DT(INT8):
    *lo = INT8_MIN, *hi = INT8_MAX;
    return true;
  case DT(UINT8):
    *lo = 0, *hi = UINT8_MAX;
    return true;
  case DT(INT16):
    *lo = INT16_MIN, *hi = INT16_MAX;
    return true;
  case DT(UINT16):
    *lo = 0, *hi = UINT16_MAX;
    return true;
  case DT(FLOAT16):
  case DT(BFLOAT16):
    *lo = INT16_MIN, *hi = UINT16_MAX;
    return true;
  case DT(FLOAT8E4M3FN): /* the bit pattern, as for the 16-bit floats */
  case DT(FLOAT8E4M3FNUZ):
  case DT(FLOAT8E5M2):
  case DT(FLOAT8E5M2FNUZ):
    *lo = INT8_MIN, *hi = UINT8_MAX;
    return true;
  case DT(INT4): /* an entry holds a byte: two packed elements */
  case DT(UINT4):
    *lo = 0, *hi = UINT8_MAX;
    return true;
  default: /* INT32 takes any value, BOOL any (non-zero is true) */
    return false;
  }
}

static GiltStatus convert_int32_data(TensorDesc *td,
                                     const Gilt__Onnx__TensorProto *t,
                                     size_t esize, uint8_t *out)
{
  int32_t dt = t->data_type;
  int64_t lo, hi;
  bool ranged = int32_entry_range(dt, &lo, &hi);
  for (size_t i = 0; i < t->n_int32_data; i++) {
    int32_t v = t->int32_data[i];
    if (ranged && (v < lo || v > hi))
      return fail(td, "has int32_data[%zu] = %d, out of range for %s", i,
                  (int)v, gilt_onnx_data_type_name(dt));
    uint64_t bits = dt == DT(BOOL) ? (v != 0) : (uint64_t)(uint32_t)v;
    put_le(out + i * esize, bits, esize);
  }
  return GILT_SUCCESS;
}

static GiltStatus convert_typed(TensorDesc *td,
                                const Gilt__Onnx__TensorProto *t,
                                TypedField f, size_t esize, uint8_t *out)
{
  switch (f) {
  case FLOAT_DATA:
    for (size_t i = 0; i < t->n_float_data; i++) {
      uint32_t bits;
      memcpy(&bits, &t->float_data[i], 4);
      put_le(out + i * 4, bits, 4);
    }
    return GILT_SUCCESS;
  case DOUBLE_DATA:
    for (size_t i = 0; i < t->n_double_data; i++) {
      uint64_t bits;
      memcpy(&bits, &t->double_data[i], 8);
      put_le(out + i * 8, bits, 8);
    }
    return GILT_SUCCESS;
  case INT64_DATA:
    for (size_t i = 0; i < t->n_int64_data; i++)
      put_le(out + i * 8, (uint64_t)t->int64_data[i], 8);
    return GILT_SUCCESS;
  case UINT64_DATA:
    for (size_t i = 0; i < t->n_uint64_data; i++) {
      if (esize == 4 && t->uint64_data[i] > UINT32_MAX)
        return fail(td, "has uint64_data[%zu] = %llu, out of range for UINT32",
                    i, (unsigned long long)t->uint64_data[i]);
      put_le(out + i * esize, t->uint64_data[i], esize);
    }
    return GILT_SUCCESS;
  case INT32_DATA:
    return convert_int32_data(td, t, esize, out);
  case STRING_DATA:
  case NUM_TYPED_FIELDS:
    break;
  }
  GILT_ASSERT(!"string_data never matches a supported type");
  return GILT_FAILURE;
}

/* ---- external data ------------------------------------------------------- */

typedef struct ExternalRef {
  const char *location;
  bool has_offset, has_length;
  uint64_t offset, length;
} ExternalRef;

/* A non-negative decimal integer, as ONNX writes offset and length. */
static bool parse_decimal(const char *s, uint64_t *out)
{
  uint64_t v = 0;
  if (!s || !*s)
    return false;
  for (; *s; s++) {
    if (*s < '0' || *s > '9')
      return false;
    unsigned digit = (unsigned)(*s - '0');
    if (v > ((uint64_t)INT64_MAX - digit) / 10)
      return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

static GiltStatus parse_external_entries(TensorDesc *td,
                                         const Gilt__Onnx__TensorProto *t,
                                         ExternalRef *ref)
{
  memset(ref, 0, sizeof *ref);
  for (size_t i = 0; i < t->n_external_data; i++) {
    const char *key = t->external_data[i]->key ? t->external_data[i]->key : "";
    const char *value = t->external_data[i]->value;
    for (size_t j = 0; j < i; j++)
      if (t->external_data[j]->key &&
          strcmp(t->external_data[j]->key, key) == 0)
        return fail(td, "has external data key '%s' twice", key);
    if (strcmp(key, "location") == 0) {
      ref->location = value ? value : "";
    } else if (strcmp(key, "offset") == 0) {
      if (!parse_decimal(value, &ref->offset))
        return fail(td, "has external data offset '%s', not a number",
                    value ? value : "");
      ref->has_offset = true;
    } else if (strcmp(key, "length") == 0) {
      if (!parse_decimal(value, &ref->length))
        return fail(td, "has external data length '%s', not a number",
                    value ? value : "");
      ref->has_length = true;
    }
    /* "checksum" and keys of later ONNX versions carry nothing we need. */
  }
  if (!ref->location || !ref->location[0])
    return fail(td, "has external data without a location");
  return GILT_SUCCESS;
}

/* Refuses paths that could name a file outside the model's directory
** before touching the file system. Backslashes count as separators too:
** a model written on Windows may use them, and `..\x` must not slip by. */
static GiltStatus check_relative_path(TensorDesc *td, const char *path)
{
  if (path[0] == '/' || path[0] == '\\')
    return fail(td, "has absolute external data location '%s'", path);
  for (const char *p = path; *p;) {
    size_t n = strcspn(p, "/\\");
    if (n == 2 && p[0] == '.' && p[1] == '.')
      return fail(td,
                  "has external data location '%s', which leaves the "
                  "model's directory",
                  path);
    p += n;
    if (*p)
      p++;
  }
  return GILT_SUCCESS;
}

/* Opens the external file, refusing one whose real path (symbolic links
** resolved) is outside the real path of the model's directory. */
static int open_confined(TensorDesc *td, const char *location)
{
  GiltOnnxReader *r = td->r;
  GiltStrBuf joined;
  gilt_strbuf_init(&joined, r->ctx);
  gilt_strbuf_printf(&joined, "%s/%s", r->dir, location);
  char real_dir[PATH_MAX], real_file[PATH_MAX];
  int fd = -1;
  if (!realpath(r->dir, real_dir) || !realpath(joined.data, real_file)) {
    fail(td, "needs external data file '%s', which cannot be opened: %s",
         joined.data, strerror(errno));
    goto done;
  }
  size_t n = strlen(real_dir);
  bool inside = strcmp(real_dir, "/") == 0 ||
                (strncmp(real_file, real_dir, n) == 0 && real_file[n] == '/');
  if (!inside) {
    fail(td,
         "has external data location '%s', which leaves the model's "
         "directory through a symbolic link",
         location);
    goto done;
  }
  fd = open(real_file, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    fail(td, "needs external data file '%s', which cannot be opened: %s",
         joined.data, strerror(errno));
done:
  gilt_strbuf_free(&joined);
  return fd;
}

static GiltStatus read_external(TensorDesc *td,
                                const Gilt__Onnx__TensorProto *t,
                                size_t nbytes, const void **data,
                                GiltOnnxBytes **holder)
{
  GiltOnnxReader *r = td->r;
  ExternalRef ref;
  if (parse_external_entries(td, t, &ref) != GILT_SUCCESS ||
      check_relative_path(td, ref.location) != GILT_SUCCESS)
    return GILT_FAILURE;
  if (!r->dir)
    return fail(td,
                "has external data '%s', which cannot be read: the model "
                "was not loaded from a file",
                ref.location);
  int fd = open_confined(td, ref.location);
  if (fd < 0)
    return GILT_FAILURE;
  GiltStatus status = GILT_FAILURE;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    fail(td, "has external data location '%s', which is not a regular file",
         ref.location);
    goto done;
  }
  uint64_t size = (uint64_t)st.st_size;
  uint64_t offset = ref.has_offset ? ref.offset : 0;
  if (offset > size) {
    fail(td,
         "has external data offset %llu beyond the end of '%s' (%llu "
         "bytes)",
         (unsigned long long)offset, ref.location, (unsigned long long)size);
    goto done;
  }
  uint64_t length = ref.has_length ? ref.length : size - offset;
  if (length > size - offset) {
    fail(td,
         "has external data range [%llu, %llu) beyond the end of '%s' "
         "(%llu bytes)",
         (unsigned long long)offset, (unsigned long long)(offset + length),
         ref.location, (unsigned long long)size);
    goto done;
  }
  if (length != nbytes) {
    fail(td, "has %llu bytes of external data, its dims need %zu",
         (unsigned long long)length, nbytes);
    goto done;
  }
  if (nbytes == 0) {
    status = GILT_SUCCESS;
    goto done;
  }
  const char *error = NULL;
  GiltOnnxBytes *b = gilt_onnx_bytes_map(r->ctx, fd, offset, nbytes, &error);
  if (!b) {
    fail(td, "needs external data file '%s', which cannot be read: %s",
         ref.location, error);
    goto done;
  }
  gilt_vec_push(r->ctx, &r->buffers, b);
  *data = gilt_onnx_bytes_get_data(b);
  *holder = b;
  status = GILT_SUCCESS;
done:
  close(fd);
  return status;
}

/* ONNX writes bools as bytes 0 and 1, but nothing stops a writer from
** using other non-zero bytes; consumers may rely on 0 and 1. The common
** case needs no copy. */
static const void *normalize_bools(GiltOnnxReader *r, const uint8_t *raw,
                                   size_t n, GiltOnnxBytes **holder)
{
  size_t i = 0;
  while (i < n && raw[i] <= 1)
    i++;
  if (i == n)
    return raw;
  uint8_t *copy = own(r, n, holder);
  for (i = 0; i < n; i++)
    copy[i] = raw[i] != 0;
  return copy;
}

/* ---- 4-bit integers -------------------------------------------------------- */

static bool is_packed4(int32_t dt)
{
  return dt == DT(INT4) || dt == DT(UINT4);
}

/* Unpacks n 4-bit elements, low nibble first, into one byte each:
** sign-extended for INT4, as the dense parser stores an i4's value, and
** zero-extended for UINT4. The high nibble of an odd count's last byte is
** padding and is ignored. */
static void unpack4(int32_t dt, const uint8_t *packed, size_t n,
                    uint8_t *out)
{
  for (size_t i = 0; i < n; i++) {
    unsigned v = (packed[i / 2] >> (i % 2 ? 4 : 0)) & 0xFu;
    if (dt == DT(INT4) && v >= 8)
      v |= 0xF0u;
    out[i] = (uint8_t)v;
  }
}

/* ---- resolving ----------------------------------------------------------- */

/* Checks the dims and computes the element count and byte size. */
static GiltStatus size_tensor(TensorDesc *td,
                              const Gilt__Onnx__TensorProto *t, size_t esize,
                              int64_t *num_elements, size_t *nbytes)
{
  for (size_t i = 0; i < t->n_dims; i++)
    if (t->dims[i] < 0)
      return fail(td, "has negative dimension %lld (dims[%zu])",
                  (long long)t->dims[i], i);
  /* Both counts must fit: elements in int64_t, bytes in size_t and in
  ** int64_t. A zero anywhere makes any other dims harmless. */
  int64_t n;
  if (gilt_dims_product(t->n_dims, t->dims, &n) || (uint64_t)n > SIZE_MAX ||
      gilt_size_mul_overflow((size_t)n, esize, nbytes) ||
      (uint64_t)*nbytes > INT64_MAX)
    return fail(td, "has too many elements to address");
  *num_elements = n;
  return GILT_SUCCESS;
}

/* Finds where the payload is; exactly one place may hold it. */
static GiltStatus locate_payload(TensorDesc *td,
                                 const Gilt__Onnx__TensorProto *t,
                                 const char **where, int *typed)
{
  bool external = t->has_data_location &&
                  t->data_location ==
                      GILT__ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  if (!external && t->n_external_data)
    return fail(td, "has external_data entries but its data_location is "
                    "not EXTERNAL");
  *where = NULL;
  *typed = -1;
  const char *places[NUM_TYPED_FIELDS + 2];
  size_t n = 0;
  if (external)
    places[n++] = "external data";
  if (t->has_raw_data)
    places[n++] = "raw_data";
  for (int f = 0; f < NUM_TYPED_FIELDS; f++)
    if (typed_field_count(t, (TypedField)f)) {
      places[n++] = typed_field_names[f];
      *typed = f;
    }
  if (n > 1)
    return fail(td, "stores its elements in both %s and %s", places[0],
                places[1]);
  if (n == 1)
    *where = places[0];
  return GILT_SUCCESS;
}

GiltStatus gilt_onnx_reader_resolve_tensor(GiltOnnxReader *r,
                                           const Gilt__Onnx__TensorProto *t,
                                           GiltLocation *loc,
                                           GiltOnnxTensor *out)
{
  TensorDesc td = {.r = r, .loc = loc};
  if (!td.loc)
    td.loc = gilt_location_unknown_get(r->ctx);
  if (t->name && t->name[0])
    snprintf(td.what, sizeof td.what, "tensor '%s'", t->name);
  else
    snprintf(td.what, sizeof td.what, "unnamed tensor");
  memset(out, 0, sizeof *out);

  int32_t dt = t->has_data_type ? t->data_type : DT(UNDEFINED);
  GiltType *elem = gilt_onnx_element_type_get_or_report(r->ctx, dt, r->file,
                                                        td.what, td.loc);
  if (!elem)
    return GILT_FAILURE;
  if (t->segment)
    return fail(&td, "is split into segments, which gilt does not support");
  size_t esize = gilt_onnx_element_size(dt), nbytes = 0;
  int64_t num_elements = 0;
  if (size_tensor(&td, t, esize, &num_elements, &nbytes) != GILT_SUCCESS)
    return GILT_FAILURE;

  /* The payload's size in bytes (raw or external) and in typed entries:
  ** 4-bit elements come two to a byte and two to an int32_data entry. */
  bool packed = is_packed4(dt);
  size_t stored = packed ? nbytes / 2 + nbytes % 2 : nbytes;
  size_t entries = packed ? stored : (size_t)num_elements;

  const char *where = NULL;
  int typed = -1;
  if (locate_payload(&td, t, &where, &typed) != GILT_SUCCESS)
    return GILT_FAILURE;
  bool typed_used = where && typed >= 0;
  const void *data = NULL;
  GiltOnnxBytes *holder = NULL;
  if (!where) {
    if (num_elements != 0)
      return fail(&td, "has %lld elements but no data",
                  (long long)num_elements);
  } else if (typed >= 0) {
    TypedField f = (TypedField)typed;
    if (f != field_for_type(dt))
      return fail(&td, "stores %s elements in %s", gilt_onnx_data_type_name(dt),
                  typed_field_names[f]);
    size_t count = typed_field_count(t, f);
    if (count != entries)
      return fail(&td, "has %zu entries in %s, its dims need %zu", count,
                  typed_field_names[f], entries);
    if (packed) {
      uint8_t *tmp = gilt_malloc(r->ctx, stored ? stored : 1);
      GiltStatus st = convert_typed(&td, t, f, 1, tmp);
      if (st == GILT_SUCCESS)
        unpack4(dt, tmp, nbytes, own(r, nbytes, &holder));
      gilt_free(r->ctx, tmp);
      if (st != GILT_SUCCESS)
        return GILT_FAILURE;
      data = gilt_onnx_bytes_get_data(holder);
    } else {
      uint8_t *buf = own(r, nbytes, &holder);
      if (convert_typed(&td, t, f, esize, buf) != GILT_SUCCESS)
        return GILT_FAILURE;
      data = buf;
    }
  } else if (t->has_raw_data) {
    uint64_t offset, len;
    gilt_onnx_wire_raw_data_ref(&t->raw_data, &offset, &len);
    if (len != stored)
      return fail(&td, "has %llu bytes of raw_data, its dims need %zu",
                  (unsigned long long)len, stored);
    if (nbytes) {
      holder = r->image;
      data = gilt_onnx_bytes_get_data(holder) + offset;
    }
    if (dt == DT(BOOL) && nbytes)
      data = normalize_bools(r, data, nbytes, &holder);
  } else if (read_external(&td, t, stored, &data, &holder) != GILT_SUCCESS) {
    return GILT_FAILURE;
  }
  if (packed && !typed_used && nbytes) {
    uint8_t *buf = own(r, nbytes, &holder);
    unpack4(dt, data, nbytes, buf);
    data = buf;
  }

  out->name = t->name ? t->name : "";
  out->data_type = dt;
  out->elem_type = elem;
  out->rank = t->n_dims;
  out->dims = t->dims;
  out->num_elements = num_elements;
  out->elem_size = esize;
  out->data = data;
  out->nbytes = nbytes;
  out->bytes = holder;
  return GILT_SUCCESS;
}
