"""AITER's A6W6 operand tiles (layout="mxfp6_c0c1_256_padk2") from Python:
the kernel's q and s equal the reference, and equal an independent numpy
packing of the plain-layout call's rows, written here from AITER's layout
(docs/a6w6.md section 4), padding rows, K padding and guard tiles included;
a wrong out= shape is refused by name."""

import numpy as np
import pytest

import mxforge
from helpers import mismatch, random_m, random_x, to_torch

TILE_CODE_BYTES, TILE_SCALE_BYTES = 24576, 1024


def pack_aiter(q_plain, s_plain, m, k):
    """AITER's mxfp6_c0c1_256_padk2 of plain fp6 rows [m, 3K/4] and scales
    [m, K/32]: rows padded to 256, K to 128 plus two guard tiles; code
    stream byte j of (row, block) in C0 (j < 16) or C1; padding 0 / 127."""
    row_tiles = -(-m // 256)
    k_tiles = -(-k // 128) + 2
    codes = np.zeros(row_tiles * k_tiles * TILE_CODE_BYTES, np.uint8)
    scales = np.full(row_tiles * k_tiles * TILE_SCALE_BYTES, 127, np.uint8)
    for row in range(m):
        rem = row % 256
        for block in range(k // 32):
            tile = (row // 256) * k_tiles + block // 4
            kg = block % 4
            blk = (rem // 16) * 64 + kg * 16 + rem % 16
            stream = q_plain[row, block * 24:(block + 1) * 24]
            base = tile * TILE_CODE_BYTES
            codes[base + blk * 16: base + blk * 16 + 16] = stream[:16]
            codes[base + 16384 + blk * 8: base + 16384 + blk * 8 + 8] = stream[16:]
            scales[tile * TILE_SCALE_BYTES + (rem // 128) * 512 + kg * 128 + (rem % 16) * 8 +
                   (rem % 128) // 16] = s_plain[row, block]
    return codes, scales


def expect_equal(actual, expected, what):
    problem = mismatch(actual, expected, what)
    assert problem is None, problem


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_tiles_are_aiters_packing_of_the_plain_rows(rng, kind):
    k = 32 * rng.randint(1, 40)  # K % 128 of 0, 32, 64 or 96
    keys = {"k": k, "rs": 32, "rot": "hadamard", "fmt": rng.choice(("fp6_e2m3", "fp6_e3m2")),
            "scale": rng.choice(("a6w6", "even", "floor"))}
    if keys["fmt"] == "fp6_e2m3" and rng.random() < 0.5:
        keys["round"] = "rna"
    m = random_m(rng)
    print(f"keys {keys}, m={m}")
    x = random_x(rng, m, k)
    arg = to_torch(x) if kind == "torch" else x
    tiled = mxforge.rotate_quant(arg, layout="mxfp6_c0c1_256_padk2", **keys)
    plain = mxforge.rotate_quant(arg, **keys)
    q_tiles, s_tiles = (np.asarray(t.cpu() if hasattr(t, "cpu") else t) for t in tiled)
    q_plain, s_plain = (np.asarray(t.cpu() if hasattr(t, "cpu") else t) for t in plain)
    padded_rows = -(-m // 256) * 256
    row_bytes = (-(-k // 128) + 2) * 96
    assert q_tiles.shape == (padded_rows, row_bytes)
    assert s_tiles.shape == (padded_rows, row_bytes // 24)
    codes, scales = pack_aiter(q_plain, s_plain, m, k)
    expect_equal(q_tiles.reshape(-1), codes, f"q of {tiled.spec} m={m}")
    expect_equal(s_tiles.reshape(-1), scales, f"s of {tiled.spec} m={m}")
    q_ref, s_ref = mxforge.reference(None, x, layout="mxfp6_c0c1_256_padk2", **keys)
    expect_equal(q_tiles, q_ref, f"q of {tiled.spec} against the reference")
    expect_equal(s_tiles, s_ref, f"s of {tiled.spec} against the reference")
    # Negative control: the packing above is not the identity.
    assert not np.array_equal(codes[:q_plain.size], q_plain.reshape(-1)) or m * k < 128


def test_wrong_shapes_and_formats_are_refused(rng):
    x = random_x(rng, 3, 256)
    good_q = np.zeros((256, (256 // 128 + 2) * 96), np.uint8)
    good_s = np.zeros((256, (256 // 128 + 2) * 4), np.uint8)
    with pytest.raises(Exception, match=r"out q must have shape \[256, 384\]"):
        mxforge.rotate_quant(x, rs=32, fmt="fp6_e2m3", layout="mxfp6_c0c1_256_padk2",
                             out=(np.zeros((3, 192), np.uint8), good_s))
    with pytest.raises(Exception, match="fp6_e2m3 or fp6_e3m2"):
        mxforge.rotate_quant(x, rs=32, fmt="fp4", layout="mxfp6_c0c1_256_padk2")
    # The tiles are dense: a row view of a wider buffer is refused by name.
    wide = np.zeros((256, 400), np.uint8)
    with pytest.raises(Exception, match="no row-stride argument"):
        mxforge.rotate_quant(x, rs=32, fmt="fp6_e2m3", layout="mxfp6_c0c1_256_padk2",
                             out=(wide[:, :384], good_s))
    assert not wide.any(), "nothing is written when a call is refused"
    # The right shapes are accepted and every byte is written.
    good_q.fill(0xA5)
    good_s.fill(0xA5)
    mxforge.rotate_quant(x, rs=32, fmt="fp6_e2m3", layout="mxfp6_c0c1_256_padk2",
                         out=(good_q, good_s))
    assert not (good_s == 0xA5).any()
    assert (good_s.reshape(-1)[2 * TILE_SCALE_BYTES:] == 127).all()
    assert (good_q.reshape(-1)[2 * TILE_CODE_BYTES:] == 0).all()
