"""Start-up: compile, kernels, the cache, bundles, inspect."""

import os
import subprocess

import numpy as np
import pytest

import mxforge
from helpers import REPO, cli, mismatch, random_x


def write_bundle(tmp_path, specs):
    listing = tmp_path / "specs.txt"
    listing.write_text("\n".join(specs) + "\n")
    bundle = tmp_path / "test.mxfb"
    subprocess.run([cli(), "bundle", "--specs", str(listing), "-o", str(bundle), "--no-cache",
                    "--threads", "2"], check=True, capture_output=True)
    return bundle


def test_compile_returns_one_result_per_spec(rng):
    k = 64 * rng.randint(1, 16)
    specs = [f"rotate_quant:K={k},M=2", "rotate_quant:K=100",
             f"rotate_quant:K={k},RS=64,rot=hadamard_butterfly",
             f"rotate_quant:K={k},M=8,scale=rceil"]
    results = mxforge.compile(specs, threads=2)
    assert [r.ok for r in results] == [True, False, False, True]
    # "shared" when an earlier test's kernel of this tiling class made the code.
    assert results[0].origin in ("jit", "cache", "shared")
    assert isinstance(results[1].error, mxforge.SpecError) and "K=100" in str(results[1].error)
    assert isinstance(results[2].error, mxforge.CompileError)
    assert "hadamard_butterfly at RS=64" in str(results[2].error)
    with pytest.raises(mxforge.CompileError):
        results[2].raise_if_failed()
    listed = {kernel.spec: kernel for kernel in mxforge.kernels("emu")}
    assert results[0].canonical in listed and results[3].canonical in listed
    assert listed[results[0].canonical].bucket == 2
    with pytest.raises(mxforge.ArgumentTypeError, match="list of specs"):
        mxforge.compile("rotate_quant:K=64")


def test_cache_info_is_the_test_cache(cache_dir):
    mxforge.compile(["rotate_quant:K=160"])
    info = mxforge.cache_info()
    assert info.enabled and info.directory == cache_dir
    assert info.source == "MXFORGE_CACHE_DIR"
    assert info.entries >= 1 and info.total_bytes > 0
    assert info.requests >= 1


def test_bundle_kernels_are_listed_and_used(tmp_path, rng):
    k = 32 * rng.randint(33, 40)  # widths no other test compiles
    specs = [f"rotate_quant:K={k},RS=32,M=4", f"rotate_quant:K={k},RS=32,M=16"]
    bundle = write_bundle(tmp_path, specs)
    assert mxforge.load_bundle(bundle) == 2
    listed = {kernel.spec: kernel for kernel in mxforge.kernels() if str(bundle) == kernel.source}
    assert len(listed) == 2 and all(k.origin == "bundle" and not k.produced
                                    for k in listed.values())
    x = random_x(rng, 3, k)
    result = mxforge.rotate_quant(x, rs=32)
    assert result.run.origin == "bundle" and result.run.bucket == 4
    q_ref, s_ref = mxforge.reference(None, x, rs=32)
    assert mismatch(result.q, q_ref, "q") is None and mismatch(result.s, s_ref, "s") is None
    used = {kernel.spec: kernel for kernel in mxforge.kernels("emu")}[result.spec]
    assert used.produced and used.on_device and used.source == str(bundle)

    report = mxforge.inspect(bundle)
    assert isinstance(report, mxforge.inspection.BundleReport)
    assert sorted(k.spec for k in report.kernels) == sorted(listed)
    assert all(k.vgprs > 0 and k.code_bytes > 0 for k in report.kernels)


def test_damaged_bundle_is_a_bundle_error(tmp_path):
    bad = tmp_path / "bad.mxfb"
    bad.write_bytes(b"MXFB" + bytes(40))
    with pytest.raises(mxforge.BundleError) as raised:
        mxforge.load_bundle(bad, device="emu")
    assert str(bad) in str(raised.value)
    with pytest.raises(mxforge.BundleError):
        mxforge.inspect(bad)
    with pytest.raises(mxforge.ArgumentError, match="no such file"):
        mxforge.inspect(str(tmp_path / "missing.mxfb"))


def test_inspect_spec():
    report = mxforge.inspect("rotate_quant:K=512,RS=64,layout=a4w4_shuffle", m=5)
    assert report.spec.startswith("rotate_quant:K=512,RS=64,rot=hadamard,M=16")
    assert [o.name for o in report.operands] == ["x", "q", "s"]
    assert report.operands[0].shape == (5, 512) and report.operands[0].row_stride_arg == "x_stride"
    assert report.operands[2].shape == (256, 16)  # shuffled scales: rows padded to 256
    assert report.kernel.bucket == 8 and report.kernel.on_device
    assert report.launch.m == 5 and report.launch.max_rows == 256
    assert report.launch.workgroup[0] % 64 == 0 and report.launch.grid[1] >= 1
    assert report.launch.abi_version == 2


