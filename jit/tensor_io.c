/*
** tensor_io.c - what a tensor spec names (tensor_io.h): a file by its
** extension, or inline text; where a result goes; and ONNX TensorProto
** files, read through the ONNX frontend's reader.
**
** A .pb file is decoded by frontends/onnx/model_reader.h, which already
** handles every way ONNX stores a payload (raw_data, the typed fields,
** external data), checks sizes against the dims and reports in the
** frontend's words; this file only copies the resolved elements into an
** aligned tensor, the two layouts being the same by construction (both
** store bool as a byte and int4 unpacked). It does not write .pb files:
** iree-run-module does not either, and .npy is what every tool reads.
*/
#include "jit/tensor_io.h"

#include <string.h>

#include "frontends/onnx/model_reader.h"

static bool has_suffix(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

GiltTensor *gilt_tensor_read_onnx(GiltContext *ctx, const char *path)
{
  GiltOnnxReader *r = gilt_onnx_reader_open_tensor(ctx, path);
  if (!r)
    return NULL;
  GiltOnnxTensor ot;
  GiltTensor *t = NULL;
  if (gilt_onnx_reader_resolve_tensor(r, gilt_onnx_reader_get_tensor_proto(r),
                                      NULL, &ot) == GILT_SUCCESS) {
    GiltLocation *loc = gilt_location_name_get(ctx, path, NULL);
    if (!ot.elem_type ||
        gilt_tensor_element_size(ot.elem_type) != ot.elem_size)
      gilt_emit_error(loc, "element type %s is stored in a way gilt's "
                      "tensors do not hold",
                      gilt_onnx_data_type_name(ot.data_type));
    else if (!(t = gilt_tensor_create(ot.elem_type, ot.rank, ot.dims)))
      gilt_emit_error(loc, "the tensor is too large to allocate");
    else if (ot.nbytes)
      memcpy(gilt_tensor_get_data(t), ot.data, ot.nbytes);
  }
  gilt_onnx_reader_destroy(r);
  return t;
}

GiltTensor *gilt_tensor_read_spec(GiltContext *ctx, const char *spec,
                                  const char *name)
{
  if (spec[0] != '@')
    return gilt_tensor_parse_text(ctx, spec, name);
  const char *path = spec + 1;
  if (has_suffix(path, ".npy"))
    return gilt_tensor_read_npy(ctx, path);
  if (has_suffix(path, ".pb"))
    return gilt_tensor_read_onnx(ctx, path);
  gilt_emit_error(gilt_location_name_get(ctx, *path ? path : spec, NULL),
                  "expected a .npy or .pb file (a NumPy array or an ONNX "
                  "TensorProto)");
  return NULL;
}

bool gilt_tensor_spec_is_writable(const char *spec)
{
  return !strcmp(spec, "-") || (spec[0] == '@' && has_suffix(spec + 1, ".npy"));
}

GiltStatus gilt_tensor_write_spec(GiltContext *ctx, const GiltTensor *t,
                                  const char *spec, GiltStringCallback cb,
                                  void *user)
{
  if (!strcmp(spec, "-")) {
    gilt_tensor_print(t, GILT_TENSOR_PRINT_LIMIT, cb, user);
    cb("\n", 1, user);
    return GILT_SUCCESS;
  }
  if (gilt_tensor_spec_is_writable(spec))
    return gilt_tensor_write_npy(ctx, t, spec + 1);
  gilt_emit_error(gilt_location_name_get(ctx, spec, NULL),
                  "expected '-' (print) or @FILE.npy as where a tensor "
                  "goes");
  return GILT_FAILURE;
}
