"""The kernel families and their Python functions: one table entry each.

An entry names the op, its input arguments (in the order the Python function
takes them), their element types, which input gives the row count m, which
spec keys default from an input's shape, and its outputs. The generic runner
(_runner.py) takes operand order, shapes and strides from the C library, and
torch_ops.py registers one torch op per available entry. A family whose
kernel does not exist yet is listed with available=False and no function.
"""

import functools
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional, Tuple

from . import _arrays
from . import _runner
from . import errors
from . import specs


@dataclass(frozen=True)
class Family:
    op: str
    inputs: Tuple[str, ...]            # argument names, in the function's order
    optional: Tuple[str, ...]          # inputs that some specs take (r: learned rotations)
    elements: Dict[str, str]           # argument -> "bf16", "i8", "i32", "f32"
    outputs: Tuple[str, ...]
    rows_from: Optional[str]           # the input whose first dimension is m; None: the
    # spec's N is the launch's m (quant_weight: a launch always processes its N rows)
    key_defaults: Dict[str, Tuple[str, int]] = field(default_factory=dict)
    # spec key -> (input, dimension) that gives its default; dimension -1: the last
    ranks: Dict[str, Tuple[int, ...]] = field(default_factory=dict)
    # the ranks the inputs in key_defaults may have
    result: Optional[type] = None      # the tuple type the function returns
    available: bool = True
    note: str = ""


class RotateQuantResult(tuple):
    """(q, s), plus what ran: ``.run`` (a KernelRun: canonical spec with the
    bucket's M, kernel name, origin, device, m) and ``.spec``. Unpacks as a
    plain pair: ``q, s = mxforge.rotate_quant(x, k=4096)``."""

    def __new__(cls, outputs, run):
        self = super().__new__(cls, (outputs["q"], outputs["s"]))
        self.run = run  # a tuple subclass without __slots__ has a __dict__
        return self

    q = property(lambda self: self[0])
    s = property(lambda self: self[1])
    spec = property(lambda self: self.run.spec)


class RotateQuantMoeResult(tuple):
    """(q, s, sorted_ids, sorted_weights, sorted_expert_ids, num_valid_ids),
    AITER's MoE sorting formats (docs/templates.md, "rotate_quant_moe"), plus
    ``.run`` and ``.spec``; each output is also an attribute by name."""

    NAMES = ("q", "s", "sorted_ids", "sorted_weights", "sorted_expert_ids", "num_valid_ids")

    def __new__(cls, outputs, run):
        self = super().__new__(cls, tuple(outputs[name] for name in cls.NAMES))
        self.run = run
        return self

    spec = property(lambda self: self.run.spec)

    def __getattr__(self, name):
        if name in RotateQuantMoeResult.NAMES:
            return self[RotateQuantMoeResult.NAMES.index(name)]
        raise AttributeError(name)


class QuantWeightResult(RotateQuantResult):
    """(q, s) of a weight matrix, plus ``.run`` (a KernelRun: the canonical
    spec, kernel name, origin, device, m = N) and ``.spec``. Unpacks as a
    plain pair: ``q, s = mxforge.quant_weight(w, rs=64)``."""


