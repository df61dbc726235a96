"""ab_aot.py - two builds of gjit on one model, called in turn in one
process: the way to tell a change of a few percent on a shared machine.

Timings of separate processes, even alternated, move by 10 to 30% from
one run to the next on these virtual machines (where each process's
memory lands, the neighbours' load), far more than most changes are
worth. Here each gjit compiles the model ahead of time (--aot), one C
program links both objects with lib/libgilt-runtime.a and calls them
alternately on the same input, each timed by itself, so both see the
same memory, caches and load; it prints each one's median and tenth
percentile and their ratios, and the ratio of each round's two calls:
its median, a 95% interval for that median, and in how many rounds the
new build was faster.

Where the two objects lie in the program matters too: on the Zen 5 VM
the object linked second ran ResNet-18 up to 10% faster than the same
code linked first (2026-12-02: 5 to 10% in six processes, 1 to 2% in
the next two), and a 512-channel 7x7 layer 6 to 11%: the order decides
where in a 4 KB page each object's weights begin, which mattered that
much (docs/performance.md; gilt starts them on a page since). So
the program is linked in both orders and each is run in turn, --pairs
times; the last line is the geometric mean of the processes' paired
medians, the one figure to quote, with their range. The same build
against itself reads within 1 to 2% there.

    python3 bench/ab_aot.py MODEL --old /tmp/gjit_before --new bin/gjit \\
        [--rounds 50] [--threads 1] [--pairs 1]

MODEL is a model file (.onnx, .gilt) or a folder holding model.onnx (as
bench/vs_ort.py takes). Its @main must take and return buffers of static
shapes (memrefs, rank 0 included), as every ONNX model of fixed shapes
does; the arguments are filled with a fixed pattern, floats in [-1, 1),
integers 0 (token ids, indices), whatever their use, and it must run on
such inputs. The order of the two calls alternates from round to round,
so that neither build always runs first. Both objects link the runtime
of --runtime (the new build's, by default), and with --threads N > 1 run
on one pool of N threads, which the program installs as the JIT does.
"""

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

ELEMENT_TYPES = {"f32": "float", "f64": "double", "i64": "int64_t",
                 "i32": "int32_t", "i8": "int8_t", "ui8": "uint8_t",
                 "i1": "uint8_t"}

