"""torch.ops.mxforge.*: registered, callable, shapes through meta and fake tensors."""

import pytest
import torch

import mxforge
from helpers import mismatch, random_m, random_x, to_torch


def test_the_op_is_registered_and_matches_the_function(rng):
    assert mxforge.TORCH_OPS in ("custom_op", "Library")
    m = random_m(rng)
    x = to_torch(random_x(rng, m, 512))
    q, s = torch.ops.mxforge.rotate_quant(x, "rotate_quant:K=512,RS=128,scale=rceil")
    q_ref, s_ref = mxforge.reference("rotate_quant:K=512,RS=128,scale=rceil", x)
    assert mismatch(q, q_ref, "q") is None and mismatch(s, s_ref, "s") is None
    # K may be left to x's width, as in the function.
    q2, _ = torch.ops.mxforge.rotate_quant(x, "rotate_quant:RS=128,scale=rceil")
    assert torch.equal(q2, q)


def test_the_op_with_a_learned_rotation(rng):
    x = to_torch(random_x(rng, 3, 256))
    r = (torch.randn(64, 64) * 0.125).to(torch.bfloat16)
    spec = "rotate_quant:K=256,RS=64,rot=learned"
    q, s = torch.ops.mxforge.rotate_quant(x, spec, r)
    q_ref, s_ref = mxforge.reference(spec, x, r=r)
    assert mismatch(q, q_ref, "q") is None and mismatch(s, s_ref, "s") is None


@pytest.mark.parametrize("layout, s_shape", [("plain", (9, 32)), ("a4w4_shuffle", (256, 32))])
def test_meta_tensors_give_the_output_shapes(layout, s_shape):
    x = torch.empty(9, 1024, dtype=torch.bfloat16, device="meta")
    q, s = torch.ops.mxforge.rotate_quant(x, f"rotate_quant:RS=64,layout={layout}")
    assert q.device.type == "meta" and s.device.type == "meta"
    assert tuple(q.shape) == (9, 512) and q.dtype == torch.uint8
    assert tuple(s.shape) == s_shape and s.dtype == torch.uint8


def test_fake_tensors_give_the_output_shapes():
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
    with FakeTensorMode() as mode:
        x = mode.from_tensor(torch.empty(33, 2048, dtype=torch.bfloat16))
        q, s = torch.ops.mxforge.rotate_quant(x, "rotate_quant:RS=32,fmt=fp4")
        assert isinstance(q, FakeTensor) and isinstance(s, FakeTensor)
        assert tuple(q.shape) == (33, 1024) and tuple(s.shape) == (33, 64)


def test_meta_rejects_what_a_launch_rejects():
    x = torch.empty(300, 256, dtype=torch.bfloat16, device="meta")
    with pytest.raises(mxforge.ArgumentError, match="300 rows"):
        torch.ops.mxforge.rotate_quant(x, "rotate_quant:RS=64")
    with pytest.raises(mxforge.SpecError, match="RS=48"):
        torch.ops.mxforge.rotate_quant(x[:4], "rotate_quant:RS=48")


def _compile_support():
    """Why torch.compile cannot run here, or None when it can."""
    if not hasattr(torch, "compile"):
        return f"torch {torch.__version__} has no torch.compile (it arrived in torch 2.0)"
    return None


@pytest.mark.skipif(_compile_support() is not None, reason=str(_compile_support()))
def test_the_op_under_torch_compile(rng):
    x = to_torch(random_x(rng, 4, 256))

    def quantize(a):
        return torch.ops.mxforge.rotate_quant(a, "rotate_quant:RS=64")

    compiled = torch.compile(quantize, fullgraph=True)
    q, s = compiled(x)
    q_ref, s_ref = mxforge.reference("rotate_quant:RS=64", x)
    assert mismatch(q, q_ref, "q") is None and mismatch(s, s_ref, "s") is None


# --- selective rotation through the op: rotate=, layer=, layer_mask= ------

SELECT_KEYS = "RS=64,scale=rceil"


def test_the_op_takes_the_flag_selection_and_gives_the_functions_bytes(rng):
    m = random_m(rng)
    x = to_torch(random_x(rng, m, 512))
    spec = f"rotate_quant:K=512,{SELECT_KEYS},select=flag"
    rotated = mxforge.reference(f"rotate_quant:K=512,{SELECT_KEYS}", x)
    plain = mxforge.reference("rotate_quant:K=512,RS=0,scale=rceil", x)
    for rotate in (1, 0, -7, rng.randint(-2**31, 2**31 - 1)):
        q, s = torch.ops.mxforge.rotate_quant(x, spec, rotate=rotate)
        q_fn, s_fn = mxforge.rotate_quant(x, spec, rotate=rotate)
        assert torch.equal(q, q_fn) and torch.equal(s, s_fn), f"rotate={rotate} m={m}"
        q_ref, s_ref = rotated if rotate else plain
        assert mismatch(q, q_ref, f"q rotate={rotate}") is None
        assert mismatch(s, s_ref, f"s rotate={rotate}") is None
    # The two paths differ, so the comparison above can fail.
    assert mismatch(rotated[0], plain[0], "q") is not None


