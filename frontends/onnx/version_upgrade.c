/*
** version_upgrade.c - rewriting nodes of older operator sets into the
** semantics the graph dialect knows: opset 17's, or the newer version of
** an operator that the dialect has moved to (op_versions.c).
**
** One table lists every change: the op type ("*" for all), the last opset
** version that had the old form, the op the node becomes when it is
** renamed, and the rewrite. A node gets every row whose op type matches
** and whose version is at least the model's opset, in table order. The
** rewrites follow ONNX's own version converter (onnx/version_converter/
** adapters): attributes that became inputs are turned into constant
** operands (Split, Squeeze, Unsqueeze, the Reduce family, Clip, Pad, Slice,
** TopK, Reshape, Dropout, DFT), attributes that lost their meaning are
** dropped (consumed_inputs, is_test, broadcast, spatial), Upsample and
** Resize-10 become opset-11 Resize with the coordinate rules they had, and
** Softmax-family ops of opset < 13, which worked on the input flattened to
** 2-D, either keep a single axis or get that flattening spelled out.
** Where a graph op has a newer version's form (Pad-19, Resize-19,
** Cast-19, QuantizeLinear-21, DequantizeLinear-21, LpPool-18,
** AveragePool-19), older nodes are in it already, and a row only refuses
** one that uses what its opset does not have (Pad-17 with `axes`,
** LpPool-11 with `dilations`). One row looks the other way: Resize-18
** dropped the coordinate mode tf_half_pixel_for_nn, which graph.resize
** keeps for older nodes, so a row for every opset refuses it from 18 on.
** Split before opset 18 gets `num_outputs` from the node's outputs,
** Scan-8, batched, becomes a Loop over the batch around a Scan-9,
** ScatterElements and ScatterND before 18 may not reduce with max or min,
** GroupNormalization-18's per-group scale and bias become version 21's
** per-channel ones, DFT-17's `axis` attribute (default 1) always becomes
** DFT-20's axis input (default -2), and GridSample-16's modes "bilinear"
** and "bicubic" are GridSample-20's "linear" and "cubic"; RoiAlign-10's
** coordinates are RoiAlign-16's output_half_pixel.
**
** Not here: upgrades of operators gilt has no op for, and old forms no
** model in the wild uses (Upsample-1's width_scale/height_scale, Tile-1's
** axis input, Scan-8's sequence_lens); each is reported, naming the node.
*/
#include "frontends/onnx/importer.h"

#include <stdio.h>
#include <string.h>

#include "ir/core.h"

static const char *str(const char *s)
{
  return s ? s : "";
}

static GiltStatus unsupported(GiltOnnxImporter *imp, GiltOnnxNode *n,
                              const char *what)
{
  gilt_emit_error(n->loc,
                  "node '%s' (%s, opset %lld) uses %s, which gilt does not "
                  "support",
                  n->display_name, str(n->proto->op_type),
                  (long long)imp->opset, what);
  return GILT_FAILURE;
}

/* ---- helpers ------------------------------------------------------------ */

/* Whether attribute `a` (NULL when absent) has the kind ONNX's schema
** gives it. A corrupt or hand-made model may give it another: the node is
** malformed, which is reported here, naming it. */
static bool attr_kind_ok(GiltOnnxImporter *imp, GiltOnnxNode *n,
                         const char *name, GiltAttr *a, GiltAttrKind kind)
{
  if (!a || a->kind == kind)
    return true;
  static const char *const kinds[] = {[GILT_ATTR_INTEGER] = "an integer",
                                      [GILT_ATTR_FLOAT] = "a float",
                                      [GILT_ATTR_STRING] = "a string",
                                      [GILT_ATTR_ARRAY] = "a list"};
  gilt_emit_error(n->loc,
                  "node '%s' (%s, opset %lld): attribute '%s' must be %s",
                  n->display_name, str(n->proto->op_type),
                  (long long)imp->opset, name, kinds[kind]);
  return false;
}

/* Sets operand `pos`, growing the list with absent operands as needed. */
static void set_operand(GiltOnnxImporter *imp, GiltOnnxNode *n, size_t pos,
                        GiltValue *v)
{
  while (n->operands.len <= pos)
    gilt_vec_push(imp->ctx, &n->operands, (GiltValue *)NULL);
  n->operands.data[pos] = v;
}

static void insert_operand(GiltOnnxImporter *imp, GiltOnnxNode *n, size_t pos,
                           GiltValue *v)
{
  if (n->operands.len < pos) {
    set_operand(imp, n, pos, v);
    return;
  }
  gilt_vec_push(imp->ctx, &n->operands, (GiltValue *)NULL);
  memmove(&n->operands.data[pos + 1], &n->operands.data[pos],
          (n->operands.len - pos - 1) * sizeof *n->operands.data);
  n->operands.data[pos] = v;
}

/* The element type of operand `i`, NULL when it has none. */
static GiltType *operand_elem(GiltOnnxNode *n, size_t i)
{
  if (i >= n->operands.len || !n->operands.data[i])
    return NULL;
  GiltType *t = gilt_value_get_type(n->operands.data[i]);
  return gilt_type_is_shaped(t) ? gilt_shaped_type_get_element_type(t) : NULL;
}

/* The rank of operand `i`, -1 when unknown. */
static int64_t operand_rank(GiltOnnxNode *n, size_t i)
{
  if (i >= n->operands.len || !n->operands.data[i])
    return -1;
  GiltType *t = gilt_value_get_type(n->operands.data[i]);
  if (!gilt_type_is_shaped(t) || !gilt_shaped_type_has_rank(t))
    return -1;
  return (int64_t)gilt_shaped_type_get_rank(t);
}

