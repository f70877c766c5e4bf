"""Prepared ops: what an engine's decode loop calls several times per layer
and step (issue 32). ``mxforge.prepare(op, ...)`` parses the spec, resolves
the kernel (compiling it now, at start-up, not on the first call) and
registers the operands that do not change between calls (the rotation, a
GEMM's weights, the masks) once; on the emu device they are copied into
emulator memory once instead of per call.

    gemm = mxforge.prepare("rotate_quant_gemm", w_q=w_q, w_s=w_s, k=4096, rs=64)
    y = gemm(x)                      # x: [m, 4096] bf16, any m the kernel serves
    quant = mxforge.prepare("rotate_quant", k=4096, rs=64)
    q, s = quant(x, out=(q, s))

A call checks its arguments with the same code, and the same messages, as
the family's function (mxforge.rotate_quant and so on), and returns what it
returns. A prepared op is immutable and safe to call from many threads.
"""

import ctypes
import threading

import numpy as np

from . import _arrays
from . import _contexts
from . import _library as _lib
from . import _runner
from . import errors
from . import families
from . import specs

# The call's keywords that are not operands: selective rotation's values.
_SELECTION_KEYWORDS = families.SELECTION_KEYWORDS


class PreparedOp:
    """One op with its spec, kernel and fixed operands resolved (prepare())."""

    def __init__(self, op, spec, device, fixed, keys, defaults=None):
        family = families.FAMILIES.get(op)
        if family is None or not family.available:
            raise errors.ArgumentError(
                f"prepare(): no op '{op}' (ops: {', '.join(families.available_ops())})")
        self.op = op
        self._family = family
        for name in fixed:
            if name not in family.inputs:
                raise errors.ArgumentTypeError(
                    f"prepare(): {op} takes no operand '{name}' (its operands: "
                    f"{', '.join(family.inputs)})")
            if name == family.rows_from:
                raise errors.ArgumentError(
                    f"prepare(): {name} gives each call's rows; pass it to the call")
        self._fixed = dict(fixed)
        # A call's operands: the function's required ones positionally, in
        # its order (x, or x, topk_ids, topk_weights), less the fixed ones;
        # the optional ones (r, expert_mask, ...) by keyword.
        self._per_call = [name for name in family.inputs if name not in fixed and name != "seed"]
        self._positional = [name for name in self._per_call if name not in family.optional]
        self._views = {name: _arrays.view(value, name, family.elements[name])
                       for name, value in fixed.items()}
        # Keys that default from an operand's shape: from the fixed ones now
        # (a GEMM's N from w_q); the others must be in the spec or keywords
        # (or in `defaults`: the torch ops pass the shapes of the call that
        # prepared the op, and key their prepared ops by them).
        defaults = dict(defaults or {})
        for key, (argument, dimension) in family.key_defaults.items():
            view = self._views.get(argument)
            if view is not None:
                defaults[key] = int(view.shape[dimension])
        self.spec = specs.canonical(specs.build_spec(op, spec, keys, defaults, "prepare"))
        if not isinstance(device, str) or not (device == "emu" or device.startswith("hip:")):
            raise errors.ArgumentError(f"prepare(): device must be 'emu' or 'hip:N', got {device!r}")
        if self._views:
            on = _runner._target_device(list(self._views.values()))
            if on != device:
                raise errors.ArgumentError(
                    f"prepare(): the fixed operands are on {on}, the op is prepared for {device}")
        self.device = device
        self._lock = threading.Lock()
        self._kernels = {}   # (context, m) -> kernel
        self._context = None
        self._resident = {}  # name -> emulator pointer, in self._context
        # Per thread, the call operands' emulator buffers, kept between calls
        # ({name: [bytes, pointer]}, each the largest a call needed): a call
        # then allocates and frees nothing. Freed by close().
        self._local = threading.local()
        self._pools = []
        # Call plans (emu): what a call with these arguments' layouts does,
        # learnt from one call that went through every check (_plan_key).
        self._plans = {}
        with _runner._device_guard(device):
            context = _contexts.context(device)
            # The kernel now: a compile belongs to start-up, not to the first call.
            self._kernel_in(context, self._first_rows())
            if device == "emu":
                self._upload(context)

    def _first_rows(self):
        return specs.spec_rows(self.spec) if self._family.rows_from is None else 1

    def _kernel_in(self, context, m):
        # By m itself (at most the largest bucket's rows, or quant_weight's
        # one N): a call asks the library for nothing once its m was seen.
        key = (context, m)
        kernel = self._kernels.get(key)
        if kernel is not None:
            return kernel
        if self._family.rows_from is not None and not 1 <= m <= specs.largest_m_bucket():
            # The library refuses it, with the function's message.
            return _runner.find_kernel(context, self.spec, m)
        kernel = _runner.find_kernel(context, self.spec, m)
        with self._lock:
            self._kernels[key] = kernel
        return kernel

    def _upload(self, context):
        """The fixed operands into emulator memory, once (spans with their
        row gaps, as a call would copy them)."""
        library = _lib.lib()
        for name, view in self._views.items():
            nbytes = view.span_bytes()
            pointer = ctypes.c_void_p()
            _lib.check(library.mxf_malloc(context, max(nbytes, 1), ctypes.byref(pointer)),
                       errors.DeviceError)
            self._resident[name] = pointer.value
            _lib.check(library.mxf_memcpy_to_device(context, pointer, view.pointer, nbytes),
                       errors.DeviceError)
        self._context = context

    # What _runner.run asks of a prepared op.
    def kernel_for(self, device, m):
        context = _contexts.context(device)
        return context, self._kernel_in(context, m)

    @property
    def resident(self):
        # After a fork the child has a context of its own: the fixed operands
        # are then copied per call like any other.
        if self._context is None or _contexts.current(self.device) != self._context:
            return {}
        return self._resident

    def scratch(self):
        """The calling thread's kept buffers for the current context, or None
        (not emu, or a forked child, whose context is another)."""
        if self._context is None or _contexts.current(self.device) != self._context:
            return None
        pool = getattr(self._local, "pool", None)
        if pool is None:
            pool = self._local.pool = {}
            with self._lock:
                self._pools.append(pool)
        return pool

    def __call__(self, *arguments, out=None, seed=None, rotate=None, layer=None, **operands):
        simple = not operands and seed is None and rotate is None and layer is None
        key = self._plan_key(arguments, out) if simple else None
        if key is not None:
            plan = self._plans.get(key)
            if plan is not None:
                result = self._run_plan(plan, arguments, out)
                if result is not None:
                    return result
        result = self._checked_call(arguments, out, seed, rotate, layer, operands)
        if key is not None and key not in self._plans and \
                len(self._plans) < self._PLAN_CAPACITY:
            self._plans[key] = self._make_plan(arguments, out)
        return result

    def _checked_call(self, arguments, out, seed, rotate, layer, operands):
        family = self._family
        per_call, positional = self._per_call, self._positional
        values = {name: operands.pop(name) for name in family.values if name in operands}
        if len(arguments) > len(positional):
            raise errors.ArgumentTypeError(
                f"{self.op} (prepared) takes {len(positional)} positional operands "
                f"({', '.join(positional)}), got {len(arguments)}")
        given = dict(zip(positional, arguments))
        for name, value in operands.items():
            if name not in per_call:
                fixed = " (fixed when the op was prepared)" if name in self._fixed else ""
                raise errors.ArgumentTypeError(
                    f"{self.op} (prepared) got an unexpected operand '{name}'{fixed}")
            if name in given:
                raise errors.ArgumentTypeError(f"{self.op} (prepared) got {name} twice")
            given[name] = value
        arrays = dict(self._fixed, **given)
        if "seed" in family.inputs:
            arrays["seed"] = families.scalar_operand(seed, arrays.get(family.rows_from))
        elif seed is not None:
            raise errors.ArgumentTypeError(f"{self.op} takes no seed")
        selection = None
        if rotate is not None or layer is not None:
            if not family.selects:
                raise errors.ArgumentTypeError(f"{self.op} takes no rotate= or layer=")
            selection = families.selection(rotate, layer, arrays.get("layer_mask"))
        if out is not None and len(family.outputs) == 1 and not isinstance(out, (tuple, list)):
            out = (out,)
        views = dict(self._views)
        for argument, _ in family.key_defaults.values():
            if argument in given:  # checked as the function checks it
                views[argument] = families.shaped_view(family, argument, given[argument])
        outputs, run = _runner.run(family, self.spec, arrays, out, views, selection,
                                   prepared=self, values=values)
        return family.result(outputs, run)

    # The call plan: a decode loop calls a prepared op with arrays of the
    # same layouts again and again, and the checks of _checked_call (the same
    # code as the family's function, about 15 us of Python) give the same
    # answer for the same layouts. So the first call with a layout goes
    # through them, and later calls with that layout go straight to the
    # copies and the launch. A plan applies only where its key captures
    # everything the checks look at: on emu, the positional operands only
    # (no rotate=, layer=, seed= or by-value values), numpy arrays that own
    # their memory (a view's strides are checked against its base's memory,
    # which the key cannot see) or CPU tensors (torch checks a view against
    # its storage), and outputs the launch copies into directly.

    # Layouts differ by m: an engine's decode and prefill calls may show a
    # few hundred. Beyond this many, a new layout is checked every time
    # (the known ones keep their plans).
    _PLAN_CAPACITY = 1024

    def _plan_key(self, arguments, out):
        if self.device != "emu" or len(arguments) != len(self._positional):
            return None
        if out is not None and len(self._family.outputs) == 1 and \
                not isinstance(out, (tuple, list)):
            out = (out,)
        if out is not None and not isinstance(out, (tuple, list)):
            return None
        parts = []
        for value in arguments if out is None else tuple(arguments) + tuple(out):
            part = _layout(value)
            if part is None:
                return None
            parts.append(part)
        return (out is None, tuple(parts))

    def _make_plan(self, arguments, out):
        """After a call with these arguments passed every check: what the
        next such call does."""
        family = self._family
        rows = arguments[self._positional.index(family.rows_from)] \
            if family.rows_from is not None else None
        m = int(rows.shape[0]) if rows is not None else specs.spec_rows(self.spec)
        context, kernel = self.kernel_for(self.device, m)
        operand_list = specs.operands(self.spec, m)
        given = dict(zip(self._positional, arguments))
        written = [operand.name for operand in operand_list if operand.is_output]
        copies, outputs = [], []
        strides = (ctypes.c_int64 * len(operand_list))()
        for index, operand in enumerate(operand_list):
            if operand.is_output:
                outputs.append((index, operand))
                continue
            if operand.name in self._resident:
                view = self._views[operand.name]
            elif operand.name in given:
                view = _arrays.view(given[operand.name], operand.name, operand.element)
            else:
                return None  # an optional input the call did not give: not planned
            if operand.strided and _runner._row_stride(view) != view.shape[1]:
                strides[index] = _runner._row_stride(view)
            if operand.name not in self._resident:
                copies.append((index, self._positional.index(operand.name), operand.name,
                               max(view.span_bytes(), 1)))
        ran_spec, name, origin, bucket = _runner.kernel_info(kernel)
        # New outputs are of the kind of the array _runner.run takes them from.
        like_name = family.rows_from or family.inputs[0]
        tensors = _arrays.is_tensor(given[like_name]) if like_name in given \
            else self._views[like_name].tensor
        return _CallPlan(context=context, kernel=kernel, m=m, count=len(operand_list),
                         resident=[(i, self._resident[o.name]) for i, o in enumerate(operand_list)
                                   if o.name in self._resident],
                         copies=copies, outputs=outputs, written=written, strides=strides,
                         tensors=tensors,
                         run=(ran_spec, name, origin, bucket, self.device, m))

    def _run_plan(self, plan, arguments, out):
        """The call by its plan, or None where this thread's kept buffers or
        the context cannot serve it (the checked call then runs)."""
        if plan is None or self._context is None or \
                _contexts.current(self.device) != plan.context or self._context != plan.context:
            return None
        pool = getattr(self._local, "pool", None)
        if pool is None:
            return None
        library = _lib.lib()
        pointers = (ctypes.c_void_p * plan.count)()
        for index, pointer in plan.resident:
            pointers[index] = pointer
        for index, position, name, nbytes in plan.copies:
            kept = pool.get(name)
            if kept is None or kept[0] < nbytes:
                return None
            pointers[index] = kept[1]
            _lib.check(library.mxf_memcpy_to_device(plan.context, kept[1],
                                                    _pointer(arguments[position]), nbytes),
                       errors.DeviceError)
        results = {}
        targets = []
        for k, (index, operand) in enumerate(plan.outputs):
            kept = pool.get(operand.name)
            if kept is None or kept[0] < operand.bytes:
                return None
            pointers[index] = kept[1]
            if out is not None:
                target = out[k] if isinstance(out, (tuple, list)) else out
            else:
                target = _arrays.new_array(plan.tensors, operand.shape, operand.element)
            results[operand.name] = target
            targets.append((kept[1], target, operand.bytes))
        _runner._launch(plan.context, plan.kernel, plan.m, pointers, plan.strides, plan.count,
                        None, None)
        for device_pointer, target, nbytes in targets:
            _lib.check(library.mxf_memcpy_to_host(plan.context, _pointer(target),
                                                  device_pointer, nbytes), errors.DeviceError)
        return self._family.result({name: results.get(name) for name in plan.written},
                                   _runner.KernelRun(*plan.run))

    def close(self):
        """Frees the fixed operands' emulator memory (also on garbage
        collection); the op cannot be called afterwards."""
        resident, self._resident = self._resident, {}
        context, self._context = self._context, None
        with self._lock:
            pools, self._pools = self._pools, []
        if context is not None and _contexts.current(self.device) == context:
            library = _lib.lib()
            for pointer in resident.values():
                library.mxf_free(context, pointer)
            for pool in pools:
                for _, pointer in pool.values():
                    library.mxf_free(context, pointer)
                pool.clear()
        self._fixed = None

    def __del__(self):
        try:
            if getattr(self, "_context", None) is not None:
                self.close()
        except Exception:  # interpreter shutdown: nothing left to free into
            pass

    def __repr__(self):
        fixed = ", ".join(self._fixed or ())
        return f"PreparedOp({self.spec!r}, device={self.device!r}, fixed=[{fixed}])"


