"""mxforge.prepare (issue 32, item 4): a prepared op returns the family
function's bytes, refuses what the function refuses with the same message,
registers its fixed operands once, and is safe from 8 threads."""

import threading

import numpy as np
import pytest

import mxforge
from helpers import bf16_bits


def same(a, b):
    return all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(a, b))


def x_rows(gen, m, k):
    return bf16_bits(gen.standard_normal((m, k)))


def test_every_family_returns_the_functions_bytes(rng):
    gen = np.random.default_rng(rng.randrange(2**63))
    rs = rng.choice((32, 64, 128))
    k = 128 * rng.randint(1, 4)  # the GEMM takes multiples of 128 (one scaled MFMA)
    quant = mxforge.prepare("rotate_quant", k=k, rs=rs, scale=rng.choice(("even", "rceil")))
    for m in (1, rng.randint(2, 40), rng.randint(41, 256)):
        x = x_rows(gen, m, k)
        assert same(quant(x), mxforge.rotate_quant(x, spec=quant.spec)), m
    w = bf16_bits(gen.standard_normal((48, k)) * 0.05)
    weights = mxforge.prepare("quant_weight", k=k, n=48, rs=rs)
    assert same(weights(w), mxforge.quant_weight(w, rs=rs))
    w_q, w_s = mxforge.quant_weight(w, rs=rs)
    gemm = mxforge.prepare("rotate_quant_gemm", w_q=w_q, w_s=w_s, k=k, rs=rs)
    x = x_rows(gen, rng.randint(1, 16), k)
    assert np.array_equal(np.asarray(gemm(x)), np.asarray(mxforge.rotate_quant_gemm(x, w_q, w_s,
                                                                                      rs=rs)))
    moe = mxforge.prepare("rotate_quant_moe", k=k, rs=rs, topk=2, e=8)
    m = rng.randint(1, 20)
    ids = np.stack([gen.permutation(8)[:2] for _ in range(m)]).astype(np.int32)
    weights_ = gen.random((m, 2)).astype(np.float32)
    x = x_rows(gen, m, k)
    assert same(moe(x, ids, weights_), mxforge.rotate_quant_moe(x, ids, weights_, spec=moe.spec))
    print(f"prepared rotate_quant, quant_weight, rotate_quant_gemm, rotate_quant_moe at K={k}, "
          f"RS={rs}: the functions' bytes")


def test_selection_and_seed_go_with_each_call(rng):
    gen = np.random.default_rng(rng.randrange(2**63))
    x = x_rows(gen, 3, 256)
    mask = np.array([1, 0, 1], dtype=np.int32)
    op = mxforge.prepare("rotate_quant", k=256, rs=64, select="mask", layers=3, layer_mask=mask)
    for layer in range(3):
        assert same(op(x, layer=layer), mxforge.rotate_quant(x, spec=op.spec, layer=layer,
                                                             layer_mask=mask))
    sr = mxforge.prepare("rotate_quant", k=256, rs=64, round="sr")
    assert same(sr(x, seed=7), mxforge.rotate_quant(x, spec=sr.spec, seed=7))


def test_bad_calls_get_the_functions_messages(rng):
    gen = np.random.default_rng(rng.randrange(2**63))
    op = mxforge.prepare("rotate_quant", k=256, rs=64)
    good = x_rows(gen, 4, 256)
    bad = {
        "width": x_rows(gen, 4, 128),
        "dtype": good.astype(np.float32),
        "rank": good.reshape(4, 16, 16),
        "rows": x_rows(gen, 300, 256),
        "stride": np.asfortranarray(good),
    }
    for what, x in bad.items():
        with pytest.raises(mxforge.Error) as prepared:
            op(x)
        with pytest.raises(mxforge.Error) as function:
            mxforge.rotate_quant(x, spec=op.spec)
        assert type(prepared.value) is type(function.value), what
        assert str(prepared.value) == str(function.value), what
    with pytest.raises(mxforge.ArgumentTypeError, match="unexpected operand 'w_q'"):
        op(good, w_q=good)
    with pytest.raises(mxforge.ArgumentTypeError, match="takes 1 positional operands"):
        op(good, good)
    with pytest.raises(mxforge.ArgumentError, match="gives each call's rows"):
        mxforge.prepare("rotate_quant", k=256, x=good)
    with pytest.raises(mxforge.ArgumentError, match="no op 'rotate'"):
        mxforge.prepare("rotate", k=256)
    with pytest.raises(mxforge.ArgumentTypeError, match="belongs to each call"):
        mxforge.prepare("rotate_quant", k=256, rs=64, select="flag", rotate=True)
    with pytest.raises(mxforge.SpecError, match="K"):
        mxforge.prepare("rotate_quant", rs=64)  # K comes from no fixed operand


def test_fixed_operands_are_registered_once(rng):
    gen = np.random.default_rng(rng.randrange(2**63))
    w = bf16_bits(gen.standard_normal((32, 128)) * 0.05)
    w_q, w_s = mxforge.quant_weight(w, rs=32)
    x = x_rows(gen, 5, 128)
    expected = np.asarray(mxforge.rotate_quant_gemm(x, w_q, w_s, rs=32)).copy()
    kept_q, kept_s = w_q.copy(), w_s.copy()
    gemm = mxforge.prepare("rotate_quant_gemm", w_q=w_q, w_s=w_s, k=128, rs=32)
    # On the emu device the weights were copied into emulator memory when
    # the op was prepared: the caller's arrays are no longer read.
    w_q[...] = 0
    w_s[...] = 0
    assert np.array_equal(np.asarray(gemm(x)), expected)
    assert not np.array_equal(np.asarray(mxforge.rotate_quant_gemm(x, w_q, w_s, rs=32)), expected)
    gemm.close()
    with pytest.raises(Exception):
        gemm(x)
    w_q[...], w_s[...] = kept_q, kept_s


