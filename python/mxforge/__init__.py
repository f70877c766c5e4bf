"""mxforge from Python: fused rotation + MX quantization kernels for gfx950.

    import mxforge, torch
    x = torch.randn(4, 4096).to(torch.bfloat16)
    q, s = mxforge.rotate_quant(x, rs=64, scale="rceil")
    w_q, w_s = mxforge.quant_weight(w, rs=64, wlayout="preshuffle_16x16")  # w: [N, K]

A thin ctypes layer over libmxforge.so (the C API, docs/capi.md): CPU tensors
and numpy arrays run on the gfx950 emulator ("emu"), ROCm tensors on the GPU
("hip"). docs/python.md is the guide.
"""

from .errors import (Error, LibraryNotFoundError, SpecError, ArgumentError, ArgumentTypeError,
                     NotFoundError, CompileError, BundleError, LaunchError, DeviceError,
                     VersionError, InternalError)
from .families import FAMILIES, OpResult, available_ops
from .specs import canonical_spec, operands, Operand, check_spec
from .startup import (load_bundle, compile, kernels, cache_info, mark_startup_done, Kernel,
                      CacheInfo, CompileResult)
from .reference import reference
from .calibration import calibrate, Calibration, LayerCalibration
from .inspection import inspect
from .checkpoints import quantize_checkpoint, CheckpointReport
from .quantized_weights import (read_quantized_weight, QuantizedWeight, prepare_weight,
                                relayout_weight, shuffle_weight, rotation_fingerprint)
from .prepared import prepare, PreparedOp
from .benchmarks import bench, BenchRows
from ._runner import KernelRun
from ._library import library_path

__version__ = "0.1.0"



def __getattr__(name):
    # mxforge.<op> and mxforge.<Op>Result come from the library's op
    # interfaces (families.py), read on first use: every op the library
    # has, none restated here.
    import os
    if name.startswith("__") or os.path.exists(
            os.path.join(os.path.dirname(__file__), name + ".py")):
        # A submodule the import system asks for before loading it.
        raise AttributeError(f"module 'mxforge' has no attribute '{name}'")
    from . import families
    try:
        ops = families.FAMILIES
        if name in ops:
            made = families.function(name)
        else:
            by_type = {families.result_type_name(op): op for op in ops}
            if name not in by_type:
                raise AttributeError(f"module 'mxforge' has no attribute '{name}'")
            made = families.result_type(by_type[name])
    except LibraryNotFoundError:
        if name.startswith("_"):
            raise AttributeError(name) from None
        raise
    globals()[name] = made
    return made


def __dir__():
    from . import families
    try:
        ops = dict(families.FAMILIES)
    except LibraryNotFoundError:
        ops = {}
    return sorted(list(globals()) + list(ops) +
                  [families.result_type_name(op) for op, family in ops.items()
                   if len(family.outputs) > 1])


def version():
    """The library's version line, e.g. 'mxforge 0.1.0 (LLVM 22.1.8)'."""
    from . import _library
    return _library.lib().mxf_version_string().decode()


def _register_torch_ops():
    # torch is optional: numpy-only users never import it. When it is
    # importable, torch.ops.mxforge.* exist as soon as mxforge is imported.
    try:
        import torch  # noqa: F401
    except ImportError:
        return None
    from . import torch_ops
    return torch_ops.register()


TORCH_OPS = _register_torch_ops()
