"""Loading libgilt.so and declaring the C functions the package calls.

Every function of the C API the package uses is declared here, once, with
its argument and result types, so that ctypes never guesses (a pointer
returned as a C int would be cut to 32 bits). Handles stay opaque: they
are c_void_p values, never dereferenced in Python. The library is found,
in order, where GILT_LIBRARY points, where `make install` recorded it
(_install.py, written at install time), and beside the package in a build
tree (python/gilt/ -> lib/libgilt.so).
"""

import ctypes
import os

P = ctypes.c_void_p
S = ctypes.c_char_p
Z = ctypes.c_size_t
I64 = ctypes.c_int64
U = ctypes.c_uint
B = ctypes.c_bool
D = ctypes.c_double
INT = ctypes.c_int
PP = ctypes.POINTER(ctypes.c_void_p)

# GiltStringCallback: (const char *data, size_t len, void *user).
STRING_CB = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_char), Z, P)
# GiltDiagnosticHandler: (const GiltDiagnostic *d, void *user).
DIAG_HANDLER = ctypes.CFUNCTYPE(None, P, P)


class NamedAttr(ctypes.Structure):
    _fields_ = [("name", S), ("attr", P)]


class OpState(ctypes.Structure):
    _fields_ = [("name", S), ("loc", P),
                ("num_operands", Z), ("operands", PP),
                ("num_results", Z), ("result_types", PP),
                ("num_attrs", Z), ("attrs", ctypes.POINTER(NamedAttr)),
                ("num_regions", Z),
                ("num_successors", Z), ("successors", PP),
                ("infer_result_types", B)]


class ModelOptions(ctypes.Structure):
    _fields_ = [("function", S), ("pipeline", S), ("interpret", B),
                ("threads", Z), ("opt_level", U), ("cache_dir", S),
                ("print_ir", P), ("dump_llvm", P), ("dump_llvm_user", P),
                ("device", ctypes.c_int), ("gpu_arch", S),
                ("compile_only", B), ("dump_ptx", P), ("dump_ptx_user", P),
                ("compile_threads", Z), ("vector_bits", U),
                ("timing", P), ("timing_user", P)]


class ModelBenchmark(ctypes.Structure):
    _fields_ = [("model", S), ("function", S), ("backend", S),
                ("threads", Z),
                ("compile_ms", D), ("import_ms", D), ("pipeline_ms", D),
                ("jit_ms", D), ("warmup_runs", Z), ("runs", Z),
                ("median_ms", D), ("min_ms", D), ("max_ms", D),
                ("peak_rss_mb", D), ("device", S)]


