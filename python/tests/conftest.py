"""Shared set-up: a private cache directory, the printed seed, random inputs."""

import os
import random
import shutil
import sys
import tempfile

import numpy as np
import pytest

# Tests must not touch ~/.cache: every context of this process (and of its
# forked children) reads the cache location from the environment when it is
# created, which happens only on first use, after this line.
_CACHE = tempfile.mkdtemp(prefix="mxforge-pytest-cache-")
os.environ["MXFORGE_CACHE_DIR"] = _CACHE

# Import the package from this checkout whatever the .pth file points at.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import mxforge  # noqa: E402

from helpers import session_seed  # noqa: E402


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_CACHE, ignore_errors=True)


def pytest_report_header(config):
    return [f"mxforge: MXFORGE_TEST_SEED={session_seed()} (set it to replay this run); "
            f"library {mxforge.library_path()}; cache {_CACHE}"]


@pytest.fixture
def rng(request):
    """A generator per test, from the session seed and the test's name, so a
    test replays alone with the same MXFORGE_TEST_SEED."""
    seed = (session_seed() * 1000003 + sum(map(ord, request.node.name))) % 2**63
    print(f"[seed] {request.node.name}: MXFORGE_TEST_SEED={session_seed()} (derived {seed})")
    return random.Random(seed)


@pytest.fixture
def cache_dir():
    return _CACHE
