"""What the package's tests share: where the test inputs are.

`make check-python` runs the tests from the build directory with the
package on PYTHONPATH and says where the sources (GILT_SRCDIR), the shared
reference models (GILT_SHARED_MODELS) and the ONNX test data
(GILT_ONNX_TESTDATA) are, and whether the library is sanitized
(GILT_SANITIZE); a test whose inputs are missing is skipped.
"""

import os
import unittest

SRCDIR = os.environ.get("GILT_SRCDIR", os.path.join(
    os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir))
SHARED_MODELS = os.environ.get("GILT_SHARED_MODELS") or os.path.join(
    SRCDIR, os.pardir, "shared", "models")
ONNX_TESTDATA = os.environ.get("GILT_ONNX_TESTDATA", "")


def source(*parts):
    return os.path.join(SRCDIR, *parts)


def shared_model(name):
    """The folder of a reference model; skips the test when it is absent."""
    path = os.path.join(SHARED_MODELS, name)
    if not os.path.isdir(path):
        raise unittest.SkipTest("no reference model %s in %s" %
                                (name, SHARED_MODELS))
    return path


def onnx_test(name):
    """The folder of an ONNX backend test; skips when there is no suite."""
    path = os.path.join(ONNX_TESTDATA, "node", name)
    if not ONNX_TESTDATA or not os.path.isdir(path):
        raise unittest.SkipTest("no ONNX test data (libonnx-testdata)")
    return path