FAMILIES = {
    "rotate_quant": Family(
        op="rotate_quant", inputs=("x", "r", "seed", "layer_mask"),
        optional=("r", "seed", "layer_mask"),
        elements={"x": "bf16", "r": "bf16", "seed": "i32", "layer_mask": "i32", "q": "i8",
                  "s": "i8"},
        outputs=("q", "s"), rows_from="x", key_defaults={"K": ("x", 1)}, ranks={"x": (2,)},
        result=RotateQuantResult),
    "rotate_quant_moe": Family(
        op="rotate_quant_moe",
        inputs=("x", "r", "seed", "topk_ids", "topk_weights", "expert_mask"),
        optional=("r", "seed", "expert_mask"),
        elements={"x": "bf16", "r": "bf16", "seed": "i32", "topk_ids": "i32", "topk_weights": "f32",
                  "expert_mask": "i32", "q": "i8", "s": "i8", "sorted_ids": "i32",
                  "sorted_weights": "f32", "sorted_expert_ids": "i32", "num_valid_ids": "i32"},
        outputs=RotateQuantMoeResult.NAMES, rows_from="x",
        # K from x's last dimension ([m, K], or [m, topk, K] at stage 2),
        # topk from the routing's width.
        key_defaults={"K": ("x", -1), "topk": ("topk_ids", 1)},
        ranks={"x": (2, 3), "topk_ids": (2,)}, result=RotateQuantMoeResult),
    "rotate_quant_gemm": Family(
        op="rotate_quant_gemm", inputs=("x", "w_q", "w_s", "r"), optional=("r",),
        elements={"x": "bf16", "r": "bf16", "w_q": "i8", "w_s": "i8", "y": "bf16"},
        outputs=("y",), rows_from="x", key_defaults={"K": ("x", 1), "N": ("w_q", 0)},
        ranks={"x": (2,), "w_q": (2,)}, result=lambda outputs, run: outputs["y"]),
    "quant_weight": Family(
        op="quant_weight", inputs=("w", "r"), optional=("r",),
        elements={"w": "bf16", "r": "bf16", "q": "i8", "s": "i8"}, outputs=("q", "s"),
        rows_from=None, key_defaults={"K": ("w", 1), "N": ("w", 0)}, ranks={"w": (2,)},
        result=QuantWeightResult),
}


def available_ops():
    return [op for op, family in FAMILIES.items() if family.available]


def shaped_view(family, argument, value):
    """The view of an operand whose shape gives a spec key, its type and
    rank checked first (the function and a prepared op say the same)."""
    view = _arrays.view(value, argument, family.elements[argument])
    ranks = family.ranks[argument]
    if len(view.shape) not in ranks:
        expected = " or ".join(str(rank) for rank in ranks)
        raise errors.ArgumentError(
            f"{argument} must have {expected} dimensions, got shape {list(view.shape)}")
    return view


def family_spec(family, arrays, spec, keys, function, views=None):
    """The canonical spec for a call: the spec string and/or keyword keys,
    with keys such as K defaulting from the inputs' shapes. `views`, when
    given, receives the ArrayViews made on the way (the runner reuses them)."""
    defaults = []
    for key, (argument, dimension) in family.key_defaults.items():
        view = shaped_view(family, argument, arrays.get(argument))
        if views is not None:
            views[argument] = view
        defaults.append((key, int(view.shape[dimension])))
    # Only hashable arguments reach the cache; others get build_spec's message.
    if not (spec is None or isinstance(spec, str)) or not all(
            isinstance(value, (int, str)) for value in keys.values()):
        return specs.canonical(specs.build_spec(family.op, spec, keys, dict(defaults), function))
    return _canonical_for(family.op, spec, tuple(keys.items()), tuple(defaults), function)


@functools.lru_cache(maxsize=4096)
def _canonical_for(op, spec, keys, defaults, function):
    # Calls repeat the same few specs: build, parse and print each once.
    return specs.canonical(specs.build_spec(op, spec, dict(keys), dict(defaults), function))


def call(op, arrays, spec, out, keys, selection=None):
    """What every family's function does: spec, run, wrap the result.
    `selection` is selective rotation's launch value ("rotate" or "layer",
    value) or None."""
    family = FAMILIES[op]
    views = {}
    canonical = family_spec(family, arrays, spec, keys, op, views)
    outputs, run = _runner.run(family, canonical, arrays, out, views, selection)
    return family.result(outputs, run)


def _selection(rotate, layer, layer_mask):
    """("rotate", int) or ("layer", int) from rotate_quant's keywords, or
    None; the spec's select key says which one the kernel takes (the runner
    checks that they agree)."""
    if rotate is not None and (layer is not None or layer_mask is not None):
        raise errors.ArgumentError(
            "rotate= goes with select=flag, layer= and layer_mask= with select=mask: give "
            "one or the other")
    if rotate is not None:
        if not isinstance(rotate, (bool, int)):
            raise errors.ArgumentTypeError(
                f"rotate must be a bool or an int, got {type(rotate).__name__}")
        return ("rotate", 1 if rotate is True else int(rotate))
    if layer is not None:
        if isinstance(layer, bool) or not isinstance(layer, int):
            raise errors.ArgumentTypeError(f"layer must be an int, got {type(layer).__name__}")
        return ("layer", layer)
    return None


