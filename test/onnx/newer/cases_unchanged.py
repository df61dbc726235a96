"""cases_unchanged.py - models at opsets 18 to 21 built only of operators
whose definition did not change after opset 17 (a small conv net and a
small dense layer): they import exactly as at 17. gen.py says how cases
are written."""
from onnx import TensorProto, helper

from gen import case, rand

for opset in (18, 19, 20, 21):
    case("convnet_opset%d" % opset, opset,
         [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
          helper.make_node("Relu", ["c"], ["r"]),
          helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2],
                           strides=[2, 2]),
          helper.make_node("GlobalAveragePool", ["p"], ["y"])],
         {"x": rand(1, 3, 8, 8)},
         [("y", TensorProto.FLOAT)],
         {"w": rand(4, 3, 3, 3), "b": rand(4)})
    case("dense_opset%d" % opset, opset,
         [helper.make_node("MatMul", ["x", "w"], ["m"]),
          helper.make_node("Add", ["m", "b"], ["a"]),
          helper.make_node("Tanh", ["a"], ["t"]),
          helper.make_node("Softmax", ["t"], ["y"], axis=-1)],
         {"x": rand(2, 6)},
         [("y", TensorProto.FLOAT)],
         {"w": rand(6, 5), "b": rand(5)})
