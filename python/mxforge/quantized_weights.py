"""Reading back the weights ``mxforge quantize`` wrote, with the spec each
was made with (docs/loaders.md).

A stock Quark loader knows a checkpoint only by its config.json; mxforge
also records, per tensor, the quant_weight spec that made it (safetensors
metadata ``mxforge.spec.<p>.weight``: format, scale rule, layouts, RS,
rotation, K and N). ``read_quantized_weight`` returns the codes and scales
with that spec, and ``QuantizedWeight.check_for`` refuses a GEMM spec the
weights were not made for, naming both values: plain weights where the
GEMM reads preshuffled ones, scales of another layout, weights quantized
with another rotation. It reads checkpoints marked ``quant_method: "quark"``
(standard) and ``"mxforge"`` (what stock loaders must refuse)."""

import json
import os
import struct

import numpy as np

from . import _library as _lib
from . import errors
from . import specs

class QuantizedWeight:
    """One quantized weight: codes `q` and scales `s` (numpy uint8, in the
    layouts of `spec`), and `spec`, the canonical quant_weight spec that
    made them."""
    __slots__ = ("name", "q", "s", "spec")

    def __init__(self, name, q, s, spec):
        self.name, self.q, self.s, self.spec = name, q, s, spec

    def __repr__(self):
        return (f"QuantizedWeight(name={self.name!r}, spec={self.spec!r}, q={list(self.q.shape)}, "
                f"s={list(self.s.shape)})")

    def check_for(self, gemm_spec, rotates=True):
        """Refuses (mxforge.ArgumentError naming both values) a
        rotate_quant_gemm spec these weights were not made for. `rotates`:
        whether the launch rotates (select=flag|mask launches that do not
        read weights quantized at RS=0)."""
        if not isinstance(rotates, bool):
            raise errors.ArgumentTypeError(f"rotates must be a bool, got {type(rotates).__name__}")
        # The library compares them (mxf_spec_check_weights, spec/prepared_weights.h).
        status = _lib.lib().mxf_spec_check_weights(
            _lib.c_string(gemm_spec, "the spec", errors.SpecError),
            _lib.c_string(self.spec, "the weights' spec", errors.SpecError), int(rotates))
        if status != 0:
            raise errors.ArgumentError(f"weight {self.name!r}: {_lib.last_error()}")


def _read_header(path):
    with open(path, "rb") as source:
        head = source.read(8)
        if len(head) != 8:
            raise errors.ArgumentError(f"{path}: not a safetensors file (shorter than 8 bytes)")
        size = struct.unpack("<Q", head)[0]
        if size > 100 << 20:
            raise errors.ArgumentError(f"{path}: header of {size} bytes is too large")
        try:
            return json.loads(source.read(size)), 8 + size
        except ValueError as error:
            raise errors.ArgumentError(f"{path}: malformed header: {error}") from None


def _shard_of(checkpoint, name):
    """The .safetensors file holding `name`: `checkpoint` itself, or the
    shard an index (or a folder holding one) names."""
    path = os.fspath(checkpoint)
    if os.path.isdir(path):
        index = os.path.join(path, "model.safetensors.index.json")
        path = index if os.path.exists(index) else os.path.join(path, "model.safetensors")
    if path.endswith(".index.json"):
        with open(path) as f:
            weight_map = json.load(f).get("weight_map", {})
        if name not in weight_map:
            raise errors.ArgumentError(f"{path}: no tensor {name!r} in its weight_map")
        return os.path.join(os.path.dirname(path), weight_map[name])
    return path


def _check_config(folder):
    config_path = os.path.join(folder, "config.json")
    if not os.path.exists(config_path):
        return
    with open(config_path) as f:
        method = (json.load(f).get("quantization_config") or {}).get("quant_method")
    if method is None:
        raise errors.ArgumentError(
            f"{config_path}: no quantization_config.quant_method: not a checkpoint mxforge "
            f"quantize wrote")
    if method not in ("quark", "mxforge"):
        raise errors.ArgumentError(
            f"{config_path}: quant_method is {method!r}; mxforge reads checkpoints that mxforge "
            f"quantize marked 'quark' or 'mxforge'")


def read_quantized_weight(checkpoint, name):
    """The codes, scales and spec of tensor `name` (``<p>.weight``) of a
    checkpoint ``mxforge quantize`` wrote: a .safetensors file, a
    model.safetensors.index.json or a folder holding either. Refuses a
    tensor without its recorded spec, and codes or scales whose dtype or
    shape is not the spec's."""
    if not isinstance(name, str):
        raise errors.ArgumentTypeError(f"name must be a str, got {type(name).__name__}")
    path = _shard_of(checkpoint, name)
    _check_config(os.path.dirname(os.path.abspath(path)))
    header, data_start = _read_header(path)
    metadata = header.get("__metadata__", {})
    recorded = metadata.get(f"mxforge.spec.{name}")
    if recorded is None:
        raise errors.ArgumentError(
            f"{path}: tensor {name!r} has no recorded spec (metadata mxforge.spec.{name}): it "
            f"was not quantized by mxforge quantize")
    spec = specs.canonical(recorded)
    if not spec.startswith("quant_weight:"):
        raise errors.ArgumentError(f"{path}: {name!r} records {spec}, not a quant_weight spec")
    n = specs.spec_value(spec, "N")
    shapes = {o.name: o.shape for o in specs.operands(spec, n)}
    arrays = {}
    for operand, tensor in (("q", name), ("s", name + "_scale")):
        info = header.get(tensor)
        if info is None:
            raise errors.ArgumentError(f"{path}: no tensor {tensor!r} beside {name!r}")
        if info.get("dtype") != "U8" or tuple(info.get("shape", ())) != tuple(shapes[operand]):
            raise errors.ArgumentError(
                f"{path}: {tensor!r} is {info.get('dtype')} {info.get('shape')}; {spec} writes "
                f"U8 {list(shapes[operand])}")
        begin, end = info["data_offsets"]
        arrays[operand] = np.fromfile(path, dtype=np.uint8, count=end - begin,
                                      offset=data_start + begin).reshape(shapes[operand])
    return QuantizedWeight(name, arrays["q"], arrays["s"], spec)
