"""The bit-exact CPU reference (mxf_reference), on the kernels' arguments."""

import ctypes

import numpy as np

from . import _arrays
from . import _library as _lib
from . import errors
from . import families
from . import specs


def reference(spec=None, x=None, r=None, **spec_keys):
    """What rotate_quant(x, spec, r) writes, computed on the CPU by the
    numerics reference: (q, s) of the same kind, shapes and bytes, so a
    start-up check is ``(q == q_ref).all()``. Only rotate_quant specs have a
    C reference today. x may be strided (it is copied dense first)."""
    if x is None:
        raise errors.ArgumentTypeError("reference() needs x")
    family = families.FAMILIES["rotate_quant"]
    canonical = families.family_spec(family, {"x": x, "r": r}, spec, spec_keys, "reference")
    view = _arrays.view(x, "x", "bf16")
    if view.device != "cpu":
        raise errors.ArgumentError(f"x is on device {view.device}; reference() runs on the CPU "
                                   f"(pass x.cpu())")
    if len(view.shape) != 2:
        raise errors.ArgumentError(f"x must have 2 dimensions [m, K], got shape "
                                   f"{list(view.shape)}")
    m = view.shape[0]
    if not 1 <= m <= specs.largest_m_bucket():
        raise errors.ArgumentError(f"x has {m} rows; the reference takes "
                                   f"1..{specs.largest_m_bucket()}, as a launch does")
    # The reference checks m against the spec's M, the kernel against its bucket.
    canonical = specs.with_bucket(canonical, specs.bucket_for(m))
    operand_list = {operand.name: operand for operand in specs.operands(canonical, m)}
    x_host = _dense_host(x)
    if x_host.shape != tuple(operand_list["x"].shape):
        raise errors.ArgumentError(f"x must have shape {list(operand_list['x'].shape)}, got "
                                   f"{list(x_host.shape)} (spec {canonical})")
    r_host = None
    if r is not None:
        if "r" not in operand_list:
            raise errors.ArgumentError(f"r is given, but {canonical} takes no r")
        _arrays.view(r, "r", "bf16")
        r_host = _dense_host(r)
    q = np.zeros(operand_list["q"].shape, dtype=np.uint8)
    s = np.zeros(operand_list["s"].shape, dtype=np.uint8)
    q_written, s_written = ctypes.c_size_t(), ctypes.c_size_t()
    _lib.check(_lib.lib().mxf_reference(
        _lib.c_string(canonical, "the spec", errors.SpecError), m, x_host.ctypes.data,
        r_host.ctypes.data if r_host is not None else None, q.ctypes.data, q.nbytes,
        ctypes.byref(q_written), s.ctypes.data, s.nbytes, ctypes.byref(s_written)),
        errors.ArgumentError)
    if q_written.value != q.nbytes or s_written.value != s.nbytes:
        raise errors.InternalError(
            f"mxf_reference wrote {q_written.value} bytes of q and {s_written.value} of s; the "
            f"kernel's outputs at m={m} are {q.nbytes} and {s.nbytes}")
    if _arrays.is_tensor(x):
        import torch
        return torch.from_numpy(q), torch.from_numpy(s)
    return q, s


def _dense_host(value):
    if _arrays.is_tensor(value):
        import torch
        return value.detach().contiguous().view(torch.int16).numpy().view(np.uint16)
    return np.ascontiguousarray(value)
