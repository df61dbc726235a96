"""A model built with the builder, as a custom frontend would: a function
of two ops at the graph level, compiled and run."""

import contextlib
import io
import runpy
import unittest

import numpy as np

import gilt
from support import source


def build(ctx):
    """relu(x + b) over f32, for x of 2x3 and b of 3."""
    module = ctx.create_module()
    x_type = ctx.tensor_type([2, 3], np.float32)
    b_type = ctx.tensor_type([3], np.float32)
    fn = module.add_function("main", [x_type, b_type], [x_type],
                             location="relu_add")
    b = gilt.Builder(fn)
    x, bias = next(fn.regions[0].blocks).arguments
    total = b.create("graph.add", [x, bias], [x_type]).result
    relu = b.create("graph.relu", [total]).result  # inferred type
    b.create("func.return", [relu], [])
    return module


class BuilderTest(unittest.TestCase):
    def test_compile_and_run(self):
        with gilt.Context() as ctx:
            module = build(ctx)
            module.verify()
            self.assertIn("graph.relu", str(module))
            x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
            bias = np.array([0.5, 0.5, -10], np.float32)
            for interpret in (False, True):
                with gilt.compile(module, interpret=interpret) as m:
                    (y,) = m(x, bias)
                np.testing.assert_array_equal(y, np.maximum(x + bias, 0))
            # compile() worked on copies: the module is as built.
            self.assertIn("graph.add", str(module))

    def test_attributes_and_regions(self):
        with gilt.Context(allow_unregistered_dialects=True) as ctx:
            module = ctx.create_module()
            b = gilt.Builder(module.body)
            op = b.create("test.thing", [], [ctx.parse_type("i32")],
                          attributes={"n": 4, "name": "t", "w": 0.5,
                                      "dims": [1, 2],
                                      "data": np.arange(3, dtype=np.int32)},
                          regions=1)
            block = op.regions[0].append_block([ctx.parse_type("f32")])
            self.assertEqual(len(block.arguments), 1)
            attrs = op.attributes
            self.assertEqual(attrs["n"].value, 4)
            self.assertEqual(attrs["name"].value, "t")
            self.assertEqual(attrs["dims"].value, [1, 2])
            self.assertEqual(str(attrs["data"]),
                             "dense<[0, 1, 2]> : tensor<3xi32>")
            text = str(module)
            self.assertEqual(str(ctx.parse(text)), text)

    def test_example(self):
        """examples/python/build.py runs (it checks its own result)."""
        with contextlib.redirect_stdout(io.StringIO()) as out:
            runpy.run_path(source("examples", "python", "build.py"))
        self.assertIn("graph.mat_mul", out.getvalue())

    def test_bad_op(self):
        with gilt.Context() as ctx:
            module = ctx.create_module()
            with self.assertRaisesRegex(gilt.Error, "graph.nope"):
                gilt.Builder(module.body).create("graph.nope")


if __name__ == "__main__":
    unittest.main()
