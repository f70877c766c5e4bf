"""Every op's function, result and torch schema are made from the library's
op interface (mxf_op_get_info): this checks each against the interface and
the library's operands, for every op the library has."""

import inspect

import pytest
import torch

import mxforge
from mxforge import families, specs, torch_ops


def test_the_library_lists_every_op_with_its_interface():
    ops = list(mxforge.FAMILIES)
    print(f"ops: {ops}")
    assert len(ops) == len(set(ops)) >= 4
    for op, family in mxforge.FAMILIES.items():
        assert family.rows_from is None or family.rows_from in family.required, op
        assert family.outputs and family.required, op
        for key, (operand, _) in family.key_defaults.items():
            assert key in family.keys and operand in family.required, (op, key)
        assert len(family.description) > 200, f"{op} has no help text"


@pytest.mark.parametrize("op", ["rotate_quant", "quant_weight", "rotate_quant_moe",
                                "rotate_quant_gemm"])
def test_the_function_signature_and_schema_follow_the_interface(op):
    family = mxforge.FAMILIES[op]
    function = getattr(mxforge, op)
    assert function is families.function(op) and function.__doc__ == family.description
    parameters = inspect.signature(function).parameters
    positional = [name for name, p in parameters.items()
                  if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert positional == [*family.required, "spec", *family.optional]
    keyword_only = [name for name, p in parameters.items()
                    if p.kind is inspect.Parameter.KEYWORD_ONLY]
    assert keyword_only == ["out"] + (["rotate", "layer"] if "select" in family.keys else [])
    schema = torch_ops.schema(family)
    print(schema)
    assert schema.startswith(f"{op}(") and "str spec" in schema
    for name in family.optional:
        assert f"Tensor? {name}=None" in schema
    assert schema.count("Tensor") == len(family.inputs) + len(family.outputs)


def test_each_spec_takes_a_subsequence_of_its_ops_slots():
    cases = ["rotate_quant:K=512,RS=32,rot=learned,round=sr,select=mask,layers=2",
             "rotate_quant_moe:K=512,topk=2,E=8,emask=1,round=sr",
             "rotate_quant_gemm:K=512,N=64", "quant_weight:K=512,N=32,rot=learned,RS=32"]
    for spec in cases:
        canonical = specs.canonical_spec(spec.partition(":")[0], spec)
        family = mxforge.FAMILIES[specs.op_of(canonical)]
        names = [slot.name for slot in family.slots]
        taken = [operand.name for operand in specs.operands(canonical, 4)]
        assert taken == [name for name in names if name in taken], canonical
        elements = family.elements
        for operand in specs.operands(canonical, 4):
            assert operand.element == elements[operand.name], (canonical, operand.name)


def test_a_result_type_per_op_with_several_outputs():
    assert mxforge.RotateQuantMoeResult.NAMES == mxforge.FAMILIES["rotate_quant_moe"].outputs
    assert issubclass(mxforge.QuantWeightResult, mxforge.OpResult)
    with pytest.raises(AttributeError):
        mxforge.RotateQuantGemmResult  # one output: the array itself
    with pytest.raises(AttributeError):
        mxforge.no_such_op


def test_bad_arguments_name_the_function():
    x = torch.zeros(2, 64, dtype=torch.bfloat16)
    with pytest.raises(mxforge.ArgumentTypeError, match="rotate_quant_gemm\\(\\): missing"):
        mxforge.rotate_quant_gemm(x)
    with pytest.raises(mxforge.ArgumentTypeError, match="too many positional"):
        mxforge.quant_weight(x, None, None, None)
    with pytest.raises(mxforge.ArgumentTypeError, match="multiple values for argument 'spec'"):
        mxforge.rotate_quant(x, "rotate_quant:K=64", spec="rotate_quant:K=64")
