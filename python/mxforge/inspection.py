"""mxforge.inspect: facts about a spec, a bundle or a code object file."""

import ctypes
import os
from dataclasses import dataclass
from typing import List, Optional, Tuple

from . import _library as _lib
from . import _runner
from . import _contexts
from . import errors
from . import specs
from . import startup


@dataclass(frozen=True)
class LaunchGeometry:
    """How a kernel launches for m rows (mxf_kernel_get_launch)."""
    m: int
    grid: Tuple[int, int, int]        # workgroups
    workgroup: Tuple[int, int, int]   # work-items per workgroup
    lds_bytes: int
    max_rows: int
    abi_version: int
    code_bytes: int


@dataclass(frozen=True)
class SpecReport:
    spec: str                         # canonical, as given (its M kept)
    op: str
    operands: Tuple[specs.Operand, ...]   # at m rows
    kernel: startup.Kernel            # the kernel that serves m rows
    launch: LaunchGeometry


@dataclass(frozen=True)
class BundleReport:
    path: str
    bytes: int
    kernels: List[startup.Kernel]     # every entry, with its resources


@dataclass(frozen=True)
class CodeObjectReport:
    path: str
    bytes: int
    elf_class: int                    # 2: 64-bit
    machine: int                      # 224: AMDGPU
    note: str


_BUNDLE_MAGIC = b"MXFB"
_ELF_MAGIC = b"\x7fELF"


def inspect(spec_or_file, m=None, device=startup.DEFAULT_DEVICE):
    """For a spec: its canonical text, its operands at m rows (default: the
    spec's M; N for quant_weight, whose launches always take N rows), and the kernel and launch geometry that serve m rows (the
    kernel is found or compiled on `device`). For a bundle (.mxfb): every
    kernel in it with origin, bucket and resources (loaded into a private
    strict emu context, so nothing else sees it). For a .hsaco: what the
    ELF header says; the registers and instruction mix are `mxforge inspect
    FILE` (the C API does not read bare code objects)."""
    text = os.fspath(spec_or_file) if not isinstance(spec_or_file, str) else spec_or_file
    if specs.op_of(text) is None or os.path.exists(text):
        return _inspect_file(text)
    canonical = specs.canonical(text)
    if m is None:
        # The spec's M bucket, or N for an op without one (quant_weight).
        m = (int(canonical.split("M=")[1].split(",")[0]) if ",M=" in canonical
             else specs.spec_rows(canonical))
    rows = m
    operand_list = specs.operands(canonical, rows)
    context = _contexts.context(device)
    kernel = _runner.find_kernel(context, canonical, rows)
    launch = _lib.LaunchInfo()
    _lib.check(_lib.lib().mxf_kernel_get_launch(kernel, rows, ctypes.byref(launch)))
    ran_spec = _runner.kernel_info(kernel)[0]
    entry = next(k for k in startup.kernels(device) if k.spec == ran_spec)
    return SpecReport(
        spec=canonical, op=specs.op_of(canonical), operands=operand_list, kernel=entry,
        launch=LaunchGeometry(m=rows, grid=tuple(launch.grid), workgroup=tuple(launch.workgroup),
                              lds_bytes=launch.lds_bytes, max_rows=launch.max_rows,
                              abi_version=launch.abi_version, code_bytes=launch.code_bytes))


def _inspect_file(path):
    if not os.path.exists(path):
        raise errors.ArgumentError(f"{path}: no such file, and not a spec (op:key=value,...)")
    with open(path, "rb") as handle:
        head = handle.read(20)
    size = os.path.getsize(path)
    if head.startswith(_ELF_MAGIC):
        return CodeObjectReport(
            path=path, bytes=size, elf_class=head[4], machine=int.from_bytes(head[18:20],
                                                                              "little"),
            note="a bare code object; run `mxforge inspect FILE` for its kernels, registers "
                 "and instruction mix")
    # Anything else is tried as a bundle: the loader's message says what is wrong.
    library = _lib.lib()
    options = _lib.ContextOptions()
    library.mxf_context_options_init(ctypes.byref(options))
    options.device = b"emu"
    options.strict = 1
    options.cache_mode = 1  # MXF_CACHE_OFF
    context = ctypes.c_void_p()
    _lib.check(library.mxf_context_create(ctypes.byref(options), ctypes.byref(context)))
    try:
        _lib.check(library.mxf_load_bundle(context, _lib.c_string(path, "the bundle path"), None), errors.BundleError)
        listing = startup._kernels_of(context.value, "bundle")
    finally:
        library.mxf_context_destroy(context)
    return BundleReport(path=path, bytes=size, kernels=listing)
