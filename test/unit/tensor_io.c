/*
** tensor_io.c - unit test of reading, writing, printing and comparing host
** tensors (jit/tensor_io.h), gjit's --input, --output and
** --expected-output.
**
** Like onnx_reader.c this one includes an internal header: tensor I/O is
** the tools' business, not public API, and what a user's malformed file
** does to it deserves tests before gjit exists. It writes .npy and .pb
** files into a fresh temporary folder (removed at the end): round trips of
** every dtype, files NumPy writes in other ways than gilt does (format
** versions 2 and 3, key order, Python 2's `3L`), TensorProtos in raw_data
** and typed fields, then every diagnostic, and truncations and noise that
** must fail with one error, never crash. Inline text is checked both ways,
** with the column each error points at; comparison with its tolerance
** cases and its report.
*/
#include "test/unit/check.h"
#include "test/unit/text.h"
#include "jit/tensor_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontends/onnx/onnx.pb-c.h"
#include "gilt/register.h"

/* ---- diagnostics --------------------------------------------------------- */

static size_t errors_seen, errors_checked;
static char last_error[1024];  /* the message */
static char last_printed[2048]; /* as gilt_diagnostic_print writes it */
static unsigned last_col;

static void record(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  errors_seen++;
  snprintf(last_error, sizeof last_error, "%s", gilt_diagnostic_get_message(d));
  const char *file;
  unsigned line;
  last_col = 0;
  gilt_location_get_file_line_col(gilt_diagnostic_get_location(d), &file,
                                  &line, &last_col);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  gilt_diagnostic_print(d, f);
  fclose(f);
  snprintf(last_printed, sizeof last_printed, "%s", buf);
  free(buf);
}

/* Whether exactly one error was reported since the last check, containing
** `text`. */
static bool expect_error_at(const char *text, const char *file, int line)
{
  size_t n = errors_seen - errors_checked;
  errors_checked = errors_seen;
  if (n == 1 && strstr(last_error, text))
    return true;
  fprintf(stderr,
          "%s:%d: expected one error containing \"%s\", got %zu%s%s\n", file,
          line, text, n, n ? ", the last: " : "", n ? last_error : "");
  check_failures++;
  return false;
}
#define EXPECT_ERROR(text) expect_error_at((text), __FILE__, __LINE__)

static bool expect_no_new_error(void)
{
  bool ok = errors_seen == errors_checked;
  if (!ok)
    fprintf(stderr, "unexpected error: %s\n", last_error);
  errors_checked = errors_seen;
  return ok;
}
#define EXPECT_NO_NEW_ERROR() CHECK(expect_no_new_error())

/* ---- files --------------------------------------------------------------- */

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
  static char buf[4][512];
  static unsigned next;
  char *p = buf[next++ % 4];
  snprintf(p, 512, "%s/%s", tmpdir, name);
  return p;
}

static void write_file(const char *path, const void *data, size_t len)
{
  FILE *f = fopen(path, "wb");
  if (!f || (len && fwrite(data, 1, len, f) != len)) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
}

static uint8_t *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  uint8_t *buf = NULL;
  size_t cap = 0;
  *len = 0;
  for (;;) {
    if (*len == cap && !(buf = realloc(buf, cap = cap * 2 + 4096)))
      exit(1);
    size_t got = fread(buf + *len, 1, cap - *len, f);
    if (!got)
      break;
    *len += got;
  }
  fclose(f);
  return buf;
}

/* An .npy file: the preamble of `version`, then `header` padded as NumPy
** pads it, then `nbytes` of `data`. */
static void write_npy(const char *path, unsigned version, const char *header,
                      const void *data, size_t nbytes)
{
  size_t pre = version == 1 ? 10 : 12;
  size_t hlen = strlen(header) + 1;
  size_t total = (pre + hlen + 63) / 64 * 64;
  uint8_t *buf = calloc(1, total + nbytes);
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (uint8_t)version;
  size_t padded = total - pre;
  for (size_t i = 0; i < pre - 8; i++)
    buf[8 + i] = (uint8_t)(padded >> (8 * i));
  memset(buf + pre, ' ', padded);
  memcpy(buf + pre, header, hlen - 1);
  buf[total - 1] = '\n';
  if (nbytes)
    memcpy(buf + total, data, nbytes);
  write_file(path, buf, total + nbytes);
  free(buf);
}

/* ---- helpers ------------------------------------------------------------- */

static char *print_text(const GiltTensor *t, int64_t max)
{
  static Text text;
  text.len = 0;
  text.data[0] = '\0';
  gilt_tensor_print(t, max, text_append, &text);
  return text.data;
}

static bool prints_as(const GiltTensor *t, const char *want, const char *file,
                      int line)
{
  const char *got = t ? print_text(t, INT64_MAX) : "(null)";
  if (!strcmp(got, want))
    return true;
  fprintf(stderr, "%s:%d: printed \"%s\", expected \"%s\"\n", file, line, got,
          want);
  check_failures++;
  return false;
}
#define CHECK_PRINTS(t, want) prints_as((t), (want), __FILE__, __LINE__)

