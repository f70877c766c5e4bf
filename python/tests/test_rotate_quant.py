"""mxforge.rotate_quant against mxforge.reference, byte for byte."""

import numpy as np
import pytest
import torch

import mxforge
from helpers import (mismatch, random_keys, random_m, random_r, random_x, to_torch)

POISON = 0xA5


def expect_equal(actual, expected, what):
    problem = mismatch(actual, expected, what)
    assert problem is None, problem


def reference_for(keys, x_bits, r_bits):
    return mxforge.reference(None, x_bits, r=r_bits, **keys)


@pytest.mark.parametrize("kind", ["torch", "numpy"])
@pytest.mark.parametrize("round_", range(6))
def test_random_specs_contiguous(rng, kind, round_):
    keys, m = random_keys(rng), random_m(rng)
    x = random_x(rng, m, keys["k"])
    r = random_r(rng, keys)
    print(f"keys {keys}, m={m}")
    q_ref, s_ref = reference_for(keys, x, r)
    if kind == "torch":
        result = mxforge.rotate_quant(to_torch(x), r=None if r is None else to_torch(r), **keys)
        assert isinstance(result.q, torch.Tensor) and result.q.dtype == torch.uint8
    else:
        result = mxforge.rotate_quant(x, r=r, **keys)
        assert isinstance(result.q, np.ndarray) and result.q.dtype == np.uint8
    expect_equal(result.q, q_ref, f"q of {result.spec} m={m}")
    expect_equal(result.s, s_ref, f"s of {result.spec} m={m}")
    # What ran: the canonical spec of the call, at the bucket that serves m.
    assert result.spec == mxforge.canonical_spec(M=result.run.bucket, **keys)
    assert result.run.bucket >= m and result.run.m == m and result.run.device == "emu"


@pytest.mark.parametrize("kind", ["torch", "numpy"])
@pytest.mark.parametrize("round_", range(3))
def test_strided_views_and_poisoned_out(rng, kind, round_):
    """x a view of wider rows with NaNs in the gap, q written into a view of
    wider poisoned rows: results exact, both gaps untouched."""
    keys, m = random_keys(rng), random_m(rng)
    k = keys["k"]
    gap = 8 * rng.randint(1, 8)
    x_view = random_x(rng, m, k, width=k + gap)
    r = random_r(rng, keys)
    print(f"keys {keys}, m={m}, x gap {gap}")
    q_ref, s_ref = reference_for(keys, np.ascontiguousarray(x_view), r)
    q_cols = q_ref.shape[1]
    q_wide = np.full((m, q_cols + 24), POISON, dtype=np.uint8)
    s_out = np.full(s_ref.shape, POISON, dtype=np.uint8)
    if kind == "torch":
        x_arg = to_torch(x_view.base)[:, :k]
        assert x_arg.stride() == (k + gap, 1)
        q_wide_t, s_out_t = torch.from_numpy(q_wide), torch.from_numpy(s_out)
        out = (q_wide_t[:, :q_cols], s_out_t)
        r_arg = None if r is None else to_torch(r)
    else:
        x_arg, out, r_arg = x_view, (q_wide[:, :q_cols], s_out), r
    result = mxforge.rotate_quant(x_arg, r=r_arg, out=out, **keys)
    assert result.q is out[0] and result.s is out[1]
    expect_equal(q_wide[:, :q_cols], q_ref, "q")
    expect_equal(s_out, s_ref, "s (every byte, the shuffled padding included)")
    assert (q_wide[:, q_cols:] == POISON).all(), "the gap of the strided q was written"
    assert (x_view.base[:, k:] == 0x7FC0).all(), "the gap of x changed"


def test_spec_string_and_keywords_agree(rng):
    m = random_m(rng)
    x = to_torch(random_x(rng, m, 512))
    by_text = mxforge.rotate_quant(x, "rotate_quant:K=512,RS=64,scale=rceil,layout=a4w4_shuffle")
    by_keys = mxforge.rotate_quant(x, rs=64, scale="rceil", layout="a4w4_shuffle")
    mixed = mxforge.rotate_quant(x, "rotate_quant:RS=64", scale="rceil", layout="a4w4_shuffle")
    assert by_text.spec == by_keys.spec == mixed.spec
    assert "K=512,RS=64,rot=hadamard" in by_text.spec and "layout=a4w4_shuffle" in by_text.spec
    for other in (by_keys, mixed):
        assert torch.equal(other.q, by_text.q) and torch.equal(other.s, by_text.s)
    # Documented shapes: q [m, K/2] for fp4, s [pad256(m), pad8(K/32)] shuffled.
    assert tuple(by_text.q.shape) == (m, 256)
    assert tuple(by_text.s.shape) == (256, 16)


def test_canonical_spec():
    assert mxforge.canonical_spec(k=4096, rs=64) == (
        "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even,round=rne,inter=f32,"
        "layout=plain,arch=gfx950")
    assert mxforge.canonical_spec(spec="rotate_quant:RS=64,K=04096") == \
        mxforge.canonical_spec(k=4096, rs=64)


@pytest.mark.parametrize("rot", ["learned", "learned_per_block"])
def test_rconv_xrt_takes_the_transposed_matrix(rng, rot):
    """rconv='xrt' (AITER FlyDSL's x.R^T): passing R gives the bytes of the
    default convention with R transposed; read as R[in][out] it would not."""
    rs = rng.choice((32, 64, 128))
    keys = {"k": rs * rng.randint(1, 4), "rs": rs, "rot": rot, "scale": rng.choice(("even", "rceil"))}
    m = random_m(rng)
    x = random_x(rng, m, keys["k"])
    r = random_r(rng, keys)
    r_t = np.ascontiguousarray(np.swapaxes(r, -1, -2))
    print(f"keys {keys}, m={m}")
    given = mxforge.rotate_quant(x, r=r, rconv="xrt", **keys)
    assert ",rconv=xrt," in given.spec
    transposed = mxforge.rotate_quant(x, r=r_t, **keys)
    assert ",rconv=xr," in transposed.spec
    expect_equal(given.q, transposed.q, f"q of {given.spec} m={m}")
    expect_equal(given.s, transposed.s, f"s of {given.spec} m={m}")
    q_ref, _ = reference_for(dict(keys, rconv="xrt"), x, r)
    expect_equal(given.q, q_ref, "q against the reference under rconv=xrt")
    misread = mxforge.rotate_quant(x, r=r, **keys)
    assert not np.array_equal(misread.q, given.q), "R and R^T gave the same codes"
    with pytest.raises(mxforge.SpecError, match="rconv"):
        mxforge.rotate_quant(x, rs=rs, rconv="xrt", k=keys["k"])
