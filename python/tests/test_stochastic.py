"""round=sr from Python: the seed argument reaches the kernel's seed operand.

The same seed gives the same bytes, another seed other bytes, and the bytes
equal `mxforge ref` on the same x and seed (numerics' srRandomForElement).
"""

import numpy as np
import pytest

import mxforge
from helpers import cli_reference, mismatch, random_x


@pytest.mark.parametrize("fmt", ["fp4", "fp6_e2m3", "fp6_e3m2", "fp8_e4m3", "fp8_e5m2"])
def test_the_seed_decides_the_bytes(tmp_path, rng, fmt):
    x = random_x(rng, 1 + rng.randrange(16), 256)
    seed = rng.randrange(2**32)
    keys = dict(rs=64, rot="hadamard", round="sr", fmt=fmt, scale="rceil")
    q, s = mxforge.rotate_quant(x, seed=seed, **keys)
    again, _ = mxforge.rotate_quant(x, seed=seed, **keys)
    other, _ = mxforge.rotate_quant(x, seed=seed ^ 1, **keys)
    assert (q == again).all()
    assert not (q == other).all()
    spec = mxforge.canonical_spec("rotate_quant", k=256, **keys)
    seed_array = np.array([seed], dtype=np.uint32).view(np.int32)
    q_ref, s_ref = cli_reference(str(tmp_path), spec, {"x": x, "seed": seed_array}, m=x.shape[0])
    for got, want, name in ((q, q_ref, "q"), (s, s_ref, "s")):
        problem = mismatch(got, want[:got.shape[0]], name)
        assert problem is None, problem


def test_round_sr_needs_a_seed(rng):
    x = random_x(rng, 4, 256)
    with pytest.raises(mxforge.ArgumentError, match="seed"):
        mxforge.rotate_quant(x, rs=64, round="sr")
