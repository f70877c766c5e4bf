"""Triton matrix kernels written for the witness corpus: tl.dot in f16, bf16 (with tl.trans), f32
(input_precision="ieee"), int8 and fp8, a matmul in the grouped (banded) tile order, and
tl.dot_scaled with MXFP4 (e2m1) and MXFP8 (e4m3) operands and e8m0 scales.

Inputs are small integers (or e2m1 codes of magnitude <= 2 with scales 126..128), so every partial
sum is exact in fp32 and no accumulation order can change a bit.
"""

import torch
import triton
import triton.language as tl

from witness_lib import Case, In, Out
from kernels_aiter import fp4_dequant, narrow_scales, small_fp4_codes

SRC = "written for the corpus (standard Triton idioms): tests/witness/kernels_dot.py %s"


def _eq(a, b):
    return bool(torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8)))


def _report(pairs):
    bad = [n for n, ok in pairs if not ok]
    return (not bad), ("all outputs equal the exact reference" if not bad else "differ from the reference: %s" % bad)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, ACC_INT: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    if ACC_INT:
        acc = tl.zeros((BM, BN), dtype=tl.int32)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kmask = rk < K - k * BK
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & kmask[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=kmask[:, None] & (rn[None, :] < N), other=0.0)
        if ACC_INT:
            acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        else:
            acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, c, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _ints(g, shape, lo=-4, hi=4):
    return torch.randint(lo, hi + 1, shape, generator=g)


def matmul_case(name, dtype, out_dtype, seed, M=64, N=64, K=64, BM=32, BN=32, BK=32, lo=-4, hi=4, num_warps=4,
                nonkdim=None):
    g = torch.Generator().manual_seed(seed)
    a = _ints(g, (M, K), lo, hi)
    b = _ints(g, (K, N), lo, hi)
    ref = a.double() @ b.double()
    acc_int = dtype == torch.int8
    if acc_int:
        refc = (a.long() @ b.long()).to(out_dtype)
    else:
        refc = ref.float().to(out_dtype)
    at = a.to(dtype) if acc_int else a.to(torch.float32).to(dtype)
    bt = b.to(dtype) if acc_int else b.to(torch.float32).to(dtype)
    return Case(name, matmul_kernel, (triton.cdiv(M, BM), triton.cdiv(N, BN)),
                [In("a", at), In("b", bt), Out("c", (M, N), out_dtype), M, N, K, K, 1, N, 1, N, 1],
                constexprs=dict(BM=BM, BN=BN, BK=BK, ACC_INT=acc_int, num_warps=num_warps),
                # matrix_instr_nonkdim=16 makes the gfx950 compile use the 16x16 MFMA forms
                # (v_mfma_*_16x16x*) where the default picks 32x32 ones.
                hip_options=dict(matrix_instr_nonkdim=nonkdim) if nonkdim else None,
                source=SRC % ("matmul_kernel (tl.dot %s x %s -> %s accumulate, K loop with masks)" %
                              (str(dtype).replace("torch.", ""), str(dtype).replace("torch.", ""),
                               "int32" if acc_int else "f32")),
                shape=dict(M=M, N=N, K=K, tile=[BM, BN, BK], values="integers in [%d, %d]" % (lo, hi),
                           out=str(out_dtype).replace("torch.", "")),
                check=lambda after: _report([("c", _eq(after["c"], refc))]))


@triton.jit
def dot_trans_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # C = A @ B^T with B stored [N, K] row-major (as in attention's Q @ K^T)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + rn[:, None] * K + (k + rk)[None, :])
        acc += tl.dot(a, tl.trans(b))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))


