"""vs_ort.py - gilt beside ONNX Runtime on the shared models, in one run:
per model and thread count, ONNX Runtime (../shared/tools/ort_bench.js)
and gjit alternate `--rounds` times, each timing `--runs` calls after its
warm-up, and the table gives the median of their medians, the ratio
gilt / ORT (below 1: gilt is faster), and the cold compile time beside
ORT's session creation.

    npm install --ignore-scripts onnxruntime-node@1.30.0   # in a scratch folder
    ORT_NODE=/scratch/node_modules/onnxruntime-node python3 bench/vs_ort.py

Times depend on the machine and its load: compare only numbers from one
run on an otherwise idle machine. Nothing here fails on them.
"""

import argparse
import os
import re
import statistics
import subprocess

from compiled import MODELS, bench  # gjit's JSON report, read one way


def gilt(gjit, model_dir, threads, runs):
    r = bench(gjit, model_dir, threads, runs)
    return r["median_ms"], r["compile_ms"]


def ort(bench_js, model_dir, threads, runs):
    out = subprocess.run(["node", bench_js, model_dir, str(threads), str(runs)],
                         capture_output=True, text=True, check=True).stdout
    fields = dict(re.findall(r"(\w+)=([\d.e+-]+)", out))
    return float(fields["median_ms"]), float(fields["create_ms"])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    shared = os.path.join(here, "..", "..", "shared")
    ap = argparse.ArgumentParser()
    ap.add_argument("--gjit", default="bin/gjit")
    ap.add_argument("--models", default=os.path.join(shared, "models"))
    ap.add_argument("--ort-bench", default=os.path.join(shared, "tools", "ort_bench.js"))
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    opts = ap.parse_args()
    print("| model | threads | gilt (ms) | ORT (ms) | gilt / ORT "
          "| gilt compile (ms) | ORT session (ms) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in MODELS:
        d = os.path.join(opts.models, name)
        if not os.path.isdir(d):
            continue
        for threads in map(int, opts.threads.split(",")):
            g, o, gc, oc = [], [], [], []
            for _ in range(opts.rounds):
                ms, create = ort(opts.ort_bench, d, threads, opts.runs)
                o.append(ms)
                oc.append(create)
                ms, compile_ms = gilt(opts.gjit, d, threads, opts.runs)
                g.append(ms)
                gc.append(compile_ms)
            gm, om = statistics.median(g), statistics.median(o)
            print(f"| {name} | {threads} | {gm:.3f} | {om:.3f} | {gm / om:.2f} "
                  f"| {statistics.median(gc):.0f} | {statistics.median(oc):.0f} |",
                  flush=True)


if __name__ == "__main__":
    main()
