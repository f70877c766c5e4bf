"""One process-wide mxf_context per device, created on first use.

Devices are named "emu" (the gfx950 emulator, for CPU tensors and numpy
arrays) and "hip:N" (the AMD GPU of torch device cuda:N on a ROCm torch).
Creation is guarded by a lock; after that the C API is thread-safe on its
own (docs/capi.md), so launches from many threads share one context.

Bundles given to load_bundle(path) without a device are remembered and
loaded into every context, including those created later, so an engine can
load its bundle before it knows which devices it will use.

Fork: a child gets a copy of the parent's memory but none of its threads,
so a context the parent built must not be used there: a HIP context does
not survive fork, and a context lock that another parent thread held at
the moment of the fork would never be released in the child. os.register_at_fork makes the child forget the parent's
contexts (without destroying them: that would run the parent's teardown in
the child); the child then creates its own on first use.
"""

import ctypes
import os
import threading

from . import _library as _lib
from . import errors

_CACHE_FROM_ENVIRONMENT = 0

_lock = threading.Lock()
_contexts = {}        # device name -> mxf_context pointer (int)
_bundles = []         # paths loaded into every context, in order
_startup_done = False  # mark_startup_done() was called: contexts created later get it too
_late_jit = None       # the policy mark_startup_done() set, or None (MXFORGE_JIT's)
_LATE_JIT = {"allow": 0, "warn": 1, "error": 2}  # mxf_late_jit


def _create(device):
    library = _lib.lib()
    options = _lib.ContextOptions()
    library.mxf_context_options_init(ctypes.byref(options))
    kind, _, index = device.partition(":")
    options.device = kind.encode()
    # "hip:1" is GPU 1; "hip" the caller's current GPU (the options' default).
    if index.isdigit():
        options.device_ordinal = int(index)
    options.cache_mode = _CACHE_FROM_ENVIRONMENT
    handle = ctypes.c_void_p()
    _lib.check(library.mxf_context_create(ctypes.byref(options), ctypes.byref(handle)),
               errors.ArgumentError)
    for path in _bundles:
        _lib.check(library.mxf_load_bundle(handle, _lib.c_string(path, "the bundle path"), None), errors.BundleError)
    if _startup_done:
        _apply_startup_done(handle.value)
    return handle.value


def _apply_startup_done(handle):
    library = _lib.lib()
    if _late_jit is not None:
        _lib.check(library.mxf_context_set_late_jit(handle, _LATE_JIT[_late_jit]))
    _lib.check(library.mxf_context_mark_startup_done(handle))


def mark_startup_done(late_jit=None):
    """The engine's start-up is over (docs/jit.md): from now on a JIT compile
    in any context, now or created later, is allowed, warned about once per
    code spec, or refused, as `late_jit` ("allow", "warn", "error") or else
    MXFORGE_JIT says. Kernels from bundles and the disk cache are never late."""
    global _startup_done, _late_jit
    if late_jit is not None and late_jit not in _LATE_JIT:
        raise errors.ArgumentError(f"late_jit must be one of allow, warn, error, got "
                                   f"{late_jit!r}")
    with _lock:
        _startup_done = True
        _late_jit = late_jit
        for handle in _contexts.values():
            _apply_startup_done(handle)


def context(device="emu"):
    """The context of `device`, created on first use."""
    found = _contexts.get(device)
    if found is not None:
        return found
    with _lock:
        found = _contexts.get(device)
        if found is None:
            found = _create(device)
            _contexts[device] = found
        return found


def current(device):
    """The context of `device` if one exists, else None; no lock (a dict
    read), for per-call checks."""
    return _contexts.get(device)


def existing():
    """The contexts created so far: {device: pointer}."""
    with _lock:
        return dict(_contexts)


def load_bundle_everywhere(path):
    """Loads `path` into every context now and remembers it for later ones.
    Returns the kernel count."""
    library = _lib.lib()
    count = ctypes.c_size_t()
    with _lock:
        contexts = list(_contexts.values())
        if not contexts:
            # Nothing to load into yet: check the file now, on a scratch
            # context, so that a bad bundle fails here and not later.
            contexts = [_create("emu")]
            _contexts["emu"] = contexts[0]
        for handle in contexts:
            _lib.check(library.mxf_load_bundle(handle, _lib.c_string(path, "the bundle path"), ctypes.byref(count)),
                       errors.BundleError)
        _bundles.append(path)
    return count.value


def _forget_in_child():
    global _lock, _contexts
    _lock = threading.Lock()
    _contexts = {}


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
