"""The IR from Python: contexts, modules, operations, values, blocks,
regions, types, attributes, and a builder for custom frontends.

Ownership follows the C API (docs/c-api.md). A Context owns everything
immortal (types, attributes, locations) and every IR created in it; a
Module owns its operation. Op, Value, Block, Region, Type and Attribute
objects are borrowed handles: they are valid while the module (or, for
types and attributes, the context) that holds them is open. Closing a
context closes the modules and models made in it first, so no handle of
this package outlives the memory it names by accident.

This is not a second IR: every property reads the C object, and printing,
parsing and verification are the library's.
"""

import ctypes
import os
import weakref

import numpy as np

from . import _lib
from ._lib import lib
from .errors import Diagnostics, Error

_TYPE_KINDS = ("integer", "index", "float", "none", "tensor", "memref",
               "vector", "function", "opaque", "dialect")
_ATTR_KINDS = ("integer", "float", "bool", "string", "array", "dictionary",
               "type", "symbol_ref", "unit", "dense_elements",
               "dense_resource", "strided_layout", "opaque", "dense_array",
               "dialect")
_FLOAT_DTYPES = (np.float16, np.uint16, np.float32, np.float64,
                 np.uint8, np.uint8, np.uint8, np.uint8)  # bf16, f8: bits
_SIGNLESS, _SIGNED, _UNSIGNED = 0, 1, 2
_DYNAMIC = -(2 ** 63)


def _array(ctype, items):
    items = list(items)
    return (ctype * max(len(items), 1))(*items), len(items)


def _items(cls, context, ptr, count, get):
    """[cls(context, get(ptr, i)) for i < count(ptr)]: a C list read."""
    return [cls(context, get(ptr, i)) for i in range(count(ptr))]


class Closable:
    """What owns C memory: freed by close(), at the end of a `with` block,
    or when collected (not during interpreter shutdown, when the library
    may be gone)."""

    def close(self):
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if lib is not None:
            self.close()


