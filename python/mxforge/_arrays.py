"""What the runner needs to know about an argument array, numpy or torch.

bf16 data is a torch.bfloat16 tensor or a numpy uint16 array of bf16 bit
patterns (numpy has no bf16); packed codes and E8M0 scales are uint8 (int8
accepted); i32 operands are int32 and f32 ones float32 (the MoE routing weights).
"""

import sys
from dataclasses import dataclass
from typing import Any, Tuple

import numpy as np

try:  # numpy >= 2.0 moved it (np.byte_bounds is gone there)
    from numpy.lib.array_utils import byte_bounds as _byte_bounds
except ImportError:  # numpy 1.x (Debian's 1.24)
    _byte_bounds = np.byte_bounds

from . import errors

_NUMPY_DTYPES = {
    "bf16": (np.dtype(np.uint16),),
    "i8": (np.dtype(np.uint8), np.dtype(np.int8)),
    "i32": (np.dtype(np.int32),),
    "f32": (np.dtype(np.float32),),
}
_NUMPY_ALLOCATE = {"bf16": np.uint16, "i8": np.uint8, "i32": np.int32, "f32": np.float32}
_ELEMENT_BYTES = {"bf16": 2, "i8": 1, "i32": 4, "f32": 4}


def _torch():
    return sys.modules.get("torch")


def _torch_dtypes(torch, element):
    return {"bf16": (torch.bfloat16,), "i8": (torch.uint8, torch.int8),
            "i32": (torch.int32,), "f32": (torch.float32,)}[element]


def is_tensor(value):
    torch = _torch()
    return torch is not None and isinstance(value, torch.Tensor)


def _dtype_names(element, tensor):
    if tensor:
        return {"bf16": "torch.bfloat16", "i8": "torch.uint8 or torch.int8",
                "i32": "torch.int32", "f32": "torch.float32"}[element]
    return {"bf16": "numpy.uint16 (bf16 bit patterns)", "i8": "numpy.uint8 or numpy.int8",
            "i32": "numpy.int32", "f32": "numpy.float32"}[element]


@dataclass
class ArrayView:
    """An argument array as the C API sees it."""
    value: Any               # the numpy array or torch tensor itself
    name: str                # the argument's name, for messages
    tensor: bool
    device: str              # "cpu", "hip:N", or the foreign device's name
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]  # in elements
    pointer: int
    element_bytes: int

    def span_bytes(self):
        """Bytes from the first element to the end of the last (row gaps included)."""
        if not self.shape or 0 in self.shape:
            return 0
        last = sum((extent - 1) * stride for extent, stride in zip(self.shape, self.strides))
        return (last + 1) * self.element_bytes


def _device_of(tensor, torch):
    kind = tensor.device.type
    if kind == "cpu":
        return "cpu"
    if kind == "cuda":
        if getattr(torch.version, "hip", None):
            return f"hip:{tensor.device.index if tensor.device.index is not None else 0}"
        return f"cuda:{tensor.device.index} (a CUDA build of torch; mxforge runs on AMD GPUs " \
               f"through a ROCm build)"
    return kind


def _is_fake(tensor):
    """True for a FakeTensor: is_fake() where torch has it (it also sees
    through functional wrappers), else the class (torch 1.13)."""
    try:
        from torch._subclasses.fake_tensor import is_fake
        return bool(is_fake(tensor))
    except ImportError:
        pass
    try:
        from torch._subclasses.fake_tensor import FakeTensor
    except ImportError:
        return False
    return isinstance(tensor, FakeTensor)


def _memory_bounds(array):
    """[first, end) byte addresses of the memory a numpy array views: the
    owner at the end of its .base chain (an ndarray, or any object with the
    buffer protocol); None when the owner shows no memory of its own."""
    owner = array
    while getattr(owner, "base", None) is not None:
        owner = owner.base
    if isinstance(owner, np.ndarray):
        return _byte_bounds(owner)
    if is_tensor(owner):  # tensor.numpy(): the tensor's storage
        storage = owner.untyped_storage() if hasattr(owner, "untyped_storage") \
            else owner.storage()
        return storage.data_ptr(), storage.data_ptr() + storage.nbytes()
    try:
        return _byte_bounds(np.frombuffer(memoryview(owner), dtype=np.uint8))
    except (TypeError, ValueError):
        return None


