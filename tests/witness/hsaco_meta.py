"""Reads what a launcher needs from an AMDGPU code object (hsaco), in pure Python.

- the `.amdgpu_metadata` note (NT_AMDGPU_METADATA, msgpack) with a tiny msgpack decoder
  (the `msgpack` package is used instead when it is installed, and the two are compared);
- each kernel's 64-byte kernel descriptor (`<name>.kd` symbol), for the kernarg preload length.

No third-party code: written for the witness corpus (tests/witness/README.md).
"""

import struct

NT_AMDGPU_METADATA = 32


class MsgpackError(ValueError):
    pass


def msgpack_decode(data):
    """Decodes one msgpack object (the subset LLVM's AMDGPU metadata uses, and a bit more)."""
    value, pos = _mp(data, 0)
    return value


def _mp(b, i):
    if i >= len(b):
        raise MsgpackError("truncated msgpack")
    t = b[i]
    i += 1
    if t <= 0x7F:
        return t, i
    if 0x80 <= t <= 0x8F:
        return _mp_map(b, i, t & 0x0F)
    if 0x90 <= t <= 0x9F:
        return _mp_arr(b, i, t & 0x0F)
    if 0xA0 <= t <= 0xBF:
        n = t & 0x1F
        return b[i:i + n].decode("utf-8"), i + n
    if t >= 0xE0:
        return t - 0x100, i
    if t == 0xC0:
        return None, i
    if t == 0xC2:
        return False, i
    if t == 0xC3:
        return True, i
    fixed = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
             0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q",
             0xCA: ">f", 0xCB: ">d"}
    if t in fixed:
        fmt = fixed[t]
        n = struct.calcsize(fmt)
        return struct.unpack_from(fmt, b, i)[0], i + n
    lens = {0xD9: ">B", 0xDA: ">H", 0xDB: ">I",   # str8/16/32
            0xC4: ">B", 0xC5: ">H", 0xC6: ">I",   # bin8/16/32
            0xDC: ">H", 0xDD: ">I",               # array16/32
            0xDE: ">H", 0xDF: ">I"}               # map16/32
    if t in lens:
        fmt = lens[t]
        n = struct.unpack_from(fmt, b, i)[0]
        i += struct.calcsize(fmt)
        if t in (0xD9, 0xDA, 0xDB):
            return b[i:i + n].decode("utf-8"), i + n
        if t in (0xC4, 0xC5, 0xC6):
            return bytes(b[i:i + n]), i + n
        if t in (0xDC, 0xDD):
            return _mp_arr(b, i, n)
        return _mp_map(b, i, n)
    raise MsgpackError("unsupported msgpack type byte 0x%02x" % t)


def _mp_arr(b, i, n):
    out = []
    for _ in range(n):
        v, i = _mp(b, i)
        out.append(v)
    return out, i


def _mp_map(b, i, n):
    out = {}
    for _ in range(n):
        k, i = _mp(b, i)
        v, i = _mp(b, i)
        out[k] = v
    return out, i