/* An INTS attribute moved into operand `pos` as a 1-D i64 constant; a
** missing attribute leaves the operand absent. */
static GiltStatus ints_to_operand(GiltOnnxImporter *imp, GiltOnnxNode *n,
                                  const char *name, size_t pos)
{
  GiltAttr *a = gilt_onnx_node_take_attr(n, name);
  if (!a)
    return GILT_SUCCESS;
  size_t count = a->kind == GILT_ATTR_ARRAY ? gilt_array_attr_get_size(a) : 1;
  int64_t *values = gilt_calloc(imp->ctx, count ? count : 1, sizeof *values);
  for (size_t i = 0; i < count; i++) {
    GiltAttr *e = a->kind == GILT_ATTR_ARRAY ? gilt_array_attr_get_element(a, i)
                                             : a;
    if (e->kind != GILT_ATTR_INTEGER) {
      gilt_free(imp->ctx, values);
      return unsupported(imp, n, "a non-integer list attribute");
    }
    values[i] = gilt_integer_attr_get_value(e);
  }
  GiltValue *v = gilt_onnx_emit_constant(
      imp, n->loc, gilt_onnx_i64_tensor_attr(imp->ctx, count, values));
  gilt_free(imp->ctx, values);
  if (!v)
    return GILT_FAILURE;
  set_operand(imp, n, pos, v);
  return GILT_SUCCESS;
}

/* A FLOAT attribute moved into operand `pos` as a scalar of `elem`. */
static GiltStatus float_to_operand(GiltOnnxImporter *imp, GiltOnnxNode *n,
                                   const char *name, size_t pos,
                                   GiltType *elem)
{
  GiltAttr *a = gilt_onnx_node_take_attr(n, name);
  if (!a)
    return GILT_SUCCESS;
  if (!elem)
    return unsupported(imp, n, "an attribute on an input of unknown type");
  if (a->kind != GILT_ATTR_INTEGER &&
      !attr_kind_ok(imp, n, name, a, GILT_ATTR_FLOAT))
    return GILT_FAILURE;
  double value = a->kind == GILT_ATTR_FLOAT ? gilt_float_attr_get_value(a)
                                            : (double)gilt_integer_attr_get_value(a);
  GiltValue *v =
      gilt_onnx_emit_constant(imp, n->loc, gilt_onnx_scalar_attr(elem, value));
  if (!v)
    return GILT_FAILURE;
  set_operand(imp, n, pos, v);
  return GILT_SUCCESS;
}

static void drop(GiltOnnxNode *n, const char *name)
{
  (void)gilt_onnx_node_take_attr(n, name);
}

static GiltAttr *string_attr(GiltOnnxImporter *imp, const char *s)
{
  return gilt_string_attr_get(imp->ctx, s, strlen(s));
}

/* ---- the rewrites ------------------------------------------------------ */

/* consumed_inputs, an in-place hint, went away in opset 6. */
static GiltStatus drop_consumed_inputs(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  (void)imp;
  drop(n, "consumed_inputs");
  return GILT_SUCCESS;
}

/* Appends ones to operand 1's shape up to operand 0's rank, so that numpy
** broadcasting lines it up with operand 0's dims from `axis` on. */
static GiltStatus align_at_axis(GiltOnnxImporter *imp, GiltOnnxNode *n,
                                int64_t axis)
{
  int64_t rank_a = operand_rank(n, 0), rank_b = operand_rank(n, 1);
  if (rank_a < 0 || rank_b < 0)
    return unsupported(imp, n, "broadcast with an axis on unranked inputs");
  if (axis < 0)
    axis += rank_a;
  int64_t extra = rank_a - axis - rank_b;
  if (extra <= 0)
    return GILT_SUCCESS;
  int64_t axes[16];
  if (extra > 16)
    return unsupported(imp, n, "broadcast over more than 16 dimensions");
  for (int64_t i = 0; i < extra; i++)
    axes[i] = rank_b + i;
  GiltValue *ops[2] = {n->operands.data[1], NULL};
  ops[1] = gilt_onnx_emit_constant(
      imp, n->loc, gilt_onnx_i64_tensor_attr(imp->ctx, (size_t)extra, axes));
  GiltOp *unsq = ops[1] ? gilt_onnx_emit(imp, n->loc, "graph.unsqueeze", 2,
                                         ops, 0, NULL, 1, NULL)
                        : NULL;
  if (!unsq)
    return GILT_FAILURE;
  n->operands.data[1] = gilt_op_get_result(unsq, 0);
  return GILT_SUCCESS;
}

/* Opset <= 6 broadcast only when asked (broadcast = 1), B against a
** contiguous run of A's dims starting at `axis` (the trailing ones by
** default). Numpy broadcasting agrees once B has ones appended up to A's
** rank, which an Unsqueeze supplies. */
static GiltStatus legacy_broadcast(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  GiltAttr *broadcast = gilt_onnx_node_take_attr(n, "broadcast");
  GiltAttr *axis = gilt_onnx_node_take_attr(n, "axis");
  if (!attr_kind_ok(imp, n, "broadcast", broadcast, GILT_ATTR_INTEGER) ||
      !attr_kind_ok(imp, n, "axis", axis, GILT_ATTR_INTEGER))
    return GILT_FAILURE;
  if (!broadcast || !gilt_integer_attr_get_value(broadcast) || !axis ||
      n->operands.len < 2)
    return GILT_SUCCESS;
  return align_at_axis(imp, n, gilt_integer_attr_get_value(axis));
}

/* PRelu-6 and older shared a 1-D slope across the channel axis (1), where
** PRelu-7 broadcasts it against the trailing axis. */
static GiltStatus prelu_channels(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  if (n->operands.len < 2 || operand_rank(n, 1) != 1 ||
      operand_rank(n, 0) < 3)
    return GILT_SUCCESS;
  GiltType *slope = gilt_value_get_type(n->operands.data[1]);
  if (gilt_shaped_type_get_dim(slope, 0) == 1)
    return GILT_SUCCESS;
  return align_at_axis(imp, n, 1);
}

static GiltStatus drop_is_test(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  (void)imp;
  drop(n, "is_test");
  return GILT_SUCCESS;
}

/* spatial = 0 (per-activation statistics) has no opset-9 equivalent. */
static GiltStatus batch_norm_spatial(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  GiltAttr *spatial = gilt_onnx_node_take_attr(n, "spatial");
  if (spatial && spatial->kind == GILT_ATTR_INTEGER &&
      gilt_integer_attr_get_value(spatial) == 0)
    return unsupported(imp, n, "spatial = 0");
  return GILT_SUCCESS;
}