def _check_within_its_memory(array, name):
    """A view whose strides reach past its memory (numpy's as_strided checks
    nothing) would be read or written out of bounds when its rows are copied
    for a launch, killing the interpreter before the library could refuse the
    strides: refuse it here, before any pointer is used."""
    if array.size == 0 or array.base is None:
        return  # an array that owns its memory was laid out by numpy itself
    bounds = _memory_bounds(array)
    if bounds is None:
        return
    first, end = _byte_bounds(array)
    if first < bounds[0] or end > bounds[1]:
        raise errors.ArgumentError(
            f"{name} (shape {list(array.shape)}, strides {list(array.strides)} bytes) reaches "
            f"bytes {first - bounds[0]}..{end - bounds[0]} of memory that holds "
            f"{bounds[1] - bounds[0]} bytes: its strides point outside the array it views "
            f"(made with as_strided?)")


def view(value, name, element):
    """An ArrayView of `value` with `element`'s dtype; TypeError otherwise."""
    if is_tensor(value):
        torch = _torch()
        if value.dtype not in _torch_dtypes(torch, element):
            raise errors.ArgumentTypeError(
                f"{name} must be {_dtype_names(element, True)}, got {value.dtype}")
        # Meta and fake tensors (FakeTensorMode, torch.compile's tracing)
        # have shapes but no memory: only shape checks use them, never a
        # pointer (torch >= 2.5 raises on a fake tensor's data_ptr()).
        meta = value.device.type == "meta" or _is_fake(value)
        return ArrayView(value=value, name=name, tensor=True, device=_device_of(value, torch),
                         shape=tuple(value.shape), strides=tuple(value.stride()),
                         pointer=0 if meta else value.data_ptr(),
                         element_bytes=_ELEMENT_BYTES[element])
    if isinstance(value, np.ndarray):
        if value.dtype not in _NUMPY_DTYPES[element]:
            raise errors.ArgumentTypeError(
                f"{name} must be {_dtype_names(element, False)}, got numpy.{value.dtype}")
        itemsize = value.dtype.itemsize
        if any(stride % itemsize for stride in value.strides):
            raise errors.ArgumentError(f"{name} has strides {value.strides} that are not whole "
                                       f"elements")
        _check_within_its_memory(value, name)
        return ArrayView(value=value, name=name, tensor=False, device="cpu",
                         shape=tuple(value.shape),
                         strides=tuple(stride // itemsize for stride in value.strides),
                         pointer=value.ctypes.data, element_bytes=itemsize)
    raise errors.ArgumentTypeError(
        f"{name} must be a torch.Tensor or a numpy.ndarray, got {type(value).__name__}")


def fresh_view(array, name, element):
    """The ArrayView of an array allocate() just made: dense, of `element`'s
    type, owning its memory, so none of view()'s checks can fail on it."""
    if not isinstance(array, np.ndarray):
        return view(array, name, element)
    itemsize = array.dtype.itemsize
    return ArrayView(value=array, name=name, tensor=False, device="cpu", shape=array.shape,
                     strides=tuple(stride // itemsize for stride in array.strides),
                     pointer=array.__array_interface__["data"][0], element_bytes=itemsize)


def allocate(like, shape, element, device):
    """A new output array of `shape` of the same kind as `like`."""
    return new_array(like.tensor, shape, element, like.value.device if like.tensor else None)


def new_array(tensor, shape, element, torch_device=None):
    """A new dense array of `shape` and `element`'s type: a torch tensor on
    `torch_device` (default the CPU) when `tensor`, else a numpy array."""
    if tensor:
        torch = _torch()
        dtype = {"bf16": torch.bfloat16, "i8": torch.uint8, "i32": torch.int32,
                 "f32": torch.float32}[element]
        return torch.empty(shape, dtype=dtype, device=torch_device or "cpu")
    return np.empty(shape, dtype=_NUMPY_ALLOCATE[element])