/* Parses `text`, checks it prints as `want` (the text itself when NULL). */
static void round_trip(GiltContext *ctx, const char *text, const char *want,
                       const char *file, int line)
{
  GiltTensor *t = gilt_tensor_parse_text(ctx, text, NULL);
  if (!t) {
    fprintf(stderr, "%s:%d: \"%s\" did not parse: %s\n", file, line, text,
            last_error);
    check_failures++;
  } else {
    prints_as(t, want ? want : text, file, line);
  }
  EXPECT_NO_NEW_ERROR();
  gilt_tensor_destroy(t);
}
#define CHECK_TEXT(ctx, text, want) \
  round_trip((ctx), (text), (want), __FILE__, __LINE__)

/* Parsing `text` fails with one error containing `msg` at column `col`. */
static void bad_text(GiltContext *ctx, const char *text, const char *msg,
                     unsigned col, const char *file, int line)
{
  GiltTensor *t = gilt_tensor_parse_text(ctx, text, "--input");
  if (t) {
    fprintf(stderr, "%s:%d: \"%s\" parsed\n", file, line, text);
    check_failures++;
    gilt_tensor_destroy(t);
    return;
  }
  if (expect_error_at(msg, file, line) && last_col != col) {
    fprintf(stderr, "%s:%d: error at column %u, expected %u\n", file, line,
            last_col, col);
    check_failures++;
  }
}
#define CHECK_BAD_TEXT(ctx, text, msg, col) \
  bad_text((ctx), (text), (msg), (col), __FILE__, __LINE__)

static GiltTensor *parse(GiltContext *ctx, const char *text)
{
  GiltTensor *t = gilt_tensor_parse_text(ctx, text, NULL);
  if (!t) {
    fprintf(stderr, "cannot parse \"%s\": %s\n", text, last_error);
    exit(1);
  }
  return t;
}

static bool same_tensor(GiltTensor *a, GiltTensor *b)
{
  return a && b &&
         gilt_tensor_get_element_type(a) == gilt_tensor_get_element_type(b) &&
         gilt_tensor_get_rank(a) == gilt_tensor_get_rank(b) &&
         (!gilt_tensor_get_rank(a) ||
          !memcmp(gilt_tensor_get_shape(a), gilt_tensor_get_shape(b),
                  gilt_tensor_get_rank(a) * sizeof(int64_t))) &&
         gilt_tensor_get_num_bytes(a) == gilt_tensor_get_num_bytes(b) &&
         !memcmp(gilt_tensor_get_data(a), gilt_tensor_get_data(b),
                 gilt_tensor_get_num_bytes(a));
}

/* ---- text ---------------------------------------------------------------- */

