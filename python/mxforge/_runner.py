"""Runs one kernel of any family on argument arrays: the generic part.

A family (families.py) says which arguments are inputs and outputs and
which input gives the row count (or none: then m is the spec's N, as for
quant_weight); everything else (operand order, element types, shapes at m
rows, which operands take a row stride) comes from the C library's own ABI
(mxf_spec_get_operands), so a new family needs no code here.

Nothing is written to a caller's `out=` arrays unless the launch succeeded:
every check runs first, and on emu the results are copied out last.
"""

import contextlib
import ctypes
import threading

import numpy as np

from . import _arrays
from . import _contexts
from . import _library as _lib
from . import errors
from . import specs

# Kernels stay valid while their context lives; their info never changes.
_kernel_info = {}
_kernel_info_lock = threading.Lock()


class KernelRun:
    """What ran: the canonical spec (its M the bucket), the kernel, its origin."""
    __slots__ = ("spec", "name", "origin", "bucket", "device", "m")

    def __init__(self, spec, name, origin, bucket, device, m):
        self.spec, self.name, self.origin = spec, name, origin
        self.bucket, self.device, self.m = bucket, device, m

    def __repr__(self):
        return (f"KernelRun(spec='{self.spec}', name='{self.name}', origin='{self.origin}', "
                f"device='{self.device}', m={self.m})")


def kernel_info(kernel):
    info = _kernel_info.get(kernel)
    if info is None:
        raw = _lib.KernelInfo()
        _lib.check(_lib.lib().mxf_kernel_get_info(kernel, ctypes.byref(raw)))
        info = (raw.spec.decode(), raw.name.decode(), raw.origin.decode(), raw.bucket)
        with _kernel_info_lock:
            _kernel_info[kernel] = info
    return info


def find_kernel(context, spec, m):
    kernel = ctypes.c_void_p()
    _lib.check(_lib.lib().mxf_find_kernel(context, _lib.c_string(spec, "the spec", errors.SpecError), int(m), ctypes.byref(kernel)),
               errors.LaunchError)
    return kernel.value


def _row_stride(view):
    """The row stride of a 2-D view in elements (a single row: its width)."""
    if view.shape[0] <= 1:
        return view.shape[1]
    return view.strides[0]


def _check_layout(view, operand, spec):
    """Shape and strides of `view` against `operand` at m rows (ArgumentError)."""
    if len(view.shape) != len(operand.shape):
        raise errors.ArgumentError(
            f"{view.name} must have {len(operand.shape)} dimensions {list(operand.shape)}, "
            f"got shape {list(view.shape)} (spec {spec})")
    if tuple(view.shape) != tuple(operand.shape):
        raise errors.ArgumentError(
            f"{view.name} must have shape {list(operand.shape)}, got {list(view.shape)} "
            f"(spec {spec})")
    if view.strides and view.strides[-1] != 1 and view.shape[-1] > 1:
        raise errors.ArgumentError(
            f"{view.name} has stride {view.strides[-1]} along its last dimension; mxforge "
            f"needs unit stride there (only rows may be strided: make it .contiguous())")
    if operand.strided:
        if _row_stride(view) < view.shape[1]:
            raise errors.ArgumentError(
                f"{view.name} has row stride {view.strides[0]}, below its row of "
                f"{view.shape[1]} elements")
        return
    expected = 1
    for extent, stride in reversed(list(zip(view.shape, view.strides))):
        if extent > 1 and stride != expected:
            raise errors.ArgumentError(
                f"{view.name} must be contiguous (strides {list(view.strides)} for shape "
                f"{list(view.shape)}); {view.name} of this spec has no row-stride argument, "
                f"so its rows must be dense (spec {spec})")
        expected *= extent


def _target_device(views):
    devices = {view.device for view in views}
    if len(devices) > 1:
        listing = ", ".join(f"{view.name} on {view.device}" for view in views)
        raise errors.ArgumentError(f"the arguments are on different devices: {listing}")
    device = devices.pop()
    if device == "cpu":
        return "emu"
    if device.startswith("hip:"):
        return device
    name = views[0].name
    raise errors.ArgumentError(
        f"{name} is on device {device}: mxforge runs CPU tensors and numpy arrays on the "
        f"emulator and ROCm (HIP) tensors on the GPU")


