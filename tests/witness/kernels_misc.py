"""Triton kernels written for the witness corpus: masked loads/stores on ragged sizes, a strided 2-D
copy with runtime strides, tl.where selects, a 2-D grid with tl.program_id(1)/tl.num_programs,
by-value scalar arguments of every kind (f32, i32, i64, u64, and an int equal to 1, which Triton
specializes into a constexpr), and the two approximate cases: a row softmax
(tl.exp) and an RMSNorm (tl.math.rsqrt), compared within a stated bound.
"""

import torch
import triton
import triton.language as tl

from witness_lib import Case, In, Out

SRC = "written for the corpus (standard Triton idioms): tests/witness/kernels_misc.py %s"


def _eq(a, b):
    return bool(torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8)))


def _report(pairs):
    bad = [n for n, ok in pairs if not ok]
    return (not bad), ("all outputs equal the CPU reference" if not bad else "differ from the CPU reference: %s" % bad)


POISON_F32 = torch.tensor([0xA5A5A5A5 - 2**32], dtype=torch.int32).view(torch.float32)[0]
POISON_I32 = torch.tensor([0xA5A5A5A5 - 2**32], dtype=torch.int32)[0]


@triton.jit
def masked_kernel(x_ptr, y_ptr, ox_ptr, oy_ptr, om_ptr, o3_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=-1)
    tl.store(ox_ptr + offs, x * 2.0)                       # unmasked: the tail shows other=0
    tl.store(oy_ptr + offs, y)                             # unmasked: the tail shows other=-1
    tl.store(om_ptr + offs, y + 1, mask=m)                 # masked: the tail keeps its poison
    tl.store(o3_ptr + offs, x, mask=m & (offs % 3 != 0))   # a strided mask pattern


def masked_case():
    g = torch.Generator().manual_seed(41)
    n, BLOCK = 1000, 256
    P = triton.cdiv(n, BLOCK)
    x = torch.randint(-1000, 1000, (n,), generator=g).float() * 0.125
    y = torch.randint(-10**6, 10**6, (n,), generator=g, dtype=torch.int32)

    def check(after):
        tot = P * BLOCK
        ox = torch.zeros(tot)
        ox[:n] = x * 2
        oy = torch.full((tot,), -1, dtype=torch.int32)
        oy[:n] = y
        om = torch.full((tot,), int(POISON_I32), dtype=torch.int32)
        om[:n] = y + 1
        o3 = torch.full((tot,), float(POISON_F32))
        idx = torch.arange(n)
        o3[:n] = torch.where(idx % 3 != 0, x, o3[:n])
        return _report([("ox", _eq(after["ox"], ox)), ("oy", _eq(after["oy"], oy)), ("om", _eq(after["om"], om)),
                        ("o3", _eq(after["o3"], o3))])
    return Case("masked_ragged_other", masked_kernel, (P,),
                [In("x", x), In("y", y), Out("ox", (P * BLOCK,), torch.float32), Out("oy", (P * BLOCK,), torch.int32),
                 Out("om", (P * BLOCK,), torch.int32), Out("o3", (P * BLOCK,), torch.float32), n],
                constexprs=dict(BLOCK=BLOCK),
                source=SRC % "masked_kernel (n = 1000 not a multiple of BLOCK = 256; other=0.0 and other=-1; "
                              "unmasked stores of the padded tail; a masked store leaving poison; a mod-3 mask)",
                shape=dict(n=n, BLOCK=BLOCK, inputs="exactly n elements (masked lanes read past the end)"),
                check=check)


