#!/usr/bin/env python3
"""Compile time of AITER's Triton peers for gfx950 beside mxforge's whole-process compile of
the matching family (issue 32, item 2: "every family at least 10x faster to compile than
Triton"). Runs on the device host (Triton, a CUDA GPU to bind the launch arguments, AITER's
sources from tests/witness/fetch_aiter.sh) with a static mxforge CLI:

    python3 bench/peers/triton/compile_times.py --mxforge PATH [--repeats 5]

Triton: `triton.compile` of each peer for GPUTarget("hip", "gfx950", 64), in this process,
with the specialization a launch at the shape would get (the witness corpus's binder), each
repeat with an empty cache directory of its own; the first compile of the process is
reported apart (it pays Triton's and LLVM's one-time set-up). mxforge: `mxforge compile` of
the spec as a whole process (start-up, one compile, exit) with the kernel cache off, median
of the repeats. Prints one table; asserts nothing.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "witness"))

# (family row, mxforge specs, the Triton peer). Shapes of the issue's own table.
ROWS = [
    ("rotate_quant", ["rotate_quant:K=4096,RS=64", "rotate_quant:K=4096,RS=128,rot=learned",
                      "rotate_quant:K=4096,RS=0"], "quant"),
    ("rotate_quant_gemm A4W4", ["rotate_quant_gemm:K=8192,N=4608,RS=64,M=16",
                                "rotate_quant_gemm:K=8192,N=4608,RS=0,M=16"], "afp4wfp4"),
    ("rotate_quant_gemm W6A16", ["rotate_quant_gemm:K=8192,N=4608,RS=64,M=16,fmt=fp6_e2m3,"
                                 "wlayout=w6a16_16x128"], "a16wfp4"),
    ("rotate_quant_moe", ["rotate_quant_moe:K=2048,RS=0,topk=8,E=128",
                          "rotate_quant_moe:K=2048,RS=128,topk=8,E=128"], "moe_sort"),
]


def peer_cases():
    import kernels_aiter as ka
    K = ka._kernels()
    return {
        "quant": ka.quant_case(K, "t_quant", 16, 4096, 7),
        "afp4wfp4": ka.afp4wfp4_cases(K, 16, 4608, 8192, 7, "t_afp4wfp4")[0],
        "a16wfp4": ka.a16wfp4_case(K, 16, 4608, 8192, 7),
        "moe_sort": ka.moe_sort_case(K, "t_moe_sort", 16, 8, 2048, 7),
    }


def triton_compile_ms(case, repeats):
    """[first, later...] ms of triton.compile for gfx950 of `case`."""
    import torch
    import triton
    import witness_lib as wl
    from triton.compiler import ASTSource
    args = []
    for a in case.args:
        if isinstance(a, wl.Buf):
            if a.is_in:
                base = a.data.to("cuda")
            else:
                base = torch.zeros(a.shape, dtype=a.dtype, device="cuda")
            args.append(a.view(base) if a.view is not None else base)
        else:
            args.append(a)
    kwargs = dict(case.constexprs)
    jit, kwargs = wl.unwrap_kernel(case.kernel, args, kwargs)
    signature, constexprs, attrs, _ = wl.hip_specialization(jit, args, kwargs, lambda *_: None)
    options = {k: v for k, v in kwargs.items() if k in wl._hip_option_names()}
    options.update(case.hip_options)
    times = []
    for _ in range(repeats + 1):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["TRITON_CACHE_DIR"] = cache
            knobs = getattr(triton, "knobs", None)
            if knobs is not None and hasattr(knobs, "cache"):
                knobs.cache.dir = cache
            start = time.perf_counter()
            triton.compile(ASTSource(jit, signature, constexprs, attrs), target=wl.hip_target(),
                           options=options)
            times.append((time.perf_counter() - start) * 1e3)
    return times


def mxforge_compile_ms(cli, spec, repeats):
    env = dict(os.environ, MXFORGE_CACHE="0")
    times = []
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(repeats):
            start = time.perf_counter()
            subprocess.run([cli, "compile", "--spec", spec, "-o", os.path.join(scratch, "k.hsaco")],
                           check=True, env=env, stdout=subprocess.DEVNULL)
            times.append((time.perf_counter() - start) * 1e3)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mxforge", required=True)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import triton
    print(f"triton {triton.__version__}; {os.cpu_count()} CPUs; medians of {args.repeats} (ms)")
    cases = peer_cases()
    print(f"{'family / spec':<92} {'mxforge':>8} {'Triton peer':>12} {'(first)':>8} {'ratio':>6}")
    for family, specs, peer in ROWS:
        times = triton_compile_ms(cases[peer], args.repeats)
        triton_ms = statistics.median(times[1:])
        print(f"{family}: Triton peer {cases[peer].name}")
        for spec in specs:
            ours = statistics.median(mxforge_compile_ms(args.mxforge, spec, args.repeats))
            print(f"  {spec:<90} {ours:8.1f} {triton_ms:12.1f} {times[0]:8.1f} {triton_ms / ours:5.1f}x")


if __name__ == "__main__":
    main()
