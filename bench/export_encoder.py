"""export_encoder.py - a PyTorch transformer encoder (nn.TransformerEncoder,
GELU, batch first) exported to ONNX as a model folder that bench/vs_ort.py
and ../shared/tools/ort_bench.js read: model.onnx, io.json, input_0.bin
and output_0.bin (raw), test_data_set_0/{input,output}_0.pb. For measuring
encoders wider or deeper than ../shared/models/encoder; do not commit the
models.

    /usr/bin/python3 bench/export_encoder.py OUT_DIR [--d-model 256]
        [--heads 4] [--layers 4] [--ff 1024] [--seq 128] [--opset 14]

Needs Debian's python3-torch (1.13); the .pb files are written by hand
(TensorProto: dims, data_type, raw_data), so python3-onnx is not needed.
The weights are random (seed 0, each layer its own): the shapes, not the
values, set the time.
"""

import argparse
import json
import os
import struct

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--d-model", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--ff", type=int, default=1024)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--opset", type=int, default=14)
    o = ap.parse_args()
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        o.d_model, o.heads, o.ff, dropout=0.0, activation="gelu",
        batch_first=True)
    model = torch.nn.TransformerEncoder(layer, o.layers,
                                        enable_nested_tensor=False).eval()
    # The layers are copies of one: give each its own weights, so that the
    # exporter keeps them apart as a trained model's are.
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                torch.nn.init.xavier_uniform_(p)
            else:
                p.add_(0.1 * torch.randn_like(p))
    x = torch.randn(1, o.seq, o.d_model)
    with torch.no_grad():
        y = model(x)
    os.makedirs(os.path.join(o.out, "test_data_set_0"), exist_ok=True)
    torch.onnx.export(model, x, os.path.join(o.out, "model.onnx"),
                      opset_version=o.opset, input_names=["x"],
                      output_names=["y"])
    xa, ya = x.numpy(), y.numpy()
    with open(os.path.join(o.out, "io.json"), "w") as f:
        json.dump({"in_shape": list(xa.shape), "in_dtype": "float32",
                   "out_shape": list(ya.shape)}, f)
    xa.astype("<f4").tofile(os.path.join(o.out, "input_0.bin"))
    ya.astype("<f4").tofile(os.path.join(o.out, "output_0.bin"))
    for name, a in (("input_0.pb", xa), ("output_0.pb", ya)):
        with open(os.path.join(o.out, "test_data_set_0", name), "wb") as f:
            f.write(tensor_proto(a))


if __name__ == "__main__":
    main()
