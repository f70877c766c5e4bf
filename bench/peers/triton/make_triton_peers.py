#!/usr/bin/env python3
"""AITER's Triton MXFP4 kernels at our decode shapes, compiled for gfx950, for the
MI355X model (issue 30: the GEMM's Triton peers). Runs on the device host, with the
witness machinery (tests/witness: each case runs once on the H200 and is compiled for
gfx950 with the same specialization) and AITER's sources (tests/witness/fetch_aiter.sh).

    python3 bench/peers/triton/make_triton_peers.py --out DIR [--only gemm|moe]
        [--layers default|presets] [--add]

--layers presets makes the GEMM peers of the layers gemm_bench --all adds (Qwen3-32B's
decode layers, Qwen3.8's out_proj, DeepSeek-V3's dense MLP) instead of the default six;
--add keeps the cases and MANIFEST.json already in DIR and adds the new ones to them.

Keeps, per case, kernel.hsaco and a launch.json whose inputs are sized buffers without
contents ({"buffer", "out", "bytes"}): `mxforge launch --estimate` counts them (poison
bytes; these kernels' instruction streams do not depend on that data) and keeps no
outputs. The inputs' .npy files (megabytes at these shapes) are deleted, but for the MoE
kernel's sorted routing ids, which steer its work and stay as they were.
"""

import argparse
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
WITNESS = os.path.join(HERE, "..", "..", "..", "tests", "witness")
sys.path.insert(0, WITNESS)

# (N, K) of the GEMM table in docs/estimate.md (gemm_bench's kLayers, whose default set is
# LAYERS and whose --all adds PRESET_LAYERS); m = 1 and 16 (AITER's configs differ).
LAYERS = [(6144, 4096), (4096, 4096), (24576, 4096), (4096, 12288), (4608, 8192), (8448, 7168)]
PRESET_LAYERS = [(10240, 5120), (5120, 8192), (51200, 5120), (5120, 25600), (8192, 2048),
                 (18432, 7168), (7168, 18432)]
ROWS = [1, 16]
# Seed 000's MoE front end: K = 2048, top-8, at its token counts. AITER's fused
# quant + scale sort takes the routing's sorted ids (its moe_sorting kernel's output, not
# counted here), which steer its work: they stay real inputs.
MOE_TOKENS = [1, 4, 32, 256]
MOE_K, MOE_TOPK = 2048, 8
KEPT_INPUTS = {"sorted_ids", "num_valid_ids"}


def strip_inputs(case_dir):
    """The launch's inputs become sized buffers without contents; .npy files go."""
    import numpy as np
    path = os.path.join(case_dir, "launch.json")
    with open(path) as f:
        launch = json.load(f)
    for arg in launch["args"]:
        if "in" in arg and arg["buffer"] not in KEPT_INPUTS:
            nbytes = int(np.load(os.path.join(case_dir, arg["in"]), mmap_mode="r").nbytes)
            arg.pop("in")
            arg["out"] = "unused_%s.npy" % arg["buffer"]
            arg["bytes"] = nbytes
    launch.get("witness", {}).pop("compare", None)
    with open(path, "w") as f:
        json.dump(launch, f, indent=1)
        f.write("\n")
    kept = {arg["in"] for arg in launch["args"] if "in" in arg}
    for name in os.listdir(case_dir):
        if name.endswith(".npy") and name not in kept:
            os.remove(os.path.join(case_dir, name))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", choices=("gemm", "moe"), default=None)
    ap.add_argument("--layers", choices=("default", "presets"), default="default")
    ap.add_argument("--add", action="store_true")
    args = ap.parse_args()
    layers = LAYERS if args.layers == "default" else PRESET_LAYERS
    os.makedirs(args.out, exist_ok=True)
    logf = open(os.path.join(args.out, "make.log"), "a" if args.add else "w")

    def log(msg):
        print(msg, flush=True)
        logf.write(msg + "\n")
        logf.flush()

    import torch
    import triton
    import witness_lib
    import kernels_aiter as ka
    log("triton %s, torch %s, gpu %s, AITER %s" % (triton.__version__, torch.__version__,
                                                   torch.cuda.get_device_name(), ka.aiter_commit()))
    K = ka._kernels()
    builders = []
    for tokens in MOE_TOKENS if args.only != "gemm" else []:
        builders.append(("moe_sort_t%d" % tokens,
                         lambda t=tokens: ka.moe_sort_case(
                             K, "peer_mxfp4_quant_moe_sort_t%d_k%d_n%d" % (t, MOE_TOPK, MOE_K), t,
                             MOE_TOPK, MOE_K, 7)))
    for m in ROWS if args.only != "moe" else []:
        for n, k in layers:
            builders.append(("afp4wfp4_m%d_n%d_k%d" % (m, n, k),
                             lambda m=m, n=n, k=k: ka.afp4wfp4_cases(K, m, n, k, 7, "peer_afp4wfp4")))
            builders.append(("a16wfp4_m%d_n%d_k%d" % (m, n, k),
                             lambda m=m, n=n, k=k: ka.a16wfp4_case(K, m, n, k, 7)))
        for k in sorted({k for _, k in layers}):
            builders.append(("quant_m%d_k%d" % (m, k),
                             lambda m=m, k=k: ka.quant_case(K, "peer_dynamic_mxfp4_quant_m%d_k%d" % (m, k),
                                                            m, k, 7)))
    manifest = {"aiter_commit": ka.aiter_commit(), "triton": triton.__version__, "cases": [],
                "failed": {}}
    manifest_path = os.path.join(args.out, "MANIFEST.json")
    if args.add and os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
        if (manifest["aiter_commit"], manifest["triton"]) != (ka.aiter_commit(), triton.__version__):
            raise SystemExit("%s was made from AITER %s and Triton %s; not adding to it" % (
                manifest_path, manifest["aiter_commit"], manifest["triton"]))
    for label, build in builders:
        try:
            made = build()
        except Exception as e:
            manifest["failed"][label] = "%s: %s" % (type(e).__name__, e)
            log("%s: not built: %s: %s" % (label, type(e).__name__, e))
            continue
        for case in made if isinstance(made, list) else [made]:
            log("%s -> %s" % (label, case.name))
            launch, error = witness_lib.safe_build(case, args.out, log)
            if error:
                manifest["failed"][case.name] = error
                continue
            strip_inputs(os.path.join(args.out, case.name))
            manifest["cases"] = [c for c in manifest["cases"] if c["case"] != case.name]
            manifest["failed"].pop(case.name, None)
            manifest["cases"].append({"case": case.name, "for": label, "kernel": launch["kernel"],
                                      "grid": launch["grid"], "shape": launch["witness"].get("shape"),
                                      "source": launch["witness"].get("source")})
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, default=str)
        f.write("\n")
    log("%d cases, %d failed" % (len(manifest["cases"]), len(manifest["failed"])))


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        sys.exit(1)
