"""The torch ops under dynamic shapes: symbolic output shapes from the fakes,
and torch.compile(fullgraph=True) over every op with the batch dimension
dynamic (dynamic=True, torch._dynamo.mark_dynamic): no graph break, one graph
for batch sizes 1..256, results equal byte for byte to the eager op.

The formulas and fake-tensor tests run on every torch (1.13 included); the
torch.compile tests need torch >= 2.0 and are skipped, saying so, elsewhere.
"""

import numpy as np
import pytest
import sympy
import torch

import mxforge
from mxforge import specs, torch_ops
from helpers import mismatch, random_x, to_torch

# Batch sizes of the compile tests: the bucket edges, odd sizes, 1 and 256.
BATCHES = (1, 3, 16, 37, 200, 256)

K = 256
N = 32  # rows of the GEMM's weights


def _bf16(rng, *shape):
    rows = int(np.prod(shape[:-1]))
    return to_torch(random_x(rng, rows, shape[-1])).reshape(shape)


def _routing(rng, m, topk, experts):
    gen = np.random.default_rng(rng.randrange(2**63))
    ids = np.stack([gen.choice(experts, topk, replace=False) for _ in range(m)]).astype(np.int32)
    return torch.from_numpy(ids), torch.from_numpy(gen.standard_normal((m, topk))
                                                   .astype(np.float32))


class Case:
    """One op and spec: `inputs(rng, m)` gives the tensors of a call at m
    rows (the dynamic ones first), `call(*tensors)` the op."""

    def __init__(self, name, op, spec, inputs, dynamic_inputs=1, batches=BATCHES,
                 keyword_tensors=(), **static_args):
        self.name, self.op, self.spec, self.batches = name, op, spec, batches
        self.inputs, self.dynamic_inputs, self.static_args = inputs, dynamic_inputs, static_args
        self.keyword_tensors = keyword_tensors  # the last tensors, passed by these names
        self.call = self._make_call()

    def _make_call(self):
        # A plain function of the tensors, what torch.compile traces.
        operator = getattr(torch.ops.mxforge, self.op)
        spec, static_args, names = self.spec, dict(self.static_args), self.keyword_tensors
        if not names:
            return lambda *tensors: operator(*tensors, spec, **static_args)
        (name,) = names
        return lambda *tensors: operator(*tensors[:-1], spec, **{name: tensors[-1]},
                                         **static_args)

    def __repr__(self):
        return self.name


def _gemm_weights(rng):
    w = _bf16(rng, N, K) * 0.05
    return tuple(mxforge.quant_weight(w.to(torch.bfloat16), rs=64, layout="a4w4_shuffle",
                                      wlayout="preshuffle_16x16"))


MASK = torch.tensor([0, 1, 1, 0], dtype=torch.int32)

CASES = [
    Case("rotate_quant", "rotate_quant", "rotate_quant:RS=64,scale=rceil",
         lambda rng, m: (_bf16(rng, m, K),)),
    Case("rotate_quant a4w4_shuffle", "rotate_quant",
         "rotate_quant:RS=32,rot=hadamard,layout=a4w4_shuffle",
         lambda rng, m: (_bf16(rng, m, K),)),
    Case("rotate_quant A6W6 tiles", "rotate_quant",
         "rotate_quant:RS=32,fmt=fp6_e2m3,scale=a6w6,round=rna,layout=mxfp6_c0c1_256_padk2",
         lambda rng, m: (_bf16(rng, m, K),)),
    Case("rotate_quant select=mask", "rotate_quant",
         "rotate_quant:RS=64,select=mask,layers=4",
         lambda rng, m: (_bf16(rng, m, K), MASK.clone()), keyword_tensors=("layer_mask",),
         layer=2),
    Case("rotate_quant_moe stage 1", "rotate_quant_moe",
         "rotate_quant_moe:E=8,RS=64,block=16,scale=rceil,layout=a4w4_shuffle",
         lambda rng, m: (_bf16(rng, m, K),) + _routing(rng, m, 2, 8), dynamic_inputs=3),
    Case("rotate_quant_moe stage 2", "rotate_quant_moe",
         "rotate_quant_moe:E=8,RS=32,block=32,stage=2",
         lambda rng, m: (_bf16(rng, m, 2, K),) + _routing(rng, m, 2, 8), dynamic_inputs=3),
    Case("rotate_quant_gemm", "rotate_quant_gemm",
         "rotate_quant_gemm:RS=64,layout=a4w4_shuffle,wlayout=preshuffle_16x16",
         lambda rng, m: (_bf16(rng, m, K),) + _gemm_weights(rng)),
    # quant_weight's rows are the weight's N (its spec leaves N to w's
    # shape), a multiple of 16; no bound of 256 (no M bucket) but the same
    # range here.
    Case("quant_weight", "quant_weight", "quant_weight:RS=64,layout=a4w4_shuffle",
         lambda rng, n: (_bf16(rng, n, K),), batches=(16, 48, 112, 208, 256, 32)),
    # The norm without the residual (its residual_out is an empty tensor):
    # gamma's extent is K, not m, so only x is dynamic. gamma is its own
    # tensor, as a model's parameter is: a view of a [1, K] base would let
    # duck sizing tie that base's 1 to m = 1 (a guard, then a recompile).
    Case("rmsnorm_rotate_quant", "rmsnorm_rotate_quant",
         "rmsnorm_rotate_quant:RS=64,scale=rceil,layout=a4w4_shuffle",
         lambda rng, m: (_bf16(rng, m, K), _bf16(rng, K).clone()), eps=1e-6),
]


