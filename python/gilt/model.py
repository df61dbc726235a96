"""Compiled models: gilt.compile and Model, NumPy arrays in and out.

A Model is the library's GiltModel (include/gilt/model.h): the same
import, default pipeline, compile cache and JIT as `gjit`, so a model
computes here what it computes there, and Model.benchmark reports what
`gjit --benchmark-format=json` reports.

Inputs are not copied when their layout allows: a C-contiguous, aligned,
native-endian, writable array is handed to the compiled code as a tensor
view over its own memory. Any other array is copied once into that
layout. Outputs are not copied either: each is a NumPy array over the
tensor the call returned, freed when the array is.
"""

import collections
import ctypes
import json
import os

import numpy as np

from . import _lib
from ._lib import lib
from .errors import Error
from .ir import Closable, Context, Module, Type

TensorInfo = collections.namedtuple("TensorInfo", "name shape dtype type")
TensorInfo.__doc__ = """An input or output of a model: its name, its shape
(None for a dynamic dimension), its NumPy dtype and its gilt type."""

_BF16_KIND = 1


class _Output:
    """Owns one output tensor; NumPy arrays over it keep it alive through
    their base, and it is freed with the last of them."""

    __slots__ = ("ptr", "__array_interface__")

    def __init__(self, ptr, dtype):
        self.ptr = ptr
        rank = lib.gilt_tensor_get_rank(ptr)
        dims = lib.gilt_tensor_get_shape(ptr)
        self.__array_interface__ = {
            "shape": tuple(dims[i] for i in range(rank)),
            "typestr": dtype.str,
            "data": (lib.gilt_tensor_get_data(ptr) or 0, False),
            "version": 3,
        }

    def __del__(self):
        if lib is not None:
            lib.gilt_tensor_destroy(self.ptr)


# GiltDevice (gilt/model.h).
_DEVICES = {"cpu": 0, "cuda": 1}


def _compile_options(function, pipeline, interpret, threads, opt_level,
                     cache_dir, device, gpu_arch):
    opts = _lib.ModelOptions()
    opts.function = function.encode() if function else None
    opts.pipeline = pipeline.encode() if pipeline else None
    opts.interpret = interpret
    opts.threads = threads or 0
    opts.opt_level = opt_level
    opts.cache_dir = os.fsencode(cache_dir) if cache_dir else None
    opts.device = _DEVICES[device]
    opts.gpu_arch = gpu_arch.encode() if gpu_arch else None
    return opts


def compile(model, threads=None, pipeline=None, device="cpu",
            cache_dir=None, interpret=False, function=None, opt_level=2,
            gpu_arch=None):
    """Compiles a model for this machine's CPU or GPU and returns a Model.

    `model` is the path of an .onnx file or a .gilt module, or a Module
    (compiled from a copy: the module stays as it is). threads: the
    compiled code's threads (None: all cores). pipeline: the pass
    pipeline instead of the default one. cache_dir: a folder where compiled
    model files are kept and loaded from (docs/gjit.md). interpret: run the
    loop level on the reference interpreter instead of compiling.
    function: the function to call (default @main, or the only one).
    device: "cpu", or "cuda" for an NVIDIA GPU through the CUDA driver
    (docs/gpu.md), with gpu_arch "sm_80" (default) or "sm_90".
    Raises gilt.Error with the diagnostics when it fails."""
    if device not in _DEVICES:
        raise Error("device %r: gilt compiles for 'cpu' and 'cuda'"
                    % (device,))
    opts = _compile_options(function, pipeline, interpret, threads,
                            opt_level, cache_dir, device, gpu_arch)
    if isinstance(model, Module):
        ctx, owns = model.context, False
        ptr = lib.gilt_model_create_from_module(model.clone().take(),
                                                ctypes.byref(opts))
    else:
        ctx, owns = Context(), True
        path = os.fspath(model)
        ptr = lib.gilt_model_create(ctx.ptr, os.fsencode(path),
                                    ctypes.byref(opts))
    try:
        ctx.check(not ptr, "cannot compile %s" % (model,))
    except Error:
        if owns:
            ctx.close()
        raise
    return Model(ctx, ptr, owns)


