"""Selective rotation's calibration: which layers a spec's rotation helps.

The same measurement as `mxforge calibrate` (docs/cli.md, "calibrate"), one
C call per layer (mxf_calibrate_layer, arrays/calibration.h): each layer's
quantization error with the rotation and without it (the spec at RS=0), and
the decision gain > threshold. The mask is what a selective kernel reads:
int32 [layers], 1 = rotate.
"""

import ctypes
from dataclasses import dataclass
from typing import List

import numpy as np

from . import _arrays
from . import _library as _lib
from . import errors
from . import specs


@dataclass(frozen=True)
class LayerCalibration:
    name: str
    rows: int
    rotated_rel_rms: float
    plain_rel_rms: float
    rotated_clipped: float
    plain_clipped: float
    gain: float     # (plain - rotated) / plain
    rotate: bool    # gain > threshold


class Calibration(list):
    """The layers' LayerCalibration records, in order, plus ``.mask`` (numpy
    int32 [layers], 1 = rotate) and ``.spec`` (the canonical spec)."""

    def __init__(self, records, spec):
        super().__init__(records)
        self.spec = spec
        self.mask = np.array([1 if record.rotate else 0 for record in records], dtype=np.int32)


def _bf16_rows(name, value, k):
    """A layer's samples as dense bf16 bits [rows, K]: bf16 tensors and uint16
    arrays as they are, float32 rounded to nearest even (a torch cast)."""
    if _arrays.is_tensor(value):
        import torch
        value = value.detach().cpu()
        if value.dtype == torch.bfloat16:
            value = value.contiguous().view(torch.int16).numpy().view(np.uint16)
        elif value.dtype == torch.float32:
            value = value.contiguous().numpy()
        else:
            raise errors.ArgumentTypeError(
                f"layer {name!r} is {value.dtype}; samples are torch.bfloat16 or torch.float32")
    elif not isinstance(value, np.ndarray):
        raise errors.ArgumentTypeError(
            f"layer {name!r} must be a torch.Tensor or a numpy.ndarray, got {type(value).__name__}")
    if value.dtype == np.float32:
        bits = np.ascontiguousarray(value).view(np.uint32).astype(np.uint64)
        value = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    elif value.dtype != np.uint16:
        raise errors.ArgumentTypeError(
            f"layer {name!r} is numpy {value.dtype}; samples are uint16 (bf16 bit patterns) or "
            f"float32")
    if value.ndim < 1 or value.shape[-1] != k:
        raise errors.ArgumentError(
            f"layer {name!r} has shape {list(value.shape)}, whose last dimension is not the "
            f"spec's K={k}")
    return np.ascontiguousarray(value.reshape(-1, k))


def calibrate(layers, spec=None, threshold=0.05, r=None, **spec_keys) -> List[LayerCalibration]:
    """Measures each layer of `layers` (a dict name -> samples, or a list of
    samples named by index; samples [..., K], every leading dimension rows)
    with the rotation of `spec` (a rotate_quant spec with RS > 0; keywords as
    for rotate_quant, K defaulting to the first layer's last dimension) and
    without it. Returns a Calibration: the records in order, ``.mask`` and
    ``.spec``."""
    if isinstance(layers, dict):
        named = list(layers.items())
    elif isinstance(layers, (list, tuple)):
        named = [(str(i), value) for i, value in enumerate(layers)]
    else:
        raise errors.ArgumentTypeError(
            f"layers must be a dict of name -> samples or a list, got {type(layers).__name__}")
    if not named:
        raise errors.ArgumentError("no layers to calibrate")
    first = named[0][1]
    width = int(first.shape[-1]) if hasattr(first, "shape") and len(first.shape) else None
    defaults = {"K": width} if width is not None else {}
    canonical = specs.canonical(specs.build_spec("rotate_quant", spec, spec_keys, defaults,
                                                 "calibrate"))
    k = specs.spec_value(canonical, "K")
    r_host = None
    if r is not None:
        _arrays.view(r, "r", "bf16")
        if _arrays.is_tensor(r):
            import torch
            r_host = r.detach().cpu().contiguous().view(torch.int16).numpy().view(np.uint16)
        else:
            r_host = np.ascontiguousarray(r)
    records = []
    for name, value in named:
        rows = _bf16_rows(name, value, k)
        result = _lib.LayerCalibration()
        _lib.check(_lib.lib().mxf_calibrate_layer(
            _lib.c_string(canonical, "the spec", errors.SpecError), rows.ctypes.data, rows.shape[0],
            r_host.ctypes.data if r_host is not None else None, float(threshold),
            ctypes.byref(result)), errors.ArgumentError)
        records.append(LayerCalibration(
            name=name, rows=int(rows.shape[0]), rotated_rel_rms=result.rotated_rel_rms,
            plain_rel_rms=result.plain_rel_rms, rotated_clipped=result.rotated_clipped,
            plain_clipped=result.plain_clipped, gain=result.gain, rotate=bool(result.rotate)))
    return Calibration(records, canonical)
