#!/usr/bin/env python3
"""Runs the command examples of README.md and docs/*.md that show output, and
fails when the output or the command no longer matches (issue 31: docs that
cannot drift).

An example is a fenced block whose lines start with `$ mxforge ...` (a
trailing backslash continues the command), each followed by the output it
shows. Every such command with output is run with this build's mxforge in a
fresh directory and its stdout and stderr compared with the shown lines:

  - a shown line `...` stands for any number of lines, `...` inside a line for
    any text;
  - timings (`12.3 ms`, `4 us`, `0.21 s`) and a seed the command did not fix
    (`seed: 3` without --seed) are masked on both sides;
  - `<!-- doc-test: mask-numbers -->` before a block masks every number and
    hex digest and compares runs of spaces as one, and a column's rule of dashes
    whatever its width (tables of timings, sizes, registers); `<!-- doc-test: setup: CMD -->` runs CMD (sh, in the example's
    directory; $SOURCE is the repository, $PYTHON this interpreter) first; `<!-- doc-test: skip: WHY -->`
    leaves the block out, and the run prints WHY.

  doc_examples.py MXFORGE SOURCE_DIR [--self-test]

It also checks docs/cli.md's synopsis against `mxforge --help`: every
subcommand and every option each one's --help lists must be on its lines.

--self-test also changes one character of a shown output and requires the
comparison to fail (the negative control).
"""
import os
import re
import subprocess
import sys
import tempfile

TIMING = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|us|µs|s)\b")
SEED = re.compile(r"\bseed: \d+")
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?%?")
HASH = re.compile(r"\b[0-9a-f]{8,64}\b")  # digests, in mask-numbers blocks
ANNOTATION = re.compile(r"<!-- doc-test: (skip|setup|mask-numbers)(?::\s*(.*?))?\s*-->")


class Example:
    def __init__(self, path, line, command, shown, options):
        self.path, self.line, self.command, self.shown = path, line, command, shown
        self.options = options  # {"setup": [...], "mask-numbers": bool}

    def where(self):
        return "%s:%d" % (self.path, self.line)


def examples_in(path, text):
    """(examples, skipped) of one markdown file."""
    examples, skipped = [], []
    lines = text.split("\n")
    pending = {"setup": [], "mask-numbers": False, "skip": None}
    i = 0
    while i < len(lines):
        note = ANNOTATION.search(lines[i])
        if note:
            kind, value = note.group(1), note.group(2)
            if kind == "setup":
                pending["setup"].append(value)
            elif kind == "mask-numbers":
                pending["mask-numbers"] = True
            else:
                pending["skip"] = value or "no reason given"
            i += 1
            continue
        if not lines[i].startswith("```"):
            i += 1
            continue
        start = i
        i += 1
        block = []
        while i < len(lines) and not lines[i].startswith("```"):
            block.append((i + 1, lines[i]))
            i += 1
        i += 1
        options, pending = pending, {"setup": [], "mask-numbers": False, "skip": None}
        j = 0
        while j < len(block):
            number, line = block[j]
            if not line.startswith("$ mxforge"):
                j += 1
                continue
            command = line[2:]
            while command.endswith("\\") and j + 1 < len(block):
                j += 1
                command = command[:-1] + " " + block[j][1].strip()
            shown = []
            j += 1
            while j < len(block) and not block[j][1].startswith("$ "):
                shown.append(block[j][1])
                j += 1
            if not shown:
                continue  # no output shown: nothing to hold it to
            if options["skip"]:
                skipped.append("%s:%d (%s)" % (path, number, options["skip"]))
                continue
            examples.append(Example(path, number, command, shown, options))
        del start
    return examples, skipped


def mask(line, seed_fixed, numbers):
    line = TIMING.sub("<time>", line)
    if not seed_fixed:
        line = SEED.sub("seed: <seed>", line)
    if numbers:  # a table: its alignment follows the numbers' widths
        line = HASH.sub("<hash>", line)
        line = NUMBER.sub("<n>", line)
        line = re.sub(r"-{2,}", "--", line)  # a rule under a column as wide as its numbers
        line = re.sub(r"\s+", " ", line)
    return line.rstrip()


def line_matches(actual, shown):
    pieces = shown.split("...")
    if len(pieces) == 1:
        return actual == shown
    if not actual.startswith(pieces[0]):
        return False
    at = len(pieces[0])
    for piece in pieces[1:-1]:
        found = actual.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return actual.endswith(pieces[-1]) and len(actual) - len(pieces[-1]) >= at


def lines_match(actual, shown):
    """Whether the actual lines match the shown ones (a `...` line: any run)."""
    if not shown:
        return not actual
    if shown[0].strip() == "...":
        return any(lines_match(actual[k:], shown[1:]) for k in range(len(actual) + 1))
    return bool(actual) and line_matches(actual[0], shown[0]) and lines_match(actual[1:],
                                                                               shown[1:])