class Model(Closable):
    """A compiled model: call it with NumPy arrays, positionally or by
    input name; it returns the list of its outputs. Close it (or use
    `with`) to free the code; it is freed when collected otherwise."""

    def __init__(self, context, ptr, owns_context):
        self.context = context
        self._ptr = ptr
        self._owns_context = owns_context
        fn_type = Type(context, lib.gilt_model_get_type(ptr))
        self.function = lib.gilt_model_get_function(ptr).decode()
        self.inputs = [self._info(t, lib.gilt_model_get_input_name, i, "arg")
                       for i, t in enumerate(fn_type.inputs)]
        self.outputs = [self._info(t, lib.gilt_model_get_output_name, i,
                                   "result")
                        for i, t in enumerate(fn_type.results)]
        # What a call needs per input, computed once: the element type a
        # view takes for each dtype the input accepts.
        self._accepts = [self._accepted(t) for t in fn_type.inputs]
        self._out_dtypes = [info.dtype for info in self.outputs]
        context.adopt(self)

    def _info(self, type, get_name, i, prefix):
        name = get_name(self._ptr, i)
        return TensorInfo(name.decode() if name else "%s%d" % (prefix, i),
                          type.shape if type.is_shaped else (),
                          type.dtype, type)

    def _accepted(self, type):
        """dtype -> element type pointer for an input of `type`: its own
        dtype, and uint16 for bf16 (NumPy has no bfloat16: the bits)."""
        elem = type.element_type
        dtype = type.dtype
        accepts = {dtype: elem.ptr}
        if lib.gilt_type_get_kind(elem.ptr) == 2 and \
                lib.gilt_float_type_get_kind(elem.ptr) == _BF16_KIND:
            accepts = {np.dtype(np.uint16): elem.ptr}
        return accepts

    @property
    def ptr(self):
        if self._ptr is None:
            raise Error("the model is closed")
        return self._ptr

    def close(self):
        if self._ptr is not None and self.context._ptr is not None:
            lib.gilt_model_destroy(self._ptr)
        self._ptr = None
        if self._owns_context:
            self._owns_context = False
            self.context.close()

    def __repr__(self):
        def show(infos):
            return ", ".join("%s: %s %s" % (i.name, i.shape, i.dtype)
                             for i in infos)
        return "<gilt.Model @%s (%s) -> (%s)>" % (
            self.function, show(self.inputs), show(self.outputs))

    # ---- calling ---------------------------------------------------------

    def _arrays(self, args, named):
        """The inputs in order, from positional and named arguments."""
        if not named:
            return args
        arrays = list(args) + [None] * (len(self.inputs) - len(args))
        for name, value in named.items():
            index = next((i for i, info in enumerate(self.inputs)
                          if info.name == name), None)
            if index is None:
                raise Error("@%s has no input named %r (inputs: %s)" % (
                    self.function, name,
                    ", ".join(i.name for i in self.inputs)))
            if index < len(args) or arrays[index] is not None:
                raise Error("input %r given twice" % name)
            arrays[index] = value
        missing = [self.inputs[i].name for i, a in enumerate(arrays)
                   if a is None]
        if missing:
            raise Error("missing input%s %s" % (
                "s" if len(missing) > 1 else "", ", ".join(missing)))
        return arrays

    def _views(self, arrays, keep):
        """Tensor views over the arrays (copied into a layout gilt reads
        where needed; `keep` holds what the views point into)."""
        ctx = self.context
        views = (ctypes.c_void_p * max(len(arrays), 1))()
        made = 0
        try:
            for i, value in enumerate(arrays):
                array = np.asarray(value)
                accepts = self._accepts[i] if i < len(self._accepts) else {}
                elem = accepts.get(array.dtype)
                if elem is None:
                    elem = ctx.element_type(array.dtype).ptr
                # carray: C-contiguous, aligned and writeable.
                if not (array.flags.carray and array.dtype.isnative):
                    array = np.ascontiguousarray(
                        array, dtype=array.dtype.newbyteorder("="))
                keep.append(array)
                shape = (ctypes.c_int64 * array.ndim)(*array.shape)
                view = lib.gilt_tensor_create_view(elem, array.ndim, shape,
                                                   array.ctypes.data)
                if not view:
                    raise Error("input %d: cannot view an array of %s %s" %
                                (i, array.shape, array.dtype))
                views[i] = view
                made += 1
        except BaseException:
            for i in range(made):
                lib.gilt_tensor_destroy(views[i])
            raise
        return views, made

    def _outputs(self, n, outputs):
        arrays = []
        for i in range(n):
            ptr = outputs[i]
            dtype = (self._out_dtypes[i] if i < len(self._out_dtypes) else
                     Type(self.context,
                          lib.gilt_tensor_get_element_type(ptr)).dtype)
            arrays.append(np.asarray(_Output(ptr, dtype)))
        _lib.free(outputs)
        return arrays

    def _run(self, call, args, named):
        keep = []
        views, n = self._views(self._arrays(args, named), keep)
        num_outputs = ctypes.c_size_t()
        outputs = _lib.PP()
        try:
            status = call(views, n, ctypes.byref(num_outputs),
                          ctypes.byref(outputs))
        finally:
            for i in range(n):
                lib.gilt_tensor_destroy(views[i])
        self.context.check(status, "@%s failed" % self.function)
        return self._outputs(num_outputs.value, outputs)

    def __call__(self, *inputs, **named_inputs):
        """Runs the model: one NumPy array per input, in order or by name.
        Returns the outputs as a list of new arrays. Raises gilt.Error
        before anything runs when an input has the wrong count, shape or
        dtype, and with the model's message when a run fails."""
        ptr = self.ptr
        return self._run(
            lambda views, n, num, out: lib.gilt_model_call(ptr, n, views,
                                                           num, out),
            inputs, named_inputs)

    def benchmark(self, *inputs, runs=30, **named_inputs):
        """Times `runs` calls after one warm-up call and returns the
        figures `gjit --benchmark-format=json` prints, as a dict
        (compile_ms, median_ms, min_ms, runs, threads, peak_rss_mb, ...).
        Without inputs, the model runs on zeros of its input shapes."""
        if not inputs and not named_inputs:
            inputs = [np.zeros([1 if d is None else d for d in i.shape],
                               dtype=i.dtype) for i in self.inputs]
        ptr = self.ptr
        report = _lib.ModelBenchmark()

        def call(views, n, num, out):
            return lib.gilt_model_benchmark(ptr, n, views, runs,
                                            ctypes.byref(report), num, out)

        self._run(call, inputs, named_inputs)
        return json.loads(_lib.collect_string(
            lib.gilt_model_benchmark_format_json, ctypes.byref(report)))