def _written(case, outputs):
    """The outputs as the eager op defines them: a MoE launch leaves the
    scale rows past the valid sorted rows unwritten, so s is cut to them."""
    if case.op != "rotate_quant_moe":
        return list(outputs)
    q, s, *sorting = outputs
    valid = int(sorting[-1][0])
    if "layout=a4w4_shuffle" in case.spec:
        valid = (valid + 31) // 32 * 32
    return [q, s[:valid]] + sorting


def _expect_same_bytes(case, m, actual, expected):
    actual = actual if isinstance(actual, (tuple, list)) else [actual]
    expected = expected if isinstance(expected, (tuple, list)) else [expected]
    assert len(actual) == len(expected)
    for index, (a, e) in enumerate(zip(_written(case, actual), _written(case, expected))):
        problem = mismatch(a, e, f"output {index} of {case.name} at m={m}")
        assert problem is None, problem


# The tensors each case passes, by the family's argument names.
ARGUMENTS = {"rotate_quant": ("x",), "rotate_quant_moe": ("x", "topk_ids", "topk_weights"),
             "rotate_quant_gemm": ("x", "w_q", "w_s"), "quant_weight": ("w",),
             "rmsnorm_rotate_quant": ("x", "gamma")}


def _canonical(case, tensors):
    from mxforge import families
    arrays = dict(zip(ARGUMENTS[case.op], tensors))
    return families.family_spec(mxforge.FAMILIES[case.op], arrays, case.spec, {}, case.op)


# --- formulas and fake tensors: every torch -------------------------------


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_row_formulas_are_the_librarys_shapes_at_every_m(rng, case):
    """The symbolic shapes, evaluated at each m in 1..256, are the library's
    shapes at m (mxf_spec_get_operands), and the row-dependent extents are
    expressions of m, not constants."""
    canonical = _canonical(case, case.inputs(rng, case.batches[0]))
    outputs = torch_ops._written(canonical)  # residual_out only with add=1
    m = sympy.Symbol("m", integer=True, positive=True)
    symbolic = torch_ops._shapes_at(canonical, outputs, m)
    print(f"{canonical}: {dict(zip(outputs, symbolic))}")
    assert any(isinstance(extent, sympy.Expr) and m in extent.free_symbols
               for extent in symbolic[0]), f"{outputs[0]} does not follow m: {symbolic[0]}"
    rows_range = range(16, 257, 16) if case.op == "quant_weight" else range(1, 257)
    for rows in rows_range:
        spec_at = torch_ops._with_rows(canonical, rows)
        library = {operand.name: operand.shape for operand in specs.operands(spec_at, rows)}
        for name, shape in zip(outputs, symbolic):
            evaluated = tuple(int(sympy.sympify(extent).subs(m, rows)) for extent in shape)
            assert evaluated == library[name], \
                f"{name} at m={rows}: formula {shape} gives {evaluated}, library {library[name]}"


