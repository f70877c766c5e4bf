"""Threads, the GIL, and forked children."""

import os
import threading
import time

import numpy as np

import mxforge
from helpers import mismatch, random_keys, random_m, random_r, random_x


def test_eight_threads_quantize_and_compile_at_once(rng):
    jobs = []
    for _ in range(8):
        keys, m = random_keys(rng, max_k=512), random_m(rng)
        jobs.append((keys, random_x(rng, m, keys["k"]), random_r(rng, keys),
                     32 * rng.randint(41, 60)))
    failures = []
    start = threading.Barrier(len(jobs))

    def work(index, keys, x, r, compile_k):
        try:
            start.wait()
            for _ in range(3):
                q, s = mxforge.rotate_quant(x, r=r, **keys)
                q_ref, s_ref = mxforge.reference(None, x, r=r, **keys)
                for problem in (mismatch(q, q_ref, "q"), mismatch(s, s_ref, "s")):
                    if problem:
                        failures.append(f"thread {index} {keys}: {problem}")
                results = mxforge.compile([f"rotate_quant:K={compile_k},RS=32"])
                if not results[0].ok:
                    failures.append(f"thread {index}: {results[0].error}")
        except Exception as error:  # reported below, with the thread
            failures.append(f"thread {index}: {type(error).__name__}: {error}")

    threads = [threading.Thread(target=work, args=(i, *job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, "\n".join(failures)


def test_the_gil_is_released_during_a_launch(rng):
    """While one thread runs a long emulated launch, another keeps running
    Python: the longest pause it sees is far below the launch's duration."""
    x = random_x(rng, 256, 8192)
    mxforge.rotate_quant(x[:1], rs=256)  # compile outside the measurement
    done = threading.Event()
    span = {}

    def launch():
        span["start"] = time.perf_counter()
        mxforge.rotate_quant(x, rs=256)
        span["end"] = time.perf_counter()
        done.set()

    thread = threading.Thread(target=launch)
    stamps = []
    thread.start()
    while not done.is_set():
        stamps.append(time.perf_counter())
        time.sleep(0.001)
    thread.join()
    duration = span["end"] - span["start"]
    inside = [t for t in stamps if span["start"] <= t <= span["end"]]
    gaps = np.diff(inside) if len(inside) > 1 else [duration]
    print(f"launch {duration * 1e3:.1f} ms, {len(inside)} ticks, longest gap "
          f"{max(gaps) * 1e3:.1f} ms")
    assert duration > 0.05, "the launch is too short to tell"
    assert max(gaps) < duration / 4


def test_a_forked_child_uses_the_package(rng):
    x = random_x(rng, 5, 256)
    q_parent, s_parent = mxforge.rotate_quant(x, rs=64)  # the parent has a context now
    from mxforge import _contexts
    assert "emu" in _contexts.existing()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its own context, the same bytes
        code = 1
        try:
            # The parent's context is forgotten (a HIP context does not survive
            # fork, and a lock another parent thread held would never be released).
            from mxforge import _contexts
            if _contexts.existing():
                raise RuntimeError(f"the child inherited contexts {_contexts.existing()}")
            q, s = mxforge.rotate_quant(x, rs=64)
            compiled = mxforge.compile(["rotate_quant:K=1344,RS=64"])[0].ok
            ok = np.array_equal(q, q_parent) and np.array_equal(s, s_parent) and compiled
            os.write(write, b"ok" if ok else b"mismatch")
            code = 0
        except BaseException as error:
            os.write(write, f"{type(error).__name__}: {error}".encode()[:500])
        finally:
            os._exit(code)
    os.close(write)
    message = os.read(read, 1000).decode()
    os.close(read)
    _, status = os.waitpid(pid, 0)
    assert message == "ok" and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, message
