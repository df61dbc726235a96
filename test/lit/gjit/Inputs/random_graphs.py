"""random_graphs.py - random differential testing of the compiled path
against the reference interpreter.

Writes COUNT small random graph-dialect models (chains of elementwise,
broadcasting, reduction, movement and matrix ops over random shapes) with
random inputs, and runs each through `gjit --check`, which runs it compiled
and interpreted and fails on the first result that differs beyond the
tolerance. Deterministic for a seed, so a failure reproduces: the failing
model is kept in the temporary folder and named.

    python3 random_graphs.py GJIT TMPDIR [--count N] [--seed S]
"""

import argparse
import os
import random
import subprocess
import sys

UNARY = ["relu", "tanh", "sigmoid", "abs", "neg", "exp", "erf", "softsign"]
BINARY = ["add", "sub", "mul", "max", "min"]


def ttype(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


class Graph:
    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.values = []  # (name, shape)
        self.count = 0

    def new(self, shape, text):
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"  {name} = {text}")
        self.values.append((name, shape))
        return name

    def pick(self, shape=None):
        choices = [v for v in self.values if shape is None or v[1] == shape]
        return self.rng.choice(choices) if choices else None

    def step(self):
        rng = self.rng
        kind = rng.choice(["unary", "binary", "binary", "broadcast",
                           "reduce", "transpose", "softmax", "matmul"])
        a, shape = self.pick()
        t = ttype(shape)
        if kind == "unary":
            op = rng.choice(UNARY)
            self.new(shape, f"graph.{op}({a}) : ({t}) -> {t}")
        elif kind == "binary":
            b, _ = self.pick(shape)
            op = rng.choice(BINARY)
            self.new(shape, f"graph.{op}({a}, {b}) : ({t}, {t}) -> {t}")
        elif kind == "broadcast" and len(shape) >= 2:
            # The last dimension of a against a row of the same width.
            row = [shape[-1]]
            r = self.new(row, f"graph.constant dense<{rng.uniform(-2, 2):.3f}> "
                              f": {ttype(row)}")
            self.new(shape, f"graph.mul({a}, {r}) : ({t}, {ttype(row)}) -> {t}")
        elif kind == "reduce":
            axis = rng.randrange(len(shape))
            out = list(shape)
            out[axis] = 1
            op = rng.choice(["reduce_sum", "reduce_max", "reduce_mean"])
            axes = self.new([1], f"graph.constant dense<[{axis}]> : tensor<1xi64>")
            # Constants are not values of the chain: keep f32 tensors only.
            self.values.pop()
            self.new(out, f"graph.{op}({a}, {axes}) : ({t}, tensor<1xi64>) "
                          f"-> {ttype(out)}")
        elif kind == "transpose" and len(shape) >= 2:
            perm = list(range(len(shape)))[::-1]
            out = [shape[p] for p in perm]
            self.new(out, f"graph.transpose({a}) {{perm = {perm}}} : ({t}) "
                          f"-> {ttype(out)}")
        elif kind == "softmax":
            self.new(shape, f"graph.softmax({a}) {{axis = -1 : i64}} : ({t}) -> {t}")
        elif kind == "matmul" and len(shape) == 2:
            n = rng.randint(1, 17)
            w = [shape[1], n]
            b = self.new(w, f"graph.constant dense<{rng.uniform(-1, 1):.3f}> "
                            f": {ttype(w)}")
            out = [shape[0], n]
            self.new(out, f"graph.mat_mul({a}, {b}) : ({t}, {ttype(w)}) "
                          f"-> {ttype(out)}")


def model(rng):
    rank = rng.randint(1, 3)
    shape = [rng.randint(1, 9) for _ in range(rank)]
    g = Graph(rng)
    args = [(f"%arg{i}", shape) for i in range(2)]
    g.values.extend(args)
    for _ in range(rng.randint(2, 8)):
        g.step()
    result, rshape = g.values[-1]
    sig = ", ".join(f"{n}: {ttype(s)}" for n, s in args)
    text = [f"func.func @main({sig}) -> {ttype(rshape)} {{"]
    text += g.lines
    text.append(f"  return {result} : {ttype(rshape)}")
    text.append("}")
    inputs = []
    for _, s in args:
        n = 1
        for d in s:
            n *= d
        values = " ".join(f"{rng.uniform(-3, 3):.4f}" for _ in range(n))
        inputs.append("x".join(str(d) for d in s) + "xf32=" + values)
    return "\n".join(text) + "\n", inputs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gjit")
    ap.add_argument("tmp")
    ap.add_argument("--count", type=int, default=25)
    ap.add_argument("--seed", type=int, default=1)
    opts = ap.parse_args()
    rng = random.Random(opts.seed)
    os.makedirs(opts.tmp, exist_ok=True)
    failures = 0
    for i in range(opts.count):
        text, inputs = model(rng)
        path = os.path.join(opts.tmp, f"random_{opts.seed}_{i}.gilt")
        with open(path, "w") as f:
            f.write(text)
        cmd = [opts.gjit, path, "--check", "--tolerance=1e-4,1e-5"]
        cmd += [f"--input={x}" for x in inputs]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            failures += 1
            print(f"FAIL {path}:\n{run.stdout}{run.stderr}")
    print(f"random-differential: {opts.count - failures} of {opts.count} agree")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
