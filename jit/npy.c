/*
** npy.c - reading and writing NumPy's .npy files (tensor_io.h).
**
** The format (numpy/lib/format.py, NEP 1): the magic "\x93NUMPY", a
** major and a minor version byte, the header's length (2 bytes
** little-endian in version 1, 4 in versions 2 and 3), then the header: a
** Python dict literal with exactly the keys 'descr', 'fortran_order' and
** 'shape', padded with spaces and a newline; then the elements. The
** header is parsed here as the small grammar NumPy writes, not evaluated
** as Python: strings, True/False and tuples of integers. Version 3 only
** allows UTF-8 in the header, which changes nothing for the keys read.
**
** Sizes are checked against the file's before anything is allocated, so
** a header claiming a billion elements in a tiny file costs nothing. This
** file does not do structured, object, string or big-endian dtypes, nor
** Fortran order: gjit's inputs are plain arrays, and NumPy writes those
** little-endian in C order on every machine gilt runs on.
*/
#include "jit/tensor_io.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char magic[6] = "\x93NUMPY";

/* One dtype both ways: the descr NumPy writes and the gilt element type. */
typedef struct Dtype {
  const char *descr;
  enum { D_BOOL, D_SINT, D_UINT, D_FLOAT } kind;
  unsigned bits;
} Dtype;

static const Dtype dtypes[] = {
    {"|b1", D_BOOL, 1},   {"|i1", D_SINT, 8},   {"|u1", D_UINT, 8},
    {"<i2", D_SINT, 16},  {"<u2", D_UINT, 16},  {"<i4", D_SINT, 32},
    {"<u4", D_UINT, 32},  {"<i8", D_SINT, 64},  {"<u8", D_UINT, 64},
    {"<f2", D_FLOAT, 16}, {"<f4", D_FLOAT, 32}, {"<f8", D_FLOAT, 64},
};

static GiltType *dtype_type(GiltContext *ctx, const Dtype *d)
{
  switch (d->kind) {
  case D_BOOL:
    return gilt_integer_type_get(ctx, 1, GILT_SIGNLESS);
  case D_SINT:
    return gilt_integer_type_get(ctx, d->bits, GILT_SIGNLESS);
  case D_UINT:
    return gilt_integer_type_get(ctx, d->bits, GILT_UNSIGNED);
  case D_FLOAT:
    break;
  }
  return gilt_float_type_get(ctx, d->bits == 16   ? GILT_F16
                                  : d->bits == 32 ? GILT_F32
                                                  : GILT_F64);
}

/* The descr of `elem`, NULL when NumPy has none. NumPy has no bfloat16:
** its bits go out as uint16, as ONNX's own test data stores them (gjit
** reads a ui16 tensor given for bf16 as those bits). */
static const char *type_descr(GiltType *elem)
{
  if (gilt_type_get_kind(elem) == GILT_TYPE_INDEX)
    return "<i8";
  if (gilt_type_get_kind(elem) == GILT_TYPE_FLOAT &&
      gilt_float_type_get_kind(elem) == GILT_BF16)
    return "<u2";
  for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++) {
    const Dtype *d = &dtypes[i];
    if (gilt_type_get_kind(elem) == GILT_TYPE_FLOAT) {
      GiltFloatKind k = gilt_float_type_get_kind(elem);
      if (d->kind == D_FLOAT && ((k == GILT_F16 && d->bits == 16) ||
                                 (k == GILT_F32 && d->bits == 32) ||
                                 (k == GILT_F64 && d->bits == 64)))
        return d->descr;
    } else if (gilt_type_get_kind(elem) == GILT_TYPE_INTEGER &&
               gilt_integer_type_get_width(elem) == d->bits) {
      bool is_unsigned =
          gilt_integer_type_get_signedness(elem) == GILT_UNSIGNED;
      if (d->kind == D_BOOL || (d->kind == D_UINT) == is_unsigned)
        return d->descr;
    }
  }
  return NULL;
}

__attribute__((format(printf, 3, 4))) static void
report(GiltContext *ctx, const char *path, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  gilt_emit_error(gilt_location_name_get(ctx, path, NULL), "%s", msg);
}

