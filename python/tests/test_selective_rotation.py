"""Selective rotation from Python: rotate_quant with select="flag" or
select="mask" takes the rotated or the quant-only path per call, each byte
for byte the reference of the spec without the selection (rotated) or of
RS=0 (not); wrong or missing selection arguments are refused by name."""

import numpy as np
import pytest
import torch

import mxforge
from helpers import mismatch, random_m, random_x, to_torch


def expect_equal(actual, expected, what):
    problem = mismatch(actual, expected, what)
    assert problem is None, problem


def references(x, keys):
    """(rotated, unrotated) references of `keys` (no select key in them)."""
    rotated = mxforge.reference(None, x, **keys)
    plain = mxforge.reference(None, x, **dict(keys, rs=0, rot="none"))
    return rotated, plain


@pytest.mark.parametrize("kind", ["torch", "numpy"])
def test_flag_chooses_the_path(rng, kind):
    rs = rng.choice((32, 64, 128))
    keys = {"k": rs * rng.randint(2, 8), "rs": rs, "rot": rng.choice(("hadamard", "hadamard_butterfly"))
            if rs == 32 else "hadamard", "scale": rng.choice(("even", "rceil", "floor")),
            "layout": rng.choice(("plain", "a4w4_shuffle"))}
    m = random_m(rng)
    x = random_x(rng, m, keys["k"])
    print(f"keys {keys}, m={m}")
    (q_rot, s_rot), (q_plain, s_plain) = references(x, keys)
    arg = to_torch(x) if kind == "torch" else x
    for rotate, (q_ref, s_ref) in ((True, (q_rot, s_rot)), (False, (q_plain, s_plain)),
                                   (-7, (q_rot, s_rot)), (0, (q_plain, s_plain))):
        result = mxforge.rotate_quant(arg, select="flag", rotate=rotate, **keys)
        assert ",select=flag," in result.spec
        expect_equal(result.q, q_ref, f"q of {result.spec} rotate={rotate} m={m}")
        expect_equal(result.s, s_ref, f"s of {result.spec} rotate={rotate} m={m}")


def test_mask_entry_of_the_layer_decides(rng):
    layers = rng.randint(2, 64)
    keys = {"k": 512, "rs": 64, "fmt": rng.choice(("fp4", "fp8_e4m3", "fp6_e2m3"))}
    m = random_m(rng)
    x = random_x(rng, m, 512)
    mask = np.array([rng.randint(0, 1) for _ in range(layers)], dtype=np.int32)
    mask[0], mask[-1] = 1, 0
    print(f"keys {keys}, layers={layers}, mask {mask.tolist()}, m={m}")
    (q_rot, _), (q_plain, _) = references(x, keys)
    for layer in sorted({0, layers - 1, rng.randrange(layers)}):
        result = mxforge.rotate_quant(to_torch(x), select="mask", layers=layers, layer=layer,
                                      layer_mask=torch.from_numpy(mask), **keys)
        expect_equal(result.q, q_rot if mask[layer] else q_plain,
                     f"q of {result.spec} layer={layer} (entry {mask[layer]})")


def test_bad_selection_arguments_are_refused_by_name(rng):
    x = random_x(rng, 2, 512)
    mask = np.ones(4, dtype=np.int32)
    with pytest.raises(mxforge.ArgumentError, match="pass rotate=True or rotate=False"):
        mxforge.rotate_quant(x, k=512, rs=64, select="flag")
    with pytest.raises(mxforge.ArgumentError, match="layer=<index> and layer_mask"):
        mxforge.rotate_quant(x, k=512, rs=64, select="mask", layers=4, rotate=True)
    with pytest.raises(mxforge.ArgumentError, match="always rotates"):
        mxforge.rotate_quant(x, k=512, rs=64, rotate=True)
    with pytest.raises(mxforge.ArgumentError, match="one or the other"):
        mxforge.rotate_quant(x, k=512, rs=64, select="mask", layers=4, rotate=1, layer=0,
                             layer_mask=mask)
    with pytest.raises(mxforge.ArgumentTypeError, match="layer must be an int"):
        mxforge.rotate_quant(x, k=512, rs=64, select="mask", layers=4, layer=1.0,
                             layer_mask=mask)
    with pytest.raises(mxforge.ArgumentError, match="layer_mask"):
        mxforge.rotate_quant(x, k=512, rs=64, select="mask", layers=4, layer=0)  # no mask
    with pytest.raises(mxforge.ArgumentError, match="layer_mask must have shape"):
        mxforge.rotate_quant(x, k=512, rs=64, select="mask", layers=4, layer=0,
                             layer_mask=np.ones(5, dtype=np.int32))
    with pytest.raises(mxforge.Error, match="layer=4 is outside 0..3"):
        mxforge.rotate_quant(x, k=512, rs=64, select="mask", layers=4, layer=4, layer_mask=mask)
    with pytest.raises(mxforge.SpecError, match="select"):
        mxforge.rotate_quant(x, k=512, select="flag", rotate=True)  # RS=0: nothing to select


