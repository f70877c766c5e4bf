"""rmsnorm_rotate_quant from Python: the fused residual add, RMSNorm,
rotation and quantization. Its codes and scales must equal rotate_quant's on
the normalized row, byte for byte, where that row is computed here in numpy
in the order docs/numerics.md defines (an implementation the kernel and the
C++ reference share nothing with); residual_out must be x + residual in
bf16. Also: torch tensors and strided views, out=, the selection, the torch
op, and bad arguments refused by name."""

import numpy as np
import pytest
import torch

import mxforge
from helpers import bf16_bits, mismatch, random_m, random_x, to_torch


def expect_equal(actual, expected, what):
    problem = mismatch(actual, expected, what)
    assert problem is None, problem


def f32(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def normalized(x, gamma, eps, residual=None):
    """(y, z) in numpy float32 with docs/numerics.md's roundings and order."""
    z = f32(x) if residual is None else f32(bf16_bits(f32(x) + f32(residual)))
    m, k = z.shape
    squares = (z * z).reshape(m, k // 32, 4, 8)
    groups = squares[..., 0]
    for i in range(1, 8):  # each lane group's eight squares in channel order
        groups = (groups + squares[..., i]).astype(np.float32)
    partials = ((groups[..., 0] + groups[..., 1]) + (groups[..., 2] + groups[..., 3]))
    total = partials[:, 0].copy()
    for block in range(1, k // 32):  # the blocks in ascending order
        total = (total + partials[:, block]).astype(np.float32)
    mean = (total / np.float32(k)).astype(np.float32)
    scale = (np.float32(1.0) / np.sqrt(mean + np.float32(eps))).astype(np.float32)
    n = f32(bf16_bits(z * scale[:, None]))
    y = bf16_bits(n * f32(gamma)[None, :])
    return y, bf16_bits(z)


def random_gamma(rng, k):
    gen = np.random.default_rng(rng.randrange(2**63))
    return bf16_bits(gen.uniform(-0.25, 1.75, k).astype(np.float32))


def random_keys(rng):
    rs = rng.choice((0, 32, 64, 128))
    keys = {"k": max(rs, 32) * rng.randint(2, 12), "rs": rs,
            "rot": "none" if rs == 0 else rng.choice(("hadamard", "hadamard")),
            "scale": rng.choice(("even", "rceil", "floor")),
            "layout": rng.choice(("plain", "a4w4_shuffle")),
            "fmt": rng.choice(("fp4", "fp4", "fp6_e2m3", "fp8_e4m3"))}
    return keys


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_equals_rotate_quant_of_the_normalized_row(rng, kind):
    keys = random_keys(rng)
    m, k = random_m(rng), keys["k"]
    eps = rng.choice((1e-6, 1e-5, 0.25))
    x = random_x(rng, m, k, width=k + 16 if rng.random() < 0.5 else None)
    residual = random_x(rng, m, k)
    gamma = random_gamma(rng, k)
    print(f"keys {keys}, m={m}, eps={eps}, x strided: {x.strides[0] != 2 * k}")
    y, z = normalized(x, gamma, eps, residual)
    expected = mxforge.rotate_quant(y, **keys)
    convert = to_torch if kind == "torch" else (lambda a: a)
    arg_x = convert(x) if kind == "numpy" else to_torch(np.ascontiguousarray(x))
    result = mxforge.rmsnorm_rotate_quant(arg_x, convert(gamma), residual=convert(residual),
                                          eps=eps, add=1, **keys)
    assert result.spec.startswith("rmsnorm_rotate_quant:") and ",add=1," in result.spec
    expect_equal(result.q, expected.q, f"q of {result.spec} m={m}")
    expect_equal(result.s, expected.s, f"s of {result.spec} m={m}")
    expect_equal(result.residual_out, z, f"residual_out of {result.spec} m={m}")
    # Without the residual: z is x, and there is no residual_out.
    y0, _ = normalized(x, gamma, eps)
    plain = mxforge.rmsnorm_rotate_quant(arg_x, convert(gamma), eps=eps, **keys)
    assert plain.residual_out is None and len(plain) == 3
    expect_equal(plain.q, mxforge.rotate_quant(y0, **keys).q, f"q of {plain.spec} m={m}")


def test_out_selection_and_prepared(rng):
    k, m = 512, random_m(rng)
    x, residual, gamma = random_x(rng, m, k), random_x(rng, m, k), random_gamma(rng, k)
    keys = {"k": k, "rs": 64, "rot": "hadamard", "add": 1}
    y, z = normalized(x, gamma, 1e-6, residual)
    rotated = mxforge.rotate_quant(y, k=k, rs=64, rot="hadamard")
    plain = mxforge.rotate_quant(y, k=k, rs=0)
    out = (np.full_like(rotated.q, 0xA5), np.full_like(rotated.s, 0xA5),
           np.full_like(z, 0x5A5A))
    for rotate, expected in ((True, rotated), (False, plain)):
        result = mxforge.rmsnorm_rotate_quant(x, gamma, residual=residual, eps=1e-6,
                                              select="flag", rotate=rotate, out=out, **keys)
        assert result.q is out[0] and result.residual_out is out[2]
        expect_equal(out[0], expected.q, f"q rotate={rotate}")
        expect_equal(out[1], expected.s, f"s rotate={rotate}")
        expect_equal(out[2], z, f"residual_out rotate={rotate}")
    prepared = mxforge.prepare("rmsnorm_rotate_quant", gamma=gamma, **keys)
    again = prepared(x, residual=residual, eps=1e-6)
    expect_equal(again.q, rotated.q, "q of the prepared op")


def test_torch_op(rng):
    k, m = 256, random_m(rng)
    x, residual, gamma = random_x(rng, m, k), random_x(rng, m, k), random_gamma(rng, k)
    spec = "rmsnorm_rotate_quant:K=256,RS=64,rot=hadamard,add=1"
    q, s, residual_out = torch.ops.mxforge.rmsnorm_rotate_quant(
        to_torch(x), to_torch(gamma), spec, 1e-5, to_torch(residual))
    y, z = normalized(x, gamma, 1e-5, residual)
    expect_equal(q, mxforge.rotate_quant(y, k=k, rs=64).q, "q of the torch op")
    expect_equal(residual_out, to_torch(z), "residual_out of the torch op")
    q0, s0, none = torch.ops.mxforge.rmsnorm_rotate_quant(
        to_torch(x), to_torch(gamma), "rmsnorm_rotate_quant:K=256,RS=64,rot=hadamard", 1e-5)
    assert none.shape == (0,) and q0.shape == q.shape


def test_bad_arguments_are_named(rng):
    k = 256
    x, residual, gamma = random_x(rng, 2, k), random_x(rng, 2, k), random_gamma(rng, k)
    f = mxforge.rmsnorm_rotate_quant
    with pytest.raises(mxforge.ArgumentTypeError, match="'eps'"):
        f(x, gamma, rs=64)
    with pytest.raises(mxforge.ArgumentTypeError, match="eps must be a float"):
        f(x, gamma, rs=64, eps="1e-6")
    with pytest.raises(mxforge.Error, match="eps must be a finite value in"):
        f(x, gamma, rs=64, eps=-1e-6)
    with pytest.raises(mxforge.ArgumentError, match="residual is given, but .* takes no residual"):
        f(x, gamma, residual=residual, rs=64, eps=1e-6)
    with pytest.raises(mxforge.ArgumentError, match="needs residual"):
        f(x, gamma, rs=64, add=1, eps=1e-6)
    with pytest.raises(mxforge.ArgumentError, match="gamma"):
        f(x, gamma[:128], rs=64, eps=1e-6)
    with pytest.raises(mxforge.SpecError, match="add must be 0"):
        f(x, gamma, rs=64, add=2, eps=1e-6)
    # The control: the same call with its arguments right.
    assert f(x, gamma, rs=64, eps=1e-6).q.shape == (2, k // 2)
