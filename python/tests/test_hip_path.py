"""The hip path, as far as a machine without an AMD GPU can check it.

The real launch cannot run here. What can: opening the hip device fails with
the library's DeviceError (not a crash), and, with the device and the launch
replaced by recorders, the runner hands the C API the tensors' own pointers,
x's row stride, torch's current stream and the tensor's device index."""

import contextlib
import ctypes

import pytest
import torch

import mxforge
from mxforge import _contexts, _library, _runner
from helpers import random_x, to_torch


def test_opening_hip_without_a_gpu_is_a_device_error():
    with pytest.raises(mxforge.DeviceError) as raised:
        mxforge.compile(["rotate_quant:K=64"], device="hip:0")
    assert "\n" not in str(raised.value) and str(raised.value)


def test_the_hip_launch_gets_pointers_strides_stream_and_device(rng, monkeypatch):
    k, gap, m = 256, 64, 3
    wide = to_torch(random_x(rng, m, k + gap))
    x = wide[:, :k]
    seen = {}

    class FakeStream:
        cuda_stream = 0x5EED

    @contextlib.contextmanager
    def device_guard(index):
        seen["guard"] = index
        yield

    monkeypatch.setattr(_runner, "_target_device", lambda views: "hip:1")
    monkeypatch.setattr(torch.cuda, "device", device_guard)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda index: FakeStream())
    emu = _contexts.context("emu")  # the kernel lookup itself runs on emu
    monkeypatch.setattr(_contexts, "context", lambda device: emu)
    library = _library.lib()

    def launch(context, kernel, rows, pointers, strides, count, stream):
        seen.update(rows=rows, pointers=[pointers[i] for i in range(count)],
                    strides=[strides[i] for i in range(count)], stream=stream.value)
        return 0

    monkeypatch.setattr(library, "mxf_launch_strided", launch)
    q, s = mxforge.rotate_quant(x, rs=64)
    assert seen["guard"] == 1 and seen["stream"] == 0x5EED and seen["rows"] == m
    assert seen["pointers"] == [x.data_ptr(), q.data_ptr(), s.data_ptr()]
    assert seen["strides"] == [k + gap, 0, 0]
    assert q.shape == (m, k // 2) and s.shape == (m, k // 32)
