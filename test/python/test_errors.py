"""Bad input raises gilt.Error with gilt's diagnostics (locations, ONNX
node names) in its message, before anything runs; nothing is printed."""

import os
import tempfile
import unittest

import numpy as np

import gilt
from support import onnx_test, source

ADD = source("test", "lit", "gjit", "Inputs", "add.gilt")


class Stderr:
    """Captures file descriptor 2, where C code would print."""

    def __enter__(self):
        self.file = tempfile.TemporaryFile()
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode()
        self.file.close()


class Errors(unittest.TestCase):
    def test_parse_error_has_location(self):
        with gilt.Context() as ctx, Stderr() as err:
            with self.assertRaises(gilt.Error) as e:
                ctx.parse("func.func @f() {\n  %0 = graph.nope()\n}\n",
                          filename="bad.gilt")
        self.assertRegex(str(e.exception), r"bad\.gilt:2:\d+: error: ")
        self.assertEqual(err.text, "")

    def test_wrong_inputs(self):
        with gilt.compile(ADD) as m, Stderr() as err:
            a = np.ones((2, 3), np.float32)
            b = np.ones(3, np.float32)
            cases = {
                "takes 2 inputs, got 1": (a,),
                "input 0 is a tensor of 2x4xf32": (np.ones((2, 4),
                                                           np.float32), b),
                "input 0 is a tensor of 2x3xf64": (a.astype(np.float64), b),
            }
            for message, inputs in cases.items():
                with self.assertRaisesRegex(gilt.Error, message):
                    m(*inputs)
            with self.assertRaisesRegex(gilt.Error, "no input named 'c'"):
                m(a, c=b)
            # A .gilt function's arguments are named by position.
            self.assertEqual([i.name for i in m.inputs], ["arg0", "arg1"])
            with self.assertRaisesRegex(gilt.Error, "missing input arg1"):
                m(arg0=a)
            with self.assertRaisesRegex(gilt.Error, "no element type"):
                m(a.astype(np.complex64), b)
            (y,) = m(a, b)  # the model still works
        np.testing.assert_array_equal(y, a + b)
        self.assertEqual(err.text, "")

    def test_layouts(self):
        """Arrays gilt cannot read in place are copied, not refused."""
        with gilt.compile(ADD) as m:
            a = np.arange(6, dtype=np.float32).reshape(3, 2).T  # strided
            b = np.arange(3, dtype=">f4")  # big-endian
            (y,) = m(a, b)
            np.testing.assert_array_equal(y, a + b.astype(np.float32))
            ro = np.ones((2, 3), np.float32)
            ro.setflags(write=False)
            np.testing.assert_array_equal(m(ro, b)[0], ro + b)

    def test_missing_model(self):
        with self.assertRaisesRegex(gilt.Error, "cannot"):
            gilt.compile("/nonexistent/model.onnx")
        with self.assertRaisesRegex(gilt.Error, "device"):
            gilt.compile(ADD, device="tpu")

    def test_pipeline_error(self):
        with self.assertRaisesRegex(gilt.Error, "no-such-pass"):
            gilt.compile(ADD, pipeline="no-such-pass")

    def test_run_error_names_onnx_node(self):
        folder = onnx_test("test_gather_0")
        data = np.zeros((5, 4, 3, 2), np.float32)
        with gilt.compile(os.path.join(folder, "model.onnx")) as m, \
                Stderr() as err:
            with self.assertRaisesRegex(
                    gilt.Error, r"model\.onnx:1:1: error: in node "
                                r"'Gather_0': .*index is out of range"):
                m(data, np.array([0, 1, 7], np.int64))
        self.assertEqual(err.text, "")


if __name__ == "__main__":
    unittest.main()
