/*
** tensor_text.c - tensors as text, both ways (tensor_io.h): parsing the
** inline form of iree-run-module's --input (`2x3xf32=1 2 3 4 5 6`) and
** printing in its output form (`2x3xf32=[1 2 3][4 5 6]`).
**
** The two meet: the parser takes brackets as separators, so a tensor
** printed in full parses back to the same tensor, and floats print in the
** fewest significant digits that read back to the same bits. Element
** types are named as in the IR (`ui8`, `bf16`, `f8E5M2`) but read by a
** table here, not by the IR parser, so an error can point at the type
** inside the spec. This is not a general array literal syntax: no nested
** shape is inferred from the brackets, the dims before the type say it.
*/
#include "jit/tensor_io.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing ------------------------------------------------------------- */

typedef struct Spec {
  GiltContext *ctx;
  const char *text;
  const char *name; /* the source buffer's name in diagnostics */
} Spec;

/* Reports at `at` in the text, whose line is quoted with a caret. */
__attribute__((format(printf, 3, 4))) static void
fail_at(Spec *s, const char *at, const char *fmt, ...)
{
  unsigned line = 1;
  const char *line_start = s->text;
  for (const char *c = s->text; c < at; c++)
    if (*c == '\n')
      line++, line_start = c + 1;
  gilt_context_add_source_buffer(s->ctx, s->name, s->text, strlen(s->text));
  GiltLocation *loc = gilt_location_file_line_col_get(
      s->ctx, s->name, line, (unsigned)(at - line_start) + 1);
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  gilt_emit_error(loc, "%s", msg);
}

static const struct {
  const char *name;
  GiltFloatKind kind;
} float_names[] = {
    {"f16", GILT_F16},           {"bf16", GILT_BF16},
    {"f32", GILT_F32},           {"f64", GILT_F64},
    {"f8E4M3FN", GILT_F8E4M3FN}, {"f8E4M3FNUZ", GILT_F8E4M3FNUZ},
    {"f8E5M2", GILT_F8E5M2},     {"f8E5M2FNUZ", GILT_F8E5M2FNUZ},
};

/* The element type named by the `len` characters at `p`, NULL if none. */
static GiltType *element_type(GiltContext *ctx, const char *p, size_t len)
{
  if (len == 5 && !memcmp(p, "index", 5))
    return gilt_index_type_get(ctx);
  for (size_t i = 0; i < sizeof float_names / sizeof *float_names; i++)
    if (strlen(float_names[i].name) == len &&
        !memcmp(p, float_names[i].name, len))
      return gilt_float_type_get(ctx, float_names[i].kind);
  GiltSignedness sign = GILT_SIGNLESS;
  if (len > 2 && (p[0] == 's' || p[0] == 'u') && p[1] == 'i') {
    sign = p[0] == 's' ? GILT_SIGNED : GILT_UNSIGNED;
    p += 1, len -= 1;
  }
  if (len < 2 || len > 3 || p[0] != 'i' || p[1] == '0')
    return NULL;
  unsigned width = 0;
  for (size_t i = 1; i < len; i++) {
    if (!isdigit((unsigned char)p[i]))
      return NULL;
    width = width * 10 + (unsigned)(p[i] - '0');
  }
  return width >= 1 && width <= 64 ? gilt_integer_type_get(ctx, width, sign)
                                   : NULL;
}

static bool is_separator(char c)
{
  return isspace((unsigned char)c) || c == ',' || c == '[' || c == ']';
}

static const char *skip_separators(const char *p)
{
  while (*p && is_separator(*p))
    p++;
  return p;
}

static const char *token_end(const char *p)
{
  while (*p && !is_separator(*p))
    p++;
  return p;
}

/* A decimal integer token: its sign and magnitude. */
typedef enum { INT_OK, INT_NOT_INTEGER, INT_TOO_LARGE } IntParse;

static IntParse parse_integer(const char *p, const char *end, bool *negative,
                              uint64_t *magnitude)
{
  *negative = *p == '-';
  if (*p == '-' || *p == '+')
    p++;
  if (p == end)
    return INT_NOT_INTEGER;
  uint64_t v = 0;
  bool overflow = false;
  for (; p < end; p++) {
    if (!isdigit((unsigned char)*p))
      return INT_NOT_INTEGER;
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10)
      overflow = true;
    v = v * 10 + d;
  }
  *magnitude = v;
  return overflow ? INT_TOO_LARGE : INT_OK;
}

