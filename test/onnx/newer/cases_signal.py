"""cases_signal.py - one model per version of the signal and sampling
operators of opsets 19 and 20 that gilt imports: DFT-20 (dft_length and
axis as inputs), GridSample-20 (N-D, linear/cubic), AffineGrid-20 and
DeformConv-19, where ONNX Runtime runs them. gen.py says how cases are
written."""
import numpy as np
from onnx import TensorProto, helper

from gen import case, rand

# DFT-20: a real signal, the axis and the length as inputs (an initializer
# and a graph input), one-sided; and a complex inverse along the default
# axis -2.
case("dft_opset20", 20,
     [helper.make_node("DFT", ["x", "n", "axis"], ["y"], onesided=1)],
     {"x": rand(2, 8, 6, 1)},
     [("y", TensorProto.FLOAT)],
     {"n": np.array(10, dtype=np.int64), "axis": np.array(1, dtype=np.int64)})
case("dft_opset20_inverse", 20,
     [helper.make_node("DFT", ["x"], ["y"], inverse=1)],
     {"x": rand(3, 5, 2)},
     [("y", TensorProto.FLOAT)])

# GridSample-20: the renamed modes on a 4-D input, and a volumetric (5-D)
# input, where version 16 took 4-D ones only.
case("gridsample_opset20", 20,
     [helper.make_node("GridSample", ["x", "grid"], ["y"], mode="cubic",
                       padding_mode="border", align_corners=1)],
     {"x": rand(2, 3, 4, 5), "grid": rand(2, 3, 6, 2, low=-1.2, high=1.2)},
     [("y", TensorProto.FLOAT)])
case("gridsample_opset20_volumetric", 20,
     [helper.make_node("GridSample", ["x", "grid"], ["y"], mode="linear")],
     {"x": rand(1, 2, 3, 4, 5),
      "grid": rand(1, 2, 3, 4, 3, low=-1.2, high=1.2)},
     [("y", TensorProto.FLOAT)])

# AffineGrid-20: 2-D and 3-D transforms, the size an initializer.
case("affinegrid_opset20", 20,
     [helper.make_node("AffineGrid", ["theta", "size"], ["grid"],
                       align_corners=1)],
     {"theta": rand(2, 2, 3, low=-1.0, high=1.0)},
     [("grid", TensorProto.FLOAT)],
     {"size": np.array([2, 3, 5, 4], dtype=np.int64)})
case("affinegrid_opset20_3d", 20,
     [helper.make_node("AffineGrid", ["theta", "size"], ["grid"])],
     {"theta": rand(1, 3, 4, low=-1.0, high=1.0)},
     [("grid", TensorProto.FLOAT)],
     {"size": np.array([1, 2, 3, 4, 5], dtype=np.int64)})

# DeformConv-19: grouped, with bias and mask, strided and padded.
case("deformconv_opset19", 19,
     [helper.make_node("DeformConv", ["x", "w", "offset", "b", "mask"],
                       ["y"], group=2, offset_group=2, pads=[1, 1, 1, 1],
                       strides=[2, 2])],
     {"x": rand(1, 4, 7, 7), "offset": rand(1, 36, 4, 4, low=-1.0, high=1.0),
      "mask": rand(1, 18, 4, 4, low=0.0, high=1.0)},
     [("y", TensorProto.FLOAT)],
     {"w": rand(6, 2, 3, 3), "b": rand(6)})