# name: (result type, argument types)
_FUNCTIONS = {
    # context and diagnostics
    "gilt_context_create": (P, []),
    "gilt_context_destroy": (None, [P]),
    "gilt_register_everything": (None, [P]),
    "gilt_context_set_allow_unregistered_dialects": (None, [P, B]),
    "gilt_context_set_diagnostic_handler": (None, [P, DIAG_HANDLER, P]),
    "gilt_diagnostic_get_severity": (INT, [P]),
    "gilt_diagnostic_format": (None, [P, STRING_CB, P]),
    # types
    "gilt_type_parse": (P, [P, S]),
    "gilt_type_print": (None, [P, STRING_CB, P]),
    "gilt_type_get_kind": (INT, [P]),
    "gilt_type_is_shaped": (B, [P]),
    "gilt_integer_type_get": (P, [P, U, INT]),
    "gilt_integer_type_get_width": (U, [P]),
    "gilt_integer_type_get_signedness": (INT, [P]),
    "gilt_index_type_get": (P, [P]),
    "gilt_float_type_get": (P, [P, INT]),
    "gilt_float_type_get_kind": (INT, [P]),
    "gilt_tensor_type_get": (P, [P, Z, ctypes.POINTER(I64), P, P]),
    "gilt_function_type_get": (P, [P, Z, PP, Z, PP]),
    "gilt_shaped_type_has_rank": (B, [P]),
    "gilt_shaped_type_get_rank": (Z, [P]),
    "gilt_shaped_type_get_dim": (I64, [P, Z]),
    "gilt_shaped_type_get_element_type": (P, [P]),
    "gilt_function_type_get_num_inputs": (Z, [P]),
    "gilt_function_type_get_input": (P, [P, Z]),
    "gilt_function_type_get_num_results": (Z, [P]),
    "gilt_function_type_get_result": (P, [P, Z]),
    # attributes
    "gilt_attr_parse": (P, [P, S]),
    "gilt_attr_print": (None, [P, STRING_CB, P]),
    "gilt_attr_get_kind": (INT, [P]),
    "gilt_attr_get_type": (P, [P]),
    "gilt_integer_attr_get": (P, [P, I64]),
    "gilt_integer_attr_get_value": (I64, [P]),
    "gilt_float_attr_get": (P, [P, D]),
    "gilt_float_attr_get_value": (D, [P]),
    "gilt_bool_attr_get": (P, [P, B]),
    "gilt_bool_attr_get_value": (B, [P]),
    "gilt_string_attr_get": (P, [P, S, Z]),
    "gilt_string_attr_get_value": (ctypes.POINTER(ctypes.c_char),
                                   [P, ctypes.POINTER(Z)]),
    "gilt_array_attr_get": (P, [P, Z, PP]),
    "gilt_array_attr_get_size": (Z, [P]),
    "gilt_array_attr_get_element": (P, [P, Z]),
    "gilt_dictionary_attr_get_size": (Z, [P]),
    "gilt_dictionary_attr_get_entry": (NamedAttr, [P, Z]),
    "gilt_type_attr_get": (P, [P]),
    "gilt_type_attr_get_value": (P, [P]),
    "gilt_unit_attr_get": (P, [P]),
    "gilt_dense_elements_attr_get": (P, [P, P, Z]),
    # locations
    "gilt_location_unknown_get": (P, [P]),
    "gilt_location_name_get": (P, [P, S, P]),
    "gilt_location_file_line_col_get": (P, [P, S, U, U]),
    "gilt_location_print": (None, [P, STRING_CB, P]),
    # operations
    "gilt_op_create": (P, [P, ctypes.POINTER(OpState)]),
    "gilt_op_destroy": (None, [P]),
    "gilt_op_clone": (P, [P]),
    "gilt_op_get_context": (P, [P]),
    "gilt_op_get_name": (S, [P]),
    "gilt_op_get_location": (P, [P]),
    "gilt_op_get_block": (P, [P]),
    "gilt_op_get_parent_op": (P, [P]),
    "gilt_op_get_next": (P, [P]),
    "gilt_op_get_num_operands": (Z, [P]),
    "gilt_op_get_operand": (P, [P, Z]),
    "gilt_op_get_num_results": (Z, [P]),
    "gilt_op_get_result": (P, [P, Z]),
    "gilt_op_get_num_regions": (Z, [P]),
    "gilt_op_get_region": (P, [P, Z]),
    "gilt_op_get_attr_dictionary": (P, [P]),
    "gilt_op_get_attr": (P, [P, S]),
    "gilt_op_set_attr": (None, [P, S, P]),
    "gilt_op_verify": (INT, [P]),
    "gilt_op_print": (None, [P, P, STRING_CB, P]),
    "gilt_symbol_get_name": (S, [P]),
    # blocks, regions, values
    "gilt_block_create": (P, [P, Z, PP, PP]),
    "gilt_block_add_argument": (P, [P, P, P]),
    "gilt_block_get_num_arguments": (Z, [P]),
    "gilt_block_get_argument": (P, [P, Z]),
    "gilt_block_get_first_op": (P, [P]),
    "gilt_block_get_next": (P, [P]),
    "gilt_block_get_parent_op": (P, [P]),
    "gilt_block_append_op": (None, [P, P]),
    "gilt_block_insert_op_before": (None, [P, P]),
    "gilt_region_get_first_block": (P, [P]),
    "gilt_region_append_block": (None, [P, P]),
    "gilt_value_get_type": (P, [P]),
    "gilt_value_is_block_argument": (B, [P]),
    "gilt_value_get_defining_op": (P, [P]),
    "gilt_value_get_parent_block": (P, [P]),
    "gilt_value_get_index": (Z, [P]),
    "gilt_value_get_num_uses": (Z, [P]),
    # builder and builtin ops
    "gilt_builder_create": (P, [P]),
    "gilt_builder_destroy": (None, [P]),
    "gilt_builder_set_insertion_point_to_end": (None, [P, P]),
    "gilt_builder_set_insertion_point_before": (None, [P, P]),
    "gilt_builder_create_op": (P, [P, ctypes.POINTER(OpState)]),
    "gilt_module_create": (P, [P, P]),
    "gilt_module_get_body": (P, [P]),
    "gilt_func_create": (P, [P, P, S, P]),
    "gilt_func_get_entry_block": (P, [P]),
    "gilt_func_get_type": (P, [P]),
    # parsing, importing, passes
    "gilt_parse_source": (P, [P, S, Z, S]),
    "gilt_onnx_import_file": (P, [P, S]),
    "gilt_pass_manager_create": (P, [P]),
    "gilt_pass_manager_destroy": (None, [P]),
    "gilt_pass_manager_enable_verifier": (None, [P, B]),
    "gilt_pass_manager_add_pipeline": (INT, [P, S]),
    "gilt_pass_manager_run": (INT, [P, P]),
    # tensors
    "gilt_tensor_create_view": (P, [P, Z, ctypes.POINTER(I64), P]),
    "gilt_tensor_destroy": (None, [P]),
    "gilt_tensor_get_element_type": (P, [P]),
    "gilt_tensor_get_rank": (Z, [P]),
    "gilt_tensor_get_shape": (ctypes.POINTER(I64), [P]),
    "gilt_tensor_get_data": (P, [P]),
    # models
    "gilt_model_create": (P, [P, S, ctypes.POINTER(ModelOptions)]),
    "gilt_model_create_from_module": (P, [P, ctypes.POINTER(ModelOptions)]),
    "gilt_model_destroy": (None, [P]),
    "gilt_model_get_function": (S, [P]),
    "gilt_model_get_type": (P, [P]),
    "gilt_model_get_input_name": (S, [P, Z]),
    "gilt_model_get_output_name": (S, [P, Z]),
    "gilt_model_call": (INT, [P, Z, PP, ctypes.POINTER(Z),
                              ctypes.POINTER(PP)]),
    "gilt_model_benchmark": (INT, [P, Z, PP, Z,
                                   ctypes.POINTER(ModelBenchmark),
                                   ctypes.POINTER(Z), ctypes.POINTER(PP)]),
    "gilt_model_benchmark_format_json": (None, [ctypes.POINTER(ModelBenchmark),
                                                STRING_CB, P]),
}


def _candidates():
    env = os.environ.get("GILT_LIBRARY")
    if env:
        yield env
    try:
        from ._install import LIBRARY
        yield LIBRARY
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, os.pardir, os.pardir, "lib", "libgilt.so")


def _load():
    tried = []
    for path in _candidates():
        if os.path.exists(path):
            lib = ctypes.CDLL(path)
            break
        tried.append(path)
    else:
        raise ImportError("gilt: libgilt.so not found (looked at %s); build "
                          "gilt, or set GILT_LIBRARY" % ", ".join(tried))
    for name, (restype, argtypes) in _FUNCTIONS.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    # The C library frees with free(): the outputs array of a call.
    libc = ctypes.CDLL(None)
    libc.free.restype = None
    libc.free.argtypes = [P]
    return lib, libc.free


lib, free = _load()


def collect_string(print_fn, *args):
    """What a printing function of the C API writes, as a str."""
    pieces = []

    def append(data, length, _user):
        pieces.append(ctypes.string_at(data, length))

    print_fn(*args, STRING_CB(append), None)
    return b"".join(pieces).decode("utf-8", "replace")
