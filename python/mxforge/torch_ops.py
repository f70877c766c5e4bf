"""torch custom ops: torch.ops.mxforge.<op> for every available family.

torch >= 2.4 gets torch.library.custom_op with a registered fake (the
supported path for torch.compile and FakeTensor); older torch (1.13, Debian)
gets torch.library.Library("mxforge", "DEF") with CPU and Meta kernels. In
both, the fake/meta implementation computes the output shapes from the C
library's ABI (mxf_spec_get_operands) without compiling or launching, so
shapes propagate under tracing. The op's spec is a string argument; x's
width supplies K when the spec leaves it out.
"""

from typing import Optional, Tuple

import torch

from . import errors
from . import families
from . import specs

_library = None
REGISTRATION = None  # "custom_op" or "Library", for tests and docs


def _output_shapes(family, spec, x):
    canonical = families.family_spec(family, {"x": x}, spec or None, {}, family.op)
    m = int(x.shape[0])
    by_name = {operand.name: operand for operand in specs.operands(canonical, m)}
    if not 1 <= m <= specs.LARGEST_M_BUCKET:
        raise errors.ArgumentError(
            f"x has {m} rows; a launch takes 1..{specs.LARGEST_M_BUCKET}")
    return [by_name[name].shape for name in family.outputs]


def _rotate_quant_impl(x, spec, r=None):
    q, s = families.rotate_quant(x, spec or None, r=r)
    return q, s


def _rotate_quant_fake(x, spec, r=None):
    family = families.FAMILIES["rotate_quant"]
    return tuple(x.new_empty(shape, dtype=torch.uint8)
                 for shape in _output_shapes(family, spec, x))


def _register_custom_op():
    from torch.library import custom_op

    @custom_op("mxforge::rotate_quant", mutates_args=())
    def rotate_quant(x: torch.Tensor, spec: str,
                     r: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, torch.Tensor]:
        return _rotate_quant_impl(x, spec, r)

    rotate_quant.register_fake(_rotate_quant_fake)
    return "custom_op"


def _register_library():
    global _library
    _library = torch.library.Library("mxforge", "DEF")
    _library.define("rotate_quant(Tensor x, str spec, Tensor? r=None) -> (Tensor, Tensor)")
    _library.impl("rotate_quant", _rotate_quant_impl, "CPU")
    _library.impl("rotate_quant", _rotate_quant_impl, "CUDA")  # ROCm torch's GPU key
    _library.impl("rotate_quant", _rotate_quant_fake, "Meta")
    # torch 1.13 has no autograd fallthrough for Meta (it has one for CPU and
    # CUDA); the outputs are integer codes, so there is no gradient to track.
    _library.impl("rotate_quant", _rotate_quant_fake, "AutogradMeta")
    return "Library"


def register():
    global REGISTRATION
    if REGISTRATION is None:
        REGISTRATION = (_register_custom_op() if hasattr(torch.library, "custom_op")
                        else _register_library())
    return REGISTRATION
