"""torch custom ops: torch.ops.mxforge.<op> for every available family.

torch >= 2.4 gets torch.library.custom_op with a registered fake (the
supported path for torch.compile and FakeTensor); older torch (1.13, Debian)
gets torch.library.Library("mxforge", "DEF") with CPU and Meta kernels. In
both, the fake/meta implementation computes the output shapes from the C
library's ABI (mxf_spec_get_operands) without compiling or launching, so
shapes propagate under tracing. The op's spec is a string argument; x's
width supplies K when the spec leaves it out (w's shape supplies K and N).
"""

from typing import Optional, Tuple

import torch

from . import errors
from . import families
from . import specs

_library = None
REGISTRATION = None  # "custom_op" or "Library", for tests and docs


def _output_shapes(family, spec, first):
    """The outputs' shapes for the family's first input `first` (x, w)."""
    name = family.inputs[0]
    canonical = families.family_spec(family, {name: first}, spec or None, {}, family.op)
    if family.rows_from is None:
        # quant_weight: N rows from the spec; first's shape is checked against it.
        m = specs.spec_rows(canonical)
        by_name = {operand.name: operand for operand in specs.operands(canonical, m)}
        expected = by_name[name].shape
        if tuple(first.shape) != tuple(expected):
            raise errors.ArgumentError(f"{name} must have shape {list(expected)}, got "
                                       f"{list(first.shape)} (spec {canonical})")
        return [by_name[output].shape for output in family.outputs]
    m = int(first.shape[0])
    by_name = {operand.name: operand for operand in specs.operands(canonical, m)}
    if not 1 <= m <= specs.LARGEST_M_BUCKET:
        raise errors.ArgumentError(
            f"{name} has {m} rows; a launch takes 1..{specs.LARGEST_M_BUCKET}")
    return [by_name[output].shape for output in family.outputs]


def _rotate_quant_impl(x, spec, r=None):
    q, s = families.rotate_quant(x, spec or None, r=r)
    return q, s


def _rotate_quant_fake(x, spec, r=None):
    family = families.FAMILIES["rotate_quant"]
    return tuple(x.new_empty(shape, dtype=torch.uint8)
                 for shape in _output_shapes(family, spec, x))


_TORCH_DTYPES = {"i8": torch.uint8, "i32": torch.int32, "f32": torch.float32}


def _rotate_quant_moe_impl(x, topk_ids, topk_weights, spec, r=None, expert_mask=None):
    return tuple(families.rotate_quant_moe(x, topk_ids, topk_weights, spec or None, r=r,
                                           expert_mask=expert_mask))


def _rotate_quant_moe_fake(x, topk_ids, topk_weights, spec, r=None, expert_mask=None):
    family = families.FAMILIES["rotate_quant_moe"]
    canonical = families.family_spec(family, {"x": x, "topk_ids": topk_ids}, spec or None, {},
                                     family.op)
    m = int(x.shape[0])
    if not 1 <= m <= specs.LARGEST_M_BUCKET:
        raise errors.ArgumentError(f"x has {m} rows; a launch takes 1..{specs.LARGEST_M_BUCKET}")
    by_name = {operand.name: operand for operand in specs.operands(canonical, m)}
    return tuple(x.new_empty(by_name[name].shape, dtype=_TORCH_DTYPES[by_name[name].element])
                 for name in family.outputs)


def _quant_weight_impl(w, spec, r=None):
    q, s = families.quant_weight(w, spec or None, r=r)
    return q, s


def _quant_weight_fake(w, spec, r=None):
    family = families.FAMILIES["quant_weight"]
    return tuple(w.new_empty(shape, dtype=torch.uint8)
                 for shape in _output_shapes(family, spec, w))


def _rotate_quant_gemm_impl(x, w_q, w_s, spec, r=None):
    return families.rotate_quant_gemm(x, w_q, w_s, spec or None, r=r)


def _rotate_quant_gemm_fake(x, w_q, w_s, spec, r=None):
    family = families.FAMILIES["rotate_quant_gemm"]
    canonical = families.family_spec(family, {"x": x, "w_q": w_q}, spec or None, {}, family.op)
    m = int(x.shape[0])
    if not 1 <= m <= specs.LARGEST_M_BUCKET:
        raise errors.ArgumentError(f"x has {m} rows; a launch takes 1..{specs.LARGEST_M_BUCKET}")
    by_name = {operand.name: operand for operand in specs.operands(canonical, m)}
    return x.new_empty(by_name["y"].shape, dtype=torch.bfloat16)


# op: (schema, implementation, fake); the schemas name the function's arguments.
_OPS = {
    "rotate_quant": ("rotate_quant(Tensor x, str spec, Tensor? r=None) -> (Tensor, Tensor)",
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
    def rotate_quant(x: torch.Tensor, spec: str,
                     r: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, torch.Tensor]:
        return _rotate_quant_impl(x, spec, r)

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
