"""export_torchvision.py - torchvision classification networks exported to
ONNX as model folders (bench/model_folder.py) for bench/vs_ort.py
--models-dir: the CPU performance issue asks that gilt's lead over ONNX
Runtime hold beyond ../shared/models, on networks nobody tuned for. Do
not commit the models.

    /usr/bin/python3 bench/export_torchvision.py OUT_DIR [NAME ...]
        [--opset 13] [--batch 1] [--suffix S]

Names are torchvision.models constructors (default: resnet50,
densenet121, efficientnet_b0, shufflenet_v2_x1_0, mnasnet1_0,
regnet_y_400mf, googlenet). Needs Debian's python3-torch and
python3-torchvision. The weights are random (seed 0; batch-norm
statistics too, so that they are not the identity): the shapes, not the
values, set the time, and the reference output is PyTorch's for the
same random weights. Input: --batch 3x224x224 images (one by default);
each model's folder is its name followed by --suffix.
"""

import argparse
import os

import torch
import torchvision

from model_folder import export

DEFAULT = ["resnet50", "densenet121", "efficientnet_b0",
           "shufflenet_v2_x1_0", "mnasnet1_0", "regnet_y_400mf", "googlenet"]


def randomize_batch_norms(model):
    """Random running statistics and affine parameters, as a trained
    network's: the defaults (mean 0, variance 1) would make BN folding
    trivially exact."""
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("names", nargs="*", default=DEFAULT)
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--suffix", default="")
    o = ap.parse_args()
    for name in o.names:
        torch.manual_seed(0)
        kwargs = {"aux_logits": False, "init_weights": True} \
            if name == "googlenet" else {}
        model = getattr(torchvision.models, name)(**kwargs).eval()
        with torch.no_grad():
            randomize_batch_norms(model)
        x = torch.randn(o.batch, 3, 224, 224)
        export(model, x, os.path.join(o.out, name + o.suffix), o.opset)
        print(name)


if __name__ == "__main__":
    main()
