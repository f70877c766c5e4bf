#!/usr/bin/env python3
"""Builds, inspects and damages safetensors files for the quantize tests.

Pure Python (struct + json), written from the format's description
(8-byte little-endian header length, JSON header, data), so that the tests
do not check mxforge's reader with mxforge's writer.

  sttool.py make OUT NAME:DTYPE:DIMxDIM[:SEED] ... [--meta KEY=VALUE]
  sttool.py shards DIR INDEX SHARD=NAME:DTYPE:SHAPE,NAME:... ...
  sttool.py info FILE                 tensors (sorted) and metadata
  sttool.py same A B NAME...          tensors byte-identical in A and B
  sttool.py tonpy FILE NAME OUT.npy   a BF16 tensor as <u2, U8 as |u1
  sttool.py eqnpy FILE NAME NPY       tensor bytes equal the .npy's data
  sttool.py raw OUT HEADER_TEXT DATA_BYTES   a file with any header
  sttool.py truncate FILE OUT BYTES
  sttool.py jsonget FILE KEY.PATH ... each value as compact JSON (sorted keys)
  sttool.py jsonsame A B KEY ...     A and B equal except top-level KEYs
"""
import json
import random
import struct
import sys

ITEM = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
        "I32": 4, "U32": 4, "F32": 4, "I64": 8, "U64": 8, "F64": 8}


def bf16_bytes(count, rng):
    out = bytearray()
    for _ in range(count):
        # Weights-like: sign, exponent 2^-12..2^-2, random mantissa.
        sign = rng.getrandbits(1) << 15
        exponent = rng.randint(127 - 12, 127 - 2) << 7
        out += struct.pack("<H", sign | exponent | rng.getrandbits(7))
    return bytes(out)


def tensor_spec(text):
    parts = text.split(":")
    name, dtype, shape = parts[0], parts[1], parts[2]
    seed = int(parts[3]) if len(parts) > 3 else hash(name) & 0xFFFF
    dims = [int(d) for d in shape.split("x")] if shape else []
    return name, dtype, dims, seed


def tensor_bytes(dtype, dims, seed):
    rng = random.Random(seed)
    count = 1
    for d in dims:
        count *= d
    if dtype == "BF16":
        return bf16_bytes(count, rng)
    return bytes(rng.getrandbits(8) for _ in range(count * ITEM[dtype]))


def write(path, tensors, meta):
    header, data = {}, bytearray()
    if meta:
        header["__metadata__"] = meta
    for name, dtype, dims, blob in tensors:
        header[name] = {"dtype": dtype, "shape": dims,
                        "data_offsets": [len(data), len(data) + len(blob)]}
        data += blob
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + bytes(data))
    return len(data)


def read(path):
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    meta = header.pop("__metadata__", {})
    base = 8 + n
    tensors = {k: (v["dtype"], v["shape"], blob[base + v["data_offsets"][0]:base + v["data_offsets"][1]])
               for k, v in header.items()}
    return tensors, meta


def npy_bytes(path):
    with open(path, "rb") as f:
        blob = f.read()
    assert blob[:6] == b"\x93NUMPY"
    (hlen,) = struct.unpack("<H", blob[8:10])
    return blob[10 + hlen:]


def main(argv):
    cmd = argv[1]
    if cmd == "make":
        meta = {}
        tensors = []
        for arg in argv[3:]:
            if arg.startswith("--meta"):
                continue
            if "=" in arg and ":" not in arg:
                k, v = arg.split("=", 1)
                meta[k] = v
                continue
            name, dtype, dims, seed = tensor_spec(arg)
            tensors.append((name, dtype, dims, tensor_bytes(dtype, dims, seed)))
        write(argv[2], tensors, meta)
    elif cmd == "shards":
        directory, index = argv[2], argv[3]
        weight_map, total = {}, 0
        for arg in argv[4:]:
            shard, specs = arg.split("=", 1)
            tensors = []
            for spec in specs.split(","):
                name, dtype, dims, seed = tensor_spec(spec)
                tensors.append((name, dtype, dims, tensor_bytes(dtype, dims, seed)))
                weight_map[name] = shard
            total += write(directory + "/" + shard, tensors, {"format": "pt"})
        with open(directory + "/" + index, "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
    elif cmd == "info":
        tensors, meta = read(argv[2])
        for name in sorted(tensors):
            dtype, shape, blob = tensors[name]
            print("%s %s %s %d" % (name, dtype, "x".join(map(str, shape)), len(blob)))
        for k in sorted(meta):
            print("meta %s=%s" % (k, meta[k]))
    elif cmd == "same":
        a, _ = read(argv[2])
        b, _ = read(argv[3])
        for name in argv[4:]:
            if a[name] != b[name]:
                sys.exit("differ: " + name)
            print("same " + name)
    elif cmd == "tonpy":
        tensors, _ = read(argv[2])
        dtype, shape, blob = tensors[argv[3]]
        descr = {"BF16": "<u2", "U8": "|u1"}[dtype]
        header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
            descr, "".join("%d, " % d for d in shape))
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        with open(argv[4], "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + blob)
    elif cmd == "eqnpy":
        tensors, _ = read(argv[2])
        if tensors[argv[3]][2] != npy_bytes(argv[4]):
            sys.exit("differ: %s vs %s" % (argv[3], argv[4]))
        print("equal " + argv[3])
    elif cmd == "raw":
        text = argv[3].encode()
        with open(argv[2], "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text + b"\0" * int(argv[4]))
    elif cmd == "truncate":
        with open(argv[2], "rb") as f:
            blob = f.read()
        with open(argv[3], "wb") as f:
            f.write(blob[:int(argv[4])])
    elif cmd == "jsonget":
        with open(argv[2]) as f:
            root = json.load(f)
        for path in argv[3:]:
            value = root
            for key in path.split("."):
                value = value[int(key)] if isinstance(value, list) else value[key]
            print("%s=%s" % (path, json.dumps(value, sort_keys=True, separators=(",", ":"))))
    elif cmd == "jsonsame":
        with open(argv[2]) as f:
            a = json.load(f)
        with open(argv[3]) as f:
            b = json.load(f)
        for key in argv[4:]:
            a.pop(key, None)
            b.pop(key, None)
        if a != b or list(a) != list(b):
            sys.exit("differ: %s vs %s" % (sorted(a), sorted(b)))
        print("same except " + ",".join(argv[4:]))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
