"""Start-up: bundles, parallel compiles, what is loaded, the disk cache."""

import ctypes
from dataclasses import dataclass
from typing import List, Optional

from . import _contexts
from . import _library as _lib
from . import errors
from . import specs

DEFAULT_DEVICE = "emu"


mark_startup_done = _contexts.mark_startup_done


def load_bundle(path, device=None):
    """Loads an AOT bundle (.mxfb). Without `device`: into every context
    there is and every one created later (the usual engine start-up, before
    the first launch); with one ("emu", "hip:0"): into that device's context
    only. Returns the number of kernels in it. BundleError names what is
    wrong with a bad file."""
    path = str(path)
    if device is None:
        return _contexts.load_bundle_everywhere(path)
    count = ctypes.c_size_t()
    _lib.check(_lib.lib().mxf_load_bundle(_contexts.context(device), _lib.c_string(path, "the bundle path"),
                                          ctypes.byref(count)), errors.BundleError)
    return count.value


@dataclass
class CompileResult:
    """One spec of compile(): `ok`, and either the kernel's `origin`
    ("bundle", "cache", "jit") or the `error` (an mxforge.Error)."""
    spec: str                       # as given
    canonical: Optional[str]        # None when the spec does not parse
    ok: bool
    origin: Optional[str] = None
    error: Optional[errors.Error] = None

    def raise_if_failed(self):
        if self.error is not None:
            raise self.error


def compile(specs_to_compile, threads=0, device=DEFAULT_DEVICE):
    """Makes every spec available on `device` (from a bundle, the cache or
    the JIT) on `threads` threads (0: one per core), through mxf_compile_all.
    Returns one CompileResult per spec, in order; a failing spec does not
    stop the others, and nothing is raised for it."""
    if isinstance(specs_to_compile, str):
        raise errors.ArgumentTypeError("compile() takes a list of specs, got one str "
                                       "(wrap it in a list)")
    given = list(specs_to_compile)
    library = _lib.lib()
    context = _contexts.context(device)
    encoded = [_lib.c_string(str(spec), "the spec", errors.SpecError) for spec in given]
    array = (ctypes.c_char_p * len(encoded))(*encoded)
    statuses = (ctypes.c_int * len(encoded))()
    library.mxf_compile_all(context, array, len(encoded), int(threads), statuses)
    origins = {entry.spec: entry.origin for entry in kernels(device)}
    results = []
    for spec, status in zip(given, statuses):
        try:
            canonical = specs.canonical(str(spec))
        except errors.Error:
            canonical = None
        if status == errors.SUCCESS:
            results.append(CompileResult(spec, canonical, True, origins.get(canonical)))
            continue
        # The table remembers failures, so asking for the one spec again
        # returns at once with its own message (mxf_compile_all reports only
        # the first failure's).
        again = library.mxf_compile(context, _lib.c_string(str(spec), "the spec", errors.SpecError))
        message = _lib.last_error() if again != errors.SUCCESS else "failed in mxf_compile_all"
        results.append(CompileResult(spec, canonical, False, error=errors.error_for(
            status, message, errors.SpecError)))
    return results


@dataclass(frozen=True)
class Kernel:
    """A kernel a context holds (mxf_context_get_kernel)."""
    spec: str
    name: str
    origin: str        # "bundle", "cache", "jit", "override" or "shared" (C API)
    source: str        # the bundle's path, the cache directory, "" for the JIT
    bucket: int
    produced: bool     # compiled, loaded from the cache, or asked for from a bundle
    on_device: bool    # loaded on the device for a launch
    vgprs: int
    sgprs: int
    lds_bytes: int
    scratch_bytes: int
    code_bytes: int
    device: str


def _kernels_of(context, device):
    library = _lib.lib()
    count = ctypes.c_size_t()
    _lib.check(library.mxf_context_kernel_count(context, ctypes.byref(count)))
    result = []
    for index in range(count.value):
        entry = _lib.KernelEntry()
        _lib.check(library.mxf_context_get_kernel(context, index, ctypes.byref(entry)))
        result.append(Kernel(
            spec=entry.spec.decode(), name=entry.name.decode(), origin=entry.origin.decode(),
            source=entry.source.decode(), bucket=entry.bucket, produced=bool(entry.produced),
            on_device=bool(entry.on_device), vgprs=entry.vgprs, sgprs=entry.sgprs,
            lds_bytes=entry.lds_bytes, scratch_bytes=entry.scratch_bytes,
            code_bytes=entry.code_bytes, device=device))
    return result


def kernels(device=None) -> List[Kernel]:
    """What is loaded and from where: every kernel of the loaded bundles and
    every kernel produced so far, of `device`'s context (None: of every
    context there is)."""
    if device is not None:
        return _kernels_of(_contexts.context(device), device)
    result = []
    for name, context in sorted(_contexts.existing().items()):
        result.extend(_kernels_of(context, name))
    return result


@dataclass(frozen=True)
class CacheInfo:
    enabled: bool
    directory: str     # "" when disabled
    source: str        # why: MXFORGE_CACHE_DIR, XDG_CACHE_HOME, HOME, MXFORGE_CACHE=0, ...
    entries: int       # on disk now
    total_bytes: int
    requests: int      # this process's kernel table on the device:
    from_bundle: int
    cache_hits: int
    compiled: int
    shared_code: int
    failures: int


def cache_info(device=DEFAULT_DEVICE):
    """The disk cache of `device`'s context: where it is, why there, what it
    holds, and the context's kernel-table counters."""
    raw = _lib.CacheInfo()
    _lib.check(_lib.lib().mxf_context_get_cache(_contexts.context(device), ctypes.byref(raw)))
    return CacheInfo(enabled=bool(raw.enabled), directory=raw.directory.decode(),
                     source=raw.source.decode(), entries=raw.entries,
                     total_bytes=raw.total_bytes, requests=raw.requests,
                     from_bundle=raw.from_bundle, cache_hits=raw.cache_hits,
                     compiled=raw.compiled, shared_code=raw.shared_code,
                     failures=raw.failures)
