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
from .families import (FAMILIES, RotateQuantResult, QuantWeightResult, RotateQuantMoeResult,
                       available_ops)
from .families import FUNCTIONS as _FUNCTIONS
from .specs import canonical_spec, operands, Operand
from .startup import (load_bundle, compile, kernels, cache_info, mark_startup_done, Kernel,
                      CacheInfo, CompileResult)
from .reference import reference
from .calibration import calibrate, Calibration, LayerCalibration
from .inspection import inspect
from .checkpoints import quantize_checkpoint, CheckpointReport
from .prepared import prepare, PreparedOp
from ._runner import KernelRun
from ._library import library_path

__version__ = "0.1.0"

rotate_quant = _FUNCTIONS["rotate_quant"]
quant_weight = _FUNCTIONS["quant_weight"]
rotate_quant_moe = _FUNCTIONS["rotate_quant_moe"]
# A family whose kernel has not landed: calling it raises mxforge.Error
# saying so (see FAMILIES[op].note).
rotate_quant_gemm = _FUNCTIONS["rotate_quant_gemm"]


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
