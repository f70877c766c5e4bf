#!/usr/bin/env python3
"""Generates the witness corpus (tests/witness/README.md) on a machine with an NVIDIA GPU, Triton
(3.6) and torch: every case is run on the GPU through Triton's CUDA backend, and compiled for
gfx950 by Triton's HIP backend with the same specialization; both land in DIR/<case>/.

    python3 tests/witness/generate_corpus.py --out DIR [--only a,b] [--skip-aiter] [--tar FILE]

A case that fails to compile or run is logged and left out; the rest are written.
"""

import argparse
import datetime
import json
import os
import sys
import tarfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="comma-separated case names (or name prefixes)")
    ap.add_argument("--skip-aiter", action="store_true")
    ap.add_argument("--tar", default="", help="also write the corpus as this .tar.xz")
    ap.add_argument("--deadline", type=float, default=0, help="stop starting cases after this many seconds")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()

    t_start = time.time()
    os.makedirs(args.out, exist_ok=True)
    logf = open(os.path.join(args.out, "generate.log"), "w")

    def log(msg, console_only=False):
        print(msg, flush=True)
        if not console_only:  # generate.log is committed with the corpus: no third-party source text in it
            logf.write(msg + "\n")
            logf.flush()

    import torch
    import triton
    import witness_lib

    log("triton %s, torch %s, cuda %s, python %s" % (triton.__version__, torch.__version__, torch.version.cuda,
                                                      sys.version.split()[0]))
    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    log("gpu: %s" % gpu)
    _log_triton_facts(log)

    case_fns = []
    import kernels_basic
    import kernels_dot
    import kernels_misc
    modules = [("kernels_basic", kernels_basic), ("kernels_dot", kernels_dot), ("kernels_misc", kernels_misc)]
    aiter_commit = None
    if not args.skip_aiter:
        try:
            import kernels_aiter
            aiter_commit = kernels_aiter.aiter_commit()
            modules.insert(0, ("kernels_aiter", kernels_aiter))
        except Exception as e:
            log("AITER kernels unavailable: %s: %s\n%s" % (type(e).__name__, e, traceback.format_exc()))
    cases = []
    failures = {}
    for mname, mod in modules:
        try:
            builders = mod.cases()
        except Exception as e:
            failures[mname] = "building the cases failed: %s: %s" % (type(e).__name__, e)
            log("%s: building the cases failed\n%s" % (mname, traceback.format_exc()))
            continue
        n0 = len(cases)
        for k, b in enumerate(builders):
            try:
                c = b()
                cases += c if isinstance(c, list) else [c]
            except Exception as e:
                bname = "%s[%d] %s" % (mname, k, getattr(b, "__name__", None) or getattr(getattr(b, "func", None),
                                                                                   "__name__", repr(b)))
                failures[bname] = "building the case failed: %s: %s" % (type(e).__name__, e)
                log("%s: building the case failed\n%s" % (bname, traceback.format_exc()))
        log("%s: %d cases" % (mname, len(cases) - n0))
    if args.only:
        want = [w for w in args.only.split(",") if w]
        cases = [c for c in cases if any(c.name == w or c.name.startswith(w) for w in want)]
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    if args.list:
        for c in cases:
            print(c.name)
        return 0

    done = []
    for c in cases:
        if args.deadline and time.time() - t_start > args.deadline:
            failures[c.name] = "not run: the generator's deadline passed"
            log("[skip] %s (deadline)" % c.name)
            continue
        log("[case] %s" % c.name)
        launch, err = witness_lib.safe_build(c, args.out, log)
        if launch is None:
            failures[c.name] = err
        else:
            done.append(c.name)

    manifest = {
        "provenance": {
            "triton": triton.__version__,
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "gpu": gpu,
            "aiter_commit": aiter_commit or "none (AITER cases not built)",
            "aiter_repository": "https://github.com/ROCm/aiter",
            "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "generator": "tests/witness/generate_corpus.py",
            "hip_target": "gfx950 (wave64), Triton's HIP backend",
        },
        "cases": done,
        "failed": failures,
    }
    with open(os.path.join(args.out, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    log("%d cases written, %d failed, %.1f s" % (len(done), len(failures), time.time() - t_start))
    for k, v in failures.items():
        log("  failed: %s: %s" % (k, v.splitlines()[0] if v else v))
    logf.close()
    if args.tar:
        with tarfile.open(args.tar, "w:xz") as tf:
            tf.add(args.out, arcname="corpus")
    return 0


def _log_triton_facts(log):
    """What this Triton offers that the generator relies on (the log records it)."""
    import inspect
    try:
        import triton.runtime.jit as J
        log("create_function_from_signature: %s" % (inspect.signature(J.create_function_from_signature)
                                                    if hasattr(J, "create_function_from_signature") else "absent"))
        from triton.compiler import compiler as C
        log("CompiledKernel.__init__%s" % inspect.signature(C.CompiledKernel.__init__))
        from triton.backends.amd.compiler import HIPBackend, HIPOptions
        log("HIPOptions fields: %s" % sorted(HIPOptions.__dataclass_fields__.keys()))
        log("create_function_from_signature source:\n" + inspect.getsource(J.create_function_from_signature),
            console_only=True)
        from triton.compiler import ASTSource
        log("ASTSource.__init__ source:\n" + inspect.getsource(ASTSource.__init__), console_only=True)
        log("HIPBackend methods: %s" % sorted(k for k in dir(HIPBackend) if not k.startswith("__")))
        for k in ("get_arg_specialization", "parse_attr"):
            if hasattr(HIPBackend, k):
                log("HIPBackend.%s source:\n%s" % (k, inspect.getsource(getattr(HIPBackend, k))), console_only=True)
        try:
            from triton import knobs
            log("knobs.amd.use_buffer_ops = %s" % knobs.amd.use_buffer_ops)
        except Exception as e:
            log("knobs unavailable: %s" % e)
    except Exception as e:
        log("could not inspect Triton: %s: %s" % (type(e).__name__, e))


if __name__ == "__main__":
    sys.exit(main())
