"""Contexts, models and outputs are freed: many create, run and close
cycles leave the process's memory where it was (run under python3 -X dev
by make check-python)."""

import gc
import os
import unittest

import numpy as np

import gilt
from support import source

ADD = source("test", "lit", "gjit", "Inputs", "add.gilt")


def rss_mb():
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    import resource
    return pages * resource.getpagesize() / 2 ** 20


class Memory(unittest.TestCase):
    def cycle(self, with_block):
        a = np.ones((2, 3), np.float32)
        b = np.ones(3, np.float32)
        if with_block:
            with gilt.compile(ADD, threads=1) as m:
                m(a, b)
        else:  # left to the garbage collector
            m = gilt.compile(ADD, threads=1, interpret=True)
            outputs = [m(a, b)[0] for _ in range(20)]
            del m, outputs
        with gilt.Context() as ctx, open(ADD) as f:
            ctx.parse(f.read()).run("graph-to-loop")

    @unittest.skipIf(os.environ.get("GILT_SANITIZE"),
                     "a sanitizer's quarantine holds freed memory; "
                     "its own checks cover this build")
    def test_no_growth(self):
        for i in range(10):  # allocators and LLVM settle
            self.cycle(i % 2 == 0)
        gc.collect()
        before = rss_mb()
        for i in range(60):
            self.cycle(i % 2 == 0)
        gc.collect()
        growth = rss_mb() - before
        self.assertLess(growth, 8, "%.1f MB more after 60 cycles" % growth)

    def test_outputs_outlive_model(self):
        """An output is the caller's: it stays valid after the model and
        its context are gone."""
        with gilt.compile(ADD) as m:
            (y,) = m(np.ones((2, 3), np.float32), np.ones(3, np.float32))
        gc.collect()
        np.testing.assert_array_equal(y, np.full((2, 3), 2, np.float32))


if __name__ == "__main__":
    unittest.main()