static GiltStatus dropout_ratio(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  return float_to_operand(imp, n, "ratio", 1,
                          gilt_float_type_get(imp->ctx, GILT_F32));
}

/* Resize-11's rules for what Upsample and Resize-10 computed: source
** coordinate = destination / scale, nearest rounding down. */
static GiltStatus resize_10_semantics(GiltOnnxImporter *imp,
                                      GiltOnnxNode *n)
{
  gilt_onnx_node_set_attr(imp, n, "coordinate_transformation_mode",
                          string_attr(imp, "asymmetric"));
  GiltAttr *mode = gilt_onnx_node_get_attr(n, "mode");
  if (!attr_kind_ok(imp, n, "mode", mode, GILT_ATTR_STRING))
    return GILT_FAILURE;
  const char *m = mode ? gilt_string_attr_get_value(mode, NULL) : "nearest";
  if (!strcmp(m, "nearest"))
    gilt_onnx_node_set_attr(imp, n, "nearest_mode", string_attr(imp, "floor"));
  if (!strcmp(m, "bilinear") || !strcmp(m, "trilinear"))
    gilt_onnx_node_set_attr(imp, n, "mode", string_attr(imp, "linear"));
  return GILT_SUCCESS;
}

/* Resize-10 (X, scales) -> Resize-11 (X, roi, scales). */
static GiltStatus resize_10(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  insert_operand(imp, n, 1, NULL);
  return resize_10_semantics(imp, n);
}

/* RoiAlign before 16 had no coordinate_transformation_mode: it computed
** what version 16 calls output_half_pixel, not the new default. */
static GiltStatus roi_align_before_16(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  gilt_onnx_node_set_attr(imp, n, "coordinate_transformation_mode",
                          string_attr(imp, "output_half_pixel"));
  return GILT_SUCCESS;
}

/* Upsample-7 kept scales in an attribute, Upsample-9 in an input. */
static GiltStatus upsample(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  if (gilt_onnx_node_get_attr(n, "width_scale") ||
      gilt_onnx_node_get_attr(n, "height_scale"))
    return unsupported(imp, n, "width_scale/height_scale (Upsample-1)");
  GiltAttr *scales = gilt_onnx_node_take_attr(n, "scales");
  if (!attr_kind_ok(imp, n, "scales", scales, GILT_ATTR_ARRAY))
    return GILT_FAILURE;
  for (size_t i = 0; scales && i < gilt_array_attr_get_size(scales); i++)
    if (!attr_kind_ok(imp, n, "scales",
                      gilt_array_attr_get_element(scales, i),
                      GILT_ATTR_FLOAT))
      return GILT_FAILURE;
  if (scales) {
    size_t count = gilt_array_attr_get_size(scales);
    float *values = gilt_calloc(imp->ctx, count ? count : 1, sizeof *values);
    for (size_t i = 0; i < count; i++)
      values[i] =
          (float)gilt_float_attr_get_value(gilt_array_attr_get_element(scales, i));
    int64_t dim = (int64_t)count;
    GiltType *type = gilt_tensor_type_get(
        imp->ctx, 1, &dim, gilt_float_type_get(imp->ctx, GILT_F32), NULL);
    GiltValue *v = gilt_onnx_emit_constant(
        imp, n->loc,
        gilt_dense_elements_attr_get(type, values, count * sizeof *values));
    gilt_free(imp->ctx, values);
    if (!v)
      return GILT_FAILURE;
    set_operand(imp, n, 1, v);
  }
  return resize_10(imp, n);
}

static GiltStatus split_attr(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  return ints_to_operand(imp, n, "split", 1);
}

/* Before opset 18 a Split had as many parts as the node has outputs,
** equal ones without `split`; opset 18 says how many in `num_outputs`,
** which graph.split's inference reads. */
static GiltStatus split_num_outputs(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  if (!gilt_onnx_node_get_attr(n, "num_outputs"))
    gilt_onnx_node_set_attr(
        imp, n, "num_outputs",
        gilt_integer_attr_get(gilt_integer_type_get(imp->ctx, 64, GILT_SIGNLESS),
                              (int64_t)n->proto->n_output));
  return GILT_SUCCESS;
}

/* Squeeze, Unsqueeze and ReduceSum before opset 13, the other reductions
** before 18: `axes` was an attribute. Its absence and an empty list both
** meant every axis, as no operand does now (noop_with_empty_axes, new with
** the operand, defaults to 0). */
static GiltStatus axes_attr(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  return ints_to_operand(imp, n, "axes", 1);
}

/* ScatterElements and ScatterND reduce with "max" and "min" only from
** opset 18; before, such a node is not a valid one. */
static GiltStatus scatter_reduction(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  GiltAttr *a = gilt_onnx_node_get_attr(n, "reduction");
  const char *r = a && a->kind == GILT_ATTR_STRING
                      ? gilt_string_attr_get_value(a, NULL)
                      : "none";
  if (strcmp(r, "max") && strcmp(r, "min"))
    return GILT_SUCCESS;
  gilt_emit_error(n->loc,
                  "node '%s' (%s, opset %lld) has reduction '%s', which "
                  "%s has only from opset 18",
                  n->display_name, str(n->proto->op_type),
                  (long long)imp->opset, r, str(n->proto->op_type));
  return GILT_FAILURE;
}

static GiltStatus clip_attrs(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  GiltType *elem = operand_elem(n, 0);
  GiltStatus st = float_to_operand(imp, n, "min", 1, elem);
  return st == GILT_SUCCESS ? float_to_operand(imp, n, "max", 2, elem) : st;
}

static GiltStatus pad_attrs(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  GiltAttr *paddings = gilt_onnx_node_take_attr(n, "paddings");
  if (paddings)
    gilt_onnx_node_set_attr(imp, n, "pads", paddings);
  GiltStatus st = ints_to_operand(imp, n, "pads", 1);
  return st == GILT_SUCCESS
             ? float_to_operand(imp, n, "value", 2, operand_elem(n, 0))
             : st;
}