/* The bits of integer token [p, end) for `elem` (an integer or index
** type), reported when it is not an integer or does not fit. */
static bool integer_bits(Spec *s, GiltType *elem, const char *p,
                         const char *end, uint64_t *bits)
{
  int n = (int)(end - p);
  if (gilt_type_is_integer(elem, 1)) {
    bool one = (n == 4 && !memcmp(p, "true", 4)) || (n == 1 && *p == '1');
    bool zero = (n == 5 && !memcmp(p, "false", 5)) || (n == 1 && *p == '0');
    if (!one && !zero) {
      fail_at(s, p, "expected true, false, 1 or 0 for an i1 element, found "
              "'%.*s'", n, p);
      return false;
    }
    *bits = one;
    return true;
  }
  bool is_index = gilt_type_get_kind(elem) == GILT_TYPE_INDEX;
  unsigned width = is_index ? 64 : gilt_integer_type_get_width(elem);
  GiltSignedness sign =
      is_index ? GILT_SIGNED : gilt_integer_type_get_signedness(elem);
  uint64_t max_neg = sign == GILT_UNSIGNED ? 0 : (uint64_t)1 << (width - 1);
  uint64_t max_pos = sign == GILT_SIGNED ? ((uint64_t)1 << (width - 1)) - 1
                     : width == 64      ? UINT64_MAX
                                        : ((uint64_t)1 << width) - 1;
  bool negative;
  uint64_t m = 0;
  IntParse r = parse_integer(p, end, &negative, &m);
  if (r == INT_NOT_INTEGER) {
    fail_at(s, p, "expected an integer, found '%.*s'", n, p);
    return false;
  }
  if (r == INT_TOO_LARGE || (negative ? m > max_neg : m > max_pos)) {
    GiltStrBuf type;
    gilt_strbuf_init(&type, s->ctx);
    gilt_type_print(elem, gilt_strbuf_callback, &type);
    fail_at(s, p, "%.*s does not fit in %s", n, p, type.data);
    gilt_strbuf_free(&type);
    return false;
  }
  uint64_t v = negative ? 0 - m : m;
  /* Stored sign-extended for signless and si (gilt/tensor.h). */
  if (width < 64) {
    uint64_t mask = ((uint64_t)1 << width) - 1;
    v &= mask;
    if (sign != GILT_UNSIGNED && (v >> (width - 1)) & 1)
      v |= ~mask;
  }
  *bits = v;
  return true;
}

/* Parses one value token into element i of `t`. */
static bool parse_value(Spec *s, GiltTensor *t, int64_t i, const char *p,
                        const char *end)
{
  GiltType *elem = gilt_tensor_get_element_type(t);
  size_t size = gilt_tensor_element_size(elem);
  uint64_t bits;
  if (gilt_type_get_kind(elem) == GILT_TYPE_FLOAT) {
    char *stop;
    double v = strtod(p, &stop);
    if (stop != end) {
      fail_at(s, p, "expected a number, found '%.*s'", (int)(end - p), p);
      return false;
    }
    bits = gilt_float_bits_from_double(gilt_float_type_get_kind(elem), v,
                                       false);
  } else if (!integer_bits(s, elem, p, end, &bits)) {
    return false;
  }
  uint8_t *dst = (uint8_t *)gilt_tensor_get_data(t) + (size_t)i * size;
  for (size_t b = 0; b < size; b++)
    dst[b] = (uint8_t)(bits >> (8 * b));
  return true;
}

/* dims: `D "x"` repeated; the type follows the last 'x'. */
static const char *parse_dims(Spec *s, const char *p, size_t *rank,
                              int64_t *shape, size_t max_rank)
{
  *rank = 0;
  while (isdigit((unsigned char)*p)) {
    const char *start = p;
    int64_t d = 0;
    for (; isdigit((unsigned char)*p); p++) {
      if (d > (INT64_MAX - 9) / 10) {
        fail_at(s, start, "dimension too large");
        return NULL;
      }
      d = d * 10 + (*p - '0');
    }
    if (*p != 'x') {
      fail_at(s, p, "expected 'x' after a dimension");
      return NULL;
    }
    if (*rank == max_rank) {
      fail_at(s, start, "more than %zu dimensions", max_rank);
      return NULL;
    }
    shape[(*rank)++] = d;
    p++;
  }
  if (*p == '?') {
    fail_at(s, p, "dynamic dimensions are not allowed: give every size");
    return NULL;
  }
  return p;
}

