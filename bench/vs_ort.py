"""vs_ort.py - gilt beside ONNX Runtime in one run: `make bench` prints
its table. Per model and thread count, ONNX Runtime
(../shared/tools/ort_bench.js) and gjit alternate `--rounds` times, each
timing `--runs` calls after its warm-up; the table gives the median of
their medians, the ratio gilt / ORT (below 1: gilt is faster), the cold
compile time beside ORT's session creation, and the peak memory of each
process: gjit's whole process, and ORT's node process less a bare node
that only loads onnxruntime (what the issue compares).

The models: every folder of ../shared/models (or of --models: say
bench/export_torchvision.py's), and issue 11's single
MatMul (1024x1024 times a 1024x1024 weight, bench/matmul_model.py)
written to a scratch folder.

    npm install --ignore-scripts onnxruntime-node@1.30.0   # in a scratch folder
    ORT_NODE=/scratch/node_modules/onnxruntime-node python3 bench/vs_ort.py

Without ONNX Runtime (ORT_NODE unset and `require('onnxruntime-node')`
failing) the ORT columns say so and gilt's are still measured. Times
depend on the machine and its load: compare only numbers from one run on
an otherwise idle machine. Nothing here fails on them.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

MODELS = ["mlp", "lenet", "squeezenet", "mobilenet_v2", "resnet18", "encoder"]
HERE = os.path.dirname(os.path.abspath(__file__))


def run_rss(cmd):
    """Runs cmd; returns (stdout, peak RSS in MB) from wait4, which gives
    this child's own rusage."""
    with tempfile.TemporaryFile(mode="w+") as out, \
            tempfile.TemporaryFile(mode="w+") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if p.returncode:
            sys.exit(f"{' '.join(cmd)} failed:\n{err.read()}")
        return out.read(), usage.ru_maxrss / 1024.0


def gilt(gjit, model_dir, threads, runs):
    cmd = [gjit, os.path.join(model_dir, "model.onnx"),
           "--input=@" + os.path.join(model_dir, "test_data_set_0", "input_0.pb"),
           f"--benchmark={runs}", "--benchmark-format=json", f"--threads={threads}"]
    out, rss = run_rss(cmd)
    r = json.loads(out.strip().splitlines()[-1])
    return r["median_ms"], r["compile_ms"], rss


class Ort:
    """ONNX Runtime through node, or None where it cannot be loaded."""

    def __init__(self, bench_js):
        self.bench_js = bench_js
        self.module = os.environ.get("ORT_NODE", "onnxruntime-node")
        try:
            _, self.bare_rss = run_rss(
                ["node", "-e", f"require({json.dumps(self.module)})"])
        except (OSError, SystemExit):
            self.bare_rss = None

    def available(self):
        return self.bare_rss is not None

    def bench(self, model_dir, threads, runs):
        out, rss = run_rss(["node", self.bench_js, model_dir, str(threads),
                            str(runs)])
        fields = dict(re.findall(r"(\w+)=([\d.e+-]+)", out))
        return (float(fields["median_ms"]), float(fields["create_ms"]),
                rss - self.bare_rss)


def row(name, threads, g, o):
    """A table row from gilt's and ORT's (median, compile, rss) lists."""
    gm, gc, gr = (statistics.median(x) for x in zip(*g))
    cells = [name, str(threads), f"{gm:.3f}"]
    if o:
        om, oc, orss = (statistics.median(x) for x in zip(*o))
        cells += [f"{om:.3f}", f"{gm / om:.2f}", f"{gc:.0f}", f"{oc:.0f}",
                  f"{gr:.0f}", f"{orss:.0f}"]
    else:
        cells += ["-", "-", f"{gc:.0f}", "-", f"{gr:.0f}", "-"]
    return "| " + " | ".join(cells) + " |"


def model_dirs(models, scratch):
    # The shared models in the order, then any other model folder
    # (bench/export_torchvision.py, bench/export_encoder.py) by name.
    found = sorted(n for n in os.listdir(models)
                   if os.path.isfile(os.path.join(models, n, "model.onnx")))
    dirs = [(n, os.path.join(models, n))
            for n in [m for m in MODELS if m in found] +
            [m for m in found if m not in MODELS]]
    matmul = os.path.join(scratch, "matmul1024")
    made = subprocess.run([sys.executable, os.path.join(HERE, "matmul_model.py"),
                           matmul], capture_output=True, text=True)
    if made.returncode:
        print(f"no matmul1024 (bench/matmul_model.py needs NumPy):\n{made.stderr}")
        return dirs
    return dirs + [("matmul1024", matmul)]


def main():
    shared = os.path.join(HERE, "..", "..", "shared")
    ap = argparse.ArgumentParser()
    ap.add_argument("--gjit", default="bin/gjit")
    ap.add_argument("--models", default=os.path.join(shared, "models"))
    ap.add_argument("--ort-bench", default=os.path.join(shared, "tools", "ort_bench.js"))
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--only", help="comma-separated model names")
    opts = ap.parse_args()
    ort = Ort(opts.ort_bench)
    if not ort.available():
        print("ONNX Runtime not found: set ORT_NODE to an `npm install "
              "--ignore-scripts onnxruntime-node@1.30.0`; gilt alone below.\n")
    print("| model | threads | gilt (ms) | ORT (ms) | gilt / ORT "
          "| gilt compile (ms) | ORT session (ms) | gilt RSS (MB) | ORT RSS (MB) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as scratch:
        for name, d in model_dirs(opts.models, scratch):
            if opts.only and name not in opts.only.split(","):
                continue
            for threads in map(int, opts.threads.split(",")):
                g, o = [], []
                for _ in range(opts.rounds):
                    if ort.available():
                        o.append(ort.bench(d, threads, opts.runs))
                    g.append(gilt(opts.gjit, d, threads, opts.runs))
                print(row(name, threads, g, o), flush=True)


if __name__ == "__main__":
    main()