def test_moe_front_end_selects_its_path(rng):
    """rotate_quant_moe gained select from the key vocabulary (its folder
    only): with select=flag or select=mask each launch's six outputs equal
    those of the same spec without select (rotating) or with RS=0, both
    kernels' outputs into zeroed buffers so that the bytes a launch leaves
    unwritten compare too."""
    keys = {"k": 512, "topk": 2, "e": 8, "rs": rng.choice((32, 64, 128)), "scale": "rceil"}
    m = random_m(rng) % 32 + 1
    gen = np.random.default_rng(rng.randrange(2**63))
    x = random_x(rng, m, keys["k"])
    ids = np.stack([gen.choice(keys["e"], keys["topk"], replace=False)
                    for _ in range(m)]).astype(np.int32)
    weights = gen.standard_normal((m, keys["topk"])).astype(np.float32)
    layers = rng.randint(2, 9)
    mask = np.array([rng.randint(0, 1) for _ in range(layers)], dtype=np.int32)
    mask[0], mask[1] = 1, 0
    print(f"keys {keys}, m={m}, layers={layers}, mask {mask.tolist()}")

    def run(**extra):
        first = mxforge.rotate_quant_moe(x, ids, weights, **dict(keys, **extra))
        out = tuple(np.zeros_like(np.asarray(array)) for array in first)
        mxforge.rotate_quant_moe(x, ids, weights, out=out, **dict(keys, **extra))
        return out

    rotated, plain = run(), run(rs=0, rot="none")
    cases = [({"select": "flag", "rotate": 1}, rotated), ({"select": "flag", "rotate": 0}, plain),
             ({"select": "mask", "layers": layers, "layer": 0, "layer_mask": mask}, rotated),
             ({"select": "mask", "layers": layers, "layer": 1, "layer_mask": mask}, plain)]
    for extra, want in cases:
        got = run(**extra)
        for name, actual, expected in zip(mxforge.RotateQuantMoeResult.NAMES, got, want):
            expect_equal(actual, expected, f"{name} with {extra}")
    assert not np.array_equal(rotated[0], plain[0]), "the two paths must differ for this check"


def test_gemm_selects_its_activations_rotation(rng):
    """rotate_quant_gemm with select=flag or select=mask: each launch's y
    equals that of the same spec without select (rotating) or with RS=0 on
    the same weights, byte for byte; through the function and the torch op."""
    k, n = 512, 64
    keys = {"k": k, "rs": rng.choice((32, 64, 128)), "rot": "hadamard",
            "fmt": rng.choice(("fp4", "fp6_e2m3"))}
    m = random_m(rng) % 32 + 1
    x = random_x(rng, m, k)
    gen = np.random.default_rng(rng.randrange(2**63))
    w = to_torch(random_x(rng, n, k)) * 0.05
    w_q, w_s = mxforge.quant_weight(w.to(torch.bfloat16), n=n, **keys)
    layers = rng.randint(2, 9)
    mask = np.array([rng.randint(0, 1) for _ in range(layers)], dtype=np.int32)
    mask[0], mask[1] = 1, 0
    print(f"keys {keys}, m={m}, layers={layers}, mask {mask.tolist()}")
    rotated = mxforge.rotate_quant_gemm(x, w_q, w_s, **keys)
    plain = mxforge.rotate_quant_gemm(x, w_q, w_s, **dict(keys, rs=0, rot="none"))
    assert not np.array_equal(np.asarray(rotated), np.asarray(plain))
    cases = [({"select": "flag", "rotate": 1}, rotated), ({"select": "flag", "rotate": 0}, plain),
             ({"select": "mask", "layers": layers, "layer": 0, "layer_mask": mask}, rotated),
             ({"select": "mask", "layers": layers, "layer": 1, "layer_mask": mask}, plain)]
    for extra, want in cases:
        expect_equal(mxforge.rotate_quant_gemm(x, w_q, w_s, **dict(keys, **extra)), want,
                     f"y with {extra}")
    spec = mxforge.canonical_spec("rotate_quant_gemm", n=n, select="flag", **keys)
    y = torch.ops.mxforge.rotate_quant_gemm(to_torch(x), torch.from_numpy(np.asarray(w_q)),
                                            torch.from_numpy(np.asarray(w_s)), spec, rotate=0)
    expect_equal(y, to_torch(np.asarray(plain)), "y of the torch op, rotate=0")