def test_eight_threads_share_one_prepared_op(rng):
    gen = np.random.default_rng(rng.randrange(2**63))
    op = mxforge.prepare("rotate_quant", k=256, rs=64, layout="a4w4_shuffle")
    inputs = [x_rows(gen, rng.randint(1, 32), 256) for _ in range(16)]
    expected = [tuple(np.asarray(a).copy() for a in op(x)) for x in inputs]
    failures = []

    def worker(first):
        for i in range(first, len(inputs), 8):
            if not same(op(inputs[i]), expected[i]):
                failures.append(i)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_kept_buffers_grow_and_show_no_earlier_call(rng):
    # A prepared op keeps each call's emulator buffers (per thread) and grows
    # them when a call needs more: calls of m = 1, 16, 3 and 1 again, each
    # on fresh rows, must each give the function's bytes, so a smaller call
    # after a larger one shows nothing of it, and a bucket seen once is kept.
    gen = np.random.default_rng(rng.randrange(2**63))
    spec = "rotate_quant:K=256,RS=64,rot=hadamard,M=16,scale=even"
    op = mxforge.prepare("rotate_quant", spec)
    for m in (1, 16, 3, 1):
        x = x_rows(gen, m, 256)
        q, s = op(x)
        q_ref, s_ref = mxforge.rotate_quant(x, spec)
        assert q.shape == q_ref.shape and s.shape == s_ref.shape, m
        assert np.array_equal(q, q_ref) and np.array_equal(s, s_ref), m
    op.close()


def test_repeated_layouts_skip_the_checks_but_not_their_answers(rng, monkeypatch):
    # After one checked call, a call whose arrays have the same layouts runs
    # by its plan (no Python checks); the bytes must still be the function's,
    # and anything the plan's key cannot vouch for must still be checked.
    gen = np.random.default_rng(rng.randrange(2**63))
    op = mxforge.prepare("rotate_quant", k=256, rs=64, layout=rng.choice(("plain", "a4w4_shuffle")))
    checked = []
    real = type(op)._checked_call
    monkeypatch.setattr(type(op), "_checked_call",
                        lambda self, *a: checked.append(1) or real(self, *a))
    m = rng.randint(1, 40)
    for call in range(3):
        x = x_rows(gen, m, 256)
        assert same(op(x), mxforge.rotate_quant(x, spec=op.spec)), call
    assert len(checked) == 1, "the second and third calls should have run by the plan"

    # out=: poisoned each time, every byte written by the planned call.
    x = x_rows(gen, m, 256)
    q_ref, s_ref = mxforge.rotate_quant(x, spec=op.spec)
    q, s = np.empty_like(q_ref), np.empty_like(s_ref)
    for call in range(3):
        q.fill(0xA5)
        s.fill(0x5A)
        result = op(x, out=(q, s))
        assert result[0] is q and np.array_equal(q, q_ref) and np.array_equal(s, s_ref), call
    assert len(checked) == 2

    # torch tensors get tensors back, by their own plan.
    import torch
    xt = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
    for call in range(2):
        qt, st = op(xt)
        assert isinstance(qt, torch.Tensor) and np.array_equal(qt.numpy(), q_ref), call
        assert np.array_equal(st.numpy(), s_ref), call
    assert len(checked) == 3

    # Negative controls: the same shape and dtype, but what the key cannot
    # see goes through the checks with the function's messages.
    one_row = x_rows(gen, 1, 256)
    outside = np.lib.stride_tricks.as_strided(one_row, shape=(m, 256),
                                              strides=one_row.strides) if m > 1 else None
    read_only = np.empty_like(q_ref)
    read_only.setflags(write=False)
    bad_calls = [("read-only out", lambda f: f(x, out=(read_only, s)))]
    if outside is not None:
        bad_calls.append(("strides past its memory", lambda f: f(outside)))
    for what, call in bad_calls:
        with pytest.raises(mxforge.Error) as prepared:
            call(op)
        with pytest.raises(mxforge.Error) as function:
            call(lambda *a, **k: mxforge.rotate_quant(*a, spec=op.spec, **k))
        assert str(prepared.value) == str(function.value), what
    op.close()
    with pytest.raises(Exception):
        op(x)
    print(f"prepared rotate_quant m={m}: 3 layouts, each checked once and then run by its plan; "
          f"{len(bad_calls)} bad calls and one after close() checked")


def test_a_full_plan_table_keeps_the_known_plans(rng, monkeypatch):
    # Past the plan table's capacity a new layout is checked every call, and
    # the layouts already planned still run by their plans.
    gen = np.random.default_rng(rng.randrange(2**63))
    op = mxforge.prepare("rotate_quant", k=128, rs=32)
    monkeypatch.setattr(op, "_PLAN_CAPACITY", 2)
    checked = []
    real = type(op)._checked_call
    monkeypatch.setattr(type(op), "_checked_call",
                        lambda self, *a: checked.append(1) or real(self, *a))
    for m in (1, 2, 3, 3, 1, 2):
        x = x_rows(gen, m, 128)
        assert same(op(x), mxforge.rotate_quant(x, spec=op.spec)), m
    # m = 1 and 2 planned at their first calls; m = 3 checked both times.
    assert len(checked) == 4, len(checked)
    op.close()