class _CallPlan:
    """What a prepared call with one set of argument layouts does (emu)."""
    __slots__ = ("context", "kernel", "m", "count", "resident", "copies", "outputs", "written",
                 "strides", "tensors", "run")

    def __init__(self, **fields):
        for name, value in fields.items():
            setattr(self, name, value)


def _layout(value):
    """The part of a plan's key for one argument: everything the checks read
    of it, or None where a plan must not be used (see PreparedOp's note)."""
    if type(value) is np.ndarray:
        if value.base is not None or not value.flags.c_contiguous:
            return None
        return (value.dtype, value.shape, value.flags.writeable)
    if _arrays.is_tensor(value):
        if value.device.type != "cpu" or type(value).__name__ != "Tensor" or \
                not value.is_contiguous():
            return None
        return (value.dtype, tuple(value.shape))
    return None


def _pointer(value):
    if type(value) is np.ndarray:
        return value.ctypes.data
    return value.data_ptr()


def prepare(op, spec=None, device="emu", **arguments):
    """A PreparedOp for `op` ("rotate_quant", "rotate_quant_moe",
    "rotate_quant_gemm", "quant_weight"). `spec` and the keyword spec keys
    (``k=4096, rs=64``) give the spec; keys that the family's function takes
    from an operand's shape must be given here unless that operand is fixed
    (a GEMM's N comes from w_q). Keyword operands of the op (r, w_q, w_s,
    layer_mask, expert_mask, ...) are fixed: registered now, used by every
    call. `device` is "emu" or "hip:N" (the fixed operands must be there)."""
    family = families.FAMILIES.get(op) if isinstance(op, str) else None
    if family is None:
        raise errors.ArgumentError(
            f"prepare(): no op {op!r} (ops: {', '.join(families.available_ops())})")
    fixed = {name: value for name, value in arguments.items()
             if name in family.inputs and value is not None}
    keys = {name: value for name, value in arguments.items() if name not in family.inputs}
    for name in keys:
        if name in _SELECTION_KEYWORDS or name in ("out", "seed") or name in family.values:
            raise errors.ArgumentTypeError(f"prepare(): {name}= belongs to each call")
    return PreparedOp(op, spec, device, fixed, keys)
