"""mxforge.bench: what `mxforge bench` measures, from Python.

The check-then-time loop, the MI355X model and the HIP timing live in the
CLI (tools/mxforge/bench_command.cpp, docs/cli.md "mxforge bench"); this
runs it and returns its JSON rows, so that the two can never disagree. The
CLI is $MXFORGE_CLI, else this checkout's build/tools/mxforge/mxforge, else
`mxforge` on PATH.
"""

import json
import os
import shutil
import subprocess
import tempfile

from . import bench_plot
from .errors import ArgumentError, ArgumentTypeError, Error, LibraryNotFoundError
from .specs import largest_m_bucket


def cli_path():
    """The mxforge CLI bench runs."""
    explicit = os.environ.get("MXFORGE_CLI")
    if explicit:
        if not os.access(explicit, os.X_OK):
            raise LibraryNotFoundError(f"MXFORGE_CLI={explicit} is not an executable mxforge CLI")
        return explicit
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    built = os.path.join(repo, "build", "tools", "mxforge", "mxforge")
    if os.access(built, os.X_OK):
        return built
    found = shutil.which("mxforge")
    if found:
        return found
    raise LibraryNotFoundError(
        f"mxforge.bench runs the mxforge CLI, which is not at {built} nor on PATH (build target "
        f"mxforge, or set MXFORGE_CLI)")


def _names(value, what):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ArgumentTypeError(f"bench: {what} must be a string or a list of strings, "
                            f"not {type(value).__name__}")


def _count(value, what, low):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"bench: {what} must be an int, not {type(value).__name__}")
    if not low <= value <= 100000:
        raise ArgumentError(f"bench: {what}={value} is not in {low}..100000")
    return value


class BenchRows(list):
    """The rows (one dict per kernel and m, docs/cli.md's JSON fields), with
    the CLI's printed table in `.table`."""

    def __init__(self, rows, table):
        super().__init__(rows)
        self.table = table


def bench(preset=None, specs=None, m=None, device="emu", repeats=None, warmup=None,
          flush_l2=False, seed=None, plot=None):
    """Checks every kernel of `preset` (a name or names) and `specs` (spec
    strings) against the reference on `device`, then times it: the MI355X
    model's estimate on "emu", hipEvent timing of graph-captured launches on
    "hip" (`repeats`, `warmup`, `flush_l2`), at each row count of `m` (an int
    or a list; None: the CLI's default list). Returns BenchRows; a failed
    check raises mxforge.Error (with the rows in `.rows`). `plot="f.png"`
    also draws them against their floor (matplotlib)."""
    presets, spec_list = _names(preset, "preset"), _names(specs, "specs")
    if not presets and not spec_list:
        raise ArgumentError("bench: give preset= or specs=, e.g. "
                            "mxforge.bench(preset='qwen3-8b', m=[1])")
    if device not in ("emu", "hip"):
        raise ArgumentError(f"bench: device={device!r} is not 'emu' or 'hip'")
    if isinstance(m, int) and not isinstance(m, bool):
        m = [m]
    if m is not None and (not isinstance(m, (list, tuple)) or not m or
                          any(isinstance(r, bool) or not isinstance(r, int) for r in m)):
        raise ArgumentTypeError(f"bench: m must be an int or a non-empty list of ints, not {m!r}")
    if m is not None and any(not 1 <= r <= largest_m_bucket() for r in m):
        raise ArgumentError(f"bench: every m must be in 1..{largest_m_bucket()}: {list(m)}")
    repeats, warmup = _count(repeats, "repeats", 1), _count(warmup, "warmup", 0)
    if device == "emu" and (repeats is not None or warmup is not None or flush_l2):
        raise ArgumentError("bench: repeats, warmup and flush_l2 time launches on a GPU: they "
                            "need device='hip' (emu gives the MI355X model's estimate)")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ArgumentError(f"bench: seed must be a non-negative int, not {seed!r}")
    if plot is not None and not isinstance(plot, (str, os.PathLike)):
        raise ArgumentTypeError(f"bench: plot must be a path, not {type(plot).__name__}")

    args = [cli_path(), "bench", "--device", device]
    if m is not None:
        args += ["--m", ",".join(str(r) for r in m)]
    for name in presets:
        args += ["--preset", name]
    for spec in spec_list:
        args += ["--spec", spec]
    for flag, value in (("--repeats", repeats), ("--warmup", warmup), ("--seed", seed)):
        if value is not None:
            args += [flag, str(value)]
    if flush_l2:
        args.append("--flush-l2")
    with tempfile.TemporaryDirectory(prefix="mxforge-bench-") as scratch:
        rows_path = os.path.join(scratch, "rows.json")
        done = subprocess.run(args + ["--json", rows_path], capture_output=True, text=True)
        if not os.path.exists(rows_path):
            raise Error("mxforge bench failed: " + (done.stderr.strip() or
                                                    f"exit code {done.returncode}"))
        with open(rows_path) as f:
            rows = BenchRows(json.load(f), done.stdout)
    failed = [r for r in rows if r["check"] != "ok" or r.get("separated_check", "ok") != "ok"]
    if plot is not None:
        bench_plot.draw(list(rows), os.fspath(plot))
    if failed or done.returncode != 0:
        error = Error("mxforge bench: %d of %d kernel runs failed their check:\n%s" % (
            len(failed), len(rows), "\n".join("  m=%d %s: %s" % (r["m"], r["spec"], r["check"])
                                              for r in failed) or done.stderr))
        error.rows = rows
        raise error
    return rows