def test_the_op_takes_the_mask_selection_and_gives_the_functions_bytes(rng):
    layers = rng.randint(2, 16)
    mask = torch.tensor([rng.randint(0, 1) for _ in range(layers)], dtype=torch.int32)
    mask[0], mask[-1] = 1, 0
    m = random_m(rng)
    x = to_torch(random_x(rng, m, 256))
    spec = f"rotate_quant:K=256,{SELECT_KEYS},select=mask,layers={layers}"
    print(f"mask {mask.tolist()}, m={m}")
    plain_q, _ = mxforge.reference("rotate_quant:K=256,RS=0,scale=rceil", x)
    rotated_q, _ = mxforge.reference(f"rotate_quant:K=256,{SELECT_KEYS}", x)
    for layer in sorted({0, layers - 1, rng.randrange(layers)}):
        q, s = torch.ops.mxforge.rotate_quant(x, spec, layer=layer, layer_mask=mask)
        q_fn, s_fn = mxforge.rotate_quant(x, spec, layer=layer, layer_mask=mask)
        assert torch.equal(q, q_fn) and torch.equal(s, s_fn), f"layer={layer}"
        expected = rotated_q if mask[layer] else plain_q
        assert mismatch(q, expected, f"q layer={layer} (entry {int(mask[layer])})") is None
        meta_q, meta_s = torch.ops.mxforge.rotate_quant(x.to("meta"), spec, layer=layer,
                                                        layer_mask=mask.to("meta"))
        assert (meta_q.shape, meta_s.shape) == (q.shape, s.shape)


# (keyword arguments of a call, spec suffix): each wrong in its own way.
BAD_SELECTIONS = [
    ({}, ",select=flag"),                                     # no rotate=
    ({"rotate": 1}, ",select=mask,layers=4"),                  # rotate= for a mask
    ({"rotate": 1}, ""),                                      # a spec that always rotates
    ({"layer": 0}, ""),
    ({"rotate": 1, "layer": 0, "layer_mask": "mask4"}, ",select=mask,layers=4"),  # both
    ({"layer": 0}, ",select=mask,layers=4"),                   # no layer_mask
    ({"layer": 0, "layer_mask": "mask5"}, ",select=mask,layers=4"),  # mask of 5 entries
    ({"layer_mask": "mask4"}, ",select=flag"),                 # a mask for a flag
]


@pytest.mark.parametrize("keywords, suffix", BAD_SELECTIONS)
def test_a_bad_selection_is_the_functions_error(rng, keywords, suffix):
    masks = {"mask4": torch.ones(4, dtype=torch.int32), "mask5": torch.ones(5, dtype=torch.int32)}
    keywords = {key: masks.get(value, value) if isinstance(value, str) else value
                for key, value in keywords.items()}
    spec = f"rotate_quant:K=256,{SELECT_KEYS}{suffix}"
    x = to_torch(random_x(rng, 2, 256))
    with pytest.raises(mxforge.Error) as by_function:
        mxforge.rotate_quant(x, spec, **keywords)
    print(f"{spec} {sorted(keywords)}: {type(by_function.value).__name__}: "
          f"{by_function.value}")
    with pytest.raises(type(by_function.value)) as by_op:
        torch.ops.mxforge.rotate_quant(x, spec, **keywords)
    assert str(by_op.value) == str(by_function.value)
    # The meta kernel (the fake under tracing) refuses it too.
    meta_keywords = {key: value.to("meta") if isinstance(value, torch.Tensor) else value
                     for key, value in keywords.items()}
    with pytest.raises(mxforge.Error):
        torch.ops.mxforge.rotate_quant(x.to("meta"), spec, **meta_keywords)


def test_a_layer_outside_the_mask_is_refused_by_the_op(rng):
    x = to_torch(random_x(rng, 2, 256))
    mask = torch.ones(4, dtype=torch.int32)
    spec = f"rotate_quant:K=256,{SELECT_KEYS},select=mask,layers=4"
    with pytest.raises(mxforge.Error, match="layer=4 is outside 0..3"):
        torch.ops.mxforge.rotate_quant(x, spec, layer=4, layer_mask=mask)


