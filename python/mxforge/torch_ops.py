"""torch custom ops: torch.ops.mxforge.<op> for every available family.

torch >= 2.4 gets torch.library.custom_op with a registered fake (the
supported path for torch.compile and FakeTensor); older torch (1.13, Debian)
gets torch.library.Library("mxforge", "DEF") with CPU and Meta kernels. In
both, the fake/meta implementation computes the output shapes from the C
library's ABI (mxf_spec_get_operands) without compiling or launching, so
shapes propagate under tracing. The op's spec is a string argument; x's
width supplies K when the spec leaves it out (w's shape supplies K and N).

Dynamic shapes (torch.compile): the rows of a launch (m, x's first
dimension; N, w's first dimension, for quant_weight) may be a SymInt. The
fakes never turn it into a Python int (that would specialize the graph to
one batch size); they derive every output extent from it by SymInt
arithmetic, with formulas checked once per spec against the library's own
shapes (_row_formulas). The other sizes (K, N of a GEMM, topk) are part of
the kernel spec and are made concrete, so a new K is a new graph.
"""

import functools
from typing import Optional, Tuple

import torch

from . import _arrays
from . import errors
from . import families
from . import specs

_library = None
REGISTRATION = None  # "custom_op" or "Library", for tests and docs

# Row paddings of the ABI's shapes (each family's op_abi.cpp, from
# abi/operand_builders.cpp and numerics): a4w4_shuffle scales of
# dense rows and A6W6 tiles pad rows to 256, MoE-sorted scales to 32.
_TILE_ROWS = 256
_MOE_ROW_PADDING = 32


