"""Every reference model of ../shared/models compiled from Python matches
the output PyTorch computed, within a relative L2 error of 1e-4 (what
gjit --tolerance-l2=1e-4 checks), by position and by input name."""

import json
import os
import unittest

import numpy as np

import gilt
from support import shared_model

MODELS = ("mlp", "lenet", "squeezenet", "mobilenet_v2", "resnet18",
          "encoder")


def reference(folder):
    """The reference input and output: raw arrays io.json describes."""
    with open(os.path.join(folder, "io.json")) as f:
        io = json.load(f)
    x = np.fromfile(os.path.join(folder, "input_0.bin"),
                    dtype=io["in_dtype"]).reshape(io["in_shape"])
    y = np.fromfile(os.path.join(folder, "output_0.bin"),
                    dtype=np.float32).reshape(io["out_shape"])
    return x, y


def relative_l2(actual, expected):
    return np.linalg.norm(actual - expected) / np.linalg.norm(expected)


class SharedModels(unittest.TestCase):
    def check(self, name, threads):
        folder = shared_model(name)
        x, expected = reference(folder)
        with gilt.compile(os.path.join(folder, "model.onnx"),
                          threads=threads) as m:
            self.assertEqual(len(m.inputs), 1)
            self.assertEqual(m.inputs[0].shape, x.shape)
            self.assertEqual(m.inputs[0].dtype, x.dtype)
            self.assertEqual(m.outputs[0].shape, expected.shape)
            (y,) = m(x)
            self.assertEqual(y.shape, expected.shape)
            self.assertEqual(y.dtype, np.float32)
            self.assertLessEqual(relative_l2(y, expected), 1e-4, name)
            (by_name,) = m(**{m.inputs[0].name: x})
            np.testing.assert_array_equal(by_name, y)

    def test_mlp(self):
        self.check("mlp", 1)

    def test_lenet(self):
        self.check("lenet", 2)

    def test_squeezenet(self):
        self.check("squeezenet", 2)

    def test_mobilenet_v2(self):
        self.check("mobilenet_v2", 2)

    def test_resnet18(self):
        self.check("resnet18", 2)

    def test_encoder(self):
        self.check("encoder", 2)

    def test_interpreted(self):
        folder = shared_model("mlp")
        x, expected = reference(folder)
        with gilt.compile(os.path.join(folder, "model.onnx"),
                          interpret=True) as m:
            (y,) = m(x)
        self.assertLessEqual(relative_l2(y, expected), 1e-4)

    def test_names_and_cache(self):
        """ONNX input and output names, also from a compile cache entry,
        which gives the same results."""
        import tempfile
        folder = shared_model("mlp")
        x, _ = reference(folder)
        path = os.path.join(folder, "model.onnx")
        with tempfile.TemporaryDirectory() as cache:
            with gilt.compile(path, cache_dir=cache) as first:
                (y1,) = first(x)
            # One entry (beside it, the model's remembered hash).
            entries = [f for f in os.listdir(cache) if f.endswith(".gjc")]
            self.assertEqual(len(entries), 1)
            with gilt.compile(path, cache_dir=cache) as second:
                (y2,) = second(x)
                self.assertEqual([i.name for i in second.inputs],
                                 [i.name for i in first.inputs])
                self.assertEqual([o.name for o in second.outputs],
                                 [o.name for o in first.outputs])
        self.assertEqual(first.inputs[0].name, "input")
        self.assertEqual(first.outputs[0].name, "output")
        np.testing.assert_array_equal(y1, y2)

    def test_benchmark(self):
        """The keys of gjit --benchmark-format=json, and their sense."""
        with gilt.compile(os.path.join(shared_model("mlp"), "model.onnx"),
                          threads=1) as m:
            r = m.benchmark(runs=5)
        for key in ("compile_ms", "median_ms", "min_ms", "runs", "threads",
                    "peak_rss_mb", "model", "function", "backend",
                    "import_ms", "pipeline_ms", "jit_ms", "warmup_runs",
                    "max_ms"):
            self.assertIn(key, r)
        self.assertEqual((r["runs"], r["threads"], r["backend"]),
                         (5, 1, "compiled"))
        self.assertLessEqual(0, r["min_ms"])
        self.assertLessEqual(r["min_ms"], r["median_ms"])
        self.assertLessEqual(r["median_ms"], r["max_ms"])


if __name__ == "__main__":
    unittest.main()
