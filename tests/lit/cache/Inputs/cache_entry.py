#!/usr/bin/env python3
"""cache_entry.py DIR SPEC [--kernel NAME] [--hsaco-bytes N] [--mtime UNIX]:
writes a valid mxforge cache entry for SPEC into DIR (docs/cache.md, "Entry
format") and prints its file name. Written from the documentation alone, with
Python's hashlib, so the lit tests also check that mxforge reads the format
the docs describe. The key uses fixed toolchain fields (mxforge 0.1.0, LLVM
22.1.8, gfx950, code object v5, template revision 1): `mxforge cache` checks
only that an entry's key matches its file name."""

import argparse
import hashlib
import os
import struct


def u32(value):
    return struct.pack("<I", value)


def u64(value):
    return struct.pack("<Q", value)


def string(text):
    data = text.encode()
    return u32(len(data)) + data


def cache_key(spec):
    fields = [("spec", spec), ("mxforge", "0.1.0"), ("llvm", "22.1.8"),
              ("target", "amdgcn-amd-amdhsa--gfx950"), ("cov", "5"), ("templates", "1")]
    text = "mxforge cache key v1\n" + "".join("%s=%s\n" % field for field in fields)
    return hashlib.sha256(text.encode()).digest()


def kernel_info(name):
    args = [("x", "global_buffer", "global", 0, 8), ("q", "global_buffer", "global", 8, 8),
            ("s", "global_buffer", "global", 16, 8), ("rows", "by_value", "", 24, 4)]
    out = string(name) + string("amdgcn-amd-amdhsa--gfx950")
    # code object version, kernarg size and alignment, vgprs, agprs, sgprs,
    # vgpr and sgpr spills, LDS, scratch, max workgroup size, wavefront size
    for value in (5, 28, 8, 39, 0, 20, 0, 0, 0, 0, 256, 64):
        out += u32(value)
    out += u32(len(args))
    for arg_name, kind, space, offset, size in args:
        out += string(arg_name) + string(kind) + string(space) + u32(offset) + u32(size)
    return out


def launch_record():
    # ABI version, workgroup size, grid x, rows per workgroup, row padding,
    # LDS bytes (the KernelInfo's: 0), rows served
    return b"".join(u32(v) for v in (2, 256, 16, 16, 1, 0, 256))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("spec")
    parser.add_argument("--kernel", default="mxf_test_kernel")
    parser.add_argument("--hsaco-bytes", type=int, default=1000)
    parser.add_argument("--mtime", type=int, default=1735787045)  # 2025-01-02 03:04:05 UTC
    options = parser.parse_args()

    hsaco = b"\x7fELF" + bytes(i % 251 for i in range(options.hsaco_bytes - 4))
    payload = (string(options.spec) + kernel_info(options.kernel) + launch_record() +
               u64(len(hsaco)) + hsaco)
    key = cache_key(options.spec)
    entry = (b"MXFCACHE" + u32(2) + key + u64(len(payload)) + hashlib.sha256(payload).digest()
             + payload)
    name = key.hex() + ".mxfc"
    path = os.path.join(options.dir, name)
    with open(path, "wb") as out:
        out.write(entry)
    os.utime(path, (options.mtime, options.mtime))
    print(name)


if __name__ == "__main__":
    main()
