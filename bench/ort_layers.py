"""ort_layers.py - gilt's kernels beside ONNX Runtime's, layer by layer:
where a model's gap to ORT lies before anyone guesses. gjit --profile
gives each fused kernel's time with the ONNX nodes it covers; ORT's own
profiler (session option enableProfiling) gives each of its kernels' time
under the name of the value it writes. A gjit kernel is set against the
sum of every ORT kernel that writes one of the nodes it covers: gilt may
fuse what ORT runs as two kernels (a Conv and its SiLU, a MatMul and its
GELU). ORT's kernels that no gilt kernel covers get rows of their own,
among them those ORT renames when it fuses (Gelu_token_N,
LayerNormalization_token_N). One thread each (--threads N: N each), the
lower half of each kernel's times (warm-up and outliers left out); rows
sorted by what gilt loses, Conv rows with their shapes.

    ORT_NODE=/scratch/node_modules/onnxruntime-node \\
        python3 bench/ort_layers.py MODEL_DIR [--gjit bin/gjit] [--runs 30] \\
            [--threads 1]

MODEL_DIR as bench/vs_ort.py takes (model.onnx, test_data_set_0/, and
io.json with input_0.bin for ../shared/tools/ort_bench.js's format).
ORT's profile carries its own overhead per kernel (tens of microseconds
on these machines): compare rows, not the totals. Needs python3-onnx for
the shapes.
"""

import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import onnx
from onnx import shape_inference

ORT_SCRIPT = r"""
const ort = require(process.env.ORT_NODE || 'onnxruntime-node');
const fs = require('fs'), path = require('path');
(async () => {
  const [dir, prefix, runs, threads] = process.argv.slice(2);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'io.json')));
  const s = await ort.InferenceSession.create(path.join(dir, 'model.onnx'),
    { intraOpNumThreads: +threads, interOpNumThreads: 1, graphOptimizationLevel: 'all',
      executionMode: 'sequential', enableProfiling: true, profileFilePrefix: prefix });
  const raw = fs.readFileSync(path.join(dir, 'input_0.bin'));
  const data = meta.in_dtype === 'int64'
      ? new BigInt64Array(raw.buffer, raw.byteOffset, raw.length / 8)
      : new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
  const feeds = {}; feeds[s.inputNames[0]] = new ort.Tensor(meta.in_dtype, data, meta.in_shape);
  for (let i = 0; i < +runs; i++) await s.run(feeds);
  s.endProfiling();
})();
"""


def lower_half_mean(times):
    times = sorted(times)[: len(times) // 2 + 1]
    return sum(times) / len(times)


def ort_kernels(model_dir, runs, threads):
    """ORT's kernel times in ms by the name of the value each writes."""
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "prof.js")
        with open(script, "w") as f:
            f.write(ORT_SCRIPT)
        subprocess.run(["node", script, model_dir, os.path.join(tmp, "p"),
                        str(runs), str(threads)], check=True)
        (profile,) = glob.glob(os.path.join(tmp, "p*.json"))
        with open(profile) as f:
            events = json.load(f)
    times = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            times[e["name"][: -len("_kernel_time")]].append(e["dur"] / 1000)
    kernels = collections.defaultdict(float)
    for name, t in times.items():
        node = re.sub(r"_output_0(_nchwc)?$", "", name)
        # ORT's fusions keep the first node's name: .../Mul/QuickGeluFusion/
        # (x * Sigmoid(x)), .../MatMul/MatMulAddFusion (MatMul + bias).
        node = re.sub(r"/\w+Fusion/?$", "", node)
        kernels[node] += lower_half_mean(t)
    return kernels


def gilt_kernels(gjit, model_dir, runs, threads):
    """gjit's kernels: (ms, [ONNX node names], op) each."""
    pb = os.path.join(model_dir, "test_data_set_0", "input_0.pb")
    out = subprocess.run([gjit, os.path.join(model_dir, "model.onnx"),
                          "--threads=%d" % threads, "--profile=%d" % runs,
                          "--input=@" + pb],
                         check=True, capture_output=True, text=True)
    rows = []
    for line in (out.stdout + out.stderr).splitlines():
        m = re.match(r"\s*([\d.]+)\s+[\d.]+%\s+\d+\s+(.*) \((graph\.\w+)\)$",
                     line)
        if m:
            rows.append((float(m.group(1)), m.group(2).split(" + "),
                         m.group(3)))
    return rows


def conv_shapes(model_path):
    """'C->OC kK gG sS OHxOW' of each Conv node, by node name."""
    model = shape_inference.infer_shapes(onnx.load(model_path))
    g = model.graph
    dims = {}
    for vi in list(g.value_info) + list(g.input) + list(g.output):
        dims[vi.name] = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    for t in g.initializer:
        dims[t.name] = list(t.dims)
    shapes = {}
    for n in g.node:
        if n.op_type != "Conv" or n.input[1] not in dims:
            continue
        w, y = dims[n.input[1]], dims.get(n.output[0], [])
        if len(w) != 4 or len(y) != 4:  # not a 2-D convolution's shapes
            continue
        attrs = {a.name: a for a in n.attribute}
        group = attrs["group"].i if "group" in attrs else 1
        stride = attrs["strides"].ints[0] if "strides" in attrs else 1
        shapes[n.name] = "%d->%d k%d g%d s%d %dx%d" % (
            w[1] * group, w[0], w[2], group, stride, y[2], y[3])
    return shapes


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model_dir")
    p.add_argument("--gjit", default="bin/gjit")
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    ort = ort_kernels(args.model_dir, args.runs, args.threads)
    gilt = gilt_kernels(args.gjit, args.model_dir, args.runs, args.threads)
    shapes = conv_shapes(os.path.join(args.model_dir, "model.onnx"))
    rows = []
    for ms, nodes, op in gilt:
        # Every ORT kernel that writes one of the nodes this kernel covers:
        # gilt may fuse what ORT runs as two kernels (a Conv and its SiLU).
        matched = [n for n in set(nodes) if n in ort]
        theirs = sum(ort.pop(n) for n in matched) if matched else None
        what = shapes.get(nodes[0], nodes[0])
        rows.append((ms - theirs if theirs is not None else 0.0, ms, theirs,
                     what, op))
    for name, theirs in ort.items():  # ORT's kernels no gilt kernel covers
        rows.append((-theirs, 0.0, theirs, name, "(ORT only)"))
    rows.sort(key=lambda r: -r[0])
    print("%8s %8s %8s  %-28s %s" % ("gilt ms", "ORT ms", "gilt-ORT",
                                     "layer", "gilt op"))
    for diff, ms, theirs, what, op in rows:
        print("%8.3f %8s %8s  %-28s %s" % (
            ms, "%.3f" % theirs if theirs is not None else "-",
            "%+.3f" % diff if theirs is not None else "", what[-28:], op))
    print("gilt kernels %.3f ms; ORT kernels %.3f ms (its profiler's "
          "overhead included)" % (sum(r[1] for r in rows),
                                  sum(r[2] or 0.0 for r in rows)))


if __name__ == "__main__":
    sys.exit(main())