class Context(Closable):
    """Everything IR lives in: uniqued types and attributes, registered
    dialects and passes (all of gilt's), and the diagnostics, which calls
    that fail raise as gilt.Error. Close it (or use `with`) to free it all
    at once; it is closed when collected otherwise."""

    def __init__(self, allow_unregistered_dialects=False):
        self._ptr = lib.gilt_context_create()
        if not self._ptr:
            raise Error("out of memory creating a context")
        lib.gilt_register_everything(self._ptr)
        lib.gilt_context_set_allow_unregistered_dialects(
            self._ptr, allow_unregistered_dialects)
        self.diagnostics = Diagnostics()
        lib.gilt_context_set_diagnostic_handler(
            self._ptr, self.diagnostics.handler, None)
        self._dependents = weakref.WeakSet()

    @property
    def ptr(self):
        if self._ptr is None:
            raise Error("the context is closed")
        return self._ptr

    def adopt(self, obj):
        """Makes `obj` (with a close method) close before the context."""
        self._dependents.add(obj)
        return obj

    def close(self):
        if self._ptr is None:
            return
        for obj in list(self._dependents):
            obj.close()
        lib.gilt_context_destroy(self._ptr)
        self._ptr = None

    def check(self, failed, what):
        self.diagnostics.check(failed, what)

    # ---- making IR -------------------------------------------------------

    def parse(self, text, filename="<string>", verify=True):
        """The module of textual IR (wrapped in one if it is not a single
        builtin.module), verified unless told not to."""
        data = text.encode() if isinstance(text, str) else bytes(text)
        ptr = lib.gilt_parse_source(self.ptr, data, len(data),
                                    os.fsencode(filename))
        self.check(not ptr, "cannot parse %s" % filename)
        module = Module(self, ptr)
        if verify:
            module.verify()
        return module

    def import_onnx(self, path):
        """The module of an ONNX model file (func.func @main), verified."""
        ptr = lib.gilt_onnx_import_file(self.ptr, os.fsencode(path))
        self.check(not ptr, "cannot import %s" % path)
        module = Module(self, ptr)
        module.verify()
        return module

    def create_module(self, location=None):
        """An empty builtin.module."""
        return Module(self, lib.gilt_module_create(self.ptr,
                                                   self._loc(location)))

    def parse_type(self, text):
        ptr = lib.gilt_type_parse(self.ptr, text.encode())
        self.check(not ptr, "cannot parse type %r" % text)
        return Type(self, ptr)

    def parse_attr(self, text):
        ptr = lib.gilt_attr_parse(self.ptr, text.encode())
        self.check(not ptr, "cannot parse attribute %r" % text)
        return Attribute(self, ptr)

    def element_type(self, dtype):
        """The element type a NumPy dtype stores as (float32 -> f32, int64
        -> i64, uint8 -> ui8, bool -> i1); a Type or a type's text is
        taken as it is."""
        if isinstance(dtype, Type):
            return dtype
        if isinstance(dtype, str) and not _is_dtype_name(dtype):
            return self.parse_type(dtype)
        dt = np.dtype(dtype)
        if dt.kind == "f" and dt.itemsize in (2, 4, 8):
            kind = {2: 0, 4: 2, 8: 3}[dt.itemsize]
            return Type(self, lib.gilt_float_type_get(self.ptr, kind))
        if dt.kind == "b":
            return Type(self, lib.gilt_integer_type_get(self.ptr, 1,
                                                        _SIGNLESS))
        if dt.kind in "iu":
            sign = _SIGNLESS if dt.kind == "i" else _UNSIGNED
            return Type(self, lib.gilt_integer_type_get(
                self.ptr, 8 * dt.itemsize, sign))
        raise Error("gilt has no element type for NumPy's %s" % dt)

    def tensor_type(self, shape, element):
        """tensor<SHAPE x ELEMENT>; None in `shape` is a dynamic dimension."""
        dims, n = _array(ctypes.c_int64,
                         (_DYNAMIC if d is None else d for d in shape))
        elem = self.element_type(element)
        return Type(self, lib.gilt_tensor_type_get(self.ptr, n, dims,
                                                   elem.ptr, None))

    def function_type(self, inputs, results):
        ins, ni = _array(ctypes.c_void_p, (t.ptr for t in inputs))
        outs, nr = _array(ctypes.c_void_p, (t.ptr for t in results))
        return Type(self, lib.gilt_function_type_get(self.ptr, ni, ins, nr,
                                                     outs))

    def attr(self, value):
        """An attribute from a Python value: an Attribute as it is, bool,
        int (i64), float (f32), str, a Type, a list or tuple (an array of
        these), or a NumPy array (dense elements of its shape)."""
        ctx = self.ptr
        if isinstance(value, Attribute):
            return value
        if isinstance(value, bool):
            ptr = lib.gilt_bool_attr_get(ctx, value)
        elif isinstance(value, (int, np.integer)):
            i64 = lib.gilt_integer_type_get(ctx, 64, _SIGNLESS)
            ptr = lib.gilt_integer_attr_get(i64, int(value))
        elif isinstance(value, (float, np.floating)):
            ptr = lib.gilt_float_attr_get(lib.gilt_float_type_get(ctx, 2),
                                          float(value))
        elif isinstance(value, str):
            data = value.encode()
            ptr = lib.gilt_string_attr_get(ctx, data, len(data))
        elif isinstance(value, Type):
            ptr = lib.gilt_type_attr_get(value.ptr)
        elif isinstance(value, (list, tuple)):
            elems, n = _array(ctypes.c_void_p,
                              (self.attr(v).ptr for v in value))
            ptr = lib.gilt_array_attr_get(ctx, n, elems)
        elif isinstance(value, np.ndarray):
            array = np.ascontiguousarray(value)
            t = self.tensor_type(array.shape, array.dtype)
            ptr = lib.gilt_dense_elements_attr_get(
                t.ptr, array.ctypes.data, array.nbytes)
        else:
            raise Error("no attribute for %r" % (value,))
        self.check(not ptr, "cannot make an attribute of %r" % (value,))
        return Attribute(self, ptr)

    def location(self, name=None, file=None, line=0, col=0):
        """loc("file":line:col), loc("name"), or loc("name"("file":...))."""
        child = None
        if file is not None:
            child = lib.gilt_location_file_line_col_get(
                self.ptr, os.fsencode(file), line, col)
        if name is None:
            return Location(self, child or
                            lib.gilt_location_unknown_get(self.ptr))
        return Location(self, lib.gilt_location_name_get(
            self.ptr, name.encode(), child))

    def _loc(self, location):
        if location is None:
            return lib.gilt_location_unknown_get(self.ptr)
        if isinstance(location, str):
            location = self.location(name=location)
        return location.ptr


def _is_dtype_name(text):
    try:
        np.dtype(text)
        return True
    except TypeError:
        return False