static void test_text(GiltContext *ctx)
{
  CHECK_TEXT(ctx, "2x3xf32=1 2 3 4 5 6", "2x3xf32=[1 2 3][4 5 6]");
  CHECK_TEXT(ctx, "2x3xf32=[1 2 3][4 5 6]", NULL);
  CHECK_TEXT(ctx, "f32=1.5", NULL);
  CHECK_TEXT(ctx, "4xi32=7", "4xi32=7 7 7 7");
  CHECK_TEXT(ctx, "3xf64=1,2,  3", "3xf64=1 2 3");
  CHECK_TEXT(ctx, "2x2x2xi8=[[1 2][3 4]][[5 6][7 8]]", NULL);
  CHECK_TEXT(ctx, "4xi1=true false 1 0", "4xi1=1 0 1 0");
  CHECK_TEXT(ctx, "3xf32=nan inf -inf", NULL);
  CHECK_TEXT(ctx, "f32=-0", NULL);
  CHECK_TEXT(ctx, "f32=0.1", NULL);
  CHECK_TEXT(ctx, "f64=0.1", NULL);
  CHECK_TEXT(ctx, "f32=3.4028235e+38", NULL);
  CHECK_TEXT(ctx, "f16=0.1", NULL);
  CHECK_TEXT(ctx, "f16=1e9", "f16=inf");
  CHECK_TEXT(ctx, "f16=65504", NULL);       /* not 6.55e+04 */
  CHECK_TEXT(ctx, "f8E5M2=57344", NULL);
  CHECK_TEXT(ctx, "f32=100000", NULL);
  CHECK_TEXT(ctx, "f32=1000000", "f32=1e+06");
  CHECK_TEXT(ctx, "f32=1.5e-07", NULL);
  CHECK_TEXT(ctx, "bf16=3.14159", "bf16=3.14");
  CHECK_TEXT(ctx, "2xf8E4M3FN=448 -0.5", NULL);
  CHECK_TEXT(ctx, "f8E5M2FNUZ=nan", NULL);
  CHECK_TEXT(ctx, "2xi8=-128 255", "2xi8=-128 -1"); /* signless: either */
  CHECK_TEXT(ctx, "si8=-128", NULL);
  CHECK_TEXT(ctx, "ui8=255", NULL);
  CHECK_TEXT(ctx, "i4=-8", NULL);
  CHECK_TEXT(ctx, "ui4=15", NULL);
  CHECK_TEXT(ctx, "2xi64=9223372036854775807 -9223372036854775808", NULL);
  CHECK_TEXT(ctx, "ui64=18446744073709551615", NULL);
  CHECK_TEXT(ctx, "2xindex=1 -2", NULL);
  CHECK_TEXT(ctx, "0x3xf32=", NULL);
  CHECK_TEXT(ctx, "2x0xf32=", "2x0xf32=[][]");
  CHECK_TEXT(ctx, "1x1xf32=+2.5e1", "1x1xf32=[25]");

  /* Errors, and where they point. */
  CHECK_BAD_TEXT(ctx, "2x3xf32=1 2 3", "expected 6 values (or one for all), "
                 "found 3", 9);
  CHECK_BAD_TEXT(ctx, "2xf32=1 2 3", "expected 2 values (or one for all), found more", 7);
  CHECK_BAD_TEXT(ctx, "2x3xf32=1 2 x 4 5 6", "expected a number, found 'x'",
                 13);
  CHECK_BAD_TEXT(ctx, "2x3xq32=1", "expected an element type", 5);
  CHECK_BAD_TEXT(ctx, "2x3xf32", "expected '='", 8);
  CHECK_BAD_TEXT(ctx, "2x3xf32 = 1", "expected '='", 8);
  CHECK_BAD_TEXT(ctx, "2x?xf32=1", "dynamic dimensions", 3);
  CHECK_BAD_TEXT(ctx, "2y3xf32=1", "expected 'x' after a dimension", 2);
  CHECK_BAD_TEXT(ctx, "", "expected an element type", 1);
  CHECK_BAD_TEXT(ctx, "=1", "expected an element type", 1);
  CHECK_BAD_TEXT(ctx, "i0=1", "expected an element type", 1);
  CHECK_BAD_TEXT(ctx, "i65=1", "expected an element type", 1);
  CHECK_BAD_TEXT(ctx, "i8=300", "300 does not fit in i8", 4);
  CHECK_BAD_TEXT(ctx, "2xsi8=1 128", "128 does not fit in si8", 9);
  CHECK_BAD_TEXT(ctx, "ui8=-1", "-1 does not fit in ui8", 5);
  CHECK_BAD_TEXT(ctx, "i64=18446744073709551616", "does not fit in i64", 5);
  CHECK_BAD_TEXT(ctx, "ui64=18446744073709551616", "does not fit in ui64", 6);
  CHECK_BAD_TEXT(ctx, "2xindex=0 -9223372036854775809", "does not fit in index",
                 11);
  CHECK_BAD_TEXT(ctx, "i32=1.5", "expected an integer, found '1.5'", 5);
  CHECK_BAD_TEXT(ctx, "i32=--1", "expected an integer", 5);
  CHECK_BAD_TEXT(ctx, "i1=2", "expected true, false, 1 or 0", 4);
  CHECK_BAD_TEXT(ctx, "f32=1e5x", "expected a number", 5);
  CHECK_BAD_TEXT(ctx, "f32=", "expected 1 value, found 0", 5);
  CHECK_BAD_TEXT(ctx, "0xf32=1", "expected 0 values, found more", 7);
  CHECK_BAD_TEXT(ctx, "99999999999999999999xf32=0", "dimension too large", 1);
  CHECK_BAD_TEXT(ctx, "4294967296x4294967296xf32=0", "too large to allocate",
                 1);
  /* The printed form quotes the text under the caller's name. */
  CHECK(!gilt_tensor_parse_text(ctx, "2xf32=1 oops", "--input"));
  EXPECT_ERROR("found 'oops'");
  CHECK(!strncmp(last_printed, "--input:1:9: error: ", 20));
  CHECK(strstr(last_printed, "\n2xf32=1 oops\n        ^\n"));

  /* Truncation: the first and last three of each long dimension. */
  GiltTensor *t = parse(ctx, "10xi32=0 1 2 3 4 5 6 7 8 9");
  CHECK(!strcmp(print_text(t, 10), "10xi32=0 1 2 3 4 5 6 7 8 9"));
  CHECK(!strcmp(print_text(t, 9), "10xi32=0 1 2 ... 7 8 9"));
  gilt_tensor_destroy(t);
  int64_t shape[2] = {8, 7};
  t = gilt_tensor_create(gilt_integer_type_get(ctx, 32, GILT_SIGNLESS), 2,
                         shape);
  for (int64_t i = 0; i < 56; i++)
    gilt_tensor_set_double(t, i, (double)i);
  CHECK(!strcmp(print_text(t, 20),
                "8x7xi32=[0 1 2 ... 4 5 6][7 8 9 ... 11 12 13]"
                "[14 15 16 ... 18 19 20]...[35 36 37 ... 39 40 41]"
                "[42 43 44 ... 46 47 48][49 50 51 ... 53 54 55]"));
  /* Printed in full, it parses back to the same tensor. */
  GiltTensor *back = parse(ctx, print_text(t, INT64_MAX));
  CHECK(same_tensor(t, back));
  gilt_tensor_destroy(back);
  gilt_tensor_destroy(t);

  /* Shortest digits still read back to the same bits, for every f16. */
  int64_t all = 65536;
  GiltType *f16 = gilt_float_type_get(ctx, GILT_F16);
  t = gilt_tensor_create(f16, 1, &all);
  uint16_t *h = gilt_tensor_get_data(t);
  for (uint32_t i = 0; i < 65536; i++)
    h[i] = (uint16_t)i;
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, ctx);
  gilt_tensor_print(t, INT64_MAX, gilt_strbuf_callback, &sb);
  back = gilt_tensor_parse_text(ctx, sb.data, NULL);
  gilt_strbuf_free(&sb);
  size_t mismatches = 0;
  for (uint32_t i = 0; back && i < 65536; i++) {
    uint16_t b = ((uint16_t *)gilt_tensor_get_data(back))[i];
    bool nan = (i & 0x7c00) == 0x7c00 && (i & 0x3ff);
    mismatches += nan ? (b & 0x7c00) != 0x7c00 || !(b & 0x3ff) : b != i;
  }
  CHECK(back && mismatches == 0);
  gilt_tensor_destroy(back);
  gilt_tensor_destroy(t);
}

