"""The ops and their Python functions, built from the C library's op
interfaces (mxf_op_get_info, C API 1.6; mxf_op_get_value, 1.7), never
restated here.

Each op's folder in the C++ tree declares its keys, every operand it may
take (element, direction, whether only some specs take it, its ranks), the
input whose first dimension is the launch's row count, the keys an input's
shape supplies, and its help text. From those this module makes, on first
use, a Family per op and the function mxforge.<op>:

    <op>(<required inputs>, spec=None, <optional inputs>=None, *, <values>,
         out=None, [rotate=None, layer=None,] **spec_keys)

<values> are the op's by-value values, required keywords (eps for
rmsnorm_rotate_quant); rotate=/layer= exist for ops with the select key.
An output some specs do not write (residual_out with add=0) is None. The generic runner
(_runner.py) takes operand order, shapes and strides from the library, and
torch_ops.py registers one torch op per Family. A new op in the library is a
new function here without a change to this file.
"""

import ctypes
import functools
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple

from . import _arrays
from . import _library as _lib
from . import _runner
from . import errors
from . import specs

# Selective rotation's launch values: keywords of ops that have the select
# key (the C API names which one a spec takes: mxf_spec_get_selection).
SELECTION_KEYWORDS = ("rotate", "layer")


@dataclass(frozen=True)
class Slot:
    """One operand an op may take (abi/op_abi.h OperandSlot)."""
    name: str
    element: str          # "bf16", "i8", "i32", "f32"
    is_output: bool
    optional: bool        # only some specs take it
    ranks: Tuple[int, ...]


@dataclass(frozen=True)
class Family:
    op: str
    keys: Tuple[str, ...]              # its spec keys, canonical order
    slots: Tuple[Slot, ...]            # launch order
    rows_from: Optional[str]           # the input whose first dimension is m; None: the
    # spec's N is the launch's m (a weight pass always processes its N rows)
    key_defaults: Dict[str, Tuple[str, int]]
    # spec key -> (input, dimension) that gives its default; dimension -1: the last
    description: str
    result: Callable = None            # (outputs by name, KernelRun) -> what the function returns
    available: bool = True
    values: Tuple[str, ...] = ()       # by-value values every launch names (eps)

    # Views of the slots, derived once per Family (every call reads them).
    @functools.cached_property
    def inputs(self):
        """Input names in the function's order: launch order."""
        return tuple(slot.name for slot in self.slots if not slot.is_output)

    @functools.cached_property
    def required(self):
        return tuple(slot.name for slot in self.slots if not slot.is_output and not slot.optional)

    @functools.cached_property
    def optional(self):
        return tuple(slot.name for slot in self.slots if not slot.is_output and slot.optional)

    @functools.cached_property
    def outputs(self):
        return tuple(slot.name for slot in self.slots if slot.is_output)

    @functools.cached_property
    def elements(self):
        return {slot.name: slot.element for slot in self.slots}

    @functools.cached_property
    def ranks(self):
        return {slot.name: slot.ranks for slot in self.slots}

    @functools.cached_property
    def int_inputs(self):
        """The inputs an int may stand for: one-dimensional i32 (seed)."""
        return frozenset(slot.name for slot in self.slots
                         if not slot.is_output and slot.element == "i32" and slot.ranks == (1,))

    @functools.cached_property
    def selects(self):
        """Whether the op chooses its rotation per launch (the select key)."""
        return "select" in self.keys


class OpResult(tuple):
    """The outputs of one launch in the op's order (each also an attribute
    by name), plus ``.run`` (a KernelRun: canonical spec with the bucket's M,
    kernel name, origin, device, m) and ``.spec``. Unpacks as a plain tuple:
    ``q, s = mxforge.rotate_quant(x, k=4096)``."""

    NAMES: Tuple[str, ...] = ()

    def __new__(cls, outputs, run):
        # An output the spec does not write (residual_out, add=0): None.
        self = super().__new__(cls, tuple(outputs.get(name) for name in cls.NAMES))
        self.run = run  # a tuple subclass without __slots__ has a __dict__
        return self

    spec = property(lambda self: self.run.spec)

    def __getattr__(self, name):
        names = type(self).NAMES
        if name in names:
            return self[names.index(name)]
        raise AttributeError(name)