def _symbolic_fake_support():
    """FakeTensorMode with a ShapeEnv and per-dimension dynamism, or None
    (torch 1.13 has neither: its fake tensors have concrete sizes)."""
    try:
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.fx.experimental.symbolic_shapes import (DimDynamic, ShapeEnv,
                                                           StatelessSymbolicContext)
        from torch._dynamo.source import ConstantSource  # noqa: F401
    except ImportError:
        return None
    return FakeTensorMode, ShapeEnv, DimDynamic, StatelessSymbolicContext


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_fake_tensors_give_the_eager_shapes_and_keep_m_symbolic(rng, case):
    """Under FakeTensorMode the op gives the eager op's shapes and dtypes.
    Where torch has a ShapeEnv (>= 2.1), m is a symbol: every output extent
    is an expression of it that equals the eager extent, and nothing
    specialized it to a constant."""
    m = rng.choice([m for m in case.batches if m > 1])
    tensors = case.inputs(rng, m)
    eager = case.call(*tensors)
    eager = eager if isinstance(eager, tuple) else (eager,)
    support = _symbolic_fake_support()
    if support is None:
        from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
        print(f"torch {torch.__version__}: no ShapeEnv in FakeTensorMode; concrete fake shapes")
        with FakeTensorMode() as mode:
            fakes = case.call(*(mode.from_tensor(t) for t in tensors))
        fakes = fakes if isinstance(fakes, tuple) else (fakes,)
        assert all(isinstance(f, FakeTensor) for f in fakes)
        assert [(tuple(f.shape), f.dtype) for f in fakes] == \
            [(tuple(e.shape), e.dtype) for e in eager]
        return
    FakeTensorMode, ShapeEnv, DimDynamic, StatelessSymbolicContext = support
    shape_env = ShapeEnv()
    mode = FakeTensorMode(shape_env=shape_env)

    from torch._dynamo.source import ConstantSource

    def fake(tensor, index):
        # The batch dimension of the dynamic inputs is a symbol (one symbol:
        # equal sizes share it), every other dimension a constant.
        sizes = [DimDynamic.DYNAMIC if index < case.dynamic_inputs and d == 0
                 else DimDynamic.STATIC for d in range(tensor.dim())]
        return mode.from_tensor(tensor, source=ConstantSource(f"input{index}"),
                                symbolic_context=StatelessSymbolicContext(dynamic_sizes=sizes))

    fake_inputs = [fake(t, i) for i, t in enumerate(tensors)]
    symbol = fake_inputs[0].shape[0]
    assert not isinstance(symbol, int), f"torch made m={m} static"
    with mode:
        fakes = case.call(*fake_inputs)
    fakes = fakes if isinstance(fakes, tuple) else (fakes,)
    expr = symbol.node.expr
    print(f"m={m} is {expr}; outputs {[tuple(f.shape) for f in fakes]}")
    replaced = shape_env.replacements.get(expr) if hasattr(shape_env, "replacements") else None
    assert replaced is None or not replaced.is_number, f"m was specialized to {replaced}"
    follows = 0
    for index, (f, e) in enumerate(zip(fakes, eager)):
        assert f.dtype == e.dtype and f.dim() == e.dim(), f"output {index}"
        for extent, expected in zip(f.shape, e.shape):
            if isinstance(extent, int):
                assert extent == expected, f"output {index}: {tuple(f.shape)} != {tuple(e.shape)}"
                continue
            follows += 1
            value = extent.node.expr.xreplace({expr: m})
            assert int(value) == expected, f"output {index}: {extent} at m={m} is {value}, " \
                                           f"eager {expected}"
    assert follows, "no output extent follows m"


# --- torch.compile: torch >= 2.0 -------------------------------------------


def _compile_support():
    """Why torch.compile cannot run here, or None when it can."""
    if not hasattr(torch, "compile"):
        return (f"torch {torch.__version__} has no torch.compile (it arrived in torch 2.0); "
                f"the dynamic-shape compile tests run on torch >= 2.0")
    return None


