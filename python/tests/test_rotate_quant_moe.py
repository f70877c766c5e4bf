"""mxforge.rotate_quant_moe against the numerics reference, byte for byte.

The reference is `mxforge ref` of the CLI (numerics' rotateQuantMoe, which
the e2e suite holds the kernel to on 186 specs): every byte of q,
sorted_ids, sorted_weights, sorted_expert_ids and num_valid_ids, and of the
scale rows the kernel writes (the valid sorted rows, in whole 32-row groups
when shuffled). Then the torch op, shapes under meta tensors, and bad input.
"""

import numpy as np
import pytest
import torch

import mxforge
from helpers import cli_reference, mismatch, random_r, random_x

OUTPUTS = ("q", "s", "sorted_ids", "sorted_weights", "sorted_expert_ids", "num_valid_ids")

# (keys, m): stage 1 and 2, a mask, a learned R, both scale layouts.
FIXED = [
    ({"k": 512, "rs": 64, "rot": "hadamard", "e": 16, "topk": 4, "block": 16,
      "scale": "rceil", "layout": "a4w4_shuffle"}, 7),
    ({"k": 256, "rs": 128, "rot": "learned", "e": 8, "topk": 2, "block": 32, "stage": 2,
      "scale": "even"}, 19),
    ({"k": 384, "rs": 0, "e": 128, "topk": 8, "block": 32, "emask": 1, "scale": "rceil",
      "layout": "a4w4_shuffle"}, 33),
    ({"k": 512, "rs": 32, "rot": "learned_per_block", "e": 10, "topk": 10, "block": 64,
      "scale": "floor", "inter": "bf16"}, 3),
]


def expect_equal(actual, expected, what):
    problem = mismatch(actual, expected, what)
    assert problem is None, problem


def routing(rng, m, topk, experts):
    gen = np.random.default_rng(rng.randrange(2**63))
    ids = np.stack([gen.choice(experts, topk, replace=False) for _ in range(m)]).astype(np.int32)
    weights = gen.standard_normal((m, topk)).astype(np.float32)
    return ids, weights


def inputs_for(rng, keys, m):
    rows = (m, keys["topk"], keys["k"]) if keys.get("stage") == 2 else (m, keys["k"])
    x = random_x(rng, int(np.prod(rows[:-1])), keys["k"]).reshape(rows)
    ids, weights = routing(rng, m, keys["topk"], keys["e"])
    arrays = {"x": x, "topk_ids": ids, "topk_weights": weights}
    r = random_r(rng, keys)
    if r is not None:
        arrays["r"] = r
    if keys.get("emask"):
        gen = np.random.default_rng(rng.randrange(2**63))
        mask = (gen.random(keys["e"]) < 0.6).astype(np.int32)
        mask[ids[0, 0]] = 1
        arrays["expert_mask"] = mask
    return arrays


def written_scale_bytes(spec, valid, k):
    cols = k // 32
    if "layout=a4w4_shuffle" in spec:
        return (valid + 31) // 32 * 32 * ((cols + 7) // 8 * 8)
    return valid * cols


def check(tmp_path, arrays, result, m, k):
    spec = result.spec
    expected = dict(zip(OUTPUTS, cli_reference(str(tmp_path), spec, arrays, OUTPUTS, m)))
    for name in OUTPUTS:
        if name == "s":
            continue
        expect_equal(getattr(result, name), expected[name], name)
    valid = int(expected["num_valid_ids"][0])
    prefix = written_scale_bytes(spec, valid, k)
    s = np.ascontiguousarray(np.asarray(result.s)).reshape(-1)
    expect_equal(s[:prefix], expected["s"].reshape(-1)[:prefix], "s (written rows)")


