"""Bundled demo data: paths to small real-sequence files (see README.md for provenance)."""

from __future__ import annotations

import pathlib

__all__ = ["demo_reads", "demo_windows"]

_HERE = pathlib.Path(__file__).parent


def demo_reads() -> pathlib.Path:
    """200 simulated 150 bp reads with sequencing errors."""
    return _HERE / "demo_reads.fa"


def demo_windows() -> pathlib.Path:
    """The reference window of each demo read, 20 bp wider on each side."""
    return _HERE / "demo_windows.fa"
