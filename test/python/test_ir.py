"""The IR from Python: parsing and printing round-trip, walking ops,
operands, results, attributes and types, passes, and ownership."""

import unittest

import gilt
from support import source

ADD = """func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = graph.add(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""


class Parsing(unittest.TestCase):
    def test_round_trip(self):
        """print -> parse -> print is byte-identical, for a small module
        and for the bundled example."""
        with open(source("examples", "classify.gilt")) as f:
            classify = f.read()
        with gilt.Context() as ctx:
            for text in (ADD, classify):
                first = str(ctx.parse(text))
                self.assertEqual(str(ctx.parse(first)), first)

    def test_walk(self):
        with gilt.Context() as ctx:
            module = ctx.parse(ADD)
            names = [op.name for op in module.walk()]
            self.assertEqual(names, ["builtin.module", "func.func",
                                     "graph.add", "func.return"])
            fn = module.functions["main"]
            self.assertEqual(fn.symbol, "main")
            add = next(op for op in fn.walk() if op.name == "graph.add")
            a, b = add.operands
            self.assertTrue(a.is_block_argument)
            self.assertEqual(a.index, 0)
            self.assertEqual(str(b.type), "tensor<3xf32>")
            self.assertEqual(b.type.shape, (3,))
            self.assertEqual(add.result.type.element_type,
                             ctx.parse_type("f32"))
            self.assertEqual(add.result.num_uses, 1)
            self.assertEqual(add.parent, fn)
            fn_type = fn.attributes["function_type"].value
            self.assertEqual(fn_type.kind, "function")
            self.assertEqual([str(t) for t in fn_type.inputs],
                             ["tensor<2x3xf32>", "tensor<3xf32>"])

    def test_attributes(self):
        with gilt.Context() as ctx:
            for text, value in (("3 : i64", 3), ('"x"', "x"), ("true", True),
                                ("[1 : i64, 2 : i64]", [1, 2]),
                                ("unit", None)):
                self.assertEqual(ctx.parse_attr(text).value, value)
            self.assertEqual(str(ctx.attr([1, "a"])), '[1, "a"]')
            self.assertEqual(ctx.attr(2.5).value, 2.5)

    def test_pipeline(self):
        with gilt.Context() as ctx:
            module = ctx.parse(ADD)
            module.run("graph-to-loop")
            names = {op.name for op in module.walk()}
            self.assertNotIn("graph.add", names)
            self.assertIn("func.func", names)
            self.assertEqual(str(ctx.parse(str(module))), str(module))

    def test_closed_context(self):
        """Closing a context closes its modules; their use raises."""
        ctx = gilt.Context()
        module = ctx.parse(ADD)
        ctx.close()
        with self.assertRaises(gilt.Error):
            module.operation
        ctx.close()  # twice is harmless


if __name__ == "__main__":
    unittest.main()
