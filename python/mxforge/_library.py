"""Finding and loading libmxforge.so, and the C API's ctypes declarations.

The package is a thin ctypes layer: no compiled Python extension, so one
libmxforge.so serves every Python version. ctypes.CDLL releases the GIL
around every foreign call, so compiles and emulated launches let other
Python threads run.
"""

import ctypes
import os
import threading

from . import errors

# The C API major version this layer was written against (mxforge.h).
API_VERSION_MAJOR = 1
# Minor versions only add functions: a library lacking one this layer calls
# is recognized by the missing symbol, not by its version number.

_c = ctypes
_char_p = _c.c_char_p
_status = _c.c_int


class ContextOptions(_c.Structure):
    _fields_ = [
        ("api_version", _c.c_uint32),
        ("device", _char_p),
        ("strict", _c.c_int),
        ("cache_mode", _c.c_int),
        ("cache_directory", _char_p),
        ("code_object_version", _c.c_int),
        ("device_ordinal", _c.c_int),  # C API 1.2
    ]


class KernelInfo(_c.Structure):
    _fields_ = [
        ("spec", _char_p),
        ("name", _char_p),
        ("origin", _char_p),
        ("bucket", _c.c_int),
        ("vgprs", _c.c_uint32),
        ("sgprs", _c.c_uint32),
        ("lds_bytes", _c.c_uint32),
        ("scratch_bytes", _c.c_uint32),
        ("operand_count", _c.c_size_t),
    ]


class LaunchInfo(_c.Structure):
    _fields_ = [
        ("grid", _c.c_uint32 * 3),
        ("workgroup", _c.c_uint32 * 3),
        ("lds_bytes", _c.c_uint32),
        ("max_rows", _c.c_uint32),
        ("abi_version", _c.c_uint32),
        ("code", _c.c_void_p),
        ("code_bytes", _c.c_size_t),
    ]


MAX_OPERAND_RANK = 4


class LayerCalibration(_c.Structure):
    _fields_ = [
        ("rotated_rel_rms", _c.c_double),
        ("plain_rel_rms", _c.c_double),
        ("rotated_clipped", _c.c_double),
        ("plain_clipped", _c.c_double),
        ("gain", _c.c_double),
        ("rotate", _c.c_int),
    ]


class OperandShape(_c.Structure):
    _fields_ = [
        ("name", _char_p),
        ("element", _char_p),
        ("is_output", _c.c_int),
        ("row_stride_arg", _char_p),
        ("rank", _c.c_size_t),
        ("shape", _c.c_int64 * MAX_OPERAND_RANK),
        ("bytes", _c.c_uint64),
    ]


class OpOperand(_c.Structure):  # C API 1.6
    _fields_ = [
        ("name", _char_p),
        ("element", _char_p),
        ("is_output", _c.c_int),
        ("optional", _c.c_int),
        ("ranks", _c.c_uint),
    ]


class OpShapeKey(_c.Structure):
    _fields_ = [("key", _char_p), ("operand", _char_p), ("dimension", _c.c_int)]


class OpInfo(_c.Structure):
    _fields_ = [
        ("name", _char_p),
        ("rows_from", _char_p),
        ("keys", _c.POINTER(_char_p)),
        ("key_count", _c.c_size_t),
        ("operands", _c.POINTER(OpOperand)),
        ("operand_count", _c.c_size_t),
        ("shape_keys", _c.POINTER(OpShapeKey)),
        ("shape_key_count", _c.c_size_t),
        ("description", _char_p),
    ]


class Value(_c.Structure):  # C API 1.7: a by-value value by name
    _fields_ = [("name", _char_p), ("value", _c.c_double)]


class RowExtent(_c.Structure):
    _fields_ = [("label", _char_p), ("scale", _c.c_int64), ("offset", _c.c_int64),
                ("divisor", _c.c_int64), ("multiple", _c.c_int64)]


class KernelEntry(_c.Structure):
    _fields_ = [
        ("spec", _char_p),
        ("name", _char_p),
        ("origin", _char_p),
        ("source", _char_p),
        ("bucket", _c.c_int),
        ("produced", _c.c_int),
        ("on_device", _c.c_int),
        ("vgprs", _c.c_uint32),
        ("sgprs", _c.c_uint32),
        ("lds_bytes", _c.c_uint32),
        ("scratch_bytes", _c.c_uint32),
        ("code_bytes", _c.c_size_t),
    ]


class CacheInfo(_c.Structure):
    _fields_ = [
        ("enabled", _c.c_int),
        ("directory", _char_p),
        ("source", _char_p),
        ("entries", _c.c_uint64),
        ("total_bytes", _c.c_uint64),
        ("requests", _c.c_uint64),
        ("from_bundle", _c.c_uint64),
        ("cache_hits", _c.c_uint64),
        ("compiled", _c.c_uint64),
        ("shared_code", _c.c_uint64),
        ("failures", _c.c_uint64),
    ]


