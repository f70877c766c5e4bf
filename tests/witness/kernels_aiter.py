"""AITER's Triton MXFP4 kernels (ROCm/aiter), imported from a carried copy of their sources.

The sources are not in this repository: `tests/witness/fetch_aiter.sh` extracts the few files
these cases need from a git checkout of ROCm/aiter into tests/witness/.aiter_src/ (ignored by
git), which travels to the device host. The `aiter` package itself is never imported (its
__init__ loads compiled HIP extensions): the package modules are stubbed here, the kernel files
are loaded as they are, and AITER's gfx950 GEMM configs are read from the same copy.

Every launch below repeats what AITER's Python wrapper does for that shape (grid, strides,
constexprs, the gfx950 config); the inputs make the math exact on both machines
(tests/witness/README.md, "Exactness").
"""

import json
import os
import sys
import types

import torch
import triton

from witness_lib import Case, In, Out

HERE = os.path.dirname(os.path.abspath(__file__))
AITER_SRC = os.environ.get("AITER_SRC", os.path.join(HERE, ".aiter_src"))
_PKGS = [
    "aiter", "aiter.ops", "aiter.ops.triton", "aiter.ops.triton._triton_kernels",
    "aiter.ops.triton._triton_kernels.quant", "aiter.ops.triton._triton_kernels.gemm",
    "aiter.ops.triton._triton_kernels.gemm.basic", "aiter.ops.triton._triton_kernels.common",
    "aiter.ops.triton.utils", "aiter.ops.triton.utils._triton",
]


def aiter_commit():
    p = os.path.join(AITER_SRC, "COMMIT")
    return open(p).read().strip() if os.path.exists(p) else None


def _install_aiter_stubs():
    if "aiter" in sys.modules and getattr(sys.modules["aiter"], "__witness_stub__", False):
        return
    if not os.path.isdir(os.path.join(AITER_SRC, "aiter")):
        raise RuntimeError("AITER sources not found at %s (run tests/witness/fetch_aiter.sh)" % AITER_SRC)
    for name in _PKGS:
        m = types.ModuleType(name)
        m.__path__ = [os.path.join(AITER_SRC, *name.split("."))]
        m.__package__ = name
        m.__witness_stub__ = True
        sys.modules[name] = m
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, m)
    # the arch query, fixed to gfx950
    arch = types.ModuleType("aiter.ops.triton.utils._triton.arch_info")
    arch.get_arch = lambda: "gfx950"
    arch.is_fp4_avail = lambda: True
    sys.modules[arch.__name__] = arch
    # the config loader is replaced by gfx950_config below (the kernels only import its name)
    cfg = types.ModuleType("aiter.ops.triton.utils.gemm_config_utils")

    def get_gemm_config(*a, **k):
        raise RuntimeError("not used by the witness corpus")
    cfg.get_gemm_config = get_gemm_config
    sys.modules[cfg.__name__] = cfg


def _kernels():
    _install_aiter_stubs()
    import importlib
    q = importlib.import_module("aiter.ops.triton._triton_kernels.quant.quant")
    fq = importlib.import_module("aiter.ops.triton._triton_kernels.quant.fused_mxfp4_quant")
    g4 = importlib.import_module("aiter.ops.triton._triton_kernels.gemm.basic.gemm_afp4wfp4")
    g16 = importlib.import_module("aiter.ops.triton._triton_kernels.gemm.basic.gemm_a16wfp4")
    red = importlib.import_module("aiter.ops.triton._triton_kernels.common.splitk_reduce")
    return types.SimpleNamespace(
        quant=q._dynamic_mxfp4_quant_kernel,
        moe_sort=fq._fused_dynamic_mxfp4_quant_moe_sort_kernel,
        afp4wfp4=g4._gemm_afp4wfp4_kernel,
        a16wfp4=g16._gemm_a16wfp4_kernel,
        splitk_reduce=red._gemm_splitk_reduce_kernel,
    )


# ----------------------------------------------------------------------------- AITER's configs

STANDARD_M_BOUNDS = (1, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)