/* ---- .npy ---------------------------------------------------------------- */

/* Writes `text`'s tensor as .npy, checks the dtype in the header, reads it
** back and checks it prints as `want` (the text when NULL). */
static void npy_round_trip(GiltContext *ctx, const char *text,
                           const char *descr, const char *want,
                           const char *file, int line)
{
  GiltTensor *t = parse(ctx, text);
  const char *path = tmp_path("rt.npy");
  CHECK(gilt_tensor_write_npy(ctx, t, path) == GILT_SUCCESS);
  size_t len;
  uint8_t *bytes = slurp(path, &len);
  char want_head[64];
  snprintf(want_head, sizeof want_head, "{'descr': '%s', ", descr);
  bool header_ok = bytes && len >= 64 && !memcmp(bytes, "\x93NUMPY\1\0", 8) &&
                   (10 + bytes[8] + 256u * bytes[9]) % 64 == 0 &&
                   !memcmp(bytes + 10, want_head, strlen(want_head)) &&
                   bytes[9 + bytes[8] + 256u * bytes[9]] == '\n';
  if (!header_ok) {
    fprintf(stderr, "%s:%d: bad header for %s: %.60s\n", file, line, text,
            bytes && len > 10 ? (char *)bytes + 10 : "");
    check_failures++;
  }
  free(bytes);
  GiltTensor *back = gilt_tensor_read_npy(ctx, path);
  EXPECT_NO_NEW_ERROR();
  prints_as(back, want ? want : text, file, line);
  gilt_tensor_destroy(back);
  gilt_tensor_destroy(t);
}
#define CHECK_NPY(ctx, text, descr, want) \
  npy_round_trip((ctx), (text), (descr), (want), __FILE__, __LINE__)