def _seed_array(seed, like):
    """round=sr's seed operand ([1] i32) from an int (its low 32 bits) or an
    array given as it is; None stays None (the spec then needs none)."""
    if seed is None or not isinstance(seed, int):
        return seed
    import numpy as np
    value = np.array([seed & 0xFFFFFFFF], dtype=np.uint32).view(np.int32)
    if _arrays.is_tensor(like):
        import torch
        return torch.from_numpy(value).to(like.device)
    return value


def rotate_quant(x, spec=None, r=None, out=None, seed=None, rotate=None, layer=None,
                 layer_mask=None, **spec_keys):
    """Rotates and MX-quantizes the rows of `x` ([m, K] bf16: a torch.bfloat16
    tensor, or a numpy uint16 array of bf16 bit patterns).

    `spec` is a rotate_quant spec (docs/spec.md); keyword arguments may stand
    in for or add to its keys (``k=4096, rs=64, scale="rceil",
    layout="a4w4_shuffle"``); K defaults to x.shape[1]; the spec's M is
    ignored (m is x.shape[0], the bucket is chosen for it). `r` is the
    learned rotation (bf16, [RS, RS] or [K/RS, RS, RS]) for rot=learned /
    learned_per_block. Returns (q, s) as new arrays of the kind and device of
    x, uint8, in the shapes of docs/abi.md (q [m, packed(K)], s [m, K/32], or
    [pad256(m), pad8(K/32)] with layout=a4w4_shuffle), or writes them into
    ``out=(q, s)``. Rows of x (and of an out q) may be strided (x[:, :K] of a
    wider tensor); the last dimension must have unit stride. With
    round="sr", `seed` (an int, or a [1] int32 array on x's device, which a
    captured graph may change between replays) seeds the stochastic
    rounding: the same seed gives the same bytes.

    Selective rotation (docs/templates.md): with select="flag", `rotate`
    (a bool or int, nonzero rotates) chooses the path of this launch; with
    select="mask" and layers=N, `layer_mask` ([N] int32, nonzero rotates; on
    x's device, where a captured graph sees it rewritten) and `layer` (the
    index, 0..N-1) do. The other path is quantization alone, bit for bit the
    RS=0 result.
    """
    selection = _selection(rotate, layer, layer_mask)
    return call("rotate_quant", {"x": x, "r": r, "seed": _seed_array(seed, x),
                                 "layer_mask": layer_mask}, spec, out, spec_keys, selection)


def quant_weight(w, spec=None, r=None, out=None, **spec_keys):
    """Rotates and MX-quantizes the N rows of a weight matrix `w` ([N, K]
    bf16: a torch.bfloat16 tensor, or a numpy uint16 array of bf16 bit
    patterns), once, at load time.

    `spec` is a quant_weight spec (docs/spec.md); keyword arguments may stand
    in for or add to its keys (``rs=64, fmt="fp6_e2m3", scale="even126",
    layout="a4w4_shuffle", wlayout="preshuffle_16x16"``); K and N default to
    w.shape[1] and w.shape[0]. One launch processes all N rows (there is no
    M bucket). `r` is the learned rotation (bf16, [RS, RS] or [K/RS, RS, RS])
    for rot=learned / learned_per_block. Returns (q, s) as new arrays of the
    kind and device of w, uint8, in the shapes of docs/abi.md (q [N,
    packed(K)] in the spec's wlayout, s [N, K/32], or [pad256(N), pad8(K/32)]
    with layout=a4w4_shuffle), or writes them into ``out=(q, s)`` (both
    contiguous). Rows of w may be strided (w[:, :K] of a wider tensor); the
    last dimension must have unit stride.
    """
    return call("quant_weight", {"w": w, "r": r}, spec, out, spec_keys)


