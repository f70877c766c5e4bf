#!/usr/bin/env python3
"""Activation samples with known character for `mxforge calibrate`'s lit test.

  calibration_samples.py DIR K       DIR/{00_gaussian,01_outliers,02_signs}.npy and
                                     DIR.safetensors with the same three layers

00_gaussian: N(0, 1) rows as bf16 bits ([64, K] uint16): a Hadamard rotation keeps
them Gaussian, so it gains nothing. 01_outliers: float32 [4, 16, K] with channel
5 of every 32 times 20 (the rotation removes most of the error). 02_signs: +-1 as
bf16 bits, exact in fp4 without rotation (the rotation only adds error).
Seeded: the same files every run.
"""

import json
import os
import struct
import sys

import numpy as np


def bf16(values):
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def main():
    directory, k = sys.argv[1], int(sys.argv[2])
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(12)
    gaussian = bf16(rng.standard_normal((64, k)))
    outliers = rng.standard_normal((4, 16, k)).astype(np.float32)
    outliers[..., 5::32] *= 20
    signs = bf16(np.sign(rng.standard_normal((64, k)) + 1e-9))
    layers = {"00_gaussian": gaussian, "01_outliers": outliers, "02_signs": signs}
    for name, array in layers.items():
        np.save(os.path.join(directory, name + ".npy"), array)
    # The same layers in one safetensors file (BF16 and F32 tensors).
    header, blobs, offset = {}, [], 0
    for name, array in layers.items():
        data = array.tobytes()
        header[name] = {"dtype": "BF16" if array.dtype == np.uint16 else "F32",
                        "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(directory + ".safetensors", "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


main()
