"""Prepared weights that know how they were made (issue 31, item 1):
mxforge.prepare_weight / read_quantized_weight give a QuantizedWeight
(codes, scales, the quant_weight spec, the fingerprint of a learned R);
QuantizedWeight.gemm checks the GEMM against it (mxf_spec_check_weights)
and refuses a mismatch naming both values; relayout_weight and
shuffle_weight move weights between layouts (mxf_relayout_weights) with
exactly the bytes the emulated quant_weight kernel writes in the target
layouts."""

import numpy as np
import pytest

import mxforge
from helpers import bf16_bits, random_x, write_safetensors


def weights(rng, n, k):
    gen = np.random.default_rng(rng.randrange(2**63))
    return bf16_bits(gen.standard_normal((n, k)) * 0.05)


def learned(rng, rs):
    """An orthogonal rs x rs matrix in bf16 bits."""
    gen = np.random.default_rng(rng.randrange(2**63))
    q, _ = np.linalg.qr(gen.standard_normal((rs, rs)))
    return bf16_bits(q)


@pytest.mark.parametrize("fmt", ["fp4", "fp6_e2m3"])
def test_relayout_gives_the_kernels_bytes_in_every_layout(rng, fmt):
    k, n = rng.choice((256, 512, 1024)), rng.choice((16, 64, 272))
    keys = {"k": k, "n": n, "rs": rng.choice((0, 32, 64)), "fmt": fmt}
    keys["rot"] = "hadamard" if keys["rs"] else "none"
    w = weights(rng, n, k)
    code_layouts = ("plain", "preshuffle_16x16") if fmt == "fp4" else ("plain", "w6a16_16x128")
    print(f"{keys}: codes {code_layouts}, scales plain and a4w4_shuffle")
    prepared = {}
    for wlayout in code_layouts:
        for layout in ("plain", "a4w4_shuffle"):
            kernel = mxforge.quant_weight(w, wlayout=wlayout, layout=layout, **keys)
            prepared[wlayout, layout] = (np.asarray(kernel.q), np.asarray(kernel.s), kernel.spec)
    for (wl_from, l_from), (q, s, spec) in prepared.items():
        source = mxforge.QuantizedWeight("w", q, s, spec)
        for (wl_to, l_to), (q_want, s_want, spec_want) in prepared.items():
            moved = mxforge.relayout_weight(source, wlayout=wl_to, layout=l_to)
            assert moved.spec == spec_want
            assert moved.q.tobytes() == q_want.tobytes(), (wl_from, l_from, wl_to, l_to)
            assert moved.s.tobytes() == s_want.tobytes(), (wl_from, l_from, wl_to, l_to)
    # The negative control: the layouts really differ, so equality means something.
    assert prepared[code_layouts[0], "plain"][0].tobytes() != \
        prepared[code_layouts[1], "plain"][0].tobytes()


def test_shuffle_weight_is_aiters_fp4_shuffle(rng):
    w = weights(rng, 64, 512)
    plain = mxforge.prepare_weight(w, k=512, n=64, rs=64, rot="hadamard")
    shuffled = mxforge.shuffle_weight(plain)
    direct = mxforge.quant_weight(w, k=512, n=64, rs=64, rot="hadamard",
                                  wlayout="preshuffle_16x16", layout="a4w4_shuffle")
    assert shuffled.q.tobytes() == np.asarray(direct.q).tobytes()
    assert shuffled.s.tobytes() == np.asarray(direct.s).tobytes()
    assert "wlayout=preshuffle_16x16" in shuffled.spec and "layout=a4w4_shuffle" in shuffled.spec
    fp6 = mxforge.prepare_weight(weights(rng, 64, 512), k=512, n=64, fmt="fp6_e2m3")
    with pytest.raises(mxforge.ArgumentError, match="AITER's fp4 shuffle"):
        mxforge.shuffle_weight(fp6)
    with pytest.raises(mxforge.SpecError, match="preshuffle_16x16 requires fmt=fp4"):
        mxforge.relayout_weight(fp6, wlayout="preshuffle_16x16")
    with pytest.raises(mxforge.ArgumentTypeError, match="takes a QuantizedWeight"):
        mxforge.shuffle_weight(plain.q)
    torn = mxforge.QuantizedWeight("torn", plain.q[:32], plain.s, plain.spec)
    with pytest.raises(mxforge.ArgumentError, match="the codes are 8192 bytes"):
        mxforge.relayout_weight(torn, wlayout="preshuffle_16x16")