@pytest.mark.parametrize("index", range(len(FIXED)))
def test_fixed_specs_match_the_reference(tmp_path, rng, index):
    keys, m = FIXED[index]
    arrays = inputs_for(rng, keys, m)
    result = mxforge.rotate_quant_moe(arrays["x"], arrays["topk_ids"], arrays["topk_weights"],
                                      r=arrays.get("r"), expert_mask=arrays.get("expert_mask"),
                                      **{key: value for key, value in keys.items()
                                         if key not in ("k", "topk")})
    assert result.run.m == m
    assert int(result.num_valid_ids[1]) == m
    check(tmp_path, arrays, result, m, keys["k"])


def test_another_routing_does_not_pass(tmp_path, rng):
    """Negative control: the reference of another routing differs."""
    keys, m = FIXED[0]
    arrays = inputs_for(rng, keys, m)
    result = mxforge.rotate_quant_moe(arrays["x"], arrays["topk_ids"], arrays["topk_weights"],
                                      e=16, rs=64, block=16, scale="rceil", layout="a4w4_shuffle")
    other = dict(arrays, topk_ids=np.ascontiguousarray(arrays["topk_ids"][::-1]))
    expected = cli_reference(str(tmp_path), result.spec, other, ("sorted_ids",), m)[0]
    assert mismatch(result.sorted_ids, expected, "sorted_ids") is not None


def test_torch_tensors_and_the_torch_op(rng):
    keys, m = FIXED[0]
    arrays = inputs_for(rng, keys, m)
    x = torch.from_numpy(arrays["x"].astype(np.int16)).view(torch.bfloat16)
    ids = torch.from_numpy(arrays["topk_ids"])
    weights = torch.from_numpy(arrays["topk_weights"])
    spec = "rotate_quant_moe:E=16,RS=64,rot=hadamard,block=16,scale=rceil,layout=a4w4_shuffle"
    direct = mxforge.rotate_quant_moe(x, ids, weights, spec)
    op = torch.ops.mxforge.rotate_quant_moe(x, ids, weights, spec)
    assert [t.dtype for t in op] == [torch.uint8, torch.uint8, torch.int32, torch.float32,
                                     torch.int32, torch.int32]
    for name, a, b in zip(OUTPUTS, direct, op):
        if name != "s":
            assert torch.equal(a, b), name
    meta = torch.ops.mxforge.rotate_quant_moe(x.to("meta"), ids.to("meta"), weights.to("meta"),
                                              spec)
    assert [tuple(t.shape) for t in meta] == [tuple(t.shape) for t in op]
    assert all(t.device.type == "meta" for t in meta)


def test_bad_input_raises(rng):
    keys, m = FIXED[0]
    arrays = inputs_for(rng, keys, m)
    x, ids, weights = arrays["x"], arrays["topk_ids"], arrays["topk_weights"]
    common = dict(e=16, rs=64, block=16, scale="rceil")
    bad = ids.copy()
    bad[2, 3] = 16
    with pytest.raises(mxforge.Error, match=r"topk_ids\[token 2\]\[slot 3\] = 16 is outside"):
        mxforge.rotate_quant_moe(x, bad, weights, **common)
    with pytest.raises(mxforge.ArgumentTypeError, match="topk_ids"):
        mxforge.rotate_quant_moe(x, ids.astype(np.int64), weights, **common)
    with pytest.raises(mxforge.ArgumentTypeError, match="topk_weights"):
        mxforge.rotate_quant_moe(x, ids, weights.astype(np.float64), **common)
    with pytest.raises(mxforge.ArgumentError, match="topk_ids must have 2 dimensions"):
        mxforge.rotate_quant_moe(x, ids.reshape(-1), weights, **common)
    with pytest.raises(mxforge.Error, match="topk_weights"):
        mxforge.rotate_quant_moe(x, ids, weights[:, :2].copy(), **common)
    with pytest.raises(mxforge.SpecError, match="E"):
        mxforge.rotate_quant_moe(x, ids, weights, rs=64, block=16)
    with pytest.raises(mxforge.Error, match="256"):
        big = random_x(rng, 257, 512)
        big_ids = np.zeros((257, 4), dtype=np.int32) + np.arange(4, dtype=np.int32)
        mxforge.rotate_quant_moe(big, big_ids, np.ones((257, 4), dtype=np.float32), **common)