/* A node of an older opset that uses what its operator has only from
** opset `since` on: the model is not valid ONNX, and reading it with the
** newer meaning would be a guess. */
static GiltStatus newer_only(GiltOnnxImporter *imp, GiltOnnxNode *n,
                             const char *what, int since)
{
  gilt_emit_error(n->loc,
                  "node '%s' (%s, opset %lld) uses %s, which %s has only "
                  "from opset %d on",
                  n->display_name, str(n->proto->op_type),
                  (long long)imp->opset, what, str(n->proto->op_type), since);
  return GILT_FAILURE;
}

/* Whether string attribute `name` is present and equal to `value`. */
static bool attr_is(GiltOnnxNode *n, const char *name, const char *value)
{
  GiltAttr *a = gilt_onnx_node_get_attr(n, name);
  return a && a->kind == GILT_ATTR_STRING &&
         !strcmp(gilt_string_attr_get_value(a, NULL), value);
}

/* graph.pad has Pad-19's form: Pad-18 added the `axes` input, Pad-19 the
** `wrap` mode; older nodes are in that form already unless they use
** either. */
static GiltStatus pad_before_18(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  if (n->operands.len > 3 && n->operands.data[3])
    return newer_only(imp, n, "input 'axes'", 18);
  return GILT_SUCCESS;
}

static GiltStatus pad_before_19(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  if (attr_is(n, "mode", "wrap"))
    return newer_only(imp, n, "mode 'wrap'", 19);
  return GILT_SUCCESS;
}

/* newer_only for the first of the `count` attributes `names`, all new in
** opset `since`, that the node has; success when it has none. */
static GiltStatus refuse_added_attrs(GiltOnnxImporter *imp, GiltOnnxNode *n,
                                     const char *const *names, size_t count,
                                     int since)
{
  for (size_t i = 0; i < count; i++)
    if (gilt_onnx_node_get_attr(n, names[i])) {
      char what[64];
      snprintf(what, sizeof what, "attribute '%s'", names[i]);
      return newer_only(imp, n, what, since);
    }
  return GILT_SUCCESS;
}

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* graph.resize has Resize-19's form: Resize-18 added `antialias`, `axes`
** and `keep_aspect_ratio_policy`, Resize-19 the coordinate mode
** half_pixel_symmetric. */
static GiltStatus resize_before_18(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  static const char *const added[] = {"antialias", "axes",
                                      "keep_aspect_ratio_policy"};
  return refuse_added_attrs(imp, n, added, COUNT(added), 18);
}

static GiltStatus resize_before_19(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  if (attr_is(n, "coordinate_transformation_mode", "half_pixel_symmetric"))
    return newer_only(imp, n,
                      "coordinate_transformation_mode "
                      "'half_pixel_symmetric'",
                      19);
  return GILT_SUCCESS;
}

/* Resize-11 to 17 had the coordinate mode tf_half_pixel_for_nn, which
** graph.resize keeps for them; Resize-18 dropped it. The table's rows
** apply up to an opset, so this one's row lists every opset and the
** check looks at the model's. */
static GiltStatus resize_from_18(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  if (imp->opset < 18 ||
      !attr_is(n, "coordinate_transformation_mode", "tf_half_pixel_for_nn"))
    return GILT_SUCCESS;
  gilt_emit_error(n->loc,
                  "node '%s' (Resize, opset %lld) uses "
                  "coordinate_transformation_mode 'tf_half_pixel_for_nn', "
                  "which Resize has only up to opset 17",
                  n->display_name, (long long)imp->opset);
  return GILT_FAILURE;
}

/* Split-18 sizes its parts either by a `split` input or by `num_outputs`,
** never both (the graph op takes both: older nodes get `num_outputs` from
** their outputs, split_num_outputs). */
static GiltStatus split_from_18(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  bool has_split = n->operands.len > 1 && n->operands.data[1];
  if (imp->opset < 18 || !has_split ||
      !gilt_onnx_node_get_attr(n, "num_outputs"))
    return GILT_SUCCESS;
  gilt_emit_error(n->loc,
                  "node '%s' (Split, opset %lld) has both a 'split' input "
                  "and 'num_outputs'; Split-18 takes one of them",
                  n->display_name, (long long)imp->opset);
  return GILT_FAILURE;
}

/* Cast-19 and CastLike-19 added `saturate` (which only float 8 targets
** read), and so did QuantizeLinear-19 (float 8 targets too). */
static GiltStatus saturate_before_19(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  static const char *const added[] = {"saturate"};
  return refuse_added_attrs(imp, n, added, COUNT(added), 19);
}

/* QuantizeLinear-21 and DequantizeLinear-21 added `block_size`, and
** QuantizeLinear-21 `output_dtype`. Older nodes are in version 21's form
** already. */
static GiltStatus quantize_before_21(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  static const char *const added[] = {"block_size", "output_dtype"};
  return refuse_added_attrs(imp, n, added, COUNT(added), 21);
}

/* graph.lp_pool has LpPool-18's form and graph.average_pool
** AveragePool-19's: LpPool-18 added `ceil_mode` and `dilations`,
** AveragePool-19 `dilations`; older nodes without them are in that form
** already. */
static GiltStatus lp_pool_before_18(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  static const char *const added[] = {"ceil_mode", "dilations"};
  return refuse_added_attrs(imp, n, added, COUNT(added), 18);
}

static GiltStatus average_pool_before_19(GiltOnnxImporter *imp,
                                         GiltOnnxNode *n)
{
  static const char *const added[] = {"dilations"};
  return refuse_added_attrs(imp, n, added, COUNT(added), 19);
}

static GiltStatus slice_attrs(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  GiltStatus st = ints_to_operand(imp, n, "starts", 1);
  if (st == GILT_SUCCESS)
    st = ints_to_operand(imp, n, "ends", 2);
  if (st == GILT_SUCCESS)
    st = ints_to_operand(imp, n, "axes", 3);
  return st;
}

