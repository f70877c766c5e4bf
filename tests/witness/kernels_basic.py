"""Triton kernels written for the witness corpus: reductions, scans, layout changes, integer and
bit operations, conversions, sorting, gathers, histograms and integer atomics.

Standard Triton idioms, written for the corpus; inputs are chosen so the
results are exact on both machines (integers, exactly representable floats).
"""

import torch
import triton
import triton.language as tl

from witness_lib import Case, In, InOut, Out

SRC = "written for the corpus (standard Triton idioms): tests/witness/kernels_basic.py %s"


def _eq(a, b):
    return bool(torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8)))


def _report(pairs):
    bad = [n for n, ok in pairs if not ok]
    return (not bad), ("all outputs equal the CPU reference" if not bad else "differ from the CPU reference: %s" % bad)


# ----------------------------------------------------------------------------- reductions

@triton.jit
def _xor_combine(a, b):
    return a ^ b


@triton.jit
def reduce_int_kernel(x_ptr, sum_ptr, min_ptr, max_ptr, xor_ptr, M, N, stride_m,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask, other=0)
    s = tl.sum(x, axis=1)
    mn = tl.min(tl.where(mask, x, 2147483647), axis=1)
    mx = tl.max(tl.where(mask, x, -2147483647 - 1), axis=1)
    xr = tl.reduce(x, 1, _xor_combine)
    rm = rows < M
    tl.store(sum_ptr + rows, s, mask=rm)
    tl.store(min_ptr + rows, mn, mask=rm)
    tl.store(max_ptr + rows, mx, mask=rm)
    tl.store(xor_ptr + rows, xr, mask=rm)


def reduce_int_case():
    g = torch.Generator().manual_seed(1)
    M, N = 14, 200
    x = torch.randint(-100000, 100000, (M, N), generator=g, dtype=torch.int32)

    def check(after):
        xr = torch.zeros(M, dtype=torch.int64)
        for j in range(N):
            xr ^= x[:, j].to(torch.int64)
        return _report([("sum", _eq(after["sum"], x.sum(1).to(torch.int32))),
                        ("min", _eq(after["min"], x.min(1).values)),
                        ("max", _eq(after["max"], x.max(1).values)),
                        ("xor", _eq(after["xor"], xr.to(torch.int32)))])
    return Case("reduce_int32_rows", reduce_int_kernel, (triton.cdiv(M, 4),),
                [In("x", x), Out("sum", (M,), torch.int32), Out("min", (M,), torch.int32),
                 Out("max", (M,), torch.int32), Out("xor", (M,), torch.int32), M, N, N],
                constexprs=dict(BLOCK_M=4, BLOCK_N=256),
                source=SRC % "reduce_int_kernel (tl.sum, tl.min, tl.max, tl.reduce with an xor combine)",
                shape=dict(x="i32[%d,%d]" % (M, N), BLOCK_M=4, BLOCK_N=256, ragged="M and N"), check=check)


