"""cases_tensor.py - models at opsets 18 to 21 of the tensor operators
whose definitions changed after opset 17: the versions that only added
element types gilt has no type for (float 8 at 19, int4 and uint4 at 21),
which import as the older ones do; Pad-18's `axes` input, Pad-19's `wrap`
mode; Resize-18's `axes`, `antialias` and `keep_aspect_ratio_policy`,
Resize-19's half_pixel_symmetric; Cast and CastLike with `saturate`.
gen.py says how cases are written."""
import numpy as np
from onnx import TensorProto, helper

from gen import case, rand

F = TensorProto.FLOAT
I64 = TensorProto.INT64

# Type-only bumps: Identity, Reshape, Shape, Size, Constant (19 and 21),
# Flatten, Squeeze, Transpose, Unsqueeze (21).
for opset in (19, 21):
    case("reshape_shape_size_opset%d" % opset, opset,
         [helper.make_node("Identity", ["x"], ["i"]),
          helper.make_node("Constant", [], ["s"],
                           value=helper.make_tensor("s", I64, [2], [4, 6])),
          helper.make_node("Reshape", ["i", "s"], ["r"]),
          helper.make_node("Shape", ["r"], ["shape"], start=-1),
          helper.make_node("Size", ["r"], ["size"])],
         {"x": rand(2, 3, 4)},
         [("r", F), ("shape", I64), ("size", I64)])
case("flatten_squeeze_transpose_opset21", 21,
     [helper.make_node("Unsqueeze", ["x", "ax"], ["u"]),
      helper.make_node("Transpose", ["u"], ["t"], perm=[1, 0, 2, 3]),
      helper.make_node("Squeeze", ["t", "ax0"], ["q"]),
      helper.make_node("Flatten", ["q"], ["y"], axis=2)],
     {"x": rand(2, 3, 4)},
     [("y", F)],
     {"ax": np.array([1], dtype=np.int64),
      "ax0": np.array([0], dtype=np.int64)})

# If, Loop and Scan (19 and 21) around the same small bodies.
for opset in (19, 21):
    then = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["t"])], "then", [],
        [helper.make_tensor_value_info("t", F, [2, 3])])
    other = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e"])], "else", [],
        [helper.make_tensor_value_info("e", F, [2, 3])])
    loop_body = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Add", ["acc", "x"], ["acc_out"])],
        "loop_body",
        [helper.make_tensor_value_info("i", I64, []),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc", F, [2, 3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", F, [2, 3])])
    scan_body = helper.make_graph(
        [helper.make_node("Add", ["sum", "row"], ["sum_out"]),
         helper.make_node("Identity", ["sum_out"], ["row_out"])],
        "scan_body",
        [helper.make_tensor_value_info("sum", F, [3]),
         helper.make_tensor_value_info("row", F, [3])],
        [helper.make_tensor_value_info("sum_out", F, [3]),
         helper.make_tensor_value_info("row_out", F, [3])])
    case("if_loop_scan_opset%d" % opset, opset,
         [helper.make_node("If", ["c"], ["if_y"], then_branch=then,
                           else_branch=other),
          helper.make_node("Loop", ["n", "", "x"], ["loop_y"],
                           body=loop_body),
          helper.make_node("Scan", ["zero", "x"], ["scan_sum", "scan_y"],
                           body=scan_body, num_scan_inputs=1)],
         {"x": rand(2, 3), "c": np.array(True)},
         [("if_y", F), ("loop_y", F), ("scan_sum", F), ("scan_y", F)],
         {"n": np.array(3, dtype=np.int64),
          "zero": np.zeros(3, dtype=np.float32)})

# ConstantOfShape-20 and 21; Equal-19.
for opset in (20, 21):
    case("constant_of_shape_opset%d" % opset, opset,
         [helper.make_node("ConstantOfShape", ["s"], ["c"],
                           value=helper.make_tensor("v", F, [1], [1.5])),
          helper.make_node("Mul", ["c", "x"], ["y"])],
         {"x": rand(2, 3)},
         [("y", F)],
         {"s": np.array([2, 3], dtype=np.int64)})
case("equal_opset19", 19,
     [helper.make_node("Equal", ["a", "b"], ["y"])],
     {"a": np.array([1, 2, 3, 4], dtype=np.int32),
      "b": np.array([1, 0, 3, 0], dtype=np.int32)},
     [("y", TensorProto.BOOL)])

# Pad-18 with `axes`, Pad-19 with `wrap`, Pad-21.
case("pad_axes_opset18", 18,
     [helper.make_node("Pad", ["x", "pads", "v", "axes"], ["y"])],
     {"x": rand(2, 3, 4)},
     [("y", F)],
     {"pads": np.array([1, 2, 0, 1], dtype=np.int64),
      "v": np.array(0.5, dtype=np.float32),
      "axes": np.array([1, -1], dtype=np.int64)})
case("pad_wrap_opset19", 19,
     [helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap")],
     {"x": rand(3, 4)},
     [("y", F)],
     {"pads": np.array([2, 1, 1, 3], dtype=np.int64)})
case("pad_edge_axes_opset21", 21,
     [helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"],
                       mode="edge")],
     {"x": rand(2, 3, 4)},
     [("y", F)],
     {"pads": np.array([2, 1], dtype=np.int64),
      "axes": np.array([0], dtype=np.int64)})

# Resize-18: `axes` with scales, antialias, keep_aspect_ratio_policy.
case("resize_axes_antialias_opset18", 18,
     [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear",
                       antialias=1, axes=[2, 3])],
     {"x": rand(1, 2, 8, 6)},
     [("y", F)],
     {"scales": np.array([0.5, 0.5], dtype=np.float32)})
for policy in ("not_larger", "not_smaller"):
    case("resize_%s_opset18" % policy, 18,
         [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"],
                           axes=[2, 3], keep_aspect_ratio_policy=policy)],
         {"x": rand(1, 2, 8, 6)},
         [("y", F)],
         {"sizes": np.array([4, 4], dtype=np.int64)})
# Resize-19: half_pixel_symmetric.
case("resize_half_pixel_symmetric_opset19", 19,
     [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear",
                       coordinate_transformation_mode="half_pixel_symmetric")],
     {"x": rand(1, 1, 4, 5)},
     [("y", F)],
     {"scales": np.array([1.0, 1.0, 1.5, 1.7], dtype=np.float32)})

# Cast-19 and CastLike-19 with `saturate` (only float 8 reads it; ONNX
# Runtime refuses saturate = 0 for other targets), and their opset-21
# versions.
for opset in (19, 21):
    case("cast_saturate_opset%d" % opset, opset,
         [helper.make_node("Cast", ["x"], ["i"], to=TensorProto.INT32,
                           saturate=1),
          helper.make_node("CastLike", ["i", "like"], ["y"], saturate=1)],
         {"x": rand(2, 3, low=-100, high=100),
          "like": np.zeros(1, dtype=np.float64)},
         [("i", TensorProto.INT32), ("y", TensorProto.DOUBLE)])