def test_operands_without_a_context():
    shapes = {o.name: o.shape for o in mxforge.operands(
        mxforge.canonical_spec(k=1024, rs=128, rot="learned_per_block"), 7)}
    assert shapes == {"x": (7, 1024), "r": (8, 128, 128), "q": (7, 512), "s": (7, 32)}


def test_version_and_library():
    assert mxforge.version().startswith("mxforge ")
    assert mxforge.library_path().endswith(".so") or "libmxforge" in mxforge.library_path()


def test_a_missing_library_names_where_it_looked(tmp_path):
    import subprocess, sys
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import mxforge\n"
            "try:\n    mxforge.version()\n"
            "except mxforge.LibraryNotFoundError as e:\n    print(e)\n")
    env = dict(os.environ, MXFORGE_LIBRARY=str(tmp_path / "libmxforge.so"))
    done = subprocess.run([sys.executable, "-c", code, os.path.join(REPO, "python")], env=env,
                          capture_output=True, text=True)
    assert f"{tmp_path / 'libmxforge.so'} (no such file) (from MXFORGE_LIBRARY)" in done.stdout, \
        done.stdout + done.stderr


def test_inspect_a_code_object(tmp_path):
    hsaco = tmp_path / "k.hsaco"
    subprocess.run([cli(), "compile", "--spec", "rotate_quant:K=64", "-o", str(hsaco)],
                   check=True, capture_output=True)
    report = mxforge.inspect(hsaco)
    assert isinstance(report, mxforge.inspection.CodeObjectReport)
    assert report.machine == 224 and report.elf_class == 2  # EM_AMDGPU, 64-bit
    assert report.bytes == hsaco.stat().st_size and "mxforge inspect" in report.note


def test_mark_startup_done_refuses_late_jit_compiles(tmp_path):
    """In a child process (the policy is process-wide): after
    mark_startup_done("error") a kernel compiled before still runs, a new one
    is a CompileError naming the policy, and late_jit="allow" lifts it."""
    import sys
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import numpy as np, mxforge\n"
        "x = np.zeros((2, 256), dtype=np.uint16)\n"
        "mxforge.rotate_quant(x)\n"
        "mxforge.mark_startup_done(late_jit='error')\n"
        "mxforge.rotate_quant(x)\n"
        "print('compiled before: ok')\n"
        "try:\n"
        "    mxforge.rotate_quant(np.zeros((2, 512), dtype=np.uint16))\n"
        "except mxforge.CompileError as e:\n"
        "    print('late:', e)\n"
        "mxforge.mark_startup_done(late_jit='allow')\n"
        "mxforge.rotate_quant(np.zeros((2, 768), dtype=np.uint16))\n"
        "print('allowed: ok')\n"
        "try:\n"
        "    mxforge.mark_startup_done(late_jit='sometimes')\n"
        "except mxforge.ArgumentError as e:\n"
        "    print('bad:', e)\n")
    env = dict(os.environ, MXFORGE_CACHE="off")
    done = subprocess.run([sys.executable, "-c", code, os.path.join(REPO, "python")], env=env,
                          capture_output=True, text=True)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "compiled before: ok" in out, out
    # The policy came from mark_startup_done (the C API's set_late_jit), not
    # from MXFORGE_JIT, and the message says so.
    assert "late: " in out and ("after start-up was marked done (policy error, set by "
                                "mxf_context_set_late_jit) is refused") in out, out
    assert "allowed: ok" in out, out
    assert "bad: late_jit must be one of allow, warn, error, got 'sometimes'" in out, out


def test_origins_after_a_warm_start_say_what_happened(tmp_path):
    """Two processes over one cache directory: the first compiles (jit, and
    shared for another bucket of the class, asked for afterwards), the second loads the same code
    from the cache (cache, and shared). Before, every one of them said jit."""
    import sys
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import mxforge\n"
        "results = mxforge.compile(['rotate_quant:K=1024,RS=64,M=1'])"
        " + mxforge.compile(['rotate_quant:K=1024,RS=64,M=16'])\n"
        "print(' '.join(r.origin for r in results))\n"
        "print(' '.join(k.origin for k in mxforge.kernels() if 'K=1024' in k.spec))\n")
    env = dict(os.environ, MXFORGE_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("MXFORGE_CACHE", None)
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", code, os.path.join(REPO, "python")],
                              env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        runs.append(done.stdout.split("\n")[:2])
    assert runs[0] == ["jit shared", "jit shared"], runs
    assert runs[1] == ["cache shared", "cache shared"], runs

