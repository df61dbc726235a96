"""build.py - a custom frontend in a few lines: a two-op graph,
y = relu(x @ w), built with gilt's builder, printed, compiled and run on
NumPy arrays, as a frontend for another model format would do it.

    PYTHONPATH=python python3 examples/python/build.py
"""

import numpy as np

import gilt

with gilt.Context() as ctx:
    f32 = np.float32
    x_type = ctx.tensor_type([2, 4], f32)
    w_type = ctx.tensor_type([4, 3], f32)
    y_type = ctx.tensor_type([2, 3], f32)

    module = ctx.create_module()
    fn = module.add_function("main", [x_type, w_type], [y_type],
                             location="example")
    b = gilt.Builder(fn)  # at the end of the function's entry block
    x, w = next(fn.regions[0].blocks).arguments
    product = b.create("graph.mat_mul", [x, w]).result  # its type inferred
    relu = b.create("graph.relu", [product], results=[y_type]).result
    b.create("func.return", [relu], results=[])
    module.verify()
    print(module)

    with gilt.compile(module, threads=1) as model:
        xs = np.arange(8, dtype=f32).reshape(2, 4)
        ws = np.array([[1, -1, 0], [0, 2, 1], [-1, 0, 1], [0.5, 0.5, -2]], f32)
        (y,) = model(xs, ws)
    print("relu(x @ w) =\n", y)
    assert np.array_equal(y, np.maximum(xs @ ws, 0))