@triton.jit
def strided_copy_kernel(src_ptr, dst_ptr, M, N, s_sm, s_sn, s_dm, s_dn, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    v = tl.load(src_ptr + rm[:, None] * s_sm + rn[None, :] * s_sn, mask=mask)
    tl.store(dst_ptr + rm[:, None] * s_dm + rn[None, :] * s_dn, v, mask=mask)


def strided_copy_case():
    g = torch.Generator().manual_seed(42)
    R, C = 50, 70
    src = torch.randint(-10**6, 10**6, (R, C), generator=g).float()
    M, N, s_sm, s_sn = R, C // 2, C, 2          # every other column
    s_dm, s_dn = 3, 160                         # a column-major-ish destination with gaps
    size = (M - 1) * s_dm + (N - 1) * s_dn + 1
    size = (size + 63) // 64 * 64

    def check(after):
        dst = torch.full((size,), float(POISON_F32))
        for i in range(M):
            dst[i * s_dm + torch.arange(N) * s_dn] = src[i, 0::2][:N]
        return _report([("dst", _eq(after["dst"], dst))])
    return Case("strided_copy_2d_runtime_strides", strided_copy_kernel, (triton.cdiv(M, 16), triton.cdiv(N, 32)),
                [In("src", src), Out("dst", (size,), torch.float32), M, N, s_sm, s_sn, s_dm, s_dn],
                constexprs=dict(BM=16, BN=32),
                source=SRC % "strided_copy_kernel (2-D copy, source and destination strides all runtime i32)",
                shape=dict(src="f32[%d,%d], read [:, ::2]" % (R, C), M=M, N=N,
                           src_strides=[s_sm, s_sn], dst_strides=[s_dm, s_dn], dst_elems=size),
                check=check)


@triton.jit
def where_kernel(x_ptr, y_ptr, c_ptr, o1_ptr, o2_ptr, o3_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    c = tl.load(c_ptr + offs, mask=m)
    tl.store(o1_ptr + offs, tl.where(x > y, x, y * 2.0), mask=m)
    tl.store(o2_ptr + offs, tl.where(c != 0, x, -y), mask=m)
    sel = ((x >= 0) & (c == 0)) | (y < -3.0)
    tl.store(o3_ptr + offs, tl.where(sel, offs, -offs - 1), mask=m)


def where_case():
    g = torch.Generator().manual_seed(43)
    n = 777
    x = torch.randint(-20, 20, (n,), generator=g).float() * 0.5
    y = torch.randint(-20, 20, (n,), generator=g).float() * 0.5
    c = torch.randint(0, 2, (n,), generator=g).to(torch.int8)
    idx = torch.arange(n, dtype=torch.int32)
    r1 = torch.where(x > y, x, y * 2)
    r2 = torch.where(c != 0, x, 0.0 - y)  # Triton's -y is 0 - y: +0.0 for y = 0
    r3 = torch.where(((x >= 0) & (c == 0)) | (y < -3.0), idx, -idx - 1)
    return Case("where_select", where_kernel, (triton.cdiv(n, 256),),
                [In("x", x), In("y", y), In("c", c), Out("o1", (n,), torch.float32), Out("o2", (n,), torch.float32),
                 Out("o3", (n,), torch.int32), n],
                constexprs=dict(BLOCK=256),
                source=SRC % "where_kernel (tl.where on f32 compares, an int8 condition, and/or of masks)",
                shape=dict(n=n),
                check=lambda a: _report([("o1", _eq(a["o1"], r1)), ("o2", _eq(a["o2"], r2)), ("o3", _eq(a["o3"], r3))]))


@triton.jit
def grid2d_kernel(x_ptr, y_ptr, o_ptr, pid_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * stride_m + rn[None, :]
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(o_ptr + offs, x * y + x, mask=mask)
    code = pid_m * 1000 + pid_n * 10 + tl.num_programs(0) * 100000 + tl.num_programs(1) * 1000000
    tl.store(pid_ptr + pid_m * tl.num_programs(0) + pid_n, code)


def grid2d_case():
    g = torch.Generator().manual_seed(44)
    M, N, BM, BN = 48, 80, 16, 32
    gx, gy = triton.cdiv(N, BN), triton.cdiv(M, BM)
    x = torch.randint(-50, 50, (M, N), generator=g).float()
    y = torch.randint(-50, 50, (M, N), generator=g).float()
    codes = torch.tensor([[pm * 1000 + pn * 10 + gx * 100000 + gy * 1000000 for pn in range(gx)] for pm in range(gy)],
                         dtype=torch.int32)
    return Case("elementwise_grid2d_program_id1", grid2d_kernel, (gx, gy),
                [In("x", x), In("y", y), Out("o", (M, N), torch.float32), Out("pids", (gy, gx), torch.int32), M, N, N],
                constexprs=dict(BM=BM, BN=BN),
                source=SRC % "grid2d_kernel (tl.program_id(0/1), tl.num_programs, x*y + x on a 2-D grid)",
                shape=dict(x="f32[%d,%d]" % (M, N), grid=[gx, gy], ragged="N (80 = 2.5 tiles)"),
                check=lambda a: _report([("o", _eq(a["o"], x * y + x)), ("pids", _eq(a["pids"], codes))]),
                notes="x*y + x of small integers: exact whether or not it is contracted into an FMA")


@triton.jit
def scalar_args_kernel(x_ptr, v_ptr, of_ptr, oi_ptr, n, alpha, beta, off64, mask64, one, zero, d64,
                       BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(of_ptr + offs, x * alpha + beta + one + zero, mask=m)
    v = tl.load(v_ptr + offs, mask=m)
    o = oi_ptr + offs
    tl.store(o, v + off64, mask=m)
    tl.store(o + n, v // d64, mask=m)
    tl.store(o + 2 * n, v % d64, mask=m)
    tl.store(o + 3 * n, (v.to(tl.uint64, bitcast=True) ^ mask64).to(tl.int64, bitcast=True), mask=m)
    tl.store(o + 4 * n, v * one + zero * v + (offs.to(tl.int64) << 33), mask=m)


def scalar_args_case():
    g = torch.Generator().manual_seed(45)
    n = 300
    x = torch.randint(-1000, 1000, (n,), generator=g).float() * 0.25
    v = torch.randint(-2**50, 2**50, (n,), generator=g, dtype=torch.int64)
    alpha, beta = 0.5, -3.25
    off64 = 2**33 + 12345
    mask64 = 2**63 + 2**40 + 0x1234
    d64 = -(2**34 + 3)

    def check(after):
        of = x * alpha + beta + 1 + 0
        m_signed = mask64 - 2**64
        oi = torch.stack([v + off64, torch.div(v, d64, rounding_mode="trunc"), torch.fmod(v, d64), v ^ m_signed,
                          v + (torch.arange(n, dtype=torch.int64) << 33)])
        return _report([("of", _eq(after["of"], of)), ("oi", _eq(after["oi"], oi))])
    return Case("scalar_args_f32_i64_u64_const1", scalar_args_kernel, (triton.cdiv(n, 128),),
                [In("x", x), In("v", v), Out("of", (n,), torch.float32), Out("oi", (5, n), torch.int64), n,
                 alpha, beta, off64, mask64, 1, 0, d64],
                constexprs=dict(BLOCK=128),
                source=SRC % "scalar_args_kernel (f32 alpha/beta, i64 offset and divisor (64-bit division), u64 "
                              "mask >= 2^63, an int 1 that Triton specializes away, an int 0 that it passes)",
                shape=dict(n=n, alpha=alpha, beta=beta, off64=off64, mask64=mask64, one=1, zero=0, d64=d64),
                check=check, notes="'one' = 1 becomes a constexpr: it is not in the kernarg list")


@triton.jit
def softmax_kernel(y_ptr, x_ptr, x_stride, y_stride, n, WIDTH: tl.constexpr):
    # Row softmax, one program per row, the row held whole in registers:
    # subtract the row maximum, exponentiate, divide by the sum. Written for
    # the corpus; the standard numerically stable formulation.
    r = tl.program_id(0)
    j = tl.arange(0, WIDTH)
    inside = j < n
    v = tl.load(x_ptr + r * x_stride + j, mask=inside, other=float("-inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(y_ptr + r * y_stride + j, e / tl.sum(e, axis=0), mask=inside)


SOFTMAX_BOUND = 2e-6
RMSNORM_BOUND = 1e-5


def softmax_case():
    g = torch.Generator().manual_seed(46)
    R, C = 16, 200
    x = torch.randn((R, C), generator=g) * 3.0
    ref = torch.softmax(x.double(), dim=1)

    def check(after):
        err = (after["y"].double() - ref).abs().max().item()
        return err <= SOFTMAX_BOUND / 4, "H200 vs float64 max abs error %.3g (bound %.3g)" % (err, SOFTMAX_BOUND)
    return Case("softmax_rows_exp", softmax_kernel, (R,),
                [Out("y", (R, C), torch.float32), In("x", x), C, C, C],
                constexprs=dict(WIDTH=256),
                source="written for the corpus (tests/witness/kernels_misc.py): a row softmax, one program per "
                       "row (max, exp, sum, divide)",
                shape=dict(x="f32[%d,%d] N(0, 9)" % (R, C), WIDTH=256),
                compare={"y": {"kind": "f32_abs", "dtype": "float32", "bound": SOFTMAX_BOUND,
                               "reason": "tl.exp is an approximate exp2 on both machines (ex2.approx on sm_90, "
                                         "v_exp_f32 on gfx950), the division and the row sum's order differ; "
                                         "outputs are in [0, 1]"}},
                check=check)


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / N
    r = tl.math.rsqrt(ms + eps)
    tl.store(y_ptr + row * stride + cols, x * r * w, mask=mask)


def rmsnorm_case():
    g = torch.Generator().manual_seed(47)
    R, N = 8, 300
    x = torch.randint(-8, 9, (R, N), generator=g).float()
    w = torch.randint(4, 17, (N,), generator=g).float() * 0.125
    eps = 1e-6
    ms = (x.double() ** 2).mean(1, keepdim=True)
    ref = x.double() * torch.rsqrt(ms + float(torch.tensor(eps, dtype=torch.float32))) * w.double()

    def check(after):
        err = (after["y"].double() - ref).abs().max().item()
        return err <= RMSNORM_BOUND / 4, "H200 vs float64 max abs error %.3g (bound %.3g)" % (err, RMSNORM_BOUND)
    return Case("rmsnorm_rsqrt", rmsnorm_kernel, (R,),
                [In("x", x), In("w", w), Out("y", (R, N), torch.float32), N, N, eps],
                constexprs=dict(BLOCK=512),
                source=SRC % "rmsnorm_kernel (row sum of squares, / N, tl.math.rsqrt, scale by weight; eps an f32 "
                              "argument)",
                shape=dict(x="f32[%d,%d] integers in [-8, 8]" % (R, N), w="multiples of 1/8 in [0.5, 2]", eps=eps),
                compare={"y": {"kind": "f32_abs", "dtype": "float32", "bound": RMSNORM_BOUND,
                               "reason": "tl.math.rsqrt is approximate (rsqrt.approx.f32 on sm_90, v_rsq_f32 on "
                                         "gfx950) and the f32 division by N may differ by an ulp; |y| <= 4"}},
                check=check)


def cases():
    """Zero-argument builders, one a case (the generator builds each on its own)."""
    return [masked_case, strided_copy_case, where_case, grid2d_case, scalar_args_case, softmax_case, rmsnorm_case]
