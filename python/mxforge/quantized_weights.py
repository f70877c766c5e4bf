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

import hashlib
import json
import os
import struct

import numpy as np

from . import _arrays
from . import _library as _lib
from . import errors
from . import specs

def rotation_fingerprint(r):
    """The sha256 (hex) of a learned rotation's bf16 bytes, as mxforge
    quantize records it (mxforge.rotation_sha256.<p>.weight); r is a numpy
    uint16 array of bf16 bits or a bf16 tensor."""
    if _arrays.is_tensor(r):
        import torch
        r = r.detach().cpu().contiguous().view(torch.int16).numpy().view(np.uint16)
    r = np.ascontiguousarray(r)
    if r.dtype != np.uint16:
        raise errors.ArgumentTypeError(f"r must hold bf16 (numpy uint16 bits or a bf16 tensor), "
                                       f"got {r.dtype}")
    return hashlib.sha256(r.tobytes()).hexdigest()


class QuantizedWeight:
    """One prepared weight and how it was made (its descriptor): codes `q`
    and scales `s` (numpy uint8, in the layouts of `spec`), `spec`, the
    canonical quant_weight spec that made them (format, scale rule, layouts,
    RS, rotation and its convention, K, N), and `rotation_sha256`, the
    fingerprint of the learned R they carry (None for other rotations).

    ``weight.gemm(x, ...)`` is the checked way to multiply with it:
    rotate_quant_gemm after the check below. ``mxforge.rotate_quant_gemm(x,
    w_q, w_s, ...)`` with raw arrays stays available for engines that manage
    memory themselves, and checks nothing about where the weights came from."""
    __slots__ = ("name", "q", "s", "spec", "rotation_sha256")

    def __init__(self, name, q, s, spec, rotation_sha256=None):
        self.name, self.q, self.s, self.spec = name, q, s, specs.canonical(spec)
        self.rotation_sha256 = rotation_sha256

    def __repr__(self):
        return (f"QuantizedWeight(name={self.name!r}, spec={self.spec!r}, q={list(self.q.shape)}, "
                f"s={list(self.s.shape)})")

    def _called(self):
        """How messages name these weights."""
        return f"weight {self.name!r}" if self.name else "the weights"

    def check_for(self, gemm_spec, rotates=True, r=None):
        """Refuses (mxforge.ArgumentError naming both values) a
        rotate_quant_gemm spec these weights were not made for. `rotates`:
        whether the launch rotates (select=flag|mask launches that do not
        read weights quantized at RS=0). `r`: the learned R the launch will
        use, checked against the weights' fingerprint."""
        if not isinstance(rotates, bool):
            raise errors.ArgumentTypeError(f"rotates must be a bool, got {type(rotates).__name__}")
        # The library compares them (mxf_spec_check_weights, spec/prepared_weights.h).
        status = _lib.lib().mxf_spec_check_weights(
            _lib.c_string(gemm_spec, "the spec", errors.SpecError),
            _lib.c_string(self.spec, "the weights' spec", errors.SpecError), int(rotates))
        if status != 0:
            raise errors.ArgumentError(f"{self._called()}: {_lib.last_error()}")
        if rotates and r is not None and self.rotation_sha256 is not None:
            given = rotation_fingerprint(r)
            if given != self.rotation_sha256:
                raise errors.ArgumentError(
                    f"{self._called()}: quantized with the learned R of sha256 "
                    f"{self.rotation_sha256[:16]}..., the launch's r has "
                    f"{given[:16]}...: not the rotation the weights were quantized with")

    def gemm(self, x, spec=None, r=None, *, out=None, rotate=None, layer=None, layer_mask=None,
             **keys):
        """y = x.W^T through rotate_quant_gemm on these weights, after
        check_for: the GEMM's spec must be the one the weights were made
        for, and a learned r the one they carry. Without `spec`, the keys the
        weights decide (format, RS, rotation, layouts: specs.weight_keys())
        default to the weights' own; keywords add the activation's (scale,
        M, select). Arguments as for mxforge.rotate_quant_gemm."""
        from . import families
        gemm = families.FAMILIES[_GEMM_OP]
        if spec is None:
            given = {key.lower() for key in keys}
            written = specs.spec_items(self.spec)
            for key in specs.weight_keys():
                if key.lower() not in given and key in written:
                    value = written[key]
                    keys[key.lower()] = int(value) if value.isdigit() else value
        # The GEMM's inputs in its declared order: x, then the codes and scales.
        arrays = dict(zip(gemm.required, (x, self.q, self.s)), r=r)
        canonical = families.family_spec(gemm, arrays, spec, keys,
                                          f"{self.name or 'QuantizedWeight'}.gemm")
        self.check_for(canonical, rotates=_launch_rotates(rotate, layer, layer_mask), r=r)
        return families.function(_GEMM_OP)(x, self.q, self.s, canonical, r, out=out,
                                           rotate=rotate, layer=layer, layer_mask=layer_mask)

    def to_layout(self, wlayout=None, layout=None):
        """The same weights in other layouts (mxf_relayout_weights): byte
        for byte what quant_weight writes with those layouts, and a spec
        that says so. The load-time shuffle of an engine that keeps plain
        checkpoints."""
        return relayout_weight(self, wlayout=wlayout, layout=layout)


