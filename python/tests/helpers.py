"""Random specs and inputs, the byte comparator and safetensors files, for the tests."""

import json
import os
import random
import struct
import subprocess

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_SEED = None


def session_seed():
    global _SEED
    if _SEED is None:
        fixed = os.environ.get("MXFORGE_TEST_SEED")
        _SEED = int(fixed, 0) if fixed else random.SystemRandom().randrange(2**63)
    return _SEED


# What the rotate_quant template compiles (templates/rotate_quant/tiling.cpp:
# fp4, round=rne, no butterfly); the spec grammar allows more.
SCALES = ("floor", "even", "rceil", "rceil_recip", "ceil", "even126")
ROTATIONS = ("hadamard", "learned", "learned_per_block")


def random_keys(rng, max_k=1024):
    """Keyword spec keys of a random compilable rotate_quant spec."""
    rs = rng.choice((0, 32, 64, 128, 256))
    step = max(32, rs)
    k = step * rng.randint(1, max_k // step)
    keys = {"k": k, "rs": rs, "scale": rng.choice(SCALES), "inter": rng.choice(("f32", "bf16")),
            "layout": rng.choice(("plain", "a4w4_shuffle"))}
    if rs:
        keys["rot"] = rng.choice(ROTATIONS)
    return keys


def random_m(rng):
    # Mostly decode-sized batches (the emulator is slow), sometimes a bucket edge.
    return rng.choice((1, 2, 3, 5, 8, 13, 16, 17, 31, 32, 33)) if rng.random() < 0.9 \
        else rng.choice((64, 100))


def bf16_bits(values):
    """float32 -> bf16 bit patterns (uint16), rounding to nearest even."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def random_x(rng, m, k, width=None, gap_value=0x7FC0):
    """[m, k] bf16 bits with outliers; with `width` > k, a view into wider
    rows whose gap holds `gap_value` (a NaN by default)."""
    gen = np.random.default_rng(rng.randrange(2**63))
    values = gen.standard_normal((m, k)).astype(np.float32)
    values *= np.where(gen.random((m, k)) < 0.02, 30.0, 1.0).astype(np.float32)
    if width is None:
        return bf16_bits(values)
    wide = np.full((m, width), gap_value, dtype=np.uint16)
    wide[:, :k] = bf16_bits(values)
    return wide[:, :k]


def random_r(rng, keys):
    """The learned rotation a spec needs, or None."""
    rot, rs, k = keys.get("rot"), keys["rs"], keys["k"]
    if rot not in ("learned", "learned_per_block"):
        return None
    gen = np.random.default_rng(rng.randrange(2**63))
    shape = (rs, rs) if rot == "learned" else (k // rs, rs, rs)
    return bf16_bits(gen.standard_normal(shape).astype(np.float32) * 0.125)


def to_torch(bits):
    import torch
    return torch.from_numpy(np.ascontiguousarray(bits).view(np.int16)).view(torch.bfloat16)


def as_numpy_bytes(array):
    try:
        import torch
        if isinstance(array, torch.Tensor):
            if array.dtype == torch.bfloat16:  # numpy has no bf16: its bits
                array = array.view(torch.int16)
            array = array.numpy()
    except ImportError:
        pass
    return np.asarray(array).view(np.uint8)


def mismatch(actual, expected, what):
    """None if the arrays are byte-identical, else a message naming the first
    differing byte (index, both values) and how many differ."""
    a, e = as_numpy_bytes(actual), as_numpy_bytes(expected)
    if a.shape != e.shape:
        return f"{what}: shape {a.shape} != expected {e.shape}"
    differ = np.argwhere(a != e)
    if not len(differ):
        return None
    first = tuple(int(i) for i in differ[0])
    return (f"{what}: {len(differ)} bytes differ; first at {first}: {a[first]:#04x} != "
            f"expected {e[first]:#04x}")


def cli():
    """The mxforge CLI of this build (ctest sets MXFORGE_CLI)."""
    path = os.environ.get("MXFORGE_CLI", os.path.join(REPO, "build", "tools", "mxforge",
                                                      "mxforge"))
    assert os.path.exists(path), f"the mxforge CLI is needed to write a bundle and for the " \
                                 f"quant_weight reference: {path} (build target mxforge or " \
                                 f"set MXFORGE_CLI)"
    return path


def cli_reference(directory, spec, inputs, outputs=("q", "s"), m=None):
    """The outputs (q, s by default) of `mxforge ref --spec SPEC` (the
    numerics reference, arrays/reference_arrays.cpp) on `inputs` ({name:
    numpy array}, made dense), as numpy arrays. The C API's mxf_reference has
    only rotate_quant; the CLI's reference has every op."""
    args = [cli(), "ref", "--spec", spec]
    if m is not None:
        args += ["--M", str(m)]
    for name, array in inputs.items():
        path = os.path.join(directory, f"{name}.npy")
        np.save(path, np.ascontiguousarray(array))
        args += ["--in", f"{name}={path}"]
    paths = {name: os.path.join(directory, f"ref_{name}.npy") for name in outputs}
    for name, path in paths.items():
        args += ["--out", f"{name}={path}"]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, f"mxforge ref failed: {done.stdout}{done.stderr}"
    return tuple(np.load(paths[name]) for name in outputs)


def write_safetensors(path, tensors):
    """tensors: {name: (dtype text, numpy array)} -> a .safetensors file."""
    header, blobs, offset = {}, [], 0
    for name, (dtype, array) in tensors.items():
        data = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path, metadata=False):
    """{name: bytes} of a .safetensors file, and its __metadata__ when
    `metadata` is true."""
    with open(path, "rb") as source:
        data = source.read()
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + size])
    body = data[8 + size:]
    tensors = {name: body[info["data_offsets"][0]:info["data_offsets"][1]]
               for name, info in header.items() if name != "__metadata__"}
    return (tensors, header.get("__metadata__", {})) if metadata else tensors