static GiltStatus topk_k(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  GiltAttr *k = gilt_onnx_node_take_attr(n, "k");
  if (!k)
    return GILT_SUCCESS;
  if (!attr_kind_ok(imp, n, "k", k, GILT_ATTR_INTEGER))
    return GILT_FAILURE;
  int64_t value = gilt_integer_attr_get_value(k);
  GiltValue *v = gilt_onnx_emit_constant(
      imp, n->loc, gilt_onnx_i64_tensor_attr(imp->ctx, 1, &value));
  if (!v)
    return GILT_FAILURE;
  set_operand(imp, n, 1, v);
  return GILT_SUCCESS;
}

static GiltStatus reshape_shape(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  return ints_to_operand(imp, n, "shape", 1);
}

/* Concat-1's axis was optional, defaulting to 1. */
static GiltStatus concat_axis(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  if (!gilt_onnx_node_get_attr(n, "axis"))
    gilt_onnx_node_set_attr(
        imp, n, "axis",
        gilt_integer_attr_get(gilt_integer_type_get(imp->ctx, 64, GILT_SIGNLESS),
                              1));
  return GILT_SUCCESS;
}

/* Cast-1 named the target type by string ("FLOAT"). */
static GiltStatus cast_to(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  GiltAttr *to = gilt_onnx_node_get_attr(n, "to");
  if (!to || to->kind != GILT_ATTR_STRING)
    return GILT_SUCCESS;
  const char *name = gilt_string_attr_get_value(to, NULL);
  for (int32_t dt = 1; dt < 32; dt++)
    if (!strcmp(gilt_onnx_data_type_name(dt), name)) {
      gilt_onnx_node_set_attr(
          imp, n, "to",
          gilt_integer_attr_get(
              gilt_integer_type_get(imp->ctx, 64, GILT_SIGNLESS), dt));
      return GILT_SUCCESS;
    }
  return unsupported(imp, n, "an unknown 'to' type name");
}

/* Before opset 13, Softmax, LogSoftmax and Hardmax flattened the input to
** 2-D at `axis` (default 1) and worked on each row. When that axis is the
** last one the two agree; otherwise the flattening is spelled out:
** flatten, the op on the last axis, and a reshape back to the input's
** shape. */
static GiltStatus softmax_axis(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  GiltType *i64 = gilt_integer_type_get(imp->ctx, 64, GILT_SIGNLESS);
  GiltAttr *axis_attr = gilt_onnx_node_take_attr(n, "axis");
  if (!attr_kind_ok(imp, n, "axis", axis_attr, GILT_ATTR_INTEGER))
    return GILT_FAILURE;
  int64_t axis = axis_attr ? gilt_integer_attr_get_value(axis_attr) : 1;
  int64_t rank = operand_rank(n, 0);
  if (rank < 0)
    return unsupported(imp, n, "an input of unknown rank (opset < 13 "
                               "flattens it at 'axis')");
  if (axis < 0)
    axis += rank;
  if (axis == rank - 1 || rank == 0) {
    gilt_onnx_node_set_attr(imp, n, "axis", gilt_integer_attr_get(i64, -1));
    return GILT_SUCCESS;
  }
  GiltValue *x = n->operands.data[0];
  GiltNamedAttr flat_axis = {"axis", gilt_integer_attr_get(i64, axis)};
  GiltOp *flat = gilt_onnx_emit(imp, n->loc, "graph.flatten", 1, &x, 1,
                                &flat_axis, 1, NULL);
  if (!flat)
    return GILT_FAILURE;
  GiltValue *flat_v = gilt_op_get_result(flat, 0);
  GiltNamedAttr last = {"axis", gilt_integer_attr_get(i64, -1)};
  GiltOp *op = gilt_onnx_emit(imp, n->loc, n->op_name, 1, &flat_v, 1, &last,
                              1, NULL);
  GiltOp *shape =
      op ? gilt_onnx_emit(imp, n->loc, "graph.shape", 1, &x, 0, NULL, 1, NULL)
         : NULL;
  if (!shape)
    return GILT_FAILURE;
  GiltValue *ops[2] = {gilt_op_get_result(op, 0), gilt_op_get_result(shape, 0)};
  GiltType *type = gilt_value_get_type(x);
  GiltOp *back =
      gilt_onnx_emit(imp, n->loc, "graph.reshape", 2, ops, 0, NULL, 1, &type);
  if (!back)
    return GILT_FAILURE;
  n->results = gilt_calloc(imp->ctx, 1, sizeof *n->results);
  n->results[0] = gilt_op_get_result(back, 0);
  return GILT_SUCCESS;
}

static GiltStatus tile_1(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  return unsupported(imp, n, "Tile-1's axis input");
}

/* Scan-8 gave every input and output a leading batch axis and took an
** optional `sequence_lens` first. Per batch element it computed what
** Scan-9 computes on that element's slices, so without sequence_lens it
** becomes a graph.loop over the batch: each iteration gathers the slices
** of every operand and runs a graph.scan on them, and the loop stacks the
** iterations' results (final states, scan outputs) along a new leading
** axis, the batch axis again. A single scan over axis 1 is not the same:
** its body would see the states with their batch axis. sequence_lens
** gives the batch elements scans of different lengths, with the outputs
** past a length undefined; nothing in gilt says that, so it is reported. */

static GiltType *scalar_type(GiltOnnxImporter *imp, int32_t data_type)
{
  return gilt_tensor_type_get(
      imp->ctx, 0, NULL, gilt_onnx_element_type_get(imp->ctx, data_type),
      NULL);
}

/* `t` with a dimension of size `dim` in front. */
static GiltType *batched(GiltContext *ctx, GiltType *t, int64_t dim)
{
  if (!gilt_type_is_shaped(t) || !gilt_shaped_type_has_rank(t) ||
      gilt_shaped_type_get_rank(t) >= 64)
    return gilt_unranked_tensor_type_get(ctx,
                                         gilt_shaped_type_get_element_type(t));
  size_t rank = gilt_shaped_type_get_rank(t);
  int64_t dims[64] = {dim};
  for (size_t d = 0; d < rank; d++)
    dims[d + 1] = gilt_shaped_type_get_dim(t, d);
  return gilt_tensor_type_get(ctx, rank + 1, dims,
                              gilt_shaped_type_get_element_type(t), NULL);
}