def run(example, mxforge, source):
    with tempfile.TemporaryDirectory(prefix="mxforge-doc-") as work:
        env = dict(os.environ, SOURCE=source, PYTHON=sys.executable,
                   MXFORGE_CACHE_DIR=os.path.join(work, ".cache"))
        for setup in example.options["setup"]:
            subprocess.run(["sh", "-c", setup], cwd=work, env=env, check=True,
                           stdout=subprocess.DEVNULL)
        # As written, through sh: `mxforge` is this build's, wherever it
        # appears (`mxforge bundle ... && mxforge inspect ...`).
        env["MXFORGE_UNDER_TEST"] = mxforge
        script = 'mxforge() { "$MXFORGE_UNDER_TEST" "$@"; }\n' + example.command
        done = subprocess.run(["sh", "-c", script], cwd=work, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=600)
        return done.returncode, done.stdout.decode("utf-8", "replace").rstrip("\n").split("\n")


def check(example, actual):
    seed_fixed = "--seed" in example.command
    numbers = example.options["mask-numbers"]
    got = [mask(line, seed_fixed, numbers) for line in actual]
    want = [mask(line, seed_fixed, numbers) for line in example.shown]
    return lines_match(got, want), got, want


def synopsis_gaps(mxforge, source):
    """What docs/cli.md's synopsis block lacks: every subcommand `mxforge --help`
    lists, and every option of each one's --help, on its lines (`-X` and
    `--X` are one option to llvm::cl)."""
    with open(os.path.join(source, "docs", "cli.md"), encoding="utf-8") as f:
        text = f.read()
    block = text[text.index("```\nmxforge spec SPEC"):]
    block = block[4:block.index("\n```", 4)]
    lines_of = {}
    current = None
    for line in block.split("\n"):
        if line.startswith("mxforge "):
            current = line.split()[1]
        if current:
            lines_of.setdefault(current, []).append(line)
    overview = subprocess.run([mxforge, "--help"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT).stdout.decode()
    commands = re.findall(r"^  mxforge ([a-z]+) ", overview, re.M)
    gaps = []
    for command in commands:
        if command not in lines_of:
            gaps.append("the synopsis has no line for `mxforge %s`" % command)
            continue
        documented = " ".join(lines_of[command]).replace("--", "-")
        shown = subprocess.run([mxforge, command, "--help"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT).stdout.decode()
        for option in re.findall(r"^  (-{1,2}[A-Za-z][-A-Za-z0-9]*)", shown, re.M):
            if option in ("--help", "--help-list"):
                continue
            if not re.search(re.escape(option.replace("--", "-")) + r"(?![-A-Za-z0-9])",
                             documented):
                gaps.append("`mxforge %s %s` is not in the synopsis" % (command, option))
    return commands, gaps


def main(argv):
    mxforge, source = argv[1], argv[2]
    self_test = "--self-test" in argv
    files = [os.path.join(source, "README.md")] + sorted(
        os.path.join(source, "docs", name) for name in os.listdir(os.path.join(source, "docs"))
        if name.endswith(".md"))
    examples, skipped = [], []
    for path in files:
        with open(path, encoding="utf-8") as f:
            found, left = examples_in(os.path.relpath(path, source), f.read())
        examples += found
        skipped += left
    failures = 0
    for example in examples:
        _, actual = run(example, mxforge, source)
        ok, got, want = check(example, actual)
        print("%s %s: %s" % ("ok  " if ok else "FAIL", example.where(), example.command))
        if not ok:
            failures += 1
            print("  shown:\n    " + "\n    ".join(want) + "\n  got:\n    " + "\n    ".join(got))
    for line in skipped:
        print("not run: " + line)
    commands, gaps = synopsis_gaps(mxforge, source)
    for gap in gaps:
        print("FAIL docs/cli.md synopsis: " + gap)
    failures += len(gaps)
    print("synopsis: %d subcommands and their options checked against --help" % len(commands))
    if self_test:
        # The negative control: one changed character of a shown output fails.
        exact = [e for e in examples if not e.options["mask-numbers"]]
        example = exact[0]
        _, actual = run(example, mxforge, source)
        altered = list(example.shown)
        last = altered[-1]
        altered[-1] = last[:-1] + ("X" if last[-1:] != "X" else "Y")
        example.shown = altered
        ok, _, _ = check(example, actual)
        print("self-test: an edited output of %s %s" % (example.where(),
                                                         "FAILED TO FAIL" if ok else "fails"))
        failures += 1 if ok else 0
    print("%d examples run, %d failed, %d not run" % (len(examples), failures, len(skipped)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
