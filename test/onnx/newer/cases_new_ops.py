"""cases_new_ops.py - one model per version of the operators new since
opset 18, or changed since, that gilt imports: Mish-18, the Bitwise ops
of 18, Gelu-20, IsInf-20, IsNaN-20, ConstantOfShape-20 and
GroupNormalization-18 and -21, CenterCropPad-18 and Col2Im-18. gen.py says
how cases are written."""
import numpy as np
from onnx import TensorProto, helper

from gen import case, rand

case("mish_opset18", 18,
     [helper.make_node("Mish", ["x"], ["y"])],
     {"x": rand(2, 5)},
     [("y", TensorProto.FLOAT)])

for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
    case("%s_opset18" % op.lower(), 18,
         [helper.make_node(op, ["a", "b"], ["y"])],
         {"a": rand(2, 4, dtype=np.int32, low=-1000, high=1000),
          "b": rand(4, dtype=np.int32, low=-1000, high=1000)},
         [("y", TensorProto.INT32)])
case("bitwisenot_opset18", 18,
     [helper.make_node("BitwiseNot", ["x"], ["y"])],
     {"x": rand(3, 4, dtype=np.uint8, low=0, high=255)},
     [("y", TensorProto.UINT8)])

case("gelu_opset20", 20,
     [helper.make_node("Gelu", ["x"], ["y"], approximate="tanh")],
     {"x": rand(3, 4)},
     [("y", TensorProto.FLOAT)])

case("isinf_opset20", 20,
     [helper.make_node("Div", ["x", "z"], ["d"]),
      helper.make_node("IsInf", ["d"], ["y"], detect_negative=0)],
     {"x": rand(6), "z": np.array([0, 1, 0, 2, 0, 3], dtype=np.float32)},
     [("y", TensorProto.BOOL)])
case("isnan_opset20", 20,
     [helper.make_node("Sqrt", ["x"], ["s"]),
      helper.make_node("IsNaN", ["s"], ["y"])],
     {"x": rand(2, 3)},
     [("y", TensorProto.BOOL)])

case("constantofshape_opset20", 20,
     [helper.make_node("ConstantOfShape", ["shape"], ["c"],
                       value=helper.make_tensor("value", TensorProto.FLOAT,
                                                [1], [0.5])),
      helper.make_node("Add", ["x", "c"], ["y"])],
     {"x": rand(2, 3)},
     [("y", TensorProto.FLOAT)],
     {"shape": np.array([2, 3], dtype=np.int64)})

case("groupnormalization_opset18", 18,
     [helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"],
                       num_groups=2, epsilon=1e-3)],
     {"x": rand(2, 6, 3, 3)},
     [("y", TensorProto.FLOAT)],
     {"scale": rand(2), "bias": rand(2)})
case("groupnormalization_opset21", 21,
     [helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"],
                       num_groups=3)],
     {"x": rand(2, 6, 4)},
     [("y", TensorProto.FLOAT)],
     {"scale": rand(6), "bias": rand(6)})

case("centercroppad_opset18", 18,
     [helper.make_node("CenterCropPad", ["x", "shape"], ["y"], axes=[1, 2])],
     {"x": rand(2, 5, 4)},
     [("y", TensorProto.FLOAT)],
     {"shape": np.array([3, 7], dtype=np.int64)})
case("col2im_opset18", 18,
     [helper.make_node("Col2Im", ["x", "image_shape", "block_shape"], ["y"],
                       pads=[1, 0, 1, 0], strides=[2, 1])],
     {"x": rand(1, 8, 9)},
     [("y", TensorProto.FLOAT)],
     {"image_shape": np.array([5, 4], dtype=np.int64),
      "block_shape": np.array([2, 2], dtype=np.int64)})