def _selection_value(spec, selection):
    """The launch's selection value for `spec` (None when the spec has no
    select key), or ArgumentError naming the keyword the spec needs."""
    wanted = specs.selection_arg(spec)
    given = selection[0] if selection else None
    if wanted is None:
        if given is not None:
            raise errors.ArgumentError(
                f"{given}= is given, but {spec} always rotates (add select=flag or "
                f"select=mask,layers=N to choose per launch)")
        return None
    if given != wanted:
        need = ("rotate=True or rotate=False" if wanted == "rotate" else
                "layer=<index> and layer_mask=<[layers] int32>")
        raise errors.ArgumentError(f"{spec} chooses its rotation per launch: pass {need}")
    value = selection[1]
    if not -2**31 <= value < 2**31:
        raise errors.ArgumentError(f"{given}={value} does not fit the kernel's int32")
    return value


def _launch_values(family, spec, selection, values):
    """The launch's by-value values by name: the selection's (rotate or
    layer) and the op's own (eps), each a number; the library checks their
    names and ranges (mxf_launch_values)."""
    launch = {}
    selection_value = _selection_value(spec, selection)
    if selection_value is not None:
        launch[selection[0]] = selection_value
    for name, value in (values or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise errors.ArgumentTypeError(
                f"{name} must be a float, got {type(value).__name__}")
        launch[name] = float(value)
    missing = [name for name in family.values if name not in launch]
    if missing:
        raise errors.ArgumentTypeError(f"{family.op} needs {', '.join(missing)}= (by value)")
    return launch


def run(family, spec, arrays, out=None, known_views=None, selection=None, prepared=None,
        values=None):
    """Launches `spec` (a canonical spec of `family`) on `arrays` ({name:
    value} of the inputs given; `known_views` the ArrayViews already made of
    some). `selection` is selective rotation's ("rotate"|"layer", value),
    `values` the op's by-value values ({"eps": 1e-6}). `prepared` (a
    PreparedOp's) resolves the kernel for a device and m and holds the
    operands already in emulator memory. Returns ({output name: array or
    None for an output the spec does not write}, KernelRun)."""
    launch_values = _launch_values(family, spec, selection, values)
    known_views = known_views or {}
    views = {}
    for name in family.inputs:
        value = arrays.get(name)
        if value is not None:
            views[name] = value
    if family.rows_from is None:
        # No rows input (quant_weight): a launch always processes the spec's
        # N rows, so m is N and the inputs' shapes are checked against it.
        m = specs.spec_rows(spec)
    else:
        rows_view = known_views.get(family.rows_from) or _arrays.view(
            views[family.rows_from], family.rows_from, family.elements[family.rows_from])
        known_views = dict(known_views, **{family.rows_from: rows_view})
        if len(rows_view.shape) < 1:
            raise errors.ArgumentError(f"{family.rows_from} must have rows, got a 0-d array")
        m = rows_view.shape[0]
    operand_list = specs.operands(spec, m)
    by_name = {operand.name: operand for operand in operand_list}

    inputs = {}
    for name, value in views.items():
        if name not in by_name:
            raise errors.ArgumentError(f"{name} is given, but {spec} takes no {name}")
        operand = by_name[name]
        view = known_views.get(name) or _arrays.view(value, name, operand.element)
        _check_layout(view, operand, spec)
        inputs[name] = view
    for operand in operand_list:
        if not operand.is_output and operand.name not in inputs and not operand.is_workspace:
            raise errors.ArgumentError(f"{spec} needs {operand.name} ({operand.element} "
                                       f"{list(operand.shape)}), which was not given")

    if m < 1 and family.rows_from is not None:
        # The library would refuse it too; saying so here names the argument.
        raise errors.ArgumentError(
            f"{family.rows_from} has 0 rows; a launch takes 1..{specs.largest_m_bucket()}")
    device = _target_device(list(inputs.values()))
    # The kernel first: the library's own checks of m (1..256, the bucket)
    # come before anything about out=.
    with _device_guard(device):
        if prepared is not None:
            context, kernel = prepared.kernel_for(device, m)
        else:
            context = _contexts.context(device)
            kernel = find_kernel(context, spec, m)

    outputs = {}
    written = [operand.name for operand in operand_list if operand.is_output]
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != len(written):
            raise errors.ArgumentTypeError(
                f"out must be a tuple ({', '.join(written)}), got "
                f"{type(out).__name__ if not isinstance(out, (tuple, list)) else len(out)}")
        for name, value in zip(written, out):
            operand = by_name[name]
            view = _arrays.view(value, f"out {name}", operand.element)
            if not view.tensor and not value.flags.writeable:
                raise errors.ArgumentError(f"out {name} is a read-only numpy array")
            _check_layout(view, operand, spec)
            outputs[name] = view
        _target_device(list(inputs.values()) + list(outputs.values()))
    ran_spec, name, origin, bucket = kernel_info(kernel)
    like = inputs[family.rows_from or family.inputs[0]]  # new outputs: its kind and device
    for operand in operand_list:
        if operand.is_workspace and operand.name not in inputs:
            inputs[operand.name] = _workspaces.get(like, operand, device)
    for operand in operand_list:
        if operand.is_output and operand.name not in outputs:
            outputs[operand.name] = _arrays.fresh_view(
                _arrays.allocate(like, operand.shape, operand.element, device),
                operand.name, operand.element)
    if device == "emu":
        _launch_on_emu(context, kernel, m, operand_list, inputs, outputs, launch_values,
                       prepared.resident if prepared is not None else {},
                       prepared.scratch() if prepared is not None else None)
    else:
        _launch_on_hip(device, context, kernel, m, operand_list, inputs, outputs,
                       launch_values)
    run_info = KernelRun(ran_spec, name, origin, bucket, device, m)
    return {name: outputs[name].value for name in written}, run_info


class _WorkspaceCache(threading.local):
    """Zeroed workspaces (a split GEMM's ws, mxf_spec_get_workspace) kept
    per thread, array kind, device, stream and shape. A kernel leaves its
    workspace fit for its next launch, so launches that cannot overlap (one
    thread's calls: synchronous on emu, in order on one hip stream) share
    one; an engine that launches on several streams at once passes its own
    ws= to each."""

    def __init__(self):
        super().__init__()
        self.arrays = {}  # each thread's own (threading.local runs this per thread)

    def get(self, like, operand, device):
        stream = None
        if device.startswith("hip:"):
            import torch
            stream = torch.cuda.current_stream(like.value.device).cuda_stream
        key = (like.tensor, device, stream, operand.shape)
        array = self.arrays.get(key)
        if array is None:
            array = _arrays.allocate(like, operand.shape, operand.element, device)
            array[...] = 0
            if len(self.arrays) >= 64:  # a bounded cache: the oldest goes
                self.arrays.pop(next(iter(self.arrays)))
            self.arrays[key] = array
        return _arrays.fresh_view(array, operand.name, operand.element)


_workspaces = _WorkspaceCache()


def _device_guard(device):
    """For hip: torch's device guard, so that the context is created and the
    kernel loaded on the tensor's GPU and the caller's current device comes
    back afterwards."""
    if not device.startswith("hip:"):
        return contextlib.nullcontext()
    import torch
    return torch.cuda.device(int(device.partition(":")[2]))


def _launch(context, kernel, m, pointers, strides, count, stream, launch_values):
    """mxf_launch_strided, or mxf_launch_values with the by-value values by
    name (selective rotation's, an op's eps)."""
    library = _lib.lib()
    if not launch_values:
        status = library.mxf_launch_strided(context, kernel, m, pointers, strides, count, stream)
    else:
        values = (_lib.Value * len(launch_values))(
            *(_lib.Value(name.encode(), value) for name, value in launch_values.items()))
        status = library.mxf_launch_values(context, kernel, m, pointers, strides, count, values,
                                           len(launch_values), stream)
    _lib.check(status, errors.LaunchError)


def _launch_on_emu(context, kernel, m, operand_list, inputs, outputs, launch_values,
                   resident, scratch=None):
    """Copies the inputs into emulator memory (spans with their row gaps, so
    strides go through as they are), launches, copies the outputs back.
    `resident` ({name: device pointer}) holds inputs a prepared op copied in
    once; they are used as they are. `scratch` (a prepared op's, per thread:
    {name: [bytes, pointer]}) keeps the other buffers between calls, grown
    when a call needs more; without it they are allocated and freed here.
    Every output byte a launch copies back is one the kernel writes (the e2e
    suites check poisoned outputs), so a kept buffer shows no earlier call."""
    library = _lib.lib()
    pointers = (ctypes.c_void_p * len(operand_list))()
    strides = (ctypes.c_int64 * len(operand_list))()
    allocated = []
    try:
        for i, operand in enumerate(operand_list):
            view = inputs.get(operand.name)
            if operand.name in resident:
                pointers[i] = resident[operand.name]
                if operand.strided and _row_stride(view) != view.shape[1]:
                    strides[i] = _row_stride(view)
                continue
            nbytes = view.span_bytes() if view is not None else operand.bytes
            kept = scratch.get(operand.name) if scratch is not None else None
            if kept is not None and kept[0] >= nbytes:
                pointers[i] = kept[1]
            else:
                pointer = ctypes.c_void_p()
                _lib.check(library.mxf_malloc(context, max(nbytes, 1), ctypes.byref(pointer)),
                           errors.DeviceError)
                if scratch is None:
                    allocated.append(pointer.value)
                else:
                    if kept is not None:
                        library.mxf_free(context, kept[1])
                    scratch[operand.name] = [max(nbytes, 1), pointer.value]
                pointers[i] = pointer.value
            if view is not None:
                _lib.check(library.mxf_memcpy_to_device(context, pointers[i], view.pointer,
                                                        nbytes), errors.DeviceError)
                if operand.strided and _row_stride(view) != view.shape[1]:
                    strides[i] = _row_stride(view)
            # Outputs are dense on the emulator; a strided out= is filled row
            # by row below, so its gaps are never written.
        _launch(context, kernel, m, pointers, strides, len(operand_list), None, launch_values)
        for i, operand in enumerate(operand_list):
            if not operand.is_output:
                continue
            view = outputs[operand.name]
            if _is_dense(view):
                _lib.check(library.mxf_memcpy_to_host(context, view.pointer, pointers[i],
                                                      operand.bytes), errors.DeviceError)
            else:
                # Any dtype of the element's size: _assign reinterprets it.
                dense = np.empty(operand.shape, dtype=_DENSE_DTYPES[view.element_bytes])
                _lib.check(library.mxf_memcpy_to_host(context, dense.ctypes.data, pointers[i],
                                                      operand.bytes), errors.DeviceError)
                _assign(view, dense)
    finally:
        for pointer in allocated:
            library.mxf_free(context, pointer)


_DENSE_DTYPES = {1: np.uint8, 2: np.int16, 4: np.int32}  # types torch.from_numpy takes


def _is_dense(view):
    expected = 1
    for extent, stride in reversed(list(zip(view.shape, view.strides))):
        if extent > 1 and stride != expected:
            return False
        expected *= extent
    return True


def _assign(view, dense):
    if view.tensor:
        import torch
        source = torch.from_numpy(dense)
        if source.dtype != view.value.dtype:
            source = source.view(view.value.dtype)
        view.value.copy_(source)
    else:
        view.value[...] = dense.view(view.value.dtype)


def _launch_on_hip(device, context, kernel, m, operand_list, inputs, outputs, launch_values):
    """Direct device pointers and row strides on torch's current stream of
    the tensor's device; the caller's current device is restored after.
    (Written to the C API's contract; not run here: no AMD GPU on the
    development machine.)"""
    import torch
    index = int(device.partition(":")[2])
    pointers = (ctypes.c_void_p * len(operand_list))()
    strides = (ctypes.c_int64 * len(operand_list))()
    for i, operand in enumerate(operand_list):
        view = inputs.get(operand.name) or outputs.get(operand.name)
        pointers[i] = view.pointer
        if operand.strided and _row_stride(view) != view.shape[1]:
            strides[i] = _row_stride(view)
    with torch.cuda.device(index):
        stream = torch.cuda.current_stream(index).cuda_stream
        _launch(context, kernel, m, pointers, strides, len(operand_list),
                ctypes.c_void_p(stream), launch_values)