DRIVER = r"""
#include "a.h"
#include "b.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The runtime's pool (jit/threadpool.h, jit/runtime.h): internal to gilt,
** declared here as the JIT calls it. */
typedef struct JitThreadPool JitThreadPool;
JitThreadPool *jit_threadpool_create(size_t threads);
JitThreadPool *jit_runtime_set_pool(JitThreadPool *pool);

static double now_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int by_value(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static void fill(GiltMemRefDesc *d, int rank, const int64_t *shape,
                 size_t size, int is_float)
{
  int64_t n = 1;
  for (int i = rank - 1; i >= 0; i--) {
    d->sizes[i] = shape[i];
    d->strides[i] = n;
    n *= shape[i];
  }
  d->data = aligned_alloc(64, ((size_t)n * size + 63) / 64 * 64 + 64);
  d->offset = 0;
  for (int64_t i = 0; i < n; i++) {
    if (is_float && size == 4)
      ((float *)d->data)[i] = (float)((i * 7919) % 1000) / 500.0f - 1.0f;
    else if (is_float)
      ((double *)d->data)[i] = (double)((i * 7919) % 1000) / 500.0 - 1.0;
    else
      for (size_t k = 0; k < size; k++)
        ((unsigned char *)d->data)[i * (int64_t)size + (int64_t)k] = 0;
  }
}

static void report(const char *name, double *t, int rounds, double *median,
                   double *p10)
{
  qsort(t, (size_t)rounds, sizeof *t, by_value);
  *median = t[rounds / 2];
  *p10 = t[rounds / 10];
  printf("%s  median %9.4f ms  p10 %9.4f ms\n", name, *median, *p10);
}

int main(int argc, char **argv)
{
  (void)argc;
  int rounds = atoi(argv[1]), threads = atoi(argv[2]);
  if (threads > 1) {
    JitThreadPool *pool = jit_threadpool_create((size_t)threads);
    if (!pool) {
      fprintf(stderr, "ab_aot: cannot start %d threads\n", threads);
      return 1;
    }
    jit_runtime_set_pool(pool);
  }
  GiltMemRefDesc args[NUM_ARGS], results[2][NUM_RESULTS + 1];
FILL_ARGS
  double *t[2] = {malloc(sizeof(double) * (size_t)rounds),
                  malloc(sizeof(double) * (size_t)rounds)};
  for (int w = 0; w < 2; w++) { /* a warm-up each */
    if (a_main(ARGS(0)) || b_main(ARGS(1))) {
      fprintf(stderr, "ab_aot: a model's call failed: %s\n",
              gilt_rt_last_error());
      return 1;
    }
    FREE_RESULTS(0)
    FREE_RESULTS(1)
  }
  for (int r = 0; r < rounds; r++)
    for (int turn = 0; turn < 2; turn++) {
      int k = turn ^ (r & 1); /* a, b, then b, a */
      double start = now_ms();
      int failed = k == 0 ? a_main(ARGS(0)) : b_main(ARGS(1));
      t[k][r] = now_ms() - start;
      if (failed) {
        fprintf(stderr, "ab_aot: a model's call failed: %s\n",
                gilt_rt_last_error());
        return 1;
      }
      FREE_RESULTS(k)
    }
  /* Each round's pair, timed within a millisecond or so of each other:
  ** their ratio cancels the load both saw. The median's 95% interval
  ** lies between the order statistics n/2 -+ 0.98 sqrt(n) (the sign
  ** test's, from the normal approximation to the binomial). */
  double *ratio = malloc(sizeof(double) * (size_t)rounds);
  int faster = 0;
  for (int r = 0; r < rounds; r++) {
    ratio[r] = t[1][r] / t[0][r];
    faster += ratio[r] < 1;
  }
  qsort(ratio, (size_t)rounds, sizeof *ratio, by_value);
  int half = (int)(0.98 * sqrt((double)rounds));
  int low = rounds / 2 - half < 0 ? 0 : rounds / 2 - half;
  int high = rounds / 2 + half >= rounds ? rounds - 1 : rounds / 2 + half;
  double m[2], p[2];
  report("old", t[0], rounds, &m[0], &p[0]);
  report("new", t[1], rounds, &m[1], &p[1]);
  printf("paired: new / old  median %.3f, 95%% interval %.3f to %.3f, new "
         "faster in %d of %d rounds\n",
         ratio[rounds / 2], ratio[low], ratio[high], faster, rounds);
  printf("new / old  median %.3f  p10 %.3f  (%d rounds, %d thread%s)\n",
         m[1] / m[0], p[1] / p[0], rounds, threads, threads > 1 ? "s" : "");
  return 0;
}
"""


def buffer(line, what):
    """(dims, element type) of a static memref in the comment's line about
    an argument or result; exits on anything else."""
    m = re.match(r"\s*\* +(argument|result) \d+: \S+: shape (.+?)"
                 r"(?: \(a scalar in memory\))?, element type (\w+)$", line)
    if not m:
        sys.exit("ab_aot: %s is not a buffer: %s" % (what, line.strip()))
    shape, elem = m.group(2), m.group(3)
    if "?" in shape:
        sys.exit("ab_aot: %s has a dynamic shape: %s" % (what, line.strip()))
    if elem not in ELEMENT_TYPES:
        sys.exit("ab_aot: %s of element type %s" % (what, elem))
    return ([] if shape == "()" else [int(d) for d in shape.split("x")],
            elem)


def signature(header, prefix):
    """[(dims, element type)] of @main's arguments, and its result count,
    from the comment gjit --aot writes above the prototype."""
    text = open(header).read()
    block = re.search(r"/\* %s_main: .*?\*/" % prefix, text, re.S)
    if not block:
        sys.exit("ab_aot: %s declares no %s_main" % (header, prefix))
    args, results = [], 0
    for line in block.group(0).splitlines():
        if re.match(r"\s*\* +argument \d+:", line):
            args.append(buffer(line, "an argument"))
        elif re.match(r"\s*\* +result \d+:", line):
            buffer(line, "a result")
            results += 1
    return args, results


