/*
** resource_take.c - unit test of gilt_dense_resource_attr_take, the
** public call that hands a blob's bytes to the context with a deleter.
**
** What it checks is the ownership contract in include/gilt/ir.h: the
** deleter runs exactly once in every outcome (the blob kept until the
** context goes, a name already holding the same bytes, a bad type or
** size), the bytes are used in place rather than copied, and a NULL
** deleter leaves them alone. Every buffer comes from malloc, so a second
** call of a deleter would be a double free under ASan, and a missing one
** a leak under LSan.
*/
#include <stdlib.h>
#include <string.h>

#include "test/unit/check.h"
#include "gilt/ir.h"
#include "gilt/register.h"

static size_t errors_seen, deletions;
static void *deleted_last;

static void count_errors(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) == GILT_SEVERITY_ERROR)
    errors_seen++;
}

/* Frees the buffer and counts; `user` is the expected size. */
static void delete_blob(void *user, void *data, size_t nbytes)
{
  CHECK((size_t)(uintptr_t)user == nbytes);
  deletions++;
  deleted_last = data;
  free(data);
}

static float *floats(size_t n, float first)
{
  float *p = malloc(n * sizeof *p);
  for (size_t i = 0; i < n; i++)
    p[i] = first + (float)i;
  return p;
}

static GiltAttr *take(GiltType *type, const char *name, float *data,
                      size_t nbytes)
{
  return gilt_dense_resource_attr_take(type, name, data, nbytes, delete_blob,
                                       (void *)(uintptr_t)nbytes);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  gilt_context_set_diagnostic_handler(ctx, count_errors, NULL);
  GiltType *f32 = gilt_float_type_get(ctx, GILT_F32);
  int64_t four = 4, dyn = GILT_DYNAMIC;
  GiltType *t4 = gilt_tensor_type_get(ctx, 1, &four, f32, NULL);

  /* Kept: used in place, deleted only with the context. */
  float *w = floats(4, 1);
  GiltAttr *a = take(t4, "w", w, 16);
  CHECK(a && gilt_attr_get_kind(a) == GILT_ATTR_DENSE_RESOURCE);
  size_t nbytes = 0;
  CHECK(gilt_dense_attr_get_data(a, &nbytes) == w && nbytes == 16);
  CHECK(deletions == 0);

  /* The same name and bytes: the existing blob, the new bytes go now. */
  float *again = floats(4, 1);
  CHECK(take(t4, "w", again, 16) == a);
  CHECK(deletions == 1 && deleted_last == again);

  /* The same name, other bytes: a fresh name, kept. */
  float *other = floats(4, 10);
  GiltAttr *b = take(t4, "w", other, 16);
  CHECK(b && b != a && gilt_dense_attr_get_data(b, &nbytes) == other);
  CHECK(deletions == 1);

  /* Failures consume the bytes too, and report. */
  float *short_data = floats(3, 0);
  CHECK(take(t4, "bad", short_data, 12) == NULL);
  CHECK(deletions == 2 && deleted_last == short_data && errors_seen == 1);
  GiltType *dynamic = gilt_tensor_type_get(ctx, 1, &dyn, f32, NULL);
  float *unshaped = floats(4, 0);
  CHECK(take(dynamic, "bad", unshaped, 16) == NULL);
  CHECK(deletions == 3 && deleted_last == unshaped && errors_seen == 2);

  /* No deleter: the bytes stay the caller's, even on failure. */
  static const float fixed[4] = {7, 8, 9, 10};
  GiltAttr *c = gilt_dense_resource_attr_take(t4, "fixed", (void *)fixed, 16,
                                              NULL, NULL);
  CHECK(c && gilt_dense_attr_get_data(c, &nbytes) == fixed);
  CHECK(!gilt_dense_resource_attr_take(t4, "fixed", (void *)fixed, 8, NULL,
                                       NULL));
  CHECK(errors_seen == 3);

  /* gilt_dense_resource_attr_get copies, and finds the taken blob. */
  float copy[4] = {1, 2, 3, 4};
  CHECK(gilt_dense_resource_attr_get(t4, "w", copy, 16) == a);

  /* The two kept blobs go with the context, once each. */
  CHECK(deletions == 3);
  gilt_context_destroy(ctx);
  CHECK(deletions == 5);
  return check_failures != 0;
}
