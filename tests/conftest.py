"""Shared fixtures: random inputs with a printed seed, oracle helpers."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
# SEQWARP_GPU_EMULATOR=1: the GPU tests run their kernels on the CPU (tests/emulator: a
# stand-in for CuPy whose kernels the host's C++ compiler builds, a fiber a CUDA thread)
if os.environ.get("SEQWARP_GPU_EMULATOR") == "1":
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "emulator"))


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A seeded generator; the seed is printed so a failure can be replayed."""
    seed = int(os.environ.get("SEQWARP_TEST_SEED", abs(hash(request.node.nodeid)) % (1 << 32)))
    print(f"random seed {seed} (set SEQWARP_TEST_SEED={seed} to replay)")
    return np.random.default_rng(seed)
