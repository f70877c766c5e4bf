"""Spec texts from Python arguments, canonical specs and operand shapes.

Keyword arguments stand in for spec keys: a keyword matches the key of the
same name, case aside (``k=4096`` is ``K=4096``, ``rs=64`` is ``RS=64``;
docs/spec.md lists the keys, spec/spec_keys.cpp defines them). The C library
parses and validates the result, so its messages reach the caller unchanged.
"""

import ctypes
import functools
from dataclasses import dataclass
from typing import Optional, Tuple

from . import _library as _lib
from . import errors

# The spec vocabulary and the M buckets are the C library's (spec/spec_keys.cpp,
# spec/buckets.h), read through the C API on first use, never restated here:
# a key added there is a Python keyword without a change to this file.


@functools.lru_cache(maxsize=None)
def spec_keys():
    """Every spec key (docs/spec.md), every op's together, as the library
    spells them. Which keys an op takes is the C parser's business."""
    names = ctypes.POINTER(ctypes.c_char_p)()
    count = ctypes.c_size_t()
    _lib.check(_lib.lib().mxf_spec_key_names(ctypes.byref(names), ctypes.byref(count)))
    return tuple(names[i].decode() for i in range(count.value))


@functools.lru_cache(maxsize=None)
def weight_keys():
    """The keys a reader of prepared weights shares with the weights' spec
    (mxf_spec_weight_keys: what mxf_spec_check_weights compares)."""
    names = ctypes.POINTER(ctypes.c_char_p)()
    count = ctypes.c_size_t()
    _lib.check(_lib.lib().mxf_spec_weight_keys(ctypes.byref(names), ctypes.byref(count)))
    return tuple(names[i].decode() for i in range(count.value))


def check_spec(spec, **expected):
    """Refuses (mxforge.ArgumentError naming the key and both values) a
    kernel whose spec differs from what the reader of its outputs was built
    for: ``check_spec(result.spec, block=32, e=256, layout="a4w4_shuffle")``
    before handing rotate_quant_moe's sorted outputs to a MoE GEMM
    (mxf_spec_check_keys). `spec`: a spec text or an op's result (its .spec);
    keywords as for the op's function."""
    text = getattr(spec, "spec", spec)
    if not isinstance(text, str):
        raise errors.ArgumentTypeError(
            f"check_spec() takes a spec or an op's result, got {type(spec).__name__}")
    items = []
    for keyword, value in expected.items():
        key = _key_by_lower().get(keyword.lower(), keyword)
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise errors.ArgumentTypeError(
                f"check_spec(): {keyword} must be an int or a str, got {type(value).__name__}")
        items.append(f"{key}={value}")
    _lib.check(_lib.lib().mxf_spec_check_keys(
        _lib.c_string(text, "the spec", errors.SpecError),
        _lib.c_string(",".join(items), "the expected keys")), errors.ArgumentError)


@functools.lru_cache(maxsize=None)
def _key_by_lower():
    return {key.lower(): key for key in spec_keys()}


@functools.lru_cache(maxsize=None)
def m_buckets():
    """Every M bucket a spec may name, ascending."""
    buckets = ctypes.POINTER(ctypes.c_int)()
    count = ctypes.c_size_t()
    _lib.check(_lib.lib().mxf_spec_m_buckets(ctypes.byref(buckets), ctypes.byref(count)))
    return tuple(int(buckets[i]) for i in range(count.value))


def largest_m_bucket():
    """The most rows one launch takes (a launch takes 1 <= m <= this)."""
    return m_buckets()[-1]


def _key_for(keyword, function):
    key = _key_by_lower().get(keyword.lower())
    if key is None:
        raise errors.ArgumentTypeError(
            f"{function}() got an unexpected keyword argument '{keyword}' "
            f"(spec keys: {', '.join(spec_keys())})")
    return key


def _value_text(key, value):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise errors.ArgumentTypeError(
            f"spec key {key} must be an int or a str, got {type(value).__name__}")
    return str(value)


def op_of(spec_text):
    """The op of a spec text (what precedes ':'), or None."""
    head, colon, _ = spec_text.strip().partition(":")
    return head if colon else None


def build_spec(op, spec=None, keys=None, defaults=None, function=None):
    """The spec text for `op` from a spec string and/or keyword keys.

    `keys` (keyword arguments) are appended to `spec`'s items; `defaults`
    (e.g. K from the input's width) only fill keys neither gives. A spec of
    another op is a SpecError naming both."""
    function = function or op
    if spec is not None and not isinstance(spec, str):
        raise errors.ArgumentTypeError(
            f"{function}(): spec must be a str such as '{op}:K=4096', got {type(spec).__name__}")
    items = []
    if spec is not None:
        spec_op = op_of(spec)
        if spec_op is not None and spec_op != op:
            raise errors.SpecError(
                f"{function}() takes a {op} spec, got a {spec_op} spec: '{spec.strip()}'",
                errors.INVALID_ARGUMENT)
        if spec_op is None:
            # Let the C parser report the malformed text as it would.
            canonical(spec)
        body = spec.strip().partition(":")[2]
        items = [item for item in body.split(",")] if body else []
    given = {item.partition("=")[0] for item in items}
    for keyword, value in (keys or {}).items():
        key = _key_for(keyword, function)
        items.append(f"{key}={_value_text(key, value)}")
        given.add(key)
    for key, value in (defaults or {}).items():
        if key not in given:
            items.append(f"{key}={value}")
    return f"{op}:" + ",".join(items)


