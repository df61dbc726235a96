"""export_encoder.py - a PyTorch transformer encoder (nn.TransformerEncoder,
GELU, batch first) exported to ONNX as a model folder that bench/vs_ort.py
and ../shared/tools/ort_bench.js read: model.onnx, io.json, input_0.bin
and output_0.bin (raw), test_data_set_0/{input,output}_0.pb. For measuring
encoders wider or deeper than ../shared/models/encoder; do not commit the
models.

    /usr/bin/python3 bench/export_encoder.py OUT_DIR [--d-model 256]
        [--heads 4] [--layers 4] [--ff 1024] [--seq 128] [--opset 14]

Needs Debian's python3-torch (1.13); bench/model_folder.py writes the
folder.
The weights are random (seed 0, each layer its own): the shapes, not the
values, set the time.
"""

import argparse

import torch

from model_folder import export


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
    export(model, x, o.out, o.opset)


if __name__ == "__main__":
    main()
