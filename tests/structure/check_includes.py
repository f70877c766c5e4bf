#!/usr/bin/env python3
"""The tree's include structure (issue 33): which top-level folder may
include which, and, inside templates/, that no family folder includes
another family's folder and that the shared pieces (templates/common/)
include no family.

    check_includes.py SOURCE_DIR [--self-test]

Prints every arrow that breaks a rule and exits 1 when there is one. The
allowed arrows between folders are the table below: a new arrow is a design
decision, made by editing it (docs/templates.md, "Adding a template
family", says what a family may include). --self-test first builds a small
tree with one arrow of each forbidden kind and requires that each is
reported, so that a check that finds nothing cannot pass for one that
looked.
"""

import os
import re
import sys
import tempfile

# Folder -> the folders its files may include (besides itself). Lower
# layers first; everything LLVM-free is below dialects/ and templates/.
ALLOWED = {
    "support": set(),
    "numerics": {"support"},
    "spec": {"numerics", "support"},
    "abi": {"spec", "numerics", "support"},
    "arrays": {"abi", "spec", "numerics", "support"},
    "weights": {"arrays", "spec", "abi", "numerics", "support"},
    "codeobj": {"abi", "support"},
    "emulator": {"codeobj", "abi", "numerics", "support"},
    "runtime": {"emulator", "arrays", "abi", "spec", "numerics", "support"},
    "dialects": {"abi", "spec", "support"},
    "templates": {"dialects", "abi", "spec", "numerics", "support"},
    "compiler": {"templates", "dialects", "runtime", "codeobj", "abi", "spec", "support"},
    "capi": {"include", "compiler", "templates", "runtime", "codeobj", "arrays", "weights", "abi", "spec",
             "numerics", "support"},
    "tools": {"compiler", "templates", "dialects", "runtime", "codeobj", "arrays", "weights",
              "abi", "spec", "numerics", "support"},
    "include": set(),
}
# Files of a family folder that belong to a lower layer's library, by name
# (op_spec.cpp is compiled into mxforge_spec, ...): cmake/Families.cmake's
# MXFORGE_FAMILY_FILE_LAYERS, read from there so that the build and this
# check cannot disagree. Each such file may include only what its layer's
# folder may.
FAMILY_FILE_LAYERS_FILE = os.path.join("cmake", "Families.cmake")
# The list of families, which every layer reads to make its registry (and
# KernelOp): data only, so any folder may include it.
FAMILY_LIST = "templates/families.def"


def family_file_layers(root):
    """{file name: folder of its layer} for the lower layers' files."""
    path = os.path.join(root, FAMILY_FILE_LAYERS_FILE)
    if not os.path.exists(path):
        return {}
    with open(path) as cmake:
        pairs = re.findall(r'"([a-z_]+\.cpp)=([a-z]+)"', cmake.read())
    return {name: layer for name, layer in pairs if layer in ALLOWED}


SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".td", ".inc")
INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')


def includes(root):
    """(file relative to root, included path) for every quoted include."""
    for folder in ALLOWED:
        for directory, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(directory, name)
                with open(path, errors="replace") as source:
                    for line in source:
                        match = INCLUDE.match(line)
                        if match:
                            yield os.path.relpath(path, root), match.group(1)


def template_part(path):
    """'common', a family's folder name, or None (templates/'s own files)."""
    parts = path.split("/")
    if parts[0] != "templates" or len(parts) < 3:
        return None
    return parts[1]


def broken_arrows(root):
    problems = []
    layers = family_file_layers(root)
    family_list = os.path.join(root, FAMILY_LIST)
    if os.path.exists(family_list):
        with open(family_list) as listing:
            if any(INCLUDE.match(line) for line in listing):
                problems.append(f"{FAMILY_LIST} includes a file: it must stay data only")
    for path, included in includes(root):
        source, target = path.split("/")[0], included.split("/")[0]
        if included == FAMILY_LIST:
            continue
        layer = layers.get(os.path.basename(path)) if source == "templates" else None
        if layer is not None:
            if target != layer and target not in ALLOWED[layer]:
                problems.append(f"{path} includes {included}: a family's {os.path.basename(path)} "
                                f"is part of {layer}/'s library and may not include {target}/")
            continue
        if target in ALLOWED and target != source and target not in ALLOWED[source]:
            problems.append(f"{path} includes {included}: {source}/ may not include {target}/")
        if source != "templates" or target != "templates":
            continue
        here, there = template_part(path), template_part(included)
        if there is None or there == here or there == "common":
            continue
        if here == "common":
            problems.append(f"{path} includes {included}: templates/common/ includes no family")
        elif here is not None:
            problems.append(f"{path} includes {included}: a family folder includes no other "
                            f"family's folder")
    return problems


def self_test():
    """Each forbidden kind of arrow in a small tree must be reported."""
    planted = {
        "support/a.h": '#include "numerics/formats.h"\n',
        "templates/fam_a/x.cpp": '#include "templates/fam_b/y.h"\n',
        "templates/common/z.cpp": '#include "templates/fam_a/x.h"\n',
        "templates/fam_a/op_spec.cpp": '#include "abi/operands.h"\n',
        "templates/fam_b/op_spec.cpp": '#include "spec/op_declaration.h"\n',
        "cmake/Families.cmake": 'set(X\n  "op_spec.cpp=spec"\n  "rules.cpp=tiling")\n',
        "spec/reads_the_list.h": '#include "templates/families.def"\n',
        "templates/families.def": '#include "spec/kernel_spec.h"\nMXF_FAMILY(A, fam_a)\n',
        "templates/fam_b/ok.cpp": ('#include "templates/common/z.h"\n'
                                   '#include "templates/registry.h"\n#include "spec/s.h"\n'),
    }
    with tempfile.TemporaryDirectory() as root:
        for path, text in planted.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as out:
                out.write(text)
        found = broken_arrows(root)
    expected = ["support/a.h includes numerics", "templates/fam_a/x.cpp includes templates/fam_b",
                "templates/common/z.cpp includes templates/fam_a",
                "templates/fam_a/op_spec.cpp includes abi",
                "templates/families.def includes a file"]
    missing = [e for e in expected if not any(p.startswith(e) for p in found)]
    if missing or len(found) != len(expected):
        print(f"self-test FAILED: expected {expected}, found {found}")
        return False
    print(f"self-test: the {len(expected)} planted arrows were reported, the allowed ones not")
    return True


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    if "--self-test" in argv[2:] and not self_test():
        return 1
    root = argv[1]
    checked = sum(1 for _ in includes(root))
    problems = broken_arrows(root)
    for problem in problems:
        print(problem)
    families = sorted(name for name in os.listdir(os.path.join(root, "templates"))
                      if os.path.isdir(os.path.join(root, "templates", name)) and name != "common")
    with open(os.path.join(root, FAMILY_LIST)) as listing:
        listed = sorted(re.findall(r"^MXF_FAMILY\(\w+, *(\w+)\)", listing.read(), re.M))
    if listed != families:
        problems.append(f"{FAMILY_LIST} lists {', '.join(listed)} but templates/ has family "
                        f"folders {', '.join(families)}: one line per folder")
        print(problems[-1])
    print(f"{checked} includes in {len(ALLOWED)} folders checked; template families "
          f"{', '.join(families)}: {len(problems)} broken arrows")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