class _Handle:
    """A borrowed C object: its context (kept alive) and its pointer.
    Equal when they name the same object."""

    __slots__ = ("context", "ptr")

    def __init__(self, context, ptr):
        self.context = context
        self.ptr = ptr

    def __eq__(self, other):
        return type(other) is type(self) and other.ptr == self.ptr

    def __hash__(self):
        return hash(self.ptr)

    def __repr__(self):
        return "<gilt.%s %s>" % (type(self).__name__, self)


class Type(_Handle):
    """A uniqued type: `f32`, `tensor<1x3xf32>`, `memref<?x4xi64>`."""

    __slots__ = ()

    def __str__(self):
        return _lib.collect_string(lib.gilt_type_print, self.ptr)

    @property
    def kind(self):
        return _TYPE_KINDS[lib.gilt_type_get_kind(self.ptr)]

    @property
    def is_shaped(self):
        return lib.gilt_type_is_shaped(self.ptr)

    @property
    def shape(self):
        """The dimensions of a ranked shaped type; None for a dynamic one."""
        if not self.is_shaped or not lib.gilt_shaped_type_has_rank(self.ptr):
            return None
        dims = (lib.gilt_shaped_type_get_dim(self.ptr, i)
                for i in range(lib.gilt_shaped_type_get_rank(self.ptr)))
        return tuple(None if d == _DYNAMIC else d for d in dims)

    @property
    def element_type(self):
        """A shaped type's element type; a scalar type is its own."""
        if not self.is_shaped:
            return self
        return Type(self.context,
                    lib.gilt_shaped_type_get_element_type(self.ptr))

    @property
    def dtype(self):
        """The NumPy dtype of the elements as stored (bf16 and the 8-bit
        floats as their bits: uint16, uint8)."""
        elem = self.element_type.ptr
        kind = lib.gilt_type_get_kind(elem)
        if kind == 1:  # index
            return np.dtype(np.int64)
        if kind == 2:
            return np.dtype(_FLOAT_DTYPES[lib.gilt_float_type_get_kind(elem)])
        if kind == 0:
            width = lib.gilt_integer_type_get_width(elem)
            if width == 1:
                return np.dtype(np.bool_)
            size = next(s for s in (1, 2, 4, 8) if width <= 8 * s)
            unsigned = lib.gilt_integer_type_get_signedness(elem) == _UNSIGNED
            return np.dtype("%s%d" % ("u" if unsigned else "i", size))
        raise Error("%s has no NumPy dtype" % self)

    @property
    def inputs(self):
        return _items(Type, self.context, self.ptr,
                      lib.gilt_function_type_get_num_inputs,
                      lib.gilt_function_type_get_input)

    @property
    def results(self):
        return _items(Type, self.context, self.ptr,
                      lib.gilt_function_type_get_num_results,
                      lib.gilt_function_type_get_result)


class Attribute(_Handle):
    """A uniqued attribute: `1 : i64`, `"text"`, `[1, 2]`, `dense<...>`."""

    __slots__ = ()

    def __str__(self):
        return _lib.collect_string(lib.gilt_attr_print, self.ptr)

    @property
    def kind(self):
        return _ATTR_KINDS[lib.gilt_attr_get_kind(self.ptr)]

    @property
    def type(self):
        ptr = lib.gilt_attr_get_type(self.ptr)
        return Type(self.context, ptr) if ptr else None

    @property
    def value(self):
        """The Python value of a simple attribute (int, float, bool, str,
        list, dict, Type, None for unit); the Attribute itself otherwise."""
        kind, p = self.kind, self.ptr
        if kind == "integer":
            return lib.gilt_integer_attr_get_value(p)
        if kind == "float":
            return lib.gilt_float_attr_get_value(p)
        if kind == "bool":
            return lib.gilt_bool_attr_get_value(p)
        if kind == "string":
            n = ctypes.c_size_t()
            s = lib.gilt_string_attr_get_value(p, ctypes.byref(n))
            return ctypes.string_at(s, n.value).decode()
        if kind == "array":
            return [a.value for a in _items(
                Attribute, self.context, p, lib.gilt_array_attr_get_size,
                lib.gilt_array_attr_get_element)]
        if kind == "dictionary":
            return _dictionary(self.context, p)
        if kind == "type":
            return Type(self.context, lib.gilt_type_attr_get_value(p))
        if kind == "unit":
            return None
        return self


def _dictionary(context, ptr):
    entries = (lib.gilt_dictionary_attr_get_entry(ptr, i)
               for i in range(lib.gilt_dictionary_attr_get_size(ptr)))
    return {e.name.decode(): Attribute(context, e.attr) for e in entries}


