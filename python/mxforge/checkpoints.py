"""Quantizing a safetensors checkpoint: what ``mxforge quantize`` does, from
Python (the C API's mxf_quantize_checkpoint, weights/checkpoint/ in the
library; docs/weights.md has the output convention).

    report = mxforge.quantize_checkpoint(
        "model/model.safetensors.index.json", "model-mxfp4",
        spec="quant_weight:RS=64,rot=hadamard,fmt=fp4",
        tensors=r".*\\.(q|k|v|o|gate|up|down)_proj\\.weight")
    print(report.summary)

Everything is checked before anything is written, and the outputs appear
only when all are complete. Errors are mxforge.ArgumentError with the
library's message, which names the options by their CLI flags (--tensors,
--force, ...): the keywords here have the same names.
"""

import ctypes
import os
from dataclasses import dataclass

from . import _library as _lib
from . import errors


@dataclass(frozen=True)
class CheckpointReport:
    summary: str  # "quantized N tensors ... into F files: OUT", and check's table
    notes: str    # where config.json went, stale temporaries removed, progress


def _path(value, name):
    if not isinstance(value, (str, os.PathLike)):
        raise errors.ArgumentTypeError(
            f"quantize_checkpoint(): {name} must be a path (str or os.PathLike), got "
            f"{type(value).__name__}")
    return _lib.c_string(os.fspath(value), name)


def _text(value, name):
    if not isinstance(value, str):
        raise errors.ArgumentTypeError(
            f"quantize_checkpoint(): {name} must be a str, got {type(value).__name__}")
    return _lib.c_string(value, name)


def _flag(value, name):
    if not isinstance(value, bool):
        raise errors.ArgumentTypeError(
            f"quantize_checkpoint(): {name} must be a bool, got {type(value).__name__}")
    return int(value)


def quantize_checkpoint(in_path, out_path, spec, tensors, rotation=None, threads=0, force=False,
                        check=False, progress=False, layer_mask=None):
    """Quantizes the tensors of `in_path` (a .safetensors file or a
    model.safetensors.index.json) whose full names match `tensors` (a POSIX
    extended regular expression over whole names) with `spec` (a
    quant_weight spec without K and N) into `out_path` (a file; a directory
    for a sharded input), on the host. `rotation`: the learned R
    (FILE.npy or FILE.safetensors[:TENSOR]) for rot=learned specs.
    `threads`: 0 for one per hardware thread. `force` replaces existing
    outputs; `check` adds a per-tensor error table to the summary;
    `progress` adds the progress line's redraws (bytes done, also inside a
    tensor) to the notes. `layer_mask`: FILE.npy (``calibrate(...).mask``
    saved with numpy, or ``mxforge calibrate --mask``): the tensors of the
    layers whose entry is 0 are quantized without the spec's rotation,
    recorded per tensor. Returns a CheckpointReport."""
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise errors.ArgumentTypeError(
            f"quantize_checkpoint(): threads must be an int, got {type(threads).__name__}")
    if threads < 0:  # the upper bound is the library's (kMaxQuantizeThreads)
        raise errors.ArgumentError(f"quantize_checkpoint(): threads={threads} is negative")
    library = _lib.lib()
    options = _lib.QuantizeOptions()
    library.mxf_quantize_options_init_size(ctypes.byref(options), ctypes.sizeof(options))
    options.in_path = _path(in_path, "in_path")
    options.out_path = _path(out_path, "out_path")
    options.spec = _text(spec, "spec")
    options.tensors = _text(tensors, "tensors")
    options.rotation = None if rotation is None else _path(rotation, "rotation")
    options.layer_mask = None if layer_mask is None else _path(layer_mask, "layer_mask")
    options.threads = threads
    options.force = _flag(force, "force")
    options.check = _flag(check, "check")
    options.progress = _flag(progress, "progress")
    streams = ([], [])

    def receive(_user, stream, text, length):
        streams[1 if stream else 0].append(ctypes.string_at(text, length).decode("utf-8",
                                                                                  "replace"))

    options.text = _lib.TextCallback(receive)  # kept alive by `options` until the call returns
    _lib.check(library.mxf_quantize_checkpoint(ctypes.byref(options)))
    return CheckpointReport(summary="".join(streams[0]), notes="".join(streams[1]))
