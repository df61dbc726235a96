/*
** blob_alloc.c - unit test of gilt_blob_alloc, the memory passes compute
** weights into: zeroed, 64-byte aligned, and on a page from
** GILT_WEIGHT_PAGE bytes on (where in a page ResNet-18's weights lay moved
** it by 7 to 9%: docs/performance.md); each then handed to the context
** by gilt_dense_attr_take, inline (freed at once) or as a resource (freed
** with the context), which must find the allocation's start again: under
** ASan a wrong one is an invalid free. Blobs of 2 MB or more ask for huge
** pages before they are zeroed; memory a freed blob left dirty must come
** back zeroed all the same.
*/
#include <stdint.h>

#include "test/unit/check.h"
#include "gilt/ir.h"
#include "ir/core.h"

/* A blob of n floats, checked, left all ones and handed to the context. */
static void check_blob(GiltContext *ctx, int64_t n, uintptr_t align)
{
  size_t nbytes = (size_t)n * sizeof(float);
  float *data = gilt_blob_alloc(ctx, nbytes);
  CHECK((uintptr_t)data % align == 0);
  int zeros = 1;
  for (int64_t i = 0; i < n; i++)
    zeros &= data[i] == 0.0f;
  CHECK(zeros);
  for (int64_t i = 0; i < n; i++) /* the last byte is the blob's */
    data[i] = 1.0f;
  GiltType *type = gilt_tensor_type_get(
      ctx, 1, &n, gilt_float_type_get(ctx, GILT_F32), NULL);
  CHECK(gilt_dense_attr_take(type, "blob", data, nbytes) != NULL);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  check_blob(ctx, 16, 64);                         /* inline */
  check_blob(ctx, 1000, 64);                       /* under a page */
  check_blob(ctx, GILT_WEIGHT_PAGE / 4, GILT_WEIGHT_PAGE);
  check_blob(ctx, 300001, GILT_WEIGHT_PAGE);
  check_blob(ctx, 1000003, GILT_WEIGHT_PAGE); /* huge pages asked for */
  gilt_context_destroy(ctx);
  /* The same sizes again, where the freed blobs' ones may lie. */
  ctx = gilt_context_create();
  check_blob(ctx, 300001, GILT_WEIGHT_PAGE);
  check_blob(ctx, 1000003, GILT_WEIGHT_PAGE);
  check_blob(ctx, 1000, 64);
  return check_failures != 0;
}