class Location(_Handle):
    __slots__ = ()

    def __str__(self):
        return _lib.collect_string(lib.gilt_location_print, self.ptr)


class Value(_Handle):
    """An SSA value: an op's result or a block's argument."""

    __slots__ = ()

    def __str__(self):
        owner = self.owner
        what = "%s #%d" % (owner.name if isinstance(owner, Op) else "block",
                           self.index)
        return "%s: %s" % (what, self.type)

    @property
    def type(self):
        return Type(self.context, lib.gilt_value_get_type(self.ptr))

    @property
    def is_block_argument(self):
        return lib.gilt_value_is_block_argument(self.ptr)

    @property
    def owner(self):
        """The op defining a result, the block owning an argument."""
        if self.is_block_argument:
            return Block(self.context,
                         lib.gilt_value_get_parent_block(self.ptr))
        return Op(self.context, lib.gilt_value_get_defining_op(self.ptr))

    @property
    def index(self):
        return lib.gilt_value_get_index(self.ptr)

    @property
    def num_uses(self):
        return lib.gilt_value_get_num_uses(self.ptr)


class Op(_Handle):
    """An operation: its name, operands, results, attributes, regions."""

    __slots__ = ()

    def __str__(self):
        return _lib.collect_string(lib.gilt_op_print, self.ptr, None)

    @property
    def name(self):
        return lib.gilt_op_get_name(self.ptr).decode()

    @property
    def location(self):
        return Location(self.context, lib.gilt_op_get_location(self.ptr))

    @property
    def operands(self):
        return _items(Value, self.context, self.ptr,
                      lib.gilt_op_get_num_operands, lib.gilt_op_get_operand)

    @property
    def results(self):
        return _items(Value, self.context, self.ptr,
                      lib.gilt_op_get_num_results, lib.gilt_op_get_result)

    @property
    def result(self):
        """The only result."""
        results = self.results
        if len(results) != 1:
            raise Error("'%s' has %d results" % (self.name, len(results)))
        return results[0]

    @property
    def attributes(self):
        """The attribute dictionary, name -> Attribute (a copy: set with
        set_attr)."""
        return _dictionary(self.context,
                           lib.gilt_op_get_attr_dictionary(self.ptr))

    def set_attr(self, name, value):
        lib.gilt_op_set_attr(self.ptr, name.encode(),
                             self.context.attr(value).ptr)

    @property
    def regions(self):
        return _items(Region, self.context, self.ptr,
                      lib.gilt_op_get_num_regions, lib.gilt_op_get_region)

    @property
    def parent(self):
        ptr = lib.gilt_op_get_parent_op(self.ptr)
        return Op(self.context, ptr) if ptr else None

    @property
    def symbol(self):
        """The sym_name of a symbol op (a function's name), else None."""
        name = lib.gilt_symbol_get_name(self.ptr)
        return name.decode() if name else None

    def walk(self):
        """This op and every op nested in it, in pre-order."""
        yield self
        for region in self.regions:
            for block in region.blocks:
                for op in block.operations:
                    yield from op.walk()

    def verify(self):
        self.context.check(lib.gilt_op_verify(self.ptr),
                           "'%s' does not verify" % self.name)


class Block(_Handle):
    """A block: arguments and a list of operations."""

    __slots__ = ()

    def __str__(self):
        return "block of %d arguments" % len(self.arguments)

    @property
    def arguments(self):
        return _items(Value, self.context, self.ptr,
                      lib.gilt_block_get_num_arguments,
                      lib.gilt_block_get_argument)

    @property
    def operations(self):
        op = lib.gilt_block_get_first_op(self.ptr)
        while op:
            yield Op(self.context, op)
            op = lib.gilt_op_get_next(op)

    def add_argument(self, type, location=None):
        return Value(self.context, lib.gilt_block_add_argument(
            self.ptr, type.ptr, self.context._loc(location)))


class Region(_Handle):
    """A region: a list of blocks."""

    __slots__ = ()

    def __str__(self):
        return "region of %d blocks" % len(list(self.blocks))

    @property
    def blocks(self):
        block = lib.gilt_region_get_first_block(self.ptr)
        while block:
            yield Block(self.context, block)
            block = lib.gilt_block_get_next(block)

    def append_block(self, arg_types=()):
        """A new block at the end, with arguments of these types."""
        types, n = _array(ctypes.c_void_p, (t.ptr for t in arg_types))
        block = lib.gilt_block_create(self.context.ptr, n, types, None)
        lib.gilt_region_append_block(self.ptr, block)
        return Block(self.context, block)