# void (*)(void *user, int stream, const char *text, size_t length)
TextCallback = _c.CFUNCTYPE(None, _c.c_void_p, _c.c_int, _c.POINTER(_c.c_char), _c.c_size_t)


class QuantizeOptions(_c.Structure):  # C API 1.5
    _fields_ = [
        ("api_version", _c.c_uint32),
        ("in_path", _char_p),
        ("out_path", _char_p),
        ("spec", _char_p),
        ("tensors", _char_p),
        ("rotation", _char_p),
        ("threads", _c.c_uint),
        ("force", _c.c_int),
        ("check", _c.c_int),
        ("progress", _c.c_int),
        ("text", TextCallback),
        ("user", _c.c_void_p),
        ("layer_mask", _char_p),  # C API 1.8
    ]


_vp = _c.c_void_p
_size = _c.c_size_t
_PROTOTYPES = {
    # name: (restype, argtypes)
    "mxf_status_string": (_char_p, [_c.c_int]),
    "mxf_last_error": (_char_p, []),
    "mxf_api_version": (_c.c_uint32, []),
    "mxf_version_string": (_char_p, []),
    "mxf_context_options_init": (None, [_c.POINTER(ContextOptions)]),
    "mxf_context_create": (_status, [_c.POINTER(ContextOptions), _c.POINTER(_vp)]),
    "mxf_context_destroy": (None, [_vp]),
    "mxf_context_device": (_char_p, [_vp]),
    "mxf_load_bundle": (_status, [_vp, _char_p, _c.POINTER(_size)]),
    "mxf_compile": (_status, [_vp, _char_p]),
    "mxf_compile_all": (_status, [_vp, _c.POINTER(_char_p), _size, _c.c_uint,
                                  _c.POINTER(_c.c_int)]),
    "mxf_find_kernel": (_status, [_vp, _char_p, _c.c_int, _c.POINTER(_vp)]),
    "mxf_kernel_get_info": (_status, [_vp, _c.POINTER(KernelInfo)]),
    "mxf_kernel_get_launch": (_status, [_vp, _c.c_int, _c.POINTER(LaunchInfo)]),
    "mxf_launch_strided": (_status, [_vp, _vp, _c.c_int, _c.POINTER(_vp),
                                     _c.POINTER(_c.c_int64), _size, _vp]),
    "mxf_launch_selected": (_status, [_vp, _vp, _c.c_int, _c.POINTER(_vp),
                                      _c.POINTER(_c.c_int64), _size, _c.c_int32, _vp]),
    # C API 1.7: values by name (an op's eps, and the selection).
    "mxf_launch_values": (_status, [_vp, _vp, _c.c_int, _c.POINTER(_vp),
                                    _c.POINTER(_c.c_int64), _size, _c.POINTER(Value), _size,
                                    _vp]),
    "mxf_op_get_value": (_status, [_size, _size, _c.POINTER(_char_p), _c.POINTER(_char_p),
                                   _c.POINTER(_size)]),
    "mxf_malloc": (_status, [_vp, _size, _c.POINTER(_vp)]),
    "mxf_free": (_status, [_vp, _vp]),
    "mxf_memcpy_to_device": (_status, [_vp, _vp, _vp, _size]),
    "mxf_memcpy_to_host": (_status, [_vp, _vp, _vp, _size]),
    "mxf_synchronize": (_status, [_vp]),
    "mxf_reference": (_status, [_char_p, _c.c_int, _vp, _vp, _vp, _size, _c.POINTER(_size),
                                _vp, _size, _c.POINTER(_size)]),
    "mxf_calibrate_layer": (_status, [_char_p, _vp, _size, _vp, _c.c_double,
                                      _c.POINTER(LayerCalibration)]),
    "mxf_spec_canonical": (_status, [_char_p, _char_p, _size, _c.POINTER(_size)]),
    "mxf_spec_get_operands": (_status, [_char_p, _c.c_int, _c.POINTER(OperandShape), _size,
                                        _c.POINTER(_size)]),
    # C API 1.9: the workspace a split GEMM reads and writes.
    "mxf_spec_get_workspace": (_status, [_char_p, _c.c_int, _c.POINTER(_size),
                                         _c.POINTER(_c.c_uint64)]),
    # C API 1.5: the spec vocabulary, read instead of restated.
    "mxf_spec_key_names": (_status, [_c.POINTER(_c.POINTER(_char_p)), _c.POINTER(_size)]),
    "mxf_spec_m_buckets": (_status, [_c.POINTER(_c.POINTER(_c.c_int)), _c.POINTER(_size)]),
    "mxf_spec_bucket_for": (_status, [_c.c_int, _c.POINTER(_c.c_int)]),
    "mxf_spec_get_selection": (_status, [_char_p, _c.POINTER(_char_p)]),
    "mxf_spec_check_weights": (_status, [_c.c_char_p, _c.c_char_p, _c.c_int]),  # C API 1.8
    "mxf_spec_check_keys": (_status, [_c.c_char_p, _c.c_char_p]),  # C API 1.8
    "mxf_spec_weight_keys": (_status, [_c.POINTER(_c.POINTER(_char_p)), _c.POINTER(_size)]),
    "mxf_relayout_weights": (_status, [_c.c_char_p, _c.c_char_p, _vp, _size, _vp, _size, _vp,
                                       _size, _vp, _size]),  # C API 1.8
    # C API 1.6: each op's interface, read instead of restated.
    "mxf_op_count": (_status, [_c.POINTER(_size)]),
    "mxf_op_get_info": (_status, [_size, _c.POINTER(OpInfo)]),
    "mxf_spec_get_row_extents": (_status, [_char_p, _c.POINTER(RowExtent), _size,
                                           _c.POINTER(_size)]),
    "mxf_quantize_options_init_size": (None, [_c.POINTER(QuantizeOptions), _c.c_size_t]),
    "mxf_quantize_checkpoint": (_status, [_c.POINTER(QuantizeOptions)]),
    "mxf_context_kernel_count": (_status, [_vp, _c.POINTER(_size)]),
    "mxf_context_get_kernel": (_status, [_vp, _size, _c.POINTER(KernelEntry)]),
    "mxf_context_get_cache": (_status, [_vp, _c.POINTER(CacheInfo)]),
    "mxf_context_mark_startup_done": (_status, [_vp]),
    "mxf_context_set_late_jit": (_status, [_vp, _c.c_int]),
}