def compile_model(gjit, model, threads, out):
    subprocess.run([gjit, model, "--threads=%d" % threads, "--aot=" + out],
                   check=True, stdout=subprocess.DEVNULL)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--old", required=True, help="the gjit before")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p.add_argument("--new", default=os.path.join(root, "bin", "gjit"),
                   help="the gjit after")
    p.add_argument("--rounds", type=int, default=50)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--pairs", type=int, default=1)
    p.add_argument("--runtime",
                   default=os.path.join(root, "lib", "libgilt-runtime.a"))
    p.add_argument("--cc", default=os.environ.get("CC", "cc"))
    opts = p.parse_args()
    if opts.rounds < 1 or opts.threads < 1 or opts.pairs < 1:
        sys.exit("ab_aot: --rounds, --threads and --pairs must be 1 or more")
    model = opts.model
    if os.path.isdir(model):
        model = os.path.join(model, "model.onnx")
    with tempfile.TemporaryDirectory() as tmp:
        for name, gjit in (("a", opts.old), ("b", opts.new)):
            compile_model(gjit, model, opts.threads, os.path.join(tmp, name))
        args, results = signature(os.path.join(tmp, "a.h"), "a")
        if (args, results) != signature(os.path.join(tmp, "b.h"), "b"):
            sys.exit("ab_aot: the two builds give @main different types")
        fills = []
        for i, (dims, elem) in enumerate(args):
            shape = "{%s}" % ", ".join(str(d) for d in dims or [1])
            fills.append("  { int64_t shape[] = %s; fill(&args[%d], %d, "
                         "shape, sizeof(%s), %d); }"
                         % (shape, i, len(dims), ELEMENT_TYPES[elem],
                            elem.startswith("f")))
        call = ", ".join(["&args[%d]" % i for i in range(len(args))] +
                         ["&results[K][%d]" % i for i in range(results)])
        source = (DRIVER.replace("FILL_ARGS", "\n".join(fills))
                  .replace("NUM_ARGS", str(max(len(args), 1)))
                  .replace("NUM_RESULTS", str(results))
                  .replace("ARGS(0)", call.replace("K", "0"))
                  .replace("ARGS(1)", call.replace("K", "1"))
                  .replace("FREE_RESULTS(", "FREE_RESULTS_OF("))
        source = source.replace(
            "#include <time.h>\n",
            "#include <time.h>\n\n#define FREE_RESULTS_OF(k) %s\n" % " ".join(
                "gilt_rt_free(results[k][%d].data);" % i
                for i in range(results)), 1)
        driver = os.path.join(tmp, "driver.c")
        with open(driver, "w") as f:
            f.write(source)
        programs = []
        for order in (("a", "b"), ("b", "a")):
            programs.append(os.path.join(tmp, "ab_" + order[0]))
            subprocess.run([opts.cc, "-O2", "-I", tmp, "-I",
                            os.path.join(root, "include"), driver] +
                           [os.path.join(tmp, n + ".o") for n in order] +
                           [opts.runtime, "-lm", "-lpthread",
                            "-o", programs[-1]], check=True)
        medians = []
        for i in range(2 * opts.pairs):
            first = "old" if i % 2 == 0 else "new"
            print("process %d, the %s build's object linked first:"
                  % (i + 1, first))
            sys.stdout.flush()
            run = subprocess.run([programs[i % 2], str(opts.rounds),
                                  str(opts.threads)],
                                 stdout=subprocess.PIPE, text=True)
            print(run.stdout, end="")
            if run.returncode:
                return run.returncode
            medians.append(float(re.search(r"paired: new / old  median "
                                           r"([\d.]+)", run.stdout)[1]))
        balanced = math.exp(sum(map(math.log, medians)) / len(medians))
        print("new / old, both link orders: %.3f (each process from %.3f "
              "to %.3f)" % (balanced, min(medians), max(medians)))
        return 0


if __name__ == "__main__":
    sys.exit(main())