def rotate_quant_moe(x, topk_ids, topk_weights, spec=None, r=None, expert_mask=None, out=None,
                     seed=None, **spec_keys):
    """Rotates and MX-quantizes the tokens of a MoE layer and sorts their
    routing as AITER's fused MoE expects, in one launch.

    `x` is [m, K] bf16 (stage 1, one row per token) or [m, topk, K] (stage=2,
    one row per routed (token, slot)); `topk_ids` [m, topk] int32 and
    `topk_weights` [m, topk] float32 are the router's choice. `spec` is a
    rotate_quant_moe spec (docs/spec.md); keyword arguments may stand in for
    or add to its keys (``e=128, rs=128, scale="rceil",
    layout="a4w4_shuffle", block=32``); K defaults to x's last dimension and
    topk to topk_ids.shape[1]; E must be given. `r` is the learned rotation;
    `expert_mask` ([E] int32, nonzero = local) goes with emask=1. Returns
    (q, s, sorted_ids, sorted_weights, sorted_expert_ids, num_valid_ids) in
    docs/templates.md's formats (s holds the valid sorted rows' scales; rows
    past them are not written), or writes them into ``out=(...)``. Ids
    outside [0, E) are refused on the emu device (the C API reads them).
    """
    return call("rotate_quant_moe", {"x": x, "r": r, "seed": _seed_array(seed, x),
                                     "topk_ids": topk_ids,
                                     "topk_weights": topk_weights, "expert_mask": expert_mask},
                spec, out, spec_keys)


def _not_available(op):
    def unavailable(*args, **kwargs):
        raise errors.Error(f"mxforge.{op} is not available yet: {FAMILIES[op].note}")
    unavailable.__name__ = op
    unavailable.__doc__ = f"Not available yet: {FAMILIES[op].note}."
    return unavailable


def rotate_quant_gemm(x, w_q, w_s, spec=None, r=None, out=None, **spec_keys):
    """y = x.W^T through the fused decode GEMM. With fmt="fp4" (A4W4, the
    default) it rotates and MXFP4-quantizes the rows of `x` ([m, K] bf16) as
    rotate_quant does and multiplies them with MXFP4 weights; with
    fmt="fp6_e2m3" (W6A16) it rotates them, rounds them to bf16 and
    multiplies them with MXFP6 E2M3 weights (converted to bf16 exactly in
    registers). The weights are quant_weight's, with the same rotation keys.

    `w_q` (uint8 codes in the spec's wlayout: fp4 [N, K/2], plain or
    preshuffle_16x16; fp6_e2m3 [N, 3K/4], plain or w6a16_16x128) and `w_s`
    (uint8 E8M0 scales, [N, K/32] plain or [pad256(N), pad8(K/32)] with
    layout=a4w4_shuffle) are quant_weight's outputs; `spec` is a
    rotate_quant_gemm spec (docs/spec.md) and keyword arguments may stand in
    for or add to its keys (``rs=64, scale="even", layout="a4w4_shuffle",
    wlayout="preshuffle_16x16"``); K defaults to x.shape[1] and N to
    w_q.shape[0]. `r` is the learned rotation for rot=learned /
    learned_per_block. Returns y ([m, N] bf16, a new array of x's kind and
    device), or writes it into ``out=y`` (or ``out=(y,)``). Rows of x and of
    an out y may be strided. The sum's order is numerics'
    (docs/numerics.md): the same bytes on every run.
    """
    if out is not None and not isinstance(out, (tuple, list)):
        out = (out,)
    return call("rotate_quant_gemm", {"x": x, "w_q": w_q, "w_s": w_s, "r": r}, spec, out,
                spec_keys)


FUNCTIONS = {"rotate_quant": rotate_quant, "quant_weight": quant_weight,
             "rotate_quant_moe": rotate_quant_moe, "rotate_quant_gemm": rotate_quant_gemm}
for _op, _family in FAMILIES.items():
    if not _family.available:
        FUNCTIONS[_op] = _not_available(_op)