def _round_up(value, multiple):
    # Floor division and products only: exact on ints and on SymInts.
    return ((value + multiple - 1) // multiple) * multiple


def _ceil_div(value, divisor):
    return (value + divisor - 1) // divisor


def _is_concrete(size):
    """True for a plain int; False for a SymInt of a dynamic dimension."""
    return isinstance(size, int)


def _hint(size):
    """The value a SymInt stands for in the example being traced (None for
    an unbacked one), read without installing a guard; an int itself."""
    if _is_concrete(size):
        return size
    hint = getattr(getattr(size, "node", None), "hint", None)
    return None if hint is None else int(hint)


def _example_value(size):
    hint = _hint(size)
    if hint is None:
        raise errors.ArgumentError(
            f"the size {size} has no example value (an unbacked size): quant_weight needs "
            f"N in its spec, which names the kernel")
    return hint


def _require(condition, message):
    """Refuses a false `condition` with ArgumentError(message). On a SymBool
    this is torch._check_with: it records the condition for the graph (a
    guard or a runtime assert) instead of branching on the size in Python."""
    if isinstance(condition, bool):
        if not condition:
            raise errors.ArgumentError(message)
        return
    check_with = getattr(torch, "_check_with", None)
    if check_with is not None:
        check_with(errors.ArgumentError, condition, lambda: message)
    elif not bool(condition):  # torch 2.0 has SymBools but no _check_with
        raise errors.ArgumentError(message)


def _row_candidates(canonical):
    """Name -> f(rows) for every way an output extent of this spec's op may
    depend on the launch's rows (the families' op_abi.cpp). Each f is plain
    integer arithmetic, so it takes an int or a SymInt."""
    candidates = {"rows": lambda rows: rows,
                  f"pad{_TILE_ROWS}(rows)": lambda rows: _round_up(rows, _TILE_ROWS)}
    if specs.op_of(canonical) == "rotate_quant_moe":
        topk = specs.spec_value(canonical, "topk")
        experts = specs.spec_value(canonical, "E")
        block = specs.spec_value(canonical, "block")

        def capacity(rows):
            # AITER's sorted capacity: m*topk + E*block - topk.
            return rows * topk + experts * block - topk

        candidates["capacity"] = capacity
        candidates[f"pad{_MOE_ROW_PADDING}(capacity)"] = \
            lambda rows: _round_up(capacity(rows), _MOE_ROW_PADDING)
        candidates["ceil(capacity/block)"] = lambda rows: _ceil_div(capacity(rows), block)
    return candidates


def _with_rows(canonical, rows):
    """The spec whose kernel runs `rows` rows: the same spec for ops with an
    M bucket (m is a launch argument), the spec with N=rows for quant_weight."""
    if specs.op_of(canonical) != "quant_weight":
        return canonical
    op, _, body = canonical.partition(":")
    return f"{op}:" + ",".join(f"N={rows}" if item.startswith("N=") else item
                               for item in body.split(","))


# Every launchable row count, and some beyond the largest bucket, so that a
# padding (pad256(m) is 256 for every m <= 256) is told apart from a constant.
@functools.lru_cache(maxsize=None)
def _sample_rows():
    largest = specs.largest_m_bucket()
    return tuple(range(1, largest + 1)) + tuple(
        rows for rows in (257, 300, 511, 512, 513, 1000, 4112) if rows > largest)


@functools.lru_cache(maxsize=256)
def _row_formulas(canonical, outputs):
    """For each output of `canonical` (names in `outputs`): a tuple, per
    dimension, of an int (the extent does not depend on the rows) or
    (name, f) with f one of _row_candidates. Each choice equals the
    library's shape (mxf_spec_get_operands) at every row count sampled, so
    the symbolic shapes are the eager op's; a dimension no candidate fits is
    an InternalError (the ABI gained a shape rule this file lacks)."""
    candidates = _row_candidates(canonical)
    observed = {}  # rows -> {output: shape}
    for rows in _sample_rows():
        try:
            # Uncached: these row counts would crowd specs.operands' cache.
            listing = specs.operands.__wrapped__(_with_rows(canonical, rows), rows)
        except errors.SpecError:
            continue  # quant_weight: an N this spec does not take (N % 16)
        observed[rows] = {operand.name: operand.shape for operand in listing}
    if len(observed) < 2:
        raise errors.InternalError(f"too few row counts to derive the shapes of {canonical}")
    formulas = []
    for name in outputs:
        ranks = {len(shapes[name]) for shapes in observed.values()}
        if len(ranks) != 1:
            raise errors.InternalError(f"{name} of {canonical} changes rank with the rows")
        dimensions = []
        for dimension in range(ranks.pop()):
            extents = {rows: shapes[name][dimension] for rows, shapes in observed.items()}
            if len(set(extents.values())) == 1:
                dimensions.append(next(iter(extents.values())))
                continue
            fitting = [(label, f) for label, f in candidates.items()
                       if all(f(rows) == extent for rows, extent in extents.items())]
            if not fitting:
                raise errors.InternalError(
                    f"dimension {dimension} of {name} of {canonical} follows no known rule of "
                    f"the rows (e.g. {extents[1] if 1 in extents else extents}): "
                    f"torch_ops._row_candidates needs it")
            dimensions.append(fitting[0])
        formulas.append(tuple(dimensions))
    return tuple(formulas)


def _shapes_at(canonical, outputs, rows):
    """The outputs' shapes at `rows` (an int or a SymInt) rows."""
    if _is_concrete(rows):
        by_name = {operand.name: operand
                   for operand in specs.operands(_with_rows(canonical, rows), rows)}
        return [by_name[name].shape for name in outputs]
    return [tuple(dimension if isinstance(dimension, int) else dimension[1](rows)
                  for dimension in shape)
            for shape in _row_formulas(canonical, tuple(outputs))]


def _launch_rows(name, rows):
    """Refuses a row count no launch takes, as the library would."""
    shown = rows if _hint(rows) is None else _hint(rows)  # 300, not s0, in the message
    largest = specs.largest_m_bucket()
    message = f"{name} has {shown} rows; a launch takes 1..{largest}"
    _require(rows >= 1, message)
    _require(rows <= largest, message)


_TORCH_DTYPES = {"i8": torch.uint8, "i32": torch.int32, "f32": torch.float32,
                 "bf16": torch.bfloat16}


def _check_optional_inputs(canonical, given):
    """The launch's checks of the inputs some specs take (r, layer_mask,
    expert_mask): present exactly when the spec has them, in their shapes;
    the same messages as the runner's. `given`: {name: tensor or None}."""
    from . import _runner
    by_name = {operand.name: operand for operand in specs.operands(canonical, 1)
               if not operand.is_output}
    for name, value in given.items():
        operand = by_name.get(name)
        if value is None:
            if operand is not None:
                raise errors.ArgumentError(f"{canonical} needs {name} ({operand.element} "
                                           f"{list(operand.shape)}), which was not given")
            continue
        if operand is None:
            raise errors.ArgumentError(f"{name} is given, but {canonical} takes no {name}")
        _runner._check_layout(_arrays.view(value, name, operand.element), operand, canonical)


def _fake_outputs(op, arrays, spec, like, optional=None):
    """New tensors (of `like`'s device) in the shapes and dtypes op's
    outputs have for `arrays`; K and the other spec keys that default from a
    shape become concrete (they name the kernel), the rows stay symbolic.
    `optional`: the inputs some specs take, checked as a launch checks them."""
    family = families.FAMILIES[op]
    canonical = families.family_spec(family, arrays, spec or None, {}, op)
    _check_optional_inputs(canonical, optional or {})
    rows = like.shape[0]
    _launch_rows(family.rows_from, rows)
    shapes = _shapes_at(canonical, family.outputs, rows)
    by_name = {operand.name: operand for operand in specs.operands(canonical, 1)}
    return tuple(like.new_empty(shape, dtype=_TORCH_DTYPES[by_name[name].element])
                 for name, shape in zip(family.outputs, shapes))


def _rotate_quant_impl(x, spec, r=None, rotate=None, layer=None, layer_mask=None):
    q, s = families.rotate_quant(x, spec or None, r=r, rotate=rotate, layer=layer,
                                 layer_mask=layer_mask)
    return q, s


def _traced_int(value):
    """A selection value as the function's checks take it: while tracing a
    SymInt stands for an int whose value the graph does not fix."""
    return value if value is None or isinstance(value, int) else 0


def _rotate_quant_fake(x, spec, r=None, rotate=None, layer=None, layer_mask=None):
    # The function's own checks of the selection first, so that a meta or
    # traced call refuses what an eager call refuses, with the same message.
    from . import _runner
    selection = families._selection(_traced_int(rotate), _traced_int(layer), layer_mask)
    canonical = families.family_spec(families.FAMILIES["rotate_quant"], {"x": x},
                                     spec or None, {}, "rotate_quant")
    _runner._selection_value(canonical, selection)
    return _fake_outputs("rotate_quant", {"x": x}, spec, x,
                         {"r": r, "layer_mask": layer_mask})


def _rotate_quant_moe_impl(x, topk_ids, topk_weights, spec, r=None, expert_mask=None):
    return tuple(families.rotate_quant_moe(x, topk_ids, topk_weights, spec or None, r=r,
                                           expert_mask=expert_mask))


def _rotate_quant_moe_fake(x, topk_ids, topk_weights, spec, r=None, expert_mask=None):
    return _fake_outputs("rotate_quant_moe", {"x": x, "topk_ids": topk_ids}, spec, x,
                         {"r": r, "expert_mask": expert_mask})


def _quant_weight_impl(w, spec, r=None):
    q, s = families.quant_weight(w, spec or None, r=r)
    return q, s


def _spec_gives(spec, key):
    """True when the spec text itself sets `key` (not a default from a shape)."""
    body = (spec or "").partition(":")[2]
    return any(item.partition("=")[0].strip() == key for item in body.split(","))


def _quant_weight_fake(w, spec, r=None):
    view = _arrays.view(w, "w", "bf16")
    if len(view.shape) != 2:
        raise errors.ArgumentError(f"w must have 2 dimensions, got shape {list(view.shape)}")
    rows, width = view.shape
    # K names the kernel: a dynamic K is made concrete (a guard). N does too,
    # but the outputs' shapes follow it by formula, so a spec that leaves N
    # to w's shape is built from the example's N without a guard: the graph
    # holds for every N, and each real call checks its own.
    defaults = {"K": width if _is_concrete(width) else int(width), "N": _example_value(rows)}
    canonical = specs.canonical(specs.build_spec("quant_weight", spec or None, {}, defaults,
                                                 "quant_weight"))
    spec_rows = specs.spec_rows(canonical)
    expected = {operand.name: operand.shape
                for operand in specs.operands(canonical, spec_rows)}["w"]
    message = f"w must have shape {list(expected)}, got {list(view.shape)} (spec {canonical})"
    if defaults["K"] != expected[1]:
        raise errors.ArgumentError(message)
    if _is_concrete(rows) or _spec_gives(spec, "N"):
        _require(rows == spec_rows, message)
    _check_optional_inputs(canonical, {"r": r})
    shapes = _shapes_at(canonical, families.FAMILIES["quant_weight"].outputs, rows)
    return tuple(w.new_empty(shape, dtype=torch.uint8) for shape in shapes)


def _rotate_quant_gemm_impl(x, w_q, w_s, spec, r=None):
    return families.rotate_quant_gemm(x, w_q, w_s, spec or None, r=r)


def _rotate_quant_gemm_fake(x, w_q, w_s, spec, r=None):
    (y,) = _fake_outputs("rotate_quant_gemm", {"x": x, "w_q": w_q}, spec, x, {"r": r})
    return y

# op: (schema, implementation, fake); the schemas name the function's arguments.
_OPS = {
    "rotate_quant": ("rotate_quant(Tensor x, str spec, Tensor? r=None, int? rotate=None, "
                     "int? layer=None, Tensor? layer_mask=None) -> (Tensor, Tensor)",
                     _rotate_quant_impl, _rotate_quant_fake),
    "quant_weight": ("quant_weight(Tensor w, str spec, Tensor? r=None) -> (Tensor, Tensor)",
                     _quant_weight_impl, _quant_weight_fake),
    "rotate_quant_moe": ("rotate_quant_moe(Tensor x, Tensor topk_ids, Tensor topk_weights, "
                         "str spec, Tensor? r=None, Tensor? expert_mask=None) -> "
                         "(Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)",
                         _rotate_quant_moe_impl, _rotate_quant_moe_fake),
    "rotate_quant_gemm": ("rotate_quant_gemm(Tensor x, Tensor w_q, Tensor w_s, str spec, "
                          "Tensor? r=None) -> Tensor",
                          _rotate_quant_gemm_impl, _rotate_quant_gemm_fake),
}


def _register_custom_op():
    from torch.library import custom_op

    @custom_op("mxforge::rotate_quant", mutates_args=())
    def rotate_quant(x: torch.Tensor, spec: str, r: Optional[torch.Tensor] = None,
                     rotate: Optional[int] = None, layer: Optional[int] = None,
                     layer_mask: Optional[torch.Tensor] = None
                     ) -> Tuple[torch.Tensor, torch.Tensor]:
        return _rotate_quant_impl(x, spec, r, rotate, layer, layer_mask)

    rotate_quant.register_fake(_rotate_quant_fake)

    @custom_op("mxforge::quant_weight", mutates_args=())
    def quant_weight(w: torch.Tensor, spec: str,
                     r: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, torch.Tensor]:
        return _quant_weight_impl(w, spec, r)

    quant_weight.register_fake(_quant_weight_fake)

    @custom_op("mxforge::rotate_quant_moe", mutates_args=())
    def rotate_quant_moe(x: torch.Tensor, topk_ids: torch.Tensor, topk_weights: torch.Tensor,
                         spec: str, r: Optional[torch.Tensor] = None,
                         expert_mask: Optional[torch.Tensor] = None
                         ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor,
                                    torch.Tensor, torch.Tensor]:
        return _rotate_quant_moe_impl(x, topk_ids, topk_weights, spec, r, expert_mask)

    rotate_quant_moe.register_fake(_rotate_quant_moe_fake)

    @custom_op("mxforge::rotate_quant_gemm", mutates_args=())
    def rotate_quant_gemm(x: torch.Tensor, w_q: torch.Tensor, w_s: torch.Tensor, spec: str,
                          r: Optional[torch.Tensor] = None) -> torch.Tensor:
        return _rotate_quant_gemm_impl(x, w_q, w_s, spec, r)

    rotate_quant_gemm.register_fake(_rotate_quant_gemm_fake)
    return "custom_op"


def _register_library():
    global _library
    _library = torch.library.Library("mxforge", "DEF")
    for op, (schema, implementation, fake) in _OPS.items():
        _library.define(schema)
        _library.impl(op, implementation, "CPU")
        _library.impl(op, implementation, "CUDA")  # ROCm torch's GPU key
        _library.impl(op, fake, "Meta")
        # torch 1.13 has no autograd fallthrough for Meta (it has one for CPU
        # and CUDA); the outputs are integer codes, so there is no gradient.
        _library.impl(op, fake, "AutogradMeta")
    return "Library"


def register():
    global REGISTRATION
    if REGISTRATION is None:
        REGISTRATION = (_register_custom_op() if hasattr(torch.library, "custom_op")
                        else _register_library())
    return REGISTRATION