class Elf:
    def __init__(self, data):
        self.data = bytes(data)
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
            raise ValueError("not a little-endian ELF64 file")
        (self.e_type, self.e_machine, _, _, _, self.e_shoff, _, _, _, _,
         self.e_shentsize, self.e_shnum, self.e_shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", d, 16)
        self.e_flags = struct.unpack_from("<I", d, 48)[0]
        self.sections = []
        for k in range(self.e_shnum):
            off = self.e_shoff + k * self.e_shentsize
            (name, stype, flags, addr, offset, size, link, info, align, entsize) = struct.unpack_from(
                "<IIQQQQIIQQ", d, off)
            self.sections.append(dict(name_off=name, type=stype, flags=flags, addr=addr, offset=offset,
                                      size=size, link=link, info=info, entsize=entsize))
        shstr = self.sections[self.e_shstrndx]
        for s in self.sections:
            s["name"] = self._cstr(shstr["offset"] + s["name_off"])

    def _cstr(self, off):
        end = self.data.index(b"\0", off)
        return self.data[off:end].decode("utf-8", "replace")

    def section(self, name):
        for s in self.sections:
            if s["name"] == name:
                return s
        return None

    def notes(self):
        for s in self.sections:
            if s["type"] != 7:  # SHT_NOTE
                continue
            i, end = s["offset"], s["offset"] + s["size"]
            while i + 12 <= end:
                namesz, descsz, ntype = struct.unpack_from("<III", self.data, i)
                i += 12
                name = self.data[i:i + namesz].rstrip(b"\0").decode("utf-8", "replace")
                i += (namesz + 3) & ~3
                desc = self.data[i:i + descsz]
                i += (descsz + 3) & ~3
                yield name, ntype, desc

    def symbols(self):
        for s in self.sections:
            if s["type"] not in (2, 11):  # SHT_SYMTAB, SHT_DYNSYM
                continue
            strtab = self.sections[s["link"]]
            n = s["size"] // 24
            for k in range(n):
                off = s["offset"] + 24 * k
                st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from("<IBBHQQ", self.data, off)
                name = self._cstr(strtab["offset"] + st_name)
                yield dict(name=name, info=st_info, shndx=st_shndx, value=st_value, size=st_size,
                           table=s["name"])

    def bytes_at_vaddr(self, shndx, vaddr, n):
        sec = self.sections[shndx]
        off = sec["offset"] + (vaddr - sec["addr"])
        return self.data[off:off + n]


def amdgpu_metadata(hsaco):
    """The decoded NT_AMDGPU_METADATA map of a code object (bytes)."""
    elf = Elf(hsaco)
    for name, ntype, desc in elf.notes():
        if name == "AMDGPU" and ntype == NT_AMDGPU_METADATA:
            meta = msgpack_decode(desc)
            try:  # cross-check the hand-written decoder against the real one when present
                import msgpack  # noqa: F401
                ref = msgpack.unpackb(desc, raw=False, strict_map_key=False)
                if ref != meta:
                    raise RuntimeError("hand-written msgpack decoder disagrees with msgpack")
            except ImportError:
                pass
            return meta
    raise ValueError("no NT_AMDGPU_METADATA note")


def kernel_descriptor(hsaco, kernel_name):
    """Fields of the kernel descriptor `<kernel_name>.kd` (AMDGPUUsage, 'Kernel Descriptor')."""
    elf = Elf(hsaco)
    for sym in elf.symbols():
        if sym["name"] == kernel_name + ".kd":
            kd = elf.bytes_at_vaddr(sym["shndx"], sym["value"], 64)
            group, private, kernarg = struct.unpack_from("<III", kd, 0)
            entry = struct.unpack_from("<q", kd, 16)[0]
            rsrc3, rsrc1, rsrc2 = struct.unpack_from("<III", kd, 44)
            props, preload = struct.unpack_from("<HH", kd, 56)
            return {
                "group_segment_fixed_size": group,
                "private_segment_fixed_size": private,
                "kernarg_size": kernarg,
                "kernel_code_entry_byte_offset": entry,
                "compute_pgm_rsrc1": rsrc1,
                "compute_pgm_rsrc2": rsrc2,
                "compute_pgm_rsrc3": rsrc3,
                "kernel_code_properties": props,
                "kernarg_preload_length": preload & 0x7F,
                "kernarg_preload_offset": preload >> 7,
            }
    raise ValueError("no symbol %s.kd" % kernel_name)


def kernel_summary(hsaco, kernel_name=None):
    """One kernel's launch-relevant facts: explicit args, sizes, LDS, preload."""
    meta = amdgpu_metadata(hsaco)
    kernels = meta.get("amdhsa.kernels", [])
    if kernel_name is None:
        if len(kernels) != 1:
            raise ValueError("code object has %d kernels; name one" % len(kernels))
        k = kernels[0]
    else:
        ks = [k for k in kernels if k.get(".name") == kernel_name or k.get(".symbol") == kernel_name + ".kd"]
        if len(ks) != 1:
            raise ValueError("kernel %r not found (have %s)" % (kernel_name, [k.get(".name") for k in kernels]))
        k = ks[0]
    args = k.get(".args", [])
    explicit = [a for a in args if not str(a.get(".value_kind", "")).startswith("hidden_")]
    hidden = [a for a in args if str(a.get(".value_kind", "")).startswith("hidden_")]
    out = {
        "name": k.get(".name"),
        "symbol": k.get(".symbol"),
        "amdhsa.version": meta.get("amdhsa.version"),
        "amdhsa.target": meta.get("amdhsa.target"),
        "kernarg_segment_size": k.get(".kernarg_segment_size"),
        "kernarg_segment_align": k.get(".kernarg_segment_align"),
        "group_segment_fixed_size": k.get(".group_segment_fixed_size"),
        "private_segment_fixed_size": k.get(".private_segment_fixed_size"),
        "wavefront_size": k.get(".wavefront_size"),
        "max_flat_workgroup_size": k.get(".max_flat_workgroup_size"),
        "sgpr_count": k.get(".sgpr_count"),
        "vgpr_count": k.get(".vgpr_count"),
        "agpr_count": k.get(".agpr_count"),
        "explicit_args": [{"offset": a.get(".offset"), "size": a.get(".size"), "kind": a.get(".value_kind"),
                           "name": a.get(".name")} for a in explicit],
        "hidden_args": [a.get(".value_kind") for a in hidden],
    }
    try:
        out["descriptor"] = kernel_descriptor(hsaco, out["name"])
    except ValueError as e:
        out["descriptor_error"] = str(e)
    return out


if __name__ == "__main__":
    import json
    import sys
    with open(sys.argv[1], "rb") as f:
        print(json.dumps(kernel_summary(f.read(), sys.argv[2] if len(sys.argv) > 2 else None), indent=1))