def candidate_paths():
    """Where the library is looked for: $MXFORGE_LIBRARY alone when it is set
    (an explicit choice never falls back to another library), else the build
    tree of the repository this package sits in."""
    override = os.environ.get("MXFORGE_LIBRARY")
    if override:
        return [override]
    paths = []
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    paths.append(os.path.join(repo, "build", "capi", "libmxforge.so"))
    return paths


_lock = threading.Lock()
_lib = None
_lib_path = None


def _load():
    tried = []
    for path in candidate_paths():
        if not os.path.exists(path):
            tried.append(f"{path} (no such file)")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as failure:
            tried.append(f"{path} ({failure})")
            continue
        missing = [name for name in _PROTOTYPES if not hasattr(lib, name)]
        if missing:
            tried.append(f"{path} (lacks {', '.join(missing)}: an older libmxforge.so)")
            continue
        for name, (restype, argtypes) in _PROTOTYPES.items():
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = argtypes
        version = lib.mxf_api_version()
        if version >> 16 != API_VERSION_MAJOR:
            raise errors.VersionError(
                f"{path} implements C API {version >> 16}.{version & 0xFFFF}; the mxforge "
                f"package is written for {API_VERSION_MAJOR}.x", errors.VERSION)
        return lib, path
    raise errors.LibraryNotFoundError(
        "libmxforge.so not found; looked at: " + "; ".join(tried) +
        (" (from MXFORGE_LIBRARY)" if os.environ.get("MXFORGE_LIBRARY") else "") +
        ". Build it (cmake --build build --target mxforge_capi) or set MXFORGE_LIBRARY "
        "to its path")


def lib():
    """The loaded library (loaded on first use, once per process)."""
    global _lib, _lib_path
    if _lib is None:
        with _lock:
            if _lib is None:
                _lib, _lib_path = _load()
    return _lib


def library_path():
    lib()
    return _lib_path


def last_error():
    # Thread-local in the library; ctypes calls run on the calling OS thread,
    # so this is the message of this thread's failed call just before.
    return lib().mxf_last_error().decode("utf-8", "replace")


def check(status, invalid_argument=errors.ArgumentError):
    """Raises the mapped exception when `status` is not MXF_SUCCESS."""
    if status != errors.SUCCESS:
        raise errors.error_for(status, last_error(), invalid_argument)


def text(value):
    return value.decode("utf-8", "replace") if value is not None else None


def c_string(value, what, error=errors.ArgumentError):
    """`value` (a str) as the NUL-terminated bytes a C string argument takes.
    A NUL inside it would end the string early: the C side would see only
    what precedes it (a spec losing its later keys, a path naming another
    file), so it is refused here, naming `what`."""
    if "\0" in value:
        raise error(f"{what} contains a NUL character (at {value.index(chr(0))}): "
                    f"{value!r}")
    return value.encode()