/* ---- the header's dict --------------------------------------------------- */

typedef struct Header {
  const char *p, *end;
  const Dtype *dtype;
  bool fortran_order;
  size_t rank;
  int64_t shape[64];
  bool has_descr, has_order, has_shape;
} Header;

static void skip_space(Header *h)
{
  while (h->p < h->end && isspace((unsigned char)*h->p))
    h->p++;
}

static bool eat(Header *h, char c)
{
  skip_space(h);
  if (h->p < h->end && *h->p == c) {
    h->p++;
    return true;
  }
  return false;
}

/* A quoted string, either quote, without escapes (NumPy writes none in
** the keys and descrs read here). */
static bool parse_string(Header *h, const char **s, size_t *len)
{
  skip_space(h);
  if (h->p == h->end || (*h->p != '\'' && *h->p != '"'))
    return false;
  char quote = *h->p++;
  const char *start = h->p;
  while (h->p < h->end && *h->p != quote)
    h->p++;
  if (h->p == h->end)
    return false;
  *s = start;
  *len = (size_t)(h->p++ - start);
  return true;
}

static bool parse_word(Header *h, const char *word)
{
  skip_space(h);
  size_t n = strlen(word);
  if ((size_t)(h->end - h->p) < n || memcmp(h->p, word, n) != 0)
    return false;
  h->p += n;
  return true;
}

/* `(d0, d1, ...)`, a trailing comma allowed, `()` for a scalar; Python 2
** wrote `3L`. */
static const char *parse_shape(Header *h)
{
  if (!eat(h, '('))
    return "'shape' is not a tuple";
  h->rank = 0;
  while (!eat(h, ')')) {
    if (h->rank == sizeof h->shape / sizeof *h->shape)
      return "'shape' has too many dimensions";
    skip_space(h);
    if (h->p == h->end || !isdigit((unsigned char)*h->p))
      return "'shape' holds something other than sizes";
    int64_t d = 0;
    while (h->p < h->end && isdigit((unsigned char)*h->p)) {
      if (d > (INT64_MAX - 9) / 10)
        return "'shape' holds a size too large";
      d = d * 10 + (*h->p++ - '0');
    }
    if (h->p < h->end && *h->p == 'L')
      h->p++;
    h->shape[h->rank++] = d;
    if (!eat(h, ',')) {
      if (!eat(h, ')'))
        return "'shape' is not a tuple";
      break;
    }
  }
  return NULL;
}

/* One `'key': value` entry; NULL, or what is wrong. */
static const char *parse_entry(Header *h, char *bad_descr, size_t bad_size)
{
  const char *key, *s;
  size_t key_len, len;
  if (!parse_string(h, &key, &key_len) || !eat(h, ':'))
    return "the header is not a dict of strings";
  if (key_len == 5 && !memcmp(key, "descr", 5)) {
    if (!parse_string(h, &s, &len))
      return "'descr' is not a simple dtype (structured arrays are not "
             "supported)";
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
      if (strlen(dtypes[i].descr) == len && !memcmp(s, dtypes[i].descr, len))
        h->dtype = &dtypes[i];
    /* NumPy writes the one-byte types with '|', yet '<' means the same. */
    if (!h->dtype && len == 3 && s[0] == '<' && s[2] == '1')
      for (size_t i = 0; i < 3; i++)
        if (dtypes[i].descr[1] == s[1])
          h->dtype = &dtypes[i];
    if (!h->dtype) {
      snprintf(bad_descr, bad_size, "%.*s", (int)(len < 32 ? len : 32), s);
      return "unsupported dtype";
    }
    h->has_descr = true;
  } else if (key_len == 13 && !memcmp(key, "fortran_order", 13)) {
    if (parse_word(h, "True"))
      h->fortran_order = true;
    else if (!parse_word(h, "False"))
      return "'fortran_order' is not True or False";
    h->has_order = true;
  } else if (key_len == 5 && !memcmp(key, "shape", 5)) {
    const char *err = parse_shape(h);
    if (err)
      return err;
    h->has_shape = true;
  } else {
    return "the header has a key other than 'descr', 'fortran_order' and "
           "'shape'";
  }
  return NULL;
}