static void test_npy(GiltContext *ctx)
{
  CHECK_NPY(ctx, "2x3xf32=[1 2 3][4 5 6]", "<f4", NULL);
  CHECK_NPY(ctx, "f64=0.1", "<f8", NULL);
  CHECK_NPY(ctx, "3xf16=0.1 -2 inf", "<f2", NULL);
  CHECK_NPY(ctx, "4xi1=1 0 0 1", "|b1", NULL);
  CHECK_NPY(ctx, "2xi8=-1 127", "|i1", NULL);
  CHECK_NPY(ctx, "2xsi8=-1 127", "|i1", "2xi8=-1 127");
  CHECK_NPY(ctx, "2xui8=255 0", "|u1", NULL);
  CHECK_NPY(ctx, "2xi16=-300 7", "<i2", NULL);
  CHECK_NPY(ctx, "ui16=65535", "<u2", NULL);
  CHECK_NPY(ctx, "2xi32=-70000 1", "<i4", NULL);
  CHECK_NPY(ctx, "ui32=4294967295", "<u4", NULL);
  CHECK_NPY(ctx, "i64=-9223372036854775808", "<i8", NULL);
  CHECK_NPY(ctx, "ui64=18446744073709551615", "<u8", NULL);
  CHECK_NPY(ctx, "2xindex=3 -4", "<i8", "2xi64=3 -4");
  CHECK_NPY(ctx, "0x3xf32=", "<f4", NULL);
  CHECK_NPY(ctx, "1x1x1x1x1x2xf32=5", "<f4", "1x1x1x1x1x2xf32=[[[[[5 5]]]]]");

  /* Files written otherwise than gilt writes them. */
  const char *p = tmp_path("other.npy");
  float f[2] = {1.5f, -2};
  write_npy(p, 2, "{\"shape\": (2L,), \"fortran_order\": False, "
            "\"descr\": \"<f4\"}", f, sizeof f);
  GiltTensor *t = gilt_tensor_read_npy(ctx, p);
  CHECK_PRINTS(t, "2xf32=1.5 -2");
  gilt_tensor_destroy(t);
  write_npy(p, 3, "{'descr':'<i1','fortran_order':False,'shape':(1,2,),}",
            "\x01\xff", 2);
  t = gilt_tensor_read_npy(ctx, p);
  CHECK_PRINTS(t, "1x2xi8=[1 -1]");
  gilt_tensor_destroy(t);
  write_npy(p, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': ()}",
            "\x07", 1); /* NumPy reads any nonzero byte as True */
  t = gilt_tensor_read_npy(ctx, p);
  CHECK_PRINTS(t, "i1=1");
  gilt_tensor_destroy(t);
  EXPECT_NO_NEW_ERROR();

  /* Every diagnostic. */
  static const struct {
    const char *header;
    size_t nbytes;
    const char *error;
  } bad[] = {
      {"{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8,
       "unsupported dtype '>f4'"},
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", 8,
       "unsupported dtype '<c8'"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
       4, "structured arrays are not supported"},
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 8,
       "Fortran-order arrays are not supported"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", 8,
       "'fortran_order' is not True or False"},
      {"{'descr': '<f4', 'fortran_order': False}", 8,
       "lacks 'descr', 'fortran_order' or 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8,
       "a key other than"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 8,
       "'shape' holds something other than sizes"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, }", 8,
       "'shape' holds something other than sizes"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2], }", 8,
       "'shape' is not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(99999999999999999999,), }", 8, "'shape' holds a size too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", 8,
       "text after its dict"},
      {"['descr', '<f4']", 8, "the header is not a dict"},
      {"{'descr' '<f4'}", 8, "not a dict of strings"},
      {"{'descr': '<f4", 8, "not a simple dtype"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 4,
       "the data does not match the shape: 4 bytes for 2 elements"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12,
       "the data does not match the shape: 12 bytes"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(4294967296, 4294967296), }", 8, "the data does not match the shape"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(4611686018427387904, 4611686018427387904, 4), }", 8,
       "8 bytes for more than 2^61 elements"},
  };
  uint8_t zeros[16] = {0};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    write_npy(p, 1, bad[i].header, zeros, bad[i].nbytes);
    CHECK(!gilt_tensor_read_npy(ctx, p));
    if (!EXPECT_ERROR(bad[i].error))
      fprintf(stderr, "  for header %s\n", bad[i].header);
  }
  CHECK(!strncmp(last_printed, p, strlen(p))); /* located at the file */

  write_file(p, "\x93NUMPY\4\0\x10\0", 10);
  CHECK(!gilt_tensor_read_npy(ctx, p));
  EXPECT_ERROR("unsupported .npy format version 4.0");
  write_file(p, "\x93NUMPY\1\0\xff\xff{}", 12);
  CHECK(!gilt_tensor_read_npy(ctx, p));
  EXPECT_ERROR("truncated .npy header");
  write_file(p, "\x93NUMPY\2\0\xff\xff\xff\x7f", 12);
  CHECK(!gilt_tensor_read_npy(ctx, p));
  EXPECT_ERROR("implausibly long");
  write_file(p, "PK\3\4", 4);
  CHECK(!gilt_tensor_read_npy(ctx, p));
  EXPECT_ERROR("not a NumPy .npy file");
  CHECK(!gilt_tensor_read_npy(ctx, tmp_path("missing.npy")));
  EXPECT_ERROR("cannot open: No such file");
  CHECK(!gilt_tensor_read_npy(ctx, tmpdir)); /* a folder */
  CHECK(errors_seen - errors_checked == 1);
  errors_checked = errors_seen;

  /* bf16 goes out as its bits in uint16, as ONNX's test data has it. */
  t = parse(ctx, "2xbf16=1 2");
  CHECK(gilt_tensor_write_npy(ctx, t, p) == GILT_SUCCESS);
  gilt_tensor_destroy(t);
  t = gilt_tensor_read_npy(ctx, p);
  CHECK(t && gilt_tensor_get_num_bytes(t) == 4 &&
        ((uint16_t *)gilt_tensor_get_data(t))[0] == 0x3f80);
  gilt_tensor_destroy(t);
  /* Writing what NumPy cannot hold, or where nothing can be written. */
  t = parse(ctx, "i4=1");
  CHECK(gilt_tensor_write_npy(ctx, t, p) == GILT_FAILURE);
  EXPECT_ERROR("cannot write element type i4");
  gilt_tensor_destroy(t);
  t = parse(ctx, "f32=1");
  CHECK(gilt_tensor_write_npy(ctx, t, tmp_path("no/such/dir.npy")) ==
        GILT_FAILURE);
  EXPECT_ERROR("cannot write: No such file");
  gilt_tensor_destroy(t);
}

/* Every prefix of a valid file and some noise: one error each, no crash. */
static void test_npy_corrupt(GiltContext *ctx)
{
  GiltTensor *t = parse(ctx, "3x5xf64=1.5");
  const char *good = tmp_path("good.npy");
  CHECK(gilt_tensor_write_npy(ctx, t, good) == GILT_SUCCESS);
  gilt_tensor_destroy(t);
  size_t len;
  uint8_t *bytes = slurp(good, &len);
  const char *cut = tmp_path("cut.npy");
  size_t failures = 0;
  for (size_t n = 0; n < len; n++) {
    write_file(cut, bytes, n);
    failures += !gilt_tensor_read_npy(ctx, cut);
  }
  CHECK(failures == len && errors_seen - errors_checked == len);
  errors_checked = errors_seen;

  /* Noise after a valid magic, and header bytes flipped one at a time. */
  srand(1);
  size_t calls = 0;
  for (int round = 0; round < 200; round++) {
    uint8_t noise[200];
    memcpy(noise, "\x93NUMPY\1\0", 8);
    for (size_t i = 8; i < sizeof noise; i++)
      noise[i] = (uint8_t)rand();
    noise[9] = 0;
    write_file(cut, noise, sizeof noise);
    gilt_tensor_destroy(gilt_tensor_read_npy(ctx, cut));
    calls++;
  }
  for (size_t i = 8; i < 64; i++) {
    uint8_t saved = bytes[i];
    bytes[i] ^= (uint8_t)(1 + rand() % 255);
    write_file(cut, bytes, len);
    gilt_tensor_destroy(gilt_tensor_read_npy(ctx, cut));
    bytes[i] = saved;
    calls++;
  }
  CHECK(errors_seen - errors_checked <= calls);
  errors_checked = errors_seen;
  free(bytes);
}