/* The batch size, dimension 0 of the first operand, as a scalar. */
static GiltValue *batch_size(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  GiltType *i64 = gilt_integer_type_get(imp->ctx, 64, GILT_SIGNLESS);
  GiltValue *ops[2] = {
      NULL, gilt_onnx_emit_constant(imp, n->loc, gilt_onnx_scalar_attr(i64, 0))};
  GiltOp *shape = ops[1] ? gilt_onnx_emit(imp, n->loc, "graph.shape", 1,
                                          n->operands.data, 0, NULL, 1, NULL)
                         : NULL;
  if (!shape)
    return NULL;
  ops[0] = gilt_op_get_result(shape, 0);
  GiltOp *dim =
      gilt_onnx_emit(imp, n->loc, "graph.gather", 2, ops, 0, NULL, 1, NULL);
  return dim ? gilt_op_get_result(dim, 0) : NULL;
}

/* Fills the loop body `body` (at whose end the builder stands): the
** operands' slices at the iteration number (its first argument), the
** Scan-9 op on them, the yield. Returns the scan op or NULL after
** reporting. */
static GiltOp *scan_batch_element(GiltOnnxImporter *imp, GiltOnnxNode *n,
                                  GiltBlock *body)
{
  for (size_t i = 0; i < n->operands.len; i++) {
    GiltValue *ops[2] = {n->operands.data[i],
                         gilt_block_get_argument(body, 0)};
    GiltOp *slice =
        gilt_onnx_emit(imp, n->loc, "graph.gather", 2, ops, 0, NULL, 1, NULL);
    if (!slice)
      return NULL;
    n->operands.data[i] = gilt_op_get_result(slice, 0);
  }
  GiltOp *scan = gilt_onnx_build_op(imp, n, false);
  if (!scan)
    return NULL;
  size_t num = gilt_op_get_num_results(scan);
  GiltValue **outs = gilt_calloc(imp->ctx, num + 1, sizeof *outs);
  outs[0] = gilt_block_get_argument(body, 1);
  for (size_t i = 0; i < num; i++)
    outs[i + 1] = gilt_op_get_result(scan, i);
  GiltOp *y = gilt_onnx_emit(imp, n->loc, "graph.yield", num + 1, outs, 0,
                             NULL, 0, NULL);
  gilt_free(imp->ctx, outs);
  return y ? scan : NULL;
}

/* The graph.loop running `body`, which ends in `scan`, `count` times;
** `batch` is count's value when static. It takes the block. */
static GiltOp *batch_loop(GiltOnnxImporter *imp, GiltOnnxNode *n,
                          GiltValue *count, int64_t batch, GiltOp *scan,
                          GiltBlock *body)
{
  GiltContext *ctx = imp->ctx;
  GiltType *none_type = gilt_none_type_get(ctx);
  GiltOp *none =
      gilt_onnx_emit(imp, n->loc, "graph.none", 0, NULL, 0, NULL, 1, &none_type);
  if (!none) {
    gilt_block_destroy(body);
    return NULL;
  }
  size_t num = gilt_op_get_num_results(scan);
  GiltType **types = gilt_calloc(ctx, num + 1, sizeof *types);
  for (size_t i = 0; i < num; i++)
    types[i] = batched(ctx, gilt_value_get_type(gilt_op_get_result(scan, i)),
                       batch);
  GiltValue *ops[2] = {count, gilt_op_get_result(none, 0)};
  GiltOpState st = gilt_op_state_get("graph.loop", n->loc);
  st.num_operands = 2;
  st.operands = ops;
  st.num_results = num;
  st.result_types = types;
  st.num_regions = 1;
  GiltOp *loop = gilt_builder_create_op(imp->b, &st);
  gilt_free(ctx, types);
  if (loop)
    gilt_region_append_block(gilt_op_get_region(loop, 0), body);
  else
    gilt_block_destroy(body);
  return loop;
}

static GiltStatus scan_8(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  if (n->operands.len && n->operands.data[0])
    return unsupported(imp, n, "Scan-8's sequence_lens input");
  if (n->operands.len < 2)
    return unsupported(imp, n, "a Scan without inputs");
  n->operands.len--;
  memmove(n->operands.data, n->operands.data + 1,
          n->operands.len * sizeof *n->operands.data);
  for (size_t i = 0; i < n->operands.len; i++)
    if (!n->operands.data[i])
      return unsupported(imp, n, "an absent state or scan input");
  GiltAttr *directions = gilt_onnx_node_take_attr(n, "directions");
  if (directions)
    gilt_onnx_node_set_attr(imp, n, "scan_input_directions", directions);
  GiltType *first = gilt_value_get_type(n->operands.data[0]);
  int64_t batch = gilt_type_is_shaped(first) &&
                          gilt_shaped_type_has_rank(first) &&
                          gilt_shaped_type_get_rank(first) > 0
                      ? gilt_shaped_type_get_dim(first, 0)
                      : GILT_DYNAMIC;
  GiltValue *count = batch_size(imp, n);
  if (!count)
    return GILT_FAILURE;
  GiltType *args[2] = {
      scalar_type(imp, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__INT64),
      scalar_type(imp, GILT__ONNX__TENSOR_PROTO__DATA_TYPE__BOOL)};
  GiltBlock *body = gilt_block_create(imp->ctx, 2, args, NULL);
  GiltBlock *outer = gilt_builder_get_insertion_block(imp->b);
  gilt_builder_set_insertion_point_to_end(imp->b, body);
  GiltOp *scan = scan_batch_element(imp, n, body);
  gilt_builder_set_insertion_point_to_end(imp->b, outer);
  if (!scan) {
    gilt_block_destroy(body);
    return GILT_FAILURE;
  }
  GiltOp *loop = batch_loop(imp, n, count, batch, scan, body);
  if (!loop)
    return GILT_FAILURE;
  n->results = gilt_calloc(imp->ctx, n->num_outputs + 1, sizeof *n->results);
  for (size_t i = 0; i < n->num_outputs; i++)
    n->results[i] = gilt_op_get_result(loop, i);
  return GILT_SUCCESS;
}