static const char *parse_header(Header *h, char *bad_descr, size_t bad_size)
{
  if (!eat(h, '{'))
    return "the header is not a dict";
  while (!eat(h, '}')) {
    const char *err = parse_entry(h, bad_descr, bad_size);
    if (err)
      return err;
    if (!eat(h, ',')) {
      if (!eat(h, '}'))
        return "the header is not a dict";
      break;
    }
  }
  skip_space(h);
  if (h->p != h->end)
    return "the header has text after its dict";
  if (!h->has_descr || !h->has_order || !h->has_shape)
    return "the header lacks 'descr', 'fortran_order' or 'shape'";
  return NULL;
}

/* ---- reading ------------------------------------------------------------- */

static uint32_t read_le(const unsigned char *p, size_t n)
{
  uint32_t v = 0;
  for (size_t i = 0; i < n; i++)
    v |= (uint32_t)p[i] << (8 * i);
  return v;
}

/* Reads the preamble and the header of `f` into `h` (the header's text
** in *text, freed by the caller); the elements follow. */
static bool read_header(GiltContext *ctx, const char *path, FILE *f,
                        Header *h, char **text)
{
  unsigned char pre[12];
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, magic, sizeof magic) != 0) {
    report(ctx, path, "not a NumPy .npy file (no \\x93NUMPY magic)");
    return false;
  }
  unsigned major = pre[6];
  if (major < 1 || major > 3) {
    report(ctx, path, "unsupported .npy format version %u.%u", major, pre[7]);
    return false;
  }
  size_t len_size = major == 1 ? 2 : 4;
  if (len_size == 4 && fread(pre + 10, 1, 2, f) != 2) {
    report(ctx, path, "truncated .npy header");
    return false;
  }
  uint32_t len = read_le(pre + 8, len_size);
  /* NumPy refuses headers past this size as likely malicious; so do we,
  ** before allocating for one. */
  if (len > 100000) {
    report(ctx, path, "the .npy header is implausibly long (%lu bytes)",
           (unsigned long)len);
    return false;
  }
  *text = gilt_malloc(ctx, len + 1);
  if (fread(*text, 1, len, f) != len) {
    report(ctx, path, "truncated .npy header");
    return false;
  }
  (*text)[len] = '\0';
  h->p = *text;
  h->end = *text + len;
  char bad_descr[40] = "";
  const char *err = parse_header(h, bad_descr, sizeof bad_descr);
  if (err) {
    if (*bad_descr)
      report(ctx, path, "%s '%s' (supported: <f2 <f4 <f8 |b1 |i1 |u1 <i2 "
             "<u2 <i4 <u4 <i8 <u8)", err, bad_descr);
    else
      report(ctx, path, "malformed .npy header: %s", err);
    return false;
  }
  if (h->fortran_order) {
    report(ctx, path, "Fortran-order arrays are not supported (save a "
           "C-contiguous array, np.ascontiguousarray)");
    return false;
  }
  return true;
}

/* Reads the elements into `t`, checking that the file holds exactly them. */
static bool read_elements(GiltContext *ctx, const char *path, FILE *f,
                          GiltTensor *t, bool is_bool)
{
  size_t n = gilt_tensor_get_num_bytes(t);
  uint8_t *data = gilt_tensor_get_data(t);
  size_t got = fread(data, 1, n, f);
  if (got != n || fgetc(f) != EOF) {
    report(ctx, path, "the data does not match the shape: %s",
           got != n ? "the file ends early" : "the file has bytes left over");
    return false;
  }
  /* NumPy reads any nonzero byte as True; gilt's i1 is 0 or 1. */
  if (is_bool)
    for (size_t i = 0; i < n; i++)
      data[i] = data[i] != 0;
  return true;
}

