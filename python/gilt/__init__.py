"""gilt from Python: compile and run models with NumPy arrays, and build,
inspect and transform gilt's IR.

    import gilt, numpy as np
    m = gilt.compile("model.onnx", threads=2)
    (y,) = m(np.zeros((1, 784), np.float32))

A pure-Python package over libgilt.so (ctypes); docs/python.md is its
manual. Errors raise gilt.Error with gilt's diagnostics in the message.
"""

from .errors import Error, Warning
from .ir import (Attribute, Block, Builder, Context, Location, Module, Op,
                 Region, Type, Value)
from .model import Model, TensorInfo, compile

__all__ = ["Attribute", "Block", "Builder", "Context", "Error", "Location",
           "Model", "Module", "Op", "Region", "TensorInfo", "Type", "Value",
           "Warning", "compile"]