def result_type_name(op):
    """rotate_quant_moe -> RotateQuantMoeResult."""
    return "".join(part.capitalize() for part in op.split("_")) + "Result"


def _result_for(op, outputs):
    if len(outputs) == 1:
        # One output (a GEMM's y): the array itself.
        return lambda values, run: values[outputs[0]]
    return type(result_type_name(op), (OpResult,),
                {"NAMES": tuple(outputs), "__module__": "mxforge",
                 "__doc__": f"What mxforge.{op} returns: ({', '.join(outputs)}), each also an "
                            f"attribute, plus .run and .spec (OpResult)."})


def _text(value):
    return value.decode() if value is not None else None


def _read_values(index):
    count = ctypes.c_size_t()
    library = _lib.lib()
    _lib.check(library.mxf_op_get_value(index, 0, None, None, ctypes.byref(count)),
               errors.InternalError)
    names = []
    for value in range(count.value):
        name = ctypes.c_char_p()
        _lib.check(library.mxf_op_get_value(index, value, ctypes.byref(name), None, None),
                   errors.InternalError)
        names.append(_text(name.value))
    return tuple(names)


def _read_family(index):
    info = _lib.OpInfo()
    _lib.check(_lib.lib().mxf_op_get_info(index, ctypes.byref(info)), errors.InternalError)
    slots = tuple(
        Slot(_text(o.name), _text(o.element), bool(o.is_output), bool(o.optional),
             tuple(rank for rank in range(32) if o.ranks >> rank & 1))
        for o in (info.operands[i] for i in range(info.operand_count)))
    op = _text(info.name)
    return Family(
        op=op, keys=tuple(_text(info.keys[i]) for i in range(info.key_count)), slots=slots,
        rows_from=_text(info.rows_from),
        key_defaults={_text(k.key): (_text(k.operand), k.dimension)
                      for k in (info.shape_keys[i] for i in range(info.shape_key_count))},
        description=_text(info.description),
        result=_result_for(op, [slot.name for slot in slots if slot.is_output]),
        values=_read_values(index))


@functools.lru_cache(maxsize=None)
def _families():
    count = ctypes.c_size_t()
    _lib.check(_lib.lib().mxf_op_count(ctypes.byref(count)), errors.InternalError)
    return {family.op: family for family in map(_read_family, range(count.value))}


class _FamilyTable(Mapping):
    """op -> Family, read from the library on first use (import mxforge
    works without it; the first use names where it looked)."""

    def __getitem__(self, op):
        return _families()[op]

    def __iter__(self):
        return iter(_families())

    def __len__(self):
        return len(_families())

    def __repr__(self):
        return f"FAMILIES({', '.join(_families())})"


FAMILIES = _FamilyTable()


def available_ops():
    return [op for op, family in FAMILIES.items() if family.available]


def shaped_view(family, argument, value):
    """The view of an operand whose shape gives a spec key, its type and
    rank checked first (the function and a prepared op say the same)."""
    view = _arrays.view(value, argument, family.elements[argument])
    ranks = family.ranks[argument]
    if len(view.shape) not in ranks:
        expected = " or ".join(str(rank) for rank in ranks)
        raise errors.ArgumentError(
            f"{argument} must have {expected} dimensions, got shape {list(view.shape)}")
    return view


def family_spec(family, arrays, spec, keys, function, views=None):
    """The canonical spec for a call: the spec string and/or keyword keys,
    with keys such as K defaulting from the inputs' shapes. `views`, when
    given, receives the ArrayViews made on the way (the runner reuses them)."""
    defaults = []
    for key, (argument, dimension) in family.key_defaults.items():
        view = shaped_view(family, argument, arrays.get(argument))
        if views is not None:
            views[argument] = view
        defaults.append((key, int(view.shape[dimension])))
    # Only hashable arguments reach the cache; others get build_spec's message.
    if not (spec is None or isinstance(spec, str)) or not all(
            isinstance(value, (int, str)) for value in keys.values()):
        return specs.canonical(specs.build_spec(family.op, spec, keys, dict(defaults), function))
    return _canonical_for(family.op, spec, tuple(keys.items()), tuple(defaults), function)


@functools.lru_cache(maxsize=4096)
def _canonical_for(op, spec, keys, defaults, function):
    # Calls repeat the same few specs: build, parse and print each once.
    return specs.canonical(specs.build_spec(op, spec, dict(keys), dict(defaults), function))