GiltTensor *gilt_tensor_read_npy(GiltContext *ctx, const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    report(ctx, path, "cannot open: %s", strerror(errno));
    return NULL;
  }
  Header h = {0};
  char *text = NULL;
  GiltTensor *t = NULL;
  if (!read_header(ctx, path, f, &h, &text))
    goto done;

  GiltType *elem = dtype_type(ctx, h.dtype);
  size_t elem_size = gilt_tensor_element_size(elem);
  /* The size the shape claims, against the file's, before allocating. */
  uint64_t n = 1;
  bool too_big = false;
  for (size_t i = 0; i < h.rank; i++) {
    if (h.shape[i] && n > UINT64_MAX / 8 / (uint64_t)h.shape[i])
      too_big = true;
    else
      n *= (uint64_t)h.shape[i];
  }
  struct stat st;
  long pos = ftell(f);
  if (pos >= 0 && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
    uint64_t have = (uint64_t)st.st_size - (uint64_t)pos;
    if (too_big || have != n * elem_size) {
      char count[32] = "more than 2^61";
      if (!too_big)
        snprintf(count, sizeof count, "%llu", (unsigned long long)n);
      report(ctx, path, "the data does not match the shape: %llu bytes for "
             "%s elements of %zu bytes", (unsigned long long)have, count,
             elem_size);
      goto done;
    }
  }
  t = too_big ? NULL : gilt_tensor_create(elem, h.rank, h.shape);
  if (!t) {
    report(ctx, path, "the array is too large to allocate");
    goto done;
  }
  if (!read_elements(ctx, path, f, t, h.dtype->kind == D_BOOL)) {
    gilt_tensor_destroy(t);
    t = NULL;
  }
done:
  gilt_free(ctx, text);
  fclose(f);
  return t;
}

/* ---- writing ------------------------------------------------------------- */

GiltStatus gilt_tensor_write_npy(GiltContext *ctx, const GiltTensor *t,
                                 const char *path)
{
  GiltType *elem = gilt_tensor_get_element_type(t);
  const char *descr = type_descr(elem);
  if (!descr) {
    GiltStrBuf name;
    gilt_strbuf_init(&name, ctx);
    gilt_type_print(elem, gilt_strbuf_callback, &name);
    report(ctx, path, "cannot write element type %s: NumPy has no dtype "
           "for it", name.data);
    gilt_strbuf_free(&name);
    return GILT_FAILURE;
  }

  GiltStrBuf dict;
  gilt_strbuf_init(&dict, ctx);
  gilt_strbuf_printf(&dict, "{'descr': '%s', 'fortran_order': False, "
                     "'shape': (", descr);
  size_t rank = gilt_tensor_get_rank(t);
  for (size_t i = 0; i < rank; i++)
    gilt_strbuf_printf(&dict, i ? ", %lld" : "%lld",
                       (long long)gilt_tensor_get_shape(t)[i]);
  gilt_strbuf_printf(&dict, "%s), }", rank == 1 ? "," : "");
  /* NumPy pads so that the elements start at a multiple of 64 bytes, the
  ** header ending in a newline. */
  size_t pre = dict.len + 1 > 65535 - 64 ? 12 : 10;
  size_t total = (pre + dict.len + 1 + 63) / 64 * 64;
  while (pre + dict.len + 1 < total)
    gilt_strbuf_append(&dict, " ", 1);
  gilt_strbuf_append(&dict, "\n", 1);

  unsigned char head[12];
  memcpy(head, magic, sizeof magic);
  head[6] = pre == 10 ? 1 : 2;
  head[7] = 0;
  for (size_t i = 0; i < pre - 8; i++)
    head[8 + i] = (unsigned char)(dict.len >> (8 * i));

  FILE *f = fopen(path, "wb");
  bool ok = f && fwrite(head, 1, pre, f) == pre &&
            fwrite(dict.data, 1, dict.len, f) == dict.len &&
            fwrite(gilt_tensor_elements(t), 1, gilt_tensor_get_num_bytes(t),
                   f) == gilt_tensor_get_num_bytes(t);
  int err = errno;
  if (f && fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  gilt_strbuf_free(&dict);
  if (!ok) {
    report(ctx, path, "cannot write: %s", strerror(err));
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}