def dot_trans_case():
    g = torch.Generator().manual_seed(31)
    M, N, K = 32, 64, 128
    a = _ints(g, (M, K))
    b = _ints(g, (N, K))
    ref = (a.double() @ b.double().T).float().to(torch.bfloat16)
    return Case("dot_bf16_trans_b", dot_trans_kernel, (M // 32, N // 32),
                [In("a", a.to(torch.bfloat16)), In("b", b.to(torch.bfloat16)), Out("c", (M, N), torch.bfloat16),
                 M, N, K],
                constexprs=dict(BM=32, BN=32, BK=64),
                source=SRC % "dot_trans_kernel (tl.dot(a, tl.trans(b)) in bf16, f32 accumulate, bf16 store)",
                shape=dict(M=M, N=N, K=K, b="[N, K] row-major"),
                check=lambda after: _report([("c", _eq(after["c"], ref))]))


@triton.jit
def grouped_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sa_m, sa_k, sb_k, sb_n, sc_m, sc_n,
                          TM: tl.constexpr, TN: tl.constexpr, TK: tl.constexpr, BAND: tl.constexpr,
                          SLOPE: tl.constexpr):
    # Tiles visited band by band: BAND tile rows at a time, down each column of
    # tiles before the next (the L2-friendly ordering the Triton docs describe),
    # then a leaky ReLU with slope SLOPE and an f16 store. Written for the corpus.
    tile = tl.program_id(0)
    tiles_m = tl.cdiv(M, TM)
    tiles_n = tl.cdiv(N, TN)
    per_band = BAND * tiles_n
    band = tile // per_band
    band_top = band * BAND
    band_rows = tl.minimum(tiles_m - band_top, BAND)
    within = tile - band * per_band
    tm = band_top + within % band_rows
    tn = within // band_rows
    rows = tm * TM + tl.arange(0, TM)
    cols = tn * TN + tl.arange(0, TN)
    ks = tl.arange(0, TK)
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for k0 in range(0, K, TK):
        kk = k0 + ks
        a = tl.load(a_ptr + (rows % M)[:, None] * sa_m + kk[None, :] * sa_k, mask=kk[None, :] < K, other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sb_k + (cols % N)[None, :] * sb_n, mask=kk[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
    acc = tl.where(acc < 0, acc * SLOPE, acc)
    keep = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(c_ptr + rows[:, None] * sc_m + cols[None, :] * sc_n, acc.to(tl.float16), mask=keep)


def grouped_matmul_case():
    g = torch.Generator().manual_seed(32)
    M, N, K = 96, 64, 80
    a = _ints(g, (M, K))
    b = _ints(g, (K, N))
    acc = (a.double() @ b.double()).float()
    ref = torch.where(acc >= 0, acc, acc * torch.tensor(0.01, dtype=torch.float32)).to(torch.float16)
    BM, BN, BK = 32, 32, 32
    return Case("matmul_grouped_leaky_relu", grouped_matmul_kernel, (triton.cdiv(M, BM) * triton.cdiv(N, BN),),
                [In("a", a.to(torch.float16)), In("b", b.to(torch.float16)), Out("c", (M, N), torch.float16),
                 M, N, K, K, 1, N, 1, N, 1],
                constexprs=dict(TM=BM, TN=BN, TK=BK, BAND=2, SLOPE=0.01, num_warps=4),
                source="written for the corpus (tests/witness/kernels_dot.py): a tiled matmul in the grouped "
                       "(banded) tile order the Triton docs describe, with a leaky ReLU epilogue",
                shape=dict(M=M, N=N, K=K, tile=[BM, BN, BK], BAND=2, ragged="K (80 = 2.5 tiles)"),
                check=lambda after: _report([("c", _eq(after["c"], ref))]),
                notes="0.01 * x is one correctly rounded f32 multiply (no add to contract with); f32 -> f16 is "
                      "round-to-nearest-even on both machines")


@triton.jit
def dot_scaled_kernel(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_asm, stride_bsn,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, FMT: tl.constexpr, PACK: tl.constexpr):
    # A [M, K/PACK] (PACK = 2 for e2m1 pairs along K), B [K/PACK, N], scales [M, K/32] and [N, K/32]
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK // PACK)
    rs = tl.arange(0, BK // 32)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K // BK):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k * (BK // PACK) + rk)[None, :])
        b = tl.load(b_ptr + (k * (BK // PACK) + rk)[:, None] * stride_bk + rn[None, :])
        sa = tl.load(as_ptr + rm[:, None] * stride_asm + (k * (BK // 32) + rs)[None, :])
        sb = tl.load(bs_ptr + rn[:, None] * stride_bsn + (k * (BK // 32) + rs)[None, :])
        acc = tl.dot_scaled(a, sa, FMT, b, sb, FMT, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def dot_scaled_mxfp4_case():
    g = torch.Generator().manual_seed(33)
    M, N, K = 64, 64, 256
    a = small_fp4_codes(g, M, K // 2)           # [M, K/2], pairs along K
    bT = small_fp4_codes(g, N, K // 2)          # [N, K/2]; B = bT^T is [K/2, N]
    b = bT.T.contiguous()
    sa = narrow_scales(g, M, K // 32)
    sb = narrow_scales(g, N, K // 32)
    ref = (fp4_dequant(a, sa) @ fp4_dequant(bT, sb).T).float()
    return Case("dot_scaled_mxfp4_e2m1", dot_scaled_kernel, (M // 32, N // 32),
                [In("a", a), In("a_scale", sa), In("b", b), In("b_scale", sb), Out("c", (M, N), torch.float32),
                 M, N, K, K // 2, N, K // 32, K // 32],
                constexprs=dict(BM=32, BN=32, BK=128, FMT="e2m1", PACK=2),
                source=SRC % "dot_scaled_kernel (tl.dot_scaled e2m1 x e2m1 with e8m0 scales, f32 accumulate)",
                shape=dict(M=M, N=N, K=K, a="fp4x2 u8[%d,%d]" % (M, K // 2), b="fp4x2 u8[%d,%d] (K-packed)" % (K // 2, N),
                           scales="u8 126..128", codes="|e2m1| <= 2"),
                check=lambda after: _report([("c", _eq(after["c"], ref))]),
                notes="native scaled MFMA on gfx950, decomposed on sm_90: exact partial sums make both equal")


def dot_scaled_mxfp8_case():
    g = torch.Generator().manual_seed(34)
    M, N, K = 32, 64, 256
    a = torch.randint(-8, 9, (M, K), generator=g).float() * 0.5
    b = torch.randint(-8, 9, (K, N), generator=g).float() * 0.5
    sa = narrow_scales(g, M, K // 32)
    sb = narrow_scales(g, N, K // 32)
    A = a.double() * torch.exp2(sa.double() - 127).repeat_interleave(32, 1)
    B = b.double() * torch.exp2(sb.double() - 127).repeat_interleave(32, 1).T
    ref = (A @ B).float()
    return Case("dot_scaled_mxfp8_e4m3", dot_scaled_kernel, (M // 32, N // 32),
                [In("a", a.to(torch.float8_e4m3fn)), In("a_scale", sa), In("b", b.to(torch.float8_e4m3fn)),
                 In("b_scale", sb), Out("c", (M, N), torch.float32), M, N, K, K, N, K // 32, K // 32],
                constexprs=dict(BM=32, BN=32, BK=128, FMT="e4m3", PACK=1),
                source=SRC % "dot_scaled_kernel (tl.dot_scaled e4m3 x e4m3 with e8m0 scales, f32 accumulate)",
                shape=dict(M=M, N=N, K=K, values="multiples of 0.5 in [-4, 4]", scales="u8 126..128"),
                check=lambda after: _report([("c", _eq(after["c"], ref))]))


def cases():
    """Zero-argument builders, one a case (the generator builds each on its own)."""
    import functools
    P = functools.partial
    return [
        P(matmul_case, "dot_f16_f32acc", torch.float16, torch.float32, 21),
        P(matmul_case, "dot_f32_ieee", torch.float32, torch.float32, 22, M=48, N=32, K=40, BM=16, BN=32, BK=16),
        P(matmul_case, "dot_i8_i32acc", torch.int8, torch.int32, 23, K=128, BK=64, lo=-100, hi=100),
        lambda: matmul_case("dot_fp8e4nv_f32acc", torch.float8_e4m3fn, torch.float32, 24, K=64, BK=32),
        P(matmul_case, "dot_bf16_ragged_mnk", torch.bfloat16, torch.float32, 25, M=40, N=72, K=50, BM=32, BN=32, BK=32),
        # The same kernel on the 16x16 MFMA shapes (HIP option matrix_instr_nonkdim=16).
        P(matmul_case, "dot_bf16_mfma16", torch.bfloat16, torch.float32, 26, nonkdim=16),
        P(matmul_case, "dot_f16_mfma16", torch.float16, torch.float32, 27, nonkdim=16),
        P(matmul_case, "dot_i8_mfma16", torch.int8, torch.int32, 28, K=128, BK=64, lo=-100, hi=100, nonkdim=16),
        lambda: matmul_case("dot_fp8e4nv_mfma16", torch.float8_e4m3fn, torch.float32, 29, K=64, BK=32,
                            nonkdim=16),
        dot_trans_case,
        grouped_matmul_case,
        dot_scaled_mxfp4_case,
        dot_scaled_mxfp8_case,
    ]