@triton.jit
def reduce_float_kernel(x_ptr, max_ptr, argmax_ptr, min_ptr, argmin_ptr, sum_ptr, M, N, stride_m,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    ptrs = x_ptr + rows[:, None] * stride_m + cols[None, :]
    xmax = tl.load(ptrs, mask=mask, other=-float('inf'))
    xmin = tl.load(ptrs, mask=mask, other=float('inf'))
    rm = rows < M
    tl.store(max_ptr + rows, tl.max(xmax, axis=1), mask=rm)
    tl.store(argmax_ptr + rows, tl.argmax(xmax, axis=1), mask=rm)
    tl.store(min_ptr + rows, tl.min(xmin, axis=1), mask=rm)
    tl.store(argmin_ptr + rows, tl.argmin(xmin, axis=1), mask=rm)
    tl.store(sum_ptr + rows, tl.sum(tl.where(mask, xmax, 0.0), axis=1), mask=rm)


def reduce_float_case():
    g = torch.Generator().manual_seed(2)
    M, N = 10, 300
    x = (torch.randperm(M * N, generator=g).float() * 0.25 - 300.0).reshape(M, N)  # distinct, exact sums

    def check(after):
        return _report([("max", _eq(after["max"], x.max(1).values)),
                        ("argmax", _eq(after["argmax"], x.argmax(1).to(torch.int32))),
                        ("min", _eq(after["min"], x.min(1).values)),
                        ("argmin", _eq(after["argmin"], x.argmin(1).to(torch.int32))),
                        ("sum", _eq(after["sum"], x.double().sum(1).float()))])
    return Case("reduce_f32_max_argmax", reduce_float_kernel, (triton.cdiv(M, 2),),
                [In("x", x), Out("max", (M,), torch.float32), Out("argmax", (M,), torch.int32),
                 Out("min", (M,), torch.float32), Out("argmin", (M,), torch.int32), Out("sum", (M,), torch.float32),
                 M, N, N],
                constexprs=dict(BLOCK_M=2, BLOCK_N=512),
                source=SRC % "reduce_float_kernel (tl.max/tl.argmax/tl.min/tl.argmin/tl.sum on f32, -inf/+inf masks)",
                shape=dict(x="f32[%d,%d] distinct multiples of 0.25" % (M, N), BLOCK_M=2, BLOCK_N=512), check=check)


# ----------------------------------------------------------------------------- scans

@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def scan_kernel(x_ptr, f_ptr, cs_ptr, rcs_ptr, cp_ptr, cmax_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    offs = row * N + tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(cs_ptr + offs, tl.cumsum(x, axis=0))
    tl.store(rcs_ptr + offs, tl.cumsum(x, axis=0, reverse=True))
    tl.store(cp_ptr + offs, tl.cumprod((x % 3) + 3, axis=0))
    f = tl.load(f_ptr + offs)
    tl.store(cmax_ptr + offs, tl.associative_scan(f, 0, _max_combine))


def scan_case():
    g = torch.Generator().manual_seed(3)
    R, N = 4, 256
    x = torch.randint(-50, 51, (R, N), generator=g, dtype=torch.int32)
    f = torch.randint(-1000, 1000, (R, N), generator=g).float() * 0.5

    def check(after):
        xm = torch.fmod(x, 3) + 3  # C remainder
        cp = torch.ones(R, dtype=torch.int64)
        cps = []
        for j in range(N):
            cp = (cp * xm[:, j].to(torch.int64)) & 0xFFFFFFFF
            cps.append(cp)
        cpt = torch.stack(cps, 1)
        cpt = torch.where(cpt >= 2**31, cpt - 2**32, cpt).to(torch.int32)
        return _report([("cumsum", _eq(after["cumsum"], x.cumsum(1).to(torch.int32))),
                        ("rcumsum", _eq(after["rcumsum"], x.flip(1).cumsum(1).flip(1).to(torch.int32))),
                        ("cumprod", _eq(after["cumprod"], cpt)),
                        ("cummax", _eq(after["cummax"], f.cummax(1).values))])
    return Case("scan_cumsum_cumprod", scan_kernel, (R,),
                [In("x", x), In("f", f), Out("cumsum", (R, N), torch.int32), Out("rcumsum", (R, N), torch.int32),
                 Out("cumprod", (R, N), torch.int32), Out("cummax", (R, N), torch.float32)],
                constexprs=dict(N=N),
                source=SRC % "scan_kernel (tl.cumsum, reverse tl.cumsum, tl.cumprod with int32 wrap, "
                              "tl.associative_scan max)",
                shape=dict(x="i32[%d,%d]" % (R, N), f="f32[%d,%d]" % (R, N)), check=check)


# ----------------------------------------------------------------------------- layouts

@triton.jit
def transpose_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :], mask=mask)
    xt = tl.trans(x)
    mask_t = (rn[:, None] < N) & (rm[None, :] < M)
    tl.store(y_ptr + rn[:, None] * stride_ym + rm[None, :], xt, mask=mask_t)