# The op that reads prepared weights; the library says which spec it reads.
_GEMM_OP = "rotate_quant_gemm"


def _launch_rotates(rotate, layer, layer_mask):
    """Whether a selective launch rotates (a launch without selection does)."""
    if rotate is not None:
        return bool(rotate)
    if layer is not None and layer_mask is not None:
        mask = layer_mask
        if _arrays.is_tensor(mask):
            mask = mask.detach().cpu().numpy()
        mask = np.asarray(mask).reshape(-1)
        if isinstance(layer, int) and 0 <= layer < mask.size:
            return bool(mask[layer])
    return True  # the launch itself refuses a bad selection


def _with_layouts(spec, wlayout, layout):
    items = specs.spec_items(spec)
    for key, value in (("wlayout", wlayout), ("layout", layout)):
        if value is not None:
            items[key] = value
    return specs.canonical(spec.partition(":")[0] + ":" +
                           ",".join(f"{key}={value}" for key, value in items.items()))


def relayout_weight(weight, wlayout=None, layout=None):
    """`weight` (a QuantizedWeight) moved to other layouts: codes to
    `wlayout` (plain, preshuffle_16x16 for fp4, w6a16_16x128 for fp6_e2m3),
    scales to `layout` (plain, a4w4_shuffle); None keeps one as it is."""
    if not isinstance(weight, QuantizedWeight):
        raise errors.ArgumentTypeError(
            f"relayout_weight() takes a QuantizedWeight, got {type(weight).__name__}")
    for name, value in (("wlayout", wlayout), ("layout", layout)):
        if value is not None and not isinstance(value, str):
            raise errors.ArgumentTypeError(f"{name} must be a str, got {type(value).__name__}")
    target = _with_layouts(weight.spec, wlayout, layout)
    n = specs.spec_value(target, "N")
    shapes = {o.name: o.shape for o in specs.operands(target, n)}
    q_in = np.ascontiguousarray(weight.q, dtype=np.uint8)
    s_in = np.ascontiguousarray(weight.s, dtype=np.uint8)
    q = np.empty(shapes["q"], dtype=np.uint8)
    s = np.empty(shapes["s"], dtype=np.uint8)
    _lib.check(_lib.lib().mxf_relayout_weights(
        _lib.c_string(weight.spec, "the weights' spec", errors.SpecError),
        _lib.c_string(target, "the target spec", errors.SpecError), q_in.ctypes.data, q_in.nbytes,
        s_in.ctypes.data, s_in.nbytes, q.ctypes.data, q.nbytes, s.ctypes.data, s.nbytes),
        errors.ArgumentError)
    return QuantizedWeight(weight.name, q, s, target, weight.rotation_sha256)


def shuffle_weight(weight):
    """AITER's load-time shuffle of an fp4 weight, as vLLM does it for its
    AITER GEMMs (docs/loaders.md): codes preshuffle_16x16, scales
    a4w4_shuffle. Byte for byte what quant_weight writes in those layouts."""
    if not isinstance(weight, QuantizedWeight):
        raise errors.ArgumentTypeError(
            f"shuffle_weight() takes a QuantizedWeight, got {type(weight).__name__}")
    if specs.spec_text_value(weight.spec, "fmt") != "fp4":
        raise errors.ArgumentError(
            f"shuffle_weight() is AITER's fp4 shuffle; {weight.spec} is not fp4 (use "
            f"relayout_weight(weight, wlayout='w6a16_16x128') for the W6A16 tiles)")
    return relayout_weight(weight, wlayout="preshuffle_16x16", layout="a4w4_shuffle")


def prepare_weight(w, spec=None, r=None, **keys):
    """quant_weight of `w` ([N, K] bf16) as a QuantizedWeight: the codes,
    the scales and their descriptor (the canonical spec, the fingerprint of
    a learned r)."""
    from . import families
    result = families.function("quant_weight")(w, spec, r, **keys)
    q, s = (np.asarray(a) if not _arrays.is_tensor(a) else a.cpu().numpy() for a in result)
    return QuantizedWeight(None, q, s, result.spec,
                           rotation_fingerprint(r) if r is not None else None)


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
    return QuantizedWeight(name, arrays["q"], arrays["s"], spec,
                           metadata.get(f"mxforge.rotation_sha256.{name}"))
