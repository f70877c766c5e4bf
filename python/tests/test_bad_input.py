"""Bad input: the documented exception, the message naming the problem, and
nothing written to out= (the poison stays)."""

import numpy as np
import pytest
import torch

import mxforge
from helpers import random_x, to_torch

POISON = 0xA5
K = 256


def poisoned_out(m=4, layout_rows=None):
    q = torch.full((m, K // 2), POISON, dtype=torch.uint8)
    s = torch.full((layout_rows or m, K // 32), POISON, dtype=torch.uint8)
    return q, s


def good_x(rng, m=4):
    return to_torch(random_x(rng, m, K))


CASES = {
    # name: (make x from a good one, extra kwargs, exception, words in the message)
    "wrong dtype": (lambda x: x.float(), {}, mxforge.ArgumentTypeError, ["x", "torch.bfloat16",
                                                                         "float32"]),
    "numpy wrong dtype": (lambda x: x.float().numpy(), {}, mxforge.ArgumentTypeError,
                          ["x", "numpy.uint16"]),
    "not an array": (lambda x: x.tolist(), {}, mxforge.ArgumentTypeError, ["x", "list"]),
    "wrong rank": (lambda x: x[0], {}, mxforge.ArgumentError, ["x", "dimensions"]),
    "rank 3": (lambda x: x.reshape(2, 2, K), {}, mxforge.ArgumentError, ["x", "dimensions"]),
    "inner stride": (lambda x: torch.cat([x, x], 1).view(4, K, 2)[:, :, 0], {},
                     mxforge.ArgumentError, ["x", "stride 2", "last dimension"]),
    "m = 0": (lambda x: x[:0], {}, mxforge.ArgumentError, ["x", "0 rows"]),
    "m above the class limit": (lambda x: x.repeat(65, 1)[:257], {}, mxforge.LaunchError,
                                ["M=257", "1..256"]),
    "K disagrees with x": (lambda x: x, {"spec": "rotate_quant:K=512"}, mxforge.ArgumentError,
                           ["x", "[4, 512]", "[4, 256]"]),
    "spec for another op": (lambda x: x, {"spec": "quant_weight:K=256,N=16"}, mxforge.SpecError,
                            ["rotate_quant", "quant_weight"]),
    "malformed spec": (lambda x: x, {"spec": "rotate_quant:K=256, RS=64"}, mxforge.SpecError,
                       ["' RS=64' contains whitespace"]),
    "invalid value": (lambda x: x, {"rs": 48}, mxforge.SpecError, ["RS=48", "0, 32, 64"]),
    "unknown keyword": (lambda x: x, {"colour": 1}, mxforge.ArgumentTypeError, ["colour"]),
    "duplicate key": (lambda x: x, {"spec": "rotate_quant:K=256,RS=64", "rs": 32},
                      mxforge.SpecError, ["duplicate key 'RS'"]),
    "missing r": (lambda x: x, {"rs": 64, "rot": "learned"}, mxforge.ArgumentError,
                  ["needs r", "[64, 64]"]),
    "r not taken": (lambda x: x, {"r": torch.zeros(64, 64, dtype=torch.bfloat16)},
                    mxforge.ArgumentError, ["r is given", "takes no r"]),
    "uncompilable spec": (lambda x: x, {"rs": 64, "rot": "hadamard_butterfly"},
                          mxforge.CompileError, ["hadamard_butterfly at RS=64", "does not support"]),
    "meta tensor": (lambda x: x.to("meta"), {}, mxforge.ArgumentError, ["x", "meta"]),
    # ctypes passes a str as a C string, which a NUL ends: the keys after it
    # were silently dropped (here RS=64 and the bad fmt).
    "NUL in the spec": (lambda x: x, {"spec": "rotate_quant:K=256\0,RS=64,fmt=bogus"},
                        mxforge.SpecError, ["the spec contains a NUL character"]),
    "NUL in a keyword value": (lambda x: x, {"rot": "hadamard\0junk", "rs": 64},
                               mxforge.SpecError, ["the spec contains a NUL character"]),
    # numpy's as_strided checks nothing: a row stride of 2^31 elements used to
    # kill the interpreter (SIGSEGV) when the rows were copied for the launch.
    "numpy view past its memory": (
        lambda x: np.lib.stride_tricks.as_strided(
            x.view(torch.int16).numpy().view(np.uint16), (4, K), (2 ** 32, 2)),
        {}, mxforge.ArgumentError, ["x", "strides", "outside the array it views"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_raises_and_writes_nothing(rng, name):
    make, kwargs, exception, words = CASES[name]
    out = poisoned_out()
    x = make(good_x(rng))
    kwargs = dict(kwargs)
    with pytest.raises(exception) as raised:
        mxforge.rotate_quant(x, out=out, **kwargs)
    message = str(raised.value)
    for word in words:
        assert word in message, f"'{word}' not in: {message}"
    assert "\n" not in message
    assert isinstance(raised.value, mxforge.Error)
    for array in out:
        assert (array == POISON).all(), "an out= array was written by a failed call"


def test_python_argument_errors_are_the_builtin_kinds(rng):
    with pytest.raises(TypeError):
        mxforge.rotate_quant(good_x(rng).half())
    with pytest.raises(ValueError):
        mxforge.rotate_quant(good_x(rng)[:, ::2])


def test_bad_out_arrays(rng):
    x = good_x(rng)
    q, s = poisoned_out()
    with pytest.raises(mxforge.ArgumentError, match="out s must have shape"):
        mxforge.rotate_quant(x, out=(q, s[:2]))
    with pytest.raises(mxforge.ArgumentTypeError, match="out q must be torch.uint8"):
        mxforge.rotate_quant(x, out=(q.to(torch.int32), s))
    with pytest.raises(mxforge.ArgumentTypeError, match="out must be a tuple"):
        mxforge.rotate_quant(x, out=q)
    with pytest.raises(mxforge.ArgumentError, match="out s must be contiguous"):
        wide = torch.full((4, 16), POISON, dtype=torch.uint8)
        mxforge.rotate_quant(x, out=(q, wide[:, :8]))
    q_np, s_np = q.numpy().copy(), s.numpy().copy()
    q_np.flags.writeable = False
    with pytest.raises(mxforge.ArgumentError, match="out q is a read-only numpy array"):
        mxforge.rotate_quant(x.view(torch.int16).numpy().view("uint16"), out=(q_np, s_np))
    assert (q == POISON).all() and (s == POISON).all() and (s_np == POISON).all()


def test_mixed_devices(rng):
    x = good_x(rng)
    q, s = poisoned_out()
    with pytest.raises(mxforge.ArgumentError, match="different devices"):
        mxforge.rotate_quant(x, out=(q.to("meta"), s))
    assert (q == POISON).all()


def test_every_family_has_its_kernel():
    assert mxforge.available_ops() == ["rotate_quant", "rotate_quant_moe", "rotate_quant_gemm",
                                       "quant_weight", "rmsnorm_rotate_quant"]


def test_reference_bad_input(rng):
    with pytest.raises(mxforge.SpecError, match="K=100"):
        mxforge.reference("rotate_quant:K=100", good_x(rng))
    with pytest.raises(mxforge.ArgumentError, match="1..256"):
        mxforge.reference(None, good_x(rng).repeat(65, 1))
