"""mxforge.calibrate: the same per-layer figures and mask as `mxforge calibrate`.

Layers of known character (as tests/lit/Inputs/calibration_samples.py makes
them, drawn here with the test's seed): Gaussian rows gain nothing from a
Hadamard rotation, one 20-sigma channel per 32 gains most, +-1 rows only
lose. The Python figures must equal the CLI's table for the same files, and
bad input must raise naming the problem.
"""

import os
import subprocess

import numpy as np
import pytest
import torch

import mxforge
from helpers import bf16_bits, cli

SPEC = "rotate_quant:K=512,RS=64,rot=hadamard,scale=rceil"


def layers(rng):
    gen = np.random.default_rng(rng.randrange(2**63))
    outliers = gen.standard_normal((2, 16, 512)).astype(np.float32)
    outliers[..., 5::32] *= 20
    return {
        "00_gaussian": bf16_bits(gen.standard_normal((32, 512))),
        "01_outliers": outliers,
        "02_signs": bf16_bits(np.where(gen.standard_normal((32, 512)) < 0, -1.0, 1.0)),
    }


def test_figures_and_mask_equal_the_cli(tmp_path, rng):
    samples = layers(rng)
    result = mxforge.calibrate(samples, SPEC, threshold=0.1)
    assert [record.name for record in result] == list(samples)
    assert result.mask.dtype == np.int32
    assert list(result.mask) == [0, 1, 0]
    assert result[1].gain > 0.3 and result[1].rotate
    assert result[2].plain_rel_rms == 0.0 and result[2].gain == -1.0

    folder = tmp_path / "samples"
    folder.mkdir()
    for name, array in samples.items():
        np.save(folder / f"{name}.npy", array)
    table = tmp_path / "table.tsv"
    done = subprocess.run([cli(), "calibrate", "--spec", SPEC, "--samples", str(folder),
                           "--threshold", "0.1", "--table", str(table), "--mask",
                           str(tmp_path / "mask.npy")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split("\t") for line in table.read_text().splitlines()[1:]]
    for record, row in zip(result, rows):
        assert row[0] == record.name and int(row[2]) == record.rows
        for got, column in ((record.rotated_rel_rms, 3), (record.plain_rel_rms, 4),
                            (record.gain, 7)):
            assert abs(got - float(row[column])) < 5e-7, (record.name, column)
        assert int(row[8]) == int(record.rotate)
    assert (np.load(tmp_path / "mask.npy") == result.mask).all()


def test_tensors_lists_and_keywords(rng):
    samples = layers(rng)
    by_dict = mxforge.calibrate(samples, SPEC, threshold=0.1)
    as_tensors = [torch.from_numpy(samples["00_gaussian"].astype(np.int16)).view(torch.bfloat16),
                  torch.from_numpy(samples["01_outliers"]),
                  torch.from_numpy(samples["02_signs"].astype(np.int16)).view(torch.bfloat16)]
    by_list = mxforge.calibrate(as_tensors, rs=64, rot="hadamard", scale="rceil", threshold=0.1)
    assert [record.name for record in by_list] == ["0", "1", "2"]
    assert [r.gain for r in by_list] == [r.gain for r in by_dict]
    assert by_list.spec == by_dict.spec


def test_bad_input_raises(rng):
    samples = layers(rng)
    with pytest.raises(mxforge.ArgumentError, match="last dimension is not the spec's K=1024"):
        mxforge.calibrate(samples, "rotate_quant:K=1024,RS=64,rot=hadamard")
    with pytest.raises(mxforge.ArgumentTypeError, match="int32"):
        mxforge.calibrate({"ints": np.zeros((4, 512), dtype=np.int32)}, SPEC)
    with pytest.raises(mxforge.ArgumentError, match="RS=0"):
        mxforge.calibrate(samples, "rotate_quant:K=512")
    with pytest.raises(mxforge.ArgumentError, match="threshold"):
        mxforge.calibrate(samples, SPEC, threshold=1.0)
    with pytest.raises(mxforge.ArgumentError, match="no layers"):
        mxforge.calibrate({}, SPEC)
    nan = samples["00_gaussian"].copy()
    nan[3, 7] = 0x7FC0
    with pytest.raises(mxforge.ArgumentError, match="sample 3, channel 7 is not finite"):
        mxforge.calibrate({"nan": nan}, SPEC)
    with pytest.raises(mxforge.ArgumentError, match="rotation matrix"):
        mxforge.calibrate(samples, "rotate_quant:K=512,RS=64,rot=learned")
