#!/usr/bin/env python3
"""A linear layer the way vLLM's InputHadamardLinearMethod wraps one, on CPU
tensors through mxforge.

    y = x @ W.T   computed as   dequant(Q(x H)) @ dequant(Q(W H)).T

H is the block-diagonal Hadamard rotation of the spec (RS=64, orthonormal up
to its bf16 entries), so (x H)(W H)^T = x W^T; Q is MXFP4 quantization with
one E8M0 scale per 32 values along K. The rotation spreads outliers over
each block, so the quantized product stays close to the bf16 one.

- activations: mxforge.rotate_quant(x, spec), the kernel (on the emulator
  for CPU tensors);
- weights: rotated and quantized once at load time by the quant_weight
  kernel, mxforge.quant_weight(W, WEIGHT_SPEC): the same rotation, format
  and scale rule over W's N rows in one launch, plain codes and scales (the
  layouts dequantize_fp4 reads; a GEMM kernel would ask for
  wlayout=preshuffle_16x16, layout=a4w4_shuffle);
- the GEMM: both dequantized in torch, multiplied in f32 (the fused
  rotate_quant_gemm kernel will replace this step when it lands).

Checked against torch's bf16 x @ W.T: the relative Frobenius error must stay
below ERROR_BOUND (docs/python.md says where the number comes from).

    /usr/bin/python3 examples/python/hadamard_linear.py [--seed N]
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
import mxforge  # noqa: E402

SPEC = "rotate_quant:RS=64,rot=hadamard,fmt=fp4,scale=even,layout=plain"
# The weights' spec: SPEC's rotation and quantization; K and N come from W.
WEIGHT_SPEC = "quant_weight:RS=64,rot=hadamard,fmt=fp4,scale=even,layout=plain,wlayout=plain"
# MXFP4 on both operands: each value carries up to ~1/4 relative rounding
# error (E2M1 has one mantissa bit; the scale costs up to a factor of 2 of
# range), which averages to ~10% over a 1024-long dot product of Gaussian
# data: measured 0.143..0.162 over seeds 0..29 (m=8, K=1024, N=256). 0.2
# leaves room for unlucky seeds and still catches a wrong layout, scale or
# rotation (unrotated weights give errors of order 1: python/tests).
ERROR_BOUND = 0.2

# E2M1 code (bit 3 the sign) -> value.
_FP4_VALUES = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
                            -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])


def dequantize_fp4(q, s):
    """[rows, K/2] packed codes (element 2i in the low nibble) and [rows, K/32]
    E8M0 scales -> [rows, K] float32."""
    low = (q & 0x0F).long()
    high = (q >> 4).long()
    codes = torch.stack([low, high], dim=-1).reshape(q.shape[0], -1)
    values = _FP4_VALUES[codes]
    scales = torch.pow(2.0, s.float() - 127.0)
    return (values.reshape(q.shape[0], -1, 32) * scales.unsqueeze(-1)).reshape(q.shape[0], -1)


class HadamardMXFP4Linear:
    """Weights prepared once; activations rotated and quantized per call."""

    def __init__(self, weight_bf16):
        # One launch for all N rows (quant_weight has no row limit of 256).
        self.w_q, self.w_s = mxforge.quant_weight(weight_bf16, WEIGHT_SPEC)
        self.w = dequantize_fp4(self.w_q, self.w_s)

    def __call__(self, x_bf16):
        q, s = mxforge.rotate_quant(x_bf16, SPEC)
        return dequantize_fp4(q, s) @ self.w.T


def run(seed=0, m=8, k=1024, n=256):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(m, k, generator=generator)
    # A few outlier channels, as real activations have: what the rotation is for.
    x[:, torch.randint(0, k, (8,), generator=generator)] *= 20.0
    x = x.to(torch.bfloat16)
    w = (torch.randn(n, k, generator=generator) / k ** 0.5).to(torch.bfloat16)
    layer = HadamardMXFP4Linear(w)
    y = layer(x)
    y_ref = (x @ w.T).float()
    return float(torch.linalg.norm(y - y_ref) / torch.linalg.norm(y_ref))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    error = run(seed=args.seed)
    verdict = "ok" if error < ERROR_BOUND else "FAILED"
    print(f"hadamard_linear: seed {args.seed}, relative error vs bf16 x @ W.T: {error:.4f} "
          f"(bound {ERROR_BOUND}): {verdict}")
    return 0 if error < ERROR_BOUND else 1


if __name__ == "__main__":
    sys.exit(main())
