"""The byte comparator the tests trust must be able to fail."""

import numpy as np

import mxforge
from helpers import mismatch, random_x


def test_a_flipped_byte_is_reported(rng):
    x = random_x(rng, 3, 256)
    q, s = mxforge.rotate_quant(x, rs=64)
    q_ref, s_ref = mxforge.reference(None, x, rs=64)
    assert mismatch(q, q_ref, "q") is None
    row, col = rng.randrange(q.shape[0]), rng.randrange(q.shape[1])
    q[row, col] ^= 0x10
    problem = mismatch(q, q_ref, "q")
    assert problem is not None and f"({row}, {col})" in problem and "1 bytes differ" in problem
    assert mismatch(s[:1], s_ref, "s") is not None  # a shape change is a mismatch too


def test_a_different_spec_gives_different_codes(rng):
    # A reference of another scale rule must not pass for this kernel's output,
    # or the bit-exact tests would prove nothing about the spec.
    x = random_x(rng, 8, 512)
    _, s_even = mxforge.rotate_quant(x, rs=64, scale="even")
    _, s_ceil = mxforge.reference(None, x, rs=64, scale="ceil")
    assert mismatch(s_even, s_ceil, "s") is not None
