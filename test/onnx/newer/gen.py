"""gen.py - writes the ONNX test cases of opsets 18 to 21 (Debian's backend
suite stops at 17), in the backend suite's layout, so test/onnx/import_suite.sh
checks them as it checks the suite:

    node/<case>/model.onnx
    node/<case>/test_data_set_0/input_<i>.pb, output_<i>.pb

A case file (cases_*.py beside this one) calls case() for each model:
python3-onnx's helper writes any opset number, and the inputs come from a
seeded generator. The reference outputs are ONNX Runtime's: regenerate.sh
runs this script (models and inputs, plus .npy copies of the inputs),
refs.js (ONNX Runtime 1.30 through node, outputs as .npy), then this script
again with --outputs (the .npy outputs into output_<i>.pb). Only the .onnx
and .pb files are committed.

Needs Debian's python3-onnx and python3-numpy (/usr/bin/python3).
"""
import glob
import importlib.util
import os
import shutil
import sys
import zlib

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "node")
WORK = os.environ.get("GILT_ONNX_WORK", os.path.join(HERE, ".work"))

# Reseeded from each case file's name before it runs, so a file's values do
# not depend on which other case files exist.
_rng = np.random.default_rng(0)


def rand(*shape, dtype=np.float32, low=-3.0, high=3.0):
    """Seeded values in [low, high), as `dtype`."""
    return _rng.uniform(low, high, size=shape).astype(dtype)


def case(name, opset, nodes, inputs, outputs, initializers=None,
         extra_initializers=()):
    """One model: `nodes` (helper.make_node), `inputs` {name: array} fed at
    run time, `outputs` [(name, TensorProto element type)] whose shapes ONNX
    Runtime decides, `initializers` {name: array} stored in the model, and
    `extra_initializers`, TensorProtos built by hand (types numpy lacks)."""
    initializers = initializers or {}
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, _tensor_type(a.dtype), a.shape)
         for n, a in inputs.items()],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        [numpy_helper.from_array(a, n) for n, a in initializers.items()] +
        list(extra_initializers))
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)],
        producer_name="gilt test/onnx/newer/gen.py")
    model.ir_version = 8 if opset <= 18 else 9
    folder = os.path.join(ROOT, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    work = os.path.join(WORK, name)
    os.makedirs(work, exist_ok=True)
    for i, (n, a) in enumerate(inputs.items()):
        with open(os.path.join(data, "input_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
        np.save(os.path.join(work, "in_%d.npy" % i), a)
    with open(os.path.join(work, "outputs.txt"), "w") as f:
        f.write("\n".join(n for n, _ in outputs) + "\n")


def _tensor_type(dtype):
    from onnx.mapping import NP_TYPE_TO_TENSOR_TYPE
    return NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]


def write_outputs():
    """The .npy outputs refs.js wrote into output_<i>.pb."""
    for work in sorted(glob.glob(os.path.join(WORK, "*"))):
        name = os.path.basename(work)
        with open(os.path.join(work, "outputs.txt")) as f:
            names = f.read().split()
        data = os.path.join(ROOT, name, "test_data_set_0")
        for i, n in enumerate(names):
            a = np.load(os.path.join(work, "out_%d.npy" % i))
            with open(os.path.join(data, "output_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())


def main():
    if sys.argv[1:] == ["--outputs"]:
        write_outputs()
        return
    shutil.rmtree(ROOT, ignore_errors=True)
    shutil.rmtree(WORK, ignore_errors=True)
    global _rng
    for path in sorted(glob.glob(os.path.join(HERE, "cases_*.py"))):
        name = os.path.basename(path)[:-3]
        _rng = np.random.default_rng(zlib.crc32(name.encode()))
        spec = importlib.util.spec_from_file_location(name, path)
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


if __name__ == "__main__":
    sys.modules["gen"] = sys.modules["__main__"]  # case files import this
    main()
