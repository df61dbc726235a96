/*
** tensor.c - unit test of host tensors through the public API
** (gilt/tensor.h): element sizes of every storable type, creation (the
** alignment, zeroed elements, scalars, empty tensors, the refusals), and
** the conversions to and from double: rounding to each float format,
** truncation and wrapping of integers of every width and signedness, and
** the storage each leaves in memory (sign- or zero-extended).
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/register.h"
#include "gilt/tensor.h"

static GiltType *int_type(GiltContext *ctx, unsigned w, GiltSignedness s)
{
  return gilt_integer_type_get(ctx, w, s);
}

static void test_element_sizes(GiltContext *ctx)
{
  static const struct {
    unsigned width;
    size_t size;
  } ints[] = {{1, 1},  {4, 1},  {8, 1},  {9, 2},  {16, 2},
              {17, 4}, {32, 4}, {33, 8}, {64, 8}, {65, 0}};
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
    CHECK(gilt_tensor_element_size(int_type(ctx, ints[i].width,
                                            GILT_SIGNLESS)) == ints[i].size);
    CHECK(gilt_tensor_element_size(int_type(ctx, ints[i].width,
                                            GILT_UNSIGNED)) == ints[i].size);
  }
  CHECK(gilt_tensor_element_size(gilt_index_type_get(ctx)) == 8);
  CHECK(gilt_tensor_element_size(gilt_float_type_get(ctx, GILT_F16)) == 2);
  CHECK(gilt_tensor_element_size(gilt_float_type_get(ctx, GILT_BF16)) == 2);
  CHECK(gilt_tensor_element_size(gilt_float_type_get(ctx, GILT_F32)) == 4);
  CHECK(gilt_tensor_element_size(gilt_float_type_get(ctx, GILT_F64)) == 8);
  CHECK(gilt_tensor_element_size(gilt_float_type_get(ctx, GILT_F8E5M2)) == 1);
  CHECK(gilt_tensor_element_size(gilt_none_type_get(ctx)) == 0);
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  int64_t dims[1] = {4};
  CHECK(gilt_tensor_element_size(
            gilt_tensor_type_get(ctx, 1, dims, f32, NULL)) == 0);
}

static void test_create(GiltContext *ctx)
{
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  int64_t shape[3] = {2, 3, 5};
  GiltTensor *t = gilt_tensor_create(f32, 3, shape);
  CHECK(t);
  shape[0] = 7; /* the tensor keeps its own copy */
  CHECK(gilt_tensor_get_element_type(t) == f32);
  CHECK(gilt_tensor_get_rank(t) == 3);
  CHECK(gilt_tensor_get_shape(t)[0] == 2 && gilt_tensor_get_shape(t)[2] == 5);
  CHECK(gilt_tensor_get_num_elements(t) == 30);
  CHECK(gilt_tensor_get_num_bytes(t) == 120);
  CHECK((uintptr_t)gilt_tensor_get_data(t) % 64 == 0);
  const uint8_t *bytes = gilt_tensor_get_data(t);
  size_t nonzero = 0;
  for (size_t i = 0; i < 120; i++)
    nonzero += bytes[i] != 0;
  CHECK(nonzero == 0);
  gilt_tensor_destroy(t);

  GiltTensor *scalar = gilt_tensor_create(f32, 0, NULL);
  CHECK(scalar && gilt_tensor_get_num_elements(scalar) == 1 &&
        gilt_tensor_get_num_bytes(scalar) == 4);
  gilt_tensor_destroy(scalar);

  int64_t empty_shape[2] = {0, 3};
  GiltTensor *empty = gilt_tensor_create(f32, 2, empty_shape);
  CHECK(empty && gilt_tensor_get_num_elements(empty) == 0 &&
        gilt_tensor_get_num_bytes(empty) == 0 && gilt_tensor_get_data(empty));
  gilt_tensor_destroy(empty);

  int64_t negative[1] = {-1};
  CHECK(!gilt_tensor_create(f32, 1, negative));
  int64_t huge[2] = {INT64_MAX / 2, 4};
  CHECK(!gilt_tensor_create(f32, 2, huge));
  int64_t big_bytes[1] = {INT64_MAX / 2};
  CHECK(!gilt_tensor_create(gilt_float_type_get(ctx, GILT_F64), 1, big_bytes));
  CHECK(!gilt_tensor_create(gilt_none_type_get(ctx), 0, NULL));
  CHECK(!gilt_tensor_create(NULL, 0, NULL));
  gilt_tensor_destroy(NULL);
}

/* Stores v in a one-element tensor of `elem`, then checks what reads back
** and the storage bytes (little-endian, `want_bytes` of them). */
static void check_store(GiltType *elem, double v, double want,
                        uint64_t want_bits, const char *file, int line)
{
  GiltTensor *t = gilt_tensor_create(elem, 0, NULL);
  gilt_tensor_set_double(t, 0, v);
  double got = gilt_tensor_get_double(t, 0);
  size_t size = gilt_tensor_element_size(elem);
  uint64_t bits = 0;
  memcpy(&bits, gilt_tensor_get_data(t), size); /* little-endian hosts */
  bool same = isnan(want) ? isnan(got) : got == want;
  if (!same || bits != want_bits) {
    fprintf(stderr, "%s:%d: stored %.17g, read %.17g (bits %#llx), "
            "expected %.17g (bits %#llx)\n", file, line, v, got,
            (unsigned long long)bits, want, (unsigned long long)want_bits);
    check_failures++;
  }
  gilt_tensor_destroy(t);
}
#define CHECK_STORE(elem, v, want, bits)                                     \
  check_store((elem), (v), (want), (bits), __FILE__, __LINE__)