def test_round_sr_takes_its_seed_as_a_tensor(rng):
    """The seed is one of rotate_quant's optional inputs, so the torch op
    takes it (Tensor? seed) as the function does; the bytes are the
    function's with the same seed, and another seed changes them."""
    x = to_torch(random_x(rng, 5, 512))
    spec = "rotate_quant:K=512,RS=64,round=sr"
    seed = rng.randrange(2**31)
    print(f"seed operand {seed}")
    q, s = torch.ops.mxforge.rotate_quant(x, spec, seed=torch.tensor([seed], dtype=torch.int32))
    q_fn, s_fn = mxforge.rotate_quant(x, spec, seed=seed)
    assert torch.equal(q, q_fn) and torch.equal(s, s_fn)
    other, _ = torch.ops.mxforge.rotate_quant(x, spec,
                                              seed=torch.tensor([seed ^ 1], dtype=torch.int32))
    assert not torch.equal(other, q)
    with pytest.raises(mxforge.ArgumentError, match="needs seed"):
        torch.ops.mxforge.rotate_quant(x, spec)
    meta = torch.empty(5, 512, dtype=torch.bfloat16, device="meta")
    with pytest.raises(mxforge.ArgumentError, match="needs seed"):
        torch.ops.mxforge.rotate_quant(meta, spec)


def test_the_op_runs_through_prepared_ops_and_keeps_the_functions_words(rng):
    # torch.ops.mxforge.* keeps one prepared op per op, spec, device and the
    # extents its keys default from (torch_ops._prepared_ops): repeated calls
    # skip the spec, the kernel lookup and, by the call plans, the checks.
    # Each call must still give the reference's bytes on fresh rows, and what
    # the function refuses must get the function's message.
    from mxforge import torch_ops
    spec = "rotate_quant:RS=64,layout=a4w4_shuffle"   # K from x's width
    m = random_m(rng)
    for call in range(3):
        x = to_torch(random_x(rng, m, 256))
        q, s = torch.ops.mxforge.rotate_quant(x, spec)
        q_ref, s_ref = mxforge.reference("rotate_quant:K=256,RS=64,layout=a4w4_shuffle", x)
        assert mismatch(q, q_ref, "q") is None and mismatch(s, s_ref, "s") is None, call
    assert torch_ops._prepared_ops.get(("rotate_quant", spec, "emu", (("K", 256),))) is not None
    # Once prepared, the plain call takes the fast path, not the named-argument one.
    slow = []
    real = torch_ops._call_prepared
    torch_ops._call_prepared = lambda *a: slow.append(1) or real(*a)
    try:
        x = to_torch(random_x(rng, m, 256))
        q, s = torch.ops.mxforge.rotate_quant(x, spec)
        q_ref, s_ref = mxforge.reference("rotate_quant:K=256,RS=64,layout=a4w4_shuffle", x)
        assert mismatch(q, q_ref, "q") is None and mismatch(s, s_ref, "s") is None
    finally:
        torch_ops._call_prepared = real
    assert slow == [], "the plain call should have gone straight to its prepared op"
    bad = [("rotate_quant:K=256,RS=48", random_x(rng, m, 256)),      # no such RS
           ("rotate_quant:K=512,RS=64", random_x(rng, m, 256)),      # x narrower than K
           ("rotate_quant:K=256,RS=64", random_x(rng, 300, 256))]    # more rows than a launch
    for spec_text, rows in bad:
        x = to_torch(rows)
        with pytest.raises(Exception) as through_op:
            torch.ops.mxforge.rotate_quant(x, spec_text)
        with pytest.raises(mxforge.Error) as through_function:
            mxforge.rotate_quant(x, spec=spec_text)
        assert str(through_function.value) in str(through_op.value), spec_text


def test_the_registration_can_be_chosen_and_a_bad_choice_is_named():
    # MXFORGE_TORCH_REGISTRATION picks torch.library.Library (the default) or
    # custom_op (torch >= 2.4); anything else stops the import, naming it.
    import os
    import subprocess
    import sys
    package = os.path.dirname(os.path.dirname(mxforge.__file__))
    run = lambda value: subprocess.run(  # noqa: E731
        [sys.executable, "-c", "import mxforge; print(mxforge.TORCH_OPS)"], capture_output=True,
        text=True, cwd=package, env=dict(os.environ, MXFORGE_TORCH_REGISTRATION=value,
                                         PYTHONPATH=package))
    chosen = run("library")
    assert chosen.returncode == 0 and chosen.stdout.strip() == "Library", chosen.stderr
    bad = run("bogus")
    assert bad.returncode != 0
    assert "MXFORGE_TORCH_REGISTRATION must be custom_op or library, got 'bogus'" in bad.stderr
