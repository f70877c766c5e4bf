"""The Python layer reads the C library's tables instead of restating them
(issue 33): the spec keys, the M buckets, selective rotation's launch
argument and each op's interface (its operands, rows input, keys from
shapes, row extents, help) come from the C API (mxf_spec_key_names,
mxf_spec_m_buckets, mxf_spec_bucket_for, mxf_spec_get_selection,
mxf_op_get_info, mxf_spec_get_row_extents). This scans the package's
source for a copy of any of them; a negative control proves the scan finds
each kind of copy."""

import ast
import pathlib

import pytest

import mxforge
from mxforge import specs

PACKAGE = pathlib.Path(mxforge.__file__).parent


def op_tables():
    """(op names, operand names of any op) from the library's interfaces."""
    families = mxforge.FAMILIES
    return set(families), {slot.name for family in families.values() for slot in family.slots}


def restated_tables(source, keys, buckets, ops=(), operands=()):
    """(line, what) for each place `source` restates a C table: a literal
    collection naming 3+ spec keys, a literal collection of 3+ M buckets, a
    name bound to a constant whose name says it is a bucket, spec text
    searched for a select= value, a literal collection (or dict) naming 2+
    ops (a table per op), or one naming 3+ operands (an op's operand list)."""
    key_set = set(keys)
    bucket_set = set(buckets)
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            elements = node.keys if isinstance(node, ast.Dict) else node.elts
            constants = [element.value for element in elements
                         if isinstance(element, ast.Constant)]
            named_ops = [c for c in constants if isinstance(c, str) and c in ops]
            if len(named_ops) >= 2:
                found.append((node.lineno, f"op table {named_ops}"))
            named_operands = [c for c in constants if isinstance(c, str) and c in operands]
            if len(named_operands) >= 3:
                found.append((node.lineno, f"operand list {named_operands}"))
            named = [c for c in constants if isinstance(c, str) and c in key_set]
            if len(named) >= 3:
                found.append((node.lineno, f"spec keys {named}"))
            numbers = [c for c in constants
                       if isinstance(c, int) and not isinstance(c, bool) and c in bucket_set]
            # A dict keyed by sizes (element bytes 1, 2, 4) is not a bucket list.
            if (len(numbers) >= 3 and len(numbers) == len(constants)
                    and not isinstance(node, ast.Dict)):
                found.append((node.lineno, f"M buckets {numbers}"))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and "BUCKET" in target.id.upper():
                    found.append((node.lineno, f"{target.id} = {node.value.value!r}"))
        elif isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                if (isinstance(operand, ast.Constant) and isinstance(operand.value, str)
                        and "select=" in operand.value):
                    found.append((node.lineno, f"spec text searched for {operand.value!r}"))
    return found


def test_the_package_reads_the_c_tables():
    keys, buckets = specs.spec_keys(), specs.m_buckets()
    sources = sorted(PACKAGE.glob("*.py"))
    assert len(sources) >= 10, sources
    print(f"scanned {len(sources)} modules of {PACKAGE} against {len(keys)} keys and "
          f"buckets {buckets}")
    ops, operands = op_tables()
    assert len(ops) >= 4 and {"x", "q", "s"} <= operands
    restated = {path.name: restated_tables(path.read_text(), keys, buckets, ops, operands)
                for path in sources}
    assert {name: found for name, found in restated.items() if found} == {}


def test_the_scan_finds_each_kind_of_copy():
    keys, buckets = specs.spec_keys(), specs.m_buckets()
    copies = {
        "KEYS = ('K', 'RS', 'rot', 'fmt')\n": "spec keys",
        f"B = [{buckets[0]}, {buckets[1]}, {buckets[2]}]\n": "M buckets",
        f"LARGEST_M_BUCKET = {buckets[-1]}\n": "LARGEST_M_BUCKET",
        "flag = ',select=flag,' in spec\n": "spec text searched",
    }
    ops, operands = op_tables()
    copies.update({
        "FUNCTIONS = {'rotate_quant': f, 'quant_weight': g}\n": "op table",
        "OUTPUTS = ('q', 's', 'sorted_ids')\n": "operand list",
    })
    for source, what in copies.items():
        found = restated_tables(source, keys, buckets, ops, operands)
        assert len(found) == 1 and what in found[0][1], (source, found)
    # Not copies: another key's string alone, numbers that are not only buckets.
    assert restated_tables("x = ('K', 'shape', 3)\ny = (1, 2, 3)\nz = ('x', 'q')\n", keys, buckets,
                           ops, operands) == []


def test_the_c_tables_are_what_the_keywords_and_launches_use():
    keys = specs.spec_keys()
    assert {"K", "RS", "M", "fmt", "select", "layers", "wlayout"} <= set(keys)
    assert specs.m_buckets() == tuple(sorted(specs.m_buckets()))
    largest = specs.largest_m_bucket()
    assert specs.bucket_for(1) == specs.m_buckets()[0]
    assert specs.bucket_for(largest) == largest
    for m in (0, largest + 1):
        with pytest.raises(mxforge.ArgumentError, match=f"m={m} is outside 1..{largest}"):
            specs.bucket_for(m)
    # A keyword spelled as any key, case aside, reaches the parser.
    assert specs.canonical_spec(k=4096, rs=64, select="flag").find(",select=flag,") > 0
    with pytest.raises(mxforge.ArgumentTypeError, match="unexpected keyword argument 'kk'"):
        specs.canonical_spec(kk=4096)
    assert specs.selection_arg(specs.canonical_spec(k=4096)) is None
    assert specs.selection_arg(specs.canonical_spec(k=4096, rs=64, select="flag")) == "rotate"
    assert specs.selection_arg(specs.canonical_spec(k=4096, rs=64, select="mask", layers=2)) == "layer"
