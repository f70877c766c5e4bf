"""torch.ops.mxforge.*: registered, callable, shapes through meta and fake tensors."""

import pytest
import torch

import mxforge
from helpers import mismatch, random_m, random_x, to_torch


def test_the_op_is_registered_and_matches_the_function(rng):
    assert mxforge.TORCH_OPS in ("custom_op", "Library")
    m = random_m(rng)
    x = to_torch(random_x(rng, m, 512))
    q, s = torch.ops.mxforge.rotate_quant(x, "rotate_quant:K=512,RS=128,scale=rceil")
    q_ref, s_ref = mxforge.reference("rotate_quant:K=512,RS=128,scale=rceil", x)
    assert mismatch(q, q_ref, "q") is None and mismatch(s, s_ref, "s") is None
    # K may be left to x's width, as in the function.
    q2, _ = torch.ops.mxforge.rotate_quant(x, "rotate_quant:RS=128,scale=rceil")
    assert torch.equal(q2, q)


def test_the_op_with_a_learned_rotation(rng):
    x = to_torch(random_x(rng, 3, 256))
    r = (torch.randn(64, 64) * 0.125).to(torch.bfloat16)
    spec = "rotate_quant:K=256,RS=64,rot=learned"
    q, s = torch.ops.mxforge.rotate_quant(x, spec, r)
    q_ref, s_ref = mxforge.reference(spec, x, r=r)
    assert mismatch(q, q_ref, "q") is None and mismatch(s, s_ref, "s") is None


@pytest.mark.parametrize("layout, s_shape", [("plain", (9, 32)), ("a4w4_shuffle", (256, 32))])
def test_meta_tensors_give_the_output_shapes(layout, s_shape):
    x = torch.empty(9, 1024, dtype=torch.bfloat16, device="meta")
    q, s = torch.ops.mxforge.rotate_quant(x, f"rotate_quant:RS=64,layout={layout}")
    assert q.device.type == "meta" and s.device.type == "meta"
    assert tuple(q.shape) == (9, 512) and q.dtype == torch.uint8
    assert tuple(s.shape) == s_shape and s.dtype == torch.uint8


def test_fake_tensors_give_the_output_shapes():
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
    with FakeTensorMode() as mode:
        x = mode.from_tensor(torch.empty(33, 2048, dtype=torch.bfloat16))
        q, s = torch.ops.mxforge.rotate_quant(x, "rotate_quant:RS=32,fmt=fp4")
        assert isinstance(q, FakeTensor) and isinstance(s, FakeTensor)
        assert tuple(q.shape) == (33, 1024) and tuple(s.shape) == (33, 64)


def test_meta_rejects_what_a_launch_rejects():
    x = torch.empty(300, 256, dtype=torch.bfloat16, device="meta")
    with pytest.raises(mxforge.ArgumentError, match="300 rows"):
        torch.ops.mxforge.rotate_quant(x, "rotate_quant:RS=64")
    with pytest.raises(mxforge.SpecError, match="RS=48"):
        torch.ops.mxforge.rotate_quant(x[:4], "rotate_quant:RS=48")


def _compile_support():
    """Why torch.compile cannot run here, or None when it can."""
    if not hasattr(torch, "compile"):
        return f"torch {torch.__version__} has no torch.compile (it arrived in torch 2.0)"
    return None


@pytest.mark.skipif(_compile_support() is not None, reason=str(_compile_support()))
def test_the_op_under_torch_compile(rng):
    x = to_torch(random_x(rng, 4, 256))

    def quantize(a):
        return torch.ops.mxforge.rotate_quant(a, "rotate_quant:RS=64")

    compiled = torch.compile(quantize, fullgraph=True)
    q, s = compiled(x)
    q_ref, s_ref = mxforge.reference("rotate_quant:RS=64", x)
    assert mismatch(q, q_ref, "q") is None and mismatch(s, s_ref, "s") is None
