"""matmul_model.py - writes the model folder of issue 11's single-op
benchmark: Y = A x W, A a 1024x1024 f32 input, W a 1024x1024 f32 weight,
laid out as ../shared/models/ lays out its models, so that gjit and
ONNX Runtime's ort_bench.js both read it:

    DIR/model.onnx                  the ONNX model (opset 13)
    DIR/test_data_set_0/input_0.pb  A as an ONNX TensorProto (gjit)
    DIR/input_0.bin, DIR/io.json    A raw, its shape and type (ort_bench.js)
    DIR/output_0.bin                Y computed in float64 by NumPy, as f32
    DIR/test_data_set_0/output_0.pb Y as a TensorProto (gjit --expected-output)

    python3 bench/matmul_model.py DIR [--size N]

The protobuf is encoded here, by the few rules of its wire format that
these messages need (varints and length-delimited fields), so that the
bench needs no onnx package: Debian's python3 has NumPy but not onnx.
"""

import argparse
import json
import os
import struct

import numpy as np


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, value):
    """One field: an int as a varint, bytes or str length-delimited."""
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint(number << 3 | 2) + varint(len(value)) + value


FLOAT = 1  # TensorProto.DataType.FLOAT


def tensor(name, array):
    """TensorProto: dims (1), data_type (2), name (8), raw_data (9)."""
    dims = b"".join(field(1, d) for d in array.shape)
    return (dims + field(2, FLOAT) + field(8, name) +
            field(9, array.astype("<f4").tobytes()))


def value_info(name, shape):
    """ValueInfoProto { name (1), type (2): TypeProto { tensor_type (1):
    { elem_type (1), shape (2): { dim (1): { dim_value (1) } } } } }."""
    dims = b"".join(field(1, field(1, d)) for d in shape)
    tensor_type = field(1, FLOAT) + field(2, dims)
    return field(1, name) + field(2, field(1, tensor_type))


def model(size, weight):
    """ModelProto: ir_version (1), producer_name (2), graph (7),
    opset_import (8); GraphProto: node (1), name (2), initializer (5),
    input (11), output (12); NodeProto: input (1), output (2), name (3),
    op_type (4)."""
    node = field(1, "A") + field(1, "W") + field(2, "Y") + \
        field(3, "MatMul_0") + field(4, "MatMul")
    graph = (field(1, node) + field(2, "matmul") +
             field(5, tensor("W", weight)) +
             field(11, value_info("A", [size, size])) +
             field(12, value_info("Y", [size, size])))
    opset = field(1, "") + field(2, 13)
    return field(1, 8) + field(2, "gilt-bench") + field(7, graph) + field(8, opset)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--size", type=int, default=1024)
    opts = ap.parse_args()
    n = opts.size
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(np.float32)
    w = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
    y = (a.astype(np.float64) @ w.astype(np.float64)).astype(np.float32)
    os.makedirs(os.path.join(opts.dir, "test_data_set_0"), exist_ok=True)
    with open(os.path.join(opts.dir, "model.onnx"), "wb") as f:
        f.write(model(n, w))
    with open(os.path.join(opts.dir, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(tensor("A", a))
    with open(os.path.join(opts.dir, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(tensor("Y", y))
    a.astype("<f4").tofile(os.path.join(opts.dir, "input_0.bin"))
    y.astype("<f4").tofile(os.path.join(opts.dir, "output_0.bin"))
    with open(os.path.join(opts.dir, "io.json"), "w") as f:
        json.dump({"in_shape": [n, n], "in_dtype": "float32",
                   "out_shape": [n, n]}, f)


if __name__ == "__main__":
    main()