def gfx950_config(config_name, M, N, K):
    """AITER's gemm_config_utils lookup for gfx950 (K in elements): nested
    configs/gfx950/triton/gemm/<name>/ first, then the legacy flat configs/gemm/gfx950-<NAME>;
    a specialized N=..-K=.. file wins over the default; then the first M_LEQ_x bound >= M."""
    root = os.path.join(AITER_SRC, "aiter", "ops", "triton", "configs")
    nested = os.path.join(root, "gfx950", "triton", "gemm", config_name.lower().replace("-", "_"))
    if os.path.exists(os.path.join(nested, "DEFAULT.json")):
        default = os.path.join(nested, "DEFAULT.json")
        special = os.path.join(nested, "%s-N=%d-K=%d.json" % (config_name, N, K))
    else:
        default = os.path.join(root, "gemm", "gfx950-%s.json" % config_name)
        special = os.path.join(root, "gemm", "gfx950-%s-N=%d-K=%d.json" % (config_name, N, K))
    path = special if os.path.exists(special) else default
    with open(path) as f:
        d = json.load(f)
    for b in STANDARD_M_BOUNDS:
        if M <= b and "M_LEQ_%d" % b in d:
            return dict(d["M_LEQ_%d" % b]), os.path.relpath(path, AITER_SRC)
    for b in reversed(STANDARD_M_BOUNDS):
        if M >= b and "M_GEQ_%d" % b in d:
            return dict(d["M_GEQ_%d" % b]), os.path.relpath(path, AITER_SRC)
    return dict(d["any"]), os.path.relpath(path, AITER_SRC)