/* ---- .pb ----------------------------------------------------------------- */

static void write_proto(const char *path, const Gilt__Onnx__TensorProto *tp)
{
  size_t len = gilt__onnx__tensor_proto__get_packed_size(tp);
  uint8_t *buf = malloc(len ? len : 1);
  gilt__onnx__tensor_proto__pack(tp, buf);
  write_file(path, buf, len);
  free(buf);
}

static void test_onnx(GiltContext *ctx)
{
  const char *p = tmp_path("t.pb");
  int64_t dims[2] = {2, 2};
  float f[4] = {1, 2.5f, -3, 4};
  Gilt__Onnx__TensorProto tp = GILT__ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  tp.n_dims = 2;
  tp.dims = dims;
  tp.has_raw_data = 1;
  tp.raw_data.len = sizeof f;
  tp.raw_data.data = (uint8_t *)f;
  write_proto(p, &tp);
  CHECK(!gilt_tensor_read_spec(ctx, "@missing.pb", NULL));
  EXPECT_ERROR("cannot open");
  char spec[600];
  snprintf(spec, sizeof spec, "@%s", p);
  GiltTensor *t = gilt_tensor_read_spec(ctx, spec, NULL);
  CHECK_PRINTS(t, "2x2xf32=[1 2.5][-3 4]");
  CHECK(t && (uintptr_t)gilt_tensor_get_data(t) % 64 == 0);
  gilt_tensor_destroy(t);

  /* Typed fields: the small types ride in int32_data. */
  Gilt__Onnx__TensorProto typed = GILT__ONNX__TENSOR_PROTO__INIT;
  int32_t ints[3] = {1, 0, 1};
  typed.has_data_type = 1;
  typed.data_type = GILT__ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
  int64_t three = 3;
  typed.n_dims = 1;
  typed.dims = &three;
  typed.n_int32_data = 3;
  typed.int32_data = ints;
  write_proto(p, &typed);
  t = gilt_tensor_read_onnx(ctx, p);
  CHECK_PRINTS(t, "3xi1=1 0 1");
  gilt_tensor_destroy(t);
  int32_t halves[3] = {0x3c00, 0xc000, 0x7c00};
  typed.data_type = GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16;
  typed.int32_data = halves;
  write_proto(p, &typed);
  t = gilt_tensor_read_onnx(ctx, p);
  CHECK_PRINTS(t, "3xf16=1 -2 inf");
  gilt_tensor_destroy(t);
  int32_t bytes[3] = {255, 0, 7};
  typed.data_type = GILT__ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
  typed.int32_data = bytes;
  write_proto(p, &typed);
  t = gilt_tensor_read_onnx(ctx, p);
  CHECK_PRINTS(t, "3xui8=255 0 7");
  gilt_tensor_destroy(t);
  int64_t longs[1] = {-9007199254740993};
  Gilt__Onnx__TensorProto scalar = GILT__ONNX__TENSOR_PROTO__INIT;
  scalar.has_data_type = 1;
  scalar.data_type = GILT__ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  scalar.n_int64_data = 1;
  scalar.int64_data = longs;
  write_proto(p, &scalar);
  t = gilt_tensor_read_onnx(ctx, p);
  CHECK_PRINTS(t, "i64=-9007199254740993");
  gilt_tensor_destroy(t);
  EXPECT_NO_NEW_ERROR();

  /* The frontend's diagnostics come through. */
  tp.raw_data.len = 12;
  write_proto(p, &tp);
  CHECK(!gilt_tensor_read_onnx(ctx, p));
  EXPECT_ERROR("");
  CHECK(strstr(last_error, p));
  tp.raw_data.len = sizeof f;
  tp.data_type = GILT__ONNX__TENSOR_PROTO__DATA_TYPE__STRING;
  write_proto(p, &tp);
  CHECK(!gilt_tensor_read_onnx(ctx, p));
  EXPECT_ERROR("STRING");

  /* Truncations of a valid file and noise. */
  tp.data_type = GILT__ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  write_proto(p, &tp);
  size_t len;
  uint8_t *good = slurp(p, &len);
  const char *cut = tmp_path("cut.pb");
  size_t calls = 0;
  for (size_t n = 0; n < len; n++, calls++) {
    write_file(cut, good, n);
    gilt_tensor_destroy(gilt_tensor_read_onnx(ctx, cut));
  }
  srand(2);
  for (int round = 0; round < 200; round++, calls++) {
    uint8_t noise[64];
    for (size_t i = 0; i < sizeof noise; i++)
      noise[i] = (uint8_t)rand();
    write_file(cut, noise, sizeof noise);
    gilt_tensor_destroy(gilt_tensor_read_onnx(ctx, cut));
  }
  CHECK(errors_seen - errors_checked <= calls);
  errors_checked = errors_seen;
  free(good);
}

/* ---- specs --------------------------------------------------------------- */