/* Counts the value tokens from p, up to max + 1 (enough to tell). */
static int64_t count_values(const char *p, int64_t max)
{
  int64_t n = 0;
  for (p = skip_separators(p); *p && n <= max; p = skip_separators(p)) {
    p = token_end(p);
    n++;
  }
  return n;
}

static void splat(GiltTensor *t)
{
  size_t size = gilt_tensor_element_size(gilt_tensor_get_element_type(t));
  uint8_t *data = gilt_tensor_get_data(t);
  for (int64_t i = 1; i < gilt_tensor_get_num_elements(t); i++)
    memcpy(data + (size_t)i * size, data, size);
}

GiltTensor *gilt_tensor_parse_text(GiltContext *ctx, const char *text,
                                   const char *name)
{
  Spec s = {ctx, text, name ? name : "<tensor>"};
  int64_t shape[64];
  size_t rank;
  const char *p = parse_dims(&s, text, &rank, shape, 64);
  if (!p)
    return NULL;
  const char *type_end = p;
  while (*type_end && *type_end != '=' && !isspace((unsigned char)*type_end))
    type_end++;
  GiltType *elem = element_type(ctx, p, (size_t)(type_end - p));
  if (!elem) {
    fail_at(&s, p, "expected an element type (i1, i8, ..., ui8, ..., "
            "index, f16, bf16, f32, f64, f8E4M3FN, ...), found '%.*s'",
            (int)(type_end - p), p);
    return NULL;
  }
  if (*type_end != '=') {
    fail_at(&s, type_end, "expected '=' and the values after the type");
    return NULL;
  }
  const char *values = type_end + 1;
  GiltTensor *t = gilt_tensor_create(elem, rank, shape);
  if (!t) {
    fail_at(&s, text, "the tensor is too large to allocate");
    return NULL;
  }
  int64_t n = gilt_tensor_get_num_elements(t);
  int64_t found = count_values(values, n);
  if (found != n && (found != 1 || n == 0)) {
    char found_text[32] = "more";
    if (found < n)
      snprintf(found_text, sizeof found_text, "%" PRId64, found);
    fail_at(&s, values, "expected %" PRId64 " value%s%s, found %s", n,
            n == 1 ? "" : "s", n > 1 ? " (or one for all)" : "", found_text);
    gilt_tensor_destroy(t);
    return NULL;
  }
  p = skip_separators(values);
  for (int64_t i = 0; i < found; i++, p = skip_separators(p)) {
    const char *end = token_end(p);
    if (!parse_value(&s, t, i, p, end)) {
      gilt_tensor_destroy(t);
      return NULL;
    }
    p = end;
  }
  if (found == 1)
    splat(t);
  return t;
}

/* ---- printing ------------------------------------------------------------ */

static void put(GiltStringCallback cb, void *user, const char *s)
{
  cb(s, strlen(s), user);
}

/* The storage unit of element i, zero-extended. */
static uint64_t load_bits(const GiltTensor *t, int64_t i, size_t size)
{
  const uint8_t *p = (const uint8_t *)gilt_tensor_elements(t) + (size_t)i * size;
  uint64_t bits = 0;
  for (size_t b = 0; b < size; b++)
    bits |= (uint64_t)p[b] << (8 * b);
  return bits;
}

/* The shortest %g form that reads back to the same bits of format k. */
static void format_float(GiltFloatKind k, uint64_t bits, char *buf,
                         size_t size)
{
  double v = gilt_float_bits_to_double(k, bits);
  if (isnan(v)) {
    snprintf(buf, size, "nan");
    return;
  }
  if (isinf(v)) {
    snprintf(buf, size, v > 0 ? "inf" : "-inf");
    return;
  }
  int digits = 1;
  for (; digits < 17; digits++) {
    snprintf(buf, size, "%.*g", digits, v);
    if (gilt_float_bits_from_double(k, strtod(buf, NULL), false) == bits)
      break;
  }
  /* %g goes to an exponent once the exponent reaches the digits printed:
  ** 448 in two digits is 4.5e+02. Below 1e6, as %g's default, print the
  ** integer digits instead; more digits still read back the same. */
  if (fabs(v) >= 10 && fabs(v) < 1e6) {
    int exponent = (int)floor(log10(fabs(v)));
    if (exponent >= digits)
      digits = exponent + 1;
  }
  snprintf(buf, size, "%.*g", digits, v);
}

