"""mxforge.bench: the CLI's check-then-time loop from Python (docs/python.md).

On emu every row is a kernel checked byte for byte against the reference and
the MI355X model's estimate; on hip (here the test suite's fake HIP runtime,
which runs no kernel) the checks must fail, which is the negative control
that a GPU computing nothing is never reported "ok".
"""

import os

import pytest

import mxforge
from helpers import REPO, session_seed

GEMM = "rotate_quant_gemm:K=512,N=256,RS=64,rot=hadamard,M=4,scale=even"
QUANT = "rotate_quant:K=512,RS=64,rot=hadamard,M=4"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_rows_are_checked_estimates_with_the_separated_pipeline_and_the_peer(tmp_path):
    seed = session_seed() % 2**32
    plot = tmp_path / "bench.png"
    rows = mxforge.bench(specs=[GEMM, QUANT], m=[1, 3], seed=seed, plot=plot)
    assert isinstance(rows, mxforge.BenchRows)
    assert [(r["m"], r["spec"].split(":")[0]) for r in rows] == [
        (1, "rotate_quant_gemm"), (3, "rotate_quant_gemm"), (1, "rotate_quant"),
        (3, "rotate_quant")]
    for r in rows:
        assert r["device"] == "emu" and r["check"] == "ok", r
        assert r["estimate_us"] > r["floor_us"] > 0, r
        assert r["bound"] in ("latency", "memory", "issue"), r
    for r in rows[:2]:  # the fused GEMM: its separated pipeline and AITER's f4gemm
        assert r["separated_check"] == "ok"
        assert r["speedup"] == pytest.approx(r["separated_estimate_us"] / r["estimate_us"],
                                             rel=1e-4)
        assert r["peer"] == "AITER f4gemm 32x128" and r["peer_estimate_us"] > 0
    for r in rows[2:]:
        assert "speedup" not in r and "peer" not in r
    assert "| m | spec | check | estimate us |" in rows.table
    assert f"(seed {seed})" in rows.table
    assert plot.read_bytes()[:8] == PNG_MAGIC


def test_bad_arguments_are_refused_by_name(tmp_path):
    with pytest.raises(mxforge.ArgumentError, match="give preset= or specs="):
        mxforge.bench()
    with pytest.raises(mxforge.ArgumentError, match="device='cuda' is not 'emu' or 'hip'"):
        mxforge.bench(specs=QUANT, device="cuda")
    with pytest.raises(mxforge.ArgumentError, match=r"every m must be in 1\.\.256"):
        mxforge.bench(specs=QUANT, m=[0, 1])
    with pytest.raises(mxforge.ArgumentTypeError, match="m must be an int or a non-empty list"):
        mxforge.bench(specs=QUANT, m="1")
    with pytest.raises(mxforge.ArgumentTypeError, match="specs must be a string or a list"):
        mxforge.bench(specs=[QUANT, 3])
    with pytest.raises(mxforge.ArgumentError, match="need device='hip'"):
        mxforge.bench(specs=QUANT, m=1, repeats=5)
    with pytest.raises(mxforge.ArgumentError, match="repeats=0 is not in 1..100000"):
        mxforge.bench(specs=QUANT, m=1, device="hip", repeats=0)
    # The CLI's own refusal, by name: a K the spec grammar rejects.
    plot = tmp_path / "kept.png"
    plot.write_bytes(b"an earlier picture")
    with pytest.raises(mxforge.Error, match="K=500"):
        mxforge.bench(specs="rotate_quant:K=500,RS=64,M=1", m=1, plot=plot)
    assert plot.read_bytes() == b"an earlier picture"


def test_hip_rows_time_with_events_and_a_gpu_that_computes_nothing_fails(monkeypatch):
    fake = os.path.join(REPO, "build", "tests", "unit", "runtime", "libmxforge_fake_hip.so")
    assert os.path.exists(fake), f"the fake HIP runtime is built with the tests: {fake}"
    monkeypatch.setenv("MXFORGE_HIP_LIBRARY", fake)
    with pytest.raises(mxforge.Error, match="1 of 1 kernel runs failed their check") as caught:
        mxforge.bench(specs=QUANT, m=1, device="hip", repeats=5, warmup=1, seed=7)
    (row,) = caught.value.rows
    assert row["device"] == "hip" and row["check"].startswith("FAILED:")
    # The fake's clock: 10, 20, ..., 50 us per graph launch of 20 passes.
    assert (row["median_us"], row["p10_us"], row["p90_us"]) == (1.5, 0.5, 2.5)
    assert row["repeats"] == 5 and row["l2_flushed"] is False and row["floor_us"] > 0