static void test_specs(GiltContext *ctx)
{
  char spec[600];
  GiltTensor *t = parse(ctx, "2xf32=1 2");
  snprintf(spec, sizeof spec, "@%s", tmp_path("out.npy"));
  CHECK(gilt_tensor_write_spec(ctx, t, spec, text_append, NULL) ==
        GILT_SUCCESS);
  GiltTensor *back = gilt_tensor_read_spec(ctx, spec, NULL);
  CHECK(same_tensor(t, back));
  gilt_tensor_destroy(back);
  Text text = {.len = 0};
  CHECK(gilt_tensor_write_spec(ctx, t, "-", text_append, &text) ==
        GILT_SUCCESS);
  CHECK(!strcmp(text.data, "2xf32=1 2\n"));
  EXPECT_NO_NEW_ERROR();
  CHECK(gilt_tensor_write_spec(ctx, t, "@out.pb", text_append, &text) ==
        GILT_FAILURE);
  EXPECT_ERROR("expected '-' (print) or @FILE.npy");
  CHECK(gilt_tensor_write_spec(ctx, t, "out.npy", text_append, &text) ==
        GILT_FAILURE);
  EXPECT_ERROR("expected '-' (print) or @FILE.npy");
  gilt_tensor_destroy(t);

  CHECK(!gilt_tensor_read_spec(ctx, "@", NULL));
  EXPECT_ERROR("expected a .npy or .pb file");
  CHECK(!gilt_tensor_read_spec(ctx, "@x.bin", NULL));
  EXPECT_ERROR("expected a .npy or .pb file");
  CHECK(!strncmp(last_printed, "x.bin: error: ", 14));
  CHECK(!gilt_tensor_read_spec(ctx, "2xf32=1 2 3", NULL));
  EXPECT_ERROR("expected 2 values");
  CHECK(!strncmp(last_printed, "<tensor>:1:7: error: ", 21));
}

/* ---- comparison ---------------------------------------------------------- */

static GiltStatus compare(GiltContext *ctx, const char *actual,
                          const char *expected, double rtol, double atol)
{
  GiltTensor *a = parse(ctx, actual), *e = parse(ctx, expected);
  GiltLocation *loc = gilt_location_name_get(ctx, "output 0", NULL);
  GiltStatus st = gilt_tensor_compare(ctx, loc, a, e, rtol, atol);
  gilt_tensor_destroy(a);
  gilt_tensor_destroy(e);
  return st;
}

static void test_compare(GiltContext *ctx)
{
  CHECK(compare(ctx, "2xf32=1 2", "2xf32=1 2", 0, 0) == GILT_SUCCESS);
  CHECK(compare(ctx, "2xf32=1.0005 2", "2xf32=1 2", 1e-3, 0) == GILT_SUCCESS);
  CHECK(compare(ctx, "f32=1e-8", "f32=0", 1e-3, 1e-7) == GILT_SUCCESS);
  CHECK(compare(ctx, "3xf32=nan inf -inf", "3xf32=nan inf -inf", 0, 0) ==
        GILT_SUCCESS);
  CHECK(compare(ctx, "f32=-0", "f32=0", 0, 0) == GILT_SUCCESS);
  CHECK(compare(ctx, "0x2xf32=", "0x2xf32=", 0, 0) == GILT_SUCCESS);
  CHECK(compare(ctx, "3xi32=1 2 3", "3xi32=1 2 3", 0, 0) == GILT_SUCCESS);
  EXPECT_NO_NEW_ERROR();

  CHECK(compare(ctx, "2x3xf32=1 2 3 4 5.5 6.25", "2x3xf32=1 2 3 4 5 6", 1e-3,
                1e-7) == GILT_FAILURE);
  EXPECT_ERROR("element 4 [1, 1] is 5.5, expected 5 (error 0.5, tolerance "
               "0.005");
  CHECK(strstr(last_printed, "output 0: error: element 4 [1, 1]"));
  CHECK(strstr(last_printed, "note: 2 of 6 elements differ; the largest "
               "error, 0.5, is at element 4 [1, 1]"));
  CHECK(compare(ctx, "2xf32=1 9", "2xf32=1 2", 0, 0) == GILT_FAILURE);
  EXPECT_ERROR("element 1 [1] is 9, expected 2 (error 7");
  CHECK(strstr(last_printed, "note: 1 of 2 elements differ\n"));
  CHECK(compare(ctx, "f32=1.002", "f32=1", 1e-3, 0) == GILT_FAILURE);
  EXPECT_ERROR("the value is 1.002, expected 1");
  CHECK(!strstr(last_printed, "note:"));
  CHECK(compare(ctx, "2xf32=nan 1", "2xf32=1 1", 1, 1) == GILT_FAILURE);
  EXPECT_ERROR("element 0 [0] is nan, expected 1");
  CHECK(compare(ctx, "2xf32=1 1", "2xf32=1 nan", 1, 1) == GILT_FAILURE);
  EXPECT_ERROR("element 1 [1] is 1, expected nan");
  CHECK(compare(ctx, "f32=inf", "f32=-inf", 1, 1) == GILT_FAILURE);
  EXPECT_ERROR("is inf, expected -inf");
  CHECK(compare(ctx, "f32=inf", "f32=3e38", 1, 1) == GILT_FAILURE);
  EXPECT_ERROR("is inf, expected 3e+38");
  /* A NaN error is the largest of all. */
  CHECK(compare(ctx, "3xf32=5 nan 100", "3xf32=1 1 1", 0, 0) == GILT_FAILURE);
  EXPECT_ERROR("element 0 [0] is 5");
  CHECK(strstr(last_printed, "largest error, nan, is at element 1 [1]"));
  /* Integers compare exactly, past what a double holds. */
  CHECK(compare(ctx, "i64=9007199254740993", "i64=9007199254740992", 1, 1) ==
        GILT_FAILURE);
  EXPECT_ERROR("is 9007199254740993, expected 9007199254740992 (error 1)");
  CHECK(compare(ctx, "ui64=0", "ui64=18446744073709551615", 0, 0) ==
        GILT_FAILURE);
  EXPECT_ERROR("is 0, expected 18446744073709551615 (error 1.8");
  CHECK(compare(ctx, "i8=-128", "i8=127", 0, 0) == GILT_FAILURE);
  EXPECT_ERROR("is -128, expected 127 (error 255)");
  CHECK(compare(ctx, "2xi1=1 0", "2xi1=1 1", 1, 1) == GILT_FAILURE);
  EXPECT_ERROR("element 1 [1] is 0, expected 1");

  CHECK(compare(ctx, "2xf32=1 2", "2xf64=1 2", 0, 0) == GILT_FAILURE);
  EXPECT_ERROR("has type 2xf32, expected 2xf64");
  CHECK(compare(ctx, "f32=1", "i32=1", 0, 0) == GILT_FAILURE);
  EXPECT_ERROR("has type f32, expected i32");
  CHECK(compare(ctx, "2x3xf32=0", "3x2xf32=0", 0, 0) == GILT_FAILURE);
  EXPECT_ERROR("has shape 2x3, expected 3x2");
  CHECK(compare(ctx, "f32=0", "1xf32=0", 0, 0) == GILT_FAILURE);
  EXPECT_ERROR("has shape [] (a scalar), expected 1");

  /* No location: reported anyway. */
  GiltTensor *a = parse(ctx, "f32=1"), *e = parse(ctx, "f32=2");
  CHECK(gilt_tensor_compare(ctx, NULL, a, e, 0, 0) == GILT_FAILURE);
  EXPECT_ERROR("the value is 1, expected 2");
  gilt_tensor_destroy(a);
  gilt_tensor_destroy(e);
}

