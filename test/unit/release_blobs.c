/*
** release_blobs.c - unit test of gilt_context_release_blobs: a caller
** gives back the blobs it made that its module no longer refers to.
**
** What it checks is the contract in include/gilt/ir.h: only blobs made
** after the mark are candidates; one an op refers to, directly or inside
** an array or a dictionary of an op nested in a region, is kept; the rest
** go through their deleters once (again at the context's end would be a
** double free under ASan), their attributes left without data; a second
** release finds nothing more to give back.
*/
#include <stdlib.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/ir.h"
#include "gilt/register.h"

static size_t deletions;
static void *deleted_last;

static void delete_blob(void *user, void *data, size_t nbytes)
{
  (void)user, (void)nbytes;
  deletions++;
  deleted_last = data;
  free(data);
}

/* A blob of four floats named `name`, taken by the context. */
static GiltAttr *blob(GiltType *type, const char *name, float first,
                      float **bytes)
{
  float *p = malloc(4 * sizeof *p);
  for (int i = 0; i < 4; i++)
    p[i] = first + (float)i;
  *bytes = p;
  return gilt_dense_resource_attr_take(type, name, p, 4 * sizeof *p,
                                       delete_blob, NULL);
}

static const char source[] =
    "\"test.hold\"() ({\n"
    "  \"test.inner\"() {w = {deep = [dense_resource<nested> : "
    "tensor<4xf32>]}} : () -> ()\n"
    "}) {w = dense_resource<kept> : tensor<4xf32>} : () -> ()\n";

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_allow_unregistered_dialects(ctx, true);
  int64_t four = 4;
  GiltType *t4 = gilt_tensor_type_get(
      ctx, 1, &four, gilt_float_type_get(ctx, GILT_F32), NULL);
  float *old_bytes, *kept_bytes, *nested_bytes, *dropped_bytes;

  /* Made before the mark: not the caller's to give back. */
  GiltAttr *old = blob(t4, "old", 0, &old_bytes);
  size_t mark = gilt_context_get_num_blobs(ctx);
  GiltAttr *kept = blob(t4, "kept", 10, &kept_bytes);
  GiltAttr *nested = blob(t4, "nested", 20, &nested_bytes);
  GiltAttr *dropped = blob(t4, "dropped", 30, &dropped_bytes);
  CHECK(gilt_context_get_num_blobs(ctx) == mark + 3);

  GiltOp *module = gilt_parse_source(ctx, source, strlen(source), "t.gilt");
  CHECK(module != NULL);
  CHECK(gilt_context_release_blobs(ctx, mark, module) == 16);
  CHECK(deletions == 1 && deleted_last == dropped_bytes);
  size_t nbytes = 1;
  CHECK(gilt_dense_attr_get_data(dropped, &nbytes) == NULL);
  CHECK(gilt_dense_attr_get_data(kept, &nbytes) == kept_bytes &&
        nbytes == 16);
  CHECK(gilt_dense_attr_get_data(nested, &nbytes) == nested_bytes);
  CHECK(gilt_dense_attr_get_data(old, &nbytes) == old_bytes);

  /* Nothing more to give back; from the start, "old" would go. */
  CHECK(gilt_context_release_blobs(ctx, mark, module) == 0);
  CHECK(gilt_context_release_blobs(ctx, 0, module) == 16);
  CHECK(deletions == 2 && deleted_last == old_bytes);

  /* The two kept blobs go with the context, once each. */
  gilt_op_destroy(module);
  gilt_context_destroy(ctx);
  CHECK(deletions == 4);
  return check_failures != 0;
}
