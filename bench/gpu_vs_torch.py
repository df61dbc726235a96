"""gpu_vs_torch.py - gilt on an NVIDIA GPU beside PyTorch on the same GPU,
in one run: the yardsticks of the GPU issue (docs/gpu.md). Each model
runs through `gjit --device=cuda`, checked against its reference output
(relative L2 error 1e-4) and timed with CUDA events; PyTorch runs the same
architecture in eager mode, timed the same way, after its warm-up.

    python3 bench/gpu_vs_torch.py --gjit bin/gjit [--models ../shared/models]
        [--work DIR] [--runs 20] [--timeout 180] [--max-autotune]
        [--block-tiles 0,128] [--only a,b] [--json FILE]

The models: every folder of --models that exists (../shared/models:
PyTorch runs torchvision's SqueezeNet 1.1, MobileNetV2 and ResNet-18 and
this script's MLP, LeNet and encoder, with random weights of the same
shapes), ResNet-50 at batch 32 (bench/export_torchvision.py --batch 32)
and one SGEMM of 4096x4096 by a 4096x4096 weight (bench/matmul_model.py),
both written to --work. PyTorch's SGEMM is cuBLAS's with TF32 off
(`torch.backends.cuda.matmul.allow_tf32 = False`), timed on device
buffers and again with A copied in and Y copied out as gjit's call does.
--max-autotune adds ResNet-50 at batch 32 through
`torch.compile(mode="max-autotune")` (minutes of autotuning).
--block-tiles times the SGEMM and ResNet-50 again with graph-to-loop's
block tiles of those sizes (0: the thread tiles alone), the default
pipeline (`gjit --dump-pass-pipeline --device=cuda`) edited.

gjit's time is one whole call: inputs copied in, the kernels, outputs
copied out. Needs a CUDA machine with PyTorch and torchvision; prints one
table and, with --json FILE, writes the numbers. Nothing here fails on
the times; a model whose output misses its reference is marked.
"""

import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np
import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = ["mlp", "lenet", "squeezenet", "mobilenet_v2", "resnet18", "encoder"]


# ---- PyTorch's side ------------------------------------------------------------

class LeNet(torch.nn.Module):
    """The shared LeNet's layers: two 5x5 convolutions with ReLU (the
    first padded by 2), max and average pooling, two linear layers."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 6, 5, padding=2)
        self.c2 = torch.nn.Conv2d(6, 16, 5)
        self.f1 = torch.nn.Linear(400, 120)
        self.f2 = torch.nn.Linear(120, 10)

    def forward(self, x):
        f = torch.nn.functional
        x = f.max_pool2d(f.relu(self.c1(x)), 2)
        x = f.avg_pool2d(f.relu(self.c2(x)), 2).flatten(1)
        return self.f2(f.relu(self.f1(x)))


class Encoder(torch.nn.Module):
    """The shared encoder's shape: 64 tokens of a 1000-word vocabulary,
    width 128, 4 heads, feed-forward 512 with GELU, 2 pre-norm layers."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(1000, 128)
        self.pos = torch.nn.Parameter(torch.randn(1, 64, 128))
        layer = torch.nn.TransformerEncoderLayer(
            128, 4, 512, dropout=0.0, activation="gelu", batch_first=True,
            norm_first=True)
        self.blocks = torch.nn.TransformerEncoder(layer, 2,
                                                  enable_nested_tensor=False)

    def forward(self, tokens):
        return self.blocks(self.emb(tokens) + self.pos)


def torch_model(name):
    """PyTorch's module and input for a model of the table."""
    tv = torchvision.models
    image = torch.randn(1, 3, 224, 224)
    return {
        "mlp": lambda: (torch.nn.Sequential(
            torch.nn.Linear(784, 256), torch.nn.ReLU(),
            torch.nn.Linear(256, 10), torch.nn.Softmax(-1)),
            torch.randn(1, 784)),
        "lenet": lambda: (LeNet(), torch.randn(1, 1, 28, 28)),
        "squeezenet": lambda: (tv.squeezenet1_1(), image),
        "mobilenet_v2": lambda: (tv.mobilenet_v2(), image),
        "resnet18": lambda: (tv.resnet18(), image),
        "encoder": lambda: (Encoder(), torch.randint(0, 1000, (1, 64))),
        "resnet50_b32": lambda: (tv.resnet50(), torch.randn(32, 3, 224, 224)),
    }[name]()