/* GroupNormalization-18 took scale and bias per group and computed its
** statistics in X's own type; version 21 takes them per channel, in
** `stash_type`. Exactly the same: each group's entry repeated over its
** C / num_groups channels (Unsqueeze, Expand, Reshape), and stash_type
** set to X's element type. */
static GiltValue *per_channel(GiltOnnxImporter *imp, GiltOnnxNode *n,
                              GiltValue *v, int64_t groups, int64_t c)
{
  int64_t one = 1, wide[2] = {groups, c / groups};
  GiltValue *ops[2] = {v, gilt_onnx_emit_constant(
                              imp, n->loc,
                              gilt_onnx_i64_tensor_attr(imp->ctx, 1, &one))};
  GiltOp *op = ops[1] ? gilt_onnx_emit(imp, n->loc, "graph.unsqueeze", 2, ops,
                                       0, NULL, 1, NULL)
                      : NULL;
  if (!op)
    return NULL;
  ops[0] = gilt_op_get_result(op, 0);
  ops[1] = gilt_onnx_emit_constant(imp, n->loc,
                                   gilt_onnx_i64_tensor_attr(imp->ctx, 2, wide));
  op = ops[1] ? gilt_onnx_emit(imp, n->loc, "graph.expand", 2, ops, 0, NULL, 1,
                               NULL)
              : NULL;
  if (!op)
    return NULL;
  ops[0] = gilt_op_get_result(op, 0);
  ops[1] = gilt_onnx_emit_constant(imp, n->loc,
                                   gilt_onnx_i64_tensor_attr(imp->ctx, 1, &c));
  op = ops[1] ? gilt_onnx_emit(imp, n->loc, "graph.reshape", 2, ops, 0, NULL,
                               1, NULL)
              : NULL;
  return op ? gilt_op_get_result(op, 0) : NULL;
}

static GiltStatus group_norm_18(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  GiltType *elem = operand_elem(n, 0);
  GiltAttr *groups_attr = gilt_onnx_node_get_attr(n, "num_groups");
  /* Checked here, not left to the verifier: what it would see is the
  ** rewritten node, and it would blame the per-channel scale. */
  if (!attr_kind_ok(imp, n, "num_groups", groups_attr, GILT_ATTR_INTEGER))
    return GILT_FAILURE;
  int64_t rank = operand_rank(n, 0);
  if (rank >= 0 && rank < 2) {
    gilt_emit_error(n->loc,
                    "node '%s' (GroupNormalization, opset %lld): input 'X' "
                    "has rank %lld; it needs at least 2 (batch and channels)",
                    n->display_name, (long long)imp->opset, (long long)rank);
    return GILT_FAILURE;
  }
  if (!elem || elem->kind != GILT_TYPE_FLOAT || !groups_attr ||
      n->operands.len != 3 || !n->operands.data[1] || !n->operands.data[2])
    return GILT_SUCCESS; /* the verifier names what is wrong */
  gilt_onnx_node_set_attr(
      imp, n, "stash_type",
      gilt_integer_attr_get(gilt_integer_type_get(imp->ctx, 64, GILT_SIGNLESS),
                            gilt_onnx_data_type_of(elem)));
  int64_t groups = gilt_integer_attr_get_value(groups_attr);
  GiltType *x = gilt_value_get_type(n->operands.data[0]);
  int64_t c = rank >= 2 ? gilt_shaped_type_get_dim(x, 1) : GILT_DYNAMIC;
  if (c == GILT_DYNAMIC)
    return unsupported(imp, n, "per-group scale and bias with a channel "
                       "count unknown at import");
  if (groups <= 0 || c % groups)
    return GILT_SUCCESS; /* the verifier reports num_groups */
  if (groups == c)
    return GILT_SUCCESS;
  for (size_t i = 1; i < 3; i++) {
    GiltType *t = gilt_value_get_type(n->operands.data[i]);
    int64_t len = operand_rank(n, i) == 1 ? gilt_shaped_type_get_dim(t, 0)
                                          : GILT_DYNAMIC;
    if (len != GILT_DYNAMIC && len != groups) {
      gilt_emit_error(n->loc, "node '%s' (GroupNormalization, opset %lld): "
                      "input '%s' has %lld entries, not one per group (%lld)",
                      n->display_name, (long long)imp->opset,
                      i == 1 ? "scale" : "bias", (long long)len,
                      (long long)groups);
      return GILT_FAILURE;
    }
    GiltValue *v = per_channel(imp, n, n->operands.data[i], groups, c);
    if (!v)
      return GILT_FAILURE;
    n->operands.data[i] = v;
  }
  return GILT_SUCCESS;
}

/* DFT-17's `axis` attribute is DFT-20's third input, counted the same way
** (over the whole rank, the complex dimension included); its default was
** 1, where an absent input means -2, so the node always gets the constant.
** (ONNX's version converter moves it the same way.) */
static GiltStatus dft_axis(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  GiltAttr *a = gilt_onnx_node_take_attr(n, "axis");
  if (!attr_kind_ok(imp, n, "axis", a, GILT_ATTR_INTEGER))
    return GILT_FAILURE;
  int64_t axis = a ? gilt_integer_attr_get_value(a) : 1;
  GiltValue *v = gilt_onnx_emit_constant(
      imp, n->loc,
      gilt_onnx_scalar_attr(gilt_integer_type_get(imp->ctx, 64, GILT_SIGNLESS),
                            (double)axis));
  if (!v)
    return GILT_FAILURE;
  set_operand(imp, n, 2, v);
  return GILT_SUCCESS;
}

/* GridSample-16 sampled 4-D inputs only, with modes "bilinear" and
** "bicubic"; version 20 calls them "linear" and "cubic" (N-linear and
** N-cubic in N spatial dimensions) and keeps "nearest", as ONNX's version
** converter renames them. An absent mode meant bilinear, 20's default. */
static GiltStatus grid_sample_16(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  int64_t rank = operand_rank(n, 0);
  if (rank >= 0 && rank != 4)
    return newer_only(imp, n, "an input that is not 4-D", 20);
  if (attr_is(n, "mode", "linear") || attr_is(n, "mode", "cubic"))
    return newer_only(imp, n, "mode 'linear' or 'cubic'", 20);
  if (attr_is(n, "mode", "bilinear"))
    gilt_onnx_node_set_attr(imp, n, "mode", string_attr(imp, "linear"));
  else if (attr_is(n, "mode", "bicubic"))
    gilt_onnx_node_set_attr(imp, n, "mode", string_attr(imp, "cubic"));
  return GILT_SUCCESS;
}

