"""model_folder.py - a PyTorch module exported to ONNX as a model folder
that bench/vs_ort.py and ../shared/tools/ort_bench.js read, the layout of
../shared/models/*: model.onnx, io.json, input_0.bin and output_0.bin
(raw little-endian f32), test_data_set_0/{input,output}_0.pb (ONNX
TensorProtos). Shared by the export scripts of bench/.

The .pb files are written by hand (TensorProto: dims, data_type, raw_data),
so python3-onnx is not needed; PyTorch computes the reference output.
"""

import json
import os

import numpy as np
import torch


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def tensor_proto(a):
    """An ONNX TensorProto of an f32 array: dims (1), data_type (2) = 1,
    raw_data (9)."""
    msg = b"".join(b"\x08" + varint(d) for d in a.shape)
    msg += b"\x10\x01"
    raw = np.ascontiguousarray(a, dtype="<f4").tobytes()
    return msg + b"\x4a" + varint(len(raw)) + raw


def export(model, x, out, opset):
    """Exports model (in eval mode) at input x to folder out, with the
    output PyTorch computes as the reference."""
    with torch.no_grad():
        y = model(x)
    os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
    path = os.path.join(out, "model.onnx")
    try:  # PyTorch 2.9 and later export through torch.export unless told
        torch.onnx.export(model, x, path, opset_version=opset,
                          input_names=["x"], output_names=["y"], dynamo=False)
    except TypeError:  # before 2.5 (Debian's 1.13): no such argument
        torch.onnx.export(model, x, path, opset_version=opset,
                          input_names=["x"], output_names=["y"])
    xa, ya = x.numpy(), y.numpy()
    with open(os.path.join(out, "io.json"), "w") as f:
        json.dump({"in_shape": list(xa.shape), "in_dtype": "float32",
                   "out_shape": list(ya.shape)}, f)
    xa.astype("<f4").tofile(os.path.join(out, "input_0.bin"))
    ya.astype("<f4").tofile(os.path.join(out, "output_0.bin"))
    for name, a in (("input_0.pb", xa), ("output_0.pb", ya)):
        with open(os.path.join(out, "test_data_set_0", name), "wb") as f:
            f.write(tensor_proto(a))