def get_splitk(K, BLOCK_SIZE_K, NUM_KSPLIT):
    """AITER's split-K sizing (gemm_afp4wfp4.py's get_splitk), K in packed bytes."""
    SPLITK_BLOCK_SIZE = triton.cdiv((2 * triton.cdiv(K, NUM_KSPLIT)), BLOCK_SIZE_K) * BLOCK_SIZE_K
    while NUM_KSPLIT > 1 and BLOCK_SIZE_K > 16:
        if (K % (SPLITK_BLOCK_SIZE // 2) == 0 and SPLITK_BLOCK_SIZE % BLOCK_SIZE_K == 0
                and K % (BLOCK_SIZE_K // 2) == 0):
            break
        elif K % (SPLITK_BLOCK_SIZE // 2) != 0 and NUM_KSPLIT > 1:
            NUM_KSPLIT = NUM_KSPLIT // 2
        elif SPLITK_BLOCK_SIZE % BLOCK_SIZE_K != 0:
            if NUM_KSPLIT > 1:
                NUM_KSPLIT = NUM_KSPLIT // 2
            elif BLOCK_SIZE_K > 16:
                BLOCK_SIZE_K = BLOCK_SIZE_K // 2
        elif K % (BLOCK_SIZE_K // 2) != 0 and BLOCK_SIZE_K > 16:
            BLOCK_SIZE_K = BLOCK_SIZE_K // 2
        else:
            break
        SPLITK_BLOCK_SIZE = triton.cdiv((2 * triton.cdiv(K, NUM_KSPLIT)), BLOCK_SIZE_K) * BLOCK_SIZE_K
    NUM_KSPLIT = triton.cdiv(K, (SPLITK_BLOCK_SIZE // 2))
    return SPLITK_BLOCK_SIZE, BLOCK_SIZE_K, NUM_KSPLIT


# ----------------------------------------------------------------------------- exact inputs

E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def bf16_blocks(g, M, N, nonzero=False, smax=3):
    """bf16 [M, N]: each 32-block has an exponent s in 0..smax and amax in [4, 8) * 2^s, so AITER's
    e8m0 scale (floor(log2(amax rounded to a power of two)) - 2) is >= 0: no negative float->uint8.
    Other elements are arbitrary bf16 magnitudes in [2^-4, 8) * 2^s (zeros too unless nonzero)."""
    nb = N // 32
    s = torch.randint(0, smax + 1, (M, nb, 1), generator=g).float()
    mag = torch.exp2(torch.rand((M, nb, 32), generator=g) * 7.0 - 4.0)  # [2^-4, 2^3)
    mag = mag.clamp(max=7.9)
    lead = 4.0 + torch.rand((M, nb), generator=g) * 3.9                # [4, 7.9]
    j = torch.randint(0, 32, (M, nb), generator=g)
    mag.scatter_(2, j.unsqueeze(2), lead.unsqueeze(2))
    if not nonzero:
        zero = torch.rand((M, nb, 32), generator=g) < 0.05
        zero.scatter_(2, j.unsqueeze(2), False)
        mag = torch.where(zero, torch.zeros_like(mag), mag)
    sign = torch.where(torch.rand((M, nb, 32), generator=g) < 0.5, -1.0, 1.0)
    x = (sign * mag * torch.exp2(s)).reshape(M, N)
    return x.to(torch.bfloat16)


def e2m1_grid_bf16(g, M, N, smax=1):
    """bf16 [M, N] of e2m1 grid values * 2^s per 32-block (s in 0..smax), amax exactly 4 or 6 * 2^s:
    AITER's in-kernel MXFP4 quantization of these is exact (scale = s, codes = the grid values)."""
    nb = N // 32
    s = torch.randint(0, smax + 1, (M, nb, 1), generator=g).float()
    idx = torch.randint(0, 8, (M, nb, 32), generator=g)
    grid = torch.tensor(E2M1)
    mag = grid[idx]
    j = torch.randint(0, 32, (M, nb), generator=g)
    lead = torch.where(torch.rand((M, nb), generator=g) < 0.5, 4.0, 6.0)
    mag.scatter_(2, j.unsqueeze(2), lead.unsqueeze(2))
    sign = torch.where(torch.rand((M, nb, 32), generator=g) < 0.5, -1.0, 1.0)
    return (sign * mag * torch.exp2(s)).reshape(M, N).to(torch.bfloat16)


def small_fp4_codes(g, rows, kbytes, maxcode=4):
    """uint8 [rows, kbytes]: two e2m1 codes a byte, magnitudes <= E2M1[maxcode] (2.0), either sign."""
    lo = torch.randint(0, maxcode + 1, (rows, kbytes), generator=g) | (torch.randint(0, 2, (rows, kbytes), generator=g) << 3)
    hi = torch.randint(0, maxcode + 1, (rows, kbytes), generator=g) | (torch.randint(0, 2, (rows, kbytes), generator=g) << 3)
    return (lo | (hi << 4)).to(torch.uint8)


def narrow_scales(g, rows, nblocks, lo=126, hi=128):
    return torch.randint(lo, hi + 1, (rows, nblocks), generator=g).to(torch.uint8)


def fp4_dequant(packed, scales):
    """float64 [rows, 2*kbytes] of packed e2m1 codes (low nibble first) times 2^(scale-127) per 32."""
    p = packed.to(torch.int64)
    codes = torch.stack([p & 0xF, p >> 4], dim=-1).reshape(p.shape[0], -1)
    grid = torch.tensor(E2M1, dtype=torch.float64)
    v = grid[codes & 7] * torch.where((codes & 8) != 0, -1.0, 1.0).to(torch.float64)
    sc = torch.exp2(scales.to(torch.float64) - 127.0).repeat_interleave(32, dim=1)
    return v * sc


def _bits_equal(a, b):
    a = a.contiguous().view(torch.uint8)
    b = b.contiguous().view(torch.uint8)
    return bool(torch.equal(a, b))


def e8m0_expected(x_bf16):
    """AITER's e8m0 scale byte per 32-block, computed exactly (amax rounded to a power of two
    with the +0x200000 bit trick, floor(log2) - 2, + 127)."""
    x = x_bf16.float().abs().reshape(x_bf16.shape[0], -1, 32).amax(dim=-1)
    bits = x.view(torch.int32).to(torch.int64)
    bits = (bits + 0x200000) & 0xFF800000
    e = ((bits >> 23) & 0xFF) - 127
    return (e - 2 + 127).to(torch.uint8)


# ----------------------------------------------------------------------------- cases

SRC = "AITER (ROCm/aiter) %s, %s"


def quant_case(K, name, M, N, seed):
    g = torch.Generator().manual_seed(seed)
    x = bf16_blocks(g, M, N)
    MXFP4_QUANT_BLOCK_SIZE = 32
    # the wrapper's choices (aiter/ops/triton/quant/quant.py, dynamic_mxfp4_quant)
    if M <= 32:
        NUM_ITER, BLOCK_SIZE_M, BLOCK_SIZE_N, NUM_WARPS, NUM_STAGES = 1, triton.next_power_of_2(M), 32, 1, 1
    else:
        NUM_ITER, BLOCK_SIZE_M, BLOCK_SIZE_N, NUM_WARPS, NUM_STAGES = 4, 64, 64, 4, 2
        if N <= 16384:
            BLOCK_SIZE_M, BLOCK_SIZE_N = 32, 128
    if N <= 1024:
        NUM_ITER, NUM_STAGES, NUM_WARPS = 1, 1, 4
        BLOCK_SIZE_N = max(32, min(256, triton.next_power_of_2(N)))
        BLOCK_SIZE_M = min(8, triton.next_power_of_2(M))
    grid = (triton.cdiv(M, BLOCK_SIZE_M), triton.cdiv(N, BLOCK_SIZE_N * NUM_ITER))
    nbs = (N + 31) // 32
    # x_fp4 [M, N/2]; blockscale_e8m0 = empty((N/32, M)).T, strides (1, M)
    args = [In("x", x), Out("x_fp4", (M, N // 2), torch.uint8), Out("bs", (nbs, M), torch.uint8, view=lambda b: b.T),
            N, 1, N // 2, 1, 1, M, M, N]
    # strides: x (N, 1), x_fp4 (N/2, 1), bs.T (1, M); then M, N

    def check(after):
        exp = e8m0_expected(x)
        got = after["bs"].T
        ok = torch.equal(got.contiguous(), exp)
        return ok, "e8m0 scales %s the exact AITER rule" % ("match" if ok else "DIFFER from")
    return Case(
        name, K.quant, grid, args,
        constexprs=dict(BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N, NUM_ITER=NUM_ITER,
                        NUM_STAGES=NUM_STAGES, MXFP4_QUANT_BLOCK_SIZE=MXFP4_QUANT_BLOCK_SIZE, SCALING_MODE=0,
                        num_warps=NUM_WARPS, num_stages=1),
        hip_options=dict(waves_per_eu=0),
        source=SRC % ("_dynamic_mxfp4_quant_kernel", "aiter/ops/triton/_triton_kernels/quant/quant.py; launch as "
                      "aiter/ops/triton/quant/quant.py dynamic_mxfp4_quant"),
        shape=dict(M=M, N=N, x="bf16[%d,%d]" % (M, N), x_fp4="u8[%d,%d]" % (M, N // 2),
                   blockscale="u8[%d,%d] (transposed view of [%d,%d])" % (M, nbs, nbs, M)),
        check=check,
        notes="every 32-block's amax is in [4, 8) * 2^s (s >= 0): the e8m0 conversion never sees a negative "
              "exponent (fptoui poison)")


def moe_sort_case(K, name, token_num, topk, N, seed):
    g = torch.Generator().manual_seed(seed)
    Mx = token_num * topk
    x = bf16_blocks(g, Mx, N, nonzero=True)
    MXFP4_QUANT_BLOCK_SIZE = 32
    scaleN = triton.cdiv(N, MXFP4_QUANT_BLOCK_SIZE)
    BLOCK_SIZE_Mx = 32 if Mx <= 32 else 128
    BLOCK_SIZE_M, BLOCK_SIZE_N = 32, 8
    BLOCK_SIZE_M_u32, BLOCK_SIZE_N_u32 = 16, 4
    N_i = scaleN
    # sorted ids: every (token, slot) pair, then repeats, in a fixed shuffled order; all valid
    pairs = [(k << 24) | t for t in range(token_num) for k in range(topk)]
    M_o = triton.cdiv(len(pairs), BLOCK_SIZE_M) * BLOCK_SIZE_M
    perm = torch.randperm(len(pairs), generator=g).tolist()
    ids = [pairs[i] for i in perm]
    while len(ids) < M_o:
        ids.append(pairs[torch.randint(0, len(pairs), (1,), generator=g).item()])
    sorted_ids = torch.tensor(ids, dtype=torch.int32)
    num_valid = torch.tensor([M_o], dtype=torch.int32)
    bshape = (triton.cdiv(M_o, BLOCK_SIZE_M), triton.cdiv(N_i, BLOCK_SIZE_N), BLOCK_SIZE_N_u32, BLOCK_SIZE_M_u32, 4)
    st = torch.empty(bshape).stride()
    num_pid = triton.cdiv(Mx, BLOCK_SIZE_Mx) * scaleN + triton.cdiv(M_o, BLOCK_SIZE_M) * triton.cdiv(N_i, BLOCK_SIZE_N)
    args = [In("x", x), Out("x_fp4", (Mx, N // 2), torch.uint8), In("sorted_ids", sorted_ids),
            In("num_valid_ids", num_valid), Out("bs_sorted", bshape, torch.uint8),
            Mx, N, scaleN, N, 1, N // 2, 1, *st, token_num, N_i]

    def check(after):
        # the sorted scales, gathered back: row r of the sorted order, column block c
        exp = e8m0_expected(x)                       # [Mx, scaleN]
        rows = []
        for sid in ids:
            t, k = sid & 0xFFFFFF, sid >> 24
            rows.append(exp[t * topk + k] if topk > 1 else exp[t])
        exp_sorted = torch.stack(rows)               # [M_o, scaleN]
        got = after["bs_sorted"]
        # layout: (m_blk, n_blk, n4, m16, 4) with element (m, n) at m_blk=m//32, n_blk=n//8,
        # the kernel's permute(1,3,2,0): m16 = m%16, n4 = n%4, last = (n//4)%2*2 + (m//16)%2
        bad = 0
        for m in range(M_o):
            for n in range(scaleN):
                v = got[m // 32, n // 8, n % 4, m % 16, ((n % 8) // 4) * 2 + (m % 32) // 16]
                bad += int(v.item() != exp_sorted[m, n].item())
        return bad == 0, "%d of %d sorted scales differ from the exact AITER rule" % (bad, M_o * scaleN)
    return Case(
        name, K.moe_sort, (num_pid,), args,
        constexprs=dict(MXFP4_QUANT_BLOCK_SIZE=MXFP4_QUANT_BLOCK_SIZE, BLOCK_SIZE_Mx=BLOCK_SIZE_Mx,
                        BLOCK_SIZE_M=BLOCK_SIZE_M // 2, BLOCK_SIZE_N=BLOCK_SIZE_N // 2, TOPK=topk),
        source=SRC % ("_fused_dynamic_mxfp4_quant_moe_sort_kernel", "aiter/ops/triton/_triton_kernels/quant/"
                      "fused_mxfp4_quant.py; launch as aiter/ops/triton/quant/fused_mxfp4_quant.py "
                      "fused_dynamic_mxfp4_quant_moe_sort"),
        shape=dict(token_num=token_num, topk=topk, Mx=Mx, N=N, M_o=M_o, x="bf16[%d,%d]" % (Mx, N),
                   blockscale_sorted="u8%s" % list(bshape)),
        check=check,
        notes="no zero elements (the kernel's e2m1 shift would be >= 32 for them: LLVM poison) and no padding "
              "ids (an all-zero block's scale is a negative float->uint8); every sorted id is valid")


def afp4wfp4_cases(K, M, N, Kel, seed, prefix):
    """_gemm_afp4wfp4_kernel as gemm_afp4wfp4 launches it; with NUM_KSPLIT > 1 also the
    _gemm_splitk_reduce_kernel that follows, as its own case (its input: the exact partials)."""
    g = torch.Generator().manual_seed(seed)
    Kb = Kel // 2
    x = small_fp4_codes(g, M, Kb)
    w = small_fp4_codes(g, N, Kb)
    xs = narrow_scales(g, M, Kel // 32)
    ws = narrow_scales(g, N, Kel // 32)
    config, cfg_path = gfx950_config("GEMM-AFP4WFP4", M, N, 2 * Kb)
    if config["NUM_KSPLIT"] > 1:
        spl, bk, nks = get_splitk(Kb, config["BLOCK_SIZE_K"], config["NUM_KSPLIT"])
        config.update(SPLITK_BLOCK_SIZE=spl, BLOCK_SIZE_K=bk, NUM_KSPLIT=nks)
    if config["BLOCK_SIZE_K"] >= 2 * Kb:
        config.update(BLOCK_SIZE_K=triton.next_power_of_2(2 * Kb), SPLITK_BLOCK_SIZE=2 * Kb, NUM_KSPLIT=1)
    config["BLOCK_SIZE_K"] = max(config["BLOCK_SIZE_K"], 128)
    if config["NUM_KSPLIT"] == 1:
        config["SPLITK_BLOCK_SIZE"] = 2 * Kb
    nks = config["NUM_KSPLIT"]
    grid = (nks * triton.cdiv(M, config["BLOCK_SIZE_M"]) * triton.cdiv(N, config["BLOCK_SIZE_N"]),)
    # exact reference: per split partials in float64 (exact in fp32 for these inputs)
    A = fp4_dequant(x, xs)
    B = fp4_dequant(w, ws)
    spl_el = config["SPLITK_BLOCK_SIZE"]
    parts = []
    for k in range(nks):
        lo, hi = k * spl_el, min(Kel, (k + 1) * spl_el)
        parts.append(A[:, lo:hi] @ B[:, lo:hi].T)
    full = sum(parts)
    if nks > 1:
        c = Out("y_pp", (nks, M, N), torch.float32)
        cstr = (M * N, N, 1)
    else:
        c = Out("y", (M, N), torch.bfloat16)
        cstr = (0, N, 1)
    args = [In("x", x), In("w", w, view=lambda b: b.T), c, In("x_scales", xs), In("w_scales", ws),
            M, N, Kb, Kb, 1, 1, Kb, cstr[0], cstr[1], cstr[2], Kel // 32, 1, Kel // 32, 1]

    def check(after):
        if nks > 1:
            exp = torch.stack([p.to(torch.float32) for p in parts])
            ok = torch.equal(after["y_pp"], exp)
        else:
            exp = full.to(torch.float32).to(torch.bfloat16)
            ok = _bits_equal(after["y"], exp)
        return ok, "H200 result %s the exact float64 product" % ("equals" if ok else "DIFFERS from")
    cex = {k: v for k, v in config.items()}
    shape = dict(M=M, N=N, K=Kel, x="fp4x2 u8[%d,%d]" % (M, Kb), w="fp4x2 u8[%d,%d] passed as w.T" % (N, Kb),
                 x_scales="e8m0 u8[%d,%d]" % (M, Kel // 32), w_scales="e8m0 u8[%d,%d]" % (N, Kel // 32),
                 out=("f32[%d,%d,%d] split-K partials" % (nks, M, N)) if nks > 1 else "bf16[%d,%d]" % (M, N),
                 config=cfg_path, config_values=config)
    cases = [Case(
        "%s_m%d_n%d_k%d" % (prefix, M, N, Kel), K.afp4wfp4, grid, args, constexprs=cex,
        source=SRC % ("_gemm_afp4wfp4_kernel", "aiter/ops/triton/_triton_kernels/gemm/basic/gemm_afp4wfp4.py; "
                      "launch as aiter/ops/triton/gemm/basic/gemm_afp4wfp4.py gemm_afp4wfp4 with the gfx950 "
                      "config"),
        shape=shape, check=check,
        notes="e2m1 codes of magnitude <= 2 and e8m0 scales 126..128: every partial sum is exact in fp32, "
              "so tl.dot_scaled (native on gfx950, decomposed on sm_90) cannot depend on order")]
    if nks > 1:
        RB_M, RB_N = 16, 64
        actual = triton.cdiv(Kb, config["SPLITK_BLOCK_SIZE"] // 2)
        pp = torch.stack([p.to(torch.float32) for p in parts])
        rgrid = (triton.cdiv(M, RB_M), triton.cdiv(N, RB_N))
        rargs = [In("y_pp", pp), Out("y", (M, N), torch.bfloat16), None, M, N, M * N, N, 1, N, 1]

        def rcheck(after):
            exp = full.to(torch.float32).to(torch.bfloat16)
            ok = _bits_equal(after["y"], exp)
            return ok, "H200 result %s the exact float64 sum" % ("equals" if ok else "DIFFERS from")
        cases.append(Case(
            "aiter_splitk_reduce_m%d_n%d_ks%d" % (M, N, nks), K.splitk_reduce, rgrid, rargs,
            constexprs=dict(BLOCK_SIZE_M=RB_M, BLOCK_SIZE_N=RB_N, ACTUAL_KSPLIT=actual,
                            MAX_KSPLIT=triton.next_power_of_2(nks), ADD_BIAS=False, activation="",
                            use_activation=False, KERNEL_NAME="_gemm_afp4wfp4_reduce_kernel"),
            source=SRC % ("_gemm_splitk_reduce_kernel", "aiter/ops/triton/_triton_kernels/common/splitk_reduce.py; "
                          "launch as gemm_afp4wfp4's split-K reduction"),
            shape=dict(M=M, N=N, KSPLIT=nks, y_pp="f32[%d,%d,%d] (exact partials of the %s case)" % (nks, M, N, prefix),
                       y="bf16[%d,%d]" % (M, N)),
            check=rcheck,
            notes="M < BLOCK_SIZE_M: the kernel's rows wrap (offs % M) and lanes store the same value twice"))
    return cases


def a16wfp4_case(K, M, N, Kel, seed):
    g = torch.Generator().manual_seed(seed)
    Kb = Kel // 2
    x = e2m1_grid_bf16(g, M, Kel)
    w = small_fp4_codes(g, N, Kb)
    ws = narrow_scales(g, N, Kel // 32)
    config, cfg_path = gfx950_config("GEMM-A16WFP4", M, N, 2 * Kb)
    if config["NUM_KSPLIT"] > 1:
        spl, bk, nks = get_splitk(Kb, config["BLOCK_SIZE_K"], config["NUM_KSPLIT"])
        config.update(SPLITK_BLOCK_SIZE=spl, BLOCK_SIZE_K=bk, NUM_KSPLIT=nks)
    if config["BLOCK_SIZE_K"] >= 2 * Kb:
        config.update(BLOCK_SIZE_K=triton.next_power_of_2(2 * Kb), SPLITK_BLOCK_SIZE=2 * Kb, NUM_KSPLIT=1)
    config["BLOCK_SIZE_K"] = max(config["BLOCK_SIZE_K"], 64)
    if config["NUM_KSPLIT"] > 1:
        raise RuntimeError("this corpus shape expects NUM_KSPLIT == 1 for a16wfp4")
    config["SPLITK_BLOCK_SIZE"] = 2 * Kb
    grid = (triton.cdiv(M, config["BLOCK_SIZE_M"]) * triton.cdiv(N, config["BLOCK_SIZE_N"]),)
    args = [In("x", x), In("w", w, view=lambda b: b.T), Out("y", (M, N), torch.bfloat16), In("w_scales", ws),
            M, N, Kb, Kel, 1, 1, Kb, 0, N, 1, Kel // 32, 1]
    ref = (x.double() @ fp4_dequant(w, ws).T).to(torch.float32).to(torch.bfloat16)

    def check(after):
        ok = _bits_equal(after["y"], ref)
        return ok, "H200 result %s the exact float64 product" % ("equals" if ok else "DIFFERS from")
    return Case(
        "aiter_gemm_a16wfp4_m%d_n%d_k%d" % (M, N, Kel), K.a16wfp4, grid, args,
        constexprs=dict(config, ATOMIC_ADD=False),
        source=SRC % ("_gemm_a16wfp4_kernel", "aiter/ops/triton/_triton_kernels/gemm/basic/gemm_a16wfp4.py; launch "
                      "as aiter/ops/triton/gemm/basic/gemm_a16wfp4.py gemm_a16wfp4 with the gfx950 config"),
        shape=dict(M=M, N=N, K=Kel, x="bf16[%d,%d]" % (M, Kel), w="fp4x2 u8[%d,%d] passed as w.T" % (N, Kb),
                   w_scales="e8m0 u8[%d,%d]" % (N, Kel // 32), y="bf16[%d,%d]" % (M, N), config=cfg_path,
                   config_values=config),
        check=check,
        notes="x holds e2m1 grid values times 2^s (s in 0..1, amax 4 or 6 * 2^s), so the in-kernel MXFP4 "
              "quantization is exact; w codes <= 2, scales 126..128: all partial sums exact in fp32")


def cases():
    """Zero-argument builders (the generator builds each on its own); a builder may return a list."""
    import functools
    P = functools.partial
    K = _kernels()
    return [
        P(quant_case, K, "aiter_dynamic_mxfp4_quant_m4_n512", 4, 512, 101),
        P(quant_case, K, "aiter_dynamic_mxfp4_quant_m3_n1024", 3, 1024, 102),
        P(quant_case, K, "aiter_dynamic_mxfp4_quant_m16_n2048", 16, 2048, 103),
        P(moe_sort_case, K, "aiter_mxfp4_quant_moe_sort_t8_k2_n256", 8, 2, 256, 111),
        P(moe_sort_case, K, "aiter_mxfp4_quant_moe_sort_t12_k4_n512", 12, 4, 512, 112),
        P(afp4wfp4_cases, K, 4, 256, 1024, 121, "aiter_gemm_afp4wfp4_splitk"),
        P(afp4wfp4_cases, K, 16, 512, 2048, 122, "aiter_gemm_afp4wfp4"),
        P(a16wfp4_case, K, 4, 256, 1024, 131),
        P(a16wfp4_case, K, 8, 512, 512, 132),
    ]