needs_compile = pytest.mark.skipif(_compile_support() is not None,
                                   reason=str(_compile_support()))


class GraphCounter:
    """A torch.compile backend that counts the graphs it is given (one per
    compile or recompile) and runs each through aot_eager, so the fakes are
    traced a second time by AOTAutograd as in a real backend."""

    def __init__(self):
        self.graphs = 0

    def __call__(self, graph_module, example_inputs):
        self.graphs += 1
        from torch._dynamo.backends.registry import lookup_backend
        return lookup_backend("aot_eager")(graph_module, example_inputs)


def _size_one_config():
    """torch specializes sizes 0 and 1 of a dynamic dimension (the 0/1
    specialization), so m=1 would get a graph of its own whatever our fakes
    do. torch.fx.experimental._config.backed_size_oblivious turns that off
    where torch has it; returns (a context manager, whether m=1 shares the
    graph)."""
    import contextlib
    try:
        from torch.fx.experimental import _config
    except ImportError:
        return contextlib.nullcontext(), False
    if not hasattr(_config, "backed_size_oblivious"):
        return contextlib.nullcontext(), False
    return _config.patch(backed_size_oblivious=True), True


def _run_batches(rng, case, compile_kwargs, mark_dynamic):
    torch._dynamo.reset()
    counter = GraphCounter()
    compiled = torch.compile(case.call, backend=counter, fullgraph=True, **compile_kwargs)
    config, size_one_shares = _size_one_config()
    # Without backed_size_oblivious, size 1 goes last: its own graph is torch's.
    batches = case.batches if size_one_shares or 1 not in case.batches else \
        tuple(m for m in case.batches if m != 1) + (1,)
    graphs_before_one = None
    with config:
        for m in batches:
            if m == 1:
                graphs_before_one = counter.graphs
            tensors = case.inputs(rng, m)
            if mark_dynamic:
                for tensor in tensors[:case.dynamic_inputs]:
                    torch._dynamo.mark_dynamic(tensor, 0)
            _expect_same_bytes(case, m, compiled(*tensors), case.call(*tensors))
    print(f"{case.name}: {counter.graphs} graph(s) for m in {batches} "
          f"(backed_size_oblivious {'on' if size_one_shares else 'not in this torch'})")
    if size_one_shares:
        assert counter.graphs == 1, f"{counter.graphs} graphs for m in {batches}"
    elif graphs_before_one is None:
        assert counter.graphs == 1, f"{counter.graphs} graphs for m in {batches}"
    else:
        assert graphs_before_one == 1, f"{graphs_before_one} graphs for m in {batches[:-1]}"
        assert counter.graphs <= 2, f"m=1 made {counter.graphs - graphs_before_one} graphs"


# Known, not understood yet (2026-12-06, torch 2.11 on the device host): in
# this harness the norm's case makes 2 graphs under dynamic=True, although the
# same op, spec, inputs, backend and batches in a plain script make 1, and
# mark_dynamic (below) makes 1. Strict: the day it passes, this must go.
_DYNAMIC_TRUE_CASES = [
    pytest.param(case, marks=pytest.mark.xfail(
        strict=True, reason="2 graphs under dynamic=True in this harness only (docs/python.md)"))
    if case.op == "rmsnorm_rotate_quant" else case for case in CASES]


@needs_compile
@pytest.mark.parametrize("case", _DYNAMIC_TRUE_CASES, ids=repr)
def test_compile_dynamic_true_makes_one_graph_for_every_batch(rng, case):
    _run_batches(rng, case, {"dynamic": True}, mark_dynamic=False)


@needs_compile
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_mark_dynamic_on_the_batch_makes_one_graph(rng, case):
    # The failure this guards against: ConstraintViolationError, "You marked
    # L['x'].size()[0] as dynamic but your code specialized it to be a
    # constant", from a fake that called int(x.shape[0]).
    _run_batches(rng, case, {}, mark_dynamic=True)


@needs_compile
def test_compile_refuses_what_a_launch_refuses(rng):
    case = CASES[0]
    compiled = torch.compile(case.call, backend=GraphCounter(), fullgraph=True, dynamic=True)
    with pytest.raises(Exception, match="300"):
        compiled(_bf16(rng, 300, K))