static GiltStatus compare_l2(GiltContext *ctx, const char *actual,
                             const char *expected, double max_error)
{
  GiltTensor *a = parse(ctx, actual), *e = parse(ctx, expected);
  GiltStatus st = gilt_tensor_compare_l2(ctx, NULL, a, e, max_error);
  gilt_tensor_destroy(a);
  gilt_tensor_destroy(e);
  return st;
}

/* The model-level test: the error of the whole output, not of each
** element. */
static void test_compare_l2(GiltContext *ctx)
{
  /* One small logit off by 10% of itself, the rest exact: 1e-3 of the
  ** norm passes where an elementwise rtol of 1e-3 would fail. */
  CHECK(compare_l2(ctx, "3xf32=100 -50 0.011", "3xf32=100 -50 0.01", 1e-4) ==
        GILT_SUCCESS);
  CHECK(compare(ctx, "3xf32=100 -50 0.011", "3xf32=100 -50 0.01", 1e-3, 0) ==
        GILT_FAILURE);
  EXPECT_ERROR("element 2 [2] is 0.011");
  CHECK(compare_l2(ctx, "2xf32=3 4", "2xf32=0 0", 1) == GILT_FAILURE);
  EXPECT_ERROR("relative L2 error 5 exceeds 1");
  CHECK(compare_l2(ctx, "2xf32=1 2", "2xf32=1.5 2", 1e-3) == GILT_FAILURE);
  EXPECT_ERROR("relative L2 error 0.2 exceeds 0.001");
  CHECK(strstr(last_printed, "note: element 0 [0] differs most: 1, expected "
               "1.5"));
  CHECK(compare_l2(ctx, "2xf32=nan 2", "2xf32=1 2", 1) == GILT_FAILURE);
  EXPECT_ERROR("relative L2 error nan");
  CHECK(strstr(last_printed, "element 0 [0] differs most: nan, expected 1"));
  /* Equal infinities and NaN pairs match, as elementwise. */
  CHECK(compare_l2(ctx, "3xf32=inf nan 2", "3xf32=inf nan 2", 0) ==
        GILT_SUCCESS);
  CHECK(compare_l2(ctx, "2xf32=inf 2", "2xf32=-inf 2", 1) == GILT_FAILURE);
  EXPECT_ERROR("relative L2 error");
  CHECK(strstr(last_printed, "element 0 [0] differs most: inf, expected -inf"));
  /* Integers still compare exactly. */
  CHECK(compare_l2(ctx, "2xi32=1 2", "2xi32=1 3", 1) == GILT_FAILURE);
  EXPECT_ERROR("element 1 [1] is 2, expected 3");
}

/* ---- main ---------------------------------------------------------------- */

static void remove_tmpdir(void)
{
  static const char *names[] = {"rt.npy", "other.npy", "good.npy", "cut.npy",
                                "t.pb",   "cut.pb",    "out.npy"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    unlink(tmp_path(names[i]));
  rmdir(tmpdir);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_diagnostic_handler(ctx, record, NULL);
  const char *tmp = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/gilt-tensor-XXXXXX",
           tmp && tmp[0] ? tmp : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }

  test_text(ctx);
  test_npy(ctx);
  test_npy_corrupt(ctx);
  test_onnx(ctx);
  test_specs(ctx);
  test_compare(ctx);
  test_compare_l2(ctx);

  remove_tmpdir();
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
