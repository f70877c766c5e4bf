"""mxforge.quant_weight against the numerics reference, byte for byte.

The C API's mxf_reference has only rotate_quant, so the reference of a
quant_weight spec (its code layouts preshuffle_16x16 and w6a16_16x128, its
a4w4 scales padded over N rows) is `mxforge ref` of the CLI, the numerics
reference that the e2e suite checks the kernel against. Plain fp4 codes are
also checked against mxforge.reference of the rotate_quant spec on W's rows:
a weight row rotated and quantized per 32-block is rotate_quant of that row.
"""

import numpy as np
import pytest
import torch

import mxforge
from helpers import (SCALES, ROTATIONS, cli_reference, mismatch, random_r, random_x,
                     to_torch)

POISON = 0xA5

# The specs the task names, and what else the template serves: (keys, K, N).
FIXED = [
    ({"rs": 64, "rot": "hadamard", "layout": "a4w4_shuffle", "wlayout": "preshuffle_16x16"},
     512, 48),
    ({"rs": 64, "rot": "hadamard", "fmt": "fp6_e2m3", "scale": "even126",
      "wlayout": "w6a16_16x128"}, 384, 32),
    # N above 256 (the largest M bucket of rotate_quant, no limit of quant_weight's) and
    # above one pad256 block of a4w4 scales.
    ({"rs": 32, "rot": "hadamard", "layout": "a4w4_shuffle", "wlayout": "preshuffle_16x16",
      "scale": "rceil"}, 256, 272),
    ({"rs": 128, "rot": "learned", "fmt": "fp6_e2m3", "scale": "even126",
      "layout": "a4w4_shuffle", "wlayout": "w6a16_16x128", "inter": "bf16"}, 256, 16),
    ({"rs": 64, "rot": "learned_per_block", "scale": "floor"}, 192, 64),
    ({"rs": 0, "scale": "even"}, 96, 80),
]


def expect_equal(actual, expected, what):
    problem = mismatch(actual, expected, what)
    assert problem is None, problem


def weight_keys(keys, k, n):
    return dict(keys, k=k, n=n)