void gilt_tensor_format_element(const GiltTensor *t, int64_t i, char *buf,
                                size_t size)
{
  GiltType *elem = gilt_tensor_get_element_type(t);
  size_t elem_size = gilt_tensor_element_size(elem);
  uint64_t bits = load_bits(t, i, elem_size);
  if (gilt_type_get_kind(elem) == GILT_TYPE_FLOAT) {
    format_float(gilt_float_type_get_kind(elem), bits, buf, size);
    return;
  }
  bool is_unsigned = gilt_type_get_kind(elem) == GILT_TYPE_INTEGER &&
                     (gilt_integer_type_get_width(elem) == 1 ||
                      gilt_integer_type_get_signedness(elem) == GILT_UNSIGNED);
  if (is_unsigned) {
    snprintf(buf, size, "%" PRIu64, bits);
    return;
  }
  /* Sign-extend the storage unit. */
  uint64_t sign = (uint64_t)1 << (8 * elem_size - 1);
  int64_t v = bits & sign ? -(int64_t)(~bits & (sign - 1)) - 1
                          : (int64_t)(bits & (sign - 1));
  snprintf(buf, size, "%" PRId64, v);
}

void gilt_tensor_format_shape(GiltStrBuf *sb, size_t rank,
                              const int64_t *shape)
{
  for (size_t i = 0; i < rank; i++)
    gilt_strbuf_printf(sb, i ? "x%" PRId64 : "%" PRId64, shape[i]);
}

/* How many entries of each dimension a truncated print shows at each end. */
enum { EDGE_ITEMS = 3 };

typedef struct Printer {
  const GiltTensor *t;
  const int64_t *shape;
  size_t rank;
  bool truncate;
  GiltStringCallback cb;
  void *user;
} Printer;

/* Dimension d from flat element `base`; rows in brackets, the innermost
** dimension's elements separated by spaces. */
static void print_dim(const Printer *pr, size_t d, int64_t base)
{
  int64_t stride = 1;
  for (size_t k = d + 1; k < pr->rank; k++)
    stride *= pr->shape[k];
  int64_t n = pr->shape[d];
  bool inner = d + 1 == pr->rank;
  for (int64_t i = 0; i < n; i++) {
    if (pr->truncate && n > 2 * EDGE_ITEMS && i == EDGE_ITEMS) {
      put(pr->cb, pr->user, inner ? " ..." : "...");
      i = n - EDGE_ITEMS;
    }
    if (inner) {
      char buf[32];
      gilt_tensor_format_element(pr->t, base + i, buf, sizeof buf);
      if (i)
        put(pr->cb, pr->user, " ");
      put(pr->cb, pr->user, buf);
    } else {
      put(pr->cb, pr->user, "[");
      print_dim(pr, d + 1, base + i * stride);
      put(pr->cb, pr->user, "]");
    }
  }
}

void gilt_tensor_print(const GiltTensor *t, int64_t max_elements,
                       GiltStringCallback cb, void *user)
{
  GiltType *elem = gilt_tensor_get_element_type(t);
  GiltStrBuf head;
  gilt_strbuf_init(&head, gilt_type_get_context(elem));
  gilt_tensor_format_shape(&head, gilt_tensor_get_rank(t),
                           gilt_tensor_get_shape(t));
  if (gilt_tensor_get_rank(t))
    gilt_strbuf_append(&head, "x", 1);
  gilt_type_print(elem, gilt_strbuf_callback, &head);
  gilt_strbuf_append(&head, "=", 1);
  cb(head.data, head.len, user);
  gilt_strbuf_free(&head);

  if (!gilt_tensor_get_rank(t)) {
    char buf[32];
    gilt_tensor_format_element(t, 0, buf, sizeof buf);
    put(cb, user, buf);
    return;
  }
  Printer pr = {t,  gilt_tensor_get_shape(t), gilt_tensor_get_rank(t),
                gilt_tensor_get_num_elements(t) > max_elements, cb, user};
  print_dim(&pr, 0, 0);
}
