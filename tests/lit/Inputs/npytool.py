#!/usr/bin/env python3
"""Inspect and build .npy files for the mxforge lit tests, without numpy.

  npytool.py info FILE...                 header fields, data size and checksum
  npytool.py values FILE [COUNT [START]]  COUNT elements (default all) from START
  npytool.py make FILE DICT DATA [--version 1|2] [--magic BYTES]
                                          a .npy file with this header dict text and
                                          DATA: a byte count (bytes 0, 1, 2, ...), or
                                          FMT:V,V,... packed with struct format FMT
  npytool.py cut FILE LENGTH OUT          the first LENGTH bytes of FILE (negative:
                                          all but the last -LENGTH)

info parses the header independently of mxforge (ast.literal_eval, as numpy
does) and checks what numpy checks, so a file that passes is one numpy loads.
"""

import ast
import hashlib
import os
import struct
import sys

MAGIC = b"\x93NUMPY"
ITEM = {"|u1": ("B", 1), "<u1": ("B", 1), "<u2": ("<H", 2), "<i4": ("<i", 4), "<f4": ("<f", 4)}


def read(path):
    data = open(path, "rb").read()
    if not data.startswith(MAGIC):
        raise SystemExit("%s: bad magic" % path)
    major, minor = data[6], data[7]
    if (major, minor) == (1, 0):
        (length,), start = struct.unpack("<H", data[8:10]), 10
    elif (major, minor) in ((2, 0), (3, 0)):
        (length,), start = struct.unpack("<I", data[8:12]), 12
    else:
        raise SystemExit("%s: version %d.%d" % (path, major, minor))
    header = data[start:start + length].decode("latin1")
    fields = ast.literal_eval(header)
    if sorted(fields) != ["descr", "fortran_order", "shape"]:
        raise SystemExit("%s: header keys %s" % (path, sorted(fields)))
    body = data[start + length:]
    count = 1
    for dim in fields["shape"]:
        count *= dim
    _, size = ITEM[fields["descr"]]
    if len(body) != count * size:
        raise SystemExit("%s: %d data bytes for %d elements" % (path, len(body), count))
    return (major, minor), start + length, header, fields, body


def info(paths):
    for path in paths:
        version, data_at, header, fields, body = read(path)
        print("%s: version=%d.%d descr=%s fortran_order=%s shape=%s aligned=%s newline=%s "
              "data_bytes=%d sha256=%s" % (
                  os.path.basename(path), version[0], version[1], fields["descr"],
                  fields["fortran_order"], tuple(fields["shape"]), data_at % 64 == 0,
                  header.endswith("\n"), len(body), hashlib.sha256(body).hexdigest()[:16]))


def values(path, count=None, start="0"):
    _, _, _, fields, body = read(path)
    fmt, size = ITEM[fields["descr"]]
    total, first = len(body) // size, int(start)
    last = total if count is None else min(total, first + int(count))
    print(" ".join(str(struct.unpack_from(fmt, body, i * size)[0]) for i in range(first, last)))


def make(path, text, data, version="1", magic=None):
    prefix = (magic.encode("latin1").decode("unicode_escape").encode("latin1")
              if magic is not None else MAGIC)
    length_bytes = 2 if version == "1" else 4
    header = text.encode("latin1")
    total = len(prefix) + 2 + length_bytes + len(header) + 1
    header += b" " * ((64 - total % 64) % 64) + b"\n"
    out = prefix + bytes([int(version), 0])
    out += struct.pack("<H" if length_bytes == 2 else "<I", len(header))
    if ":" in data:
        fmt, items = data.split(":", 1)
        body = b"".join(struct.pack(fmt, int(v)) for v in items.split(",") if v)
    else:
        body = bytes(i % 256 for i in range(int(data)))
    out += header + body
    open(path, "wb").write(out)


def cut(path, length, out):
    data = open(path, "rb").read()
    length = int(length)
    open(out, "wb").write(data[:length] if length >= 0 else data[:len(data) + length])


def main(argv):
    command, args = argv[1], argv[2:]
    if command == "info":
        info(args)
    elif command == "values":
        values(*args)
    elif command == "make":
        options = {}
        while len(args) > 3:
            options[args[-2].lstrip("-")] = args[-1]
            args = args[:-2]
        make(*args, **options)
    elif command == "cut":
        cut(*args)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