static void test_integers(GiltContext *ctx)
{
  GiltType *i8 = int_type(ctx, 8, GILT_SIGNLESS);
  CHECK_STORE(i8, 5, 5, 0x05);
  CHECK_STORE(i8, -1, -1, 0xff);
  CHECK_STORE(i8, 2.9, 2, 0x02);     /* toward zero */
  CHECK_STORE(i8, -2.9, -2, 0xfe);
  CHECK_STORE(i8, 300, 44, 0x2c);    /* wrapped */
  CHECK_STORE(i8, -129, 127, 0x7f);
  CHECK_STORE(i8, NAN, 0, 0);
  CHECK_STORE(i8, INFINITY, 0, 0);
  GiltType *ui8 = int_type(ctx, 8, GILT_UNSIGNED);
  CHECK_STORE(ui8, 255, 255, 0xff);
  CHECK_STORE(ui8, -1, 255, 0xff);
  GiltType *si16 = int_type(ctx, 16, GILT_SIGNED);
  CHECK_STORE(si16, -300, -300, 0xfed4);
  CHECK_STORE(si16, 40000, 40000 - 65536, 0x9c40);
  GiltType *i4 = int_type(ctx, 4, GILT_SIGNLESS);
  CHECK_STORE(i4, 7, 7, 0x07);
  CHECK_STORE(i4, 8, -8, 0xf8);      /* sign-extended into the byte */
  GiltType *ui4 = int_type(ctx, 4, GILT_UNSIGNED);
  CHECK_STORE(ui4, 17, 1, 0x01);
  CHECK_STORE(ui4, -1, 15, 0x0f);
  GiltType *i1 = int_type(ctx, 1, GILT_SIGNLESS);
  CHECK_STORE(i1, 1, 1, 1);
  CHECK_STORE(i1, 3, 1, 1);
  CHECK_STORE(i1, 2, 0, 0);
  GiltType *i32 = int_type(ctx, 32, GILT_SIGNLESS);
  CHECK_STORE(i32, -2147483648.0, -2147483648.0, 0x80000000);
  CHECK_STORE(i32, 4294967296.0 + 5, 5, 5);
  GiltType *i64 = int_type(ctx, 64, GILT_SIGNLESS);
  CHECK_STORE(i64, 0x1p53, 0x1p53, (uint64_t)1 << 53);
  CHECK_STORE(i64, -0x1p62, -0x1p62, (uint64_t)0xc000000000000000u);
  CHECK_STORE(i64, 0x1p63, -0x1p63, (uint64_t)1 << 63);
  CHECK_STORE(i64, 0x1p70, 0, 0);
  GiltType *ui64 = int_type(ctx, 64, GILT_UNSIGNED);
  CHECK_STORE(ui64, 0x1p63, 0x1p63, (uint64_t)1 << 63);
  CHECK_STORE(ui64, -1, 0x1p64, UINT64_MAX); /* reads back rounded */
  GiltType *index = gilt_index_type_get(ctx);
  CHECK_STORE(index, -5, -5, (uint64_t)-5);
  GiltType *i24 = int_type(ctx, 24, GILT_SIGNLESS);
  CHECK_STORE(i24, -1, -1, 0xffffffff); /* i24 extends through 4 bytes */
}

static void test_floats(GiltContext *ctx)
{
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  CHECK_STORE(f32, 0.1, (double)0.1f, 0x3dcccccd);
  CHECK_STORE(f32, 1e300, INFINITY, 0x7f800000);
  CHECK_STORE(f32, -0.0, -0.0, 0x80000000);
  GiltType *f64 = gilt_float_type_get(ctx, GILT_F64);
  CHECK_STORE(f64, 0.1, 0.1, 0x3fb999999999999au);
  GiltType *f16 = gilt_float_type_get(ctx, GILT_F16);
  CHECK_STORE(f16, 1.0, 1.0, 0x3c00);
  CHECK_STORE(f16, 65520, INFINITY, 0x7c00); /* rounds past the max */
  CHECK_STORE(f16, 1.0 + 0x1p-11, 1.0, 0x3c00); /* tie to even */
  GiltType *bf16 = gilt_float_type_get(ctx, GILT_BF16);
  CHECK_STORE(bf16, 3.14159, 3.140625, 0x4049);
  GiltType *e4m3 = gilt_float_type_get(ctx, GILT_F8E4M3FN);
  CHECK_STORE(e4m3, 448, 448, 0x7e);
  CHECK_STORE(e4m3, 1e6, NAN, 0x7f); /* no infinity: NaN, unsaturated */
  GiltType *e5m2 = gilt_float_type_get(ctx, GILT_F8E5M2);
  CHECK_STORE(e5m2, -INFINITY, -INFINITY, 0xfc);

  /* Elements are independent: neighbours keep their values. */
  int64_t shape[1] = {3};
  GiltTensor *t = gilt_tensor_create(f16, 1, shape);
  gilt_tensor_set_double(t, 1, 2.5);
  CHECK(gilt_tensor_get_double(t, 0) == 0 &&
        gilt_tensor_get_double(t, 1) == 2.5 &&
        gilt_tensor_get_double(t, 2) == 0);
  gilt_tensor_destroy(t);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  test_element_sizes(ctx);
  test_create(ctx);
  test_integers(ctx);
  test_floats(ctx);
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