/* ---- the table --------------------------------------------------------- */

typedef GiltStatus (*UpgradeFn)(GiltOnnxImporter *imp, GiltOnnxNode *n);

/* A row applies to models whose opset is at most `last_version`: the last
** version with the old form (the new form came in the next one). A row
** that refuses what an operator dropped applies from an opset on instead:
** its `last_version` is EVERY_OPSET and its function checks the opset. */
#define EVERY_OPSET INT64_MAX

static const struct {
  const char *op_type; /* "*" for every op */
  int64_t last_version;
  const char *op_name; /* what the node becomes, NULL: its own op */
  UpgradeFn upgrade;
} upgrades[] = {
    {"*", 5, NULL, drop_consumed_inputs},
    {"Add", 6, NULL, legacy_broadcast},
    {"Sub", 6, NULL, legacy_broadcast},
    {"Mul", 6, NULL, legacy_broadcast},
    {"Div", 6, NULL, legacy_broadcast},
    {"Pow", 6, NULL, legacy_broadcast},
    {"And", 6, NULL, legacy_broadcast},
    {"Or", 6, NULL, legacy_broadcast},
    {"Xor", 6, NULL, legacy_broadcast},
    {"Equal", 6, NULL, legacy_broadcast},
    {"Greater", 6, NULL, legacy_broadcast},
    {"Less", 6, NULL, legacy_broadcast},
    {"PRelu", 6, NULL, prelu_channels},
    {"Gemm", 6, NULL, legacy_broadcast},
    {"BatchNormalization", 6, NULL, drop_is_test},
    {"BatchNormalization", 8, NULL, batch_norm_spatial},
    {"Dropout", 6, NULL, drop_is_test},
    {"Dropout", 11, NULL, dropout_ratio},
    {"Upsample", 17, "graph.resize", upsample},
    {"Resize", 10, NULL, resize_10},
    {"RoiAlign", 15, NULL, roi_align_before_16},
    {"Resize", 17, NULL, resize_before_18},
    {"Resize", 18, NULL, resize_before_19},
    {"Resize", EVERY_OPSET, NULL, resize_from_18},
    {"Split", 12, NULL, split_attr},
    {"Split", 17, NULL, split_num_outputs},
    {"Split", EVERY_OPSET, NULL, split_from_18},
    {"Squeeze", 12, NULL, axes_attr},
    {"Unsqueeze", 12, NULL, axes_attr},
    {"ReduceSum", 12, NULL, axes_attr},
    {"ReduceL1", 17, NULL, axes_attr},
    {"ReduceL2", 17, NULL, axes_attr},
    {"ReduceLogSum", 17, NULL, axes_attr},
    {"ReduceLogSumExp", 17, NULL, axes_attr},
    {"ReduceMax", 17, NULL, axes_attr},
    {"ReduceMean", 17, NULL, axes_attr},
    {"ReduceMin", 17, NULL, axes_attr},
    {"ReduceProd", 17, NULL, axes_attr},
    {"ReduceSumSquare", 17, NULL, axes_attr},
    {"ScatterElements", 17, NULL, scatter_reduction},
    {"ScatterND", 17, NULL, scatter_reduction},
    {"Clip", 10, NULL, clip_attrs},
    {"Pad", 10, NULL, pad_attrs},
    {"Pad", 17, NULL, pad_before_18},
    {"Pad", 18, NULL, pad_before_19},
    {"Slice", 9, NULL, slice_attrs},
    {"TopK", 9, NULL, topk_k},
    {"Reshape", 4, NULL, reshape_shape},
    {"Concat", 3, NULL, concat_axis},
    {"Cast", 5, NULL, cast_to},
    {"Cast", 18, NULL, saturate_before_19},
    {"CastLike", 18, NULL, saturate_before_19},
    {"QuantizeLinear", 18, NULL, saturate_before_19},
    {"QuantizeLinear", 20, NULL, quantize_before_21},
    {"DequantizeLinear", 20, NULL, quantize_before_21},
    {"Softmax", 12, NULL, softmax_axis},
    {"LogSoftmax", 12, NULL, softmax_axis},
    {"Hardmax", 12, NULL, softmax_axis},
    {"Tile", 5, NULL, tile_1},
    {"Scan", 8, NULL, scan_8},
    {"LpPool", 17, NULL, lp_pool_before_18},
    {"AveragePool", 18, NULL, average_pool_before_19},
    {"GroupNormalization", 20, NULL, group_norm_18},
    {"DFT", 19, NULL, dft_axis},
    {"GridSample", 19, NULL, grid_sample_16},
};

#define NUM_UPGRADES (sizeof upgrades / sizeof *upgrades)

static bool applies(size_t row, const char *op_type, int64_t opset)
{
  return opset <= upgrades[row].last_version &&
         (!strcmp(upgrades[row].op_type, "*") ||
          !strcmp(upgrades[row].op_type, op_type));
}

const char *gilt_onnx_upgraded_op_name(const char *op_type, int64_t opset)
{
  for (size_t i = 0; i < NUM_UPGRADES; i++)
    if (upgrades[i].op_name && applies(i, op_type, opset))
      return upgrades[i].op_name;
  return NULL;
}

GiltStatus gilt_onnx_upgrade_node(GiltOnnxImporter *imp, GiltOnnxNode *n)
{
  const char *op_type = str(n->proto->op_type);
  for (size_t i = 0; i < NUM_UPGRADES && !n->results; i++)
    if (applies(i, op_type, imp->opset) &&
        upgrades[i].upgrade(imp, n) != GILT_SUCCESS)
      return GILT_FAILURE;
  return GILT_SUCCESS;
}