def test_the_gemm_reads_only_weights_made_for_it(rng):
    k, n, m = 512, 256, rng.randint(1, 16)
    w, x = weights(rng, n, k), random_x(rng, m, k)
    plain = mxforge.prepare_weight(w, k=k, n=n, rs=64, rot="hadamard")
    shuffled = mxforge.shuffle_weight(plain)
    y = plain.gemm(x)  # the GEMM's weight keys default to the weights'
    raw = mxforge.rotate_quant_gemm(x, plain.q, plain.s, k=k, n=n, rs=64, rot="hadamard")
    assert np.asarray(y).tobytes() == np.asarray(raw).tobytes()
    assert np.asarray(shuffled.gemm(x)).tobytes() == np.asarray(y).tobytes()
    # Issue 31's misuses, through the checked path: each refused naming both values.
    misuses = [
        (plain, dict(wlayout="preshuffle_16x16", layout="plain"),
         "wlayout=plain, rotate_quant_gemm reads wlayout=preshuffle_16x16"),
        (shuffled, dict(wlayout="plain", layout="a4w4_shuffle"),
         "wlayout=preshuffle_16x16, rotate_quant_gemm reads wlayout=plain"),
        (plain, dict(layout="a4w4_shuffle"), "layout=plain, rotate_quant_gemm reads "
                                             "layout=a4w4_shuffle"),
        (shuffled, dict(layout="plain"), "layout=a4w4_shuffle, rotate_quant_gemm reads "
                                         "layout=plain"),
        (plain, dict(rs=128), "RS=64, rotate_quant_gemm reads RS=128"),
    ]
    for weight, keys, message in misuses:
        with pytest.raises(mxforge.ArgumentError, match=message):
            weight.gemm(x, **keys)
    # The unchecked path takes raw arrays as given: with N a multiple of 256
    # the shapes agree and y is wrong with no error. This is why the checked
    # path exists (the negative control for the checks above).
    wrong = mxforge.rotate_quant_gemm(x, shuffled.q, plain.s, k=k, n=n, rs=64, rot="hadamard")
    assert np.asarray(wrong).tobytes() != np.asarray(y).tobytes()


def test_a_learned_rotation_is_checked_by_its_fingerprint(rng, tmp_path):
    k, n, rs = 256, 64, 32
    w, r, other = weights(rng, n, k), learned(rng, rs), learned(rng, rs)
    prepared = mxforge.prepare_weight(w, k=k, n=n, rs=rs, rot="learned", r=r)
    assert prepared.rotation_sha256 == mxforge.rotation_fingerprint(r)
    x = random_x(rng, 4, k)
    y = prepared.gemm(x, r=r)
    assert np.asarray(y).tobytes() == np.asarray(mxforge.rotate_quant_gemm(
        x, prepared.q, prepared.s, k=k, n=n, rs=rs, rot="learned", r=r)).tobytes()
    with pytest.raises(mxforge.ArgumentError, match="not the rotation the weights were"):
        prepared.gemm(x, r=other)
    # mxforge quantize records the fingerprint per tensor; the loader reads it.
    source = tmp_path / "in" / "model.safetensors"
    source.parent.mkdir()
    write_safetensors(source, {"m.layers.0.o_proj.weight": ("BF16", w)})
    np.save(tmp_path / "r.npy", r)
    out = tmp_path / "out.safetensors"
    mxforge.quantize_checkpoint(source, out, f"quant_weight:RS={rs},rot=learned",
                                r".*proj\.weight", rotation=tmp_path / "r.npy")
    read = mxforge.read_quantized_weight(out, "m.layers.0.o_proj.weight")
    assert read.rotation_sha256 == prepared.rotation_sha256
    assert read.q.tobytes() == prepared.q.tobytes() and read.s.tobytes() == prepared.s.tobytes()
    with pytest.raises(mxforge.ArgumentError, match="not the rotation"):
        read.gemm(x, r=other)


def test_moe_outputs_are_checked_against_their_reader(rng):
    """The MoE front end's outputs go to an engine's MoE GEMM built for one
    layout, block and E. With K/32 a multiple of 8 and the capacity one of
    32, plain and shuffled scales have the same shape, so a front end of the
    other layout would be read wrong with no error (the negative control
    below shows it); check_spec refuses it naming both values, and the same
    for block and E."""
    k, topk, e, m = 256, 2, 8, 40
    x = random_x(rng, m, k)
    gen = np.random.default_rng(rng.randrange(2**63))
    ids = np.stack([gen.permutation(e)[:topk] for _ in range(m)]).astype(np.int32)
    w = np.full((m, topk), 0.5, dtype=np.float32)
    keys = dict(k=k, topk=topk, e=e, block=32)
    plain = mxforge.rotate_quant_moe(x, ids, w, layout="plain", **keys)
    shuffled = mxforge.rotate_quant_moe(x, ids, w, layout="a4w4_shuffle", **keys)
    if np.asarray(plain.s).shape == np.asarray(shuffled.s).shape:
        assert np.asarray(plain.s).tobytes() != np.asarray(shuffled.s).tobytes()
    reader = dict(layout="a4w4_shuffle", block=32, e=e)
    mxforge.check_spec(shuffled, **reader)
    with pytest.raises(mxforge.ArgumentError,
                       match="writes layout=plain, the reader expects layout=a4w4_shuffle"):
        mxforge.check_spec(plain, **reader)
    with pytest.raises(mxforge.ArgumentError, match="writes block=32, the reader expects block=64"):
        mxforge.check_spec(shuffled, **dict(reader, block=64))
    with pytest.raises(mxforge.ArgumentError, match="writes E=8, the reader expects E=256"):
        mxforge.check_spec(shuffled.spec, **dict(reader, e=256))
    with pytest.raises(mxforge.ArgumentError, match="has no key N"):
        mxforge.check_spec(shuffled, n=3)
    with pytest.raises(mxforge.ArgumentTypeError, match="takes a spec or an op's result"):
        mxforge.check_spec(3, block=32)