def random_weight_keys(rng, max_k=1024):
    """Keyword keys of a random compilable quant_weight spec, K and N included."""
    fmt = rng.choice(("fp4", "fp6_e2m3"))
    wlayout = rng.choice(("plain", "preshuffle_16x16" if fmt == "fp4" else "w6a16_16x128"))
    rs = rng.choice((0, 32, 64, 128, 256))
    step = max(32, rs, {"plain": 32, "preshuffle_16x16": 64, "w6a16_16x128": 128}[wlayout])
    keys = {"k": step * rng.randint(1, max_k // step), "n": 16 * rng.randint(1, 18),
            "rs": rs, "fmt": fmt, "scale": rng.choice(SCALES),
            "inter": rng.choice(("f32", "bf16")),
            "layout": rng.choice(("plain", "a4w4_shuffle")), "wlayout": wlayout}
    if rs:
        keys["rot"] = rng.choice(ROTATIONS)
    return keys


def reference(tmp_path, keys, w_bits, r_bits):
    spec = mxforge.canonical_spec("quant_weight", **keys)
    inputs = {"w": w_bits}
    if r_bits is not None:
        inputs["r"] = r_bits
    return spec, cli_reference(str(tmp_path), spec, inputs)


def check_against_reference(tmp_path, rng, keys, kind):
    w = random_x(rng, keys["n"], keys["k"])
    r = random_r(rng, keys)
    spec, (q_ref, s_ref) = reference(tmp_path, keys, w, r)
    print(f"spec {spec} ({kind})")
    if kind == "torch":
        result = mxforge.quant_weight(to_torch(w), r=None if r is None else to_torch(r),
                                      **keys)
        assert isinstance(result.q, torch.Tensor) and result.q.dtype == torch.uint8
    else:
        result = mxforge.quant_weight(w, r=r, **keys)
        assert isinstance(result.q, np.ndarray) and result.q.dtype == np.uint8
    assert isinstance(result, mxforge.QuantWeightResult)
    expect_equal(result.q, q_ref, f"q of {spec}")
    expect_equal(result.s, s_ref, f"s of {spec} (every byte, a4w4 padding included)")
    assert result.spec == spec and result.run.spec == spec
    assert result.run.m == keys["n"] and result.run.bucket == keys["n"]
    assert result.run.device == "emu"
    q, s = result  # unpacks as a pair
    assert q is result.q and s is result.s


@pytest.mark.parametrize("index", range(len(FIXED)))
def test_fixed_specs_match_the_reference(tmp_path, rng, index):
    keys, k, n = FIXED[index]
    check_against_reference(tmp_path, rng, weight_keys(keys, k, n),
                            "torch" if index % 2 == 0 else "numpy")


@pytest.mark.parametrize("kind", ["torch", "numpy"])
@pytest.mark.parametrize("round_", range(3))
def test_random_specs_match_the_reference(tmp_path, rng, kind, round_):
    check_against_reference(tmp_path, rng, random_weight_keys(rng), kind)


def test_plain_fp4_codes_are_rotate_quant_of_each_row(rng):
    """Through the C API's own reference: rotate_quant of W's rows (at most
    256 per call) is quant_weight with plain layouts."""
    n, k = 16 * rng.randint(17, 20), 64 * rng.randint(1, 8)  # more than 256 rows
    w = to_torch(random_x(rng, n, k))
    print(f"N={n}, K={k}")
    q, s = mxforge.quant_weight(w, rs=64, scale="rceil")
    parts = [mxforge.reference("rotate_quant:RS=64,scale=rceil", w[i:i + 256])
             for i in range(0, n, 256)]
    expect_equal(q, torch.cat([p[0] for p in parts]), "q")
    expect_equal(s, torch.cat([p[1] for p in parts]), "s")


def test_another_scale_rule_does_not_pass(tmp_path, rng):
    """Negative control: the reference of another scale rule differs, so the
    comparisons above can fail."""
    keys = {"k": 512, "n": 32, "rs": 64, "rot": "hadamard", "scale": "even"}
    w = random_x(rng, 32, 512)
    q, s = mxforge.quant_weight(w, **keys)
    _, (q_ref, s_ref) = reference(tmp_path, dict(keys, scale="rceil"), w, None)
    assert mismatch(q, q_ref, "q") is not None or mismatch(s, s_ref, "s") is not None


@pytest.mark.parametrize("kind", ["torch", "numpy"])
def test_strided_w_gives_the_same_bytes(rng, kind):
    """w a slice w_wide[:, :K] of a wider tensor, NaNs in the gap: the same
    bytes as the contiguous copy; out= arrays written in place."""
    n, k = 16 * rng.randint(1, 8), 128 * rng.randint(1, 4)
    gap = 8 * rng.randint(1, 8)
    keys = {"rs": 64, "fmt": "fp6_e2m3", "scale": "even126", "wlayout": "w6a16_16x128",
            "layout": "a4w4_shuffle"}
    w_view = random_x(rng, n, k, width=k + gap)
    print(f"N={n}, K={k}, w gap {gap}")
    q_ref, s_ref = mxforge.quant_weight(np.ascontiguousarray(w_view), **keys)
    q_out = np.full(q_ref.shape, POISON, dtype=np.uint8)
    s_out = np.full(s_ref.shape, POISON, dtype=np.uint8)
    if kind == "torch":
        w_arg = to_torch(w_view.base)[:, :k]
        assert w_arg.stride() == (k + gap, 1) and not w_arg.is_contiguous()
        out = (torch.from_numpy(q_out), torch.from_numpy(s_out))
    else:
        w_arg, out = w_view, (q_out, s_out)
    result = mxforge.quant_weight(w_arg, out=out, **keys)
    assert result.q is out[0] and result.s is out[1]
    expect_equal(q_out, q_ref, "q")
    expect_equal(s_out, s_ref, "s")
    assert (w_view.base[:, k:] == 0x7FC0).all(), "the gap of w changed"


def test_spec_string_and_keywords_agree(rng):
    w = to_torch(random_x(rng, 32, 256))
    spec = "quant_weight:K=256,N=32,RS=64,layout=a4w4_shuffle,wlayout=preshuffle_16x16"
    by_text = mxforge.quant_weight(w, spec)
    by_keys = mxforge.quant_weight(w, rs=64, layout="a4w4_shuffle", wlayout="preshuffle_16x16")
    mixed = mxforge.quant_weight(w, "quant_weight:RS=64", layout="a4w4_shuffle",
                                 wlayout="preshuffle_16x16")
    assert by_text.spec == by_keys.spec == mixed.spec
    assert torch.equal(by_text.q, mixed.q) and torch.equal(by_text.s, by_keys.s)


def test_the_c_api_takes_n_rows_and_only_n():
    """mxf_find_kernel of a quant_weight spec: m = N, also above 256 (no M
    bucket); any other m is refused, saying why."""
    from mxforge import _contexts, _runner
    context = _contexts.context("emu")
    spec = mxforge.canonical_spec("quant_weight", k=64, n=512, rs=32)
    kernel = _runner.find_kernel(context, spec, 512)
    assert _runner.kernel_info(kernel)[3] == 512  # the bucket is N
    for m in (1, 256, 513):
        with pytest.raises(mxforge.LaunchError, match=f"M={m}: quant_weight always processes "
                                                      f"its N=512 rows; launch it with m = N"):
            _runner.find_kernel(context, spec, m)


def test_inspect_a_weight_spec():
    report = mxforge.inspect("quant_weight:K=512,N=272,RS=64,layout=a4w4_shuffle")
    assert [o.name for o in report.operands] == ["w", "q", "s"]
    assert report.operands[0].shape == (272, 512) and report.operands[0].row_stride_arg == \
        "w_stride"
    assert report.operands[2].shape == (512, 16)  # a4w4 scales: rows padded to pad256(N)
    assert report.launch.m == 272 and report.launch.max_rows == 272
    with pytest.raises(mxforge.LaunchError, match="launch it with m = N"):
        mxforge.inspect("quant_weight:K=512,N=272,RS=64", m=16)


K, N = 256, 32


def good_w(rng):
    return to_torch(random_x(rng, N, K))


def poisoned_out(layout_rows=N):
    q = torch.full((N, K // 2), POISON, dtype=torch.uint8)
    s = torch.full((layout_rows, K // 32), POISON, dtype=torch.uint8)
    return q, s


def _overlapping_rows(w):
    return w.as_strided((N, K), (K // 2, 1))


CASES = {
    # name: (make w from a good one, extra kwargs, exception, words in the message)
    "wrong dtype": (lambda w: w.float(), {}, mxforge.ArgumentTypeError,
                    ["w", "torch.bfloat16", "float32"]),
    "numpy wrong dtype": (lambda w: w.float().numpy(), {}, mxforge.ArgumentTypeError,
                          ["w", "numpy.uint16"]),
    "not an array": (lambda w: w.tolist(), {}, mxforge.ArgumentTypeError, ["w", "list"]),
    "wrong rank": (lambda w: w[0], {}, mxforge.ArgumentError, ["w", "2 dimensions", "[256]"]),
    "rank 3": (lambda w: w.reshape(2, N // 2, K), {}, mxforge.ArgumentError,
               ["w", "2 dimensions"]),
    "K disagrees with w": (lambda w: w, {"spec": "quant_weight:K=512"}, mxforge.ArgumentError,
                           ["w must have shape [32, 512], got [32, 256]"]),
    "N disagrees with w": (lambda w: w, {"n": 64}, mxforge.ArgumentError,
                           ["w must have shape [64, 256], got [32, 256]"]),
    "inner stride": (lambda w: torch.cat([w, w], 1).view(N, K, 2)[:, :, 0], {},
                     mxforge.ArgumentError, ["w has stride 2", "last dimension"]),
    "row stride below the row": (_overlapping_rows, {}, mxforge.ArgumentError,
                                 ["w has row stride 128, below its row of 256 elements"]),
    "missing r": (lambda w: w, {"rs": 64, "rot": "learned"}, mxforge.ArgumentError,
                  ["needs r", "[64, 64]"]),
    "missing per-block r": (lambda w: w, {"rs": 64, "rot": "learned_per_block"},
                            mxforge.ArgumentError, ["needs r", "[4, 64, 64]"]),
    "r not taken": (lambda w: w, {"r": torch.zeros(64, 64, dtype=torch.bfloat16)},
                    mxforge.ArgumentError, ["r is given", "takes no r"]),
    "r of the wrong shape": (lambda w: w, {"rs": 64, "rot": "learned",
                                           "r": torch.zeros(32, 32, dtype=torch.bfloat16)},
                             mxforge.ArgumentError, ["r must have shape [64, 64]"]),
    "spec for another op": (lambda w: w, {"spec": "rotate_quant:K=256"}, mxforge.SpecError,
                            ["quant_weight", "rotate_quant"]),
    "an M key": (lambda w: w, {"m": 4}, mxforge.SpecError,
               ["key 'M'", "does not belong to quant_weight"]),
    "unsupported format": (lambda w: w, {"fmt": "fp8_e4m3"}, mxforge.SpecError,
                           ["fmt=fp4 or fmt=fp6_e2m3"]),
    "wlayout of another format": (lambda w: w, {"wlayout": "w6a16_16x128"}, mxforge.SpecError,
                                  ["w6a16_16x128 requires fmt=fp6_e2m3"]),
    "meta tensor": (lambda w: w.to("meta"), {}, mxforge.ArgumentError, ["w", "meta"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_raises_and_writes_nothing(rng, name):
    make, kwargs, exception, words = CASES[name]
    out = poisoned_out()
    w = make(good_w(rng))
    with pytest.raises(exception) as raised:
        mxforge.quant_weight(w, out=out, **kwargs)
    message = str(raised.value)
    for word in words:
        assert word in message, f"'{word}' not in: {message}"
    assert "\n" not in message
    assert isinstance(raised.value, mxforge.Error)
    for array in out:
        assert (array == POISON).all(), "an out= array was written by a failed call"


def test_bad_out_arrays(rng):
    w = good_w(rng)
    q, s = poisoned_out()
    with pytest.raises(mxforge.ArgumentError, match=r"out s must have shape \[256, 8\]"):
        mxforge.quant_weight(w, out=(q, s), layout="a4w4_shuffle")
    with pytest.raises(mxforge.ArgumentError, match="out q must be contiguous"):
        wide = torch.full((N, K // 2 + 16), POISON, dtype=torch.uint8)
        mxforge.quant_weight(w, out=(wide[:, :K // 2], s))  # q is dense: no q_stride
    with pytest.raises(mxforge.ArgumentTypeError, match="out must be a tuple"):
        mxforge.quant_weight(w, out=q)
    assert (q == POISON).all() and (s == POISON).all()


def test_the_torch_op_matches_the_function(rng):
    w = to_torch(random_x(rng, 48, 512))
    spec = "quant_weight:RS=64,layout=a4w4_shuffle,wlayout=preshuffle_16x16"
    q, s = torch.ops.mxforge.quant_weight(w, spec)  # K and N from w's shape
    q_ref, s_ref = mxforge.quant_weight(w, spec)
    expect_equal(q, q_ref, "q")
    expect_equal(s, s_ref, "s")
    r = (torch.randn(32, 32) * 0.125).to(torch.bfloat16)
    q, s = torch.ops.mxforge.quant_weight(w, "quant_weight:K=512,N=48,RS=32,rot=learned", r)
    q_ref, s_ref = mxforge.quant_weight(w, rs=32, rot="learned", r=r)
    expect_equal(q, q_ref, "q (learned)")
    expect_equal(s, s_ref, "s (learned)")


@pytest.mark.parametrize("keys, q_shape, s_shape", [
    ("RS=64", (48, 512), (48, 32)),
    ("RS=64,layout=a4w4_shuffle,wlayout=preshuffle_16x16", (48, 512), (256, 32)),
    ("RS=64,fmt=fp6_e2m3,scale=even126,wlayout=w6a16_16x128", (48, 768), (48, 32))])
def test_meta_tensors_give_the_output_shapes(keys, q_shape, s_shape):
    w = torch.empty(48, 1024, dtype=torch.bfloat16, device="meta")
    q, s = torch.ops.mxforge.quant_weight(w, f"quant_weight:{keys}")
    assert q.device.type == "meta" and s.device.type == "meta"
    assert tuple(q.shape) == q_shape and q.dtype == torch.uint8
    assert tuple(s.shape) == s_shape and s.dtype == torch.uint8


def test_fake_tensors_give_the_output_shapes():
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
    with FakeTensorMode() as mode:
        w = mode.from_tensor(torch.empty(272, 2048, dtype=torch.bfloat16))
        q, s = torch.ops.mxforge.quant_weight(w, "quant_weight:RS=32,layout=a4w4_shuffle")
        assert isinstance(q, FakeTensor) and isinstance(s, FakeTensor)
        assert tuple(q.shape) == (272, 1024) and tuple(s.shape) == (512, 64)


def test_meta_rejects_what_a_launch_rejects():
    w = torch.empty(32, 256, dtype=torch.bfloat16, device="meta")
    with pytest.raises(mxforge.ArgumentError, match=r"w must have shape \[64, 256\]"):
        torch.ops.mxforge.quant_weight(w, "quant_weight:N=64,RS=64")
    with pytest.raises(mxforge.SpecError, match="N must be a multiple of 16"):
        torch.ops.mxforge.quant_weight(w[:20], "quant_weight:RS=64")
    with pytest.raises(mxforge.ArgumentError, match="w must have 2 dimensions"):
        torch.ops.mxforge.quant_weight(w[0], "quant_weight:RS=64")
