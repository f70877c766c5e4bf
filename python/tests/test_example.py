"""examples/python/hadamard_linear.py: the engine-shaped example runs, stays
within its documented bound, and the bound would catch a mismatched rotation."""

import os
import subprocess
import sys

import torch

import mxforge

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "python")
sys.path.insert(0, EXAMPLES)
import hadamard_linear  # noqa: E402


def test_the_example_script_passes(rng):
    seed = rng.randrange(2**31)
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, "hadamard_linear.py"),
                           "--seed", str(seed)], capture_output=True, text=True)
    print(done.stdout, done.stderr)
    assert done.returncode == 0 and ": ok" in done.stdout


def test_unrotated_weights_break_the_bound(rng):
    """Weights quantized without the rotation (a wrong preparation) give an
    error of order 1: the bound is tight enough to mean something."""
    generator = torch.Generator().manual_seed(rng.randrange(2**31))
    x = torch.randn(8, 1024, generator=generator).to(torch.bfloat16)
    w = (torch.randn(64, 1024, generator=generator) / 32).to(torch.bfloat16)
    w_q, w_s = mxforge.quant_weight(w, "quant_weight:RS=0")
    q, s = mxforge.rotate_quant(x, hadamard_linear.SPEC)
    y = hadamard_linear.dequantize_fp4(q, s) @ hadamard_linear.dequantize_fp4(w_q, w_s).T
    y_ref = (x @ w.T).float()
    error = float(torch.linalg.norm(y - y_ref) / torch.linalg.norm(y_ref))
    assert error > 3 * hadamard_linear.ERROR_BOUND, error