def call(op, arrays, spec, out, keys, selection=None, values=None):
    """What every op's function does: spec, run, wrap the result.
    `selection` is selective rotation's launch value ("rotate" or "layer",
    value) or None; `values` the op's by-value values ({"eps": 1e-6})."""
    family = FAMILIES[op]
    views = {}
    canonical = family_spec(family, arrays, spec, keys, op, views)
    outputs, run = _runner.run(family, canonical, arrays, out, views, selection,
                               values=values)
    return family.result(outputs, run)


def selection(rotate, layer, layer_mask):
    """("rotate", int) or ("layer", int) from the selection keywords, or
    None; the spec's select key says which one the kernel takes (the runner
    checks that they agree)."""
    if rotate is not None and (layer is not None or layer_mask is not None):
        raise errors.ArgumentError(
            "rotate= goes with select=flag, layer= and layer_mask= with select=mask: give "
            "one or the other")
    if rotate is not None:
        if not isinstance(rotate, (bool, int)):
            raise errors.ArgumentTypeError(
                f"rotate must be a bool or an int, got {type(rotate).__name__}")
        return ("rotate", 1 if rotate is True else int(rotate))
    if layer is not None:
        if isinstance(layer, bool) or not isinstance(layer, int):
            raise errors.ArgumentTypeError(f"layer must be an int, got {type(layer).__name__}")
        return ("layer", layer)
    return None


def scalar_operand(value, like):
    """An int given for a one-element i32 input (round=sr's seed) is that
    [1] int32 array (its low 32 bits) on `like`'s device; anything else
    stays as it is (the runner checks it against the operand)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return value
    import numpy as np
    array = np.array([value & 0xFFFFFFFF], dtype=np.uint32).view(np.int32)
    if _arrays.is_tensor(like):
        import torch
        return torch.from_numpy(array).to(like.device)
    return array


def operand_arrays(family, given):
    """{input: value} for a launch from the arguments `given`, ints turned
    into the one-element arrays they stand for."""
    like = given.get(family.rows_from or family.inputs[0])
    return {name: scalar_operand(given.get(name), like) if name in family.int_inputs
            else given.get(name) for name in family.inputs}


def _signature(family):
    P = inspect.Parameter
    parameters = [P(name, P.POSITIONAL_OR_KEYWORD) for name in family.required]
    parameters.append(P("spec", P.POSITIONAL_OR_KEYWORD, default=None))
    parameters += [P(name, P.POSITIONAL_OR_KEYWORD, default=None) for name in family.optional]
    parameters += [P(name, P.KEYWORD_ONLY) for name in family.values]
    parameters.append(P("out", P.KEYWORD_ONLY, default=None))
    if family.selects:
        parameters += [P(name, P.KEYWORD_ONLY, default=None) for name in SELECTION_KEYWORDS]
    parameters.append(P("spec_keys", P.VAR_KEYWORD))
    return inspect.Signature(parameters)


def _make_function(family):
    signature = _signature(family)

    def function(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as failure:
            raise errors.ArgumentTypeError(f"{family.op}(): {failure}") from None
        arguments = bound.arguments
        chosen = None
        if family.selects:
            chosen = selection(arguments.get("rotate"), arguments.get("layer"),
                               arguments.get("layer_mask"))
        out = arguments.get("out")
        if out is not None and len(family.outputs) == 1 and not isinstance(out, (tuple, list)):
            out = (out,)
        return call(family.op, operand_arrays(family, arguments), arguments.get("spec"), out,
                    arguments.get("spec_keys", {}), chosen,
                    {name: arguments[name] for name in family.values})

    function.__name__ = function.__qualname__ = family.op
    function.__module__ = "mxforge"
    function.__signature__ = signature
    function.__doc__ = family.description
    return function


@functools.lru_cache(maxsize=None)
def function(op):
    """mxforge.<op>: the function made from op's interface."""
    return _make_function(FAMILIES[op])


@functools.lru_cache(maxsize=None)
def result_type(op):
    """The tuple type op's function returns (ops with two or more outputs)."""
    produced = FAMILIES[op].result
    if not (isinstance(produced, type) and issubclass(produced, OpResult)):
        raise AttributeError(f"{op} returns its one output itself, not a result tuple")
    return produced
