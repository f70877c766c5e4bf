#!/usr/bin/env python3
"""Per-call cost of the Python layer (python/mxforge) next to the C API's,
on the emu device, and the cost of loading a bundle. Prints a table of
medians; asserts nothing (a benchmark, not a test).

    /usr/bin/python3 bench/python_overhead.py [--repeats N] [--mxforge build/tools/mxforge/mxforge]

"C API" rows call libmxforge.so through bare ctypes with everything prepared
beforehand (the same calls mxforge.rotate_quant makes: find the kernel,
allocate emulator buffers, copy in, launch, copy out, free), so they include
ctypes' own per-call cost (about a microsecond a call) but none of the
package's Python. The launch itself is timed alone too: the emulation, which
no binding can make faster. The layer's overhead is the difference between
a package row and the C API row.
"""

import argparse
import atexit
import ctypes
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
if "MXFORGE_CACHE_DIR" not in os.environ:  # a private cache, removed at exit
    os.environ["MXFORGE_CACHE_DIR"] = tempfile.mkdtemp(prefix="mxforge-bench-cache-")
    atexit.register(shutil.rmtree, os.environ["MXFORGE_CACHE_DIR"], True)

import numpy as np  # noqa: E402

import mxforge  # noqa: E402
from mxforge import _contexts, _library  # noqa: E402


def median_us(function, repeats):
    function()  # warm: compile, first allocation
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def c_api_sequence(spec, x, q, s):
    """The C calls of one emu rotate_quant, prepared once; returns (whole
    sequence, launch only) callables."""
    lib = _library.lib()
    context = _contexts.context("emu")
    m = x.shape[0]
    kernel = ctypes.c_void_p()
    spec_bytes = spec.encode()
    sizes = [x.nbytes, q.nbytes, s.nbytes]
    hosts = [x.ctypes.data, q.ctypes.data, s.ctypes.data]
    pointers = (ctypes.c_void_p * 3)()
    strides = (ctypes.c_int64 * 3)()

    def sequence():
        lib.mxf_find_kernel(context, spec_bytes, m, ctypes.byref(kernel))
        for i in range(3):
            pointer = ctypes.c_void_p()
            lib.mxf_malloc(context, sizes[i], ctypes.byref(pointer))
            pointers[i] = pointer.value
        lib.mxf_memcpy_to_device(context, pointers[0], hosts[0], sizes[0])
        lib.mxf_launch_strided(context, kernel, m, pointers, strides, 3, None)
        lib.mxf_memcpy_to_host(context, hosts[1], pointers[1], sizes[1])
        lib.mxf_memcpy_to_host(context, hosts[2], pointers[2], sizes[2])
        for i in range(3):
            lib.mxf_free(context, pointers[i])

    sequence()
    device = [ctypes.c_void_p() for _ in range(3)]
    for i in range(3):
        lib.mxf_malloc(context, sizes[i], ctypes.byref(device[i]))
    launch_pointers = (ctypes.c_void_p * 3)(*[d.value for d in device])
    lib.mxf_memcpy_to_device(context, device[0], hosts[0], sizes[0])  # the same input

    def launch_only():
        lib.mxf_launch_strided(context, kernel, m, launch_pointers, strides, 3, None)

    return sequence, launch_only


