"""torch custom ops: torch.ops.mxforge.<op> for every op of the library.

Each op's schema, implementation and fake are made from its interface
(families.py, from mxf_op_get_info): the function's arguments, the spec a
string, the inputs some specs take optional tensors (``rotate_quant(Tensor
x, str spec, Tensor? r=None, Tensor? seed=None, Tensor? layer_mask=None,
int? rotate=None, int? layer=None) -> (Tensor, Tensor)``).

Each op is defined in torch.library.Library("mxforge", "DEF") with CPU and
CUDA kernels and a fake (torch >= 2.4: register_fake; 1.13: Meta kernels).
MXFORGE_TORCH_REGISTRATION=custom_op registers torch.library.custom_op ops
instead, whose Python wrappers cost 150-190 us a call on torch 2.11 against
the Library's 10-20 (docs/python.md). In both, the fake/meta implementation computes the output shapes from the C
library's ABI (mxf_spec_get_operands) without compiling or launching, so
shapes propagate under tracing. The keys an input's shape supplies (K from
x's width; a GEMM's N from w_q) default from it when the spec leaves them out.

Dynamic shapes (torch.compile): the rows of a launch (m, x's first
dimension; N, w's first dimension, for a weight pass) may be a SymInt. The
fakes never turn it into a Python int (that would specialize the graph to
one batch size); they derive every output extent from it by SymInt
arithmetic, with formulas checked once per spec against the library's own
shapes (_row_formulas), from the row extents the op declares
(mxf_spec_get_row_extents). The other sizes (K, N of a GEMM, topk) are part of
the kernel spec and are made concrete, so a new K is a new graph.
"""

import functools
import os

import torch

from . import _arrays
from . import errors
from . import families
from . import specs

_library = None
REGISTRATION = None  # "custom_op" or "Library", for tests and docs
REGISTRATION_ERROR = None  # why no op was registered (the library was not found)


def _is_concrete(size):
    """True for a plain int; False for a SymInt of a dynamic dimension."""
    return isinstance(size, int)


def _hint(size):
    """The value a SymInt stands for in the example being traced (None for
    an unbacked one), read without installing a guard; an int itself."""
    if _is_concrete(size):
        return size
    hint = getattr(getattr(size, "node", None), "hint", None)
    return None if hint is None else int(hint)


def _example_value(size, key):
    hint = _hint(size)
    if hint is None:
        raise errors.ArgumentError(
            f"the size {size} has no example value (an unbacked size): give {key} in the "
            f"spec, which names the kernel")
    return hint


def _require(condition, message):
    """Refuses a false `condition` with ArgumentError(message). On a SymBool
    this is torch._check_with: it records the condition for the graph (a
    guard or a runtime assert) instead of branching on the size in Python."""
    if isinstance(condition, bool):
        if not condition:
            raise errors.ArgumentError(message)
        return
    check_with = getattr(torch, "_check_with", None)
    if check_with is not None:
        check_with(errors.ArgumentError, condition, lambda: message)
    elif not bool(condition):  # torch 2.0 has SymBools but no _check_with
        raise errors.ArgumentError(message)


