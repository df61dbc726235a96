"""compiled.py - the shared models compiled: per model, compile time, median
latency at 1 and 2 threads and peak memory, from gjit's JSON benchmark
report (`gjit --benchmark=N --benchmark-format=json`), as a Markdown table
beside ONNX Runtime's latencies from ../shared/models/README.md.

    python3 bench/compiled.py [--gjit bin/gjit] [--models DIR] [--runs N]

Times are for information and depend on the machine and its load: compare
only numbers from one run on one machine. Nothing here fails on them.
"""

import argparse
import json
import os
import re
import subprocess

MODELS = ["mlp", "lenet", "squeezenet", "mobilenet_v2", "resnet18", "encoder"]


def ort_latencies(models_dir):
    """{model: (1 thread ms, 2 threads ms)} from the models' README table."""
    table = {}
    try:
        with open(os.path.join(models_dir, "README.md")) as f:
            for line in f:
                m = re.match(r"\|\s*(\w+)\s*\|\s*([\d.]+) ms\s*\|\s*([\d.]+) ms", line)
                if m:
                    table[m.group(1)] = (m.group(2), m.group(3))
    except OSError:
        pass
    return table


def bench(gjit, model_dir, threads, runs):
    cmd = [gjit, os.path.join(model_dir, "model.onnx"),
           "--input=@" + os.path.join(model_dir, "test_data_set_0", "input_0.pb"),
           f"--benchmark={runs}", "--benchmark-format=json", f"--threads={threads}"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--gjit", default="bin/gjit")
    ap.add_argument("--models", default=os.path.join(here, "..", "..", "shared", "models"))
    ap.add_argument("--runs", type=int, default=20)
    opts = ap.parse_args()
    ort = ort_latencies(opts.models)
    print("| model | compile (ms) | gilt 1 thread (ms) | gilt 2 threads (ms) "
          "| peak RSS (MB) | ORT 1 thread (ms) | ORT 2 threads (ms) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in MODELS:
        d = os.path.join(opts.models, name)
        if not os.path.isdir(d):
            continue
        one = bench(opts.gjit, d, 1, opts.runs)
        two = bench(opts.gjit, d, 2, opts.runs)
        o1, o2 = ort.get(name, ("", ""))
        print(f"| {name} | {one['compile_ms']:.0f} | {one['median_ms']:.3f} "
              f"| {two['median_ms']:.3f} | {max(one['peak_rss_mb'], two['peak_rss_mb']):.0f} "
              f"| {o1} | {o2} |")


if __name__ == "__main__":
    main()
