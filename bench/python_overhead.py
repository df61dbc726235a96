"""python_overhead.py - what calling a compiled model from Python costs on
top of the call itself: the median latency of `m(x)` timed in Python
against gjit's own timing of the same model and input
(`gjit --benchmark=N --benchmark-format=json`), and against the library's
timing from Python (`m.benchmark`, the same figures gjit reports), for the
shared mlp and for add.gilt, whose call does almost nothing, so that its
latency is nearly all overhead. Prints a Markdown table.

    PYTHONPATH=python python3 bench/python_overhead.py [--gjit bin/gjit]
        [--models DIR] [--runs N] [--threads N]

Run it from a build directory. Times depend on the machine and its load:
compare only numbers from one run on one machine. Nothing here fails on
them.
"""

import argparse
import json
import os
import subprocess
import time

import numpy as np

import gilt

HERE = os.path.dirname(os.path.abspath(__file__))


def gjit_median(gjit, model, specs, runs, threads):
    cmd = [gjit, model, *("--input=" + s for s in specs),
           f"--benchmark={runs}", "--benchmark-format=json",
           f"--threads={threads}"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["median_ms"]


def python_median(m, inputs, runs):
    """The median of `runs` timed calls m(*inputs), after one warm-up."""
    m(*inputs)
    ms = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        m(*inputs)
        ms.append((time.perf_counter_ns() - start) / 1e6)
    return float(np.median(ms))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gjit", default="bin/gjit")
    p.add_argument("--models",
                   default=os.path.join(HERE, "..", "..", "shared", "models"))
    p.add_argument("--runs", type=int, default=2000)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()

    mlp = os.path.join(a.models, "mlp")
    x = np.fromfile(os.path.join(mlp, "input_0.bin"),
                    dtype=np.float32).reshape(1, 784)
    add = os.path.join(HERE, "..", "test", "lit", "gjit", "Inputs",
                       "add.gilt")
    cases = [
        ("mlp (1x784 -> 1x10)", os.path.join(mlp, "model.onnx"),
         ["@" + os.path.join(mlp, "test_data_set_0", "input_0.pb")], [x]),
        ("add.gilt (2x3 + 3)", add, ["2x3xf32=1 2 3 4 5 6", "3xf32=1 2 3"],
         [np.arange(6, dtype=np.float32).reshape(2, 3),
          np.arange(3, dtype=np.float32)]),
    ]
    print(f"{a.runs} calls after one warm-up, {a.threads} thread(s), "
          "median in microseconds\n")
    print("| model | gjit | m.benchmark | m(x) from Python | Python's "
          "overhead per call |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for label, model, specs, inputs in cases:
        g = gjit_median(a.gjit, model, specs, a.runs, a.threads)
        with gilt.compile(model, threads=a.threads) as m:
            lib = m.benchmark(*inputs, runs=a.runs)["median_ms"]
            py = python_median(m, inputs, a.runs)
        print(f"| {label} | {g * 1e3:.1f} | {lib * 1e3:.1f} | {py * 1e3:.1f} "
              f"| {(py - g) * 1e3:.1f} |")


if __name__ == "__main__":
    main()
