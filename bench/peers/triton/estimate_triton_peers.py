#!/usr/bin/env python3
"""The MI355X model's estimates of AITER's Triton MXFP4 kernels at our decode shapes
(bench/peers/triton/cases, made by make_triton_peers.py on the device host), through the
same emulator and model as ours: `mxforge launch --estimate` of each case, then per layer
and m the A4W4 pipeline AITER runs (its activation quantization _dynamic_mxfp4_quant_kernel,
then _gemm_afp4wfp4_kernel, then its split-K reduction where the config splits K: each a
launch with the model's fixed time) and the bf16-activation GEMM _gemm_a16wfp4_kernel.
Then seed 000's MoE front end: AITER's fused activation quantization + scale sort
(_fused_dynamic_mxfp4_quant_moe_sort_kernel, whose sorted ids come from its separate
moe_sorting kernel, not counted) beside our rotate_quant_moe, which sorts too, run in the same
invocation through `mxforge bench` (every output byte checked on the emulator).

    /usr/bin/python3 bench/peers/triton/estimate_triton_peers.py [MXFORGE_CLI]
        [--ours GEMM_BENCH_OUTPUT]

Prints a markdown table (estimates, not measurements). Nothing is asserted. With --ours, the
saved output of `gemm_bench --all` (the same emulator and model; it emulates one column group
of our GEMMs, where `mxforge bench` would emulate and check the whole grid), the table puts our
fused A4W4 and W6A16 GEMMs beside AITER's at each layer and m, with their ratios.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Seed 000's MoE path (K=2048, RS=128 Hadamard, top-8 of 128) in our spec language.
OUR_MOE_SPEC = "rotate_quant_moe:K=2048,RS=128,rot=hadamard,M=256,topk=8,E=128,block=32"
CASES = os.path.join(HERE, "cases")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def estimate(cli, case):
    out = subprocess.run([cli, "launch", os.path.join(CASES, case, "launch.json"), "--estimate"],
                         capture_output=True, text=True, check=True).stdout
    found = re.search(r"estimate\s+([0-9.]+) us \((\w+)-bound\)", out)
    return float(found.group(1)), found.group(2)


def our_gemm_estimates(path):
    """{(n, k, m, kernel): estimate us} of the fused and w6a16 rows of gemm_bench's output."""
    ours = {}
    row = re.compile(r"(\d+)x(\d+)\s+(\d+)\s+(fused|w6a16)\s+(.*)$")
    with open(path) as f:
        for line in f:
            found = row.search(line)
            if found:
                n, k, m = (int(g) for g in found.groups()[:3])
                # W MB, B/load, KiB/CU, WGs, wave-instr, lat., floor, memory, issue, estimate
                ours[(n, k, m, found.group(4))] = float(found.group(5).split()[9])
    if not ours:
        raise SystemExit("%s: no fused or w6a16 rows of gemm_bench's table" % path)
    return ours


def ratio_cell(ours, peer):
    return ("%.2f | %.2f" % (ours, ours / peer)) if ours is not None else "- | -"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cli", nargs="?", metavar="MXFORGE_CLI",
                        default=os.path.join(ROOT, "build", "tools", "mxforge", "mxforge"))
    parser.add_argument("--ours", metavar="GEMM_BENCH_OUTPUT",
                        help="the saved output of gemm_bench --all")
    args = parser.parse_args(argv[1:])
    ours = our_gemm_estimates(args.ours) if args.ours else {}
    cli = args.cli
    with open(os.path.join(CASES, "MANIFEST.json")) as f:
        manifest = json.load(f)
    est = {}
    for entry in manifest["cases"]:
        est[entry["case"]] = estimate(cli, entry["case"])
        print("# %-45s %7.2f us (%s)" % (entry["case"], *est[entry["case"]]), flush=True)
    # The split-K reduction each GEMM launches, by the GEMM it follows (two layers of one N
    # may split K differently: 5120x8192 in 4, 5120x25600 in 2).
    reduce_of = {entry["for"]: est[entry["case"]] for entry in manifest["cases"]
                 if entry["case"].startswith("aiter_splitk_reduce_")}
    print("\n| N x K | m | AITER quant | afp4wfp4 GEMM | split-K reduce | A4W4 pipeline | "
          "ours fused A4W4 | ours / pipeline | a16wfp4 | ours W6A16 | ours / a16wfp4 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for entry in manifest["cases"]:
        match = re.fullmatch(r"peer_afp4wfp4_m(\d+)_n(\d+)_k(\d+)", entry["case"])
        if not match:
            continue
        m, n, k = (int(g) for g in match.groups())
        quant = est["peer_dynamic_mxfp4_quant_m%d_k%d" % (m, k)][0]
        gemm = est[entry["case"]]
        reduce = reduce_of.get("afp4wfp4_m%d_n%d_k%d" % (m, n, k))
        a16 = est["aiter_gemm_a16wfp4_m%d_n%d_k%d" % (m, n, k)]
        total = quant + gemm[0] + (reduce[0] if reduce else 0)
        print("| %dx%d | %d | %.2f | %.2f (%s) | %s | **%.2f** | %s | %.2f (%s) | %s |" % (
            n, k, m, quant, gemm[0], gemm[1], "%.2f" % reduce[0] if reduce else "-", total,
            ratio_cell(ours.get((n, k, m, "fused")), total), a16[0], a16[1],
            ratio_cell(ours.get((n, k, m, "w6a16")), a16[0])))

    moe_case = re.compile(r"peer_mxfp4_quant_moe_sort_t(\d+)_k8_n2048")
    moe = sorted((int(found.group(1)), case) for case in est
                 for found in [moe_case.fullmatch(case)] if found)
    if moe:
        ours = our_moe_estimates(cli, [t for t, _ in moe])
        print("\n| tokens | AITER fused quant + scale sort (its moe_sorting not counted) | "
              "ours: rotate_quant_moe, sort included | ratio |")
        print("|---|---|---|---|")
        for tokens, case in moe:
            peer = est[case]
            print("| %d | %.2f (%s) | %.2f | %.2f |" % (tokens, peer[0], peer[1], ours[tokens],
                                                       ours[tokens] / peer[0]))


def our_moe_estimates(cli, tokens):
    """{m: estimate us} of our MoE front end at seed 000's shapes (mxforge bench --json)."""
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "bench.json")
        subprocess.run([cli, "bench", "--spec", OUR_MOE_SPEC, "--m", ",".join(map(str, tokens)),
                        "--device", "emu", "--json", path], capture_output=True, check=True)
        with open(path) as f:
            rows = json.load(f)
    for row in rows:
        if row["check"] != "ok":
            raise SystemExit("our %s at m=%d: %s" % (row["spec"], row["m"], row["check"]))
    return {row["m"]: row["estimate_us"] for row in rows}


if __name__ == "__main__":
    sys.exit(main(sys.argv))
