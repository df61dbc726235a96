"""cases_quant.py - quantization at opsets 19 and 21: QuantizeLinear and
DequantizeLinear with int8, float 8 and int4 zero points, blocked
quantization (21), QLinearMatMul-21, and Cast through float 8 (19). Each
model dequantizes or casts back to float, so its outputs are types numpy
and the reference writer know. gen.py says how cases are written."""
import numpy as np
from onnx import TensorProto, helper

from gen import case, rand

# ONNX data types python3-onnx 1.12 predates.
FLOAT8E4M3FN, INT4 = 17, 22


def raw(name, data_type, dims, data):
    """An initializer given as raw bytes, for types onnx 1.12 lacks."""
    t = TensorProto()
    t.name = name
    t.data_type = data_type
    t.dims.extend(dims)
    t.raw_data = bytes(data)
    return t


def qdq(name, opset, zero_point, attrs=None, scale=None, saturate=None):
    """x -> QuantizeLinear -> DequantizeLinear -> y, float in and out;
    `attrs` go to both nodes, `saturate` to QuantizeLinear only."""
    attrs = attrs or {}
    q_attrs = dict(attrs)
    if saturate is not None:
        q_attrs["saturate"] = saturate
    scale = np.array(0.05, np.float32) if scale is None else scale
    nodes = [helper.make_node("QuantizeLinear", ["x", "scale", "zp"], ["q"],
                              **q_attrs),
             helper.make_node("DequantizeLinear", ["q", "scale", "zp"], ["y"],
                              **attrs)]
    inits = {"scale": scale}
    if isinstance(zero_point, TensorProto):
        case(name, opset, nodes, {"x": rand(2, 4)}, [("y", TensorProto.FLOAT)],
             inits, extra_initializers=[zero_point])
    else:
        inits["zp"] = zero_point
        case(name, opset, nodes, {"x": rand(2, 4)}, [("y", TensorProto.FLOAT)],
             inits)


qdq("qdq_19_int8", 19, np.array(3, np.int8))
qdq("qdq_19_float8", 19, raw("zp", FLOAT8E4M3FN, [], [0]), saturate=1)
qdq("qdq_21_int4", 21, raw("zp", INT4, [], [0x01]))
qdq("qdq_21_blocked", 21, np.zeros((2, 2), np.int8),
    {"axis": 1, "block_size": 2}, scale=rand(2, 2, low=0.01, high=0.1))

case("cast_float8_19", 19,
     [helper.make_node("Cast", ["x"], ["f8"], to=FLOAT8E4M3FN, saturate=1),
      helper.make_node("Cast", ["f8"], ["y"], to=TensorProto.FLOAT)],
     {"x": rand(3, 5, low=-500.0, high=500.0)},
     [("y", TensorProto.FLOAT)])

case("qlinear_matmul_21", 21,
     [helper.make_node("QLinearMatMul",
                       ["a", "a_scale", "a_zp", "b", "b_scale", "b_zp",
                        "y_scale", "y_zp"], ["y"])],
     {"a": rand(2, 3, dtype=np.uint8, low=0, high=255)},
     [("y", TensorProto.UINT8)],
     {"a_scale": np.array(0.02, np.float32), "a_zp": np.array(120, np.uint8),
      "b": rand(3, 4, dtype=np.uint8, low=0, high=255),
      "b_scale": np.array(0.03, np.float32), "b_zp": np.array(110, np.uint8),
      "y_scale": np.array(0.5, np.float32), "y_zp": np.array(100, np.uint8)})