def bundle_rows(cli, repeats):
    if not os.path.exists(cli):
        return [("bundle load", None, f"skipped: no CLI at {cli}")]
    directory = tempfile.mkdtemp(prefix="mxforge-bench-bundle-")
    path = os.path.join(directory, "qwen3-8b.mxfb")
    subprocess.run([cli, "bundle", "--preset", "qwen3-8b", "-o", path], check=True,
                   capture_output=True)
    lib = _library.lib()
    kernels = mxforge.inspect(path).kernels

    def fresh_context():
        options = _library.ContextOptions()
        lib.mxf_context_options_init(ctypes.byref(options))
        options.device, options.cache_mode = b"emu", 1
        handle = ctypes.c_void_p()
        lib.mxf_context_create(ctypes.byref(options), ctypes.byref(handle))
        return handle

    contexts = [fresh_context() for _ in range(2 * repeats + 2)]
    c_samples, py_samples = [], []
    for i in range(repeats + 1):
        start = time.perf_counter()
        lib.mxf_load_bundle(contexts[2 * i], path.encode(), None)
        c_samples.append(time.perf_counter() - start)
        # The package's load_bundle into a given device, on a fresh context.
        _contexts._contexts["bench"] = contexts[2 * i + 1].value
        start = time.perf_counter()
        mxforge.load_bundle(path, device="bench")
        py_samples.append(time.perf_counter() - start)
    for handle in contexts:
        lib.mxf_context_destroy(handle)
    _contexts._contexts.pop("bench", None)
    size = os.path.getsize(path) // 1024
    shutil.rmtree(directory, ignore_errors=True)
    what = f"qwen3-8b preset, {len(kernels)} kernels, {size} KiB"
    return [(f"bundle load, C API ({what})", statistics.median(c_samples[1:]) * 1e6, ""),
            (f"bundle load, mxforge.load_bundle ({what})", statistics.median(py_samples[1:]) * 1e6,
             "")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--mxforge", default=os.path.join(ROOT, "build", "tools", "mxforge",
                                                          "mxforge"))
    args = parser.parse_args()
    import torch

    rows = []
    for m, k in ((1, 32), (4, 4096)):
        keys = {"k": k, "rs": 32 if k == 32 else 64}
        spec = mxforge.canonical_spec(**keys)
        x = (np.random.default_rng(0).standard_normal((m, k)).astype(np.float32)
             .view(np.uint32) >> 16).astype(np.uint16)
        x_torch = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
        q = np.empty((m, k // 2), np.uint8)
        s = np.empty((m, k // 32), np.uint8)
        sequence, launch_only = c_api_sequence(spec, x, q, s)
        launch = median_us(launch_only, args.repeats)
        c_api = median_us(sequence, args.repeats)
        label = f"m={m}, K={k}"
        rows.append((f"{label}: mxf_launch_strided alone (the emulation)", launch, ""))
        rows.append((f"{label}: C API sequence (find, malloc, copy, launch, copy, free)", c_api,
                     f"outside emulation {c_api - launch:.1f}"))
        numpy_call = median_us(lambda: mxforge.rotate_quant(x, **keys), args.repeats)
        rows.append((f"{label}: mxforge.rotate_quant(numpy)", numpy_call,
                     f"layer +{numpy_call - c_api:.1f}"))
        out = (np.empty_like(q), np.empty_like(s))
        out_call = median_us(lambda: mxforge.rotate_quant(x, out=out, **keys), args.repeats)
        rows.append((f"{label}: mxforge.rotate_quant(numpy, out=)", out_call,
                     f"layer +{out_call - c_api:.1f}"))
        prepared = mxforge.prepare("rotate_quant", **keys)
        prepared_call = median_us(lambda: prepared(x), args.repeats)
        rows.append((f"{label}: prepared op (mxforge.prepare)(numpy)", prepared_call,
                     f"layer +{prepared_call - c_api:.1f}"))
        prepared_out = median_us(lambda: prepared(x, out=out), args.repeats)
        rows.append((f"{label}: prepared op (mxforge.prepare)(numpy, out=)", prepared_out,
                     f"layer +{prepared_out - c_api:.1f}"))
        torch_call = median_us(lambda: mxforge.rotate_quant(x_torch, **keys), args.repeats)
        rows.append((f"{label}: mxforge.rotate_quant(torch)", torch_call,
                     f"layer +{torch_call - c_api:.1f}"))
        op_call = median_us(lambda: torch.ops.mxforge.rotate_quant(x_torch, spec), args.repeats)
        rows.append((f"{label}: torch.ops.mxforge.rotate_quant", op_call,
                     f"layer +{op_call - c_api:.1f}"))
    rows.extend(bundle_rows(args.mxforge, max(5, args.repeats // 20)))

    print(f"{mxforge.version()}; Python {sys.version.split()[0]}, torch {torch.__version__}, "
          f"numpy {np.__version__}; median of {args.repeats} calls")
    width = max(len(name) for name, _, _ in rows)
    print(f"{'case'.ljust(width)}  {'median us':>10}  note")
    print(f"{'-' * width}  {'-' * 10}  ----")
    for name, value, note in rows:
        shown = f"{value:10.1f}" if value is not None else f"{'-':>10}"
        print(f"{name.ljust(width)}  {shown}  {note}")


if __name__ == "__main__":
    main()
