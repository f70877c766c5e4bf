"""The Python layer reads the C library's tables instead of restating them
(issue 33): the spec keys, the M buckets and selective rotation's launch
argument come from the C API (mxf_spec_key_names, mxf_spec_m_buckets,
mxf_spec_bucket_for, mxf_spec_get_selection). This scans the package's
source for a copy of any of them; a negative control proves the scan finds
each kind of copy."""

import ast
import pathlib

import pytest

import mxforge
from mxforge import specs

PACKAGE = pathlib.Path(mxforge.__file__).parent


def restated_tables(source, keys, buckets):
    """(line, what) for each place `source` restates a C table: a literal
    collection naming 3+ spec keys, a literal collection of 3+ M buckets, a
    name bound to a constant whose name says it is a bucket, or spec text
    searched for a select= value."""
    key_set = set(keys)
    bucket_set = set(buckets)
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            constants = [element.value for element in node.elts
                         if isinstance(element, ast.Constant)]
            named = [c for c in constants if isinstance(c, str) and c in key_set]
            if len(named) >= 3:
                found.append((node.lineno, f"spec keys {named}"))
            numbers = [c for c in constants
                       if isinstance(c, int) and not isinstance(c, bool) and c in bucket_set]
            if len(numbers) >= 3 and len(numbers) == len(constants):
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
    restated = {path.name: restated_tables(path.read_text(), keys, buckets)
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
    for source, what in copies.items():
        found = restated_tables(source, keys, buckets)
        assert len(found) == 1 and what in found[0][1], (source, found)
    # Not copies: another key's string alone, numbers that are not only buckets.
    assert restated_tables("x = ('K', 'shape', 3)\ny = (1, 2, 3)\n", keys, buckets) == []


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