class Module(Closable):
    """A builtin.module this package owns: parsed, imported or built. It is
    freed when closed, collected, or its context closes."""

    def __init__(self, context, ptr):
        self.context = context
        self._ptr = ptr
        context.adopt(self)

    @property
    def operation(self):
        if self._ptr is None:
            raise Error("the module is closed")
        return Op(self.context, self._ptr)

    @property
    def body(self):
        return Block(self.context,
                     lib.gilt_module_get_body(self.operation.ptr))

    @property
    def functions(self):
        """The func.func ops of the module, by name."""
        return {op.symbol: op for op in self.body.operations
                if op.name == "func.func"}

    def __str__(self):
        return str(self.operation)

    def __repr__(self):
        return "<gilt.Module of %d ops>" % sum(1 for _ in self.walk())

    def walk(self):
        return self.operation.walk()

    def verify(self):
        self.operation.verify()

    def run(self, pipeline):
        """Runs a pass pipeline (`canonicalize,cse,graph-to-loop`) on the
        module, verifying after each pass."""
        ctx = self.context
        pm = lib.gilt_pass_manager_create(ctx.ptr)
        try:
            lib.gilt_pass_manager_enable_verifier(pm, True)
            failed = (lib.gilt_pass_manager_add_pipeline(
                pm, pipeline.encode()) or
                lib.gilt_pass_manager_run(pm, self.operation.ptr))
        finally:
            lib.gilt_pass_manager_destroy(pm)
        ctx.check(failed, "the pipeline failed")
        return self

    def clone(self):
        return Module(self.context, lib.gilt_op_clone(self.operation.ptr))

    def add_function(self, name, inputs, results, location=None):
        """A func.func @name of this type at the end of the module, with an
        empty entry block whose arguments are the inputs; returns the op
        (its first region's block is `Builder(func)`'s default place)."""
        ctx = self.context
        fn_type = ctx.function_type(inputs, results)
        fn = lib.gilt_func_create(ctx.ptr, ctx._loc(location), name.encode(),
                                  fn_type.ptr)
        ctx.check(not fn, "cannot create func.func @%s" % name)
        lib.gilt_block_append_op(self.body.ptr, fn)
        return Op(ctx, fn)

    def take(self):
        """The operation, which the caller now owns: the module closes
        without freeing it."""
        ptr, self._ptr = self.operation.ptr, None
        return ptr

    def close(self):
        if self._ptr is not None and self.context._ptr is not None:
            lib.gilt_op_destroy(self._ptr)
        self._ptr = None


class Builder:
    """Creates operations by name at an insertion point: the end of a
    block (or of a function's entry block), or before an op.

        b = gilt.Builder(fn)
        y = b.create("graph.relu", [x], [t]).result
        b.create("func.return", [y])
    """

    def __init__(self, where, before=False):
        if isinstance(where, Op) and not before:
            entry = lib.gilt_func_get_entry_block(where.ptr)
            if not entry:
                raise Error("'%s' has no entry block" % where.name)
            where = Block(where.context, entry)
        self.context = where.context
        self._block = where if isinstance(where, Block) else None
        self._before = where if before else None

    def create(self, name, operands=(), results=None, attributes=None,
               regions=0, location=None):
        """Creates and inserts the op `name` with these operands (Values),
        result types (Types; None: the op infers them), attributes (name ->
        anything Context.attr takes) and number of empty regions; returns
        the op. Raises gilt.Error when the op cannot be made."""
        ctx = self.context
        state = _lib.OpState()
        state.name = name.encode()
        state.loc = ctx._loc(location)
        ops, state.num_operands = _array(ctypes.c_void_p,
                                         (v.ptr for v in operands))
        state.operands = ops
        types, state.num_results = _array(ctypes.c_void_p,
                                          (t.ptr for t in results or ()))
        state.result_types = types
        state.infer_result_types = results is None
        named = [(k.encode(), ctx.attr(v).ptr)
                 for k, v in (attributes or {}).items()]
        attrs, state.num_attrs = _array(_lib.NamedAttr, named)
        state.attrs = attrs
        state.num_regions = regions
        op = lib.gilt_op_create(ctx.ptr, ctypes.byref(state))
        ctx.check(not op, "cannot create '%s'" % name)
        if self._before is not None:
            lib.gilt_block_insert_op_before(self._before.ptr, op)
        else:
            lib.gilt_block_append_op(self._block.ptr, op)
        return Op(ctx, op)