def _row_candidates(canonical):
    """Label -> f(rows) for every way an operand extent of this spec may
    depend on the launch's rows, as the op's folder declares them
    (mxf_spec_get_row_extents). Each f is plain integer arithmetic (floor
    division and products), so it takes an int or a SymInt."""
    def extent(scale, offset, divisor, multiple):
        def at(rows):
            divided = (rows * scale + offset + divisor - 1) // divisor
            return ((divided + multiple - 1) // multiple) * multiple
        return at
    return {label: extent(scale, offset, divisor, multiple)
            for label, scale, offset, divisor, multiple in specs.row_extents(canonical)}


def _rows_key(family):
    """The spec key whose value is the launch's rows for an op without a
    rows input (a weight pass: N, from its input's first dimension); None
    for ops whose rows are a launch argument."""
    if family.rows_from is not None:
        return None
    keys = [key for key, (_, dimension) in family.key_defaults.items() if dimension == 0]
    if len(keys) != 1:
        raise errors.InternalError(f"{family.op} has no rows input and no one key from an "
                                   f"input's first dimension ({keys})")
    return keys[0]


def _with_rows(canonical, rows):
    """The spec whose kernel runs `rows` rows: the same spec for ops with an
    M bucket (m is a launch argument), the spec with its rows key (N) set to
    rows for ops that always process their spec's rows."""
    rows_key = _rows_key(families.FAMILIES[specs.op_of(canonical)])
    if rows_key is None:
        return canonical
    op, _, body = canonical.partition(":")
    return f"{op}:" + ",".join(f"{rows_key}={rows}" if item.startswith(rows_key + "=") else item
                               for item in body.split(","))


# Every launchable row count, and some beyond the largest bucket, so that a
# padding (pad256(m) is 256 for every m <= 256) is told apart from a constant.
@functools.lru_cache(maxsize=None)
def _sample_rows():
    largest = specs.largest_m_bucket()
    return tuple(range(1, largest + 1)) + tuple(
        rows for rows in (257, 300, 511, 512, 513, 1000, 4112) if rows > largest)


@functools.lru_cache(maxsize=256)
def _row_formulas(canonical, outputs):
    """For each output of `canonical` (names in `outputs`): a tuple, per
    dimension, of an int (the extent does not depend on the rows) or
    (label, f) with f one of _row_candidates. Each choice equals the
    library's shape (mxf_spec_get_operands) at every row count sampled, so
    the symbolic shapes are the eager op's; a dimension no declared extent
    fits is an InternalError (the op's folder lacks a RowExtent, which
    tests/unit/abi/test_op_interface.cpp would also report)."""
    candidates = _row_candidates(canonical)
    observed = {}  # rows -> {output: shape}
    for rows in _sample_rows():
        try:
            # Uncached: these row counts would crowd specs.operands' cache.
            listing = specs.operands.__wrapped__(_with_rows(canonical, rows), rows)
        except errors.SpecError:
            continue  # a weight pass: rows this spec does not take (N % 16)
        observed[rows] = {operand.name: operand.shape for operand in listing}
    if len(observed) < 2:
        raise errors.InternalError(f"too few row counts to derive the shapes of {canonical}")
    formulas = []
    for name in outputs:
        ranks = {len(shapes[name]) for shapes in observed.values()}
        if len(ranks) != 1:
            raise errors.InternalError(f"{name} of {canonical} changes rank with the rows")
        dimensions = []
        for dimension in range(ranks.pop()):
            extents = {rows: shapes[name][dimension] for rows, shapes in observed.items()}
            if len(set(extents.values())) == 1:
                dimensions.append(next(iter(extents.values())))
                continue
            fitting = [(label, f) for label, f in candidates.items()
                       if all(f(rows) == extent for rows, extent in extents.items())]
            if not fitting:
                raise errors.InternalError(
                    f"dimension {dimension} of {name} of {canonical} follows no declared row "
                    f"extent (e.g. {extents[1] if 1 in extents else extents}; declared: "
                    f"{', '.join(candidates)})")
            dimensions.append(fitting[0])
        formulas.append(tuple(dimensions))
    return tuple(formulas)


def _shapes_at(canonical, outputs, rows):
    """The outputs' shapes at `rows` (an int or a SymInt) rows."""
    if _is_concrete(rows):
        by_name = {operand.name: operand
                   for operand in specs.operands(_with_rows(canonical, rows), rows)}
        return [by_name[name].shape for name in outputs]
    return [tuple(dimension if isinstance(dimension, int) else dimension[1](rows)
                  for dimension in shape)
            for shape in _row_formulas(canonical, tuple(outputs))]


def _launch_rows(name, rows):
    """Refuses a row count no launch takes, as the library would."""
    shown = rows if _hint(rows) is None else _hint(rows)  # 300, not s0, in the message
    largest = specs.largest_m_bucket()
    message = f"{name} has {shown} rows; a launch takes 1..{largest}"
    _require(rows >= 1, message)
    _require(rows <= largest, message)


_TORCH_DTYPES = {"i8": torch.uint8, "i32": torch.int32, "f32": torch.float32,
                 "bf16": torch.bfloat16}


def _check_optional_inputs(canonical, given):
    """The launch's checks of the inputs some specs take (r, seed,
    layer_mask, expert_mask): present exactly when the spec has them, in
    their shapes; the same messages as the runner's. `given`: {name: tensor
    or None}."""
    from . import _runner
    by_name = {operand.name: operand for operand in specs.operands(canonical, 1)
               if not operand.is_output}
    for name, value in given.items():
        operand = by_name.get(name)
        if operand is not None and operand.is_workspace:
            continue  # made when not given; the launch checks one given at its rows
        if value is None:
            if operand is not None:
                raise errors.ArgumentError(f"{canonical} needs {name} ({operand.element} "
                                           f"{list(operand.shape)}), which was not given")
            continue
        if operand is None:
            raise errors.ArgumentError(f"{name} is given, but {canonical} takes no {name}")
        _runner._check_layout(_arrays.view(value, name, operand.element), operand, canonical)


def _written(canonical):
    """The outputs `canonical` writes (residual_out only with add=1)."""
    return tuple(operand.name for operand in specs.operands(canonical, 1) if operand.is_output)


def _new_outputs(family, canonical, like, rows):
    """Every output of the schema; one the spec does not write is an empty
    [0] tensor (a schema's results are Tensors, never None)."""
    written = _written(canonical)
    shapes = dict(zip(written, _shapes_at(canonical, written, rows)))
    elements = family.elements
    return tuple(like.new_empty(shapes.get(name, (0,)), dtype=_TORCH_DTYPES[elements[name]])
                 for name in family.outputs)


def _traced_int(value):
    """A selection value as the function's checks take it: while tracing a
    SymInt stands for an int whose value the graph does not fix."""
    return value if value is None or isinstance(value, int) else 0


def _fake_launch_rows(family, arguments):
    """Outputs of an op whose rows are a launch argument (x's first
    dimension): K and the other spec keys that default from a shape become
    concrete (they name the kernel), the rows stay symbolic."""
    from . import _runner
    shaped = {argument: arguments[argument] for argument, _ in family.key_defaults.values()}
    canonical = families.family_spec(family, shaped, arguments["spec"] or None, {}, family.op)
    if family.selects:
        # The function's own checks of the selection first, so that a meta
        # or traced call refuses what an eager call refuses, with its message.
        chosen = families.selection(*(_traced_int(arguments[name])
                                      for name in families.SELECTION_KEYWORDS),
                                    arguments.get("layer_mask"))
        _runner._selection_value(canonical, chosen)
    _check_optional_inputs(canonical, {name: arguments[name] for name in family.optional})
    like = arguments[family.rows_from]
    rows = like.shape[0]
    _launch_rows(family.rows_from, rows)
    return _new_outputs(family, canonical, like, rows)


def _spec_gives(spec, key):
    """True when the spec text itself sets `key` (not a default from a shape)."""
    body = (spec or "").partition(":")[2]
    return any(item.partition("=")[0].strip() == key for item in body.split(","))


def _fake_spec_rows(family, arguments):
    """Outputs of an op that processes its spec's rows (a weight pass, N
    from w's first dimension). That key names the kernel, but the outputs
    follow it by formula, so a spec that leaves it to the shape is built
    from the example's value without a guard: the graph holds for every
    value, and each real call checks its own. The other keys from shapes
    are made concrete (a guard)."""
    rows_key = _rows_key(family)
    rows_input = family.key_defaults[rows_key][0]
    views = {argument: families.shaped_view(family, argument, arguments[argument])
             for argument, _ in family.key_defaults.values()}
    rows = views[rows_input].shape[0]
    defaults = {}
    for key, (argument, dimension) in family.key_defaults.items():
        size = views[argument].shape[dimension]
        defaults[key] = (_example_value(size, key) if key == rows_key
                         else size if _is_concrete(size) else int(size))
    spec = arguments["spec"] or None
    canonical = specs.canonical(specs.build_spec(family.op, spec, {}, defaults, family.op))
    spec_rows = specs.spec_value(canonical, rows_key)
    expected = {operand.name: operand.shape
                for operand in specs.operands(canonical, spec_rows)}[rows_input]
    message = (f"{rows_input} must have shape {list(expected)}, got "
               f"{list(views[rows_input].shape)} (spec {canonical})")
    for key, (argument, dimension) in family.key_defaults.items():
        if key != rows_key and defaults[key] != specs.spec_value(canonical, key):
            raise errors.ArgumentError(message)
    if _is_concrete(rows) or _spec_gives(spec, rows_key):
        _require(rows == spec_rows, message)
    _check_optional_inputs(canonical, {name: arguments[name] for name in family.optional})
    return _new_outputs(family, canonical, arguments[rows_input], rows)


# The schema: the function's arguments with the spec a string, the op's
# values floats, the inputs some specs take optional tensors, selective
# rotation's values optional ints.
def _argument_names(family):
    names = list(family.required) + ["spec"] + list(family.values) + list(family.optional)
    if family.selects:
        names += list(families.SELECTION_KEYWORDS)
    return names


def schema(family):
    """torch's schema of torch.ops.mxforge.<op>, from the op's interface."""
    arguments = [f"Tensor {name}" for name in family.required] + ["str spec"]
    arguments += [f"float {name}" for name in family.values]
    arguments += [f"Tensor? {name}=None" for name in family.optional]
    if family.selects:
        arguments += [f"int? {name}=None" for name in families.SELECTION_KEYWORDS]
    outputs = family.outputs
    returns = "Tensor" if len(outputs) == 1 else f"({', '.join('Tensor' for _ in outputs)})"
    return f"{family.op}({', '.join(arguments)}) -> {returns}"


def _named(family, args, kwargs):
    names = _argument_names(family)
    arguments = dict.fromkeys(names)
    arguments.update(zip(names, args))
    arguments.update(kwargs)
    return arguments


# The op's calls go through prepared ops (prepared.py), one per op, spec,
# device and the input extents its keys default from: an engine calls the
# same few again and again, and a prepared op skips building the spec,
# finding the kernel and, for repeated layouts, the Python checks (docs/
# python.md, "Prepared ops"). A call it cannot take (a spec that does not
# parse, a device we do not run on, more than _PREPARED_LIMIT combinations)
# goes through the function, which gives its own messages.
_PREPARED_LIMIT = 256
_prepared_ops = {}


def _prepared_key(family, spec, device, defaults):
    """_prepared_ops' key; `defaults` the ((key, extent), ...) the call's
    tensors give, in family.key_defaults' order."""
    return (family.op, spec, device, defaults)


def _prepared_for(family, arguments):
    """The PreparedOp for this call, or None for the function's path."""
    defaults = []
    for key, (argument, dimension) in family.key_defaults.items():
        value = arguments.get(argument)
        if not isinstance(value, torch.Tensor) or value.dim() <= dimension:
            return None
        defaults.append((key, int(value.shape[dimension])))
    first = arguments.get(family.required[0]) if family.required else None
    if not isinstance(first, torch.Tensor) or (first.device.type == "meta"):
        return None
    if first.device.type == "cpu":
        device = "emu"
    elif first.device.type == "cuda" and getattr(torch.version, "hip", None):
        device = f"hip:{first.device.index if first.device.index is not None else 0}"
    else:
        return None
    spec = arguments["spec"]
    key = _prepared_key(family, spec, device, tuple(defaults))
    try:
        return _prepared_ops[key]
    except KeyError:
        pass
    if len(_prepared_ops) >= _PREPARED_LIMIT:
        return None
    from .prepared import PreparedOp
    try:
        op = PreparedOp(family.op, spec, device, {}, {}, dict(defaults))
    except errors.Error:
        op = None  # the function will say what is wrong, in its words
    _prepared_ops[key] = op
    return op


def _call_prepared(family, op, arguments):
    keywords = {name: arguments[name] for name in family.optional
                if arguments.get(name) is not None and name != "seed"}
    keywords.update({name: arguments[name] for name in family.values})
    if family.selects:
        keywords.update({name: arguments[name] for name in families.SELECTION_KEYWORDS})
    if "seed" in family.inputs:
        keywords["seed"] = arguments.get("seed")
    return op(*(arguments[name] for name in family.required), **keywords)


def _implementation(family):
    function = families.function(family.op)
    required = len(family.required)
    defaults_from = [(family.required.index(argument), key, dimension)
                     for key, (argument, dimension) in family.key_defaults.items()
                     if argument in family.required]
    plain = len(defaults_from) == len(family.key_defaults) and not family.values

    def fast(args):
        """The common call (the required tensors and the spec, nothing else)
        straight to its prepared op's plan, or None."""
        first = args[0]
        if type(first) is not torch.Tensor or first.device.type != "cpu":
            return None
        try:
            defaults = tuple((key, args[index].shape[dimension])
                             for index, key, dimension in defaults_from)
        except (AttributeError, IndexError):  # not a tensor, too few dimensions
            return None
        op = _prepared_ops.get(_prepared_key(family, args[required] or None, "emu", defaults))
        if op is None:
            return None
        return op(*args[:required])

    def implementation(*args, **kwargs):
        result = fast(args) if plain and not kwargs and len(args) == required + 1 else None
        if result is not None:
            return result if len(family.outputs) == 1 else _with_empty_outputs(family, args[0],
                                                                               result)
        arguments = _named(family, args, kwargs)
        arguments["spec"] = arguments["spec"] or None
        prepared = _prepared_for(family, arguments)
        if prepared is not None:
            result = _call_prepared(family, prepared, arguments)
        else:
            result = function(**arguments)
        if len(family.outputs) == 1:
            return result
        return _with_empty_outputs(family, arguments[family.rows_from or family.inputs[0]],
                                   result)
    return implementation


def _with_empty_outputs(family, like, result):
    """The op's outputs, an output the spec does not write as an empty [0]
    tensor, as the fake gives it."""
    if all(value is not None for value in result):
        return tuple(result)
    return tuple(value if value is not None else
                 like.new_empty((0,), dtype=_TORCH_DTYPES[family.elements[name]])
                 for name, value in zip(family.outputs, result))


def _fake(family):
    shapes = _fake_launch_rows if family.rows_from is not None else _fake_spec_rows

    def fake(*args, **kwargs):
        outputs = shapes(family, _named(family, args, kwargs))
        return outputs if len(outputs) > 1 else outputs[0]
    return fake


def _register_custom_op():
    from torch.library import custom_op
    for family in families.FAMILIES.values():
        op = custom_op(f"mxforge::{family.op}", _implementation(family), mutates_args=(),
                       schema=schema(family).partition("(")[1] + schema(family).partition("(")[2])
        op.register_fake(_fake(family))
    return "custom_op"


def _register_library():
    global _library
    _library = torch.library.Library("mxforge", "DEF")
    register_fake = getattr(torch.library, "register_fake", None)
    for family in families.FAMILIES.values():
        implementation, fake = _implementation(family), _fake(family)
        _library.define(schema(family))
        _library.impl(family.op, implementation, "CPU")
        _library.impl(family.op, implementation, "CUDA")  # ROCm torch's GPU key
        if register_fake is not None:
            # torch >= 2.4: one fake for meta tensors and FakeTensorMode.
            register_fake(f"mxforge::{family.op}", fake, lib=_library)
        else:
            _library.impl(family.op, fake, "Meta")
            # torch 1.13 has no autograd fallthrough for Meta (it has one for
            # CPU and CUDA); the outputs are integer codes: no gradient.
            _library.impl(family.op, fake, "AutogradMeta")
    return "Library"


def register():
    """Registers torch.ops.mxforge.<op> for every op of the library, once.
    Without the library (import mxforge works without it) nothing is
    registered and REGISTRATION_ERROR says why."""
    global REGISTRATION, REGISTRATION_ERROR
    if REGISTRATION is None:
        try:
            families.FAMILIES.keys()
            len(families.FAMILIES)
        except errors.LibraryNotFoundError as missing:
            REGISTRATION_ERROR = str(missing)
            return None
        wanted = os.environ.get("MXFORGE_TORCH_REGISTRATION", "")
        if wanted not in ("", "custom_op", "library"):
            raise errors.ArgumentError(
                f"MXFORGE_TORCH_REGISTRATION must be custom_op or library, got {wanted!r}")
        # torch.library.Library with a registered fake by default: on torch
        # 2.11 custom_op's Python wrappers (autograd_impl, backend_impl) cost
        # 150-190 us a call, the Library's dispatch about 20 (docs/python.md);
        # both pass the same tests, torch.compile's included.
        use_custom_op = hasattr(torch.library, "custom_op") and wanted == "custom_op"
        REGISTRATION = _register_custom_op() if use_custom_op else _register_library()
    return REGISTRATION