def cuda_ms(fn, runs, warmup=5):
    """The median of `runs` calls of fn, each timed by CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return float(np.median(times))


def torch_eager(name, runs):
    model, x = torch_model(name)
    model = model.eval().cuda()
    xd = x.cuda()
    with torch.no_grad():
        return cuda_ms(lambda: model(xd), runs)


def torch_sgemm(n, runs):
    """cuBLAS's SGEMM (TF32 off): on device buffers, and with A copied in
    and Y out as a gjit call copies them."""
    a = torch.randn(n, n, device="cuda")
    w = torch.randn(n, n, device="cuda")
    a_host = a.cpu()
    kernel = cuda_ms(lambda: torch.matmul(a, w), runs)
    call = cuda_ms(lambda: torch.matmul(a_host.cuda(), w).cpu(), runs)
    return kernel, call


def torch_max_autotune(runs):
    model = torchvision.models.resnet50().eval().cuda()
    x = torch.randn(32, 3, 224, 224, device="cuda")
    compiled = torch.compile(model, mode="max-autotune")
    with torch.no_grad():
        return cuda_ms(lambda: compiled(x), runs)


# ---- gilt's side -----------------------------------------------------------------

def gjit_run(gjit, folder, runs, timeout, pipeline=None):
    """gjit on a model folder (with `pipeline` in place of the default):
    (median ms, compile ms, reference matched, first error line); stopped
    after `timeout` seconds."""
    data = os.path.join(folder, "test_data_set_0")
    cmd = [gjit, os.path.join(folder, "model.onnx"), "--device=cuda",
           "--input=@" + os.path.join(data, "input_0.pb"),
           "--benchmark=%d" % runs, "--benchmark-format=json"]
    if pipeline:
        cmd += ["-p", pipeline]
    ref = os.path.join(data, "output_0.pb")
    if os.path.exists(ref):
        cmd += ["--expected-output=@" + ref, "--tolerance-l2=1e-4"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, False, "stopped after %d s" % timeout
    report = None
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            report = json.loads(line)
    errors = [l for l in p.stderr.splitlines() if "error" in l]
    if report is None:
        return None, None, False, errors[0] if errors else p.stderr[-200:]
    return (report["median_ms"], report["compile_ms"], p.returncode == 0,
            errors[0] if errors else "")


# ---- the table -------------------------------------------------------------------

def block_tile_pipeline(gjit, tile):
    """The default CUDA pipeline with graph-to-loop's block tiles of
    `tile` (0: the thread tiles)."""
    default = subprocess.run([gjit, "--dump-pass-pipeline", "--device=cuda"],
                             capture_output=True, text=True, check=True).stdout
    return re.sub(r"block-tile=\d+", "block-tile=%d" % tile, default.strip())


def prepare(work):
    """The models this script writes: ResNet-50 at batch 32, the SGEMM."""
    folders = {}
    resnet = os.path.join(work, "resnet50_b32")
    if not os.path.exists(os.path.join(resnet, "model.onnx")):
        subprocess.run([sys.executable, os.path.join(HERE, "export_torchvision.py"),
                        work, "resnet50", "--batch", "32", "--suffix", "_b32"],
                       check=True)
    folders["resnet50_b32"] = resnet
    sgemm = os.path.join(work, "sgemm4096")
    if not os.path.exists(os.path.join(sgemm, "model.onnx")):
        subprocess.run([sys.executable, os.path.join(HERE, "matmul_model.py"),
                        sgemm, "--size", "4096"], check=True)
    folders["sgemm4096"] = sgemm
    return folders


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gjit", default="bin/gjit")
    ap.add_argument("--models", default=os.path.join(HERE, "..", "..", "shared", "models"))
    ap.add_argument("--work", default="/tmp/gilt-gpu-bench")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--timeout", type=int, default=180,
                    help="seconds one gjit run may take")
    ap.add_argument("--only", default="")
    ap.add_argument("--max-autotune", action="store_true")
    ap.add_argument("--block-tiles", default="0,128",
                    help="other block-tile sizes to time the SGEMM and "
                         "ResNet-50 with, beside the default pipeline's")
    ap.add_argument("--json")
    o = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    folders = {n: os.path.join(o.models, n) for n in SHARED
               if os.path.exists(os.path.join(o.models, n, "model.onnx"))}
    folders.update(prepare(o.work))
    only = set(filter(None, o.only.split(",")))
    rows = {}
    print("device:", torch.cuda.get_device_name(0), flush=True)
    for name, folder in folders.items():
        if only and name not in only:
            continue
        ms, compile_ms, ok, error = gjit_run(o.gjit, folder, o.runs, o.timeout)
        row = {"gilt_ms": ms, "compile_ms": compile_ms, "matches": ok,
               "error": error}
        for tile in filter(None, o.block_tiles.split(",")):
            if name not in ("sgemm4096", "resnet50_b32"):
                break
            t_ms, _, t_ok, t_error = gjit_run(
                o.gjit, folder, o.runs, o.timeout,
                block_tile_pipeline(o.gjit, int(tile)))
            row["gilt_ms_block_tile_%s" % tile] = t_ms
            row["matches_block_tile_%s" % tile] = t_ok
            if t_error:
                row["error_block_tile_%s" % tile] = t_error
        # One PyTorch failure leaves its cells empty, not the table.
        try:
            if name == "sgemm4096":
                kernel, call = torch_sgemm(4096, o.runs)
                row.update(torch_ms=call, cublas_kernel_ms=kernel,
                           cublas_tflops=2 * 4096 ** 3 / kernel / 1e9)
            else:
                row["torch_ms"] = torch_eager(name, o.runs)
            if name == "resnet50_b32" and o.max_autotune:
                row["max_autotune_ms"] = torch_max_autotune(o.runs)
        except Exception as e:  # noqa: BLE001 - reported in the table
            row["torch_error"] = "%s: %s" % (type(e).__name__, e)
        rows[name] = row
        torch_ms = row.get("torch_ms", float("nan"))
        ratio = ms / torch_ms if ms else float("nan")
        print("%-14s gilt %9s ms %-9s torch %9.3f ms  gilt/torch %6.2f  "
              "compile %8s ms %s" % (
                  name, "%.3f" % ms if ms else "-",
                  "(ok)" if ok else "(MISMATCH)", torch_ms, ratio,
                  "%.0f" % compile_ms if compile_ms else "-",
                  " ".join("%s %.3f" % (k, v) for k, v in row.items()
                           if v is not None and (
                               k in ("cublas_kernel_ms", "cublas_tflops",
                                     "max_autotune_ms") or
                               k.startswith("gilt_ms_block_tile_")))),
              flush=True)
        for problem in (error, row.get("torch_error")):
            if problem:
                print("    " + problem, flush=True)
    if o.json:
        with open(o.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
