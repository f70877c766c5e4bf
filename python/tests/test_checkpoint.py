"""mxforge.quantize_checkpoint (C API 1.5's mxf_quantize_checkpoint): the same
pipeline as `mxforge quantize` (weights/checkpoint/). Checked three ways:
its output equals the CLI's byte for byte; its codes and scales equal what
the gfx950 quant_weight kernel writes on the emulator (mxforge.quant_weight,
another code path than the host quantizer); and bad arguments get errors
that name them, with nothing written."""

import os
import subprocess

import numpy as np
import pytest

import mxforge
from helpers import bf16_bits, cli, read_safetensors, write_safetensors

SPEC = "quant_weight:RS=32,rot=hadamard,fmt=fp4"


@pytest.fixture
def checkpoint(tmp_path, rng):
    gen = np.random.default_rng(rng.randrange(2**63))
    weights = {
        "m.layers.0.q_proj.weight": bf16_bits(gen.standard_normal((32, 128))),
        "m.layers.0.up_proj.weight": bf16_bits(gen.standard_normal((48, 64)) * 3),
    }
    tensors = {name: ("BF16", bits) for name, bits in weights.items()}
    tensors["m.norm.weight"] = ("F32", gen.standard_normal(128).astype(np.float32))
    path = tmp_path / "in" / "model.safetensors"
    path.parent.mkdir()
    write_safetensors(path, tensors)
    return path, weights


def test_it_writes_what_the_cli_writes_and_the_kernel_computes(tmp_path, checkpoint):
    source, weights = checkpoint
    pattern = r".*_proj\.weight"
    ours = tmp_path / "py" / "model.safetensors"
    ours.parent.mkdir()
    report = mxforge.quantize_checkpoint(source, ours, SPEC, pattern, check=True)
    assert "quantized 2 tensors" in report.summary, report
    assert "rel.err/src" in report.summary  # check's table
    theirs = tmp_path / "cli" / "model.safetensors"
    theirs.parent.mkdir()
    done = subprocess.run([cli(), "quantize", "--in", str(source), "--out", str(theirs), "--spec",
                           SPEC, "--tensors", pattern], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert ours.read_bytes() == theirs.read_bytes()
    written = read_safetensors(ours)
    for name, bits in weights.items():
        n, k = bits.shape
        kernel = mxforge.quant_weight(bits, spec=f"{SPEC},K={k},N={n}")
        assert written[name] == np.asarray(kernel.q).tobytes(), name
        assert written[name + "_scale"] == np.asarray(kernel.s).tobytes(), name
    # The untouched tensor is copied byte for byte.
    assert written["m.norm.weight"] == read_safetensors(source)["m.norm.weight"]
    print(f"quantize_checkpoint: {len(weights)} tensors equal the CLI's file and the emulated "
          f"quant_weight kernel's bytes")


def test_bad_arguments_are_named_and_nothing_is_written(tmp_path, checkpoint):
    source, _ = checkpoint
    out = tmp_path / "bad" / "model.safetensors"
    out.parent.mkdir()
    cases = [
        (dict(in_path=tmp_path / "missing.safetensors"), mxforge.ArgumentError, "missing"),
        (dict(tensors="nothing.*"), mxforge.ArgumentError, "matches no tensor"),
        (dict(tensors="("), mxforge.ArgumentError, "--tensors '\\('"),
        (dict(spec="quant_weight:K=64"), mxforge.ArgumentError, "leave out K"),
        (dict(spec="rotate_quant:K=64"), mxforge.ArgumentError, "takes a quant_weight spec"),
        (dict(threads="2"), mxforge.ArgumentTypeError, "threads must be an int"),
        (dict(threads=5000), mxforge.ArgumentError, "threads=5000"),
        (dict(force=1), mxforge.ArgumentTypeError, "force must be a bool"),
        (dict(spec=3), mxforge.ArgumentTypeError, "spec must be a str"),
        (dict(out_path=str(out) + "\0x"), mxforge.ArgumentError, "NUL"),
    ]
    for change, error, message in cases:
        arguments = dict(in_path=source, out_path=out, spec=SPEC, tensors=r".*_proj\.weight")
        arguments.update(change)
        with pytest.raises(error, match=message):
            mxforge.quantize_checkpoint(**arguments)
        assert os.listdir(out.parent) == [], change
    # An existing output needs force=True; with it, it is replaced.
    mxforge.quantize_checkpoint(source, out, SPEC, r".*_proj\.weight")
    first = out.read_bytes()
    with pytest.raises(mxforge.ArgumentError, match="exists; pass --force"):
        mxforge.quantize_checkpoint(source, out, SPEC, r".*q_proj\.weight")
    assert out.read_bytes() == first
    mxforge.quantize_checkpoint(source, out, SPEC, r".*q_proj\.weight", force=True)
    assert "m.layers.0.up_proj.weight_scale" not in read_safetensors(out)


def test_progress_counts_bytes_inside_a_tensor(tmp_path, rng):
    gen = np.random.default_rng(rng.randrange(2**63))
    source = tmp_path / "big.safetensors"
    write_safetensors(source, {"m.big_proj.weight": ("BF16", bf16_bits(
        gen.standard_normal((4096, 256))))})
    report = mxforge.quantize_checkpoint(source, tmp_path / "out.safetensors", SPEC,
                                         r".*\.weight", threads=1, progress=True, check=True)
    lines = [line.strip() for line in report.notes.split("\r") if line.strip()]
    # The first redraw comes from inside the tensor (0 of 1 tensors done,
    # some bytes), the last after it; the check table stays in the summary.
    assert lines[0].startswith("quantize: ") and "0/1 tensors" in lines[0], lines
    assert "1/1 tensors" in lines[-1], lines
    assert "rel.err/src" in report.summary and "quantize:" not in report.summary
    print(f"progress: {len(lines)} redraws, first {lines[0]!r}, last {lines[-1]!r}")
