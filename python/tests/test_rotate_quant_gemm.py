"""mxforge.rotate_quant_gemm against the numerics reference, byte for byte.

The weights come from mxforge.quant_weight (the kernel) with the GEMM's own
rotation keys, as an engine prepares them at load time; y is compared with
`mxforge ref` of the CLI on the same x, w_q and w_s (the C API's
mxf_reference has only rotate_quant). A misread layout gives other bytes
(negative control), and y is close to x.W^T in float64.
"""

import numpy as np
import pytest
import torch

import mxforge
from mxforge import specs
from helpers import SCALES, cli_reference, mismatch, random_r, random_x, to_torch

# (keys, K, N, m): AITER's deployed layouts, a learned R, no rotation, ragged N.
FIXED = [
    ({"rs": 64, "rot": "hadamard", "layout": "a4w4_shuffle", "wlayout": "preshuffle_16x16",
      "scale": "even"}, 512, 80, 3),
    ({"rs": 128, "rot": "learned", "scale": "rceil"}, 256, 48, 17),
    ({"rs": 0, "scale": "floor", "layout": "a4w4_shuffle"}, 384, 16, 1),
    ({"rs": 32, "rot": "learned_per_block", "wlayout": "preshuffle_16x16", "inter": "bf16"},
     640, 272, 5),
    # W6A16 (fmt=fp6_e2m3): seed 003's tiles and its E2M3 rule, and plain rows.
    ({"rs": 32, "rot": "hadamard", "fmt": "fp6_e2m3", "scale": "even126",
      "layout": "a4w4_shuffle", "wlayout": "w6a16_16x128"}, 512, 80, 3),
    ({"rs": 0, "fmt": "fp6_e2m3", "wlayout": "plain"}, 256, 48, 9),
]


def weights(w_bits, r, keys, k, n, kind):
    weight_keys = {key: value for key, value in keys.items()}
    w = to_torch(w_bits) if kind == "torch" else w_bits
    rr = None if r is None else (to_torch(r) if kind == "torch" else r)
    return mxforge.quant_weight(w, r=rr, k=k, n=n, **weight_keys)


def run_case(tmp_path, rng, keys, k, n, m, kind):
    x = random_x(rng, m, k)
    gen = np.random.default_rng(rng.randrange(2**63))
    from helpers import bf16_bits
    w = bf16_bits(gen.standard_normal((n, k)).astype(np.float32) * 0.05)
    r = random_r(rng, dict(keys, k=k))
    w_q, w_s = weights(w, r, keys, k, n, kind)
    spec = mxforge.canonical_spec("rotate_quant_gemm", k=k, n=n, m=specs.bucket_for(m), **keys)
    inputs = {"x": x, "w_q": np.asarray(w_q), "w_s": np.asarray(w_s)}
    if r is not None:
        inputs["r"] = r
    (y_ref,) = cli_reference(str(tmp_path), spec, inputs, outputs=("y",), m=m)
    if kind == "torch":
        y = mxforge.rotate_quant_gemm(to_torch(x), w_q, w_s, r=None if r is None else to_torch(r),
                                      **keys)
        assert isinstance(y, torch.Tensor) and y.dtype == torch.bfloat16
    else:
        y = mxforge.rotate_quant_gemm(x, w_q, w_s, r=r, **keys)
        assert isinstance(y, np.ndarray) and y.dtype == np.uint16
    assert tuple(y.shape) == (m, n)
    problem = mismatch(y, y_ref, f"y of {spec} at m={m}")
    assert problem is None, problem
    return x, w, y


@pytest.mark.parametrize("index", range(len(FIXED)))
def test_fixed_specs_match_the_reference(tmp_path, rng, index):
    keys, k, n, m = FIXED[index]
    run_case(tmp_path, rng, keys, k, n, m, "torch" if index % 2 == 0 else "numpy")


def test_random_spec_matches_the_reference(tmp_path, rng):
    rs = rng.choice((0, 32, 64, 128))
    fmt = rng.choice(("fp4", "fp6_e2m3"))
    keys = {"rs": rs, "fmt": fmt, "scale": rng.choice(SCALES),
            "layout": rng.choice(("plain", "a4w4_shuffle")),
            "wlayout": rng.choice(("plain", "preshuffle_16x16" if fmt == "fp4" else "w6a16_16x128"))}
    if rs:
        keys["rot"] = rng.choice(("hadamard", "learned", "learned_per_block"))
    k = max(128, rs) * rng.randint(1, 4)
    print(f"keys {keys}, K={k}")
    run_case(tmp_path, rng, keys, k, 16 * rng.randint(1, 20), rng.randint(1, 20), "numpy")