def transpose_case():
    g = torch.Generator().manual_seed(4)
    M, N = 64, 96
    x = torch.randint(-2**20, 2**20, (M, N), generator=g).float()
    return Case("transpose_2d_tile", transpose_kernel, (M // 32, N // 32),
                [In("x", x), Out("y", (N, M), torch.float32), M, N, N, M],
                constexprs=dict(BM=32, BN=32),
                source=SRC % "transpose_kernel (2-D tile, tl.trans: a layout conversion through LDS)",
                shape=dict(x="f32[%d,%d]" % (M, N), y="f32[%d,%d]" % (N, M), tile="32x32"),
                check=lambda a: _report([("y", _eq(a["y"], x.T.contiguous()))]))


@triton.jit
def permute_kernel(x_ptr, p_ptr, d_ptr, i_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)
    p = tl.reshape(tl.permute(tl.reshape(v, (8, 8, 8)), (2, 0, 1)), (BLOCK,))
    tl.store(p_ptr + offs, p)
    a, b = tl.split(tl.reshape(v, (BLOCK // 2, 2)))
    half = pid * (BLOCK // 2) + tl.arange(0, BLOCK // 2)
    tl.store(d_ptr + half, a - b)
    tl.store(i_ptr + offs, tl.interleave(b, a))


def permute_case():
    g = torch.Generator().manual_seed(5)
    P, B = 4, 512
    x = torch.randint(-10**6, 10**6, (P * B,), generator=g, dtype=torch.int32)

    def check(after):
        v = x.reshape(P, 8, 8, 8)
        p = v.permute(0, 3, 1, 2).reshape(-1)
        pairs = x.reshape(P, B // 2, 2)
        d = (pairs[..., 0] - pairs[..., 1]).reshape(-1)
        il = torch.stack([pairs[..., 1], pairs[..., 0]], -1).reshape(-1)
        return _report([("p", _eq(after["permuted"], p)), ("d", _eq(after["split_diff"], d)),
                        ("i", _eq(after["interleaved"], il))])
    return Case("reshape_permute_split_join", permute_kernel, (P,),
                [In("x", x), Out("permuted", (P * B,), torch.int32), Out("split_diff", (P * B // 2,), torch.int32),
                 Out("interleaved", (P * B,), torch.int32)],
                constexprs=dict(BLOCK=B),
                source=SRC % "permute_kernel (tl.reshape, tl.permute (2,0,1), tl.split, tl.interleave)",
                shape=dict(x="i32[%d]" % (P * B), block=B), check=check)


# ----------------------------------------------------------------------------- integer and bit operations

@triton.jit
def int_ops_kernel(a_ptr, b_ptr, u_ptr, out_ptr, n, d, dn, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=0)
    b = tl.load(b_ptr + offs, mask=m, other=1)
    u = tl.load(u_ptr + offs, mask=m, other=1)
    sh = b & 31
    au = a.to(tl.uint32, bitcast=True)
    # SWAR popcount on uint32
    pc = au - ((au >> 1) & 0x55555555)
    pc = (pc & 0x33333333) + ((pc >> 2) & 0x33333333)
    pc = (pc + (pc >> 4)) & 0x0F0F0F0F
    pc = (pc * 0x01010101) >> 24
    # byte swap by shifts and masks
    bs = (au << 24) | ((au & 0xFF00) << 8) | ((au >> 8) & 0xFF00) | (au >> 24)
    du = ((b & 0xFF) | 1).to(tl.uint32)
    o = out_ptr + offs
    tl.store(o + 0 * n, a ^ b, mask=m)
    tl.store(o + 1 * n, a & b, mask=m)
    tl.store(o + 2 * n, a | b, mask=m)
    tl.store(o + 3 * n, ~a, mask=m)
    tl.store(o + 4 * n, a << sh, mask=m)
    tl.store(o + 5 * n, a >> sh, mask=m)
    tl.store(o + 6 * n, (au >> sh.to(tl.uint32)).to(tl.int32, bitcast=True), mask=m)
    tl.store(o + 7 * n, a // d, mask=m)
    tl.store(o + 8 * n, a % d, mask=m)
    tl.store(o + 9 * n, a // dn, mask=m)
    tl.store(o + 10 * n, a % dn, mask=m)
    tl.store(o + 11 * n, a // b, mask=m)
    tl.store(o + 12 * n, a % b, mask=m)
    tl.store(o + 13 * n, tl.minimum(a, b), mask=m)
    tl.store(o + 14 * n, tl.maximum(a, b), mask=m)
    tl.store(o + 15 * n, a * b, mask=m)
    tl.store(o + 16 * n, -a, mask=m)
    tl.store(o + 17 * n, tl.abs(a), mask=m)
    tl.store(o + 18 * n, pc.to(tl.int32, bitcast=True), mask=m)
    tl.store(o + 19 * n, bs.to(tl.int32, bitcast=True), mask=m)
    tl.store(o + 20 * n, tl.umulhi(au, u).to(tl.int32, bitcast=True), mask=m)
    tl.store(o + 21 * n, (u // du).to(tl.int32, bitcast=True), mask=m)
    tl.store(o + 22 * n, (u % du).to(tl.int32, bitcast=True), mask=m)
    tl.store(o + 23 * n, (u // d.to(tl.uint32)).to(tl.int32, bitcast=True), mask=m)
    tl.store(o + 24 * n, tl.minimum(u, au).to(tl.int32, bitcast=True), mask=m)
    tl.store(o + 25 * n, tl.where(u > au, 1, 0), mask=m)


INT_OPS = ["xor", "and", "or", "not", "shl", "ashr", "lshr", "div_d", "mod_d", "div_dn", "mod_dn", "div_b", "mod_b",
           "min", "max", "mul", "neg", "abs", "popcount", "bswap", "umulhi", "udiv_b", "umod_b", "udiv_d", "umin",
           "ugt"]


def int_ops_case():
    g = torch.Generator().manual_seed(6)
    n = 1000
    a = torch.randint(-2**30, 2**30, (n,), generator=g, dtype=torch.int32)
    a[:8] = torch.tensor([0, 1, -1, 7, -7, 2**30 - 1, -2**30, 12345], dtype=torch.int32)
    b = torch.randint(1, 200, (n,), generator=g, dtype=torch.int32) * torch.where(
        torch.rand(n, generator=g) < 0.5, -1, 1).to(torch.int32)
    u = torch.randint(0, 2**32, (n,), generator=g, dtype=torch.int64).to(torch.uint32) if hasattr(torch, "uint32") \
        else None
    if u is None:
        raise RuntimeError("torch.uint32 is needed")
    d, dn = 7, -13

    def check(after):
        A = a.to(torch.int64)
        B = b.to(torch.int64)
        U = u.to(torch.int64)
        AU = A & 0xFFFFFFFF
        sh = B & 31

        def i32(v):
            v = v & 0xFFFFFFFF
            return torch.where(v >= 2**31, v - 2**32, v)

        def tdiv(x, y):
            return torch.div(x, y, rounding_mode="trunc")
        du = (B & 0xFF) | 1
        ref = [A ^ B, A & B, A | B, ~A, A << sh, A >> sh, AU >> sh,
               tdiv(A, d), torch.fmod(A, d), tdiv(A, dn), torch.fmod(A, dn), tdiv(A, B), torch.fmod(A, B),
               torch.minimum(A, B), torch.maximum(A, B), A * B, -A, A.abs(),
               torch.tensor([bin(int(v)).count("1") for v in AU]),
               ((AU & 0xFF) << 24) | ((AU & 0xFF00) << 8) | ((AU >> 8) & 0xFF00) | (AU >> 24),
               ((AU >> 16) * U + (((AU & 0xFFFF) * U) >> 16)) >> 16, U // du, U % du, U // d, torch.minimum(U, AU), (U > AU).to(torch.int64)]
        got = after["out"].reshape(len(INT_OPS), n)
        return _report([(nm, _eq(got[k], i32(r).to(torch.int32))) for k, (nm, r) in enumerate(zip(INT_OPS, ref))])
    return Case("int32_bit_ops_div_mod", int_ops_kernel, (triton.cdiv(n, 256),),
                [In("a", a), In("b", b), In("u", u), Out("out", (len(INT_OPS), n), torch.int32), n, d, dn],
                constexprs=dict(BLOCK=256),
                source=SRC % "int_ops_kernel (xor/and/or/not, shl/ashr/lshr, signed and unsigned division and "
                              "remainder by runtime scalars and per element, min/max, mul wrap, SWAR popcount, "
                              "byte swap, umulhi)",
                shape=dict(n=n, rows=INT_OPS, d=d, dn=dn),
                check=check, notes="no INT_MIN / -1, no shift >= 32, no division by 0")


# ----------------------------------------------------------------------------- conversions

@triton.jit
def convert_down_kernel(xb_ptr, xh_ptr, x4_ptr, x5_ptr, ob_ptr, oh_ptr, o4_ptr, o5_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(ob_ptr + offs, tl.load(xb_ptr + offs, mask=m).to(tl.bfloat16), mask=m)
    tl.store(oh_ptr + offs, tl.load(xh_ptr + offs, mask=m).to(tl.float16), mask=m)
    tl.store(o4_ptr + offs, tl.load(x4_ptr + offs, mask=m).to(tl.float8e4nv), mask=m)
    tl.store(o5_ptr + offs, tl.load(x5_ptr + offs, mask=m).to(tl.float8e5), mask=m)


def _finite_fp8(dtype):
    codes = torch.arange(256, dtype=torch.int32).to(torch.uint8)
    v = codes.view(dtype).float()
    keep = torch.isfinite(v)
    return codes[keep]


def _random_bf16(g, n):
    bits = torch.randint(0, 2**16, (n,), generator=g, dtype=torch.int32)
    e = (bits >> 7) & 0xFF
    bits = torch.where((e == 0xFF) | (e == 0), bits & 0x8000, bits)  # no Inf/NaN, no subnormals (zeros instead)
    return bits.to(torch.int16).view(torch.bfloat16)


def _random_f16(g, n):
    bits = torch.randint(0, 2**16, (n,), generator=g, dtype=torch.int32)
    e = (bits >> 10) & 0x1F
    bits = torch.where(e == 0x1F, bits & 0x83FF, bits)  # no Inf/NaN; subnormals kept
    return bits.to(torch.int16).view(torch.float16)


def convert_down_case():
    g = torch.Generator().manual_seed(7)
    n = 256
    xb = _random_bf16(g, n)
    xh = _random_f16(g, n)
    c4 = _finite_fp8(torch.float8_e4m3fn)
    c5 = _finite_fp8(torch.float8_e5m2)
    c4 = torch.cat([c4, c4[:n - len(c4)]])
    c5 = torch.cat([c5, c5[:n - len(c5)]])
    x4 = c4.view(torch.float8_e4m3fn).float()
    x5 = c5.view(torch.float8_e5m2).float()
    return Case("convert_f32_to_bf16_f16_fp8", convert_down_kernel, (1,),
                [In("xb", xb.float()), In("xh", xh.float()), In("x4", x4), In("x5", x5),
                 Out("ob", (n,), torch.bfloat16), Out("oh", (n,), torch.float16),
                 Out("o4", (n,), torch.float8_e4m3fn), Out("o5", (n,), torch.float8_e5m2), n],
                constexprs=dict(BLOCK=256),
                source=SRC % "convert_down_kernel (f32 -> bf16, f16, tl.float8e4nv, tl.float8e5)",
                shape=dict(n=n, inputs="f32 values exactly representable in each target (all finite fp8 codes, "
                                       "f16 subnormals included, bf16 without subnormals)"),
                check=lambda a: _report([("ob", _eq(a["ob"], xb)), ("oh", _eq(a["oh"], xh)),
                                         ("o4", _eq(a["o4"].view(torch.uint8), c4)),
                                         ("o5", _eq(a["o5"].view(torch.uint8), c5))]))


@triton.jit
def convert_up_kernel(xb_ptr, xh_ptr, x4_ptr, x5_ptr, ob_ptr, oh_ptr, o4_ptr, o5_ptr, o4h_ptr, n,
                      BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(ob_ptr + offs, tl.load(xb_ptr + offs, mask=m).to(tl.float32), mask=m)
    tl.store(oh_ptr + offs, tl.load(xh_ptr + offs, mask=m).to(tl.float32), mask=m)
    x4 = tl.load(x4_ptr + offs, mask=m)
    tl.store(o4_ptr + offs, x4.to(tl.float32), mask=m)
    tl.store(o5_ptr + offs, tl.load(x5_ptr + offs, mask=m).to(tl.float32), mask=m)
    tl.store(o4h_ptr + offs, x4.to(tl.bfloat16), mask=m)


def convert_up_case():
    g = torch.Generator().manual_seed(8)
    n = 256
    xb = _random_bf16(g, n)
    xh = _random_f16(g, n)
    c4 = _finite_fp8(torch.float8_e4m3fn)
    c5 = _finite_fp8(torch.float8_e5m2)
    c4 = torch.cat([c4, c4[:n - len(c4)]]).view(torch.float8_e4m3fn)
    c5 = torch.cat([c5, c5[:n - len(c5)]]).view(torch.float8_e5m2)
    return Case("convert_bf16_f16_fp8_to_f32", convert_up_kernel, (1,),
                [In("xb", xb), In("xh", xh), In("x4", c4), In("x5", c5),
                 Out("ob", (n,), torch.float32), Out("oh", (n,), torch.float32), Out("o4", (n,), torch.float32),
                 Out("o5", (n,), torch.float32), Out("o4bf", (n,), torch.bfloat16), n],
                constexprs=dict(BLOCK=256),
                source=SRC % "convert_up_kernel (bf16, f16, fp8e4nv, fp8e5 -> f32; fp8e4nv -> bf16)",
                shape=dict(n=n, inputs="all finite fp8 codes; random finite bf16/f16 (f16 subnormals included)"),
                check=lambda a: _report([("ob", _eq(a["ob"], xb.float())), ("oh", _eq(a["oh"], xh.float())),
                                         ("o4", _eq(a["o4"], c4.float())), ("o5", _eq(a["o5"], c5.float())),
                                         ("o4bf", _eq(a["o4bf"], c4.float().to(torch.bfloat16)))]))


@triton.jit
def int_float_kernel(xi_ptr, xf_ptr, xp_ptr, i2f_ptr, f2i_ptr, f2u8_ptr, f2i64_ptr, i2bf_ptr, u82f_ptr, n,
                     BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    xi = tl.load(xi_ptr + offs, mask=m)
    xf = tl.load(xf_ptr + offs, mask=m)
    xp = tl.load(xp_ptr + offs, mask=m)
    tl.store(i2f_ptr + offs, xi.to(tl.float32), mask=m)
    tl.store(f2i_ptr + offs, xf.to(tl.int32), mask=m)
    tl.store(f2u8_ptr + offs, xp.to(tl.uint8), mask=m)
    tl.store(f2i64_ptr + offs, (xf * 4096.0).to(tl.int64), mask=m)
    tl.store(i2bf_ptr + offs, (xi % 256).to(tl.bfloat16), mask=m)
    tl.store(u82f_ptr + offs, xp.to(tl.uint8).to(tl.float32) * 0.5, mask=m)


def int_float_case():
    g = torch.Generator().manual_seed(9)
    n = 500
    xi = torch.randint(-2**24, 2**24 + 1, (n,), generator=g, dtype=torch.int32)
    xf = torch.randint(-4000, 4001, (n,), generator=g).float() * 0.25
    xp = torch.randint(0, 1024, (n,), generator=g).float() * 0.25  # [0, 256)

    def check(after):
        return _report([("i2f", _eq(after["i2f"], xi.float())), ("f2i", _eq(after["f2i"], xf.to(torch.int32))),
                        ("f2u8", _eq(after["f2u8"], xp.to(torch.uint8))),
                        ("f2i64", _eq(after["f2i64"], (xf * 4096.0).to(torch.int64))),
                        ("i2bf", _eq(after["i2bf"], torch.fmod(xi, 256).float().to(torch.bfloat16))),
                        ("u82f", _eq(after["u82f"], xp.to(torch.uint8).float() * 0.5))])
    return Case("convert_int_float", int_float_kernel, (triton.cdiv(n, 128),),
                [In("xi", xi), In("xf", xf), In("xp", xp), Out("i2f", (n,), torch.float32),
                 Out("f2i", (n,), torch.int32), Out("f2u8", (n,), torch.uint8), Out("f2i64", (n,), torch.int64),
                 Out("i2bf", (n,), torch.bfloat16), Out("u82f", (n,), torch.float32), n],
                constexprs=dict(BLOCK=128),
                source=SRC % "int_float_kernel (i32 -> f32, f32 -> i32/u8/i64 truncation, i32 -> bf16, u8 -> f32)",
                shape=dict(n=n), check=check, notes="every conversion exact and in range")


@triton.jit
def fp4_unpack_kernel(q_ptr, s_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    q = tl.load(q_ptr + offs)
    lo = q & 0xF
    hi = q >> 4
    c = tl.interleave(lo, hi).to(tl.uint32)          # element 2i: low nibble, 2i+1: high nibble
    sign = (c >> 3) & 1
    e = (c >> 1) & 3
    mbit = c & 1
    normal = ((e + 126) << 23) | (mbit << 22)
    sub = tl.where(mbit == 1, 0x3F000000, 0).to(tl.uint32)
    bits = (sign << 31) | tl.where(e == 0, sub, normal)
    v = bits.to(tl.float32, bitcast=True)
    el = pid * (2 * BLOCK) + tl.arange(0, 2 * BLOCK)
    s = tl.load(s_ptr + el // 32).to(tl.uint32)
    scale = (s << 23).to(tl.float32, bitcast=True)   # 2^(s - 127)
    tl.store(out_ptr + el, v * scale)


def fp4_unpack_case():
    from kernels_aiter import fp4_dequant
    g = torch.Generator().manual_seed(10)
    nb = 512
    q = torch.randint(0, 256, (nb,), generator=g, dtype=torch.int32).to(torch.uint8)
    s = torch.randint(118, 137, (nb * 2 // 32,), generator=g, dtype=torch.int32).to(torch.uint8)
    ref = fp4_dequant(q.reshape(1, -1), s.reshape(1, -1)).reshape(-1).float()
    return Case("fp4_e2m1_unpack_bitops", fp4_unpack_kernel, (nb // 128,),
                [In("q", q), In("s", s), Out("out", (2 * nb,), torch.float32)],
                constexprs=dict(BLOCK=128),
                source=SRC % "fp4_unpack_kernel (e2m1 nibbles -> f32 by bit operations, e8m0 scale by exponent "
                              "bits, tl.interleave)",
                shape=dict(q="u8[%d] (all codes)" % nb, s="e8m0 u8[%d] in 118..136" % (nb // 16)),
                check=lambda a: _report([("out", _eq(a["out"], ref))]))


# ----------------------------------------------------------------------------- sort, gather, histograms

@triton.jit
def sort_flip_kernel(x_ptr, asc_ptr, desc_ptr, flip_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(asc_ptr + offs, tl.sort(x))
    tl.store(desc_ptr + offs, tl.sort(x, descending=True))
    tl.store(flip_ptr + offs, tl.flip(x, 0))


def sort_case():
    g = torch.Generator().manual_seed(11)
    R, N = 4, 128
    x = torch.randint(-300, 300, (R, N), generator=g, dtype=torch.int32)
    return Case("sort_flip_int32", sort_flip_kernel, (R,),
                [In("x", x), Out("asc", (R, N), torch.int32), Out("desc", (R, N), torch.int32),
                 Out("flip", (R, N), torch.int32)],
                constexprs=dict(N=N),
                source=SRC % "sort_flip_kernel (tl.sort ascending/descending, tl.flip)",
                shape=dict(x="i32[%d,%d]" % (R, N)),
                check=lambda a: _report([("asc", _eq(a["asc"], x.sort(1).values)),
                                         ("desc", _eq(a["desc"], x.sort(1, descending=True).values)),
                                         ("flip", _eq(a["flip"], x.flip(1)))]))


@triton.jit
def gather_scatter_kernel(x_ptr, idx_ptr, g_ptr, s_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    idx = tl.load(idx_ptr + offs, mask=m, other=0)
    tl.store(g_ptr + offs, tl.load(x_ptr + idx, mask=m), mask=m)
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(s_ptr + idx, x * 3, mask=m)


def gather_scatter_case():
    g = torch.Generator().manual_seed(12)
    n = 1000
    x = torch.randint(-10**6, 10**6, (n,), generator=g, dtype=torch.int32)
    idx = torch.randperm(n, generator=g).to(torch.int32)

    def check(after):
        s = torch.empty_like(x)
        s[idx.long()] = x * 3
        return _report([("g", _eq(after["gathered"], x[idx.long()])), ("s", _eq(after["scattered"], s))])
    return Case("gather_scatter_indirect", gather_scatter_kernel, (triton.cdiv(n, 256),),
                [In("x", x), In("idx", idx), Out("gathered", (n,), torch.int32), Out("scattered", (n,), torch.int32), n],
                constexprs=dict(BLOCK=256),
                source=SRC % "gather_scatter_kernel (indirect loads and stores through an index permutation)",
                shape=dict(n=n), check=check)


@triton.jit
def tl_gather_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    idx = (tl.arange(0, BLOCK) * 7 + 3) % BLOCK
    tl.store(y_ptr + offs, tl.gather(x, idx, 0))


def tl_gather_case():
    g = torch.Generator().manual_seed(13)
    P, B = 2, 256
    x = torch.randint(-10**6, 10**6, (P * B,), generator=g, dtype=torch.int32)
    idx = (torch.arange(B) * 7 + 3) % B
    ref = x.reshape(P, B)[:, idx].reshape(-1)
    return Case("tl_gather_in_register", tl_gather_kernel, (P,),
                [In("x", x), Out("y", (P * B,), torch.int32)], constexprs=dict(BLOCK=B),
                source=SRC % "tl_gather_kernel (tl.gather within a block)",
                shape=dict(x="i32[%d]" % (P * B)), check=lambda a: _report([("y", _eq(a["y"], ref))]))


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, onehot_ptr, BLOCK: tl.constexpr, BINS: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))
    h = tl.histogram(x, BINS)
    bins = tl.arange(0, BINS)
    tl.store(hist_ptr + pid * BINS + bins, h)
    oh = tl.sum((x[:, None] == bins[None, :]).to(tl.int32), axis=0)
    tl.store(onehot_ptr + pid * BINS + bins, oh)


def histogram_case():
    g = torch.Generator().manual_seed(14)
    P, B, BINS = 4, 512, 32
    x = (torch.randint(0, BINS, (P, B), generator=g) * torch.randint(0, 2, (P, B), generator=g)).to(torch.int32)
    ref = torch.stack([torch.bincount(x[p].long(), minlength=BINS) for p in range(P)]).to(torch.int32)
    return Case("histogram_no_atomics", histogram_kernel, (P,),
                [In("x", x), Out("hist", (P, BINS), torch.int32), Out("onehot", (P, BINS), torch.int32)],
                constexprs=dict(BLOCK=B, BINS=BINS),
                source=SRC % "histogram_kernel (tl.histogram and a one-hot tl.sum, one row per program)",
                shape=dict(x="i32[%d,%d] in [0,%d)" % (P, B, BINS)),
                check=lambda a: _report([("hist", _eq(a["hist"], ref)), ("onehot", _eq(a["onehot"], ref))]))


@triton.jit
def atomic_hist_kernel(x_ptr, hist_ptr, mx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.atomic_add(hist_ptr + x, 1, mask=m)
    tl.atomic_max(mx_ptr + (x % 4), offs, mask=m)


def atomic_hist_case():
    g = torch.Generator().manual_seed(15)
    n, BINS = 3000, 64
    x = torch.randint(0, BINS, (n,), generator=g, dtype=torch.int32)
    hist0 = torch.zeros(BINS, dtype=torch.int32)
    mx0 = torch.full((4,), -1, dtype=torch.int32)
    ref_h = torch.bincount(x.long(), minlength=BINS).to(torch.int32)
    ref_m = torch.tensor([int(torch.nonzero(x % 4 == r).max()) for r in range(4)], dtype=torch.int32)
    return Case("atomic_add_max_int32", atomic_hist_kernel, (triton.cdiv(n, 256),),
                [In("x", x), InOut("hist", hist0), InOut("mx", mx0), n], constexprs=dict(BLOCK=256),
                source=SRC % "atomic_hist_kernel (tl.atomic_add / tl.atomic_max on int32: order-independent results; "
                              "the returned old values are not used)",
                shape=dict(n=n, bins=BINS),
                check=lambda a: _report([("hist", _eq(a["hist"], ref_h)), ("mx", _eq(a["mx"], ref_m))]))


def cases():
    """Zero-argument builders, one a case (the generator builds each on its own)."""
    return [reduce_int_case, reduce_float_case, scan_case, transpose_case, permute_case, int_ops_case,
            convert_down_case, convert_up_case, int_float_case, fp4_unpack_case, sort_case,
            gather_scatter_case, tl_gather_case, histogram_case, atomic_hist_case]
