/*
** tensor_compare.c - checking a result against an expected tensor within
** a tolerance (tensor_io.h), as gjit's --expected-output and the ONNX
** conformance runner do.
**
** The test is NumPy's assert_allclose: |actual - expected| <= atol + rtol
** * |expected|, asymmetric on purpose (the tolerance scales with the
** reference), with NaN equal to NaN and an infinity equal only to itself.
** The ONNX backend tests are checked that way with rtol 1e-3 and atol
** 1e-7. Integers and booleans compare exactly: a tolerance on an index or
** a mask hides bugs, and doubles cannot hold every i64. The report names
** the first differing element, as iree-run-module's does, and a note
** gives the extent of the damage; this file does not decide what
** tolerance a model deserves.
*/
#include "jit/tensor_io.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ir/core.h"

static GiltLocation *at(GiltContext *ctx, GiltLocation *loc)
{
  return loc ? loc : gilt_location_unknown_get(ctx);
}

/* "[1, 2]": the multi-index of flat element i, appended. */
static void format_index(GiltStrBuf *sb, const GiltTensor *t, int64_t i)
{
  size_t rank = gilt_tensor_get_rank(t);
  const int64_t *shape = gilt_tensor_get_shape(t);
  int64_t index[64];
  for (size_t d = rank; d-- > 0;) {
    index[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  gilt_strbuf_append(sb, "[", 1);
  for (size_t d = 0; d < rank; d++)
    gilt_strbuf_printf(sb, d ? ", %" PRId64 : "%" PRId64, index[d]);
  gilt_strbuf_append(sb, "]", 1);
}

static bool same_shape(const GiltTensor *a, const GiltTensor *b)
{
  size_t rank = gilt_tensor_get_rank(a);
  return rank == gilt_tensor_get_rank(b) &&
         (!rank || !memcmp(gilt_tensor_get_shape(a), gilt_tensor_get_shape(b),
                           rank * sizeof(int64_t)));
}

/* Reports that the element types or shapes differ, if they do. */
static bool check_type(GiltContext *ctx, GiltLocation *loc,
                       const GiltTensor *actual, const GiltTensor *expected)
{
  GiltType *ea = gilt_tensor_get_element_type(actual);
  GiltType *ee = gilt_tensor_get_element_type(expected);
  if (ea == ee && same_shape(actual, expected))
    return true;
  GiltStrBuf a, e;
  gilt_strbuf_init(&a, ctx);
  gilt_strbuf_init(&e, ctx);
  gilt_tensor_format_shape(&a, gilt_tensor_get_rank(actual),
                           gilt_tensor_get_shape(actual));
  gilt_tensor_format_shape(&e, gilt_tensor_get_rank(expected),
                           gilt_tensor_get_shape(expected));
  if (ea != ee) {
    gilt_strbuf_append(&a, a.len ? "x" : "", a.len ? 1 : 0);
    gilt_strbuf_append(&e, e.len ? "x" : "", e.len ? 1 : 0);
    gilt_type_print(ea, gilt_strbuf_callback, &a);
    gilt_type_print(ee, gilt_strbuf_callback, &e);
    gilt_emit_error(at(ctx, loc), "has type %s, expected %s", a.data,
                    e.data);
  } else {
    gilt_emit_error(at(ctx, loc), "has shape %s, expected %s",
                    a.len ? a.data : "[] (a scalar)",
                    e.len ? e.data : "[] (a scalar)");
  }
  gilt_strbuf_free(&a);
  gilt_strbuf_free(&e);
  return false;
}

/* Element i's storage unit, sign-extended to 64 bits unless `elem` is
** unsigned (i1 included). */
static uint64_t int_bits(const GiltTensor *t, int64_t i, size_t size,
                         bool is_unsigned)
{
  const uint8_t *p = (const uint8_t *)gilt_tensor_elements(t) + (size_t)i * size;
  uint64_t bits = 0;
  for (size_t b = 0; b < size; b++)
    bits |= (uint64_t)p[b] << (8 * b);
  if (!is_unsigned && size < 8 && (bits >> (8 * size - 1)) & 1)
    bits |= ~(((uint64_t)1 << (8 * size)) - 1);
  return bits;
}

/* The absolute error of element i, and whether it is within tolerance. */
static bool element_close(const GiltTensor *actual, const GiltTensor *expected,
                          int64_t i, double rtol, double atol, double *error)
{
  GiltType *elem = gilt_tensor_get_element_type(expected);
  if (gilt_type_get_kind(elem) != GILT_TYPE_FLOAT) {
    /* Exactly: the difference of two i64 may not fit in one, nor in a
    ** double's mantissa. */
    bool is_unsigned = gilt_type_get_kind(elem) == GILT_TYPE_INTEGER &&
                       (gilt_integer_type_get_width(elem) == 1 ||
                        gilt_integer_type_get_signedness(elem) ==
                            GILT_UNSIGNED);
    size_t size = gilt_tensor_element_size(elem);
    uint64_t a = int_bits(actual, i, size, is_unsigned);
    uint64_t e = int_bits(expected, i, size, is_unsigned);
    /* Flipping the sign bit orders two's complement as unsigned. */
    uint64_t flip = is_unsigned ? 0 : (uint64_t)1 << 63;
    bool a_less = (a ^ flip) < (e ^ flip);
    *error = (double)(a_less ? e - a : a - e);
    return a == e;
  }
  double a = gilt_tensor_get_double(actual, i);
  double e = gilt_tensor_get_double(expected, i);
  if ((isnan(a) && isnan(e)) || a == e) {
    *error = 0;
    return true;
  }
  /* NaN or an infinity against anything else: never close, though an
  ** infinite expected value would make the tolerance infinite too. */
  *error = fabs(a - e);
  return isfinite(a) && isfinite(e) && *error <= atol + rtol * fabs(e);
}

GiltStatus gilt_tensor_compare(GiltContext *ctx, GiltLocation *loc,
                               const GiltTensor *actual,
                               const GiltTensor *expected, double rtol,
                               double atol)
{
  if (!check_type(ctx, loc, actual, expected))
    return GILT_FAILURE;
  GiltType *elem = gilt_tensor_get_element_type(expected);
  bool is_float = gilt_type_get_kind(elem) == GILT_TYPE_FLOAT;
  int64_t n = gilt_tensor_get_num_elements(expected);
  int64_t first = -1, worst = -1, count = 0;
  double first_error = 0, worst_error = 0;
  for (int64_t i = 0; i < n; i++) {
    double error;
    if (element_close(actual, expected, i, rtol, atol, &error))
      continue;
    if (!count++)
      first = i, first_error = error;
    /* A NaN error (NaN against a number) is the worst there is. */
    if (worst < 0 || (!isnan(worst_error) && !(error <= worst_error)))
      worst = i, worst_error = error;
  }
  if (!count)
    return GILT_SUCCESS;

  char a[32], e[32];
  gilt_tensor_format_element(actual, first, a, sizeof a);
  gilt_tensor_format_element(expected, first, e, sizeof e);
  GiltStrBuf msg;
  gilt_strbuf_init(&msg, ctx);
  if (gilt_tensor_get_rank(expected)) {
    gilt_strbuf_printf(&msg, "element %" PRId64 " ", first);
    format_index(&msg, expected, first);
    gilt_strbuf_printf(&msg, " is %s, expected %s", a, e);
  } else {
    gilt_strbuf_printf(&msg, "the value is %s, expected %s", a, e);
  }
  if (is_float)
    gilt_strbuf_printf(&msg, " (error %g, tolerance %g)", first_error,
                       atol + rtol * fabs(gilt_tensor_get_double(expected,
                                                                 first)));
  else
    gilt_strbuf_printf(&msg, " (error %g)", first_error);
  GiltDiagnostic *d = gilt_diag_create(ctx, GILT_SEVERITY_ERROR, at(ctx, loc),
                                       "%s", msg.data);
  if (n > 1) {
    msg.len = 0;
    gilt_strbuf_printf(&msg, "%" PRId64 " of %" PRId64 " elements differ",
                       count, n);
    if (count > 1) {
      gilt_strbuf_printf(&msg, "; the largest error, %g, is at element "
                         "%" PRId64 " ", worst_error, worst);
      format_index(&msg, expected, worst);
    }
    gilt_diag_add_note(d, at(ctx, loc), "%s", msg.data);
  }
  gilt_diag_emit(d);
  gilt_strbuf_free(&msg);
  return GILT_FAILURE;
}

/* The model-level test: ||actual - expected|| / ||expected|| <= max_error
** (Euclidean norms over all elements), how the shared reference models are
** judged. Elementwise tolerances fail a model for one tiny logit that a
** different summation order moved; the L2 error measures the whole
** output. Integers and booleans still compare exactly. */
GiltStatus gilt_tensor_compare_l2(GiltContext *ctx, GiltLocation *loc,
                                  const GiltTensor *actual,
                                  const GiltTensor *expected,
                                  double max_error)
{
  GiltType *elem = gilt_tensor_get_element_type(expected);
  if (gilt_type_get_kind(elem) != GILT_TYPE_FLOAT)
    return gilt_tensor_compare(ctx, loc, actual, expected, 0, 0);
  if (!check_type(ctx, loc, actual, expected))
    return GILT_FAILURE;
  int64_t n = gilt_tensor_get_num_elements(expected), worst = 0;
  double diff = 0, norm = 0, worst_error = -1;
  for (int64_t i = 0; i < n; i++) {
    double a = gilt_tensor_get_double(actual, i);
    double e = gilt_tensor_get_double(expected, i);
    /* Equal infinities and two NaNs match, as elementwise; neither counts
    ** in the norm. A NaN against a number is the worst. */
    norm += isfinite(e) ? e * e : 0;
    if (a == e || (isnan(a) && isnan(e)))
      continue;
    double d = fabs(a - e);
    diff += d * d;
    if (worst_error < 0 || isnan(d) || d > worst_error)
      worst = i, worst_error = d;
    if (isnan(d))
      break;
  }
  double error = norm > 0 ? sqrt(diff / norm) : sqrt(diff);
  if (error <= max_error)
    return GILT_SUCCESS;
  char a[32], e[32];
  gilt_tensor_format_element(actual, worst, a, sizeof a);
  gilt_tensor_format_element(expected, worst, e, sizeof e);
  GiltStrBuf msg;
  gilt_strbuf_init(&msg, ctx);
  gilt_strbuf_printf(&msg, "element %" PRId64 " ", worst);
  format_index(&msg, expected, worst);
  gilt_strbuf_printf(&msg, " differs most: %s, expected %s", a, e);
  GiltDiagnostic *d = gilt_diag_create(
      ctx, GILT_SEVERITY_ERROR, at(ctx, loc),
      "relative L2 error %g exceeds %g", error, max_error);
  gilt_diag_add_note(d, at(ctx, loc), "%s", msg.data);
  gilt_diag_emit(d);
  gilt_strbuf_free(&msg);
  return GILT_FAILURE;
}

/* Bit for bit: what gjit --bitwise and the conformance runner's check of
** constant folding against run time ask (-0 is not +0, and a NaN matches
** only the same NaN). */
GiltStatus gilt_tensor_compare_bits(GiltContext *ctx, GiltLocation *loc,
                                    const GiltTensor *actual,
                                    const GiltTensor *expected)
{
  if (!check_type(ctx, loc, actual, expected))
    return GILT_FAILURE;
  size_t size = gilt_tensor_element_size(gilt_tensor_get_element_type(expected));
  const uint8_t *a = gilt_tensor_elements(actual);
  const uint8_t *e = gilt_tensor_elements(expected);
  int64_t n = gilt_tensor_get_num_elements(expected);
  for (int64_t i = 0; i < n; i++) {
    if (!memcmp(a + (size_t)i * size, e + (size_t)i * size, size))
      continue;
    char x[32], y[32];
    gilt_tensor_format_element(actual, i, x, sizeof x);
    gilt_tensor_format_element(expected, i, y, sizeof y);
    GiltStrBuf msg;
    gilt_strbuf_init(&msg, ctx);
    gilt_strbuf_printf(&msg, "element %" PRId64 " ", i);
    format_index(&msg, expected, i);
    gilt_strbuf_printf(&msg, " is %s, expected %s, bit for bit", x, y);
    gilt_emit_error(at(ctx, loc), "%s", msg.data);
    gilt_strbuf_free(&msg);
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}
