"""cases_reduce.py - the reductions, pools, Split and scatters whose
definition changed in opsets 18 to 20: the Reduce family with its axes as
an input and noop_with_empty_axes (18), ReduceMax and ReduceMin on bool
(20), Split's num_outputs (18), LpPool's ceil_mode and dilations (18),
AveragePool's dilations (19), ScatterElements and ScatterND reducing with
max and min (18). gen.py says how cases are written."""
import numpy as np
from onnx import TensorProto, helper

from gen import case, rand

F = TensorProto.FLOAT

# One case per Reduce operator at 18, axes in an initializer, alternating
# keepdims and negative axes so both shapes get checked.
REDUCE_18 = [("ReduceL1", "reduce_l1"), ("ReduceL2", "reduce_l2"),
             ("ReduceLogSum", "reduce_log_sum"),
             ("ReduceLogSumExp", "reduce_log_sum_exp"),
             ("ReduceMax", "reduce_max"), ("ReduceMean", "reduce_mean"),
             ("ReduceMin", "reduce_min"), ("ReduceProd", "reduce_prod"),
             ("ReduceSumSquare", "reduce_sum_square")]
for i, (op, name) in enumerate(REDUCE_18):
    # ReduceLogSum needs a positive sum.
    low = 0.1 if op == "ReduceLogSum" else -3.0
    case("%s_18_axes_input" % name, 18,
         [helper.make_node(op, ["x", "axes"], ["y"], keepdims=i % 2)],
         {"x": rand(2, 3, 4, low=low)},
         [("y", F)],
         {"axes": np.array([1, -1], dtype=np.int64)})

# No axes: everything, or nothing under noop_with_empty_axes (an empty
# axes input is the same as none).
case("reduce_mean_18_no_axes", 18,
     [helper.make_node("ReduceMean", ["x"], ["y"], keepdims=0)],
     {"x": rand(2, 3, 4)}, [("y", F)])
case("reduce_sum_square_18_noop_empty_axes", 18,
     [helper.make_node("ReduceSumSquare", ["x", "axes"], ["y"],
                       noop_with_empty_axes=1)],
     {"x": rand(2, 3)}, [("y", F)],
     {"axes": np.array([], dtype=np.int64)})
case("reduce_max_18_noop_no_axes", 18,
     [helper.make_node("ReduceMax", ["x", ""], ["y"],
                       noop_with_empty_axes=1, keepdims=0)],
     {"x": rand(3, 2)}, [("y", F)])
# ReduceMax and ReduceMin on bool (20), and on floats at 20.
for op, name in (("ReduceMax", "reduce_max"), ("ReduceMin", "reduce_min")):
    case("%s_20_bool" % name, 20,
         [helper.make_node(op, ["x", "axes"], ["y"], keepdims=0)],
         {"x": rand(3, 4) > 0}, [("y", TensorProto.BOOL)],
         {"axes": np.array([1], dtype=np.int64)})
    case("%s_20_float" % name, 20,
         [helper.make_node(op, ["x", "axes"], ["y"])],
         {"x": rand(2, 5)}, [("y", F)],
         {"axes": np.array([0], dtype=np.int64)})

# Split (18): num_outputs, the last part smaller when it does not divide;
# or the split input.
case("split_18_num_outputs", 18,
     [helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1,
                       num_outputs=3)],
     {"x": rand(2, 7)}, [("a", F), ("b", F), ("c", F)])
case("split_18_split_input", 18,
     [helper.make_node("Split", ["x", "s"], ["a", "b"], axis=0)],
     {"x": rand(5, 2)}, [("a", F), ("b", F)],
     {"s": np.array([2, 3], dtype=np.int64)})

# LpPool (18): ceil_mode, dilations.
case("lp_pool_18_ceil_mode", 18,
     [helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[2, 2],
                       strides=[2, 2], ceil_mode=1, p=2)],
     {"x": rand(1, 2, 5, 5)}, [("y", F)])
case("lp_pool_18_dilations", 18,
     [helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[2, 2],
                       dilations=[2, 2], p=1)],
     {"x": rand(1, 2, 6, 6)}, [("y", F)])

# AveragePool (19): dilations, with ceil_mode and padding.
case("average_pool_19_dilations", 19,
     [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2],
                       dilations=[2, 2], strides=[1, 1])],
     {"x": rand(1, 2, 6, 6)}, [("y", F)])
case("average_pool_19_dilations_ceil", 19,
     [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                       dilations=[2, 1], strides=[2, 2], pads=[1, 1, 1, 1],
                       ceil_mode=1)],
     {"x": rand(1, 1, 7, 8)}, [("y", F)])

# ScatterElements and ScatterND (18): max and min, with repeated indices.
case("scatter_elements_18_max", 18,
     [helper.make_node("ScatterElements", ["data", "idx", "upd"], ["y"],
                       axis=1, reduction="max")],
     {"data": rand(3, 4), "upd": rand(3, 2)}, [("y", F)],
     {"idx": np.array([[0, 0], [1, 3], [2, 2]], dtype=np.int64)})
case("scatter_nd_18_min", 18,
     [helper.make_node("ScatterND", ["data", "idx", "upd"], ["y"],
                       reduction="min")],
     {"data": rand(4, 3), "upd": rand(3, 3)}, [("y", F)],
     {"idx": np.array([[1], [3], [1]], dtype=np.int64)})