def test_y_is_close_to_the_float64_product_and_a_misread_layout_is_not(tmp_path, rng):
    keys, k, n, m = FIXED[0]
    x, w, y = run_case(tmp_path, rng, keys, k, n, m, "torch")
    # The rotation cancels: (x.H).(W.H)^T = x.W^T, up to MXFP4's error.
    exact = x.astype(np.uint32) << 16
    xf = exact.view(np.float32).astype(np.float64)
    wf = (w.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    product = xf @ wf.T
    got = y.float().numpy().astype(np.float64)
    relative = np.linalg.norm(got - product) / np.linalg.norm(product)
    assert relative < 0.25, f"relative error {relative:.3f} against x.W^T"
    # Negative control: the same codes read as the plain layout.
    w_q, w_s = weights(w, None, keys, k, n, "numpy")
    wrong = mxforge.rotate_quant_gemm(x, w_q, w_s, **dict(keys, wlayout="plain"))
    assert mismatch(wrong, y, "misread") is not None


def test_w6a16_is_closer_to_the_float64_product_than_a4w4(tmp_path, rng):
    keys, k, n, m = FIXED[4]
    x, w, y6 = run_case(tmp_path, rng, keys, k, n, m, "numpy")
    fp4 = {key: value for key, value in keys.items() if key not in ("fmt", "scale", "wlayout")}
    w_q, w_s = weights(w, None, fp4, k, n, "numpy")
    y4 = mxforge.rotate_quant_gemm(x, w_q, w_s, **fp4)
    as_f64 = lambda bits: (np.asarray(bits).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    product = as_f64(x) @ as_f64(w).T
    error = lambda y: np.linalg.norm(as_f64(y) - product) / np.linalg.norm(product)
    print(f"relative error against x.W^T: W6A16 {error(y6):.4f}, A4W4 {error(y4):.4f}")
    assert error(y6) < 0.06 and error(y6) < error(y4) / 2


def test_out_strides_and_the_torch_op(rng):
    keys, k, n, m = FIXED[0]
    x = to_torch(random_x(rng, m, k))
    w = to_torch(random_x(rng, n, k)) * 0.05
    w_q, w_s = mxforge.quant_weight(w.to(torch.bfloat16), k=k, n=n, **keys)
    y = mxforge.rotate_quant_gemm(x, w_q, w_s, **keys)
    # out= a strided view of a wider tensor: the gap keeps its poison.
    wide = torch.full((m, n + 8), 7.0, dtype=torch.bfloat16)
    result = mxforge.rotate_quant_gemm(x, w_q, w_s, out=wide[:, :n], **keys)
    assert torch.equal(wide[:, :n], y) and (wide[:, n:] == 7.0).all()
    assert result.data_ptr() == wide.data_ptr()
    spec = mxforge.canonical_spec("rotate_quant_gemm", k=k, n=n, **keys)
    assert torch.equal(torch.ops.mxforge.rotate_quant_gemm(x, w_q, w_s, spec), y)
    meta = torch.ops.mxforge.rotate_quant_gemm(x.to("meta"), w_q.to("meta"), w_s.to("meta"), spec)
    assert meta.shape == (m, n) and meta.dtype == torch.bfloat16


def test_bad_input_is_refused_by_name(rng):
    keys, k, n, m = FIXED[0]
    x = to_torch(random_x(rng, m, k))
    w_q, w_s = mxforge.quant_weight(to_torch(random_x(rng, n, k)), k=k, n=n, **keys)
    with pytest.raises(mxforge.ArgumentError, match="w_s"):
        mxforge.rotate_quant_gemm(x, w_q, w_s[:n], **keys)  # the plain size, not a4w4's
    with pytest.raises(mxforge.ArgumentError, match="w_q"):
        mxforge.rotate_quant_gemm(x, w_q[:, :-16], w_s, k=k, n=n,
                                  **{key: v for key, v in keys.items()})
    # A valid spec the template refuses (K not a multiple of 128): the
    # library's message names the key; nothing is launched.
    # W6A16 given fp4-sized codes ([N, K/2] for [N, 3K/4]).
    with pytest.raises(mxforge.ArgumentError, match="w_q"):
        mxforge.rotate_quant_gemm(x, torch.zeros((n, k // 2), dtype=torch.uint8),
                                  torch.zeros((n, k // 32), dtype=torch.uint8), n=n,
                                  fmt="fp6_e2m3")
    with pytest.raises(mxforge.Error, match="K=4160"):
        mxforge.rotate_quant_gemm(to_torch(random_x(rng, m, 4160)),
                                  torch.zeros((n, 2080), dtype=torch.uint8),
                                  torch.zeros((n, 130), dtype=torch.uint8), n=n, rs=0)


def test_a_split_gemm_takes_a_workspace(tmp_path, rng):
    """K = 512 and 80 columns split the chains over workgroups: the spec lists
    a workspace ws (mxf_spec_get_workspace), made zeroed when not given. A
    given zeroed one gives the same bytes; one whose arrival counter is not
    zero gives other bytes (negative control: the kernel reads it); a wrong
    shape is refused by name."""
    keys, k, n, m = FIXED[0]
    spec = mxforge.canonical_spec("rotate_quant_gemm", k=k, n=n, m=specs.bucket_for(m), **keys)
    (ws,) = [operand for operand in specs.operands(spec, m) if operand.is_workspace]
    assert ws.name == "ws" and ws.element == "i32" and not ws.is_output and ws.shape[0] == 1
    x, w, y = run_case(tmp_path, rng, keys, k, n, m, "numpy")
    w_q, w_s = weights(w, None, keys, k, n, "numpy")
    zeroed = np.zeros(ws.shape, dtype=np.int32)
    again = mxforge.rotate_quant_gemm(x, w_q, w_s, ws=zeroed, **keys)
    assert np.array_equal(again, y)
    # Column group 0's counter as launches cut short would leave it, past
    # the count at which a workgroup adds the partials: none of the group's
    # workgroups is the last, so its 64 columns are never written, whatever
    # order the workgroups arrive in. (A counter of 1 made the third arrival
    # add the partials, which in a parallel emulation could already all be
    # there: right bytes, and a flaky check.)
    stale = zeroed.copy()
    stale[0, 0] = 1000
    wrong = mxforge.rotate_quant_gemm(x, w_q, w_s, ws=stale, **keys)
    assert not np.array_equal(wrong[:, :64], y[:, :64])
    assert np.array_equal(wrong[:, 64:], y[:, 64:])  # the other group's counter was zero
    with pytest.raises(mxforge.ArgumentError, match="ws"):
        mxforge.rotate_quant_gemm(x, w_q, w_s, ws=np.zeros((1, 7), dtype=np.int32), **keys)