@functools.lru_cache(maxsize=4096)
def canonical(spec_text):
    """The canonical text of a spec (docs/spec.md); SpecError if invalid."""
    if not isinstance(spec_text, str):
        raise errors.ArgumentTypeError(f"a spec must be a str, got {type(spec_text).__name__}")
    buffer = ctypes.create_string_buffer(1024)
    length = ctypes.c_size_t()
    status = _lib.lib().mxf_spec_canonical(_lib.c_string(spec_text, "the spec", errors.SpecError),
                                           buffer, len(buffer), ctypes.byref(length))
    if status == errors.INVALID_ARGUMENT and length.value >= len(buffer):
        buffer = ctypes.create_string_buffer(length.value + 1)
        status = _lib.lib().mxf_spec_canonical(spec_text.encode(), buffer, len(buffer), None)
    _lib.check(status, errors.SpecError)
    return buffer.value.decode()


def canonical_spec(op="rotate_quant", spec=None, **keys):
    """The canonical spec that `op` would run for `spec` and/or keyword keys,
    e.g. ``canonical_spec(k=4096, rs=64)``."""
    return canonical(build_spec(op, spec, keys, function="canonical_spec"))


def with_bucket(canonical_text, bucket):
    """`canonical_text` with its M replaced (ops with an M key only)."""
    op, _, body = canonical_text.partition(":")
    items = [f"M={bucket}" if item.startswith("M=") else item for item in body.split(",")]
    return f"{op}:" + ",".join(items)


def spec_items(canonical_text):
    """{key: value as written} of a canonical spec (a key at a default the
    canonical text leaves out, such as rconv=xr, is absent)."""
    return dict(item.partition("=")[::2] for item in canonical_text.partition(":")[2].split(","))


def spec_text_value(canonical_text, wanted):
    """The value of key `wanted` of a canonical spec, as written there."""
    value = spec_items(canonical_text).get(wanted)
    if value is None:
        raise errors.InternalError(f"{canonical_text} has no {wanted}")
    return value


def spec_value(canonical_text, wanted):
    """The integer value of key `wanted` of a canonical spec."""
    return int(spec_text_value(canonical_text, wanted))


def spec_rows(canonical_text):
    """The rows of a spec without an M bucket (quant_weight): its N, which is
    the m of every launch of its kernel (abi/operands.h: checkLaunchRows)."""
    return spec_value(canonical_text, "N")


def bucket_for(m):
    """The smallest M bucket holding m rows; ArgumentError outside
    1..largest_m_bucket()."""
    bucket = ctypes.c_int()
    _lib.check(_lib.lib().mxf_spec_bucket_for(int(m), ctypes.byref(bucket)),
               errors.ArgumentError)
    return bucket.value


@functools.lru_cache(maxsize=4096)
def selection_arg(spec_text):
    """Selective rotation's launch argument of a spec's kernels: "rotate"
    (select=flag), "layer" (select=mask) or None (it always rotates)."""
    name = ctypes.c_char_p()
    _lib.check(_lib.lib().mxf_spec_get_selection(
        _lib.c_string(spec_text, "the spec", errors.SpecError), ctypes.byref(name)),
        errors.SpecError)
    return _lib.text(name.value)


@dataclass(frozen=True)
class Operand:
    """One kernel operand at a row count (mxf_spec_get_operands)."""
    name: str
    element: str           # "bf16", "i8", "i32", "f32"
    is_output: bool
    row_stride_arg: Optional[str]  # "x_stride", "q_stride", or None: dense only
    shape: Tuple[int, ...]
    bytes: int             # dense
    # Scratch the kernel reads and writes (mxf_spec_get_workspace): zero
    # bytes before its first launch, fit for the next after each.
    is_workspace: bool = False

    @property
    def strided(self):
        return self.row_stride_arg is not None


@functools.lru_cache(maxsize=4096)
def operands(spec_text, m):
    """The operands of a spec at `m` rows, in launch order (a tuple of
    Operand). Needs no context and compiles nothing (shape propagation)."""
    library = _lib.lib()
    shapes = (_lib.OperandShape * 16)()
    count = ctypes.c_size_t()
    _lib.check(library.mxf_spec_get_operands(_lib.c_string(spec_text, "the spec", errors.SpecError), int(m), shapes, len(shapes),
                                             ctypes.byref(count)), errors.SpecError)
    workspace = ctypes.c_size_t()
    _lib.check(library.mxf_spec_get_workspace(_lib.c_string(spec_text, "the spec", errors.SpecError),
                                              int(m), ctypes.byref(workspace), None),
               errors.SpecError)
    result = []
    for index, shape in enumerate(shapes[:count.value]):
        result.append(Operand(
            name=shape.name.decode(), element=shape.element.decode(),
            is_output=bool(shape.is_output),
            row_stride_arg=_lib.text(shape.row_stride_arg),
            shape=tuple(int(d) for d in shape.shape[:shape.rank]), bytes=int(shape.bytes),
            is_workspace=index == workspace.value))
    return tuple(result)


@functools.lru_cache(maxsize=1024)
def row_extents(spec_text):
    """How the operand extents of a spec may follow the launch's rows, as
    its op declares them (mxf_spec_get_row_extents): a tuple of (label,
    scale, offset, divisor, multiple), the extent being roundUp(ceilDiv(
    scale * rows + offset, divisor), multiple)."""
    library = _lib.lib()
    extents = (_lib.RowExtent * 16)()
    count = ctypes.c_size_t()
    _lib.check(library.mxf_spec_get_row_extents(
        _lib.c_string(spec_text, "the spec", errors.SpecError), extents, len(extents),
        ctypes.byref(count)), errors.SpecError)
    if count.value > len(extents):
        raise errors.InternalError(f"{spec_text} has {count.value} row extents")
    return tuple((extent.label.decode(), int(extent.scale), int(extent.offset),
                  int(extent.divisor), int(extent.multiple))
                 for extent in extents[:count.value])
